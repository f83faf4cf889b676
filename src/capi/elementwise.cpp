// C entry points of the elementwise family: scalar operands, math, pow, clamp,
// maximum/minimum, where, comparisons, logic, and the in-place arithmetic.
#include <optional>

#include "autograd/functions.h"
#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

namespace {

template <class F>
glia_error* with_scalar(const glia_tensor* a, const glia_scalar& s, const char* s_name, glia_tensor** out,
                        const char* fn, F f) {
  return guard([&] {
    Tensor x = tensor_arg(a, fn, "a");
    Scalar v = scalar_arg(s, fn, s_name);
    check_out(out, fn, "out");
    *out = tensor_handle(f(x, v));
  });
}

std::optional<Scalar> scalar_opt(const glia_scalar* s, const char* fn, const char* arg) {
  if (!s) return std::nullopt;
  return scalar_arg(*s, fn, arg);
}

glia_error* cmp(const glia_tensor* a, const glia_tensor* b, glia_tensor** out, const char* fn, ops::Cmp op) {
  return binary_entry(a, b, out, fn, [op](const Tensor& x, const Tensor& y) { return glia::compare(x, y, op); });
}
glia_error* cmp_scalar(const glia_tensor* a, glia_scalar s, glia_tensor** out, const char* fn, ops::Cmp op) {
  return with_scalar(a, s, "other", out, fn,
                     [op](const Tensor& x, const Scalar& v) { return glia::compare_scalar(x, v, op); });
}

}  // namespace

extern "C" {

// ---- scalar operands

glia_error* glia_add_scalar(const glia_tensor* a, glia_scalar s, double alpha, glia_tensor** out) {
  return with_scalar(a, s, "s", out, "glia_add_scalar",
                     [&](const Tensor& x, const Scalar& v) { return add_scalar(x, v, alpha); });
}
glia_error* glia_sub_scalar(const glia_tensor* a, glia_scalar s, double alpha, glia_tensor** out) {
  return with_scalar(a, s, "s", out, "glia_sub_scalar",
                     [&](const Tensor& x, const Scalar& v) { return sub_scalar(x, v, alpha); });
}
glia_error* glia_rsub_scalar(const glia_tensor* a, glia_scalar s, double alpha, glia_tensor** out) {
  return with_scalar(a, s, "s", out, "glia_rsub_scalar",
                     [&](const Tensor& x, const Scalar& v) { return rsub_scalar(x, v, alpha); });
}
glia_error* glia_mul_scalar(const glia_tensor* a, glia_scalar s, glia_tensor** out) {
  return with_scalar(a, s, "s", out, "glia_mul_scalar",
                     [&](const Tensor& x, const Scalar& v) { return mul_scalar(x, v); });
}
glia_error* glia_div_scalar(const glia_tensor* a, glia_scalar s, const char* rounding_mode, glia_tensor** out) {
  return with_scalar(a, s, "s", out, "glia_div_scalar",
                     [&](const Tensor& x, const Scalar& v) { return div_scalar(x, v, rounding_mode); });
}

// ---- math

#define GLIA_UNARY(op)                                                              \
  glia_error* glia_##op(const glia_tensor* a, glia_tensor** out) {                  \
    return unary_entry(a, out, "glia_" #op, [](const Tensor& x) { return op(x); }); \
  }
GLIA_UNARY(abs)
GLIA_UNARY(sign)
GLIA_UNARY(exp)
GLIA_UNARY(log)
GLIA_UNARY(log1p)
GLIA_UNARY(expm1)
GLIA_UNARY(sqrt)
GLIA_UNARY(rsqrt)
GLIA_UNARY(logical_not)

glia_error* glia_pow(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_pow", [](const Tensor& x, const Tensor& y) { return pow(x, y); });
}
glia_error* glia_pow_scalar(const glia_tensor* a, glia_scalar exponent, glia_tensor** out) {
  return with_scalar(a, exponent, "exponent", out, "glia_pow_scalar",
                     [](const Tensor& x, const Scalar& e) { return pow_scalar(x, e); });
}
glia_error* glia_scalar_pow(glia_scalar base, const glia_tensor* exponent, glia_tensor** out) {
  return guard([&] {
    Scalar b = scalar_arg(base, "glia_scalar_pow", "base");
    Tensor e = tensor_arg(exponent, "glia_scalar_pow", "exponent");
    check_out(out, "glia_scalar_pow", "out");
    *out = tensor_handle(scalar_pow(b, e));
  });
}

glia_error* glia_clamp(const glia_tensor* a, const glia_scalar* min, const glia_scalar* max, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_clamp", "a");
    auto lo = scalar_opt(min, "glia_clamp", "min");
    auto hi = scalar_opt(max, "glia_clamp", "max");
    check_out(out, "glia_clamp", "out");
    *out = tensor_handle(clamp(x, lo, hi));
  });
}
glia_error* glia_clamp_tensor(const glia_tensor* a, const glia_tensor* min, const glia_tensor* max, glia_tensor** out) {
  return guard([&] {
    Tensor x = tensor_arg(a, "glia_clamp_tensor", "a");
    Tensor lo = tensor_opt(min, "glia_clamp_tensor", "min");
    Tensor hi = tensor_opt(max, "glia_clamp_tensor", "max");
    check_out(out, "glia_clamp_tensor", "out");
    *out = tensor_handle(clamp_tensor(x, lo, hi));
  });
}

glia_error* glia_maximum(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_maximum", [](const Tensor& x, const Tensor& y) { return maximum(x, y); });
}
glia_error* glia_minimum(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_minimum", [](const Tensor& x, const Tensor& y) { return minimum(x, y); });
}
glia_error* glia_where(const glia_tensor* condition, const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return guard([&] {
    Tensor c = tensor_arg(condition, "glia_where", "condition");
    Tensor x = tensor_arg(a, "glia_where", "a");
    Tensor y = tensor_arg(b, "glia_where", "b");
    check_out(out, "glia_where", "out");
    *out = tensor_handle(where(c, x, y));
  });
}

// ---- comparisons and logic

glia_error* glia_eq(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return cmp(a, b, out, "glia_eq", ops::Cmp::Eq);
}
glia_error* glia_ne(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return cmp(a, b, out, "glia_ne", ops::Cmp::Ne);
}
glia_error* glia_lt(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return cmp(a, b, out, "glia_lt", ops::Cmp::Lt);
}
glia_error* glia_le(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return cmp(a, b, out, "glia_le", ops::Cmp::Le);
}
glia_error* glia_gt(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return cmp(a, b, out, "glia_gt", ops::Cmp::Gt);
}
glia_error* glia_ge(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return cmp(a, b, out, "glia_ge", ops::Cmp::Ge);
}
glia_error* glia_eq_scalar(const glia_tensor* a, glia_scalar s, glia_tensor** out) {
  return cmp_scalar(a, s, out, "glia_eq_scalar", ops::Cmp::Eq);
}
glia_error* glia_ne_scalar(const glia_tensor* a, glia_scalar s, glia_tensor** out) {
  return cmp_scalar(a, s, out, "glia_ne_scalar", ops::Cmp::Ne);
}
glia_error* glia_lt_scalar(const glia_tensor* a, glia_scalar s, glia_tensor** out) {
  return cmp_scalar(a, s, out, "glia_lt_scalar", ops::Cmp::Lt);
}
glia_error* glia_le_scalar(const glia_tensor* a, glia_scalar s, glia_tensor** out) {
  return cmp_scalar(a, s, out, "glia_le_scalar", ops::Cmp::Le);
}
glia_error* glia_gt_scalar(const glia_tensor* a, glia_scalar s, glia_tensor** out) {
  return cmp_scalar(a, s, out, "glia_gt_scalar", ops::Cmp::Gt);
}
glia_error* glia_ge_scalar(const glia_tensor* a, glia_scalar s, glia_tensor** out) {
  return cmp_scalar(a, s, out, "glia_ge_scalar", ops::Cmp::Ge);
}
glia_error* glia_logical_and(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_logical_and",
                      [](const Tensor& x, const Tensor& y) { return glia::logical(x, y, ops::Logic::And); });
}
glia_error* glia_logical_or(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_logical_or",
                      [](const Tensor& x, const Tensor& y) { return glia::logical(x, y, ops::Logic::Or); });
}
glia_error* glia_logical_xor(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) {
  return binary_entry(a, b, out, "glia_logical_xor",
                      [](const Tensor& x, const Tensor& y) { return glia::logical(x, y, ops::Logic::Xor); });
}

// ---- activations

GLIA_UNARY(relu)
GLIA_UNARY(silu)
GLIA_UNARY(hardswish)
GLIA_UNARY(sigmoid)
GLIA_UNARY(tanh)
#undef GLIA_UNARY

glia_error* glia_leaky_relu(const glia_tensor* a, double negative_slope, glia_tensor** out) {
  return unary_entry(a, out, "glia_leaky_relu", [&](const Tensor& x) { return leaky_relu(x, negative_slope); });
}
glia_error* glia_elu(const glia_tensor* a, double alpha, double scale, double input_scale, glia_tensor** out) {
  return unary_entry(a, out, "glia_elu", [&](const Tensor& x) { return elu(x, alpha, scale, input_scale); });
}
glia_error* glia_gelu(const glia_tensor* a, const char* approximate, glia_tensor** out) {
  return unary_entry(a, out, "glia_gelu", [&](const Tensor& x) {
    std::string mode = approximate ? approximate : "none";
    GLIA_CHECK(mode == "none" || mode == "tanh", InvalidArgument, "approximate argument must be either none or tanh.");
    return gelu(x, mode == "tanh");
  });
}
glia_error* glia_softplus(const glia_tensor* a, double beta, double threshold, glia_tensor** out) {
  return unary_entry(a, out, "glia_softplus", [&](const Tensor& x) { return softplus(x, beta, threshold); });
}
glia_error* glia_hardtanh(const glia_tensor* a, double min_val, double max_val, glia_tensor** out) {
  return unary_entry(a, out, "glia_hardtanh", [&](const Tensor& x) { return hardtanh(x, min_val, max_val); });
}

// ---- in place

glia_error* glia_sub_(glia_tensor* self, const glia_tensor* other, double alpha) {
  return guard([&] { sub_(tensor_arg(self, "glia_sub_", "self"), tensor_arg(other, "glia_sub_", "other"), alpha); });
}
glia_error* glia_div_(glia_tensor* self, const glia_tensor* other) {
  return guard([&] { div_(tensor_arg(self, "glia_div_", "self"), tensor_arg(other, "glia_div_", "other")); });
}
glia_error* glia_add_scalar_(glia_tensor* self, glia_scalar s, double alpha) {
  return guard([&] {
    Tensor t = tensor_arg(self, "glia_add_scalar_", "self");
    add_scalar_(t, scalar_arg(s, "glia_add_scalar_", "s"), alpha);
  });
}
glia_error* glia_mul_scalar_(glia_tensor* self, glia_scalar s) {
  return guard([&] {
    Tensor t = tensor_arg(self, "glia_mul_scalar_", "self");
    mul_scalar_(t, scalar_arg(s, "glia_mul_scalar_", "s"));
  });
}
glia_error* glia_addcmul_(glia_tensor* self, const glia_tensor* tensor1, const glia_tensor* tensor2,
                          glia_scalar value) {
  return guard([&] {
    const char* fn = "glia_addcmul_";
    Tensor t = tensor_arg(self, fn, "self");
    addcmul_(t, tensor_arg(tensor1, fn, "tensor1"), tensor_arg(tensor2, fn, "tensor2"), scalar_arg(value, fn, "value"));
  });
}
glia_error* glia_addcdiv_(glia_tensor* self, const glia_tensor* tensor1, const glia_tensor* tensor2,
                          glia_scalar value) {
  return guard([&] {
    const char* fn = "glia_addcdiv_";
    Tensor t = tensor_arg(self, fn, "self");
    addcdiv_(t, tensor_arg(tensor1, fn, "tensor1"), tensor_arg(tensor2, fn, "tensor2"), scalar_arg(value, fn, "value"));
  });
}
glia_error* glia_zero_(glia_tensor* self) {
  return guard([&] { zero_(tensor_arg(self, "glia_zero_", "self")); });
}
glia_error* glia_fill_(glia_tensor* self, glia_scalar value) {
  return guard([&] {
    Tensor t = tensor_arg(self, "glia_fill_", "self");
    fill_(t, scalar_arg(value, "glia_fill_", "value"));
  });
}
glia_error* glia_copy_(glia_tensor* self, const glia_tensor* src) {
  return guard([&] { copy_(tensor_arg(self, "glia_copy_", "self"), tensor_arg(src, "glia_copy_", "src")); });
}
glia_error* glia_clamp_(glia_tensor* self, const glia_scalar* min, const glia_scalar* max) {
  return guard([&] {
    Tensor t = tensor_arg(self, "glia_clamp_", "self");
    auto lo = scalar_opt(min, "glia_clamp_", "min");
    auto hi = scalar_opt(max, "glia_clamp_", "max");
    clamp_(t, lo, hi);
  });
}
glia_error* glia_relu_(glia_tensor* self) {
  return guard([&] { relu_(tensor_arg(self, "glia_relu_", "self")); });
}

// ---- unary floating math and rounding (autograd/fn/math.h)

#define GLIA_MATH(op, Op)                                                                                    \
  glia_error* glia_##op(const glia_tensor* a, glia_tensor** out) {                                           \
    return unary_entry(a, out, "glia_" #op, [](const Tensor& x) { return glia::math(ops::MathOp::Op, x); }); \
  }                                                                                                          \
  glia_error* glia_##op##_(glia_tensor* self) {                                                              \
    return guard([&] { math_(ops::MathOp::Op, tensor_arg(self, "glia_" #op "_", "self")); });                \
  }
GLIA_MATH(sin, Sin)
GLIA_MATH(cos, Cos)
GLIA_MATH(tan, Tan)
GLIA_MATH(asin, Asin)
GLIA_MATH(acos, Acos)
GLIA_MATH(atan, Atan)
GLIA_MATH(sinh, Sinh)
GLIA_MATH(cosh, Cosh)
GLIA_MATH(asinh, Asinh)
GLIA_MATH(acosh, Acosh)
GLIA_MATH(atanh, Atanh)
GLIA_MATH(exp2, Exp2)
GLIA_MATH(log2, Log2)
GLIA_MATH(log10, Log10)
GLIA_MATH(erf, Erf)
GLIA_MATH(erfc, Erfc)
GLIA_MATH(erfinv, Erfinv)
GLIA_MATH(lgamma, Lgamma)
GLIA_MATH(digamma, Digamma)
GLIA_MATH(trunc, Trunc)
GLIA_MATH(frac, Frac)
GLIA_MATH(floor, Floor)
GLIA_MATH(ceil, Ceil)
#undef GLIA_MATH

glia_error* glia_round(const glia_tensor* a, int64_t decimals, glia_tensor** out) {
  return unary_entry(a, out, "glia_round", [&](const Tensor& x) { return round_decimals(x, decimals); });
}
glia_error* glia_round_(glia_tensor* self, int64_t decimals) {
  return guard([&] { round_decimals_(tensor_arg(self, "glia_round_", "self"), decimals); });
}
glia_error* glia_logit(const glia_tensor* a, double eps, glia_tensor** out) {
  return unary_entry(a, out, "glia_logit", [&](const Tensor& x) { return logit(x, eps); });
}
glia_error* glia_logit_(glia_tensor* self, double eps) {
  return guard([&] { logit_(tensor_arg(self, "glia_logit_", "self"), eps); });
}

// ---- binary math, bitwise ops, predicates (autograd/fn/math.h)

#define GLIA_BINARY_MATH(fn, Op)                                                         \
  glia_error* glia_##fn(const glia_tensor* a, const glia_tensor* b, glia_tensor** out) { \
    return binary_entry(a, b, out, "glia_" #fn, [](const Tensor& x, const Tensor& y) {   \
      return glia::binary_math(ops::BinaryMathOp::Op, x, y);                             \
    });                                                                                  \
  }
GLIA_BINARY_MATH(atan2, Atan2)
GLIA_BINARY_MATH(hypot, Hypot)
GLIA_BINARY_MATH(copysign, Copysign)
GLIA_BINARY_MATH(xlogy, Xlogy)
GLIA_BINARY_MATH(fmod, Fmod)
GLIA_BINARY_MATH(remainder, Remainder)
GLIA_BINARY_MATH(fmax, Fmax)
GLIA_BINARY_MATH(fmin, Fmin)
GLIA_BINARY_MATH(bitwise_and, BitwiseAnd)
GLIA_BINARY_MATH(bitwise_or, BitwiseOr)
GLIA_BINARY_MATH(bitwise_xor, BitwiseXor)
GLIA_BINARY_MATH(bitwise_left_shift, LeftShift)
GLIA_BINARY_MATH(bitwise_right_shift, RightShift)
#undef GLIA_BINARY_MATH

glia_error* glia_bitwise_not(const glia_tensor* a, glia_tensor** out) {
  return unary_entry(a, out, "glia_bitwise_not", [](const Tensor& x) { return bitwise_not(x); });
}

#define GLIA_FLOAT_CLASS(fn, C)                                                                                        \
  glia_error* glia_##fn(const glia_tensor* a, glia_tensor** out) {                                                     \
    return unary_entry(a, out, "glia_" #fn, [](const Tensor& x) { return glia::float_class(ops::FloatClass::C, x); }); \
  }
GLIA_FLOAT_CLASS(isnan, IsNan)
GLIA_FLOAT_CLASS(isinf, IsInf)
GLIA_FLOAT_CLASS(isfinite, IsFinite)
GLIA_FLOAT_CLASS(isposinf, IsPosInf)
GLIA_FLOAT_CLASS(isneginf, IsNegInf)
#undef GLIA_FLOAT_CLASS

glia_error* glia_isclose(const glia_tensor* a, const glia_tensor* b, double rtol, double atol, int32_t equal_nan,
                         glia_tensor** out) {
  return binary_entry(a, b, out, "glia_isclose",
                      [&](const Tensor& x, const Tensor& y) { return isclose(x, y, rtol, atol, equal_nan != 0); });
}
glia_error* glia_nan_to_num(const glia_tensor* a, double nan, const double* posinf, const double* neginf,
                            glia_tensor** out) {
  return unary_entry(a, out, "glia_nan_to_num", [&](const Tensor& x) { return nan_to_num(x, nan, posinf, neginf); });
}

glia_error* glia_lerp(const glia_tensor* start, const glia_tensor* end, const glia_tensor* weight, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_lerp";
    Tensor s = tensor_arg(start, fn, "start"), e = tensor_arg(end, fn, "end"), w = tensor_arg(weight, fn, "weight");
    check_out(out, fn, "out");
    *out = tensor_handle(lerp(s, e, w));
  });
}
glia_error* glia_lerp_scalar(const glia_tensor* start, const glia_tensor* end, double weight, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_lerp_scalar";
    Tensor s = tensor_arg(start, fn, "start"), e = tensor_arg(end, fn, "end");
    check_out(out, fn, "out");
    *out = tensor_handle(lerp_scalar(s, e, weight));
  });
}

}  // extern "C"
