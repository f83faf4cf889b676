#!/usr/bin/env bash
# Makes sure the Debian packages that building and testing glia need are installed.
# As root it installs what is missing; otherwise it names the packages and fails.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache
  libopenblas-dev libgtest-dev libbenchmark-dev libhwy-dev nlohmann-json3-dev
  libzip-dev zlib1g-dev libdlpack-dev
  python3-numpy python3-pytest
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "deps: dpkg-query not found (not Debian?); install the equivalents of: ${packages[*]}" >&2
  exit 0
fi

# One dpkg-query for all packages keeps the common case (nothing missing) fast.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${packages[@]}" 2>/dev/null |
  awk '$2 == "ii" { print $1 }' || true)
missing=()
for p in "${packages[@]}"; do
  grep -qx -- "$p" <<<"$installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  echo "deps: installing ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
else
  echo "missing Debian packages: ${missing[*]} ; run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
