// Calling back into the host: tensor handles passed to a callback, the new
// references it writes, and its errors (custom autograd functions, host
// modules, hooks).
#include <exception>

#include "capi/api.h"

using namespace glia;

namespace glia::capi {

void rethrow_callback(glia_error* e, const std::string& who, const char* what) {
  // Freed however this ends (building the message may itself run out of memory).
  struct Free {
    glia_error* e;
    ~Free() { glia_error_free(e); }
  } owned{e};
  throw Error(Code::Callback, who + ": " + what + " callback failed: " + glia_error_message(e));
}

void release_handles(glia_tensor** hs, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (hs[i]) glia_error_free(glia_tensor_release(hs[i]));
    hs[i] = nullptr;
  }
}

TensorList adopt_handles(glia_tensor** hs, size_t n, size_t keep, const char* fn, const char* what) {
  TensorList out;
  std::exception_ptr failure;
  try {
    out.resize(keep);
  } catch (...) {
    failure = std::current_exception();  // every handle is still released below
  }
  for (size_t i = 0; i < n; ++i) {
    if (!hs[i]) continue;
    try {
      if (!failure && i < keep) out[i] = tensor_arg(hs[i], fn, what);
    } catch (...) {
      failure = std::current_exception();
    }
    glia_error_free(glia_tensor_release(hs[i]));
    hs[i] = nullptr;
  }
  if (failure) std::rethrow_exception(failure);
  return out;
}

HandleList::HandleList(const TensorList& ts) {
  hs.reserve(ts.size());
  try {
    for (const Tensor& t : ts) hs.push_back(t.defined() ? tensor_handle(t) : nullptr);
  } catch (...) {
    release_handles(hs.data(), hs.size());
    throw;
  }
}

}  // namespace glia::capi
