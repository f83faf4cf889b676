// The prepare pass's helpers shared by the optimizers (optim/algorithms.cpp,
// optim/algorithms_extra.cpp): Note [All-or-nothing step] in optim/optimizer.h.
#pragma once

#include <algorithm>
#include <array>
#include <initializer_list>

#include "autograd/node.h"
#include "core/dispatch.h"
#include "core/error.h"
#include "optim/optimizer.h"

namespace glia::optim::detail {

// Appends the update of `p` (Note [All-or-nothing step]) by kernel `id` with
// `attrs` to `commit`: checks devices (torch's message, `op` naming the
// kernel) and makes the slow path's float64 working copies. `states` are the
// states the kernel updates, in its order (null pointers left out).
template <size_t A>
Update& prepare_update(Optimizer::Commit& commit, KernelId id, const char* op, const Tensor& p, const Tensor& g,
                       std::initializer_list<Tensor*> states, const std::array<Attr, A>& attrs) {
  static_assert(A <= 9);
  common_device(op, p, g, false);
  for (Tensor* st : states)
    if (st) common_device(op, p, *st, false);
  const bool floating = p.dtype() == DType::Float32 || p.dtype() == DType::Float64;
  GLIA_CHECK(floating || is_floating(p.dtype()), DType, "optimizer step: expected a floating point parameter, got ",
             dtype_name(p.dtype()));
  Update& u = commit.emplace_back();
  u.kernel = id;
  u.p = p;
  u.g = g;
  u.fast = floating && p.is_contiguous() && g.is_contiguous() && g.dtype() == p.dtype();
  for (Tensor* st : states)
    if (st) {
      u.fast = u.fast && st->is_contiguous() && st->dtype() == p.dtype();
      u.states[static_cast<size_t>(u.n_states++)] = *st;
    }
  std::copy(attrs.begin(), attrs.end(), u.attrs.begin());
  u.n_attrs = static_cast<int32_t>(A);
  if (u.fast) return u;
  u.pd = contiguous(clone(to_dtype(p, DType::Float64)));
  u.gd = contiguous(to_dtype(g, DType::Float64));
  for (int32_t i = 0; i < u.n_states; ++i) u.sd[i] = contiguous(clone(to_dtype(u.states[i], DType::Float64)));
  return u;
}

inline Tensor grad_of(const Tensor& p) {
  AutogradMeta* m = autograd_meta_if(p);
  return m ? m->grad : Tensor();
}

inline Tensor zeros_like(const Tensor& p) { return zeros(p.shape(), p.dtype(), p.device()); }

// state["step"] (a float32 0-dim tensor, as torch >= 1.12 stores it), created at 0 when absent.
inline Tensor step_tensor(ParamState& st) {
  Tensor& step = st.get_or_add("step");
  if (!step.defined()) step = zeros({}, DType::Float32, Device{});
  return step;
}
// The step count after this step (prepare pass; the commit pass stores it with fill). torch keeps
// "step" on the CPU (neither capturable nor fused); a loaded one elsewhere is read through a copy.
inline double next_step(const Tensor& step) { return item_double(step) + 1; }

// A state entry the update needs; a loaded state may lack it (torch: KeyError).
inline Tensor* state_entry(ParamState& st, const char* name) {
  Tensor* t = st.find(name);
  GLIA_CHECK(t && t->defined(), NotFound, "'", name, "'");
  return t;
}

inline void check_nonneg(double v, const char* what) {
  GLIA_CHECK(0.0 <= v, InvalidArgument, "Invalid ", what, ": ", py_float(v));
}

// A new optimizer with `params` as its first group (the make_* factories).
inline OptimizerRef with_group(OptimizerRef opt, std::vector<Tensor> params) {
  opt->add_param_group(std::move(params), {});
  return opt;
}

}  // namespace glia::optim::detail
