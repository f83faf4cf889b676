// Argument checking shared by the operator entry points.
#include "capi/api.h"

namespace glia::capi {

Scalar scalar_arg(const glia_scalar& s, const char* fn, const char* arg) {
  switch (static_cast<int>(s.type)) {
    case GLIA_SCALAR_FLOAT:
      return Scalar::from_double(s.f);
    case GLIA_SCALAR_INT:
      return Scalar::from_int(s.i);
    case GLIA_SCALAR_BOOL:
      GLIA_CHECK(s.i == 0 || s.i == 1, InvalidArgument, fn, ": argument '", arg,
                 "' is a bool scalar whose value is neither 0 nor 1 (got ", s.i, ")");
      return Scalar::from_bool(s.i != 0);
  }
  GLIA_CHECK(false, InvalidArgument, fn, ": argument '", arg, "' has an unknown scalar type ", static_cast<int>(s.type),
             " (expected GLIA_SCALAR_FLOAT, _INT or _BOOL)");
  return {};
}

IntSpan dims_arg(const int64_t* dims, int64_t n, const char* fn, const char* arg, const char* n_arg) {
  GLIA_CHECK(n >= 0 && n <= 64, InvalidArgument, fn, ": argument '", n_arg, "' must be in [0, 64], got ", n);
  GLIA_CHECK(dims || n == 0, InvalidArgument, fn, ": argument '", arg, "' is NULL with ", n_arg, " ", n);
  return IntSpan(dims, static_cast<size_t>(n));
}

std::vector<Tensor> tensors_arg(const glia_tensor* const* ts, int64_t n, const char* fn, const char* arg) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": the number of tensors in '", arg, "' must be >= 0, got ", n);
  GLIA_CHECK(ts || n == 0, InvalidArgument, fn, ": argument '", arg, "' is NULL with ", n, " tensors");
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    std::string name = std::string(arg) + "[" + std::to_string(i) + "]";
    out.push_back(tensor_arg(ts[i], fn, name.c_str()));
  }
  return out;
}

void check_outputs(glia_tensor** outs, int64_t capacity, int64_t* n_outs, const char* fn) {
  check_out(n_outs, fn, "n_outs");
  GLIA_CHECK(capacity >= 0, InvalidArgument, fn, ": argument 'capacity' must be >= 0, got ", capacity);
  GLIA_CHECK(outs || capacity == 0, InvalidArgument, fn, ": argument 'outs' is NULL with capacity ", capacity);
}

void write_outputs(const std::vector<Tensor>& ts, glia_tensor** outs, int64_t capacity, int64_t* n_outs,
                   const char* fn) {
  int64_t n = static_cast<int64_t>(ts.size());
  if (!outs) {
    *n_outs = n;
    return;
  }
  GLIA_CHECK(capacity >= n, InvalidArgument, fn, ": 'outs' has room for ", capacity, " tensors but the result has ", n);
  // Handles are made first, then published: a failure leaves no handle behind.
  std::vector<glia_tensor*> hs;
  hs.reserve(ts.size());
  try {
    for (const Tensor& t : ts) hs.push_back(t.defined() ? tensor_handle(t) : nullptr);
  } catch (...) {
    for (glia_tensor* h : hs)
      if (h) handle_release(h, HandleType::Tensor, fn);
    throw;
  }
  for (int64_t i = 0; i < n; ++i) outs[i] = hs[static_cast<size_t>(i)];
  *n_outs = n;
}

}  // namespace glia::capi
