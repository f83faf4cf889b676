// The CUDA kernels' per-element code (cuda/dtypes.h, cuda/elementwise_ops.h) run on the CPU: the 16-bit float
// conversions and convert<To, From> against the core's (src/core/half.h, src/core/dtype.h) bit for bit, and
// the functors against the CPU kernels' formulas and torch's rules at the edges (wrap-around, NaN, signed
// zeros, integer powers).
#include "elementwise_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/dtype.h"
#include "core/half.h"
#include "dtypes.h"

namespace gc = glia::cuda;
namespace ew = glia::cuda::ew;

namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Floats covering every exponent, the half and bfloat16 rounding boundaries, subnormals, infinities and NaNs.
std::vector<float> sample_floats() {
  std::vector<float> v;
  for (uint64_t u = 0; u <= 0xffffffffull; u += 0x00012345ull) {
    float f;
    const uint32_t w = static_cast<uint32_t>(u);
    std::memcpy(&f, &w, 4);
    v.push_back(f);
  }
  for (uint32_t h = 0; h < 0x10000u; ++h) {  // every half's neighbourhood: exact, and the midpoints
    const float x = glia::Half::to_float(static_cast<uint16_t>(h));
    v.push_back(x);
    v.push_back(std::nextafter(x, 0.0f));
    v.push_back(std::nextafter(x, std::numeric_limits<float>::infinity()));
  }
  for (float x : {0.0f, -0.0f, 65504.0f, 65520.0f, 65519.99f, 5.9604645e-8f, 2.9802322e-8f, 1e-45f, 3.4e38f})
    v.push_back(x);
  return v;
}

}  // namespace

TEST(CudaDtypes, HalfToFloatMatchesTheCore) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const uint16_t b = static_cast<uint16_t>(h);
    ASSERT_EQ(bits(gc::f16_to_float(gc::f16{b})), bits(glia::Half::to_float(b))) << std::hex << h;
    ASSERT_EQ(bits(gc::bf16_to_float(gc::bf16{b})), bits(static_cast<float>(glia::BFloat16::from_bits(b)))) << h;
  }
}

TEST(CudaDtypes, FloatToHalfMatchesTheCore) {
  for (float x : sample_floats()) {
    ASSERT_EQ(gc::float_to_f16(x).bits, glia::Half(x).bits) << x;
    ASSERT_EQ(gc::float_to_bf16(x).bits, glia::BFloat16(x).bits) << x;
  }
}

namespace {

template <class To, class From>
void expect_convert_matches(const std::vector<From>& xs) {
  for (From x : xs) {
    const To want = glia::convert<To, From>(x);
    const To got = gc::convert<To, From>(x);
    EXPECT_EQ(std::memcmp(&want, &got, sizeof(To)), 0) << static_cast<double>(x);
  }
}

template <class From>
void convert_to_all(const std::vector<From>& xs) {
  expect_convert_matches<bool>(xs);
  expect_convert_matches<uint8_t>(xs);
  expect_convert_matches<int8_t>(xs);
  expect_convert_matches<int16_t>(xs);
  expect_convert_matches<int32_t>(xs);
  expect_convert_matches<int64_t>(xs);
  expect_convert_matches<float>(xs);
  expect_convert_matches<double>(xs);
}

}  // namespace

TEST(CudaDtypes, ConvertMatchesTheCore) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> ds = {0.0,
                                  -0.0,
                                  0.5,
                                  -0.5,
                                  1.5,
                                  -1.5,
                                  2.5,
                                  127.9,
                                  128.0,
                                  255.5,
                                  256.0,
                                  300.0,
                                  -300.0,
                                  32767.5,
                                  32768.0,
                                  65536.0,
                                  2147483647.0,
                                  2147483648.0,
                                  -2147483648.0,
                                  -2147483649.0,
                                  9.2233720368547758e18,
                                  -9.2233720368547758e18,
                                  1e19,
                                  -1e19,
                                  1e300,
                                  inf,
                                  -inf,
                                  nan,
                                  1e-310};
  std::vector<float> fs;
  for (double d : ds) fs.push_back(static_cast<float>(d));
  convert_to_all(ds);
  convert_to_all(fs);
  convert_to_all(std::vector<int64_t>{0, 1, -1, 127, 128, 255, 256, -129, 32768, 2147483648LL, -2147483649LL,
                                      std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                                      (int64_t{1} << 53) + 1});
  convert_to_all(std::vector<int32_t>{0, -1, 300, std::numeric_limits<int32_t>::min(), 16777217});
  convert_to_all(std::vector<uint8_t>{0, 1, 200, 255});
  convert_to_all(std::vector<bool>{false, true});
  // To and from the 16-bit floats: through float, as the core's.
  for (double d : ds) {
    EXPECT_EQ((gc::convert<gc::f16, double>(d).bits), (glia::convert<glia::Half, double>(d).bits)) << d;
    EXPECT_EQ((gc::convert<gc::bf16, double>(d).bits), (glia::convert<glia::BFloat16, double>(d).bits)) << d;
  }
  for (uint32_t h = 0; h < 0x10000u; h += 7) {
    const uint16_t b = static_cast<uint16_t>(h);
    EXPECT_EQ((gc::convert<int64_t, gc::f16>(gc::f16{b})),
              (glia::convert<int64_t, glia::Half>(glia::Half::from_bits(b))));
    EXPECT_EQ((gc::convert<uint8_t, gc::bf16>(gc::bf16{b})),
              (glia::convert<uint8_t, glia::BFloat16>(glia::BFloat16::from_bits(b))));
    EXPECT_EQ((gc::convert<bool, gc::f16>(gc::f16{b})), (glia::convert<bool, glia::Half>(glia::Half::from_bits(b))));
    EXPECT_EQ((gc::convert<gc::bf16, gc::f16>(gc::f16{b}).bits),
              (glia::convert<glia::BFloat16, glia::Half>(glia::Half::from_bits(b))).bits);
  }
}

TEST(CudaElementwiseOps, IntegerArithmeticWraps) {
  const int64_t mx = std::numeric_limits<int64_t>::max(), mn = std::numeric_limits<int64_t>::min();
  EXPECT_EQ((ew::Add<int64_t>{1, true}(mx, int64_t{1})), mn);
  EXPECT_EQ((ew::Add<int64_t>{2, false}(int64_t{1}, mx)), int64_t{-1});  // 1 + 2 * max wraps to -1
  EXPECT_EQ((ew::Sub<int8_t>{1}(int8_t{-128}, int8_t{1})), int8_t{127});
  EXPECT_EQ(ew::Mul{}(int16_t{-32768}, int16_t{-1}), int16_t{-32768});
  EXPECT_EQ(ew::Mul{}(uint8_t{16}, uint8_t{16}), uint8_t{0});
  EXPECT_EQ(ew::Mul{}(true, false), false);
  EXPECT_EQ(ew::Neg{}(mn), mn);
  EXPECT_EQ(ew::Abs{}(mn), mn);
  EXPECT_EQ(ew::Abs{}(int32_t{-5}), 5);
  EXPECT_EQ(ew::Sign{}(uint8_t{7}), uint8_t{1});
  EXPECT_EQ(ew::Sign{}(int32_t{-7}), -1);
  // bool add: x + alpha * y, nonzero (add of bools with alpha 1 is or).
  EXPECT_TRUE(gc::store_as<bool>((ew::Add<bool>{true, true}(true, true))));
}

TEST(CudaElementwiseOps, FloatingEdgeCases) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ew::FloorDiv{}(-7.0, 2.0), -4.0);
  EXPECT_EQ(ew::FloorDiv{}(7.0, -2.0), -4.0);
  EXPECT_EQ(ew::FloorDiv{}(-0.5, 2.0), -1.0);
  EXPECT_TRUE(std::signbit(ew::FloorDiv{}(0.0, -3.0)));  // a zero quotient keeps the sign of x / y
  EXPECT_EQ(ew::FloorDiv{}(1.0f, 0.0f), inf);
  EXPECT_EQ(ew::TruncDiv{}(-7.0, 2.0), -3.0);
  EXPECT_TRUE(std::isnan(ew::Maximum{}(nan, 1.0f)));
  EXPECT_TRUE(std::isnan(ew::Maximum{}(1.0f, nan)));
  EXPECT_TRUE(std::isnan(ew::Minimum{}(1.0f, nan)));
  EXPECT_EQ(ew::Maximum{}(int64_t{3}, int64_t{-4}), 3);
  EXPECT_TRUE(std::isnan(ew::ClampLo{}(1.0f, nan)));  // a NaN bound gives NaN
  EXPECT_EQ(ew::LenientClampLo{}(1.0f, nan), 1.0f);   // lenient: ignored
  EXPECT_TRUE(std::isnan(ew::Clamp{}(nan, 0.0f, 1.0f)));
  EXPECT_EQ(ew::Clamp{}(5.0, 0.0, 1.0), 1.0);
  EXPECT_TRUE(std::isnan(ew::Relu{}(nan)));
  EXPECT_EQ(ew::Relu{}(-0.0f), 0.0f);
  EXPECT_TRUE(std::isnan(ew::Hardswish{}(nan)));
  EXPECT_EQ(ew::Hardswish{}(-4.0f), -0.0f);
  EXPECT_EQ(ew::Hardswish{}(1.0f), 1.0f * 4.0f / 6.0f);
  EXPECT_TRUE(std::isnan((ew::Hardtanh<float>{-1.0f, 1.0f}(nan))));
  EXPECT_EQ((ew::Hardtanh<float>{-1.0f, 1.0f}(-3.0f)), -1.0f);
  EXPECT_EQ((ew::ThresholdBackward<double>{0.0}(2.0, 0.0)), 0.0);
  EXPECT_EQ((ew::ThresholdBackward<double>{0.0}(2.0, 1e-300)), 2.0);
  EXPECT_EQ(ew::Where{}(true, 1.5, 2.5), 1.5);
}

TEST(CudaElementwiseOps, IntegerPowerFollowsTorch) {
  EXPECT_EQ(ew::Pow{}(int64_t{3}, int64_t{4}), 81);
  EXPECT_EQ(ew::Pow{}(int64_t{2}, int64_t{-1}), 0);
  EXPECT_EQ(ew::Pow{}(int64_t{1}, int64_t{-5}), 1);
  EXPECT_EQ(ew::Pow{}(int64_t{-1}, int64_t{-3}), -1);
  EXPECT_EQ(ew::Pow{}(int64_t{-1}, int64_t{-2}), 1);
  EXPECT_EQ(ew::Pow{}(uint8_t{2}, uint8_t{9}), uint8_t{0});           // wraps
  EXPECT_EQ(ew::Pow{}(int32_t{3}, int32_t{40}), int32_t{689956897});  // 3^40 mod 2^32
  EXPECT_EQ(ew::Pow{}(false, false), true);
  EXPECT_EQ(ew::Pow{}(2.0, 0.5), std::sqrt(2.0));
  EXPECT_EQ(ew::pow_scalar_mode(2.0), 1);
  EXPECT_EQ(ew::pow_scalar_mode(0.5), 4);
  EXPECT_EQ(ew::pow_scalar_mode(2.5), 0);
  EXPECT_EQ((ew::PowScalar<float>{2.5f, 0}(4.0f)), std::pow(4.0f, 2.5f));
  EXPECT_EQ((ew::PowScalar<float>{0, 5}(4.0f)), 0.25f);
}

// The activations against the CPU kernels' formulas (src/ops/cpu/activation.cpp), written out again here.
TEST(CudaElementwiseOps, ActivationsMatchTheCpuFormulas) {
  const double k_sqrt1_2 = 0.70710678118654752440, k_inv_sqrt_2pi = 0.39894228040143267794;
  for (double x = -6.0; x <= 6.0; x += 0.375) {
    const float xf = static_cast<float>(x);
    EXPECT_EQ(ew::Sigmoid{}(xf), 1.0f / (1.0f + std::exp(-xf)));
    EXPECT_EQ(ew::Silu{}(x), x / (1.0 + std::exp(-x)));
    EXPECT_EQ(ew::GeluErf{}(x), x * 0.5 * (1.0 + std::erf(x * k_sqrt1_2)));
    EXPECT_EQ(ew::GeluErfBackward{}(2.0, x),
              2.0 * (0.5 * (1.0 + std::erf(x * k_sqrt1_2)) + x * (std::exp(-0.5 * x * x) * k_inv_sqrt_2pi)));
    EXPECT_EQ(ew::SigmoidBackward{}(3.0f, xf), 3.0f * (1.0f - xf) * xf);
    EXPECT_EQ(ew::TanhBackward{}(3.0, x), 3.0 * (1.0 - x * x));
    EXPECT_EQ((ew::LeakyRelu<float>{0.01}(xf)), xf > 0 ? xf : xf * 0.01f);
    EXPECT_EQ((ew::Elu<double>{1.0, 1.0507, 1.0}(x)), x <= 0 ? std::expm1(x) * (1.0 * 1.0507) : x * 1.0507);
    EXPECT_EQ((ew::Softplus<double>{2.0, 20.0}(x)), x * 2.0 > 20.0 ? x : std::log1p(std::exp(x * 2.0)) / 2.0);
    EXPECT_EQ(ew::Rsqrt{}(std::fabs(x) + 1), 1.0 / std::sqrt(std::fabs(x) + 1));
  }
}
