// Note [Vectorised transcendental functions]: the float32 contiguous loops of
// sin, cos, atan, asin, acos, sinh, asinh, acosh, atanh, log2 and log10 run on
// Highway's vector math (hwy/contrib/math, within 2-4 ulp), compiled for
// AVX2+FMA in ops/cpu/vmath_avx2.cpp and taken when the CPU has those
// (checked once). A block of 8 with an input outside the vector form's valid
// range (NaN, infinities, |x| > 39000 for sin/cos, x <= 0 for the logs ...)
// goes to the scalar libm loop, so specials and large arguments are exact as
// before. Other dtypes, strided operands and CPUs without AVX2 use the
// generic loops. Only the CPU kernels (ops/cpu/math.cpp) include this header,
// and vmath_avx2.cpp includes nothing of glia's but it (no inline function of
// another header is compiled with AVX2 flags).
#pragma once

#include <cstdint>

namespace glia::cpu::vmath {

enum class Fn { Sin, Cos, Atan, Asin, Acos, Sinh, Asinh, Acosh, Atanh, Log2, Log10 };

// o[i] = fn(x[i]) for a contiguous block; `fallback` computes the blocks that are out of range.
using ScalarFn = void (*)(const float* x, float* o, int64_t n);

// True when the vector forms can run here (built with Highway, on x86-64 with AVX2, FMA, BMI2
// and F16C). Defined in ops/cpu/math.cpp.
bool available();

// Only when available(). Defined in ops/cpu/vmath_avx2.cpp.
void run_avx2(Fn fn, const float* x, float* o, int64_t n, ScalarFn fallback);

}  // namespace glia::cpu::vmath
