// cuda/philox.h on the CPU: the Philox4x32 bijection against Random123's published known-answer vectors, and
// the conversions to uniform and normal numbers against exact or high-precision references.
#include "philox.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

namespace glia::cuda {
namespace {

void expect_words(PhiloxCounter got, PhiloxCounter want) {
  EXPECT_EQ(got.x, want.x);
  EXPECT_EQ(got.y, want.y);
  EXPECT_EQ(got.z, want.z);
  EXPECT_EQ(got.w, want.w);
}

// Random123 1.14, tests/kat_vectors: "philox4x32 R ctr[4] key[2] -> out[4]".
TEST(Philox, MatchesRandom123KnownAnswersFor10Rounds) {
  expect_words(philox4x32<10>({0, 0, 0, 0}, {0, 0}), {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  expect_words(philox4x32<10>({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
               {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  expect_words(philox4x32<10>({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
               {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST(Philox, MatchesRandom123KnownAnswersFor7Rounds) {
  expect_words(philox4x32<7>({0, 0, 0, 0}, {0, 0}), {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48});
  expect_words(philox4x32<7>({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
               {0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662});
  expect_words(philox4x32<7>({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
               {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a});
}

TEST(Philox, SeedSubsequenceAndBlockFillKeyAndCounterLowWordFirst) {
  const PhiloxKey k = philox_key(0x0123456789abcdefULL);
  EXPECT_EQ(k.x, 0x89abcdefu);
  EXPECT_EQ(k.y, 0x01234567u);
  expect_words(philox_counter(0x1111111122222222ULL, 0x3333333344444444ULL),
               {0x44444444, 0x33333333, 0x22222222, 0x11111111});
}

// The exact value of x * 2^-32 + 2^-33 (x < 2^32) rounded to float, from integers: (2x + 1) * 2^-33.
float exact_uniform_float_reference(uint32_t x) {
  const uint64_t fx = static_cast<uint64_t>(static_cast<float>(x));  // x rounded to float, as curand converts it
  return static_cast<float>(std::ldexp(static_cast<long double>(2 * fx + 1), -33));
}

TEST(Philox, UniformFloatIsInZeroOneAndFusedAsNvccFusesCurand) {
  // curand's 2.3283064e-10f is 2^-32 rounded to float.
  EXPECT_EQ(kCurand2Pow32Inv, std::ldexp(1.0f, -32));
  EXPECT_EQ(philox_uniform_float(0), std::ldexp(1.0f, -33));
  EXPECT_EQ(philox_uniform_float(0xffffffffu), 1.0f);  // curand's range includes 1 (torch maps it to `from`)
  EXPECT_EQ(philox_uniform_float(0x80000000u), 0.5f);
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t x = static_cast<uint32_t>(rng());
    const float u = philox_uniform_float(x);
    ASSERT_EQ(u, exact_uniform_float_reference(x)) << x;
    ASSERT_GT(u, 0.0f);
    ASSERT_LE(u, 1.0f);
  }
}

TEST(Philox, UniformDoubleTakes53BitsFromTwoWords) {
  EXPECT_EQ(philox_uniform_double(0, 0), std::ldexp(1.0, -54));
  EXPECT_EQ(philox_uniform_double(0x001fffffu, 0xffffffffu), 1.0);  // 53 bits set: rounds up to 1, as curand's
  EXPECT_LT(philox_uniform_double(0x001ffffeu, 0xffffffffu), 1.0);
  std::mt19937 rng(8);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t x = static_cast<uint32_t>(rng()), y = static_cast<uint32_t>(rng());
    const uint64_t z = x ^ (static_cast<uint64_t>(y) << 21);
    const double want = static_cast<double>(std::ldexp(static_cast<long double>(2 * z + 1), -54));
    ASSERT_EQ(philox_uniform_double(x, y), want);
  }
}

TEST(Philox, UniformFromToReversesTheBoundAsTorch) {
  EXPECT_EQ(uniform_from_to(1.0f, -2.0f, 4.0f), -2.0f);
  EXPECT_EQ(uniform_from_to(0.25f, -2.0f, 4.0f), -1.0f);
  EXPECT_EQ(uniform_from_to(1.0, 3.0, 0.5), 3.0);
  EXPECT_EQ(uniform_from_to(0.5, 3.0, 0.5), 3.25);
}

TEST(Philox, BoxMullerMatchesItsFormulaInLongDouble) {
  std::mt19937 rng(9);
  for (int i = 0; i < 20000; ++i) {
    const uint32_t x = static_cast<uint32_t>(rng()), y = static_cast<uint32_t>(rng());
    const NormalPair p = philox_normal_float(x, y);
    // The uniforms rounded to float as the implementation rounds them (exactly: their own tests above), then
    // the transcendental part in long double.
    const long double u = exact_uniform_float_reference(x);
    const auto v = static_cast<float>((static_cast<long double>(static_cast<float>(y)) + 0.5L) * kCurand2Pow32Inv2Pi);
    const long double s = std::sqrt(-2.0L * std::log(u));
    // float's logf, sinf and cosf: a few ulp of the result, plus the scale of s.
    const long double tol = 4e-7L * (1 + s);
    ASSERT_NEAR(p.first, s * std::sin(v), tol) << x << " " << y;
    ASSERT_NEAR(p.second, s * std::cos(v), tol) << x << " " << y;

    const uint32_t x1 = static_cast<uint32_t>(rng()), y1 = static_cast<uint32_t>(rng());
    const NormalPairDouble d = philox_normal_double(x, x1, y, y1);
    const uint64_t zx = x ^ (static_cast<uint64_t>(x1) << 21), zy = y ^ (static_cast<uint64_t>(y1) << 21);
    const long double ud = static_cast<double>(std::ldexp(2.0L * zx + 1, -54));
    const long double vd = static_cast<double>(std::ldexp(2.0L * zy + 1, -53));
    const long double sd = std::sqrt(-2.0L * std::log(ud));
    const long double pi = 3.141592653589793238462643383279502884L;
    ASSERT_NEAR(d.first, sd * std::sin(vd * pi), 1e-14L * (1 + sd));
    ASSERT_NEAR(d.second, sd * std::cos(vd * pi), 1e-14L * (1 + sd));
  }
  // The smallest u: the largest magnitude curand can draw, sqrt(-2 log 2^-33) = 6.76.
  EXPECT_NEAR(philox_normal_float(0, 0).second, std::sqrt(-2.0 * std::log(std::ldexp(1.0, -33))), 1e-5);
}

TEST(Philox, NormalDrawsHaveMeanZeroAndVarianceOne) {
  double sum = 0, sum2 = 0;
  const int n = 1 << 18;
  for (int i = 0; i < n / 4; ++i) {
    const PhiloxCounter w = philox4x32(philox_counter(static_cast<uint64_t>(i), 0), philox_key(42));
    for (const NormalPair p : {philox_normal_float(w.x, w.y), philox_normal_float(w.z, w.w)}) {
      sum += p.first + p.second;
      sum2 += static_cast<double>(p.first) * p.first + static_cast<double>(p.second) * p.second;
    }
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt(n));  // 5 standard errors
  EXPECT_NEAR(var, 1.0, 5.0 * std::sqrt(2.0 / n));
  EXPECT_EQ(normal_from(0.5f, 1.0f, 2.0f), 2.0f);
  EXPECT_EQ(normal_from(-1.0, 1.0, 3.0), -2.0);
}

}  // namespace
}  // namespace glia::cuda
