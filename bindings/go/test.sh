#!/usr/bin/env bash
# Tests the Go binding against a glia build: go vet, go test (and go test -race), then the
# example examples/go/train. GLIA_BUILD_DIR is a CMake build directory holding
# src/libglia.so (default: <repo>/build/release). Exit 0 = pass; skipped when go is missing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GLIA_BUILD_DIR:-$root/build/release}

if ! command -v go >/dev/null 2>&1; then
  echo "bindings/go: skipped (go not found; apt-get install golang-go)"
  exit 0
fi
build=$(cd "$build" && pwd)
if [ ! -e "$build/src/libglia.so" ]; then
  echo "bindings/go: $build/src/libglia.so not found (set GLIA_BUILD_DIR to a glia build)" >&2
  exit 1
fi

if [ ! -e "$build/pkgconfig/glia-uninstalled.pc" ]; then
  echo "bindings/go: $build/pkgconfig/glia-uninstalled.pc not found (configure $build again with cmake)" >&2
  exit 1
fi

export CGO_ENABLED=1
# The package finds libglia with `#cgo pkg-config: glia`; pkg-config prefers glia-uninstalled.pc,
# the build tree's (the headers of this checkout, the library in $build/src), over an installed glia.
export PKG_CONFIG_PATH="$build/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# go's build cache key covers the CGO_* variables but not what `#cgo pkg-config` returned: a define
# naming this build tree keeps a package compiled against another glia (an installed one, another
# build) from being reused here.
tree_id=$(printf %s "$build" | cksum | cut -d' ' -f1)
export CGO_CPPFLAGS="${CGO_CPPFLAGS:-} -DGLIA_GO_BUILD_TREE=$tree_id"
export LD_LIBRARY_PATH="$build/src${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# No network: the binding and its example use the standard library only.
export GOPROXY=off GOSUMDB=off GOFLAGS=${GOFLAGS:-} GOTOOLCHAIN=local
# Caches outside the source tree: Go's defaults under $HOME, or the build directory when
# $HOME cannot be written.
if ! { [ -n "${HOME:-}" ] && mkdir -p "$(go env GOCACHE)" 2>/dev/null && [ -w "$(go env GOCACHE)" ]; }; then
  export GOCACHE=$build/go-cache GOPATH=$build/go-path GOMODCACHE=$build/go-path/pkg/mod
fi

echo "== bindings/go: $(go version), library $(pkg-config --variable=libdir glia)/libglia.so"
cd "$here"
test -z "$(gofmt -l .)" || { echo "bindings/go: gofmt needed:"; gofmt -l .; exit 1; }
go vet ./...
go test -count=1 ./...
# cgocheck=2: C never keeps a Go pointer (callbacks travel as runtime/cgo.Handle values).
GODEBUG=cgocheck=2 go test -count=1 ./...

# The race detector (cgo works with it on amd64/arm64); it instruments the Go side only.
if go env GOARCH | grep -qE '^(amd64|arm64)$' && [ -e "$(go env GOROOT)/src/runtime/race/race_linux_$(go env GOARCH).syso" ]; then
  go test -count=1 -race ./...
else
  echo "bindings/go: go test -race skipped (no race runtime for $(go env GOOS)/$(go env GOARCH))"
fi

cd "$root/examples/go"
test -z "$(gofmt -l .)" || { echo "bindings/go: gofmt needed:"; gofmt -l .; exit 1; }
go vet ./...
go run ./train
echo "bindings/go: passed"
