// The optimizers' fused update kernels (sgd_step, adam_step, rmsprop_step):
// torch's single-tensor ("foreach=False") update of one parameter in one pass
// over its elements (Note [Optimizer semantics follow torch] in
// optim/optimizer.h). The meta part is the optimizer's prepare pass
// (optim/algorithms.cpp): it creates the state on the parameter's device and
// hands these kernels a parameter, its grad and its states contiguous and of
// one dtype, float32 or float64 (other dtypes and layouts run on float64
// working copies it writes back). The parameter and the states are outputs
// that the kernel reads and writes in place; the grad is the input. The
// per-element updates are cuda/optim_ops.h's, shared with the CUDA kernels
// (cuda/optim.cu).
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/dispatch.h"
#include "core/error.h"
#include "core/parallel.h"
#include "cuda/optim_ops.h"
#include "ops/cpu/optim_loops.h"

namespace glia::cpu {

namespace {

using namespace optim_loops;
using namespace cuda::optim_ops;

}  // namespace

// attrs: lr, momentum, dampening, weight_decay (.f), nesterov, maximize, first (.i).
void sgd_step_kernel(const KernelArgs& k) {
  const SgdArgs a = sgd_args(k.attrs);
  GLIA_CHECK(k.n_out == a.outputs(), Internal, "sgd_step: ", k.n_out, " outputs do not match its options");
  with_flags(
      [&](auto kMax, auto kWd, auto kMom, auto kNest, auto kFirst) {
        step_loop<1>(k, "sgd_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 1> s, int64_t b, int64_t e) {
          const SgdConsts<T> c = sgd_consts<T>(a);
          T* __restrict bp = s[0];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          T none{};  // the momentum buffer the options leave out (never touched)
          for (int64_t i = b; i < e; ++i)
            sgd_update(c, kMax, kWd, kMom, kNest, kFirst, gr[i], pr[i], decltype(kMom)::value ? bp[i] : none);
        });
      },
      a.maximize, a.weight_decay != 0, a.momentum != 0, a.nesterov, a.first);
}

// attrs: lr, beta1, beta2, eps, weight_decay, step (.f; the step count after this step), amsgrad, maximize,
// decoupled (.i; AdamW's decoupled weight decay).
void adam_step_kernel(const KernelArgs& k) {
  const AdamArgs a = adam_args(k.attrs);
  GLIA_CHECK(k.n_out == a.outputs(), Internal, "adam_step: ", k.n_out, " outputs do not match its options");
  with_flags(
      [&](auto kMax, auto kDecoupled, auto kWd, auto kAms) {
        step_loop<3>(k, "adam_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 3> s, int64_t b, int64_t e) {
          const AdamConsts<T> c = adam_consts<T>(a);
          T* __restrict m = s[0], * __restrict v = s[1], * __restrict vmax = s[2];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          T none{};  // max_exp_avg_sq without amsgrad (never touched)
          for (int64_t i = b; i < e; ++i)
            adam_update(c, kMax, kDecoupled, kWd, kAms, gr[i], pr[i], m[i], v[i],
                        decltype(kAms)::value ? vmax[i] : none);
        });
      },
      a.maximize, a.decoupled, a.weight_decay != 0, a.amsgrad);
}

// attrs: lr, alpha, eps, weight_decay, momentum (.f), centered, maximize (.i). Outputs: param, square_avg,
// then momentum_buffer when momentum > 0, then grad_avg when centered.
void rmsprop_step_kernel(const KernelArgs& k) {
  const RmspropArgs a = rmsprop_args(k.attrs);
  GLIA_CHECK(k.n_out == a.outputs(), Internal, "rmsprop_step: ", k.n_out, " outputs do not match its options");
  with_flags(
      [&](auto kMax, auto kWd, auto kCentered, auto kMom) {
        step_loop<3>(k, "rmsprop_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 3> s, int64_t b, int64_t e) {
          const RmspropConsts<T> c = rmsprop_consts<T>(a);
          T* __restrict sq = s[0];
          T* __restrict buf = decltype(kMom)::value ? s[1] : nullptr;
          T* __restrict ga = decltype(kCentered)::value ? s[decltype(kMom)::value ? 2 : 1] : nullptr;
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          T none{};  // the states the options leave out (never touched)
          for (int64_t i = b; i < e; ++i)
            rmsprop_update(c, kMax, kWd, kCentered, kMom, gr[i], pr[i], sq[i], decltype(kMom)::value ? buf[i] : none,
                           decltype(kCentered)::value ? ga[i] : none);
        });
      },
      a.maximize, a.weight_decay != 0, a.centered, a.has_momentum());
}

}  // namespace glia::cpu
