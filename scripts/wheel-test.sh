#!/usr/bin/env bash
# The Python wheel, tested as a user gets it: builds it offline from bindings/python with the
# libraries of $GLIA_BUILD_DIR (default build/release), installs it with --no-index into a fresh
# virtual environment, and runs the binding's test suite from a copy outside the checkout with no
# GLIA_LIBRARY, GLIA_BUILD_DIR or PYTHONPATH, checking that the glia imported and the libraries
# loaded are the ones in the environment. Everything happens in a temporary directory, removed at
# exit; the checkout is left as it was. Exit status: 0 passed, 77 skipped (a tool is missing; the
# reason is printed), anything else failed. scripts/test.sh runs it as its "wheel" stage.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${GLIA_BUILD_DIR:-$root/build/release}" 2>/dev/null && pwd) || {
  echo "wheel: GLIA_BUILD_DIR=${GLIA_BUILD_DIR:-$root/build/release} does not exist; build the library first" \
    "(cmake --preset release && cmake --build build/release)" >&2
  exit 1
}
py=/usr/bin/python3
skip() {
  echo "wheel: skipped: $*"
  exit 77
}
[ -x "$py" ] || skip "no $py"
"$py" -m pip --version >/dev/null 2>&1 || skip "$py has no pip: apt-get install -y python3-pip"
"$py" -c 'import setuptools, wheel' 2>/dev/null ||
  skip "$py lacks setuptools or wheel: apt-get install -y python3-setuptools python3-wheel"
"$py" -c 'import venv' 2>/dev/null || skip "$py lacks venv: apt-get install -y python3-venv"
"$py" -c 'import numpy, pytest' 2>/dev/null ||
  skip "$py lacks numpy or pytest: apt-get install -y python3-numpy python3-pytest"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/glia-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
step() {  # <what>: prints the step and the seconds since the start
  echo "==== wheel: $1 ($((SECONDS - start)) s)"
}
# Nothing from the caller's environment may point the test at the checkout or the build tree.
unset GLIA_LIBRARY GLIA_BUILD_DIR PYTHONPATH
export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

# 1. Build. pip builds a local project in place (build/ and glia.egg-info/ next to setup.py), so
# the project is copied out first, with the header setup.py takes the version from.
step "building the wheel from a copy of bindings/python"
src=$tmp/src/bindings/python
mkdir -p "$src" "$tmp/src/include/glia"
cp -r "$root/bindings/python/glia" "$root/bindings/python/pyproject.toml" "$root/bindings/python/setup.py" "$src/"
cp "$root/include/glia/glia.h" "$root/include/glia/glia_base.h" "$tmp/src/include/glia/"
find "$src" -name __pycache__ -prune -exec rm -rf {} +
GLIA_BUILD_DIR=$build "$py" -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$tmp/dist" "$src"

version=$(sed -nE 's/^#define GLIA_VERSION_(MAJOR|MINOR|PATCH) ([0-9]+)$/\2/p' "$root/include/glia/glia_base.h" | paste -sd.)
platform=$("$py" -c 'import sysconfig; print(sysconfig.get_platform().replace("-", "_").replace(".", "_"))')
wheel=$tmp/dist/glia-$version-py3-none-$platform.whl
if [ ! -f "$wheel" ]; then
  echo "wheel: expected $(basename "$wheel"), got: $(ls "$tmp/dist")" >&2
  exit 1
fi
# The libraries it must bundle: libglia, and the CUDA backend when this build has one.
expected=glia/_lib/libglia.so.0
[ ! -e "$build/src/libglia_cuda.so.0" ] || expected+=$'\n'glia/_lib/libglia_cuda.so.0
bundled=$("$py" -c 'import sys, zipfile; print("\n".join(sorted(n for n in zipfile.ZipFile(sys.argv[1]).namelist()
                                                       if "/_lib/" in n)))' "$wheel")
if [ "$bundled" != "$expected" ]; then
  echo "wheel: $(basename "$wheel") bundles [${bundled//$'\n'/, }], expected [${expected//$'\n'/, }]" >&2
  exit 1
fi
echo "wheel: $(basename "$wheel"), $(($(stat -c %s "$wheel") / 1024)) KiB, bundles ${bundled//$'\n'/ and }"

# 2. Install into a fresh virtual environment, offline. --system-site-packages: numpy (the wheel's
# one dependency) and pytest come from Debian's packages, as there is no index to fetch them from.
# --without-pip: the venv runs Debian's pip from the system site-packages, which installs into the
# venv all the same, and the copy of pip that ensurepip would put there costs half a minute.
step "installing it into a new venv (--no-index)"
"$py" -m venv --system-site-packages --without-pip "$tmp/venv"
vpy=$tmp/venv/bin/python
"$vpy" -m pip install -q --no-index "$wheel"

# 3. The binding's tests, copied out of the checkout: tests/_repo.py sees that they are out of the
# tree, so they import the installed glia; GLIA_SOURCE_DIR gives them the checkout's data files.
step "running the binding's tests from $tmp/tests against the installed wheel"
cp -r "$root/bindings/python/tests" "$tmp/tests"
find "$tmp/tests" -name __pycache__ -prune -exec rm -rf {} +
(cd "$tmp" && GLIA_SOURCE_DIR=$root "$vpy" -m pytest -q -p no:cacheprovider "$tmp/tests")

# 4. What got loaded: glia from the venv's site-packages, libglia from glia/_lib/ there (and the
# CUDA backend next to it, when bundled), with the wheel's version.
step "checking what the installed glia loads"
(cd / && "$vpy" - "$tmp/venv" "$version" <<'EOF'
import glob, importlib.metadata, os, sys

import glia
from glia import _ffi

venv, version = os.path.realpath(sys.argv[1]), sys.argv[2]
package = os.path.dirname(os.path.realpath(glia.__file__))
site = os.path.realpath(glob.glob(os.path.join(venv, "lib", "python3*", "site-packages"))[0])
problems = []
if package != os.path.join(site, "glia"):
    problems.append("glia imported from %s, not from %s" % (package, site))
if (os.path.realpath(_ffi.lib_path), _ffi.lib_found_by) != (os.path.join(package, "_lib", "libglia.so.0"),
                                                             "bundled with the package"):
    problems.append("libglia loaded from %s (%s), not the bundled one" % (_ffi.lib_path, _ffi.lib_found_by))
if glia.__version__ != version or importlib.metadata.version("glia") != version:
    problems.append("glia.__version__ %s, installed distribution %s, header %s"
                    % (glia.__version__, importlib.metadata.version("glia"), version))
cuda = os.path.join(package, "_lib", "libglia_cuda.so.0")
if os.path.exists(cuda):
    # The core loads its CUDA backend from its own directory when asked for CUDA devices.
    _ffi.C.glia_cuda_device_count()
    with open("/proc/self/maps") as f:
        maps = {line.split()[-1] for line in f if "libglia" in line}
    if {os.path.realpath(m) for m in maps} != {os.path.realpath(_ffi.lib_path), cuda}:
        problems.append("libglia libraries mapped: %s; expected %s and %s" % (sorted(maps), _ffi.lib_path, cuda))
if problems:
    sys.exit("wheel: " + "; ".join(problems))
print("wheel: glia %s from %s, libglia %s (%s)" % (glia.__version__, package, _ffi.lib_path, _ffi.lib_found_by))
EOF
)
# And as a user would check it.
got=$(cd / && "$vpy" -c "import glia; print(glia.__version__)")
if [ "$got" != "$version" ]; then
  echo "wheel: python3 -c 'import glia; print(glia.__version__)' printed '$got', expected $version" >&2
  exit 1
fi
echo "wheel: python3 -c 'import glia; print(glia.__version__)' -> $got"
step "passed"
