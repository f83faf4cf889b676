//! Finds libglia: the directory in GLIA_LIB_DIR when it is set (an override, e.g. a CMake build's
//! `<build dir>/src`), else `pkg-config --libs glia` (the command, no crate): the Debian package
//! libglia-dev installs glia.pc, and PKG_CONFIG_PATH can name other prefixes.
use std::env;
use std::path::Path;
use std::process::Command;

const NOT_FOUND: &str = "glia-sys: cannot find libglia. Install the development package \
    (`apt install libglia-dev`, or `apt install ./libglia0_*.deb ./libglia-dev_*.deb`) so that \
    `pkg-config --libs glia` finds it, add the directory holding glia.pc to PKG_CONFIG_PATH, or set \
    GLIA_LIB_DIR to the directory that holds libglia.so (in a CMake build: <build dir>/src)";

fn main() {
    for var in [
        "GLIA_LIB_DIR",
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
    ] {
        println!("cargo:rerun-if-env-changed={}", var);
    }
    println!("cargo:rerun-if-changed=build.rs");

    if let Some(dir) = env::var_os("GLIA_LIB_DIR") {
        let dir = Path::new(&dir);
        let found = ["libglia.so", "libglia.dylib", "glia.lib", "libglia.a"]
            .iter()
            .any(|f| dir.join(f).exists());
        if !found {
            panic!(
                "\n\nglia-sys: GLIA_LIB_DIR is {} but it holds no libglia.so; point it at the directory \
                 of libglia.so (in a CMake build: <build dir>/src), or unset it to use pkg-config\n\n",
                dir.display()
            );
        }
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=dylib=glia");
        return;
    }

    let pkg_config = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    match Command::new(&pkg_config).args(["--libs", "glia"]).output() {
        Ok(out) if out.status.success() => {
            let mut linked = false;
            for flag in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                if let Some(dir) = flag.strip_prefix("-L") {
                    println!("cargo:rustc-link-search=native={}", dir);
                } else if let Some(lib) = flag.strip_prefix("-l") {
                    println!("cargo:rustc-link-lib=dylib={}", lib);
                    linked |= lib == "glia";
                }
            }
            if !linked {
                println!("cargo:rustc-link-lib=dylib=glia");
            }
        }
        Ok(out) => panic!(
            "\n\n{} (`{} --libs glia` said: {})\n\n",
            NOT_FOUND,
            pkg_config,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => panic!(
            "\n\n{}; `{}` could not be run either ({}: apt install pkg-config)\n\n",
            NOT_FOUND, pkg_config, e
        ),
    }
}
