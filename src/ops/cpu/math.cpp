// Unary floating math and rounding (ops/math.h): meta parts and CPU kernels.
// The per-element formulas live in core/elementwise_math.h (shared with the
// CUDA backend); the loops are map_unary's (Note [Elementwise fast paths]).
#include "ops/math.h"

#include <cmath>
#include <limits>

#include "core/elementwise_math.h"
#include "ops/cpu/cpu_features.h"
#include "ops/cpu/loops.h"
#include "ops/cpu/vmath.h"
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

// ---- binary math, bitwise ops, predicates

namespace {
struct BinaryInfo {
  KernelId id;
  const char* name;
  const char* kernel;
};
const BinaryInfo& binfo(BinaryMathOp op) {
  static const BinaryInfo table[] = {
      {KernelId::atan2, "atan2", "atan2_cpu"},
      {KernelId::hypot, "hypot", "hypot_cpu"},
      {KernelId::copysign, "copysign", "copysign_cpu"},
      {KernelId::xlogy, "xlogy", "xlogy_cpu"},
      {KernelId::fmod, "fmod", "fmod_cpu"},
      {KernelId::remainder, "remainder", "remainder_cpu"},
      {KernelId::fmax, "fmax", "fmax_cpu"},
      {KernelId::fmin, "fmin", "fmin_cpu"},
      {KernelId::bitwise_and, "bitwise_and", "bitwise_and_cpu"},
      {KernelId::bitwise_or, "bitwise_or", "bitwise_or_cpu"},
      {KernelId::bitwise_xor, "bitwise_xor", "bitwise_xor_cpu"},
      {KernelId::left_shift, "bitwise_left_shift", "lshift_cpu"},
      {KernelId::right_shift, "bitwise_right_shift", "rshift_cpu"},
  };
  return table[static_cast<int>(op)];
}
}  // namespace

const char* binary_math_name(BinaryMathOp op) { return binfo(op).name; }

Tensor binary_math(BinaryMathOp op, const Tensor& a, const Tensor& b) {
  const BinaryInfo& m = binfo(op);
  DType t = result_type(a, b);
  switch (op) {
    case BinaryMathOp::Atan2:
    case BinaryMathOp::Copysign:
    case BinaryMathOp::Xlogy:
      if (!is_floating(t)) t = DType::Float32;
      break;
    case BinaryMathOp::Hypot:
      if (!is_floating(t)) not_implemented_for(m.kernel, t);
      break;
    case BinaryMathOp::Fmod:
    case BinaryMathOp::Remainder:
      if (t == DType::Bool) not_implemented_for(m.kernel, t);
      break;
    case BinaryMathOp::Fmax:
    case BinaryMathOp::Fmin:
      break;
    case BinaryMathOp::BitwiseAnd:
    case BinaryMathOp::BitwiseOr:
    case BinaryMathOp::BitwiseXor:
      if (is_floating(t)) not_implemented_for(m.kernel, t);
      break;
    case BinaryMathOp::LeftShift:
    case BinaryMathOp::RightShift:
      if (is_floating(t) || t == DType::Bool) not_implemented_for(m.kernel, t);
      break;
  }
  return binary_meta(m.id, m.name, a, b, t, t);
}

Tensor bitwise_not(const Tensor& a) {
  if (is_floating(a.dtype())) not_implemented_for("bitwise_not_cpu", a.dtype());
  return unary_meta(KernelId::bitwise_not, a, a.dtype(), a.dtype());
}

Tensor float_class(FloatClass c, const Tensor& a) {
  if (!is_floating(a.dtype())) return full(a.shape(), c == FloatClass::IsFinite ? 1.0 : 0.0, DType::Bool, a.device());
  return unary_meta(KernelId::float_class, a, a.dtype(), DType::Bool, {attr_i(static_cast<int64_t>(c))});
}

Tensor nan_to_num(const Tensor& a, double nan, const double* posinf, const double* neginf) {
  const DType t = a.dtype();
  if (!is_floating(t)) return clone(a);
  double hi = 0;
  switch (t) {
    case DType::Float64:
      hi = std::numeric_limits<double>::max();
      break;
    case DType::Float32:
      hi = std::numeric_limits<float>::max();
      break;
    case DType::Float16:
      hi = 65504.0;
      break;
    default:  // bfloat16
      hi = 3.3895313892515355e38;
      break;
  }
  return unary_meta(KernelId::nan_to_num, a, t, t,
                    {attr_f(nan), attr_f(posinf ? *posinf : hi), attr_f(neginf ? *neginf : -hi)});
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  GLIA_CHECK(a.dtype() == b.dtype(), DType, scalar_type_name(a.dtype()), " did not match ",
             scalar_type_name(b.dtype()));
  GLIA_CHECK(rtol >= 0, InvalidArgument, "rtol must be greater than or equal to zero, but got ", rtol);
  GLIA_CHECK(atol >= 0, InvalidArgument, "atol must be greater than or equal to zero, but got ", atol);
  Tensor close = compare(a, b, Cmp::Eq);
  if (equal_nan && is_floating(a.dtype()))
    close = logical(close, logical(float_class(FloatClass::IsNan, a), float_class(FloatClass::IsNan, b), Logic::And),
                    Logic::Or);
  if (rtol == 0 && atol == 0) return close;
  // torch's Note [closeness error computation]: bool operands as float32.
  const Tensor x = a.dtype() == DType::Bool ? to_dtype(a, DType::Float32) : a;
  const Tensor y = b.dtype() == DType::Bool ? to_dtype(b, DType::Float32) : b;
  Tensor allowed = add(wrapped_scalar(atol, false), abs(mul(wrapped_scalar(rtol, false), y)), 1.0);
  Tensor actual = abs(sub(x, y, 1.0));
  Tensor finite_close =
      logical(float_class(FloatClass::IsFinite, actual), compare(actual, allowed, Cmp::Le), Logic::And);
  return logical(close, finite_close, Logic::Or);
}

namespace {
// torch's TypeMeta names, as its lerp messages print them.
const char* type_meta_name(DType t) {
  switch (t) {
    case DType::Float32:
      return "float";
    case DType::Float64:
      return "double";
    case DType::Float16:
      return "c10::Half";
    case DType::BFloat16:
      return "c10::BFloat16";
    case DType::Int64:
      return "long int";
    case DType::Int32:
      return "int";
    case DType::UInt8:
      return "unsigned char";
    case DType::Int8:
      return "signed char";
    case DType::Int16:
      return "short int";
    default:
      return "bool";
  }
}
void check_lerp_dtype(const Tensor& start, const Tensor& t, const char* arg) {
  GLIA_CHECK(t.dtype() == start.dtype(), DType, "expected dtype ", type_meta_name(start.dtype()), " for `", arg,
             "` but got dtype ", type_meta_name(t.dtype()));
}
}  // namespace

Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  check_lerp_dtype(start, end, "end");
  check_lerp_dtype(start, weight, "weight");
  if (!is_floating(start.dtype())) not_implemented_for("lerp_kernel_tensor", start.dtype());
  return ternary_meta(KernelId::lerp, "lerp", start, end, weight, start.dtype(), start.dtype());
}

Tensor lerp_scalar(const Tensor& start, const Tensor& end, double weight) {
  check_lerp_dtype(start, end, "end");
  if (!is_floating(start.dtype())) not_implemented_for("lerp_kernel_scalar", start.dtype());
  return binary_meta(KernelId::lerp_scalar, "lerp", start, end, start.dtype(), start.dtype(), {attr_f(weight)});
}
}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::Types;
using ops::unary_kernel;

namespace vmath {
bool available() {
#if GLIA_HAVE_HWY && defined(__x86_64__)
  const CpuFeatures& f = cpu_features();
  return f.f16c && f.avx2 && f.fma && f.bmi2;
#else
  return false;
#endif
}
}  // namespace vmath

namespace {
// Note [Vectorised transcendental functions] (ops/cpu/vmath.h): float32, contiguous, a CPU with
// AVX2 and FMA. False when the kernel must take the generic loop.
bool vector_path(const KernelArgs& k, vmath::Fn fn, vmath::ScalarFn fallback) {
#if GLIA_HAVE_HWY
  const Tensor &out = k.output(0), &x = k.input(0);
  if (x.dtype() != DType::Float32 || !x.is_contiguous() || !out.is_contiguous() || !vmath::available()) return false;
  const float* xp = x.data_ptr<float>();
  float* op = out.data_ptr<float>();
  ops::flat_for(out.numel(), [&](int64_t b, int64_t e) { vmath::run_avx2(fn, xp + b, op + b, e - b, fallback); });
  return true;
#else
  (void)k, (void)fn, (void)fallback;
  return false;
#endif
}
}  // namespace

#define GLIA_VECTOR_UNARY(name, Op)                                        \
  static void name##_f32(const float* x, float* o, int64_t n) {            \
    for (int64_t i = 0; i < n; ++i) o[i] = std::name(x[i]);                \
  }                                                                        \
  void name##_kernel(const KernelArgs& k) {                                \
    if (vector_path(k, vmath::Fn::Op, name##_f32)) return;                 \
    unary_kernel<Types::Floating>(k, [](auto x) { return std::name(x); }); \
  }

#define GLIA_FLOAT_UNARY(name, expr)              \
  void name##_kernel(const KernelArgs& k) {       \
    unary_kernel<Types::Floating>(k, [](auto x) { \
      using A = decltype(x);                      \
      (void)sizeof(A);                            \
      return expr;                                \
    });                                           \
  }

GLIA_VECTOR_UNARY(sin, Sin)
GLIA_VECTOR_UNARY(cos, Cos)
GLIA_FLOAT_UNARY(tan, std::tan(x))
GLIA_VECTOR_UNARY(asin, Asin)
GLIA_VECTOR_UNARY(acos, Acos)
GLIA_VECTOR_UNARY(atan, Atan)
GLIA_VECTOR_UNARY(sinh, Sinh)
GLIA_FLOAT_UNARY(cosh, std::cosh(x))
GLIA_VECTOR_UNARY(asinh, Asinh)
GLIA_VECTOR_UNARY(acosh, Acosh)
GLIA_VECTOR_UNARY(atanh, Atanh)
GLIA_FLOAT_UNARY(exp2, std::exp2(x))
GLIA_VECTOR_UNARY(log2, Log2)
GLIA_VECTOR_UNARY(log10, Log10)
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
#undef GLIA_VECTOR_UNARY

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

// ---- binary math, bitwise ops, predicates

namespace {
// Integer division by zero is an error in torch ("ZeroDivisionError"), checked before the loop.
void check_nonzero_divisor(const KernelArgs& k) {
  const Tensor& y = k.input(1);
  if (is_floating(y.dtype())) return;
  Tensor zero = empty(y.shape(), DType::Bool, y.device());
  const Tensor* in[] = {&y, &y};
  const Tensor* out[] = {&zero};
  ops::binary_kernel(KernelArgs{in, out, nullptr, 2, 1, 0}, [](auto, auto v) { return v == 0; });
  const bool* z = zero.data_ptr<bool>();
  for (int64_t i = 0; i < zero.numel(); ++i) GLIA_CHECK(!z[i], InvalidArgument, "ZeroDivisionError");
}
}  // namespace

void atan2_kernel(const KernelArgs& k) {
  ops::binary_kernel<Types::Floating>(k, [](auto x, auto y) { return std::atan2(x, y); });
}
void hypot_kernel(const KernelArgs& k) {
  ops::binary_kernel<Types::Floating>(k, [](auto x, auto y) { return std::hypot(x, y); });
}
void copysign_kernel(const KernelArgs& k) {
  ops::binary_kernel<Types::Floating>(k, [](auto x, auto y) { return std::copysign(x, y); });
}
void xlogy_kernel(const KernelArgs& k) {
  ops::binary_kernel<Types::Floating>(k, [](auto x, auto y) { return math::xlogy(x, y); });
}
void fmod_kernel(const KernelArgs& k) {
  check_nonzero_divisor(k);
  ops::binary_kernel(k, [](auto x, auto y) { return math::fmod(x, y); });
}
void remainder_kernel(const KernelArgs& k) {
  check_nonzero_divisor(k);
  ops::binary_kernel(k, [](auto x, auto y) { return math::remainder(x, y); });
}
void fmax_kernel(const KernelArgs& k) {
  // y if x is NaN, x if y is NaN, else the larger.
  ops::binary_kernel(k, [](auto x, auto y) { return (x > y || y != y) ? x : y; });
}
void fmin_kernel(const KernelArgs& k) {
  ops::binary_kernel(k, [](auto x, auto y) { return (x < y || y != y) ? x : y; });
}
void bitwise_and_kernel(const KernelArgs& k) {
  ops::binary_kernel(k, [](auto x, auto y) {
    using A = decltype(x);
    if constexpr (std::is_integral_v<A>)
      return static_cast<A>(x & y);
    else
      return x;  // not reached: the meta part refuses floating dtypes
  });
}
void bitwise_or_kernel(const KernelArgs& k) {
  ops::binary_kernel(k, [](auto x, auto y) {
    using A = decltype(x);
    if constexpr (std::is_integral_v<A>)
      return static_cast<A>(x | y);
    else
      return x;
  });
}
void bitwise_xor_kernel(const KernelArgs& k) {
  ops::binary_kernel(k, [](auto x, auto y) {
    using A = decltype(x);
    if constexpr (std::is_integral_v<A>)
      return static_cast<A>(x ^ y);
    else
      return x;
  });
}
void left_shift_kernel(const KernelArgs& k) {
  ops::binary_kernel(k, [](auto x, auto y) {
    using A = decltype(x);
    if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>)
      return math::shift_left(x, y);
    else
      return x;
  });
}
void right_shift_kernel(const KernelArgs& k) {
  ops::binary_kernel(k, [](auto x, auto y) {
    using A = decltype(x);
    if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>)
      return math::shift_right(x, y);
    else
      return x;
  });
}
void bitwise_not_kernel(const KernelArgs& k) {
  unary_kernel(k, [](auto x) {
    using A = decltype(x);
    if constexpr (std::is_same_v<A, bool>)
      return !x;
    else if constexpr (std::is_integral_v<A>)
      return static_cast<A>(~x);
    else
      return x;
  });
}
void float_class_kernel(const KernelArgs& k) {
  switch (static_cast<ops::FloatClass>(k.attr(0).i)) {
    case ops::FloatClass::IsNan:
      return unary_kernel<Types::Floating>(k, [](auto x) -> bool { return x != x; });
    case ops::FloatClass::IsInf:
      return unary_kernel<Types::Floating>(k, [](auto x) -> bool { return std::fabs(x) == INFINITY; });
    case ops::FloatClass::IsFinite:
      return unary_kernel<Types::Floating>(k, [](auto x) -> bool { return x - x == 0; });
    case ops::FloatClass::IsPosInf:
      return unary_kernel<Types::Floating>(k, [](auto x) -> bool { return x == INFINITY; });
    case ops::FloatClass::IsNegInf:
      return unary_kernel<Types::Floating>(k, [](auto x) -> bool { return x == -INFINITY; });
  }
}
void nan_to_num_kernel(const KernelArgs& k) {
  const double nan = k.attr(0).f, pos = k.attr(1).f, neg = k.attr(2).f;
  dispatch_floating(k.input(0).dtype(), "nan_to_num", [&](auto tag) {
    using C = decltype(tag);
    using A = acc_t<C>;
    // The replacements rounded to the input's dtype first (torch converts them to scalar_t).
    const A n = static_cast<A>(convert<C, double>(nan)), p = static_cast<A>(convert<C, double>(pos)),
            m = static_cast<A>(convert<C, double>(neg));
    ops::map_unary<C, C>(k.output(0), k.input(0),
                         [n, p, m](A x) { return x != x ? n : (x == INFINITY ? p : (x == -INFINITY ? m : x)); });
  });
}

void lerp_scalar_kernel(const KernelArgs& k) {
  const double w = k.attr(0).f;
  ops::binary_kernel<Types::Floating>(k, [w](auto s, auto e) {
    using A = decltype(s);
    return math::lerp<A>(s, e, static_cast<A>(w));
  });
}
void lerp_kernel(const KernelArgs& k) {
  dispatch_floating(k.output(0).dtype(), "lerp", [&](auto tag) {
    using C = decltype(tag);
    using A = acc_t<C>;
    ops::map_ternary<C, C, C, C>(k.output(0), k.input(0), k.input(1), k.input(2),
                                 [](A s, A e, A w) { return math::lerp<A>(s, e, w); });
  });
}

}  // namespace glia::cpu
