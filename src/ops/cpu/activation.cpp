// Activations (relu, leaky_relu, elu, gelu, silu, softplus, hardtanh) and the
// fused first-order backward kernels of the activations.
#include <cmath>
#include <type_traits>

#include "ops/cpu/cpu_features.h"
#include "ops/cpu/loops.h"
#include "ops/elementwise.h"

namespace glia::ops {

namespace {

// torch's message for a floating-only CPU kernel given another dtype.
void check_floating(const char* kernel, DType t) {
  if (!is_floating(t)) not_implemented_for(kernel, t);
}

// f instantiated for floating acc types only (the dtype dispatch also names the
// integer types, which these kernels reject before running).
template <class F>
auto floating_only(F f) {
  return [f](auto... xs) {
    using A = std::common_type_t<decltype(xs)...>;
    if constexpr (std::is_floating_point_v<A>)
      return static_cast<A>(f(xs...));
    else
      return A(0);
  };
}

// The meta part of a floating-only activation.
Tensor float_meta(KernelId id, const char* kernel, const Tensor& a, std::initializer_list<Attr> attrs = {}) {
  check_floating(kernel, a.dtype());
  return unary_meta(id, a, a.dtype(), a.dtype(), attrs);
}

// The meta part of a fused backward kernel: grad converted to x's (floating) dtype, broadcast.
Tensor backward_meta(KernelId id, const Tensor& grad, const Tensor& x, std::initializer_list<Attr> attrs = {}) {
  DType t = x.dtype();
  GLIA_CHECK(is_floating(t), DType, "backward of an activation on a non-floating tensor");
  return binary_meta(id, "backward", grad, x, t, t, attrs);
}

// GCC 12's avx512fintrin.h trips -Wuninitialized on its own _mm512_undefined_* placeholders.
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // a GCC-only warning group
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

bool has_avx512f() { return cpu_features().avx512f; }

// Note [relu fast paths]: relu and its backward (threshold_backward) on contiguous float32 CPU
// tensors of one shape run AVX-512 loops (the generic maps compile to SSE2); same rule as the
// generic lambdas: x <= t gives 0 (-0 and NaN compare as in C: NaN stays NaN, the gradient passes).
bool relu_fast(const Tensor& a) {
  return a.dtype() == DType::Float32 && a.is_contiguous() && a.device().is_cpu() && has_avx512f();
}

// out[i] = x[i] <= t ? 0 : g[i] over [b, e) (for relu g == x and t == 0).
#if GLIA_X86
__attribute__((target("avx512f"))) void threshold_avx512(const float* __restrict x, const float* __restrict g, float t,
                                                         int64_t b, int64_t e, float* __restrict out) {
  const __m512 tv = _mm512_set1_ps(t);
  int64_t i = b;
  for (; i + 16 <= e; i += 16) {
    const __mmask16 le = _mm512_cmp_ps_mask(_mm512_loadu_ps(x + i), tv, _CMP_LE_OQ);
    _mm512_storeu_ps(out + i, _mm512_maskz_loadu_ps(static_cast<__mmask16>(~le), g + i));
  }
  if (i < e) {
    const __mmask16 m = static_cast<__mmask16>((1u << (e - i)) - 1);
    const __mmask16 le = _mm512_mask_cmp_ps_mask(m, _mm512_maskz_loadu_ps(m, x + i), tv, _CMP_LE_OQ);
    _mm512_mask_storeu_ps(out + i, m, _mm512_maskz_loadu_ps(static_cast<__mmask16>(m & ~le), g + i));
  }
}
#else
void threshold_avx512(const float* __restrict x, const float* __restrict g, float t, int64_t b, int64_t e,
                      float* __restrict out) {
  x86_only();
}
#endif

// out = (x <= t ? 0 : g): float32, contiguous, one shape (relu_fast(x)).
void threshold_fast(const Tensor& out, const Tensor& x, const Tensor& g, float t) {
  const float* xp = x.data_ptr<float>();
  const float* gp = g.data_ptr<float>();
  float* op = out.data_ptr<float>();
  parallel_for(0, x.numel(), 4 * kGrain, [&](int64_t b, int64_t e) { threshold_avx512(xp, gp, t, b, e, op); });
}

constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
constexpr double kGeluBeta = 0.79788456080286535588;    // sqrt(2 / pi)
constexpr double kGeluKappa = 0.044715;

}  // namespace

// ---- meta parts (Note [Op = meta + kernel + rule])

Tensor relu(const Tensor& a) {
  GLIA_CHECK(a.dtype() != DType::Bool, DType, "Boolean inputs not supported for relu");
  Tensor out = empty(a.shape(), a.dtype(), a.device());
  run_kernel(KernelId::relu, a.device(), {&a}, {&out});
  return out;
}

void relu_(const Tensor& self) {
  GLIA_CHECK(self.dtype() != DType::Bool, DType, "Boolean inputs not supported for relu");
  run_kernel(KernelId::relu, self.device(), {&self}, {&self});
}

Tensor leaky_relu(const Tensor& a, double slope) {
  return float_meta(KernelId::leaky_relu, "leaky_relu_cpu", a, {attr_f(slope)});
}

Tensor elu(const Tensor& a, double alpha, double scale, double input_scale) {
  return float_meta(KernelId::elu, "elu_cpu", a, {attr_f(alpha), attr_f(scale), attr_f(input_scale)});
}

Tensor gelu(const Tensor& a, bool approximate_tanh) {
  return float_meta(KernelId::gelu, "GeluKernelImpl", a, {attr_i(approximate_tanh ? 1 : 0)});
}

Tensor silu(const Tensor& a) { return float_meta(KernelId::silu, "silu_cpu", a); }

Tensor hardswish(const Tensor& a) { return float_meta(KernelId::hardswish, "hardswish_cpu", a); }

Tensor softplus(const Tensor& a, double beta, double threshold) {
  return float_meta(KernelId::softplus, "softplus_cpu", a, {attr_f(beta), attr_f(threshold)});
}

Tensor hardtanh(const Tensor& a, double min_val, double max_val) {
  if (a.dtype() == DType::Bool) not_implemented_for("clamp_cpu", a.dtype());
  // torch computes hardtanh in the input's dtype (the bounds are cast to it).
  Tensor out = empty(a.shape(), a.dtype(), a.device());
  run_kernel(KernelId::hardtanh, a.device(), {&a}, {&out}, {attr_f(min_val), attr_f(max_val)});
  return out;
}

Tensor threshold_backward(const Tensor& grad, const Tensor& x, double threshold) {
  return backward_meta(KernelId::threshold_backward, grad, x, {attr_f(threshold)});
}

Tensor sigmoid_backward(const Tensor& grad, const Tensor& y) {
  return backward_meta(KernelId::sigmoid_backward, grad, y);
}

Tensor tanh_backward(const Tensor& grad, const Tensor& y) { return backward_meta(KernelId::tanh_backward, grad, y); }

Tensor gelu_backward(const Tensor& grad, const Tensor& x, bool approximate_tanh) {
  return backward_meta(KernelId::gelu_backward, grad, x, {attr_i(approximate_tanh ? 1 : 0)});
}

Tensor silu_backward(const Tensor& grad, const Tensor& x) { return backward_meta(KernelId::silu_backward, grad, x); }

Tensor hardswish_backward(const Tensor& grad, const Tensor& x) {
  return backward_meta(KernelId::hardswish_backward, grad, x);
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::floating_only;
using ops::kGeluBeta;
using ops::kGeluKappa;
using ops::kInvSqrt2Pi;
using ops::kSqrt1_2;
using ops::Types;

namespace {
// A floating-only unary kernel (the meta part rejected other dtypes).
template <class F>
void float_kernel(const KernelArgs& k, F f) {
  ops::unary_kernel<Types::Floating>(k, floating_only(f));
}
// A fused backward kernel: f(g, v) with in0 = g, in1 = v.
template <class F>
void backward_kernel(const KernelArgs& k, F f) {
  ops::binary_kernel<Types::Floating>(k, floating_only(f));
}
}  // namespace

void relu_kernel(const KernelArgs& k) {
  const Tensor &out = k.output(0), &a = k.input(0);
  if (ops::relu_fast(a) && out.is_contiguous()) return ops::threshold_fast(out, a, a, 0.0f);  // Note [relu fast paths]
  dispatch_all(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>)
      ops::map_unary<T, T>(out, a, [](auto x) {
        using A = decltype(x);
        return x <= A(0) ? A(0) : x;  // NaN stays NaN
      });
  });
}

void leaky_relu_kernel(const KernelArgs& k) {
  const double slope = k.attr(0).f;
  float_kernel(k, [slope](auto x) {
    using A = decltype(x);
    return x > A(0) ? x : x * static_cast<A>(slope);
  });
}

void elu_kernel(const KernelArgs& k) {
  const double alpha = k.attr(0).f, scale = k.attr(1).f, input_scale = k.attr(2).f;
  float_kernel(k, [alpha, scale, input_scale](auto x) {
    using A = decltype(x);
    return x <= A(0) ? std::expm1(x * static_cast<A>(input_scale)) * static_cast<A>(alpha * scale)
                     : x * static_cast<A>(scale);
  });
}

void gelu_kernel(const KernelArgs& k) {
  if (k.attr(0).i)
    return float_kernel(k, [](auto x) {
      using A = decltype(x);
      A inner = static_cast<A>(kGeluBeta) * (x + static_cast<A>(kGeluKappa) * x * x * x);
      return A(0.5) * x * (A(1) + std::tanh(inner));
    });
  float_kernel(k, [](auto x) {
    using A = decltype(x);
    return x * A(0.5) * (A(1) + std::erf(x * static_cast<A>(kSqrt1_2)));
  });
}

void silu_kernel(const KernelArgs& k) {
  float_kernel(k, [](auto x) {
    using A = decltype(x);
    return x / (A(1) + std::exp(-x));
  });
}

void softplus_kernel(const KernelArgs& k) {
  const double beta = k.attr(0).f, threshold = k.attr(1).f;
  float_kernel(k, [beta, threshold](auto x) {
    using A = decltype(x);
    const A b = static_cast<A>(beta);
    return x * b > static_cast<A>(threshold) ? x : std::log1p(std::exp(x * b)) / b;
  });
}

void hardtanh_kernel(const KernelArgs& k) {
  const Tensor &out = k.output(0), &a = k.input(0);
  const double min_val = k.attr(0).f, max_val = k.attr(1).f;
  dispatch_all(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const A lo = static_cast<A>(convert<T, double>(min_val)), hi = static_cast<A>(convert<T, double>(max_val));
    ops::map_unary<T, T>(out, a, [lo, hi](A x) {
      A v = x < lo ? lo : x;  // NaN compares false: it stays NaN
      return v > hi ? hi : v;
    });
  });
}

void threshold_backward_kernel(const KernelArgs& k) {
  const Tensor &out = k.output(0), &grad = k.input(0), &x = k.input(1);
  const double threshold = k.attr(0).f;
  if (ops::relu_fast(x) && grad.is_contiguous() && out.is_contiguous() &&
      static_cast<double>(static_cast<float>(threshold)) == threshold)
    return ops::threshold_fast(out, x, grad, static_cast<float>(threshold));  // Note [relu fast paths]
  backward_kernel(k, [threshold](auto g, auto v) {
    using A = decltype(g);
    return v <= static_cast<A>(threshold) ? A(0) : g;
  });
}

void sigmoid_backward_kernel(const KernelArgs& k) {
  backward_kernel(k, [](auto g, auto v) {
    using A = decltype(g);
    return g * (A(1) - v) * v;
  });
}

void tanh_backward_kernel(const KernelArgs& k) {
  backward_kernel(k, [](auto g, auto v) {
    using A = decltype(g);
    return g * (A(1) - v * v);
  });
}

void gelu_backward_kernel(const KernelArgs& k) {
  if (k.attr(0).i)
    return backward_kernel(k, [](auto g, auto v) {
      using A = decltype(g);
      const A beta = static_cast<A>(kGeluBeta), kappa = static_cast<A>(kGeluKappa);
      A x_sq = v * v;
      A inner = beta * (v + kappa * x_sq * v);
      A t = std::tanh(inner);
      A left = A(0.5) * v;
      A right = A(1) + t;
      A left_derivative = A(0.5) * right;
      A right_derivative = left * (A(1) - t * t) * beta * (A(1) + A(3) * kappa * x_sq);
      return g * (left_derivative + right_derivative);
    });
  backward_kernel(k, [](auto g, auto v) {
    using A = decltype(g);
    A cdf = A(0.5) * (A(1) + std::erf(v * static_cast<A>(kSqrt1_2)));
    A pdf = std::exp(A(-0.5) * v * v) * static_cast<A>(kInvSqrt2Pi);
    return g * (cdf + v * pdf);
  });
}

void silu_backward_kernel(const KernelArgs& k) {
  backward_kernel(k, [](auto g, auto v) {
    using A = decltype(g);
    A s = A(1) / (A(1) + std::exp(-v));
    return g * s * (A(1) + v * (A(1) - s));
  });
}

// torch's hardswish_cpu: x * min(max(x + 3, 0), 6) / 6.
void hardswish_kernel(const KernelArgs& k) {
  float_kernel(k, [](auto x) {
    using A = decltype(x);
    return x * std::min(std::max(x + A(3), A(0)), A(6)) / A(6);
  });
}

// torch's hardswish_backward: 0 below -3, g * (x / 3 + 0.5) up to 3, g above.
void hardswish_backward_kernel(const KernelArgs& k) {
  backward_kernel(k, [](auto g, auto v) {
    using A = decltype(g);
    return v < A(-3) ? A(0) : v <= A(3) ? g * (v / A(3) + A(0.5)) : g;
  });
}

}  // namespace glia::cpu
