// Unary floating math and rounding (ops/math.h): meta parts and CPU kernels.
// The per-element formulas live in ops/cpu/math_fns.h (shared with other
// backends); the loops are map_unary's (Note [Elementwise fast paths]).
#include "ops/math.h"

#include <cmath>

#include "ops/cpu/loops.h"
#include "ops/cpu/math_fns.h"
#include "ops/elementwise.h"

namespace glia::ops {

namespace {

struct MathInfo {
  KernelId id;
  const char* name;     // torch's op name
  const char* kernel;   // torch's kernel name in "not implemented for" messages
  const char* inplace;  // the in-place op's name
};

const MathInfo& info(MathOp op) {
  static const MathInfo table[] = {
      {KernelId::sin, "sin", "sin_vml_cpu", "sin_"},
      {KernelId::cos, "cos", "cos_vml_cpu", "cos_"},
      {KernelId::tan, "tan", "tan_vml_cpu", "tan_"},
      {KernelId::asin, "asin", "asin_vml_cpu", "asin_"},
      {KernelId::acos, "acos", "acos_vml_cpu", "acos_"},
      {KernelId::atan, "atan", "atan_vml_cpu", "atan_"},
      {KernelId::sinh, "sinh", "sinh_cpu", "sinh_"},
      {KernelId::cosh, "cosh", "cosh_cpu", "cosh_"},
      {KernelId::asinh, "asinh", "asinh_cpu", "asinh_"},
      {KernelId::acosh, "acosh", "acosh_cpu", "acosh_"},
      {KernelId::atanh, "atanh", "atanh_cpu", "atanh_"},
      {KernelId::exp2, "exp2", "exp2_cpu", "exp2_"},
      {KernelId::log2, "log2", "log2_vml_cpu", "log2_"},
      {KernelId::log10, "log10", "log10_vml_cpu", "log10_"},
      {KernelId::erf, "erf", "erf_vml_cpu", "erf_"},
      {KernelId::erfc, "erfc", "erfc_vml_cpu", "erfc_"},
      {KernelId::erfinv, "erfinv", "erfinv_vml_cpu", "erfinv_"},
      {KernelId::lgamma, "lgamma", "lgamma_vml_cpu", "lgamma_"},
      {KernelId::digamma, "digamma", "digamma", "digamma_"},
      {KernelId::trunc, "trunc", "trunc_vml_cpu", "trunc_"},
      {KernelId::frac, "frac", "frac_cpu", "frac_"},
      {KernelId::floor, "floor", "floor_vml_cpu", "floor_"},
      {KernelId::ceil, "ceil", "ceil_vml_cpu", "ceil_"},
      {KernelId::round, "round", "round_vml_cpu", "round_"},
  };
  return table[static_cast<int>(op)];
}

}  // namespace

const char* math_name(MathOp op) { return info(op).name; }
const char* math_inplace_name(MathOp op) { return info(op).inplace; }

Tensor math(MathOp op, const Tensor& a) {
  const MathInfo& m = info(op);
  const DType t = a.dtype();
  switch (op) {
    case MathOp::Trunc:
    case MathOp::Floor:
    case MathOp::Ceil:
    case MathOp::Round:
      if (t == DType::Bool) not_implemented_for(m.kernel, t);
      if (!is_floating(t)) return clone(a);  // integers are already whole
      return unary_meta(m.id, a, t, t, {attr_i(0)});
    case MathOp::Frac:
      if (!is_floating(t)) not_implemented_for(m.kernel, t);
      return unary_meta(m.id, a, t, t);
    default: {
      const DType f = is_floating(t) ? t : DType::Float32;
      return unary_meta(m.id, a, f, f);
    }
  }
}

Tensor round_decimals(const Tensor& a, int64_t decimals) {
  if (decimals == 0) return math(MathOp::Round, a);
  if (!is_floating(a.dtype())) not_implemented_for("round_cpu", a.dtype());
  return unary_meta(KernelId::round, a, a.dtype(), a.dtype(), {attr_i(decimals)});
}

Tensor logit(const Tensor& a, double eps) {
  const DType f = is_floating(a.dtype()) ? a.dtype() : DType::Float32;
  return unary_meta(KernelId::logit, a, f, f, {attr_f(eps)});
}

Tensor trigamma(const Tensor& a) {
  const DType f = is_floating(a.dtype()) ? a.dtype() : DType::Float32;
  return unary_meta(KernelId::trigamma, a, f, f);
}

void assign_inplace(const char* name, const Tensor& self, const Tensor& r) {
  check_inplace_cast(name, r.dtype(), self.dtype());
  copy_into(self, r);
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::Types;
using ops::unary_kernel;

#define GLIA_FLOAT_UNARY(name, expr)              \
  void name##_kernel(const KernelArgs& k) {       \
    unary_kernel<Types::Floating>(k, [](auto x) { \
      using A = decltype(x);                      \
      (void)sizeof(A);                            \
      return expr;                                \
    });                                           \
  }

GLIA_FLOAT_UNARY(sin, std::sin(x))
GLIA_FLOAT_UNARY(cos, std::cos(x))
GLIA_FLOAT_UNARY(tan, std::tan(x))
GLIA_FLOAT_UNARY(asin, std::asin(x))
GLIA_FLOAT_UNARY(acos, std::acos(x))
GLIA_FLOAT_UNARY(atan, std::atan(x))
GLIA_FLOAT_UNARY(sinh, std::sinh(x))
GLIA_FLOAT_UNARY(cosh, std::cosh(x))
GLIA_FLOAT_UNARY(asinh, std::asinh(x))
GLIA_FLOAT_UNARY(acosh, std::acosh(x))
GLIA_FLOAT_UNARY(atanh, std::atanh(x))
GLIA_FLOAT_UNARY(exp2, std::exp2(x))
GLIA_FLOAT_UNARY(log2, std::log2(x))
GLIA_FLOAT_UNARY(log10, std::log10(x))
GLIA_FLOAT_UNARY(erfc, std::erfc(x))
GLIA_FLOAT_UNARY(erfinv, math::erfinv<A>(x))
GLIA_FLOAT_UNARY(lgamma, std::lgamma(x))
GLIA_FLOAT_UNARY(digamma, math::digamma<A>(x))
GLIA_FLOAT_UNARY(trigamma, math::trigamma<A>(x))
GLIA_FLOAT_UNARY(trunc, std::trunc(x))
GLIA_FLOAT_UNARY(frac, math::frac<A>(x))
GLIA_FLOAT_UNARY(floor, std::floor(x))
GLIA_FLOAT_UNARY(ceil, std::ceil(x))
#undef GLIA_FLOAT_UNARY

void round_kernel(const KernelArgs& k) {
  const int64_t decimals = k.attr(0).i;
  if (decimals == 0) return unary_kernel<Types::Floating>(k, [](auto x) { return std::nearbyint(x); });
  const bool negative = decimals < 0;
  const double scale = std::pow(10.0, static_cast<double>(negative ? -decimals : decimals));
  unary_kernel<Types::Floating>(k, [scale, negative](auto x) {
    using A = decltype(x);
    return math::round_decimals<A>(x, static_cast<A>(scale), negative);
  });
}

void logit_kernel(const KernelArgs& k) {
  const double eps = k.attr(0).f;
  unary_kernel<Types::Floating>(k, [eps](auto x) {
    using A = decltype(x);
    return math::logit<A>(x, static_cast<A>(eps), static_cast<A>(1) - static_cast<A>(eps));
  });
}

}  // namespace glia::cpu
