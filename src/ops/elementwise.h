// Elementwise kernels (no autograd): broadcasting and torch's type promotion.
//
// Note [Elementwise fast paths]: map_unary / map_binary / map_ternary take a
// plain loop over n elements when every operand is contiguous (or, for
// binary ops, one of them is a broadcast scalar: all strides 0); the loop
// bodies use __restrict pointers so the compiler vectorises them. Anything
// else (transposed, broadcast along some dims) goes through Loop<N>.
#pragma once

#include "core/dispatch.h"
#include "core/scalar.h"
#include "ops/iter.h"

namespace glia::ops {

// body(b, e) over [0, n): serial below kGrain, else parallel_for. The body is
// compiled once, out of line (one call per range): inlined at each of
// parallel_for's call sites it was two or three copies of every vectorised
// loop, for every op and dtype (Note [One kernel per op and dtype]).
template <class F>
inline void flat_for(int64_t n, F&& body) {
  if (n <= 0) return;
  auto once = [&body](int64_t b, int64_t e) __attribute__((noinline)) { body(b, e); };
  if (n < kGrain)
    once(int64_t{0}, n);
  else
    parallel_for(0, n, kGrain, once);
}

// Note [AVX2 float loops]: glia builds for baseline x86-64 (SSE2), so the
// generic loops below vectorise 4 floats wide. For float32 in and out (the
// common case) the contiguous loops also exist compiled for AVX2, 8 wide,
// taken when the CPU has it (checked once). No FMA: x + alpha * y rounds
// twice, as the SSE2 loop and the other dtypes do, so results do not depend
// on the CPU.
bool cpu_has_avx2();  // false off x86, where these loops are plain copies of the generic ones
#if defined(__x86_64__) || defined(__i386__)
#define GLIA_TARGET_AVX2 __attribute__((target("avx2"), noinline))
#else
#define GLIA_TARGET_AVX2 __attribute__((noinline))
#endif

template <class F>
GLIA_TARGET_AVX2 void float_loop_avx2(float* __restrict o, const float* __restrict x, const float* __restrict y,
                                      int64_t b, int64_t e, const F& f) {
  for (int64_t i = b; i < e; ++i) o[i] = static_cast<float>(f(x[i], y[i]));
}
template <class F>
GLIA_TARGET_AVX2 void float_loop_avx2_scalar(float* __restrict o, const float* __restrict x, float y, int64_t b,
                                             int64_t e, const F& f) {
  for (int64_t i = b; i < e; ++i) o[i] = static_cast<float>(f(x[i], y));
}
template <class F>
GLIA_TARGET_AVX2 void float_loop_avx2_unary(float* __restrict o, const float* __restrict x, int64_t b, int64_t e,
                                            const F& f) {
  for (int64_t i = b; i < e; ++i) o[i] = static_cast<float>(f(x[i]));
}

// True when every element of t is the same memory location (a broadcast scalar).
inline bool is_broadcast_scalar(const Tensor& t) {
  for (int64_t s : t.strides())
    if (s != 0) return false;
  return true;
}

// out[i] = f(in[i]); same shape; f works on acc types, the result is converted on store.
template <class Out, class In, class F>
void map_unary(const Tensor& out, const Tensor& in, F f) {
  using A = acc_t<In>;
  const int64_t n = out.numel();
  if (out.is_contiguous() && in.is_contiguous()) {
    Out* __restrict o = out.data_ptr<Out>();
    const In* __restrict a = in.data_ptr<In>();
    if constexpr (std::is_same_v<Out, float> && std::is_same_v<In, float>) {
      if (cpu_has_avx2()) {  // Note [AVX2 float loops]
        flat_for(n, [&](int64_t b, int64_t e) { float_loop_avx2_unary(o, a, b, e, f); });
        return;
      }
    }
    flat_for(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = static_cast<Out>(f(static_cast<A>(a[i])));
    });
    return;
  }
  unary_loop<Out, In>(out, in, f);
}

// out[i] = f(x[i], y[i]); x and y already expanded to out's shape, of element type In.
template <class Out, class In, class F>
void map_binary(const Tensor& out, const Tensor& x, const Tensor& y, F f) {
  using A = acc_t<In>;
  const int64_t n = out.numel();
  if (n == 0) return;  // the broadcast-scalar paths load an element up front
  if (out.is_contiguous()) {
    Out* __restrict o = out.data_ptr<Out>();
    const In* __restrict xp = x.data_ptr<In>();
    const In* __restrict yp = y.data_ptr<In>();
    const bool xc = x.is_contiguous(), yc = y.is_contiguous();
    if constexpr (std::is_same_v<Out, float> && std::is_same_v<In, float>) {
      if (cpu_has_avx2() && xc && (yc || is_broadcast_scalar(y))) {  // Note [AVX2 float loops]
        if (yc)
          flat_for(n, [&](int64_t b, int64_t e) { float_loop_avx2(o, xp, yp, b, e, f); });
        else
          flat_for(n, [&, yv = *yp](int64_t b, int64_t e) { float_loop_avx2_scalar(o, xp, yv, b, e, f); });
        return;
      }
    }
    if (xc && yc) {
      flat_for(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = static_cast<Out>(f(static_cast<A>(xp[i]), static_cast<A>(yp[i])));
      });
      return;
    }
    if (xc && is_broadcast_scalar(y)) {
      const A yv = static_cast<A>(*yp);
      flat_for(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = static_cast<Out>(f(static_cast<A>(xp[i]), yv));
      });
      return;
    }
    if (yc && is_broadcast_scalar(x)) {
      const A xv = static_cast<A>(*xp);
      flat_for(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = static_cast<Out>(f(xv, static_cast<A>(yp[i])));
      });
      return;
    }
  }
  binary_loop<Out, In>(out, x, y, f);
}

// out[i] = f(x[i], y[i], z[i]) with element types X, Y, Z (already expanded to out's shape).
template <class Out, class X, class Y, class Z, class F>
void map_ternary(const Tensor& out, const Tensor& x, const Tensor& y, const Tensor& z, F f) {
  using AX = acc_t<X>;
  using AY = acc_t<Y>;
  using AZ = acc_t<Z>;
  if (out.is_contiguous() && x.is_contiguous() && y.is_contiguous() && z.is_contiguous()) {
    Out* __restrict o = out.data_ptr<Out>();
    const X* __restrict xp = x.data_ptr<X>();
    const Y* __restrict yp = y.data_ptr<Y>();
    const Z* __restrict zp = z.data_ptr<Z>();
    flat_for(out.numel(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        o[i] = static_cast<Out>(f(static_cast<AX>(xp[i]), static_cast<AY>(yp[i]), static_cast<AZ>(zp[i])));
    });
    return;
  }
  // Contiguous operands mixed with broadcast scalars (e.g. where(mask, g, 0)).
  auto ok = [](const Tensor& t) { return t.is_contiguous() || is_broadcast_scalar(t); };
  if (out.is_contiguous() && ok(x) && ok(y) && ok(z) && out.numel() > 0) {
    Out* __restrict o = out.data_ptr<Out>();
    const X* __restrict xp = x.data_ptr<X>();
    const Y* __restrict yp = y.data_ptr<Y>();
    const Z* __restrict zp = z.data_ptr<Z>();
    const int64_t sx = x.is_contiguous(), sy = y.is_contiguous(), sz = z.is_contiguous();
    flat_for(out.numel(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        o[i] =
            static_cast<Out>(f(static_cast<AX>(xp[i * sx]), static_cast<AY>(yp[i * sy]), static_cast<AZ>(zp[i * sz])));
    });
    return;
  }
  Loop<4> loop({&out, &x, &y, &z});
  loop.run([&](const std::array<char*, 4>& p, const std::array<int64_t, 4>& s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      auto xv = static_cast<acc_t<X>>(*reinterpret_cast<const X*>(p[1] + i * s[1]));
      auto yv = static_cast<acc_t<Y>>(*reinterpret_cast<const Y*>(p[2] + i * s[2]));
      auto zv = static_cast<acc_t<Z>>(*reinterpret_cast<const Z*>(p[3] + i * s[3]));
      *reinterpret_cast<Out*>(p[0] + i * s[0]) = static_cast<Out>(f(xv, yv, zv));
    }
  });
}

// Which compute dtypes an op can be asked for: its kernels are instantiated for those only
// (Note [One kernel per op and dtype]). Floating: ops that compute in floating point (integer
// inputs are converted first, or rejected before). Bool: the logical ops.
enum class Types { All, Floating, Bool };

template <Types kTypes, class F>
decltype(auto) dispatch_types(DType t, F&& f) {
  if constexpr (kTypes == Types::Floating) {
    return dispatch_floating(t, "elementwise op", f);
  } else if constexpr (kTypes == Types::Bool) {
    GLIA_CHECK(t == DType::Bool, Internal, "logical op: compute dtype must be bool");
    return f(bool{});
  } else {
    return dispatch_all(t, f);
  }
}

// The meta part of a binary elementwise op (Note [Op = meta + kernel + rule]):
// torch's device rule, broadcasting and promotion to `compute`, the output
// (`out_dtype`: compute, or bool for predicates) allocated on the op's
// device, then kernel `id` with inputs of dtype `compute` expanded to the
// output's shape. ops/elementwise.cpp.
Tensor binary_meta(KernelId id, const char* name, const Tensor& a, const Tensor& b, DType compute, DType out_dtype,
                   std::initializer_list<Attr> attrs = {});
// The same for a unary op: input converted to `compute`.
Tensor unary_meta(KernelId id, const Tensor& a, DType compute, DType out_dtype, std::initializer_list<Attr> attrs = {});

// The same for a ternary op (where, clamp with two bounds): `a` converted to
// `ta`, b and c to `compute`, all broadcast together (torch's order: a, b, c);
// the output has dtype `compute`. Undefined tensors are not allowed here.
Tensor ternary_meta(KernelId id, const char* name, const Tensor& a, const Tensor& b, const Tensor& c, DType ta,
                    DType compute);
// The meta part of in-place arithmetic (self op= other): torch's checks (other
// broadcasts to self's shape, `rt` castable to self's dtype, one device, a 0-dim
// CPU `other` allowed as a scalar), other converted to self's dtype, moved and
// expanded, then kernel `id` with in0 == out == self. An `other` that shares
// self's memory elsewhere than element for element is copied first.
void inplace_meta(KernelId id, const char* name, const Tensor& self, const Tensor& other, DType rt,
                  std::initializer_list<Attr> attrs = {});
// torch's device rule for several tensors (undefined ones skipped): as common_device.
Device common_device(const char* name, std::initializer_list<const Tensor*> ts);

// The CPU body of a binary kernel: f (a generic lambda on acc types) over
// in0, in1 (compute dtype, out's shape) into out (compute dtype, or bool when f is a predicate).
template <Types kTypes = Types::All, class F>
void binary_kernel(const KernelArgs& k, F f) {
  const Tensor &out = k.output(0), &x = k.input(0), &y = k.input(1);
  dispatch_types<kTypes>(x.dtype(), [&](auto ctag) {
    using C = decltype(ctag);
    using A = acc_t<C>;
    if constexpr (std::is_same_v<decltype(f(std::declval<A>(), std::declval<A>())), bool>)
      map_binary<bool, C>(out, x, y, f);
    else
      map_binary<C, C>(out, x, y, f);
  });
}
// The CPU body of a unary kernel.
template <Types kTypes = Types::All, class F>
void unary_kernel(const KernelArgs& k, F f) {
  const Tensor &out = k.output(0), &x = k.input(0);
  dispatch_types<kTypes>(x.dtype(), [&](auto ctag) {
    using C = decltype(ctag);
    using A = acc_t<C>;
    if constexpr (std::is_same_v<decltype(f(std::declval<A>())), bool>)
      map_unary<bool, C>(out, x, f);
    else
      map_unary<C, C>(out, x, f);
  });
}

// Checks torch's in-place rule: the result type `rt` must be castable to self's dtype.
void check_inplace_cast(const char* name, DType rt, DType self);

// ---- arithmetic (binary.cpp)
Tensor add(const Tensor& a, const Tensor& b, double alpha);
Tensor sub(const Tensor& a, const Tensor& b, double alpha);
Tensor mul(const Tensor& a, const Tensor& b);
// rounding_mode: nullptr (true division), "trunc" or "floor".
Tensor div(const Tensor& a, const Tensor& b, const char* rounding_mode);
Tensor neg(const Tensor& a);
// s - alpha * a (torch.rsub with a Scalar).
Tensor rsub(const Tensor& a, const Tensor& s, double alpha);

void add_(const Tensor& self, const Tensor& other, double alpha);
void sub_(const Tensor& self, const Tensor& other, double alpha);
void mul_(const Tensor& self, const Tensor& other);
void div_(const Tensor& self, const Tensor& other);
// self += value * t1 * t2; self += value * t1 / t2.
void addcmul_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
void addcdiv_(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value);
void fill_(const Tensor& self, const Scalar& value);
// self <- src broadcast to self's shape, converted to self's dtype (non_blocking: Note [Non-blocking
// copies] in core/tensor.cpp).
void copy_(const Tensor& self, const Tensor& src, bool non_blocking = false);

// ---- math (unary.cpp). Ops marked "float" give float32 for integer/bool inputs.
Tensor abs(const Tensor& a);
Tensor sign(const Tensor& a);
Tensor exp(const Tensor& a);      // float
Tensor log(const Tensor& a);      // float
Tensor log1p(const Tensor& a);    // float
Tensor expm1(const Tensor& a);    // float
Tensor sqrt(const Tensor& a);     // float
Tensor rsqrt(const Tensor& a);    // float
Tensor erf(const Tensor& a);      // float (internal: gelu's derivative)
Tensor sigmoid(const Tensor& a);  // float
Tensor tanh(const Tensor& a);     // float
// a ** b; either may be a wrapped scalar (torch.pow's three overloads).
Tensor pow(const Tensor& a, const Tensor& b);
// Clamp to [lo, hi]; either bound may be undefined (not both) or a wrapped scalar.
Tensor clamp(const Tensor& a, const Tensor& lo, const Tensor& hi);
void clamp_(const Tensor& self, const Tensor& lo, const Tensor& hi);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

// ---- comparisons and logic (compare.cpp); results are bool.
enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };
Tensor compare(const Tensor& a, const Tensor& b, Cmp op);
enum class Logic { And, Or, Xor };
Tensor logical(const Tensor& a, const Tensor& b, Logic op);
Tensor logical_not(const Tensor& a);

// ---- activations (activation.cpp)
Tensor relu(const Tensor& a);
void relu_(const Tensor& self);
Tensor leaky_relu(const Tensor& a, double negative_slope);
Tensor elu(const Tensor& a, double alpha, double scale, double input_scale);
// approximate: false = "none" (erf), true = "tanh".
Tensor gelu(const Tensor& a, bool approximate_tanh);
Tensor silu(const Tensor& a);
Tensor hardswish(const Tensor& a);
Tensor softplus(const Tensor& a, double beta, double threshold);
Tensor hardtanh(const Tensor& a, double min_val, double max_val);
// Fused first-order backward kernels: the gradient of the input given the output gradient.
Tensor threshold_backward(const Tensor& grad, const Tensor& x, double threshold);  // x <= threshold ? 0 : g
Tensor sigmoid_backward(const Tensor& grad, const Tensor& y);                      // g * y * (1 - y)
Tensor tanh_backward(const Tensor& grad, const Tensor& y);                         // g * (1 - y^2)
Tensor gelu_backward(const Tensor& grad, const Tensor& x, bool approximate_tanh);
Tensor silu_backward(const Tensor& grad, const Tensor& x);
Tensor hardswish_backward(const Tensor& grad, const Tensor& x);

}  // namespace glia::ops
