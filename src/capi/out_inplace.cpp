// C entry points of out= writes and generic in-place writes (issue 20): autograd/fn/out_inplace.h.
#include "autograd/fn/out_inplace.h"

#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

namespace {
const char* op_arg(const char* op, const char* fn) {
  GLIA_CHECK(op != nullptr && *op, InvalidArgument, fn, ": argument 'op' is NULL or empty");
  return op;
}
}  // namespace

extern "C" {

glia_error* glia_tensor_write_out(glia_tensor* out, const glia_tensor* result, const glia_tensor* const* inputs,
                                  int64_t n_inputs, const char* op, int32_t* out_resized) {
  return guard([&] {
    const char* fn = "glia_tensor_write_out";
    Tensor o = tensor_arg(out, fn, "out");
    Tensor r = tensor_arg(result, fn, "result");
    GLIA_CHECK(n_inputs >= 0 && (n_inputs == 0 || inputs != nullptr), InvalidArgument, fn,
               ": argument 'inputs' is NULL with n_inputs = ", n_inputs);
    TensorList ins = n_inputs ? tensors_arg(inputs, n_inputs, fn, "inputs") : TensorList();
    bool resized = write_out(o, r, ins, op_arg(op, fn));
    if (out_resized) *out_resized = resized ? 1 : 0;
  });
}

glia_error* glia_tensor_assign_(glia_tensor* self, const glia_tensor* result, const char* op) {
  return guard([&] {
    const char* fn = "glia_tensor_assign_";
    Tensor s = tensor_arg(self, fn, "self");
    Tensor r = tensor_arg(result, fn, "result");
    assign_(s, r, op_arg(op, fn));
  });
}

glia_error* glia_tensor_set_geometry_(glia_tensor* self, const glia_tensor* view, const char* op) {
  return guard([&] {
    const char* fn = "glia_tensor_set_geometry_";
    Tensor s = tensor_arg(self, fn, "self");
    Tensor v = tensor_arg(view, fn, "view");
    set_geometry_(s, v, op_arg(op, fn));
  });
}

glia_error* glia_tensor_version(const glia_tensor* a, int64_t* out) {
  return guard([&] {
    Tensor t = tensor_arg(a, "glia_tensor_version", "a");
    check_out(out, "glia_tensor_version", "out");
    *out = static_cast<int64_t>(t.impl()->storage()->version.load(std::memory_order_relaxed));
  });
}

}  // extern "C"
