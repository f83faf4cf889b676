// The element types of the CUDA kernels and glia's conversions between them, compiled by both the host
// compiler and nvcc (host_device.h): float16 and bfloat16 as bit patterns with the same rounding as the core's
// (src/core/half.h), the accumulation type of each dtype (float for the 16-bit floats, as acc_t in
// src/core/dtype.h), torch's element conversion (convert, as the core's) and the wrap-around integer
// arithmetic of Note [Integer wrap-around]. tests/cuda/elementwise_ops_test.cpp checks them on the CPU against
// the core's, bit for bit.
#ifndef GLIA_CUDA_DTYPES_H
#define GLIA_CUDA_DTYPES_H

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "host_device.h"

namespace glia::cuda {

GLIA_HOST_DEVICE uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
GLIA_HOST_DEVICE float bits_f32(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// Storage types: a 16-bit pattern each (the layout of torch's c10::Half and c10::BFloat16).
struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};

GLIA_HOST_DEVICE float bf16_to_float(bf16 h) { return bits_f32(static_cast<uint32_t>(h.bits) << 16); }
GLIA_HOST_DEVICE bf16 float_to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16{0x7fc0};  // torch's canonical quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);                           // round to nearest even
  return bf16{static_cast<uint16_t>(u >> 16)};
}

GLIA_HOST_DEVICE float f16_to_float(f16 h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t exp = (h.bits >> 10) & 0x1fu;
  const uint32_t mant = h.bits & 0x3ffu;
  if (exp == 0x1f) return bits_f32(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return bits_f32(sign);
    const float v = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant * 2^-24, exact
    return sign ? -v : v;
  }
  return bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
}
GLIA_HOST_DEVICE f16 float_to_f16(float f) {
  const uint32_t x = f32_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return f16{static_cast<uint16_t>(sign | 0x7e00u)};   // NaN
  if (abs >= 0x477ff000u) return f16{static_cast<uint16_t>(sign | 0x7c00u)};  // overflow -> inf (incl. rounding)
  if (abs < 0x38800000u) {
    // Subnormal or zero: adding 0.5 (a float add, round to nearest even) does the rounding.
    const float a = bits_f32(abs) + 0.5f;
    return f16{static_cast<uint16_t>(sign | (f32_bits(a) - 0x3f000000u))};
  }
  const uint32_t mant_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mant_odd;  // rebias the exponent (-112 << 23) and round to nearest even
  return f16{static_cast<uint16_t>(sign | (abs >> 13))};
}

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;
template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T> || is_half_v<T>;

// The type arithmetic on T is done in (acc_t of src/core/dtype.h): float for the 16-bit floats, T otherwise.
template <class T>
struct acc_type {
  using type = T;
};
template <>
struct acc_type<f16> {
  using type = float;
};
template <>
struct acc_type<bf16> {
  using type = float;
};
template <class T>
using acc_t = typename acc_type<T>::type;

// A stored element as its accumulation type.
template <class T>
GLIA_HOST_DEVICE acc_t<T> load_acc(T v) {
  if constexpr (std::is_same_v<T, f16>)
    return f16_to_float(v);
  else if constexpr (std::is_same_v<T, bf16>)
    return bf16_to_float(v);
  else
    return v;
}

// A computed value stored as Out: the static_cast<Out> of the CPU loops (Half(float) for the 16-bit floats).
template <class Out, class A>
GLIA_HOST_DEVICE Out store_as(A v) {
  if constexpr (std::is_same_v<Out, f16>)
    return float_to_f16(static_cast<float>(v));
  else if constexpr (std::is_same_v<Out, bf16>)
    return float_to_bf16(static_cast<float>(v));
  else
    return static_cast<Out>(v);
}

// torch's element conversion, as convert<To, From> of src/core/dtype.h: float -> integer truncates toward
// zero, NaN and out-of-range values give the integer minimum (what x86's cvtt* gives); float -> uint8 goes
// through int64 and wraps; float -> int8 and int16 through int32; anything -> bool is "nonzero"; double ->
// 16-bit float rounds to float first.
template <class To, class From>
GLIA_HOST_DEVICE To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_half_v<From>) {
    return convert<To, float>(load_acc(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_half_v<To>) {
    return store_as<To>(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if constexpr (std::is_same_v<To, uint8_t>) {
      return static_cast<uint8_t>(convert<int64_t, From>(v));
    } else if constexpr (sizeof(To) < sizeof(int32_t)) {
      return static_cast<To>(convert<int32_t, From>(v));
    } else {
      constexpr To kMin = std::numeric_limits<To>::min();
      constexpr From lo = static_cast<From>(kMin);
      constexpr From hi = -lo;
      if (!(v >= lo && v < hi)) return kMin;
      return static_cast<To>(v);
    }
  } else {
    return static_cast<To>(v);
  }
}

// Note [Integer wrap-around] (src/core/dtype.h): integer arithmetic in the unsigned type of the same width.
template <class A>
inline constexpr bool wraps_v = std::is_integral_v<A> && !std::is_same_v<A, bool>;

template <class A, class B>
GLIA_HOST_DEVICE auto wrap_add(A x, B y) {
  if constexpr (wraps_v<A> && std::is_same_v<A, B>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
  } else {
    return x + y;
  }
}
template <class A, class B>
GLIA_HOST_DEVICE auto wrap_sub(A x, B y) {
  if constexpr (wraps_v<A> && std::is_same_v<A, B>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(static_cast<U>(x) - static_cast<U>(y)));
  } else {
    return x - y;
  }
}
template <class A, class B>
GLIA_HOST_DEVICE auto wrap_mul(A x, B y) {
  if constexpr (wraps_v<A> && std::is_same_v<A, B>) {
    using U = std::conditional_t<(sizeof(A) < sizeof(unsigned)), unsigned, std::make_unsigned_t<A>>;
    return static_cast<A>(static_cast<U>(static_cast<U>(x) * static_cast<U>(y)));
  } else {
    return x * y;
  }
}
template <class A>
GLIA_HOST_DEVICE auto wrap_neg(A x) {
  if constexpr (wraps_v<A>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(U(0) - static_cast<U>(x)));
  } else {
    return -x;
  }
}

}  // namespace glia::cuda

#endif  // GLIA_CUDA_DTYPES_H
