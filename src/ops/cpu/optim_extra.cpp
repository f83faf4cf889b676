// The fused update kernels of Adadelta, Adagrad, Adamax, ASGD, NAdam, RAdam
// and Rprop (adadelta_step ... rprop_step): torch 1.13's single-tensor update
// of one parameter in one pass over its elements, each operation in torch's
// order and in the parameter's dtype (Note [Optimizer semantics follow torch]
// in optim/optimizer.h). The meta part is the prepare pass in
// optim/algorithms_extra.cpp; contracts as ops/cpu/optim.cpp's kernels.
#include <algorithm>
#include <array>
#include <cmath>

#include "core/dispatch.h"
#include "core/error.h"
#include "ops/cpu/optim_loops.h"

namespace glia::cpu {

namespace {

using namespace optim_loops;

void check_outputs(const KernelArgs& k, int32_t n, const char* name) {
  GLIA_CHECK(k.n_out == n, Internal, name, ": ", k.n_out, " outputs, expected ", n);
}

// torch's sign(): -1, 0 or 1, NaN stays NaN.
template <class T>
inline T sign_of(T x) {
  return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x);
}

}  // namespace

// attrs: lr, rho, eps, weight_decay (.f), maximize (.i). Outputs: param, square_avg, acc_delta.
void adadelta_step_kernel(const KernelArgs& k) {
  const double lr = k.attr(0).f, rho = k.attr(1).f, eps = k.attr(2).f, wd = k.attr(3).f;
  const bool maximize = k.attr(4).i != 0;
  check_outputs(k, 3, "adadelta_step");
  with_flags(
      [&](auto kMax, auto kWd) {
        step_loop<2>(k, "adadelta_step",
                     [&]<class T>(T, T* pp, const T* gp, std::array<T*, 2> s, int64_t b, int64_t e) {
                       const T twd = T(wd), trho = T(rho), t1rho = T(1 - rho), teps = T(eps), tlr = T(-lr);
                       T* __restrict sq = s[0];
                       T* __restrict acc = s[1];
                       T* __restrict pr = pp;
                       const T* __restrict gr = gp;
                       for (int64_t i = b; i < e; ++i) {
                         T gi = gr[i];
                         if constexpr (decltype(kMax)::value) gi = -gi;
                         if constexpr (decltype(kWd)::value) gi = gi + twd * pr[i];
                         sq[i] = sq[i] * trho + t1rho * gi * gi;
                         const T std_ = std::sqrt(sq[i] + teps);
                         const T delta = std::sqrt(acc[i] + teps) / std_ * gi;
                         acc[i] = acc[i] * trho + t1rho * delta * delta;
                         pr[i] = pr[i] + tlr * delta;
                       }
                     });
      },
      maximize, wd != 0);
}

// attrs: lr, lr_decay, eps, weight_decay, step (.f; the count after this step), maximize (.i). Outputs:
// param, sum.
void adagrad_step_kernel(const KernelArgs& k) {
  const double lr = k.attr(0).f, lr_decay = k.attr(1).f, eps = k.attr(2).f, wd = k.attr(3).f, step = k.attr(4).f;
  const bool maximize = k.attr(5).i != 0;
  check_outputs(k, 2, "adagrad_step");
  const double clr = lr / (1 + (step - 1) * lr_decay);
  with_flags(
      [&](auto kMax, auto kWd) {
        step_loop<1>(k, "adagrad_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 1> s, int64_t b, int64_t e) {
          const T twd = T(wd), teps = T(eps), tclr = T(-clr);
          T* __restrict sum = s[0];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) {
            T gi = gr[i];
            if constexpr (decltype(kMax)::value) gi = -gi;
            if constexpr (decltype(kWd)::value) gi = gi + twd * pr[i];
            sum[i] = sum[i] + T(1) * gi * gi;
            const T std_ = std::sqrt(sum[i]) + teps;
            pr[i] = pr[i] + tclr * (gi / std_);
          }
        });
      },
      maximize, wd != 0);
}

// attrs: lr, beta1, beta2, eps, weight_decay, step (.f), maximize (.i). Outputs: param, exp_avg, exp_inf.
void adamax_step_kernel(const KernelArgs& k) {
  const double lr = k.attr(0).f, beta1 = k.attr(1).f, beta2 = k.attr(2).f, eps = k.attr(3).f, wd = k.attr(4).f,
               step = k.attr(5).f;
  const bool maximize = k.attr(6).i != 0;
  check_outputs(k, 3, "adamax_step");
  const double clr = lr / (1 - std::pow(beta1, step));
  with_flags(
      [&](auto kMax, auto kWd) {
        step_loop<2>(k, "adamax_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 2> s, int64_t b, int64_t e) {
          const T twd = T(wd), tb1 = T(beta1), t1b1 = T(1 - beta1), tb2 = T(beta2), teps = T(eps), tclr = T(-clr);
          T* __restrict m = s[0];
          T* __restrict u = s[1];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) {
            T gi = gr[i];
            if constexpr (decltype(kMax)::value) gi = -gi;
            if constexpr (decltype(kWd)::value) gi = gi + twd * pr[i];
            m[i] = m[i] * tb1 + t1b1 * gi;
            u[i] = nan_max(u[i] * tb2, std::abs(gi) + teps);  // torch.amax of the two
            pr[i] = pr[i] + tclr * (m[i] / u[i]);
          }
        });
      },
      maximize, wd != 0);
}

// attrs: lambd, eta, mu, weight_decay (.f), maximize (.i). Outputs: param, ax.
void asgd_step_kernel(const KernelArgs& k) {
  const double lambd = k.attr(0).f, eta = k.attr(1).f, mu = k.attr(2).f, wd = k.attr(3).f;
  const bool maximize = k.attr(4).i != 0;
  check_outputs(k, 2, "asgd_step");
  with_flags(
      [&](auto kMax, auto kWd, auto kAvg) {
        step_loop<1>(k, "asgd_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 1> s, int64_t b, int64_t e) {
          const T twd = T(wd), tdecay = T(1 - lambd * eta), teta = T(-eta), tmu = T(mu);
          T* __restrict ax = s[0];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) {
            T gi = gr[i];
            if constexpr (decltype(kMax)::value) gi = -gi;
            if constexpr (decltype(kWd)::value) gi = gi + twd * pr[i];
            T pi = pr[i] * tdecay;
            pi = pi + teta * gi;
            pr[i] = pi;
            if constexpr (decltype(kAvg)::value)
              ax[i] = ax[i] + (pi - ax[i]) * tmu;
            else
              ax[i] = pi;
          }
        });
      },
      maximize, wd != 0, mu != 1);
}

// attrs: beta1, beta2, eps, weight_decay, step, grad_coef, avg_coef (.f). Outputs: param, exp_avg, exp_avg_sq.
void nadam_step_kernel(const KernelArgs& k) {
  const double beta1 = k.attr(0).f, beta2 = k.attr(1).f, eps = k.attr(2).f, wd = k.attr(3).f, step = k.attr(4).f,
               grad_coef = k.attr(5).f, avg_coef = k.attr(6).f;
  check_outputs(k, 3, "nadam_step");
  const double bc2 = 1 - std::pow(beta2, step);
  with_flags(
      [&](auto kWd) {
        step_loop<2>(k, "nadam_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 2> s, int64_t b, int64_t e) {
          const T twd = T(wd), tb1 = T(beta1), t1b1 = T(1 - beta1), tb2 = T(beta2), t1b2 = T(1 - beta2), tbc2 = T(bc2),
                  teps = T(eps), tcg = T(grad_coef), tca = T(avg_coef);
          T* __restrict m = s[0];
          T* __restrict v = s[1];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) {
            T gi = gr[i];
            if constexpr (decltype(kWd)::value) gi = gi + twd * pr[i];
            m[i] = m[i] * tb1 + t1b1 * gi;
            v[i] = v[i] * tb2 + t1b2 * gi * gi;
            const T denom = std::sqrt(v[i] / tbc2) + teps;
            T pi = pr[i] + tcg * (gi / denom);
            pr[i] = pi + tca * (m[i] / denom);
          }
        });
      },
      wd != 0);
}

// attrs: lr, beta1, beta2, eps, weight_decay, step (.f). Outputs: param, exp_avg, exp_avg_sq. The
// rectification (rho_t > 5) is decided per call, as torch does per parameter.
void radam_step_kernel(const KernelArgs& k) {
  const double lr = k.attr(0).f, beta1 = k.attr(1).f, beta2 = k.attr(2).f, eps = k.attr(3).f, wd = k.attr(4).f,
               step = k.attr(5).f;
  check_outputs(k, 3, "radam_step");
  const double bc1 = 1 - std::pow(beta1, step), bc2 = 1 - std::pow(beta2, step);
  const double rho_inf = 2 / (1 - beta2) - 1;
  const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bc2;
  const bool rectified = rho_t > 5.;
  const double rect =
      rectified ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) : 0;
  with_flags(
      [&](auto kWd, auto kRect) {
        step_loop<2>(k, "radam_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 2> s, int64_t b, int64_t e) {
          const T twd = T(wd), tb1 = T(beta1), t1b1 = T(1 - beta1), tb2 = T(beta2), t1b2 = T(1 - beta2), tbc1 = T(bc1),
                  tsbc2 = T(std::sqrt(bc2)), teps = T(eps), tlr = T(lr), trect = T(rect);
          T* __restrict m = s[0];
          T* __restrict v = s[1];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) {
            T gi = gr[i];
            if constexpr (decltype(kWd)::value) gi = gi + twd * pr[i];
            m[i] = m[i] * tb1 + t1b1 * gi;
            v[i] = v[i] * tb2 + t1b2 * gi * gi;
            const T corrected = m[i] / tbc1;
            if constexpr (decltype(kRect)::value) {
              // torch: sqrt(bc2) / (sqrt(v) + eps) is Tensor.__rtruediv__, a reciprocal times the number.
              const T adaptive = (T(1) / (std::sqrt(v[i]) + teps)) * tsbc2;
              pr[i] = pr[i] + T(-1) * (corrected * tlr * adaptive * trect);
            } else {
              pr[i] = pr[i] + T(-1) * (corrected * tlr);
            }
          }
        });
      },
      wd != 0, rectified);
}

// attrs: etaminus, etaplus, step_size_min, step_size_max (.f), maximize (.i). Outputs: param, prev, step_size.
void rprop_step_kernel(const KernelArgs& k) {
  const double etaminus = k.attr(0).f, etaplus = k.attr(1).f, ss_min = k.attr(2).f, ss_max = k.attr(3).f;
  const bool maximize = k.attr(4).i != 0;
  check_outputs(k, 3, "rprop_step");
  with_flags(
      [&](auto kMax) {
        step_loop<2>(k, "rprop_step", [&]<class T>(T, T* pp, const T* gp, std::array<T*, 2> s, int64_t b, int64_t e) {
          const T tminus = T(etaminus), tplus = T(etaplus), tlo = T(ss_min), thi = T(ss_max);
          T* __restrict prev = s[0];
          T* __restrict ss = s[1];
          T* __restrict pr = pp;
          const T* __restrict gr = gp;
          for (int64_t i = b; i < e; ++i) {
            T gi = gr[i];
            if constexpr (decltype(kMax)::value) gi = -gi;
            const T prod = gi * prev[i];
            // torch: sign(grad * prev) mapped to etaplus / etaminus / 1 (NaN stays NaN).
            const T factor = prod > T(0) ? tplus : (prod < T(0) ? tminus : (prod == T(0) ? T(1) : prod));
            T size = ss[i] * factor;
            size = std::min(std::max(size, tlo), thi);  // clamp_ (NaN stays NaN)
            ss[i] = size;
            if (prod < T(0)) gi = T(0);  // where the sign changed: no step, prev = 0
            pr[i] = pr[i] + T(-1) * sign_of(gi) * size;
            prev[i] = gi;
          }
        });
      },
      maximize);
}

}  // namespace glia::cpu
