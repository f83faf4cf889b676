#include <algorithm>
#include <cstring>
#include <memory>

#include "autograd/engine.h"
#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "capi/api.h"
#include "capi/host_callback.h"

using namespace glia;
using namespace glia::capi;

namespace {

TensorList tensor_list(glia_tensor* const* hs, int64_t n, const char* fn, const char* arg, bool allow_null) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument '", arg, "' count is negative (", n, ")");
  GLIA_CHECK(hs || n == 0, InvalidArgument, fn, ": argument '", arg, "' is NULL with ", n, " entries");
  TensorList out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(allow_null && !hs[i] ? Tensor() : tensor_arg(hs[i], fn, arg));
  return out;
}

// Owns a host hook registration: free_user_data runs once when the last copy dies.
struct HostHook {
  glia_tensor_hook_fn fn;
  void* user_data;
  void (*free_user_data)(void*);
  ~HostHook() {
    if (free_user_data) free_user_data(user_data);
  }
};

}  // namespace

extern "C" {

glia_error* glia_tensor_requires_grad(const glia_tensor* tensor, int32_t* out) {
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, "glia_tensor_requires_grad", "tensor");
    check_out(out, "glia_tensor_requires_grad", "out_requires_grad");
    *out = t->requires_grad ? 1 : 0;
  });
}

glia_error* glia_tensor_set_requires_grad(glia_tensor* tensor, int32_t flag) {
  return guard([&] { set_requires_grad(tensor_arg(tensor, "glia_tensor_set_requires_grad", "tensor"), flag != 0); });
}

glia_error* glia_tensor_is_leaf(const glia_tensor* tensor, int32_t* out) {
  return guard([&] {
    Tensor t = tensor_arg(tensor, "glia_tensor_is_leaf", "tensor");
    check_out(out, "glia_tensor_is_leaf", "out_is_leaf");
    *out = is_leaf(t) ? 1 : 0;
  });
}

glia_error* glia_tensor_grad(const glia_tensor* tensor, glia_tensor** out) {
  return guard([&] {
    Tensor t = tensor_arg(tensor, "glia_tensor_grad", "tensor");
    check_out(out, "glia_tensor_grad", "out_grad");
    AutogradMeta* m = autograd_meta_if(t);
    *out = m && m->grad.defined() ? tensor_handle(m->grad) : nullptr;
  });
}

glia_error* glia_tensor_set_grad(glia_tensor* tensor, glia_tensor* grad) {
  return guard([&] {
    const char* fn = "glia_tensor_set_grad";
    Tensor t = tensor_arg(tensor, fn, "tensor");
    Tensor g = grad ? tensor_arg(grad, fn, "grad") : Tensor();
    if (g.defined()) {
      // torch's check: a tensor that is its own grad would hold itself (a cycle no release frees; found by tests/fuzz).
      GLIA_CHECK(g.impl() != t.impl(), InvalidArgument, fn, ": can't assign Variable as its own grad");
      GLIA_CHECK(g.shape() == t.shape(), Shape, fn, ": assigned grad has data of a different size: ", g.shape(),
                 " vs tensor ", t.shape());
      GLIA_CHECK(g.dtype() == t.dtype(), DType, fn,
                 ": assigned grad has data of a different type: ", dtype_name(g.dtype()), " vs tensor ",
                 dtype_name(t.dtype()));
      GLIA_CHECK(g.device() == t.device(), Device, fn,
                 ": assigned grad has data located on a different device: ", g.device(), " vs tensor ", t.device());
    }
    autograd_meta(t).grad = g;
  });
}

glia_error* glia_tensor_retain_grad(glia_tensor* tensor) {
  return guard([&] { retain_grad(tensor_arg(tensor, "glia_tensor_retain_grad", "tensor")); });
}

glia_error* glia_tensor_grad_fn_name(const glia_tensor* tensor, char* buffer, size_t capacity, size_t* out_length) {
  return guard([&] {
    const char* fn = "glia_tensor_grad_fn_name";
    Tensor t = tensor_arg(tensor, fn, "tensor");
    check_string_out(buffer, capacity, out_length, fn);
    Ref<Node> n = grad_fn(t);
    std::string s = n ? n->name() : "";
    write_string(s, buffer, capacity, out_length);
  });
}

glia_error* glia_tensor_backward(glia_tensor* tensor, const glia_tensor* grad, int32_t retain_graph) {
  return guard([&] {
    Tensor t = tensor_arg(tensor, "glia_tensor_backward", "tensor");
    TensorList grads;
    if (grad) grads.push_back(tensor_arg(grad, "glia_tensor_backward", "grad"));
    backward({t}, grads, retain_graph != 0, false);
  });
}

glia_error* glia_autograd_backward(glia_tensor* const* tensors, int64_t n, glia_tensor* const* grads,
                                   int32_t retain_graph, int32_t create_graph) {
  return guard([&] {
    const char* fn = "glia_autograd_backward";
    TensorList roots = tensor_list(tensors, n, fn, "tensors", false);
    TensorList gs = grads ? tensor_list(grads, n, fn, "grads", true) : TensorList();
    backward(roots, gs, retain_graph != 0, create_graph != 0);
  });
}

glia_error* glia_autograd_grad(glia_tensor* const* outputs, int64_t n_outputs, glia_tensor* const* inputs,
                               int64_t n_inputs, glia_tensor* const* grad_outputs, int32_t retain_graph,
                               int32_t create_graph, int32_t allow_unused, glia_tensor** out_grads) {
  return guard([&] {
    const char* fn = "glia_autograd_grad";
    TensorList outs = tensor_list(outputs, n_outputs, fn, "outputs", false);
    TensorList ins = tensor_list(inputs, n_inputs, fn, "inputs", false);
    TensorList gos = grad_outputs ? tensor_list(grad_outputs, n_outputs, fn, "grad_outputs", true) : TensorList();
    // torch's ValueError (and no gradient to write: out_grads may then be NULL; found by tests/fuzz).
    GLIA_CHECK(n_inputs > 0, InvalidArgument, "grad requires non-empty inputs.");
    GLIA_CHECK(out_grads, InvalidArgument, fn, ": argument 'out_grads' is NULL");
    TensorList r = grad(outs, ins, gos, retain_graph != 0, create_graph != 0, allow_unused != 0);
    std::vector<glia_tensor*> hs;
    hs.reserve(r.size());
    try {
      for (const Tensor& g : r) hs.push_back(g.defined() ? tensor_handle(g) : nullptr);
    } catch (...) {
      for (glia_tensor* h : hs) glia_tensor_release(h);
      throw;
    }
    std::copy(hs.begin(), hs.end(), out_grads);
  });
}

int32_t glia_grad_mode_enabled(void) { return grad_mode_enabled() ? 1 : 0; }

void glia_grad_mode_set(int32_t enabled) { set_grad_mode(enabled != 0); }

void glia_inference_mode_set(int32_t enabled) { set_inference_mode(enabled != 0); }

int32_t glia_inference_mode_enabled(void) { return inference_mode() ? 1 : 0; }

glia_error* glia_tensor_is_inference(const glia_tensor* tensor, int32_t* out) {
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, "glia_tensor_is_inference", "tensor");
    check_out(out, "glia_tensor_is_inference", "out");
    *out = t->is_inference ? 1 : 0;
  });
}

glia_error* glia_tensor_register_hook(glia_tensor* tensor, glia_tensor_hook_fn fn, void* user_data,
                                      void (*free_user_data)(void*), uint64_t* out_hook_id) {
  auto owner = own<HostHook>(fn, user_data, free_user_data);  // frees user_data exactly once, also on failure
  if (!owner) return out_of_memory_error();
  return guard([&] {
    const char* name = "glia_tensor_register_hook";
    Tensor t = tensor_arg(tensor, name, "tensor");
    GLIA_CHECK(fn, InvalidArgument, name, ": argument 'fn' is NULL");
    check_out(out_hook_id, name, "out_hook_id");
    GradHook hook = [owner](const Tensor& g) -> Tensor {
      glia_tensor* gh = tensor_handle(g);
      glia_tensor* replacement = nullptr;
      glia_error* e = owner->fn(owner->user_data, gh, &replacement);
      glia_tensor_release(gh);
      if (e) {
        glia_tensor_release(replacement);
        callback_result(e, "tensor hook");
      }
      if (!replacement) return Tensor();
      Tensor r = tensor_arg(replacement, "glia_tensor_hook_fn", "out_replacement");
      glia_tensor_release(replacement);
      GLIA_CHECK(r.shape() == g.shape(), Shape, "hook returned a gradient of shape ", r.shape(), ", expected ",
                 g.shape());
      return r;
    };
    *out_hook_id = add_tensor_hook(t, std::move(hook));
  });
}

glia_error* glia_tensor_remove_hook(glia_tensor* tensor, uint64_t hook_id) {
  return guard([&] {
    Tensor t = tensor_arg(tensor, "glia_tensor_remove_hook", "tensor");
    GLIA_CHECK(remove_tensor_hook(t, hook_id), NotFound, "glia_tensor_remove_hook: no hook with id ", hook_id,
               " on this tensor");
  });
}

glia_error* glia_tensor_register_post_accumulate_grad_hook(glia_tensor* tensor, glia_post_accumulate_grad_hook_fn fn,
                                                           void* user_data, void (*free_user_data)(void*),
                                                           uint64_t* out_hook_id) {
  auto owner = own<HostCallback<glia_post_accumulate_grad_hook_fn>>(fn, user_data, free_user_data);
  if (!owner) return out_of_memory_error();
  return guard([&] {
    const char* name = "glia_tensor_register_post_accumulate_grad_hook";
    Tensor t = tensor_arg(tensor, name, "tensor");
    GLIA_CHECK(fn, InvalidArgument, name, ": argument 'fn' is NULL");
    check_out(out_hook_id, name, "out_hook_id");
    *out_hook_id = add_post_accumulate_grad_hook(t, [owner](const Tensor& leaf) {
      glia_tensor* h = tensor_handle(leaf);
      glia_error* e = owner->fn(owner->user_data, h);
      glia_tensor_release(h);
      callback_result(e, "post accumulate grad hook");
    });
  });
}

glia_error* glia_autograd_queue_callback(glia_backward_callback_fn fn, void* user_data, void (*free_user_data)(void*)) {
  auto owner = own<HostCallback<glia_backward_callback_fn>>(fn, user_data, free_user_data);
  if (!owner) return out_of_memory_error();
  return guard([&] {
    GLIA_CHECK(fn, InvalidArgument, "glia_autograd_queue_callback: argument 'fn' is NULL");
    queue_backward_callback([owner] { callback_result(owner->fn(owner->user_data), "backward callback"); });
  });
}

}  // extern "C"
