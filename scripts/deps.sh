#!/usr/bin/env bash
# Makes sure the Debian packages that building and testing glia need are installed
# (the library, the bindings' toolchains, Gloo for distributed training and the redis-server its tests
# start, and the Fashion-MNIST data of the main demo).
# As root it installs what is missing; otherwise it names the packages and fails.
# The fuzz packages are optional: without them (and not root) only the fuzz stage of
# scripts/test.sh is skipped, so their absence is a note, not a failure.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache
  libopenblas-dev libgtest-dev libbenchmark-dev libhwy-dev nlohmann-json3-dev
  libzip-dev zlib1g-dev libdlpack-dev
  python3-numpy python3-pytest python3-pip python3-setuptools python3-wheel python3-venv
  dataset-fashion-mnist golang-go
  libgloo-dev redis-server
  lintian doxygen
)
# The Rust binding needs cargo: Debian's package, unless a cargo (e.g. rustup's) is on PATH.
command -v cargo >/dev/null 2>&1 || packages+=(cargo)
# scripts/fuzz.sh: clang-14 and its libFuzzer runtime (libclang_rt.fuzzer-x86_64.a).
fuzz_packages=(clang libclang-rt-14-dev)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "deps: dpkg-query not found (not Debian?); install the equivalents of: ${packages[*]}" >&2
  exit 0
fi

# One dpkg-query for all packages keeps the common case (nothing missing) fast.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${packages[@]}" "${fuzz_packages[@]}" 2>/dev/null |
  awk '$2 == "ii" { sub(/:.*/, "", $1); print $1 }' || true)
missing=()
for p in "${packages[@]}"; do
  grep -qx -- "$p" <<<"$installed" || missing+=("$p")
done
missing_fuzz=()
for p in "${fuzz_packages[@]}"; do
  grep -qx -- "$p" <<<"$installed" || missing_fuzz+=("$p")
done
if [ "$(id -u)" -ne 0 ] && [ ${#missing_fuzz[@]} -gt 0 ]; then
  echo "deps: no ${missing_fuzz[*]}: the fuzz stage will be skipped (sudo apt-get install -y ${missing_fuzz[*]})" >&2
elif [ ${#missing_fuzz[@]} -gt 0 ]; then
  missing+=("${missing_fuzz[@]}")
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  echo "deps: installing ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
else
  echo "missing Debian packages: ${missing[*]} ; run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
