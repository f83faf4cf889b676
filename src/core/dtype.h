// Element types, their sizes and names, and compile-time dispatch over them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "core/half.h"

namespace glia {

// Values equal glia_dtype's.
enum class DType : int8_t {
  Float32 = 0,
  Float64 = 1,
  Float16 = 2,
  BFloat16 = 3,
  Int64 = 4,
  Int32 = 5,
  UInt8 = 6,
  Bool = 7,
  Int8 = 8,
  Int16 = 9,
};
constexpr int kNumDTypes = 10;

inline bool dtype_valid(int v) { return v >= 0 && v < kNumDTypes; }

inline size_t itemsize(DType t) {
  switch (t) {
    case DType::Float64:
    case DType::Int64:
      return 8;
    case DType::Float32:
    case DType::Int32:
      return 4;
    case DType::Float16:
    case DType::BFloat16:
    case DType::Int16:
      return 2;
    case DType::UInt8:
    case DType::Int8:
    case DType::Bool:
      return 1;
  }
  return 0;
}

inline bool is_floating(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::Float16 || t == DType::BFloat16;
}
inline bool is_integral(DType t, bool include_bool) {
  return t == DType::Int64 || t == DType::Int32 || t == DType::Int16 || t == DType::Int8 || t == DType::UInt8 ||
         (include_bool && t == DType::Bool);
}

// torch's names: "float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool", "int8",
// "int16".
const char* dtype_name(DType t);
// torch's ScalarType name ("Float", "Long", ...), as torch's error messages spell dtypes.
const char* scalar_type_name(DType t);

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::Float32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::Float64;
};
template <>
struct dtype_of<Half> {
  static constexpr DType value = DType::Float16;
};
template <>
struct dtype_of<BFloat16> {
  static constexpr DType value = DType::BFloat16;
};
template <>
struct dtype_of<int64_t> {
  static constexpr DType value = DType::Int64;
};
template <>
struct dtype_of<int32_t> {
  static constexpr DType value = DType::Int32;
};
template <>
struct dtype_of<int16_t> {
  static constexpr DType value = DType::Int16;
};
template <>
struct dtype_of<int8_t> {
  static constexpr DType value = DType::Int8;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr DType value = DType::UInt8;
};
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::Bool;
};

// Calls f(T{}) with T the C++ type of `t`. Usage:
//   dispatch_all(t, [&](auto tag) { using T = decltype(tag); ... });
template <class F>
decltype(auto) dispatch_all(DType t, F&& f) {
  switch (t) {
    case DType::Float32:
      return f(float{});
    case DType::Float64:
      return f(double{});
    case DType::Float16:
      return f(Half{});
    case DType::BFloat16:
      return f(BFloat16{});
    case DType::Int64:
      return f(int64_t{});
    case DType::Int32:
      return f(int32_t{});
    case DType::UInt8:
      return f(uint8_t{});
    case DType::Bool:
      return f(bool{});
    case DType::Int8:
      return f(int8_t{});
    case DType::Int16:
      return f(int16_t{});
  }
  fail(Code::DType, "unknown dtype ", static_cast<int>(t));
}

// Floating types only; anything else is GLIA_ERR_DTYPE naming `what`.
template <class F>
decltype(auto) dispatch_floating(DType t, const char* what, F&& f) {
  switch (t) {
    case DType::Float32:
      return f(float{});
    case DType::Float64:
      return f(double{});
    case DType::Float16:
      return f(Half{});
    case DType::BFloat16:
      return f(BFloat16{});
    default:
      break;
  }
  fail(Code::DType, what, ": expected a floating point dtype, got ", dtype_name(t));
}

// The type arithmetic on T is done in: float for the 16-bit floats, T otherwise.
template <class T>
struct acc_type {
  using type = T;
};
template <>
struct acc_type<Half> {
  using type = float;
};
template <>
struct acc_type<BFloat16> {
  using type = float;
};
template <class T>
using acc_t = typename acc_type<T>::type;

// torch's element conversion (c10::convert): float -> integer truncates toward
// zero; NaN and out-of-range values give what x86's cvtt* instructions give
// (the integer minimum), made explicit here so it is defined behaviour;
// float -> uint8 goes through int64 and wraps, as torch does; float -> int8 and
// int16 go through int32 and wrap (what torch's cvtt* code gives); anything -> bool
// is "nonzero".
template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
      return static_cast<float>(v) != 0.0f;
    } else {
      return v != From(0);
    }
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return convert<To, float>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    // torch rounds double -> float first as well (c10::Half(float(d))), so two roundings it is.
    return To(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if constexpr (std::is_same_v<To, uint8_t>) {
      return static_cast<uint8_t>(convert<int64_t, From>(v));
    } else if constexpr (sizeof(To) < sizeof(int32_t)) {
      // int8, int16: torch's static_cast compiles to cvtt* into int32, then keeps the low bits
      // (300.f -> int8 44; 1e10f -> int32 minimum -> 0).
      return static_cast<To>(convert<int32_t, From>(v));
    } else {
      // In range: [min, 2^(bits-1)); everything else (and NaN) gives min, as cvtt* does.
      constexpr From lo = static_cast<From>(std::numeric_limits<To>::min());
      constexpr From hi = -lo;
      if (!(v >= lo && v < hi)) return std::numeric_limits<To>::min();
      return static_cast<To>(v);
    }
  } else {
    return static_cast<To>(v);
  }
}

// Note [Integer wrap-around]: torch's integer arithmetic wraps around (two's
// complement: INT64_MAX + 1 == INT64_MIN, -INT64_MIN == INT64_MIN); in C++ a
// signed overflow is undefined behaviour. Integer kernels therefore compute in
// the unsigned type of the same width. Other types (floating, bool) are left
// to the plain operators.
template <class A>
inline constexpr bool wraps_v = std::is_integral_v<A> && !std::is_same_v<A, bool>;

template <class A, class B>
inline auto wrap_add(A x, B y) {
  if constexpr (wraps_v<A> && std::is_same_v<A, B>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
  } else {
    return x + y;
  }
}
template <class A, class B>
inline auto wrap_sub(A x, B y) {
  if constexpr (wraps_v<A> && std::is_same_v<A, B>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(static_cast<U>(x) - static_cast<U>(y)));
  } else {
    return x - y;
  }
}
template <class A, class B>
inline auto wrap_mul(A x, B y) {
  if constexpr (wraps_v<A> && std::is_same_v<A, B>) {
    // At least unsigned int: uint16 * uint16 would promote to int and can overflow it (65535 * 65535).
    using U = std::conditional_t<(sizeof(A) < sizeof(unsigned)), unsigned, std::make_unsigned_t<A>>;
    return static_cast<A>(static_cast<U>(static_cast<U>(x) * static_cast<U>(y)));
  } else {
    return x * y;
  }
}
template <class A>
inline auto wrap_neg(A x) {
  if constexpr (wraps_v<A>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(U(0) - static_cast<U>(x)));
  } else {
    return -x;
  }
}

}  // namespace glia
