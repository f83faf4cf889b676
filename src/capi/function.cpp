// Custom autograd functions from the host (torch.autograd.Function): forward
// and backward are C callbacks; glia records a node whose apply() calls back.
#include <cstring>
#include <memory>
#include <string>

#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "capi/api.h"
#include "ops/iter.h"

using namespace glia;
using namespace glia::capi;

namespace {

// Owns the host's user_data: free_user_data runs once, when the last owner (the
// apply call, then the graph node) lets go.
struct HostFunction {
  std::string name;  // grad_fn name
  glia_autograd_forward_fn forward = nullptr;
  glia_autograd_backward_fn backward = nullptr;
  void* user_data = nullptr;
  void (*free_user_data)(void*) = nullptr;
  ~HostFunction() {
    if (free_user_data) free_user_data(user_data);
  }
};

enum class Phase { Forward, Backward, Other };

}  // namespace

struct glia_autograd_ctx {
  Phase phase = Phase::Other;
  TensorList to_save;              // during forward
  std::vector<SavedTensor> saved;  // after forward
  std::vector<bool> needs_input_grad;
  Node* node = nullptr;  // owner of saved outputs
};

namespace {

struct HostFunctionNode : Node {
  std::shared_ptr<HostFunction> fn;
  std::unique_ptr<glia_autograd_ctx> ctx;
  std::vector<Dims> in_shapes;
  std::vector<DType> in_dtypes;
  std::vector<Device> in_devices;

  const char* name() const override { return fn->name.c_str(); }

  TensorList apply(TensorList&& grads) override {
    ctx->phase = Phase::Backward;
    struct Reset {
      glia_autograd_ctx* c;
      ~Reset() { c->phase = Phase::Other; }
    } reset{ctx.get()};
    HandleList gh(grads);
    std::vector<glia_tensor*> gi(in_shapes.size(), nullptr);
    glia_error* e = fn->backward(fn->user_data, ctx.get(), gh.hs.data(), static_cast<int64_t>(gh.hs.size()), gi.data(),
                                 static_cast<int64_t>(gi.size()));
    if (e) {
      release_handles(gi.data(), gi.size());
      rethrow_callback(e, fn->name, "backward");
    }
    TensorList r = adopt_handles(gi.data(), gi.size(), gi.size(), fn->name.c_str(), "grad_inputs");
    for (size_t i = 0; i < r.size(); ++i) {
      if (!r[i].defined()) continue;
      if (!next_edges[i].valid()) {
        r[i] = Tensor();
        continue;
      }
      const Dims& want = in_shapes[i];
      if (r[i].shape() != want) {
        bool expandable = false;
        try {
          expandable = ops::broadcast_shapes(fn->name.c_str(), want, r[i].shape()) == r[i].shape();
        } catch (const Error&) {
        }
        GLIA_CHECK(expandable, Shape, "Function ", fn->name, " returned an invalid gradient at index ", i, " - got ",
                   r[i].shape(), " but expected shape compatible with ", want);
        r[i] = sum_to(r[i], want);
      }
      // torch's validate_outputs: a 0-dim gradient moves to the input's device, any other must be there.
      if (r[i].device() != in_devices[i]) {
        GLIA_CHECK(r[i].dim() == 0, Device, "Function ", fn->name, " returned an invalid gradient at index ", i,
                   " - expected device ", in_devices[i], " but got ", r[i].device());
        r[i] = to_with_grad(r[i], in_devices[i], r[i].dtype());
      }
      if (r[i].dtype() != in_dtypes[i]) r[i] = to_dtype(r[i], in_dtypes[i]);
    }
    return r;
  }
  void release_variables() override {
    for (SavedTensor& s : ctx->saved) s.release();
  }
};

}  // namespace

extern "C" {

void glia_autograd_function_def_init(glia_autograd_function_def* def) {
  if (!def) return;
  std::memset(def, 0, sizeof(*def));
  def->struct_size = sizeof(*def);
}

glia_error* glia_autograd_function_apply(const glia_autograd_function_def* def, const glia_tensor* const* inputs,
                                         int64_t n_inputs, glia_tensor** outputs, int64_t n_outputs) {
  // Owns user_data from the first line: freed exactly once whatever happens.
  std::shared_ptr<HostFunction> fn;
  if (def && def->struct_size >= offsetof(glia_autograd_function_def, free_user_data) + sizeof(def->free_user_data)) {
    try {
      fn = std::make_shared<HostFunction>();
    } catch (...) {
      if (def->free_user_data) def->free_user_data(def->user_data);
      return out_of_memory_error();
    }
    fn->user_data = def->user_data;
    fn->free_user_data = def->free_user_data;
  }
  return guard([&] {
    const char* api = "glia_autograd_function_apply";
    GLIA_CHECK(def, InvalidArgument, api, ": argument 'def' is NULL");
    GLIA_CHECK(fn, InvalidArgument, api, ": def->struct_size is ", def->struct_size, ", expected at least ",
               sizeof(glia_autograd_function_def), " (call glia_autograd_function_def_init)");
    GLIA_CHECK(def->forward && def->backward, InvalidArgument, api, ": def->", def->forward ? "backward" : "forward",
               " is NULL");
    GLIA_CHECK(n_outputs >= 1 && n_outputs <= 1024, InvalidArgument, api,
               ": argument 'n_outputs' must be in [1, 1024], got ", n_outputs);
    check_out(outputs, api, "outputs");
    std::string base = def->name && *def->name ? def->name : "CustomFunction";
    fn->name = base + "Backward";
    fn->forward = def->forward;
    fn->backward = def->backward;
    TensorList ins = tensors_arg(inputs, n_inputs, api, "inputs");

    auto ctx = std::make_unique<glia_autograd_ctx>();
    bool record = false;
    for (const Tensor& t : ins) {
      bool need = grad_mode_enabled() && t.requires_grad();
      ctx->needs_input_grad.push_back(need);
      record |= need;
    }

    // Forward, with grad mode off.
    TensorList outs;
    {
      GradModeGuard no_grad(false);
      HandleList ih(ins);
      std::vector<glia_tensor*> oh(static_cast<size_t>(n_outputs), nullptr);
      ctx->phase = Phase::Forward;
      glia_error* e = fn->forward(fn->user_data, ctx.get(), ih.hs.data(), n_inputs, oh.data(), n_outputs);
      ctx->phase = Phase::Other;
      if (e) {
        release_handles(oh.data(), oh.size());
        rethrow_callback(e, base, "forward");
      }
      outs = adopt_handles(oh.data(), oh.size(), oh.size(), base.c_str(), "outputs");
    }
    for (int64_t k = 0; k < n_outputs; ++k) {
      GLIA_CHECK(outs[k].defined(), InvalidArgument, base, ": forward left outputs[", k, "] NULL");
      // An input returned as is becomes an alias, so that its own history stays intact.
      for (const Tensor& t : ins)
        if (outs[k].impl() == t.impl()) outs[k] = detach(outs[k]);
    }

    if (record) {
      auto node = make_ref<HostFunctionNode>();
      node->fn = fn;
      for (const Tensor& t : ins) {
        node->in_shapes.push_back(t.shape());
        node->in_dtypes.push_back(t.dtype());
        node->in_devices.push_back(t.device());
      }
      // Saved outputs are kept without their history (Note [Saving outputs]).
      for (const Tensor& s : ctx->to_save) {
        int64_t out_nr = -1;
        for (int64_t k = 0; k < n_outputs; ++k)
          if (s.defined() && outs[k].impl() == s.impl()) out_nr = k;
        ctx->saved.push_back(out_nr >= 0 ? SavedTensor::output(s, static_cast<uint32_t>(out_nr)) : SavedTensor(s));
      }
      ctx->to_save.clear();
      ctx->node = node.get();
      node->ctx = std::move(ctx);
      set_history(node.get(), ins, outs);
      for (Tensor& o : outs)
        if (!is_floating(o.dtype())) {
          // Integer outputs are not differentiable.
          o.impl()->requires_grad = false;
          autograd_meta(o).grad_fn = Ref<Node>();
        }
    }
    HandleList oh(outs);
    for (int64_t k = 0; k < n_outputs; ++k) outputs[k] = oh.take(static_cast<size_t>(k));
  });
}

glia_error* glia_autograd_ctx_save_for_backward(glia_autograd_ctx* ctx, const glia_tensor* const* tensors,
                                                int64_t n_tensors) {
  return guard([&] {
    const char* api = "glia_autograd_ctx_save_for_backward";
    GLIA_CHECK(ctx, InvalidArgument, api, ": argument 'ctx' is NULL");
    GLIA_CHECK(ctx->phase == Phase::Forward, State, api, ": only allowed during the forward callback");
    GLIA_CHECK(n_tensors >= 0 && (tensors || n_tensors == 0), InvalidArgument, api,
               ": argument 'tensors' is NULL or n_tensors (", n_tensors, ") is negative");
    TensorList ts;
    for (int64_t i = 0; i < n_tensors; ++i) ts.push_back(tensor_opt(tensors[i], api, "tensors"));
    ctx->to_save = std::move(ts);
  });
}

glia_error* glia_autograd_ctx_saved_tensors(glia_autograd_ctx* ctx, glia_tensor** outs, int64_t capacity,
                                            int64_t* n_outs) {
  return guard([&] {
    const char* api = "glia_autograd_ctx_saved_tensors";
    GLIA_CHECK(ctx, InvalidArgument, api, ": argument 'ctx' is NULL");
    GLIA_CHECK(ctx->phase == Phase::Backward, State, api, ": only allowed during the backward callback");
    check_outputs(outs, capacity, n_outs, api);
    TensorList ts;
    // As torch's ctx.saved_tensors: with their history (requires_grad, grad_fn) even without create_graph.
    for (const SavedTensor& s : ctx->saved) ts.push_back(s.unpack(ctx->node->name(), ctx->node, true));
    write_outputs(ts, outs, capacity, n_outs, api);
  });
}

glia_error* glia_autograd_ctx_needs_input_grad(const glia_autograd_ctx* ctx, int64_t index, int32_t* out) {
  return guard([&] {
    const char* api = "glia_autograd_ctx_needs_input_grad";
    GLIA_CHECK(ctx, InvalidArgument, api, ": argument 'ctx' is NULL");
    int64_t n = static_cast<int64_t>(ctx->needs_input_grad.size());
    GLIA_CHECK(index >= 0 && index < n, InvalidArgument, api, ": index ", index, " is out of range for ", n, " inputs");
    check_out(out, api, "out");
    *out = ctx->needs_input_grad[static_cast<size_t>(index)] ? 1 : 0;
  });
}

}  // extern "C"
