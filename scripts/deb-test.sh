#!/usr/bin/env bash
# The Debian packages, as a user gets them: builds them with `cpack -G DEB` from the Release build
# in GLIA_BUILD_DIR (default build/release), checks their contents, control files and lintian,
# installs them with `dpkg -i`, then with no GLIA_* variable, PKG_CONFIG_PATH or LD_LIBRARY_PATH set
# builds and runs tests/install/consumer twice (`pkg-config --cflags --libs glia`, and CMake's
# `find_package(glia)`), runs the Rust binding's `cargo test --offline` and the Go binding's
# `go test` against the installed library, and removes the packages again (`dpkg --purge`, also
# when a step fails), checking that nothing of glia is left in /usr.
# Needs root (dpkg -i): exit 77 (skipped) when not root, without dpkg or cpack, or when glia is
# already installed in /usr (the test would change that installation). Exit 0 passed, 1 failed.
# The packages and logs stay in $GLIA_BUILD_DIR/deb-test.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GLIA_BUILD_DIR:-$root/build/release}
t0=$SECONDS

skip() { echo "deb-test: skipped ($*)"; exit 77; }
fail() { echo "deb-test: FAILED: $*" >&2; exit 1; }
# Its input's words on one line.
words() { tr -s ' \n' '  ' | sed 's/^ //; s/ $//'; }

[ "$(id -u)" -eq 0 ] || skip "not root: dpkg -i needs root; CI runs it as root"
for tool in dpkg dpkg-deb dpkg-shlibdeps cpack pkg-config cmake cc nm; do
  command -v "$tool" >/dev/null 2>&1 || skip "no $tool (apt-get install dpkg-dev cmake pkg-config build-essential)"
done
[ -f "$build/CPackConfig.cmake" ] || fail "$build/CPackConfig.cmake not found: configure and build glia first (cmake --preset release && cmake --build build/release)"
build=$(cd "$build" && pwd)

# The consumers must find glia where the packages put it, and only there.
for v in $(compgen -e); do
  case $v in GLIA_* | PKG_CONFIG_PATH | PKG_CONFIG_LIBDIR | LD_LIBRARY_PATH | LIBRARY_PATH | CPATH | C_INCLUDE_PATH | \
    CMAKE_PREFIX_PATH | CGO_CFLAGS | CGO_LDFLAGS) unset "$v" ;; esac
done

# One run at a time on a machine: the packages are installed system-wide.
exec 9>/run/lock/glia-deb-test.lock
flock -w 900 9 || fail "another scripts/deb-test.sh held /run/lock/glia-deb-test.lock for 15 minutes"

# What glia leaves in /usr when installed (by these packages or by hand): must be empty before and after.
glia_in_usr() {
  find /usr/include/glia /usr/share/doc/libglia* /usr/share/doc/glia-tools -maxdepth 0 2>/dev/null || true
  find /usr/lib /usr/local/lib /usr/local/include -maxdepth 4 \( -name 'libglia*' -o -name glia.pc \
    -o -name glia-uninstalled.pc -o \( -type d -name glia -path '*/cmake/glia' \) \) 2>/dev/null || true
  ldconfig -p | awk '$1 ~ /^libglia/ { print "ldconfig cache: " $1 }'
}
installed_packages() {
  dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' 'libglia*' 'glia-tools' 2>/dev/null | awk '$2 != "un" { print $1 }' || true
}
before=$(glia_in_usr)
[ -z "$before" ] || skip "glia is already installed on this machine (left alone): $(words <<<"$before")"
[ -z "$(installed_packages)" ] || skip "glia packages are already installed: $(installed_packages | words)"

work=$build/deb-test
rm -rf "$work"
mkdir -p "$work"

# Runs a command quietly, showing its output only when it fails.
quiet() { # <log> <command...>
  local log=$1
  shift
  "$@" >"$log" 2>&1 || { tail -n 60 "$log"; echo "(full log: $log)"; fail "$*"; }
}
# Whether cmake/packaging.cmake packages this install component (cuda, tools) in this build.
has_component() { sed -n 's/^set(CPACK_COMPONENTS_ALL "\(.*\)")$/;\1;/p' "$build/CPackConfig.cmake" | grep -q ";$1;"; }
# dpkg, waiting while another dpkg or apt holds the lock (other jobs on the machine may install packages).
dpkg_wait() {
  local out
  for _ in $(seq 60); do
    if out=$(dpkg "$@" 2>&1); then
      printf '%s\n' "$out"
      return 0
    fi
    grep -qi 'lock' <<<"$out" || { printf '%s\n' "$out"; return 1; }
    sleep 5
  done
  printf '%s\n' "$out"
  return 1
}

echo "== cpack -G DEB ($build)"
t=$SECONDS
# Up to date first (a no-op after scripts/test.sh's build): cpack itself neither reconfigures nor builds.
quiet "$work/build.log" cmake --build "$build" --target glia
! has_component cuda || quiet "$work/build_cuda.log" cmake --build "$build" --target glia_cuda
(cd "$build" && quiet "$work/cpack.log" cpack -G DEB -B "$work/out")
mv "$work"/out/*.deb "$work"/
debs=("$work"/*.deb)
echo "   ${#debs[@]} packages in $((SECONDS - t)) s: $(cd "$work" && echo *.deb)"

# --- contents and control files --------------------------------------------------------------------
version=$(sed -n 's/^set(CPACK_DEBIAN_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
release=$(sed -n 's/^set(CPACK_DEBIAN_PACKAGE_RELEASE "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
major=${version%%.*}
deb_of() { ls "$work/$1_${version}-${release}_"*.deb 2>/dev/null || fail "no package $1 was built"; }
runtime=$(deb_of "libglia$major")
dev=$(deb_of libglia-dev)
packages=("libglia$major" libglia-dev)
if has_component cuda; then
  cuda=$(deb_of "libglia-cuda$major")
  packages+=("libglia-cuda$major")
fi
if has_component tools; then
  tools=$(deb_of glia-tools)
  packages+=(glia-tools)
fi
[ ${#debs[@]} -eq ${#packages[@]} ] || fail "expected the packages ${packages[*]}, got: $(cd "$work" && echo *.deb)"

libdir=$(dpkg-deb -c "$runtime" | awk '{ print $6 }' | sed -n "s|^\./\(.*\)/libglia\.so\.$major\$|\1|p")
[ -n "$libdir" ] || fail "libglia$major holds no libglia.so.$major"
files_of() { dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's|^\./|/|' | grep -v '/$'; }
expect_files() { # <deb> <file...>: the package holds exactly these files and links
  local deb=$1 got want
  shift
  got=$(files_of "$deb" | sort)
  want=$(printf '%s\n' "$@" | sort)
  [ "$got" = "$want" ] || fail "$(basename "$deb") holds:"$'\n'"$got"$'\n'"expected:"$'\n'"$want"
}
docs() { echo "/usr/share/doc/$1/copyright" "/usr/share/doc/$1/changelog.Debian.gz" "/usr/share/doc/$1/changelog.gz"; }
# shellcheck disable=SC2046  # docs prints three paths
expect_files "$runtime" "/$libdir/libglia.so.$major" "/$libdir/libglia.so.$version" $(docs "libglia$major")
headers=$(cd "$root/include" && printf '/usr/include/%s\n' glia/*)
# shellcheck disable=SC2046,SC2086
expect_files "$dev" $headers "/$libdir/libglia.so" "/$libdir/pkgconfig/glia.pc" \
  "/$libdir/cmake/glia/gliaConfig.cmake" "/$libdir/cmake/glia/gliaConfigVersion.cmake" \
  "/$libdir/cmake/glia/gliaTargets.cmake" "/$libdir/cmake/glia/gliaTargets-release.cmake" $(docs libglia-dev)
if [ -n "${cuda:-}" ]; then
  # shellcheck disable=SC2046
  expect_files "$cuda" "/$libdir/libglia_cuda.so.$major" "/$libdir/libglia_cuda.so.$version" $(docs "libglia-cuda$major")
fi

if [ -n "${tools:-}" ]; then
  unexpected=$(files_of "$tools" | grep -v -e '^/usr/bin/' -e '^/usr/share/doc/glia-tools/' -e '^/usr/share/man/' || true)
  [ -z "$unexpected" ] || fail "glia-tools holds more than programs and their documentation: $unexpected"
fi

# libglia0's symbols file: every exported function (abi/glia.symbols) with a version, nothing else.
dpkg-deb -e "$runtime" "$work/control"
dpkg-deb -x "$runtime" "$work/root"
[ "$(head -n 1 "$work/control/symbols")" = "libglia.so.$major libglia$major #MINVER#" ] ||
  fail "the symbols file starts with '$(head -n 1 "$work/control/symbols")'"
exported=$(nm -D --defined-only "$work/root/$libdir/libglia.so.$major" | awk '$2 ~ /^[TWi]$/ { print $3 }' | sort)
listed=$(awk '/^ / { split($1, s, "@"); print s[1] }' "$work/control/symbols" | sort)
[ "$exported" = "$listed" ] || fail "libglia$major's symbols file and the library's exports differ:"$'\n'"$(diff <(echo "$listed") <(echo "$exported") | head -n 20)"
[ "$listed" = "$(sort "$root/abi/glia.symbols")" ] || fail "the symbols file does not list abi/glia.symbols"
bad=$(awk '/^ / && $2 !~ /^[0-9]+\.[0-9]+\.[0-9]+$/' "$work/control/symbols" | head -n 3)
[ -z "$bad" ] || fail "symbols without an upstream version: $bad"
grep -qx 'activate-noawait ldconfig' "$work/control/triggers" || fail "libglia$major has no ldconfig trigger"
for p in "${packages[@]}"; do
  d=$(deb_of "$p")
  if [ "$p" != libglia-dev ]; then
    deps=$(dpkg-deb -f "$d" Depends)
    grep -q 'libc6 (>= ' <<<"$deps" || fail "$p: Depends ($deps) was not computed by dpkg-shlibdeps"
  fi
  for f in postinst postrm preinst prerm; do
    ! dpkg-deb --ctrl-tarfile "$d" | tar t | grep -qx "./$f" || fail "$p has a $f maintainer script"
  done
done
dpkg-deb -f "$dev" Depends | grep -qx "libglia$major (= $version-$release)" ||
  fail "libglia-dev depends on '$(dpkg-deb -f "$dev" Depends)', not on libglia$major (= $version-$release)"

# lintian: no error or warning but the ones docs/install.md explains.
if command -v lintian >/dev/null 2>&1; then
  t=$SECONDS
  explained=initial-upload-closes-no-bugs
  case $libdir in usr/lib) explained+=,pkg-config-unavailable-for-cross-compilation ;; esac
  quiet "$work/lintian.log" lintian --fail-on error,warning --suppress-tags "$explained" "${debs[@]}"
  echo "== lintian: no errors or warnings besides $explained ($((SECONDS - t)) s)"
else
  echo "== lintian: not installed, not run (apt-get install lintian)"
fi

# --- installed ---------------------------------------------------------------------------------------
cleanup() {
  local rc=$? after
  set +e
  if [ -n "$(installed_packages)" ]; then
    echo "== dpkg --purge $(installed_packages | words)"
    # shellcheck disable=SC2046
    dpkg_wait --purge $(installed_packages) >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; rc=1; }
  fi
  after=$(glia_in_usr)
  if [ -n "$after" ] || [ -n "$(installed_packages)" ]; then
    echo "deb-test: FAILED: glia is still installed after dpkg --purge: $({ echo "$after"; installed_packages; } | words)" >&2
    rc=1
  fi
  [ "$rc" -eq 0 ] && echo "deb-test: passed ($((SECONDS - t0)) s)"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

echo "== dpkg -i $(cd "$work" && echo *.deb)"
dpkg_wait -i "${debs[@]}" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "dpkg -i"; }

# Runs a consumer and checks that it loads the installed libglia.
run_consumer() { # <binary>
  local loaded
  loaded=$(ldd "$1" | awk '$1 ~ /^libglia\.so/ { print $3 }')
  [ "$(readlink -f "$loaded")" = "$(readlink -f "/$libdir/libglia.so.$major")" ] ||
    fail "$1 loads libglia from '$loaded', not /$libdir"
  "$1" >"$1.out" || { cat "$1.out"; fail "$1"; }
}

echo "== (a) C consumer: cc \$(pkg-config --cflags --libs glia)"
[ "$(pkg-config --modversion glia)" = "$version" ] || fail "pkg-config --modversion glia says '$(pkg-config --modversion glia)'"
# shellcheck disable=SC2046  # pkg-config's output is meant to be split into arguments
quiet "$work/pkgconfig.log" cc -std=c99 -pedantic -Wall -Wextra -Werror "$root/tests/install/consumer/main.c" \
  $(pkg-config --cflags --libs glia) -o "$work/pkgconfig_consumer"
run_consumer "$work/pkgconfig_consumer"

# dpkg-shlibdeps reads the installed symbols file: a package of this program would depend on libglia0.
mkdir -p "$work/shlibdeps/debian"
printf 'Source: consumer\n\nPackage: consumer\nArchitecture: any\n' >"$work/shlibdeps/debian/control"
shlibs=$(cd "$work/shlibdeps" && dpkg-shlibdeps -O "$work/pkgconfig_consumer" 2>"$work/shlibdeps.log")
grep -q "libglia$major (>= [0-9.]*)" <<<"$shlibs" || fail "dpkg-shlibdeps on a consumer gave: $shlibs"
echo "   dpkg-shlibdeps on it: ${shlibs#shlibs:Depends=}"

echo "== (b) CMake consumer: find_package(glia) + glia::glia"
quiet "$work/cmake.log" cmake -S "$root/tests/install/consumer" -B "$work/cmake_consumer" -DCMAKE_C_COMPILER=cc
found=$(sed -n 's/^glia_DIR:PATH=//p' "$work/cmake_consumer/CMakeCache.txt")
[ "$found" = "/$libdir/cmake/glia" ] || fail "find_package(glia) found '$found', not /$libdir/cmake/glia"
quiet "$work/cmake_build.log" cmake --build "$work/cmake_consumer"
run_consumer "$work/cmake_consumer/consumer"

echo "== (c) Rust: cargo test --offline (glia-sys finds libglia with pkg-config)"
cargo=$(command -v cargo || true)
[ -n "$cargo" ] || [ ! -x "${HOME:-/nonexistent}/.cargo/bin/cargo" ] || cargo=$HOME/.cargo/bin/cargo
if [ -z "$cargo" ]; then
  echo "   skipped: cargo not found (apt-get install cargo)"
else
  t=$SECONDS
  (cd "$root/bindings/rust" && CARGO_TARGET_DIR=$work/rust-target quiet "$work/cargo.log" "$cargo" test --offline)
  ! grep -h 'rustc-link-search' "$work"/rust-target/debug/build/glia-sys-*/output ||
    fail "glia-sys was given a library directory (above) instead of the system's"
  echo "   $(grep -c '^test result: ok' "$work/cargo.log") test binaries passed ($((SECONDS - t)) s)"
fi

echo "== (d) Go: go test (#cgo pkg-config: glia)"
if ! command -v go >/dev/null 2>&1; then
  echo "   skipped: go not found (apt-get install golang-go)"
else
  t=$SECONDS
  # A build cache of its own: go's cache key does not cover what `#cgo pkg-config` returned, so a
  # package compiled by bindings/go/test.sh against the build tree would otherwise be reused here.
  export GOFLAGS=-count=1 GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local CGO_ENABLED=1 GOCACHE=$work/go-cache
  (cd "$root/bindings/go" && quiet "$work/go.log" go test ./...)
  echo "   $(grep -E '^ok' "$work/go.log") ($((SECONDS - t)) s)"
fi
if [ -n "${tools:-}" ]; then
  echo "== (e) glia-tools: /usr/bin/glia-run starts 2 workers with the env:// variables; man glia-run"
  # Each worker prints its RANK/WORLD_SIZE; the launcher must give ranks 0 and 1 of 2.
  got=$(/usr/bin/glia-run --nproc-per-node 2 -- sh -c 'echo "$RANK/$WORLD_SIZE"' | sort | tr '\n' ' ')
  [ "$got" = "0/2 1/2 " ] || fail "glia-run --nproc-per-node 2 gave workers '$got', expected '0/2 1/2 '"
  if command -v man >/dev/null 2>&1; then
    man -w glia-run >/dev/null 2>&1 || fail "man glia-run: no manual page installed"
  fi
  echo "   workers: $got"
fi
# The trap removes the packages and checks that /usr is as it was.
