# Cross-compiling glia for aarch64 (64-bit ARM Linux) with Debian's cross toolchain, the tests run
# under qemu-user (scripts/aarch64.sh, the aarch64 preset; docs/testing.md, "aarch64").
#
# Packages (Debian 12): g++-aarch64-linux-gnu and qemu-user on the build machine; the target's
# libraries as multiarch packages, dpkg --add-architecture arm64, then libopenblas-dev:arm64
# libzip-dev:arm64 zlib1g-dev:arm64 libgtest-dev:arm64 (and nlohmann-json3-dev, arch all).
# Those land in /usr/lib/aarch64-linux-gnu and /usr/include; the compiler's own libraries (libc,
# libstdc++) in /usr/aarch64-linux-gnu.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(GLIA_CROSS_TRIPLE aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${GLIA_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${GLIA_CROSS_TRIPLE}-g++)
# The compiler reports the multiarch directory itself (CMAKE_LIBRARY_ARCHITECTURE = aarch64-linux-gnu),
# so find_library and find_package look in /usr/lib/aarch64-linux-gnu, never in the host's
# /usr/lib/x86_64-linux-gnu. Programs (python3, ...) are the host's; libraries, headers and packages
# only the target's: its cross sysroot, or the multiarch directories under /.
set(CMAKE_FIND_ROOT_PATH /usr/${GLIA_CROSS_TRIPLE} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (OpenBLAS, libzip): the target's .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${GLIA_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Test binaries (ctest, and gtest_discover_tests listing them at build time) run under qemu-user.
# -L: the ELF interpreter and the compiler's libc/libstdc++ from the cross sysroot; LD_LIBRARY_PATH
# (inside the emulated process only): that sysroot first, so that libc always comes with its own
# ld.so, then the multiarch directories (libzip, zlib, and OpenBLAS, which libglia dlopens).
find_program(GLIA_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(GLIA_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${GLIA_QEMU_AARCH64} -L /usr/${GLIA_CROSS_TRIPLE} -E
    LD_LIBRARY_PATH=/usr/${GLIA_CROSS_TRIPLE}/lib:/usr/lib/${GLIA_CROSS_TRIPLE}:/lib/${GLIA_CROSS_TRIPLE})
endif()
