//! Finds libglia: the directory in GLIA_LIB_DIR, else `pkg-config --libs-only-L glia`.
use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=GLIA_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=build.rs");

    if let Some(dir) = env::var_os("GLIA_LIB_DIR") {
        let dir = Path::new(&dir);
        let found = ["libglia.so", "libglia.dylib", "glia.lib", "libglia.a"]
            .iter()
            .any(|f| dir.join(f).exists());
        if !found {
            panic!(
                "\n\nglia-sys: GLIA_LIB_DIR is {} but it holds no libglia.so; point it at the directory \
                 of libglia.so (in a CMake build: <build dir>/src)\n\n",
                dir.display()
            );
        }
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=dylib=glia");
        return;
    }

    match Command::new("pkg-config").args(["--libs-only-L", "glia"]).output() {
        Ok(out) if out.status.success() => {
            for flag in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                if let Some(dir) = flag.strip_prefix("-L") {
                    println!("cargo:rustc-link-search=native={}", dir);
                }
            }
            println!("cargo:rustc-link-lib=dylib=glia");
        }
        Ok(out) => panic!(
            "\n\nglia-sys: cannot find libglia. Set GLIA_LIB_DIR to the directory that holds libglia.so \
             (in a CMake build: <build dir>/src), or install glia so that `pkg-config glia` finds it \
             (pkg-config said: {})\n\n",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => panic!(
            "\n\nglia-sys: cannot find libglia. Set GLIA_LIB_DIR to the directory that holds libglia.so \
             (in a CMake build: <build dir>/src); pkg-config could not be run either ({})\n\n",
            e
        ),
    }
}
