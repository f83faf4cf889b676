#!/usr/bin/env bash
# The Python binding's tests: pytest under /usr/bin/python3 (Debian's python3-numpy and
# python3-pytest) against the library in $GLIA_BUILD_DIR (default build/release).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
export GLIA_BUILD_DIR=${GLIA_BUILD_DIR:-$root/build/release}
export GLIA_LIBRARY=${GLIA_LIBRARY:-$GLIA_BUILD_DIR/src/libglia.so}
py=/usr/bin/python3
if ! "$py" -c 'import numpy, pytest' 2>/dev/null; then
  echo "bindings/python: $py lacks numpy or pytest: apt-get install -y python3-numpy python3-pytest" >&2
  exit 1
fi
# -p no:cacheprovider keeps the source tree clean.
exec "$py" -m pytest -q -p no:cacheprovider "$here/tests" "$@"
