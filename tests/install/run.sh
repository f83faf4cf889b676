#!/usr/bin/env bash
# Installs a glia build tree into a fresh prefix, checks the installed layout, then builds and
# runs tests/install/consumer/main.c twice, as users build it: (a) with
# `pkg-config --cflags --libs glia`, (b) as a CMake project with find_package(glia).
# usage: run.sh <cmake> <build-dir> <work-dir> <install-libdir> <c-compiler> <version> [<sanitizers>]
set -euo pipefail
cmake=$1 build=$2 work=$3 libdir=$4 cc=$5 version=$6 sanitize=${7:-}
major=${version%%.*}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case $libdir in
  /*) echo "skipped: CMAKE_INSTALL_LIBDIR ($libdir) is absolute, so no prefix relocates it"; exit 77 ;;
esac
flags=()
[ -z "$sanitize" ] || flags=("-fsanitize=$sanitize")
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

# Runs a command quietly, showing its output only when it fails.
quiet() {  # <log> <command...>
  local log=$1
  shift
  "$@" >"$log" 2>&1 || { cat "$log"; echo "FAILED: $*"; return 1; }
}

# Runs a consumer and checks that it loads libglia from the installed prefix.
run_consumer() {  # <binary>
  local loaded
  loaded=$(ldd "$1" | awk '$1 ~ /^libglia\.so/ { print $3 }')
  if [ "$loaded" != "$prefix/$libdir/libglia.so.$major" ]; then
    echo "FAILED: $1 loads libglia from '$loaded', not from $prefix/$libdir"
    return 1
  fi
  "$1"
}

echo "== cmake --install $build --prefix $prefix"
quiet "$work/install.log" "$cmake" --install "$build" --prefix "$prefix"
missing=0
for f in include/glia/glia.h include/glia/glia_base.h "$libdir/libglia.so" "$libdir/libglia.so.$major" \
  "$libdir/cmake/glia/gliaConfig.cmake" "$libdir/cmake/glia/gliaConfigVersion.cmake" "$libdir/pkgconfig/glia.pc"; do
  [ -e "$prefix/$f" ] || { echo "FAILED: the installed tree lacks $f"; missing=1; }
done
[ "$missing" -eq 0 ]

echo "== (a) pkg-config consumer"
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
pc_version=$(pkg-config --modversion glia)
pc_cflags=$(pkg-config --cflags glia)
pc_cflags=${pc_cflags% }
[ "$pc_version" = "$version" ] || { echo "FAILED: glia.pc has version $pc_version, expected $version"; exit 1; }
[ "$pc_cflags" = "-I$prefix/include" ] || { echo "FAILED: glia.pc gives '$pc_cflags', expected -I$prefix/include"; exit 1; }
# shellcheck disable=SC2046  # pkg-config's output is meant to be split into arguments
quiet "$work/pkgconfig.log" "$cc" -std=c99 -pedantic -Wall -Wextra -Werror "${flags[@]}" "$here/consumer/main.c" \
  $(pkg-config --cflags --libs glia) -Wl,-rpath,"$prefix/$libdir" -o "$work/pkgconfig_consumer"
run_consumer "$work/pkgconfig_consumer"

echo "== (b) CMake consumer: find_package(glia 0.1) + glia::glia"
quiet "$work/cmake_configure.log" "$cmake" -S "$here/consumer" -B "$work/cmake_consumer" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="${flags[*]}" \
  -DCMAKE_EXE_LINKER_FLAGS="${flags[*]}"
found=$(sed -n 's/^glia_DIR:PATH=//p' "$work/cmake_consumer/CMakeCache.txt")
[ "$found" = "$prefix/$libdir/cmake/glia" ] || { echo "FAILED: find_package(glia) found '$found'"; exit 1; }
quiet "$work/cmake_build.log" "$cmake" --build "$work/cmake_consumer"
run_consumer "$work/cmake_consumer/consumer"
echo "install test passed"
