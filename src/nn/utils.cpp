#include "nn/utils.h"

#include <cmath>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/error.h"
#include "nn/repr.h"
#include "ops/elementwise.h"
#include "ops/iter.h"
#include "ops/reduce.h"

namespace glia::nn::utils {

namespace {

std::vector<Tensor> grads_of(const std::vector<Tensor>& params) {
  std::vector<Tensor> gs;
  for (const Tensor& p : params) {
    GLIA_CHECK(p.defined(), InvalidArgument, "clip_grad: a parameter is undefined");
    AutogradMeta* m = autograd_meta_if(p);
    if (m && m->grad.defined()) gs.push_back(m->grad);
  }
  return gs;
}

}  // namespace

// torch's clip_grad_norm_ (torch.nn.utils.clip_grad), made of ops so that it runs where the grads
// are: the norm of each grad (in its dtype, on its device), stacked on the first grad's device, the
// total the norm of that; the coefficient min(max_norm / (total + 1e-6), 1) a 0-dim tensor there too,
// multiplied into each grad in place. Only error_if_nonfinite reads the total on the host.
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type, bool error_if_nonfinite) {
  std::vector<Tensor> gs = grads_of(params);
  if (gs.empty()) return zeros({}, DType::Float32, Device{});  // torch.tensor(0.0), on the CPU
  GradModeGuard no_grad(false);
  const Device dev = gs[0].device();
  DType dt = gs[0].dtype();
  for (const Tensor& g : gs) dt = ops::promote_types(dt, g.dtype());
  const int64_t n = static_cast<int64_t>(gs.size());
  // torch.stack([norm.to(first_device) for norm in norms]), each norm written into its slot.
  Tensor norms = empty(IntSpan(&n, 1), dt, dev);
  for (int64_t i = 0; i < n; ++i) {
    const Tensor& g = gs[static_cast<size_t>(i)];
    // An empty grad adds nothing (norms of order +-inf refuse empty tensors).
    Tensor gn = g.numel() == 0 ? zeros({}, g.dtype(), g.device()) : ops::vector_norm(g, norm_type, {}, false);
    copy_into(make_view(norms, {}, {}, i), gn);
  }
  Tensor total = ops::vector_norm(norms, norm_type, {}, false);
  if (error_if_nonfinite && !std::isfinite(item_double(total)))  // an explicit device-to-host copy
    fail(Code::InvalidArgument, "The total norm of order ", py_float(norm_type),
         " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale "
         "the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  // clip_coef = max_norm / (total_norm + 1e-6); torch.clamp(clip_coef, max=1.0) keeps a NaN.
  Tensor coef =
      ops::div(ops::wrapped_scalar(max_norm, false), ops::add(total, ops::wrapped_scalar(1e-6, false), 1.0), nullptr);
  Tensor clamped = ops::clamp(coef, Tensor(), ops::wrapped_scalar(1.0, false));
  for (const Tensor& g : gs) {
    ops::mul_(g, to_device(clamped, g.device()));
    bump_version(g);
  }
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  GradModeGuard no_grad(false);
  // torch: grad.clamp_(min=-clip_value, max=clip_value) (NaN elements stay NaN).
  for (const Tensor& g : grads_of(params)) {
    ops::clamp_(g, ops::wrapped_scalar(-clip_value, false), ops::wrapped_scalar(clip_value, false));
    bump_version(g);
  }
}

}  // namespace glia::nn::utils
