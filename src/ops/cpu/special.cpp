// Elementwise and special functions (ops/special.h): meta parts and CPU
// kernels. The per-element formulas live in core/special_math.h (shared with
// the CUDA backend); the loops are map_unary's / map_binary's.
#include "ops/special.h"

#include <cmath>
#include <cstring>

#include "core/special_math.h"
#include "ops/cpu/loops.h"
#include "ops/elementwise.h"
#include "ops/iter.h"

namespace glia::ops {

namespace {
struct SpecialInfo {
  KernelId id;
  const char* name;
  const char* kernel;
};
const SpecialInfo& sinfo(SpecialBinary op) {
  static const SpecialInfo table[] = {
      {KernelId::logaddexp, "logaddexp", "logaddexp_cpu"}, {KernelId::logaddexp2, "logaddexp2", "logaddexp2_cpu"},
      {KernelId::heaviside, "heaviside", "heaviside_cpu"}, {KernelId::nextafter, "nextafter", "nextafter_cpu"},
      {KernelId::igamma, "igamma", "igamma_cpu"},          {KernelId::igammac, "igammac", "igammac_cpu"},
  };
  return table[static_cast<int>(op)];
}
DType float_of(DType t) { return is_floating(t) ? t : DType::Float32; }
}  // namespace

const char* special_binary_name(SpecialBinary op) { return sinfo(op).name; }

Tensor special_binary(SpecialBinary op, const Tensor& a, const Tensor& b) {
  const SpecialInfo& m = sinfo(op);
  if (op == SpecialBinary::Heaviside) {
    GLIA_CHECK(a.dtype() == b.dtype(), DType, "heaviside is not yet implemented for tensors with different dtypes.");
    return binary_meta(m.id, m.name, a, b, a.dtype(), a.dtype());
  }
  const DType t = result_type(a, b);
  if (!is_floating(t)) not_implemented_for(m.kernel, t);
  return binary_meta(m.id, m.name, a, b, t, t);
}

std::pair<Tensor, Tensor> frexp(const Tensor& a) {
  GLIA_CHECK(is_floating(a.dtype()), DType, "torch.frexp() only supports floating-point dtypes");
  Tensor mantissa = empty(a.shape(), a.dtype(), a.device());
  Tensor exponent = empty(a.shape(), DType::Int32, a.device());
  if (a.numel() > 0) run_kernel(KernelId::frexp, a.device(), {&a}, {&mantissa, &exponent});
  return {mantissa, exponent};
}

Tensor polygamma(int64_t n, const Tensor& a) {
  GLIA_CHECK(n >= 0, InvalidArgument, "polygamma(n, x) does not support negative n.");
  const DType f = float_of(a.dtype());
  return unary_meta(KernelId::polygamma, a, f, f, {attr_i(n)});
}

Tensor mvlgamma(const Tensor& a, int64_t p) {
  GLIA_CHECK(a.dtype() != DType::Bool, DType, "The input tensor may not be a boolean tensor.");
  GLIA_CHECK(p >= 1, InvalidArgument, "p has to be greater than or equal to 1");
  const DType f = float_of(a.dtype());
  return unary_meta(KernelId::mvlgamma, a, f, f, {attr_i(p)});
}

Tensor i0(const Tensor& a) { return unary_meta(KernelId::i0, a, float_of(a.dtype()), float_of(a.dtype())); }
Tensor i1(const Tensor& a) { return unary_meta(KernelId::i1, a, float_of(a.dtype()), float_of(a.dtype())); }
Tensor sinc(const Tensor& a) { return unary_meta(KernelId::sinc, a, float_of(a.dtype()), float_of(a.dtype())); }

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::Types;
using ops::unary_kernel;

void logaddexp_kernel(const KernelArgs& k) {
  ops::binary_kernel<Types::Floating>(k, [](auto x, auto y) { return math::logaddexp(x, y); });
}
void logaddexp2_kernel(const KernelArgs& k) {
  ops::binary_kernel<Types::Floating>(k, [](auto x, auto y) { return math::logaddexp2(x, y); });
}
void heaviside_kernel(const KernelArgs& k) {
  ops::binary_kernel(k, [](auto x, auto v) {
    using A = decltype(x);
    if constexpr (std::is_same_v<A, bool>)
      return static_cast<A>(x ? true : v);
    else
      return math::heaviside(x, v);
  });
}
void nextafter_kernel(const KernelArgs& k) {
  const Tensor &out = k.output(0), &x = k.input(0), &y = k.input(1);
  // float16 / bfloat16 step in their own format: one unit in their last place.
  if (x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16) {
    dispatch_floating(x.dtype(), "nextafter", [&](auto ctag) {
      using C = decltype(ctag);
      ops::map_binary<C, C>(out, x, y, [](float a, float b) -> float {
        if (a != a || b != b) return a + b;
        if (a == b) return b;
        const C ca = static_cast<C>(a);
        uint16_t bits = 0;
        std::memcpy(&bits, &ca, sizeof bits);
        bits = math::nextafter_bits16(a, b, bits);
        C r;
        std::memcpy(&r, &bits, sizeof bits);
        return static_cast<float>(r);
      });
    });
    return;
  }
  ops::binary_kernel<Types::Floating>(k, [](auto a, auto b) { return std::nextafter(a, b); });
}
void frexp_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &m = k.output(0), &e = k.output(1);
  dispatch_floating(x.dtype(), "frexp", [&](auto ctag) {
    using C = decltype(ctag);
    ops::map_unary<C, C>(m, x, [](auto v) { return math::frexp_mantissa(v); });
    ops::map_unary<int32_t, C>(e, x, [](auto v) { return math::frexp_exponent(v); });
  });
}
void polygamma_kernel(const KernelArgs& k) {
  const int64_t n = k.attr(0).i;
  unary_kernel<Types::Floating>(k, [n](auto x) { return math::polygamma(n, x); });
}
void mvlgamma_kernel(const KernelArgs& k) {
  const int64_t p = k.attr(0).i;
  unary_kernel<Types::Floating>(k, [p](auto x) { return math::mvlgamma(x, p); });
}
void i0_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) { return math::i0(x); });
}
void i1_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) { return math::i1(x); });
}
void sinc_kernel(const KernelArgs& k) {
  unary_kernel<Types::Floating>(k, [](auto x) { return math::sinc(x); });
}
void igamma_kernel(const KernelArgs& k) {
  ops::binary_kernel<Types::Floating>(k, [](auto a, auto x) { return math::igamma(a, x); });
}
void igammac_kernel(const KernelArgs& k) {
  ops::binary_kernel<Types::Floating>(k, [](auto a, auto x) { return math::igammac(a, x); });
}

}  // namespace glia::cpu
