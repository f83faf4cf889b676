#!/usr/bin/env bash
# Builds the HTML API reference with Doxygen (docs/api/Doxyfile) from include/glia/*.h,
# glia.hpp and the docs/*.md pages, into $GLIA_BUILD_DIR/docs/api (default: build/docs).
# Warnings are errors: any doxygen warning (an undocumented function, struct member,
# macro or typedef, a broken @ref) or an undocumented enum value fails it, and each is
# printed as "file:line: what". Exit 0: built; 77: skipped (doxygen is not installed
# and we are not root; scripts/deps.sh installs it as root); anything else: failed.
# Open <output>/html/index.html in a browser.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

if ! command -v doxygen >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "docs: skipped (doxygen not found; sudo apt-get install -y doxygen)"
    exit 77
  fi
  echo "docs: doxygen not found (scripts/deps.sh installs it as root)" >&2
  exit 1
fi

if [ -n "${GLIA_BUILD_DIR:-}" ]; then
  out=$GLIA_BUILD_DIR/docs/api
else
  out=$PWD/build/docs
fi
rm -rf "$out"
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)

major=$(sed -n 's/^#define GLIA_VERSION_MAJOR \([0-9]*\)$/\1/p' include/glia/glia_base.h)
minor=$(sed -n 's/^#define GLIA_VERSION_MINOR \([0-9]*\)$/\1/p' include/glia/glia_base.h)
patch=$(sed -n 's/^#define GLIA_VERSION_PATCH \([0-9]*\)$/\1/p' include/glia/glia_base.h)

t0=$(date +%s.%N)
GLIA_DOCS_OUT=$out GLIA_VERSION="$major.$minor.$patch" doxygen docs/api/Doxyfile >"$out/doxygen.log" 2>&1
rc=$?
t1=$(date +%s.%N)

problems=0
if [ -s "$out/warnings.log" ]; then
  problems=$(grep -cE ':[0-9]+: ' "$out/warnings.log")
  [ "$problems" -gt 0 ] || problems=1
  echo "docs: doxygen warnings (each one fails the build):" >&2
  sed "s|^$PWD/||; s|^|  |" "$out/warnings.log" >&2
fi
if [ "$rc" -ne 0 ] && [ "$problems" -eq 0 ]; then
  echo "docs: doxygen failed (exit status $rc):" >&2
  sed 's/^/  /' "$out/doxygen.log" >&2
  problems=1
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "docs: python3 not found: the enum values cannot be checked" >&2
  problems=$((problems + 1))
elif [ -d "$out/xml" ]; then
  if ! enum_report=$(python3 docs/api/check_enum_values.py "$out/xml"); then
    echo "docs: undocumented enum values (each one fails the build):" >&2
    sed "s|^$PWD/||; s|^|  |" <<<"$enum_report" >&2
    problems=$((problems + $(wc -l <<<"$enum_report")))
  fi
fi

seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
if [ "$problems" -ne 0 ] || [ ! -f "$out/html/index.html" ]; then
  echo "docs: FAILED: $problems problem(s) ($seconds s); the reference is in $out/html" >&2
  exit 1
fi
echo "docs: built $out/html/index.html ($seconds s, no warnings)"
