// cuda/optim_ops.h on the CPU: the optimizers' per-element updates that the CPU kernels (src/ops/cpu/optim.cpp,
// optim_extra.cpp) and the CUDA kernels (cuda/optim.cu) both run. The CPU kernels pass their option flags as
// std::bool_constant, the CUDA kernels as plain bools: both spellings must give the same values for every
// combination. Then torch 1.13's semantics at the edges (first momentum step, NaN in amsgrad's and Adamax's
// maxima, Rprop's sign changes and clamp, ASGD's averaging switch, RAdam's rectification threshold), the
// attribute reading in kernels.def's order and the output counts the options call for. The optimizer goldens
// (tests/optim/) check the same functions against torch through the CPU kernels.
#include "optim_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace glia::cuda::optim_ops {
namespace {

// The fields of glia_kernel_attr (and the core's Attr) that the *_args readers use.
struct Attr {
  int64_t i;
  double f;
};
Attr af(double v) { return {0, v}; }
Attr ai(int64_t v) { return {v, 0}; }

// Values for the parameter, the grad and the states: signs, zeros, tiny and large magnitudes, NaN, infinities.
template <class T>
std::vector<T> samples() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  return {T(0.75), T(-1.5), T(0), T(-0.0), T(3e-3), T(-250), std::numeric_limits<T>::denorm_min(),
          T(1e30), nan,     inf,  -inf,    T(0.1)};
}

// Equal values, NaN equal to NaN (the sign of a NaN follows operand order, which no compiler promises).
template <class T>
bool same(T a, T b) {
  if (a != a || b != b) return a != a && b != b;
  return a == b && std::signbit(a) == std::signbit(b);
}

// Calls f(flag values...) with every combination of n flags, as plain bools and as std::bool_constant; f runs
// the update with both and compares.
template <int N, class F, class... B>
void each_flags(F&& f, B... b) {
  if constexpr (sizeof...(B) == N) {
    f(b...);
  } else {
    each_flags<N>(f, b..., std::false_type{});
    each_flags<N>(f, b..., std::true_type{});
  }
}

// One element updated with the flags as constants (the CPU's spelling) and as bools (the GPU's): the parameter
// and the states must agree. `run(flags..., g, p, s0, s1, s2)` performs the update.
template <class T, int N, class Run>
void check_flag_spellings(const char* name, Run run) {
  const std::vector<T> v = samples<T>();
  size_t checked = 0;
  each_flags<N>([&](auto... flags) {
    for (size_t k = 0; k < v.size(); ++k) {
      const T g = v[k], p0 = v[(k + 1) % v.size()], s0 = v[(k + 3) % v.size()], s1 = v[(k + 5) % v.size()],
              s2 = v[(k + 7) % v.size()];
      T pc = p0, c0 = std::abs(s0), c1 = std::abs(s1), c2 = std::abs(s2);
      T pb = pc, b0 = c0, b1 = c1, b2 = c2;
      run(flags..., g, pc, c0, c1, c2);
      run(static_cast<bool>(flags)..., g, pb, b0, b1, b2);
      EXPECT_TRUE(same(pc, pb)) << name << " parameter, case " << k;
      EXPECT_TRUE(same(c0, b0) && same(c1, b1) && same(c2, b2)) << name << " states, case " << k;
      ++checked;
    }
  });
  EXPECT_EQ(checked, v.size() << N) << name;
}

template <class T>
void every_algorithm_with_bools_as_with_constants() {
  const SgdConsts<T> sgd = sgd_consts<T>(SgdArgs{0.1, 0.9, 0.2, 0.01, false, false, false});
  check_flag_spellings<T, 5>("sgd", [&](auto mx, auto wd, auto mom, auto nest, auto first, T g, T& p, T& s0, T&, T&) {
    sgd_update(sgd, mx, wd, mom, nest, first, g, p, s0);
  });
  const AdamConsts<T> adam = adam_consts<T>(adam_args(
      std::vector<Attr>{af(0.01), af(0.9), af(0.999), af(1e-8), af(0.02), af(2), ai(0), ai(0), ai(0)}.data()));
  check_flag_spellings<T, 4>("adam", [&](auto mx, auto dec, auto wd, auto ams, T g, T& p, T& s0, T& s1, T& s2) {
    adam_update(adam, mx, dec, wd, ams, g, p, s0, s1, s2);
  });
  const RmspropConsts<T> rms = rmsprop_consts<T>(RmspropArgs{0.01, 0.99, 1e-8, 0.01, 0.5, false, false});
  check_flag_spellings<T, 4>("rmsprop", [&](auto mx, auto wd, auto cen, auto mom, T g, T& p, T& s0, T& s1, T& s2) {
    rmsprop_update(rms, mx, wd, cen, mom, g, p, s0, s1, s2);
  });
  const AdadeltaConsts<T> ada = adadelta_consts<T>(AdadeltaArgs{1.0, 0.9, 1e-6, 0.01, false});
  check_flag_spellings<T, 2>(
      "adadelta", [&](auto mx, auto wd, T g, T& p, T& s0, T& s1, T&) { adadelta_update(ada, mx, wd, g, p, s0, s1); });
  const AdagradConsts<T> adg =
      adagrad_consts<T>(adagrad_args(std::vector<Attr>{af(0.01), af(0.1), af(1e-10), af(0.01), af(3), ai(0)}.data()));
  check_flag_spellings<T, 2>(
      "adagrad", [&](auto mx, auto wd, T g, T& p, T& s0, T&, T&) { adagrad_update(adg, mx, wd, g, p, s0); });
  const AdamaxConsts<T> amx = adamax_consts<T>(
      adamax_args(std::vector<Attr>{af(0.002), af(0.9), af(0.999), af(1e-8), af(0.01), af(2), ai(0)}.data()));
  check_flag_spellings<T, 2>(
      "adamax", [&](auto mx, auto wd, T g, T& p, T& s0, T& s1, T&) { adamax_update(amx, mx, wd, g, p, s0, s1); });
  const AsgdConsts<T> asgd = asgd_consts<T>(AsgdArgs{1e-4, 0.01, 0.5, 0.01, false});
  check_flag_spellings<T, 3>(
      "asgd", [&](auto mx, auto wd, auto avg, T g, T& p, T& s0, T&, T&) { asgd_update(asgd, mx, wd, avg, g, p, s0); });
  const NadamConsts<T> nad = nadam_consts<T>(
      nadam_args(std::vector<Attr>{af(0.9), af(0.999), af(1e-8), af(0.01), af(3), af(-0.01), af(-0.02)}.data()));
  check_flag_spellings<T, 1>("nadam",
                             [&](auto wd, T g, T& p, T& s0, T& s1, T&) { nadam_update(nad, wd, g, p, s0, s1); });
  const RadamConsts<T> rad =
      radam_consts<T>(radam_args(std::vector<Attr>{af(0.001), af(0.9), af(0.9), af(1e-8), af(0.01), af(7)}.data()));
  check_flag_spellings<T, 2>(
      "radam", [&](auto wd, auto rect, T g, T& p, T& s0, T& s1, T&) { radam_update(rad, wd, rect, g, p, s0, s1); });
  const RpropConsts<T> rp = rprop_consts<T>(RpropArgs{0.5, 1.2, 1e-6, 50, false});
  check_flag_spellings<T, 1>("rprop",
                             [&](auto mx, T g, T& p, T& s0, T& s1, T&) { rprop_update(rp, mx, g, p, s0, s1); });
}

TEST(OptimOps, FlagsAsBoolsGiveWhatFlagsAsConstantsGive) {
  every_algorithm_with_bools_as_with_constants<float>();
  every_algorithm_with_bools_as_with_constants<double>();
}

// The attributes in kernels.def's order, the values torch computes in Python floats, and the output counts.
TEST(OptimOps, AttributesAreReadInKernelsDefOrder) {
  const SgdArgs s = sgd_args(std::vector<Attr>{af(0.1), af(0.9), af(0.2), af(0.01), ai(1), ai(0), ai(1)}.data());
  EXPECT_EQ(s.lr, 0.1);
  EXPECT_EQ(s.momentum, 0.9);
  EXPECT_EQ(s.dampening, 0.2);
  EXPECT_EQ(s.weight_decay, 0.01);
  EXPECT_TRUE(s.nesterov && !s.maximize && s.first);
  EXPECT_EQ(s.outputs(), 2);  // param, momentum_buffer
  EXPECT_EQ(sgd_args(std::vector<Attr>{af(0.1), af(0), af(0), af(0), ai(0), ai(1), ai(0)}.data()).outputs(), 1);

  const AdamArgs a =
      adam_args(std::vector<Attr>{af(0.01), af(0.9), af(0.999), af(1e-8), af(0.1), af(3), ai(1), ai(0), ai(1)}.data());
  EXPECT_TRUE(a.amsgrad && !a.maximize && a.decoupled);
  EXPECT_EQ(a.step_size, 0.01 / (1 - std::pow(0.9, 3.0)));
  EXPECT_EQ(a.bias_correction2_sqrt, std::sqrt(1 - std::pow(0.999, 3.0)));
  EXPECT_EQ(a.outputs(), 4);  // param, exp_avg, exp_avg_sq, max_exp_avg_sq
  const AdamConsts<float> ac = adam_consts<float>(a);
  EXPECT_EQ(ac.decay, static_cast<float>(1 - 0.01 * 0.1));  // AdamW: p *= 1 - lr * weight_decay
  EXPECT_EQ(ac.neg_step_size, static_cast<float>(-a.step_size));

  const RmspropArgs r =
      rmsprop_args(std::vector<Attr>{af(0.01), af(0.99), af(1e-8), af(0), af(0.5), ai(1), ai(0)}.data());
  EXPECT_TRUE(r.centered && r.has_momentum());
  EXPECT_EQ(r.outputs(), 4);  // param, square_avg, momentum_buffer, grad_avg
  EXPECT_EQ(rmsprop_args(std::vector<Attr>{af(0.01), af(0.99), af(1e-8), af(0), af(0), ai(1), ai(0)}.data()).outputs(),
            3);

  const AdagradArgs g = adagrad_args(std::vector<Attr>{af(0.1), af(0.5), af(1e-10), af(0), af(3), ai(1)}.data());
  EXPECT_EQ(g.clr, 0.1 / (1 + 2 * 0.5));  // lr / (1 + (step - 1) * lr_decay)
  EXPECT_TRUE(g.maximize);
  EXPECT_EQ(g.outputs(), 2);

  const AdamaxArgs x =
      adamax_args(std::vector<Attr>{af(0.002), af(0.9), af(0.999), af(1e-8), af(0), af(2), ai(0)}.data());
  EXPECT_EQ(x.clr, 0.002 / (1 - std::pow(0.9, 2.0)));
  EXPECT_EQ(x.outputs(), 3);

  EXPECT_FALSE(asgd_args(std::vector<Attr>{af(1e-4), af(0.01), af(1), af(0), ai(0)}.data()).averaging());
  EXPECT_TRUE(asgd_args(std::vector<Attr>{af(1e-4), af(0.01), af(0.5), af(0), ai(0)}.data()).averaging());

  const NadamArgs n =
      nadam_args(std::vector<Attr>{af(0.9), af(0.999), af(1e-8), af(0), af(4), af(-0.25), af(-0.5)}.data());
  EXPECT_EQ(n.grad_coef, -0.25);
  EXPECT_EQ(n.avg_coef, -0.5);
  EXPECT_EQ(n.bias_correction2, 1 - std::pow(0.999, 4.0));

  const RpropArgs p = rprop_args(std::vector<Attr>{af(0.5), af(1.2), af(1e-6), af(50), ai(1)}.data());
  EXPECT_EQ(p.etaminus, 0.5);
  EXPECT_EQ(p.etaplus, 1.2);
  EXPECT_EQ(p.step_size_min, 1e-6);
  EXPECT_EQ(p.step_size_max, 50);
  EXPECT_TRUE(p.maximize);
}

// torch 1.13's RAdam: rho_inf = 2 / (1 - beta2) - 1, rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t); the step is
// rectified when rho_t > 5. With beta2 = 0.9, rho_t is 4.58 at t = 5 and 5.39 at t = 6.
TEST(OptimOps, RadamRectifiesFromTorchsThreshold) {
  auto at = [](double step) {
    return radam_args(std::vector<Attr>{af(0.001), af(0.9), af(0.9), af(1e-8), af(0), af(step)}.data());
  };
  EXPECT_FALSE(at(5).rectified);
  EXPECT_EQ(at(5).rect, 0);
  const RadamArgs r = at(6);
  ASSERT_TRUE(r.rectified);
  const double rho_inf = 19, rho_t = rho_inf - 12 * std::pow(0.9, 6.0) / (1 - std::pow(0.9, 6.0));
  EXPECT_NEAR(r.rect, std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)), 1e-15);
  EXPECT_LT(r.rect, 1);
  // Unrectified: p - lr * exp_avg / bias_correction1.
  const RadamConsts<double> c = radam_consts<double>(at(1));
  double p = 1, m = 0, v = 0;
  radam_update(c, false, false, 0.5, p, m, v);
  EXPECT_DOUBLE_EQ(m, 0.05);
  EXPECT_DOUBLE_EQ(v, 0.1 * 0.25);
  EXPECT_DOUBLE_EQ(p, 1 - 0.001 * (0.05 / 0.1));
}

// SGD's first momentum step copies d_p into the buffer (no dampening); later steps mix; nesterov looks ahead.
TEST(OptimOps, SgdMomentumFirstStepAndNesterov) {
  const SgdConsts<double> c = sgd_consts<double>(SgdArgs{0.1, 0.9, 0.5, 0, false, false, true});
  double p = 1, buf = 123;  // the buffer is written, not read, on the first step
  sgd_update(c, false, false, true, false, true, 0.5, p, buf);
  EXPECT_EQ(buf, 0.5);
  EXPECT_DOUBLE_EQ(p, 0.95);
  sgd_update(c, false, false, true, false, false, 0.5, p, buf);
  EXPECT_DOUBLE_EQ(buf, 0.5 * 0.9 + 0.5 * 0.5);
  EXPECT_DOUBLE_EQ(p, 0.95 - 0.1 * 0.7);
  double q = 1, nb = 0.5;
  sgd_update(c, false, false, true, true, false, 0.5, q, nb);  // nesterov: d + momentum * buf
  EXPECT_DOUBLE_EQ(q, 1 - 0.1 * (0.5 + 0.9 * 0.7));
  double r = 1, unused = 7;  // maximize and weight decay, no momentum
  const SgdConsts<double> w = sgd_consts<double>(SgdArgs{0.1, 0, 0, 0.25, false, true, false});
  sgd_update(w, true, true, false, false, false, 0.5, r, unused);
  EXPECT_DOUBLE_EQ(r, 1 - 0.1 * (-0.5 + 0.25 * 1));
  EXPECT_EQ(unused, 7);
}

// AMSGrad's running maximum and Adamax's exp_inf are torch.maximum / amax: a NaN sticks.
TEST(OptimOps, MaximaPropagateNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(nan_max(nan, 1.0f)));
  EXPECT_TRUE(std::isnan(nan_max(1.0f, nan)));
  EXPECT_EQ(nan_max(-0.5f, 2.0f), 2.0f);
  const AdamConsts<float> c = adam_consts<float>(
      adam_args(std::vector<Attr>{af(0.1), af(0.9), af(0.999), af(1e-8), af(0), af(1), ai(1), ai(0), ai(0)}.data()));
  float p = 1, m = 0, v = nan, vmax = 4;
  adam_update(c, false, false, false, true, 0.5f, p, m, v, vmax);
  EXPECT_TRUE(std::isnan(vmax));
  p = 1, m = 0, v = 1, vmax = 4;
  adam_update(c, false, false, false, true, 0.5f, p, m, v, vmax);
  EXPECT_EQ(vmax, 4);  // max(4, v)
  const AdamaxConsts<double> x = adamax_consts<double>(AdamaxArgs{0.1, 0.9, 0.5, 0.25, 0, 1, false, 0.1});
  double q = 1, em = 0, ei = 2;
  adamax_update(x, false, false, -3.0, q, em, ei);
  EXPECT_EQ(ei, 3.25);  // max(2 * 0.5, |-3| + 0.25)
  ei = std::numeric_limits<double>::quiet_NaN();
  adamax_update(x, false, false, -3.0, q, em, ei);
  EXPECT_TRUE(std::isnan(ei));
}

// Rprop: the step size grows where grad * prev > 0, shrinks where < 0 (and that element does not move; prev
// becomes 0), stays where == 0; clamped to [min, max], NaN kept; the step is -sign(grad) * step_size.
TEST(OptimOps, RpropSignsAndClamp) {
  const RpropConsts<double> c = rprop_consts<double>(RpropArgs{0.5, 1.2, 0.01, 1.0, false});
  double p = 1, prev = 2, ss = 0.5;
  rprop_update(c, false, 3.0, p, prev, ss);
  EXPECT_DOUBLE_EQ(ss, 0.6);
  EXPECT_DOUBLE_EQ(p, 0.4);
  EXPECT_EQ(prev, 3.0);
  rprop_update(c, false, -1.0, p, prev, ss);  // sign change
  EXPECT_DOUBLE_EQ(ss, 0.3);
  EXPECT_DOUBLE_EQ(p, 0.4);
  EXPECT_EQ(prev, 0.0);
  rprop_update(c, false, -1.0, p, prev, ss);  // prev == 0: factor 1
  EXPECT_DOUBLE_EQ(ss, 0.3);
  EXPECT_DOUBLE_EQ(p, 0.7);
  ss = 0.9, prev = 1;
  rprop_update(c, false, 1.0, p, prev, ss);  // 1.08 clamped to 1
  EXPECT_EQ(ss, 1.0);
  ss = 0.015, prev = -1;
  rprop_update(c, true, 1.0, p, prev, ss);  // maximize: grad -1, prev -1: grows; 0.018 stays
  EXPECT_DOUBLE_EQ(ss, 0.018);
  ss = 0.015, prev = 1;
  rprop_update(c, false, -1.0, p, prev, ss);  // 0.0075 clamped to 0.01
  EXPECT_EQ(ss, 0.01);
  ss = std::numeric_limits<double>::quiet_NaN(), prev = 1;
  rprop_update(c, false, 1.0, p, prev, ss);
  EXPECT_TRUE(std::isnan(ss)) << "clamp_ keeps NaN";
  EXPECT_TRUE(std::isnan(sign_of(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_TRUE(std::signbit(sign_of(-0.0)));
  EXPECT_EQ(sign_of(-2.0), -1.0);
}

// ASGD: p = p * (1 - lambd * eta) - eta * grad; ax follows p while mu == 1, then averages.
TEST(OptimOps, AsgdAveragesOnlyWhenMuIsNotOne) {
  const AsgdConsts<double> c = asgd_consts<double>(AsgdArgs{0.5, 0.1, 0.25, 0, false});
  double p = 1, ax = 3;
  asgd_update(c, false, false, false, 2.0, p, ax);
  EXPECT_DOUBLE_EQ(p, 1 * (1 - 0.05) - 0.1 * 2);
  EXPECT_EQ(ax, p);
  double q = 1, bx = 3;
  asgd_update(c, false, false, true, 2.0, q, bx);
  EXPECT_DOUBLE_EQ(bx, 3 + (q - 3) * 0.25);
}

}  // namespace
}  // namespace glia::cuda::optim_ops
