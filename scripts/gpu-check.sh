#!/usr/bin/env bash
# The GPU check of issue 16: one command, on a machine with an NVIDIA GPU (the lent H100: 16 cores,
# root, no network, PyTorch 2.x with CUDA in its python3, nvcc 13 at /usr/local/cuda,
# compute-sanitizer). Builds glia there from source and checks what exists today; every stage that
# needs the CUDA backend of issue 16 says "SKIPPED: <stage> — <reason>" until what it runs exists.
#
#   bash scripts/gpu-check.sh            (from the repository root; about 4-5 minutes, under 9)
#
# With the device tool, carrying the build dependencies that scripts/gpu-deps.sh downloaded here
# (needed only where the machine's image lacks pkg-config, OpenBLAS, libzip, nlohmann-json or
# GoogleTest; see the deps stage):
#   run(command="bash scripts/gpu-check.sh", carry=[".gpu-deps"], timeout_s=600)
#
# Stages, in order (each a function stage_<name> below; a stage's output is in the log between
# "==== [<name>]" lines, with its time):
#   deps             the build's dependencies: the system's, else .gpu-deps/*.deb unpacked under $WORK
#   env              GPU, driver, nvcc, CUDA runtime, cuBLAS/cuDNN/NCCL locations (ldconfig,
#                    /usr/local/cuda, torch's nvidia-* wheels, what torch loads), torch and cuDNN/NCCL
#                    versions, compute-sanitizer: into the log and $OUT/gpu-env.txt
#   build            Release with GLIA_CUDA=ON (CMAKE_CUDA_ARCHITECTURES=$GPU_CHECK_ARCH, default 90),
#                    tests and benchmarks included, in $WORK/build, -j$(nproc)
#   smoke            benchmarks/gpu/cuda_smoke.c against that build: glia_cuda_is_available() = 1
#                    and glia_cuda_device_count() >= 1
#   golden-cuda      [issue 16] ctest tests labelled "cuda" (the golden suite on the GPU)
#   test-ops-cuda    [issue 16] glia-test-ops --backend cuda (an executable named glia-test-ops)
#   parity-cuda      [issue 16] ctest tests labelled "cuda_parity" (MLP and LeNet, 20 steps on the
#                    CPU and on CUDA from the same weights)
#   sanitizer-smoke  compute-sanitizer memcheck on cuda_smoke (the tool works with glia's backend)
#   sanitizer-glia   [issue 16] compute-sanitizer memcheck and racecheck on a short glia-test-ops run
#   w9-cublas        benchmarks/gpu/w9_cublas.cu (nvcc -O2 -arch=sm_$GPU_CHECK_ARCH -lcublas):
#                    cublasSgemm and cublasGemmEx bf16, 4096^3: W9a's "cuBLAS called directly"
#   w9-torch         benchmarks/gpu/w9_torch.py: W9a/W9b/W9c with PyTorch eager on the GPU
#   w9-glia          [issue 16] an executable named w9_glia: glia's side of W9, printing JSON lines
#                    in the schema of w9_torch.py ("JSON {...}", "impl": "glia")
#   ctest-cpu        the Release build's whole CPU test suite (ctest -j$(nproc)); skipped when less
#                    than 150 s of the budget is left; GPU_CHECK_CTEST=0 turns it off
# Then the W9 table (markdown, also $OUT/w9.md) and a summary of the stages. Exit status: 0 when
# no stage failed (SKIPPED is not a failure), else 1.
#
# Switching on an [issue 16] stage: build what it looks for (the ctest label, the executable name)
# and it runs; its function below holds the command. Nothing else needs to change.
#
# Files under $OUT (default /tmp/gpu-check-out; the device tool brings back at most 8 files):
#   gpu-check.log (everything), gpu-env.txt, gpu-build.log, gpu-ctest.log, w9.jsonl, w9.md
# Environment:
#   OUT                  where the files go (default /tmp/gpu-check-out)
#   GPU_CHECK_WORK       work folder: build tree, unpacked deps, binaries (default /tmp/glia-gpu-check;
#                        a build tree already there is reused)
#   GPU_CHECK_ARCH       CUDA architecture (default 90, the H100)
#   GPU_CHECK_JOBS       parallel jobs (default nproc)
#   GPU_CHECK_STAGES     run only these stages, e.g. "env w9-cublas w9-torch" (default: all)
#   GPU_CHECK_BUDGET_S   the run's time budget in seconds (default 510); each command's time limit
#                        is cut to what is left, so the whole run ends within it plus about 20 s
#   GPU_CHECK_CTEST=0    no CPU ctest
#   GPU_CHECK_SANITIZE_ARGS  extra arguments for glia-test-ops under compute-sanitizer (a short run)
#   GPU_CHECK_FORCE_DEBS=1  use .gpu-deps even where the system has everything (a test of that path)
set -euo pipefail

self=$(readlink -f "${BASH_SOURCE[0]}")
ROOT=$(cd "$(dirname "$self")/.." && pwd)
cd "$ROOT"
OUT_DIR=${OUT:-/tmp/gpu-check-out}
mkdir -p "$OUT_DIR"

# Everything to the terminal and to $OUT/gpu-check.log: the script runs itself under tee.
if [ -z "${GPU_CHECK_TEED:-}" ]; then
  rm -f "$OUT_DIR"/gpu-check.log "$OUT_DIR"/gpu-env.txt "$OUT_DIR"/gpu-build.log "$OUT_DIR"/gpu-ctest.log \
    "$OUT_DIR"/w9.jsonl "$OUT_DIR"/w9.md
  set +e
  GPU_CHECK_TEED=1 bash "$self" "$@" 2>&1 | tee "$OUT_DIR/gpu-check.log"
  exit "${PIPESTATUS[0]}"
fi

WORK=${GPU_CHECK_WORK:-/tmp/glia-gpu-check}
BUILD=$WORK/build
ARCH=${GPU_CHECK_ARCH:-90}
JOBS=${GPU_CHECK_JOBS:-$(nproc)}
BUDGET=${GPU_CHECK_BUDGET_S:-510}
DEBS=$ROOT/.gpu-deps
DEPS_ROOT=$WORK/deps
export PYTHONUNBUFFERED=1
mkdir -p "$WORK/bin"

# The CUDA tools: on PATH, else under /usr/local/cuda.
tool() {  # <name>
  command -v "$1" 2>/dev/null || { [ -x "/usr/local/cuda/bin/$1" ] && echo "/usr/local/cuda/bin/$1"; } || true
}
NVCC=$(tool nvcc)
SANITIZER=$(tool compute-sanitizer)
CC_BIN=$(command -v cc || command -v gcc || true)

# ---- helpers -----------------------------------------------------------------------------------

# Inside a stage: prints the SKIPPED line and ends the stage (exit status 77 = skipped).
skip() {  # <reason>
  echo "SKIPPED: $STAGE — $*"
  exit 77
}

# Runs a command with a time limit: `want` seconds, cut to what is left of the budget.
limited() {  # <seconds> <command...>
  local want=$1 left=$((BUDGET - SECONDS))
  shift
  if [ "$left" -lt "$want" ]; then want=$left; fi
  if [ "$want" -lt 5 ]; then
    echo "out of time (budget ${BUDGET} s): not running $*"
    return 124
  fi
  local rc=0
  timeout -k 10 "$want" "$@" || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "TIMED OUT after ${want} s: $*"; fi
  return "$rc"
}

# Runs a command with the carried libraries on the loader's path (set by the deps stage; empty
# when the system has everything): glia's build and glia's programs, not the W9 stages.
# cuDNN (conv2d, cuda/conv.cpp): the toolkit's, else the one inside torch's nvidia-cudnn wheel (the lent
# machines have only that; docs/cuda.md): the build is configured with CUDNN_ROOT there, and glia's programs
# find libcudnn.so.9 in its lib/ through with_deps_ld.
cudnn_root() {
  local cuda=${CUDA_HOME:-/usr/local/cuda}
  if [ -f "$cuda/include/cudnn.h" ]; then return 0; fi
  python3 - <<'PY' 2>/dev/null || true
import os
try:
    import nvidia.cudnn as m
    for d in m.__path__:
        if os.path.isfile(os.path.join(d, "include", "cudnn.h")) and os.path.isdir(os.path.join(d, "lib")):
            print(d)
            break
except Exception:
    pass
PY
}
CUDNN_DIR=$(cudnn_root)

with_deps_ld() {  # <command...>
  local path=${DEPS_LD:-}
  if [ -n "$CUDNN_DIR" ]; then path=${path:+$path:}$CUDNN_DIR/lib; fi
  if [ -n "${LD_LIBRARY_PATH:-}" ]; then path=${path:+$path:}$LD_LIBRARY_PATH; fi
  if [ -n "$path" ]; then LD_LIBRARY_PATH=$path "$@"; else "$@"; fi
}

# The file of that name nearest the top of the build tree (libraries and test programs may move
# there), not counting CMakeFiles/ and the tests' install prefix (tests/install_test).
in_build() {  # <file name>
  { find "$BUILD" \( -name CMakeFiles -o -name install_test \) -prune -o -name "$1" \( -type f -o -type l \) \
    -printf '%d %p\n' 2>/dev/null || true; } | sort -n | sed -n '1s/^[0-9]* //p'
}

# The number of ctest tests with exactly this label (0 without a build tree).
ctest_count() {  # <label>
  [ -f "$BUILD/CTestTestfile.cmake" ] || { echo 0; return; }
  ctest --test-dir "$BUILD" -N -L "^$1\$" 2>/dev/null | sed -n 's/^Total Tests: //p' | tail -n 1
}

section() { echo; echo "---- $*"; }

# Informational commands of the env stage: a failure is reported, not fatal.
try() {
  "$@" || echo "(not available: '$*' exited with status $?)"
}

# ---- stages ------------------------------------------------------------------------------------

# The build needs what CMakeLists.txt finds: CMake >= 3.25, C/C++ compilers, the CUDA toolkit,
# pkg-config with openblas and libzip, zlib, nlohmann_json and GTest's CMake packages. What the
# system lacks comes from .gpu-deps/*.deb (scripts/gpu-deps.sh), unpacked under $WORK/deps, never
# into /: their pkg-config files are rewritten to point there and CMAKE_PREFIX_PATH,
# PKG_CONFIG_PATH and (for glia's programs only) LD_LIBRARY_PATH lead there.
missing_deps() {  # prints what is missing, one word each
  local d found
  command -v cmake >/dev/null || echo cmake
  if command -v cmake >/dev/null; then
    local v
    v=$(cmake --version | sed -n 's/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
    if [ "$(printf '%s\n3.25\n' "$v" | sort -V | head -n 1)" != 3.25 ]; then echo "cmake>=3.25(have-$v)"; fi
  fi
  [ -n "$CC_BIN" ] || echo cc
  command -v c++ >/dev/null || command -v g++ >/dev/null || echo c++
  [ -n "$NVCC" ] || echo nvcc
  command -v python3 >/dev/null || echo python3
  if command -v pkg-config >/dev/null; then
    pkg-config --exists openblas || echo openblas
    pkg-config --exists libzip || echo libzip
  else
    echo pkg-config openblas libzip
  fi
  found=
  for d in /usr/include /usr/local/include "$DEPS_ROOT/usr/include"; do [ -f "$d/zlib.h" ] && found=1; done
  [ -n "$found" ] || echo zlib
  found=
  for d in /usr/include /usr/local/include "$DEPS_ROOT/usr/include"; do [ -f "$d/dlpack/dlpack.h" ] && found=1; done
  [ -n "$found" ] || echo dlpack
  # CMake packages live in <prefix>/{lib/<arch>,lib,share}/cmake/<name>*/.
  for d in nlohmann_jsonConfig.cmake GTestConfig.cmake; do
    find /usr/lib /usr/share /usr/local/lib /usr/local/share "$DEPS_ROOT/usr/lib" "$DEPS_ROOT/usr/share" \
      -maxdepth 4 -name "$d" -print -quit 2>/dev/null | grep -q . || echo "${d%Config.cmake}"
  done
}

write_deps_env() {
  local lib=$DEPS_ROOT/usr/lib/x86_64-linux-gnu
  {
    echo "# written by scripts/gpu-check.sh: the carried build dependencies under $DEPS_ROOT"
    echo "export PATH=\"$DEPS_ROOT/bin:\$PATH\""
    echo "export PKG_CONFIG_PATH=\"$lib/pkgconfig:$lib/openblas-pthread/pkgconfig:$DEPS_ROOT/usr/share/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}\""
    echo "export CMAKE_PREFIX_PATH=\"$DEPS_ROOT/usr\${CMAKE_PREFIX_PATH:+:\$CMAKE_PREFIX_PATH}\""
    echo "export CPATH=\"$DEPS_ROOT/usr/include\${CPATH:+:\$CPATH}\""
    echo "DEPS_LD=\"$lib:$lib/openblas-pthread\""
  } >"$WORK/deps.env"
}

stage_deps() {
  rm -f "$WORK/deps.env"
  local missing
  missing=$(missing_deps | tr '\n' ' ')
  if [ -z "$missing" ] && [ "${GPU_CHECK_FORCE_DEBS:-0}" != 1 ]; then
    echo "deps: the system has everything the build needs (.gpu-deps not used)"
    return 0
  fi
  echo "deps: not on this system: ${missing:-(nothing; GPU_CHECK_FORCE_DEBS=1)}"
  local debs=("$DEBS"/*.deb)
  if [ ! -e "${debs[0]}" ]; then
    echo "FAILED: no .gpu-deps/*.deb to take them from: run 'bash scripts/gpu-deps.sh' where apt-get works"
    echo "        and carry .gpu-deps to this machine (run(..., carry=[\".gpu-deps\"]))"
    return 1
  fi
  rm -rf "$DEPS_ROOT"
  mkdir -p "$DEPS_ROOT/bin"
  local deb member
  for deb in "${debs[@]}"; do
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$deb" "$DEPS_ROOT"
    else  # no dpkg: a .deb is an ar archive holding data.tar.{xz,zst,gz}
      member=$(ar t "$deb" | grep '^data\.tar')
      case $member in
        *.xz) ar p "$deb" "$member" | tar -xJ -C "$DEPS_ROOT" ;;
        *.zst) ar p "$deb" "$member" | tar --zstd -x -C "$DEPS_ROOT" ;;
        *) ar p "$deb" "$member" | tar -xz -C "$DEPS_ROOT" ;;
      esac
    fi
  done
  echo "deps: unpacked ${#debs[@]} packages from .gpu-deps into $DEPS_ROOT"
  # Their pkg-config files name /usr: point them at the unpacked tree.
  find "$DEPS_ROOT/usr" -name '*.pc' -path '*pkgconfig*' -print0 |
    xargs -0 -r sed -i -e "s#=/usr/#=$DEPS_ROOT/usr/#g" -e "s#=/usr\$#=$DEPS_ROOT/usr#"
  # pkg-config: the carried pkgconf with its library (CMake would find the bare one in usr/bin).
  if [ -x "$DEPS_ROOT/usr/bin/pkgconf" ]; then
    # shellcheck disable=SC2016  # the wrapper expands them when it runs
    printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s" "$@"\n' \
      "$DEPS_ROOT/usr/lib/x86_64-linux-gnu" "$DEPS_ROOT/usr/bin/pkgconf" >"$DEPS_ROOT/bin/pkg-config"
    chmod +x "$DEPS_ROOT/bin/pkg-config"
  fi
  write_deps_env
  # shellcheck source=/dev/null
  source "$WORK/deps.env"
  missing=$(missing_deps | tr '\n' ' ')
  if [ -n "$missing" ]; then
    echo "FAILED: still missing after unpacking .gpu-deps: $missing"
    return 1
  fi
  # The carried runtime libraries must find theirs on this system (libzip: bz2, crypto, z).
  local lib=$DEPS_ROOT/usr/lib/x86_64-linux-gnu f unresolved=""
  for f in "$lib"/libzip.so.4 "$lib"/openblas-pthread/libopenblas.so.0; do
    [ -e "$f" ] || continue
    unresolved+=$(LD_LIBRARY_PATH="$DEPS_LD" ldd "$f" | grep 'not found' | sed "s#^#$(basename "$f"): #" || true)
  done
  if [ -n "$unresolved" ]; then
    echo "FAILED: carried libraries need libraries this system lacks:"
    echo "$unresolved"
    return 1
  fi
  echo "deps: pkg-config $(pkg-config --version), openblas $(pkg-config --modversion openblas)," \
    "libzip $(pkg-config --modversion libzip)"
}

env_report() {
  section "run"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "glia: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '(no git metadata)')" \
    "$(git -C "$ROOT" status --porcelain 2>/dev/null | wc -l | sed 's/^0$//; s/.\+/(+ & changed files)/')"
  section "machine"
  try uname -srm
  try sed -n 's/^PRETTY_NAME=//p' /etc/os-release
  echo "cpus: $(nproc); $(free -g | awk '/^Mem:/ { print "memory: " $2 " GiB" }')"
  section "nvidia-smi"
  try nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,clocks.max.sm,power.limit \
    --format=csv
  try nvidia-smi
  section "nvcc (${NVCC:-not found})"
  [ -z "$NVCC" ] || try "$NVCC" --version
  section "CUDA toolkit"
  echo "/usr/local/cuda -> $(readlink -f /usr/local/cuda 2>/dev/null || echo '(missing)')"
  if [ -f /usr/local/cuda/version.json ]; then
    try python3 - /usr/local/cuda/version.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("cuda", "cuda_cudart", "cuda_nvcc", "libcublas", "cuda_sanitizer_api"):
    print(f"{k}: {d[k]['version']}" if k in d else f"{k}: (not in version.json)")
PY
  fi
  section "compute-sanitizer (${SANITIZER:-not found})"
  [ -z "$SANITIZER" ] || try "$SANITIZER" --version
  section "host tools"
  echo "cc: $("${CC_BIN:-cc}" --version 2>&1 | sed -n 1p)"
  echo "c++: $("$(command -v c++ || echo g++)" --version 2>&1 | sed -n 1p)"
  echo "cmake: $(cmake --version 2>&1 | sed -n 1p)"
  echo "ninja: $(ninja --version 2>/dev/null || echo '(not found: Unix Makefiles)')"
  echo "python3: $(command -v python3) $(python3 --version 2>&1)"
  section "loader environment"
  env | grep -E '^(LD_LIBRARY_PATH|CUDA_[A-Z_]*|NVIDIA_[A-Z_]*)=' || echo "(no LD_LIBRARY_PATH, CUDA_* or NVIDIA_* variables)"
  cat /etc/ld.so.conf.d/*.conf 2>/dev/null | grep -v '^#' | sed 's/^/ld.so.conf.d: /' || true
  section "CUDA libraries known to the loader (ldconfig -p)"
  ldconfig -p 2>/dev/null | grep -E 'lib(cudart|cublas|cublasLt|cudnn[a-z_]*|nccl)\.so\.[0-9]+ ' ||
    echo "(none of libcudart, libcublas, libcudnn*, libnccl in the ldconfig cache)"
  section "CUDA libraries in /usr/local/cuda/lib64 (soname -> file)"
  local f
  for f in /usr/local/cuda/lib64/lib*.so.*; do
    case $(basename "$f") in
      lib*.so.*.*) ;;  # the files themselves: shown as the targets of their sonames
      libcudart.so.* | libcublas.so.* | libcublasLt.so.* | libcudnn*.so.* | libnccl.so.*)
        echo "$f -> $(readlink -f "$f")" ;;
    esac
  done
  section "PyTorch"
  try python3 - <<'PY'
import glob, os, sys
import torch

print("python", sys.version.split()[0], sys.executable)
print("torch", torch.__version__, "at", os.path.dirname(torch.__file__))
print("torch.version.cuda", torch.version.cuda)
print("torch.backends.cudnn.version()", torch.backends.cudnn.version())
try:
    print("torch.cuda.nccl.version()", torch.cuda.nccl.version())
except Exception as e:  # a build without NCCL
    print("torch.cuda.nccl.version(): not available:", e)
print("torch.cuda.is_available()", torch.cuda.is_available())
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print(f"device 0: {p.name}, sm_{p.major}{p.minor}, {p.multi_processor_count} SMs, "
          f"{p.total_memory / 2**30:.1f} GiB; {torch.cuda.device_count()} device(s)")
    # One matmul and one convolution, so that cuBLAS and cuDNN are loaded and show below.
    x = torch.randn(8, 3, 16, 16, device="cuda")
    torch.nn.functional.conv2d(x, torch.randn(4, 3, 3, 3, device="cuda"))
    x.flatten(1) @ torch.randn(768, 8, device="cuda")
    torch.cuda.synchronize()
names = ("cudart", "cublas", "cudnn", "nccl")
site = os.path.dirname(os.path.dirname(torch.__file__))
print("CUDA libraries in torch's wheel and the nvidia-* wheels beside it:")
dirs = [os.path.join(os.path.dirname(torch.__file__), "lib")]
dirs += sorted(glob.glob(os.path.join(site, "nvidia", "**", "lib"), recursive=True))
for d in dirs:
    if os.path.isdir(d):
        found = sorted(n for n in os.listdir(d) if any(n.startswith("lib" + k) for k in names))
        if found:
            print(f"  {d}: {' '.join(found)}")
print("CUDA libraries this python process loaded (/proc/self/maps):")
seen = []
with open("/proc/self/maps") as maps:
    for line in maps:
        path = line.split()[-1]
        if path.startswith("/") and any(os.path.basename(path).startswith("lib" + k) for k in names) and path not in seen:
            seen.append(path)
for path in seen:
    print("  " + os.path.realpath(path) + ("" if os.path.realpath(path) == path else f"  (as {path})"))
PY
}

stage_env() {
  env_report 2>&1 | tee "$OUT_DIR/gpu-env.txt"
  # What the rest needs, checked after the report so that the report is whole.
  local ok=1
  if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then echo "FAILED: nvidia-smi lists no GPU"; ok=0; fi
  if ! grep -q '^torch.cuda.is_available() True' "$OUT_DIR/gpu-env.txt"; then
    echo "FAILED: PyTorch does not see a GPU (torch.cuda.is_available() is not True)"
    ok=0
  fi
  [ -n "$NVCC" ] || { echo "FAILED: no nvcc on PATH or in /usr/local/cuda/bin"; ok=0; }
  [ "$ok" = 1 ]
}

stage_build() {
  local opts=()
  if command -v ninja >/dev/null; then opts+=(-G Ninja); fi
  # The carried pkg-config's wrapper (CMake would otherwise find the bare pkgconf of the debs).
  if [ -f "$WORK/deps.env" ] && [ -x "$DEPS_ROOT/bin/pkg-config" ]; then
    opts+=(-DPKG_CONFIG_EXECUTABLE="$DEPS_ROOT/bin/pkg-config")
  fi
  if [ -n "$CUDNN_DIR" ]; then
    echo "build: cuDNN from $CUDNN_DIR (CUDNN_ROOT; its lib/ on the tests' LD_LIBRARY_PATH)"
    opts+=(-DCUDNN_ROOT="$CUDNN_DIR")
  fi
  if [ -f "$BUILD/CMakeCache.txt" ]; then echo "build: reusing $BUILD"; fi
  echo "build: cmake configure (log: $OUT_DIR/gpu-build.log)"
  local rc=0
  with_deps_ld limited 120 cmake -S "$ROOT" -B "$BUILD" "${opts[@]}" --no-warn-unused-cli \
    -DCMAKE_BUILD_TYPE=Release -DGLIA_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
    -DGLIA_BUILD_TESTS=ON -DGLIA_BUILD_EXAMPLES=ON -DGLIA_BUILD_BENCHMARKS=ON \
    >>"$OUT_DIR/gpu-build.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 40 "$OUT_DIR/gpu-build.log"
    echo "FAILED: cmake configure (exit status $rc)"
    return 1
  fi
  local said
  said=$(grep -E '^-- glia: CUDA backend' "$OUT_DIR/gpu-build.log" | tail -n 1 || true)
  echo "build: ${said:-(configure printed no '-- glia: CUDA backend' line)}"
  if [ "$said" != "-- glia: CUDA backend ON" ]; then
    echo "FAILED: the configure step did not enable the CUDA backend"
    return 1
  fi
  # All the budget but 120 s, kept for the W9 stages (a Release build takes about 1-2 min on 16 cores).
  local t0=$SECONDS limit=$((BUDGET - SECONDS - 120))
  if [ "$limit" -lt 60 ]; then limit=60; fi
  echo "build: cmake --build -j$JOBS (time limit ${limit} s)"
  with_deps_ld limited "$limit" cmake --build "$BUILD" -j "$JOBS" >>"$OUT_DIR/gpu-build.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    grep -E -A 12 '^FAILED:|error:' "$OUT_DIR/gpu-build.log" | head -n 80 || true
    tail -n 20 "$OUT_DIR/gpu-build.log"
    echo "FAILED: cmake --build (exit status $rc; the whole log is $OUT_DIR/gpu-build.log)"
    return 1
  fi
  echo "build: done in $((SECONDS - t0)) s"
  local lib cudalib
  lib=$(in_build libglia.so)
  cudalib=$(in_build libglia_cuda.so.0)
  [ -n "$lib" ] || { echo "FAILED: no libglia.so in $BUILD"; return 1; }
  [ -n "$cudalib" ] || { echo "FAILED: no libglia_cuda.so.0 in $BUILD (CUDA backend not built)"; return 1; }
  ls -l "$(readlink -f "$lib")" "$(readlink -f "$cudalib")"
}

stage_smoke() {
  local lib cudalib
  lib=$(in_build libglia.so)
  cudalib=$(in_build libglia_cuda.so.0)
  if [ -z "$lib" ] || [ -z "$cudalib" ]; then
    echo "FAILED: no libglia.so or libglia_cuda.so.0 in $BUILD"
    return 1
  fi
  "$CC_BIN" -std=c99 -O2 -Wall -Wextra -I"$ROOT/include" "$ROOT/benchmarks/gpu/cuda_smoke.c" -o "$WORK/bin/cuda_smoke" \
    -L"$(dirname "$lib")" -lglia -Wl,-rpath,"$(dirname "$lib")" -ldl
  echo "ldd $cudalib:"
  with_deps_ld ldd "$cudalib" | sed 's/^/  /'
  # libglia looks for libglia_cuda.so.0 next to itself, then through the loader: the build tree
  # keeps them in separate folders, so the loader's path gets the backend's.
  DEPS_LD="$(dirname "$cudalib")${DEPS_LD:+:$DEPS_LD}" with_deps_ld limited 60 "$WORK/bin/cuda_smoke"
}

stage_golden_cuda() {
  local n
  n=$(ctest_count cuda)
  [ "${n:-0}" -gt 0 ] || skip "no ctest test is labelled 'cuda' yet (the golden suite on the CUDA device, issue 16)"
  with_deps_ld limited 240 ctest --test-dir "$BUILD" -L '^cuda$' -j 4 --output-on-failure --timeout 180
}

stage_test_ops_cuda() {
  local bin
  bin=$(in_build glia-test-ops)
  [ -n "$bin" ] || skip "no glia-test-ops in the build (the op parity tool of issue 15; its cuda backend is issue 16)"
  with_deps_ld limited 240 "$bin" --backend cuda
}

stage_parity_cuda() {
  local n
  n=$(ctest_count cuda_parity)
  [ "${n:-0}" -gt 0 ] ||
    skip "no ctest test is labelled 'cuda_parity' yet (MLP and LeNet, 20 steps CPU vs CUDA, issue 16)"
  with_deps_ld limited 180 ctest --test-dir "$BUILD" -L '^cuda_parity$' --output-on-failure --timeout 120
}

stage_sanitizer_smoke() {
  [ -n "$SANITIZER" ] || { echo "FAILED: compute-sanitizer not found"; return 1; }
  [ -x "$WORK/bin/cuda_smoke" ] || skip "no cuda_smoke binary (the smoke stage did not build it)"
  local cudalib
  cudalib=$(in_build libglia_cuda.so.0)
  DEPS_LD="$(dirname "$cudalib")${DEPS_LD:+:$DEPS_LD}" \
    with_deps_ld limited 90 "$SANITIZER" --tool memcheck --error-exitcode 1 "$WORK/bin/cuda_smoke"
}

stage_sanitizer_glia() {
  local bin
  bin=$(in_build glia-test-ops)
  [ -n "$bin" ] || skip "no glia kernels to check yet (runs on glia-test-ops --backend cuda once it exists, issue 16)"
  [ -n "$SANITIZER" ] || { echo "FAILED: compute-sanitizer not found"; return 1; }
  # A short run: GPU_CHECK_SANITIZE_ARGS narrows it (e.g. to a few ops); issue 16's allocator gets
  # an environment switch that bypasses its cache for these runs: set it here when it exists.
  local args
  read -r -a args <<<"${GPU_CHECK_SANITIZE_ARGS:-}"
  echo "memcheck:"
  with_deps_ld limited 150 "$SANITIZER" --tool memcheck --error-exitcode 1 "$bin" --backend cuda "${args[@]}"
  echo "racecheck:"
  with_deps_ld limited 150 "$SANITIZER" --tool racecheck --error-exitcode 1 "$bin" --backend cuda "${args[@]}"
}

stage_w9_cublas() {
  [ -n "$NVCC" ] || { echo "FAILED: no nvcc"; return 1; }
  echo "w9-cublas: $NVCC -O2 -arch=sm_$ARCH -lcublas"
  # RUNPATH to the toolkit's libraries: the loader may not know /usr/local/cuda/lib64.
  local cudalib
  cudalib=$(readlink -f "$(dirname "$NVCC")/../lib64")
  limited 120 "$NVCC" -O2 -arch="sm_$ARCH" -o "$WORK/bin/w9_cublas" "$ROOT/benchmarks/gpu/w9_cublas.cu" -lcublas \
    -Xlinker -rpath -Xlinker "$cudalib"
  echo "w9-cublas: libcublas: $(ldd "$WORK/bin/w9_cublas" | awk '/libcublas\.so/ { print $3 }')"
  limited 120 "$WORK/bin/w9_cublas" | tee "$WORK/w9_cublas.txt"
  sed -n 's/^JSON //p' "$WORK/w9_cublas.txt" >>"$OUT_DIR/w9.jsonl"
}

stage_w9_torch() {
  limited 240 python3 "$ROOT/benchmarks/gpu/w9_torch.py" --out "$OUT_DIR/w9.jsonl"
}

stage_w9_glia() {
  local bin
  bin=$(in_build w9_glia)
  [ -n "$bin" ] || skip "no w9_glia in the build (glia's side of W9 needs the CUDA kernels of issue 16)"
  limited 240 "$bin" | tee "$WORK/w9_glia.txt"
  sed -n 's/^JSON //p' "$WORK/w9_glia.txt" >>"$OUT_DIR/w9.jsonl"
}

stage_ctest_cpu() {
  [ "${GPU_CHECK_CTEST:-1}" != 0 ] || skip "GPU_CHECK_CTEST=0"
  local left=$((BUDGET - SECONDS))
  [ "$left" -ge 150 ] || skip "only ${left} s of the ${BUDGET} s budget left (it needs about 60-150 s)"
  echo "ctest-cpu: ctest -j$JOBS, GPU labels excluded (output: $OUT_DIR/gpu-ctest.log)"
  local rc=0
  with_deps_ld limited 300 ctest --test-dir "$BUILD" -j "$JOBS" -LE '^(cuda|cuda_parity)$' --output-on-failure \
    --timeout 150 >"$OUT_DIR/gpu-ctest.log" 2>&1 || rc=$?
  # ctest's summary line, the tests that did not run (skipped) and those that failed.
  local summary
  summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$OUT_DIR/gpu-ctest.log" | tail -n 1 || true)
  if [ -n "$summary" ]; then echo "ctest-cpu: $summary"; else tail -n 20 "$OUT_DIR/gpu-ctest.log"; fi
  sed -n '/^The following tests did not run:/,/^$/p; /^The following tests FAILED:/,/^$/p' "$OUT_DIR/gpu-ctest.log"
  return "$rc"
}

# ---- the run -----------------------------------------------------------------------------------

declare -A STATUS=() TOOK=()
ORDER=()

selected() {  # <stage>
  [ -z "${GPU_CHECK_STAGES:-}" ] || [[ " $GPU_CHECK_STAGES " == *" $1 "* ]]
}

# Runs stage_<name> (dashes as underscores) in a subshell with `set -euo pipefail`, after the
# stages it needs have passed (a stage not selected counts as passed). Exit status 77 = skipped.
stage() {  # <name> [<needed stage>...]
  local name=$1 dep rc=0 t0
  shift
  selected "$name" || return 0
  ORDER+=("$name")
  for dep in "$@"; do
    if selected "$dep" && [ "${STATUS[$dep]:-}" != PASS ]; then
      echo
      echo "NOT RUN: $name — it needs stage $dep, which did not pass (${STATUS[$dep]:-not run})"
      STATUS[$name]=BLOCKED
      TOOK[$name]=0
      return 0
    fi
  done
  echo
  echo "==== [$name] start at $(date +%H:%M:%S), ${SECONDS} s into the run"
  t0=$SECONDS
  set +e
  (
    set -euo pipefail
    STAGE=$name
    # shellcheck source=/dev/null
    [ ! -f "$WORK/deps.env" ] || source "$WORK/deps.env"
    "stage_${name//-/_}"
  )
  rc=$?
  set -e
  TOOK[$name]=$((SECONDS - t0))
  case $rc in
    0) STATUS[$name]=PASS ;;
    77) STATUS[$name]=SKIPPED ;;
    *)
      STATUS[$name]=FAIL
      echo "FAILED: $name (exit status $rc)"
      ;;
  esac
  echo "==== [$name] ${STATUS[$name]} in ${TOOK[$name]} s"
}

echo "gpu-check: glia at $ROOT; work folder $WORK; logs in $OUT_DIR; budget ${BUDGET} s; $(date -u '+%F %T UTC')"
stage deps
stage env
stage build deps
stage smoke build
stage golden-cuda build
stage test-ops-cuda build
stage parity-cuda build
stage sanitizer-smoke smoke
stage sanitizer-glia build
stage w9-cublas
stage w9-torch
stage w9-glia build
stage ctest-cpu build

echo
echo "==== W9 (GPU): reference figures; glia's column fills in with issue 16"
if [ -s "$OUT_DIR/w9.jsonl" ]; then
  python3 "$ROOT/benchmarks/gpu/w9_table.py" "$OUT_DIR/w9.jsonl" | tee "$OUT_DIR/w9.md" ||
    echo "(w9_table.py failed; the raw figures are in $OUT_DIR/w9.jsonl)"
else
  echo "(no W9 figures: the w9 stages did not run or failed)"
fi

echo
echo "==== summary (${SECONDS} s in all)"
failed=0
printf '| %-16s | %-8s | %6s |\n|---|---|---|\n' stage result time
for name in "${ORDER[@]}"; do
  printf '| %-16s | %-8s | %4s s |\n' "$name" "${STATUS[$name]}" "${TOOK[$name]}"
  case ${STATUS[$name]} in FAIL | BLOCKED) failed=$((failed + 1)) ;; esac
done
if [ "$failed" -gt 0 ]; then
  echo "gpu-check: $failed stage(s) failed or could not run; see the FAILED lines above"
  exit 1
fi
echo "gpu-check: every stage that can run today passed (SKIPPED stages wait for issue 16)"
