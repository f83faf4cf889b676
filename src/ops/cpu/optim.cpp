// The optimizers' fused update kernels (sgd_step, adam_step, rmsprop_step):
// torch's single-tensor ("foreach=False") update of one parameter in one pass
// over its elements (Note [Optimizer semantics follow torch] in
// optim/optimizer.h). The meta part is the optimizer's prepare pass
// (optim/algorithms.cpp): it creates the state on the parameter's device and
// hands these kernels a parameter, its grad and its states contiguous and of
// one dtype, float32 or float64 (other dtypes and layouts run on float64
// working copies it writes back). The parameter and the states are outputs
// that the kernel reads and writes in place; the grad is the input.
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/dispatch.h"
#include "core/error.h"
#include "core/parallel.h"
#include "ops/cpu/optim_loops.h"

namespace glia::cpu {

namespace {

using namespace optim_loops;

}  // namespace

// attrs: lr, momentum, dampening, weight_decay (.f), nesterov, maximize, first (.i).
void sgd_step_kernel(const KernelArgs& k) {
  const double lr = k.attr(0).f, momentum = k.attr(1).f, dampening = k.attr(2).f, wd = k.attr(3).f;
  const bool nesterov = k.attr(4).i != 0, maximize = k.attr(5).i != 0, first = k.attr(6).i != 0;
  GLIA_CHECK(k.n_out == (momentum != 0 ? 2 : 1), Internal, "sgd_step: ", k.n_out, " outputs do not match its options");
  with_flags(
      [&](auto kMax, auto kWd, auto kMom, auto kNest, auto kFirst) {
        step_loop<1>(k, "sgd_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 1> s, int64_t b, int64_t e) {
          const T twd = T(wd), tm = T(momentum), tdamp = T(1 - dampening), tlr = T(-lr);
          T* __restrict bp = s[0];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) {
            T d = gr[i];
            if constexpr (decltype(kMax)::value) d = -d;
            if constexpr (decltype(kWd)::value) d = d + twd * pr[i];
            if constexpr (decltype(kMom)::value) {
              T nb;
              if constexpr (decltype(kFirst)::value)
                nb = d;
              else
                nb = bp[i] * tm + tdamp * d;
              bp[i] = nb;
              d = decltype(kNest)::value ? d + tm * nb : nb;
            }
            pr[i] = pr[i] + tlr * d;
          }
        });
      },
      maximize, wd != 0, momentum != 0, nesterov, first);
}

// attrs: lr, beta1, beta2, eps, weight_decay, step (.f; the step count after this step), amsgrad, maximize,
// decoupled (.i; AdamW's decoupled weight decay).
void adam_step_kernel(const KernelArgs& k) {
  const double lr = k.attr(0).f, beta1 = k.attr(1).f, beta2 = k.attr(2).f, eps = k.attr(3).f, wd = k.attr(4).f,
               step = k.attr(5).f;
  const bool amsgrad = k.attr(6).i != 0, maximize = k.attr(7).i != 0, decoupled = k.attr(8).i != 0;
  GLIA_CHECK(k.n_out == (amsgrad ? 4 : 3), Internal, "adam_step: ", k.n_out, " outputs do not match its options");
  const double bc1 = 1 - std::pow(beta1, step), bc2 = 1 - std::pow(beta2, step);
  const double step_size = lr / bc1, bc2_sqrt = std::sqrt(bc2);
  with_flags(
      [&](auto kMax, auto kDecoupled, auto kWd, auto kAms) {
        step_loop<3>(k, "adam_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 3> s, int64_t b, int64_t e) {
          const T twd = T(wd), tb1 = T(beta1), t1b1 = T(1 - beta1), tb2 = T(beta2), t1b2 = T(1 - beta2),
                  tbc2 = T(bc2_sqrt), teps = T(eps), tstep = T(-step_size), tdecay = T(1 - lr * wd);
          T* __restrict m = s[0], * __restrict v = s[1], * __restrict vmax = s[2];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) {
            T gi = gr[i];
            if constexpr (decltype(kMax)::value) gi = -gi;
            if constexpr (decltype(kDecoupled)::value)
              pr[i] = pr[i] * tdecay;
            else if constexpr (decltype(kWd)::value)
              gi = gi + twd * pr[i];
            m[i] = m[i] * tb1 + t1b1 * gi;
            v[i] = v[i] * tb2 + t1b2 * gi * gi;
            T denom;
            if constexpr (decltype(kAms)::value) {
              vmax[i] = nan_max(vmax[i], v[i]);
              denom = std::sqrt(vmax[i]) / tbc2 + teps;
            } else {
              denom = std::sqrt(v[i]) / tbc2 + teps;
            }
            pr[i] = pr[i] + tstep * (m[i] / denom);
          }
        });
      },
      maximize, decoupled, wd != 0, amsgrad);
}

// attrs: lr, alpha, eps, weight_decay, momentum (.f), centered, maximize (.i). Outputs: param, square_avg,
// then momentum_buffer when momentum > 0, then grad_avg when centered.
void rmsprop_step_kernel(const KernelArgs& k) {
  const double lr = k.attr(0).f, alpha = k.attr(1).f, eps = k.attr(2).f, wd = k.attr(3).f, momentum = k.attr(4).f;
  const bool centered = k.attr(5).i != 0, maximize = k.attr(6).i != 0, has_mom = momentum > 0;
  GLIA_CHECK(k.n_out == 2 + (has_mom ? 1 : 0) + (centered ? 1 : 0), Internal, "rmsprop_step: ", k.n_out,
             " outputs do not match its options");
  with_flags(
      [&](auto kMax, auto kWd, auto kCentered, auto kMom) {
        step_loop<3>(k, "rmsprop_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 3> s, int64_t b, int64_t e) {
          const T twd = T(wd), ta = T(alpha), t1a = T(1 - alpha), teps = T(eps), tm = T(momentum), tlr = T(-lr);
          T* __restrict sq = s[0];
          T* __restrict buf = decltype(kMom)::value ? s[1] : nullptr;
          T* __restrict ga = decltype(kCentered)::value ? s[decltype(kMom)::value ? 2 : 1] : nullptr;
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) {
            T gi = gr[i];
            if constexpr (decltype(kMax)::value) gi = -gi;
            if constexpr (decltype(kWd)::value) gi = gi + twd * pr[i];
            sq[i] = sq[i] * ta + t1a * gi * gi;
            T avg;
            if constexpr (decltype(kCentered)::value) {
              ga[i] = ga[i] * ta + t1a * gi;
              avg = std::sqrt(sq[i] + T(-1) * ga[i] * ga[i]);
            } else {
              avg = std::sqrt(sq[i]);
            }
            avg = avg + teps;
            if constexpr (decltype(kMom)::value) {
              buf[i] = buf[i] * tm + gi / avg;
              pr[i] = pr[i] + tlr * buf[i];
            } else {
              pr[i] = pr[i] + tlr * (gi / avg);
            }
          }
        });
      },
      maximize, wd != 0, centered, has_mom);
}

}  // namespace glia::cpu
