#!/usr/bin/env bash
# Downloads (does not install) the Debian packages that building glia needs beyond what the lent
# GPU machine is known to have (CMake, ninja, a C/C++ compiler, the CUDA toolkit, python3), into
# .gpu-deps/ at the repository root, for scripts/gpu-check.sh to unpack there: that machine has no
# network, and nothing says its image has pkg-config, OpenBLAS, libzip, nlohmann-json or
# GoogleTest. gpu-check.sh uses them only for what it finds missing, unpacked under its work
# folder (never into /), so carrying them costs nothing where the image has everything.
#
#   bash scripts/gpu-deps.sh          # here, where apt-get works (about 12 MiB)
#
# .gpu-deps/ is listed in .git/info/exclude, so it is ignored by git and travels to the GPU
# machine only when named: run(..., carry=[".gpu-deps"]).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The build's needs (CMakeLists.txt, src/, tests/): pkg-config; OpenBLAS's header and pkg-config
# file (the library itself is loaded at run time, with libgfortran); libzip; zlib (dev symlink and
# runtime, so that the symlink resolves); nlohmann-json; GoogleTest and GoogleMock (GTest's CMake
# package refers to both).
packages=(
  pkgconf pkgconf-bin libpkgconf3
  libopenblas-pthread-dev libopenblas0-pthread libgfortran5 libquadmath0
  libzip-dev libzip4 zlib1g-dev zlib1g
  nlohmann-json3-dev libgtest-dev libgmock-dev libdlpack-dev
)

mkdir -p .gpu-deps
exclude=.git/info/exclude
if [ -d .git ] && ! grep -qx '/.gpu-deps/' "$exclude" 2>/dev/null; then
  mkdir -p .git/info
  echo '/.gpu-deps/' >>"$exclude"
fi
cd .gpu-deps
rm -f ./*.deb
apt-get -o APT::Sandbox::User=root download "${packages[@]}"
# Epochs come as "%3a" in the file names: keep the names to letters, digits, '.', '_' and '-'.
for f in ./*%3a*.deb; do
  [ -e "$f" ] && mv "$f" "${f//%3a/_}"
done
ls -l ./*.deb
echo "gpu-deps: $(find . -name '*.deb' | wc -l) packages, $(du -sh . | cut -f1), in $PWD"
echo "gpu-deps: carry them: run(command='bash scripts/gpu-check.sh', carry=['.gpu-deps'])"
