// Shared by the C-API fuzzers (capi_fuzzer.cpp, autograd_fuzzer.cpp): an input is a
// program, read byte by byte, that calls the C API on a small table of handles.
//
// What every call must do: return NULL, or an error whose code is one of
// enum glia_error_code and whose message is not empty (the harness frees it). A call
// that fails leaves its out-argument NULL. At the end of each input the harness
// releases every handle it holds; then no handle may be live in glia's registry and no
// tensor byte may be in use (a leak that LeakSanitizer cannot see, because a cache or a
// registry still reaches it). A violated property aborts and libFuzzer keeps the input.
//
// Allocations: every CPU tensor storage goes through a host allocator that refuses
// blocks above kAllocCap bytes (returns NULL), so an arbitrary shape is never
// attempted: glia must answer GLIA_ERR_OUT_OF_MEMORY (or GLIA_ERR_SHAPE when the size
// overflows). Views that reach more than kMaxNumel elements without allocating (expand,
// stride-0 blobs) are dropped by the harness: an op over 2^40 broadcast elements is
// slow, not wrong.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "capi/handles.h"
#include "glia/glia.h"

namespace glia::fuzz {

constexpr size_t kAllocCap = size_t(4) << 20;    // bytes per CPU block
constexpr int64_t kMaxNumel = int64_t(1) << 16;  // elements of a tensor the harness keeps

[[noreturn]] inline void capi_finding(const char* what, const char* fn, const char* detail = "") {
  std::fprintf(stderr, "FUZZ FINDING: %s (%s) %s\n", what, fn, detail);
  std::abort();
}

// The host allocator: refuses blocks above kAllocCap.
inline void* cap_alloc(void*, size_t size, size_t alignment) {
  if (size > kAllocCap) return nullptr;
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}
inline void cap_free(void*, void* p, size_t) { std::free(p); }

inline void install_cap_allocator() {
  glia_allocator a;
  glia_allocator_init(&a);
  a.alloc = cap_alloc;
  a.free = cap_free;
  if (glia_error* e = glia_set_allocator(&a)) capi_finding("glia_set_allocator failed", glia_error_message(e));
}

// Reads the program. Past the end every read gives 0.
struct Reader {
  const uint8_t* p;
  size_t n;
  size_t i = 0;
  bool done() const { return i >= n; }
  uint8_t u8() { return i < n ? p[i++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  uint64_t u64() {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= uint64_t(u8()) << (8 * k);
    return v;
  }
  bool flag() { return u8() & 1; }
  // A size or index: mostly small (-2..13), sometimes an edge of int64 or a raw value.
  int64_t small() {
    uint8_t b = u8();
    if (b < 240) return static_cast<int64_t>(b % 16) - 2;
    switch (b) {
      case 240:
        return INT64_MAX;
      case 241:
        return INT64_MIN;
      case 242:
        return int64_t(1) << 31;
      case 243:
        return int64_t(1) << 32;
      case 244:
        return int64_t(1) << 62;
      case 245:
        return -(int64_t(1) << 62);
      case 246:
        return int64_t(1) << 20;
      case 247:
        return 64;
      case 248:
        return 65;
      case 249:
        return 1000;
      case 250:
        return -1000;
      case 251:
        return INT32_MAX;
      case 252:
        return INT32_MIN;
      default:
        return static_cast<int64_t>(u64());
    }
  }
  // A dimension size: mostly 0..7, sometimes large.
  int64_t size() {
    uint8_t b = u8();
    if (b < 224) return b % 8;
    return small();
  }
  double real() {
    uint8_t b = u8();
    if (b < 200) return (static_cast<int>(b) - 100) / 16.0;
    switch (b) {
      case 200:
        return __builtin_nan("");
      case 201:
        return __builtin_inf();
      case 202:
        return -__builtin_inf();
      case 203:
        return 1e300;
      case 204:
        return -1e300;
      case 205:
        return 1e-310;
      case 206:
        return 0.5;
      case 207:
        return 1.0;
      default: {
        uint64_t bits = u64();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
      }
    }
  }
  glia_dtype dtype() {
    uint8_t b = u8();
    if (b < 248) return static_cast<glia_dtype>(b % 8);
    if (b < 252) return GLIA_FLOAT32;
    return static_cast<glia_dtype>(b == 252 ? 8 : b == 253 ? -1 : b == 254 ? 1000 : INT32_MIN);
  }
  // A floating dtype mostly (the differentiable paths), sometimes any.
  glia_dtype float_dtype() {
    uint8_t b = u8();
    if (b < 192) return b & 1 ? GLIA_FLOAT64 : GLIA_FLOAT32;
    if (b < 224) return b & 1 ? GLIA_FLOAT16 : GLIA_BFLOAT16;
    return static_cast<glia_dtype>(b % 9);
  }
};

inline bool known_code(int c) { return c >= GLIA_ERR_INVALID_ARGUMENT && c <= GLIA_ERR_INTERNAL; }

// GLIA_FUZZ_TRACE=1 prints every call and its answer (to replay a finding by hand).
inline bool trace() {
  static const bool on = std::getenv("GLIA_FUZZ_TRACE") != nullptr;
  return on;
}

// Under GLIA_FUZZ_TRACE: the dtype, shape and strides of a live tensor argument.
inline void trace_shape(const glia_tensor* t) {
  int64_t nd = 0;
  glia_dtype dt{};
  glia_error* e = glia_tensor_ndim(t, &nd);
  if (!e) e = glia_tensor_dtype(t, &dt);
  if (e || nd < 0 || nd > 16) {
    glia_error_free(e);
    return;
  }
  int64_t shape[16], strides[16];
  e = glia_tensor_shape(t, nd, shape);
  if (!e) e = glia_tensor_strides(t, nd, strides);
  if (e) {
    glia_error_free(e);
    return;
  }
  std::fprintf(stderr, "     %s [", glia_dtype_name(dt));
  for (int64_t i = 0; i < nd; ++i) std::fprintf(stderr, "%s%lld", i ? ", " : "", static_cast<long long>(shape[i]));
  std::fprintf(stderr, "] strides [");
  for (int64_t i = 0; i < nd; ++i) std::fprintf(stderr, "%s%lld", i ? ", " : "", static_cast<long long>(strides[i]));
  std::fprintf(stderr, "]\n");
}

// Checks and frees the answer of `fn`; returns its code (0 for success).
inline int check(glia_error* e, const char* fn) {
  if (trace()) std::fprintf(stderr, "%s: %s\n", fn, e ? glia_error_message(e) : "ok");
  if (!e) return 0;
  int c = glia_error_code(e);
  const char* msg = glia_error_message(e);
  if (!known_code(c)) capi_finding("unknown error code", fn, msg ? msg : "");
  if (!msg || !*msg) capi_finding("empty error message", fn);
  if (c == GLIA_ERR_INTERNAL) capi_finding("GLIA_ERR_INTERNAL (an unexpected exception)", fn, msg);
  glia_error_free(e);
  return c;
}

// A call that writes one handle: NULL after an error, set after success.
template <class H>
int check_out(glia_error* e, const char* fn, H* out) {
  int c = check(e, fn);
  if (c != 0 && out != nullptr) capi_finding("a failed call wrote its out-argument", fn);
  if (c == 0 && out == nullptr) capi_finding("a successful call left its out-argument NULL", fn);
  return c;
}

// Releases handles; a release of a live handle must succeed.
inline void must_release(glia_error* e, const char* fn) {
  if (e) {
    std::fprintf(stderr, "%s: %s\n", fn, glia_error_message(e));
    capi_finding("releasing a live handle failed", fn);
  }
}

// End of input: nothing of glia may outlive the handles.
inline void check_nothing_live(const char* where) {
  uint64_t live = glia::capi::live_handles();
  if (live != 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llu live handles", static_cast<unsigned long long>(live));
    capi_finding("handles outlive the program", where, buf);
  }
  glia_memory_stats st;
  st.struct_size = sizeof st;
  if (glia_error* e = glia_memory_stats_get(&st)) capi_finding("glia_memory_stats_get failed", glia_error_message(e));
  if (st.bytes_in_use != 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llu bytes in use", static_cast<unsigned long long>(st.bytes_in_use));
    capi_finding("tensor memory outlives every handle", where, buf);
  }
  glia_empty_cache();
}

}  // namespace glia::fuzz
