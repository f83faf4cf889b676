// Shared by the checkpoint fuzzers: what a harness does with a reader's result.
//
// A reader may reject any input with glia::Error (the harness catches that and only
// that); whatever it returns must be sound: every tensor a CPU view whose elements lie
// inside its storage. A violated property aborts, and libFuzzer keeps the input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/allocator.h"
#include "core/error.h"
#include "core/tensor.h"
#include "io/checkpoint.h"
#include "nn/tensor_dict.h"

namespace glia::fuzz {

[[noreturn]] inline void finding(const char* what, const std::string& key) {
  std::fprintf(stderr, "FUZZ FINDING: %s (tensor \"%s\")\n", what, key.c_str());
  std::abort();
}

// Checks one tensor of a loaded dict and reads the first and last byte it can reach
// (ASan sees a storage smaller than it claims).
inline void check_tensor(const std::string& key, const Tensor& t) {
  if (!t.defined()) finding("undefined tensor", key);
  if (!t.device().is_cpu()) finding("tensor not on the CPU", key);
  if (t.dim() > io::kMaxDims) finding("more dimensions than kMaxDims", key);
  if (t.strides().size() != t.shape().size()) finding("strides and shape differ in length", key);
  if (t.offset() < 0) finding("negative storage offset", key);
  __int128 numel = 1, lo = t.offset(), hi = t.offset();
  for (int64_t d = 0; d < t.dim(); ++d) {
    int64_t n = t.shape()[d], s = t.strides()[d];
    if (n < 0) finding("negative size", key);
    numel *= n;
    if (numel > (__int128(1) << 62)) numel = __int128(1) << 62;  // only compared with 0 and numel() below
    if (n == 0) continue;
    __int128 span = __int128(n - 1) * s;
    (span < 0 ? lo : hi) += span;
  }
  if (numel != t.numel() && numel < (__int128(1) << 62)) finding("numel() does not match the shape", key);
  if (numel == 0) return;
  size_t item = itemsize(t.dtype());
  if (lo < 0) finding("view reaches before its storage", key);
  if ((hi + 1) * __int128(item) > __int128(t.ref()->storage()->nbytes())) finding("view reaches past its storage", key);
  const volatile uint8_t* base = static_cast<const uint8_t*>(t.ref()->storage()->data());
  (void)base[static_cast<size_t>(lo) * item];
  (void)base[static_cast<size_t>(hi + 1) * item - 1];
}

inline void check_dict(const nn::TensorDict& dict) {
  for (size_t i = 0; i < dict.size(); ++i) check_tensor(dict.key_at(i), dict.value_at(i));
}

// Runs `body`; glia::Error is the expected answer to a bad input, anything else
// escapes to libFuzzer (an uncaught exception is a finding). The allocator's cache
// is emptied after each input so that blocks do not outlive the input that made them.
template <class F>
int run_one(F&& body) {
  try {
    body();
  } catch (const glia::Error&) {
  }
  glia::empty_cache();
  return 0;
}

}  // namespace glia::fuzz
