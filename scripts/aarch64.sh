#!/usr/bin/env bash
# Cross-compiles glia for aarch64 with Debian's cross toolchain and runs the C-API tests (capi_tests)
# and the golden op suite (ops_tests, and glia-test-ops on the test device) under qemu-user: the
# aarch64 stage of scripts/test.sh (docs/testing.md, "aarch64"). Correctness only: aarch64 speed is
# not measured here (docs/performance.md).
#   scripts/aarch64.sh [ctest arguments...]     e.g. scripts/aarch64.sh -R 'Golden.*conv'
# Build directory build/aarch64 (the aarch64 preset of CMakePresets.json, cmake/toolchain-aarch64.cmake);
# only libglia, capi_tests and ops_tests with the test device are built, at -O1.
# As root it installs what is missing (adding the arm64 architecture to dpkg); otherwise, or when
# apt cannot get it, it says what to install and exits 77 (skipped). The last lines are ctest's;
# the exit status is ctest's (2 when the build failed).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
dir=build/aarch64
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
jobs=${GLIA_JOBS:-$(nproc)}

# The build machine's tools, then the target's libraries (multiarch packages of the arm64 architecture;
# nlohmann-json3-dev is arch all, shared with the native build).
host_packages=(g++-aarch64-linux-gnu qemu-user cmake ninja-build pkg-config nlohmann-json3-dev)
target_packages=(libopenblas-dev:arm64 libzip-dev:arm64 zlib1g-dev:arm64 libgtest-dev:arm64)

skip() {
  echo "aarch64: skipped: $*" >&2
  exit 77
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  skip "dpkg-query not found (not Debian?): needs an aarch64-linux-gnu cross g++, qemu-aarch64 and the arm64" \
    "builds of OpenBLAS, libzip, zlib and GoogleTest"
fi

installed=$(dpkg-query -W -f='${Package}:${Architecture} ${db:Status-Abbrev}\n' "${host_packages[@]}" \
  "${target_packages[@]}" 2>/dev/null | awk '$2 == "ii" { print $1 }' || true)
missing=()
for p in "${host_packages[@]}"; do
  case $p in
    g++-aarch64-linux-gnu) command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 && continue ;;
    # qemu-user-static (qemu-aarch64-static) does as well.
    qemu-user) command -v qemu-aarch64 >/dev/null 2>&1 || command -v qemu-aarch64-static >/dev/null 2>&1 && continue ;;
  esac
  grep -q -- "^$p:" <<<"$installed" || missing+=("$p")
done
for p in "${target_packages[@]}"; do
  grep -qx -- "$p" <<<"$installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  need_arch=
  dpkg --print-foreign-architectures | grep -qx arm64 || need_arch="sudo dpkg --add-architecture arm64 && "
  if [ "$(id -u)" -ne 0 ]; then
    skip "missing Debian packages: ${missing[*]} ; run: ${need_arch}sudo apt-get update &&" \
      "sudo apt-get install -y --no-install-recommends ${missing[*]}"
  fi
  echo "aarch64: installing ${missing[*]}"
  if [ -n "$need_arch" ]; then
    dpkg --add-architecture arm64 || skip "dpkg --add-architecture arm64 failed"
  fi
  # The arm64 lists are new after --add-architecture, so an update is needed either way.
  apt-get update || skip "apt-get update failed (with the arm64 architecture added); then install: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
    skip "apt-get install ${missing[*]} failed"
fi

echo "==== aarch64: build ($dir: glia capi_tests ops_tests)"
t0=$SECONDS
if ! { [ -f "$dir/CMakeCache.txt" ] || cmake --preset aarch64; } ||
  ! cmake --build "$dir" -j "$jobs" --target glia capi_tests ops_tests; then
  echo "aarch64: build failed ($((SECONDS - t0)) s)" >&2
  exit 2
fi
echo "==== aarch64: built in $((SECONDS - t0)) s; ctest under qemu-aarch64"
t0=$SECONDS
ctest --preset aarch64 -j "$jobs" "$@" 2>&1 | tee "$dir/ctest.log"
rc=${PIPESTATUS[0]}
echo "==== aarch64: ctest took $((SECONDS - t0)) s"
exit "$rc"
