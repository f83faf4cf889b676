// The fused update kernels of Adadelta, Adagrad, Adamax, ASGD, NAdam, RAdam
// and Rprop (adadelta_step ... rprop_step): torch 1.13's single-tensor update
// of one parameter in one pass over its elements, each operation in torch's
// order and in the parameter's dtype (Note [Optimizer semantics follow torch]
// in optim/optimizer.h). The meta part is the prepare pass in
// optim/algorithms_extra.cpp; contracts as ops/cpu/optim.cpp's kernels. The
// per-element updates are cuda/optim_ops.h's, shared with the CUDA kernels
// (cuda/optim.cu).
#include <algorithm>
#include <array>
#include <cmath>

#include "core/dispatch.h"
#include "core/error.h"
#include "cuda/optim_ops.h"
#include "ops/cpu/optim_loops.h"

namespace glia::cpu {

namespace {

using namespace optim_loops;
using namespace cuda::optim_ops;

void check_outputs(const KernelArgs& k, int32_t n, const char* name) {
  GLIA_CHECK(k.n_out == n, Internal, name, ": ", k.n_out, " outputs, expected ", n);
}

}  // namespace

// attrs: lr, rho, eps, weight_decay (.f), maximize (.i). Outputs: param, square_avg, acc_delta.
void adadelta_step_kernel(const KernelArgs& k) {
  const AdadeltaArgs a = adadelta_args(k.attrs);
  check_outputs(k, a.outputs(), "adadelta_step");
  with_flags(
      [&](auto kMax, auto kWd) {
        step_loop<2>(k, "adadelta_step",
                     [&]<class T>(T, T* pp, const T* gp, std::array<T*, 2> s, int64_t b, int64_t e) {
                       const AdadeltaConsts<T> c = adadelta_consts<T>(a);
                       T* __restrict sq = s[0];
                       T* __restrict acc = s[1];
                       T* __restrict pr = pp;
                       const T* __restrict gr = gp;
                       for (int64_t i = b; i < e; ++i) adadelta_update(c, kMax, kWd, gr[i], pr[i], sq[i], acc[i]);
                     });
      },
      a.maximize, a.weight_decay != 0);
}

// attrs: lr, lr_decay, eps, weight_decay, step (.f; the count after this step), maximize (.i). Outputs:
// param, sum.
void adagrad_step_kernel(const KernelArgs& k) {
  const AdagradArgs a = adagrad_args(k.attrs);
  check_outputs(k, a.outputs(), "adagrad_step");
  with_flags(
      [&](auto kMax, auto kWd) {
        step_loop<1>(k, "adagrad_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 1> s, int64_t b, int64_t e) {
          const AdagradConsts<T> c = adagrad_consts<T>(a);
          T* __restrict sum = s[0];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) adagrad_update(c, kMax, kWd, gr[i], pr[i], sum[i]);
        });
      },
      a.maximize, a.weight_decay != 0);
}

// attrs: lr, beta1, beta2, eps, weight_decay, step (.f), maximize (.i). Outputs: param, exp_avg, exp_inf.
void adamax_step_kernel(const KernelArgs& k) {
  const AdamaxArgs a = adamax_args(k.attrs);
  check_outputs(k, a.outputs(), "adamax_step");
  with_flags(
      [&](auto kMax, auto kWd) {
        step_loop<2>(k, "adamax_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 2> s, int64_t b, int64_t e) {
          const AdamaxConsts<T> c = adamax_consts<T>(a);
          T* __restrict m = s[0];
          T* __restrict u = s[1];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) adamax_update(c, kMax, kWd, gr[i], pr[i], m[i], u[i]);
        });
      },
      a.maximize, a.weight_decay != 0);
}

// attrs: lambd, eta, mu, weight_decay (.f), maximize (.i). Outputs: param, ax.
void asgd_step_kernel(const KernelArgs& k) {
  const AsgdArgs a = asgd_args(k.attrs);
  check_outputs(k, a.outputs(), "asgd_step");
  with_flags(
      [&](auto kMax, auto kWd, auto kAvg) {
        step_loop<1>(k, "asgd_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 1> s, int64_t b, int64_t e) {
          const AsgdConsts<T> c = asgd_consts<T>(a);
          T* __restrict ax = s[0];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) asgd_update(c, kMax, kWd, kAvg, gr[i], pr[i], ax[i]);
        });
      },
      a.maximize, a.weight_decay != 0, a.averaging());
}

// attrs: beta1, beta2, eps, weight_decay, step, grad_coef, avg_coef (.f). Outputs: param, exp_avg, exp_avg_sq.
void nadam_step_kernel(const KernelArgs& k) {
  const NadamArgs a = nadam_args(k.attrs);
  check_outputs(k, a.outputs(), "nadam_step");
  with_flags(
      [&](auto kWd) {
        step_loop<2>(k, "nadam_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 2> s, int64_t b, int64_t e) {
          const NadamConsts<T> c = nadam_consts<T>(a);
          T* __restrict m = s[0];
          T* __restrict v = s[1];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) nadam_update(c, kWd, gr[i], pr[i], m[i], v[i]);
        });
      },
      a.weight_decay != 0);
}

// attrs: lr, beta1, beta2, eps, weight_decay, step (.f). Outputs: param, exp_avg, exp_avg_sq. The
// rectification (rho_t > 5) is decided per call, as torch does per parameter.
void radam_step_kernel(const KernelArgs& k) {
  const RadamArgs a = radam_args(k.attrs);
  check_outputs(k, a.outputs(), "radam_step");
  with_flags(
      [&](auto kWd, auto kRect) {
        step_loop<2>(k, "radam_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 2> s, int64_t b, int64_t e) {
          const RadamConsts<T> c = radam_consts<T>(a);
          T* __restrict m = s[0];
          T* __restrict v = s[1];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) radam_update(c, kWd, kRect, gr[i], pr[i], m[i], v[i]);
        });
      },
      a.weight_decay != 0, a.rectified);
}

// attrs: etaminus, etaplus, step_size_min, step_size_max (.f), maximize (.i). Outputs: param, prev, step_size.
void rprop_step_kernel(const KernelArgs& k) {
  const RpropArgs a = rprop_args(k.attrs);
  check_outputs(k, a.outputs(), "rprop_step");
  with_flags(
      [&](auto kMax) {
        step_loop<2>(k, "rprop_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 2> s, int64_t b, int64_t e) {
          const RpropConsts<T> c = rprop_consts<T>(a);
          T* __restrict prev = s[0];
          T* __restrict ss = s[1];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) rprop_update(c, kMax, gr[i], pr[i], prev[i], ss[i]);
        });
      },
      a.maximize);
}

}  // namespace glia::cpu
