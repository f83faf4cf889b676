// Element conversions (glia::convert through to_dtype) against torch 1.13's
// t.to(dtype) (tests/golden/gen_core.py), and the Half / BFloat16 edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/half.h"
#include "core/tensor.h"
#include "support/test_support.h"

namespace {

using glia::BFloat16;
using glia::DType;
using glia::Half;
using glia::Tensor;
using nlohmann::json;

DType dtype_named(const std::string& name) {
  for (int i = 0; i < glia::kNumDTypes; ++i) {
    if (name == glia::dtype_name(static_cast<DType>(i))) return static_cast<DType>(i);
  }
  ADD_FAILURE() << "unknown dtype " << name;
  return DType::Float32;
}

// The fixture's encoding of one element: the raw bits of a float, the value of
// an integer, 0/1 for a bool.
template <class T>
uint64_t encode(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof(T));
    return u;
  }
}

template <class T>
T decode(const json& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v.get<int64_t>());
  } else {
    uint64_t u = v.get<uint64_t>();
    T x;
    std::memcpy(&x, &u, sizeof(T));
    return x;
  }
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_integral_v<T>)
    return false;
  else
    return std::isnan(static_cast<double>(v));
}

// A tensor of `values` with the given element stride (1 = contiguous).
Tensor make_input(DType dt, const json& values, int64_t stride) {
  int64_t n = static_cast<int64_t>(values.size());
  int64_t len = n * stride;
  Tensor storage = glia::zeros({&len, 1}, dt, glia::Device{});
  glia::dispatch_all(dt, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < n; ++i) storage.data_ptr<T>()[i * stride] = decode<T>(values[static_cast<size_t>(i)]);
  });
  return glia::make_view(storage, {&n, 1}, {&stride, 1}, 0);
}

// Compares to_dtype's result element by element; returns the number of mismatches.
int check_outputs(const Tensor& out, const json& c, size_t index, const char* layout) {
  int bad = 0;
  glia::dispatch_all(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const json& expected = c["outputs"];
    for (size_t i = 0; i < expected.size(); ++i) {
      T got;
      std::memcpy(&got, static_cast<const char*>(out.data()) + static_cast<int64_t>(i) * out.stride(0) * sizeof(T),
                  sizeof(T));
      bool ok =
          expected[i].is_string() ? expected[i] == "nan" && is_nan(got) : encode(got) == encode(decode<T>(expected[i]));
      if (!ok) {
        ++bad;
        ADD_FAILURE() << "case " << index << " " << c["from"] << " -> " << c["to"] << " (" << layout << "), element "
                      << i << ": input " << c["inputs"][i] << ", expected " << expected[i] << ", got " << encode(got)
                      << " (floats as bit patterns)";
      }
    }
  });
  return bad;
}

TEST(Convert, MatchesTorch) {
  json cases = json::parse(glia_test::read_file(glia_test::data_path("golden/core/convert.json")));
  ASSERT_EQ(cases.size(), static_cast<size_t>(glia::kNumDTypes * glia::kNumDTypes));
  for (size_t k = 0; k < cases.size(); ++k) {
    const json& c = cases[k];
    DType from = dtype_named(c["from"].get<std::string>());
    DType to = dtype_named(c["to"].get<std::string>());
    ASSERT_EQ(c["inputs"].size(), c["outputs"].size()) << "case " << k;
    // The contiguous loop and the strided row walker of copy_into both go through convert<>.
    check_outputs(glia::to_dtype(make_input(from, c["inputs"], 1), to), c, k, "contiguous");
    Tensor strided = make_input(from, c["inputs"], 3);
    Tensor out = glia::empty(strided.shape(), to, glia::Device{});
    glia::copy_into(out, strided);
    check_outputs(out, c, k, "strided");
  }
}

uint16_t half_bits(float f) { return Half(f).bits; }
uint16_t bf16_bits(float f) { return BFloat16(f).bits; }
float pow2(int e) { return std::ldexp(1.0f, e); }
uint32_t bits_of(float f) { return glia::float_bits(f); }

TEST(ConvertHalf, FromFloatRoundsToNearestEven) {
  EXPECT_EQ(half_bits(0.0f), 0x0000);
  EXPECT_EQ(half_bits(-0.0f), 0x8000);
  EXPECT_EQ(half_bits(1.0f), 0x3c00);
  EXPECT_EQ(half_bits(1.0f + pow2(-11)), 0x3c00);      // tie, even stays
  EXPECT_EQ(half_bits(1.0f + 3 * pow2(-11)), 0x3c02);  // tie, rounds up to even
  EXPECT_EQ(half_bits(1.0f + pow2(-11) + pow2(-20)), 0x3c01);
  EXPECT_EQ(half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(half_bits(65519.996f), 0x7bff);
  EXPECT_EQ(half_bits(65520.0f), 0x7c00);  // tie between the maximum and 2^16 goes to infinity
  EXPECT_EQ(half_bits(-65520.0f), 0xfc00);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::max()), 0x7c00);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(half_bits(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(half_bits(pow2(-14)), 0x0400);              // smallest normal
  EXPECT_EQ(half_bits(pow2(-14) - pow2(-24)), 0x03ff);  // largest subnormal
  EXPECT_EQ(half_bits(pow2(-24)), 0x0001);              // smallest subnormal
  EXPECT_EQ(half_bits(pow2(-25)), 0x0000);              // tie with zero
  EXPECT_EQ(half_bits(pow2(-25) + pow2(-40)), 0x0001);
  EXPECT_EQ(half_bits(1.5f * pow2(-24)), 0x0002);  // subnormal tie, up to even
  EXPECT_EQ(half_bits(2.5f * pow2(-24)), 0x0002);  // subnormal tie, down to even
  EXPECT_EQ(half_bits(-pow2(-24)), 0x8001);
  EXPECT_EQ(half_bits(-1e-10f), 0x8000);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::quiet_NaN()), 0x7e00);
  EXPECT_EQ(half_bits(-std::numeric_limits<float>::quiet_NaN()), 0xfe00);  // c10 keeps the sign of NaN
  EXPECT_EQ(half_bits(glia::bits_float(0x7f800001u)), 0x7e00);             // signalling NaN comes out quiet
}

TEST(ConvertHalf, ToFloatIsExact) {
  EXPECT_EQ(bits_of(Half::from_bits(0x0001)), bits_of(pow2(-24)));
  EXPECT_EQ(bits_of(Half::from_bits(0x03ff)), bits_of(1023 * pow2(-24)));
  EXPECT_EQ(bits_of(Half::from_bits(0x0400)), bits_of(pow2(-14)));
  EXPECT_EQ(bits_of(Half::from_bits(0x7bff)), bits_of(65504.0f));
  EXPECT_EQ(bits_of(Half::from_bits(0x8000)), bits_of(-0.0f));
  EXPECT_EQ(bits_of(Half::from_bits(0x8001)), bits_of(-pow2(-24)));
  EXPECT_EQ(bits_of(Half::from_bits(0x7c00)), bits_of(std::numeric_limits<float>::infinity()));
  EXPECT_EQ(bits_of(Half::from_bits(0xfc00)), bits_of(-std::numeric_limits<float>::infinity()));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half::from_bits(0x7e00))));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half::from_bits(0x7c01))));
}

TEST(ConvertHalf, EveryHalfSurvivesARoundTrip) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    Half h = Half::from_bits(static_cast<uint16_t>(b));
    float f = h;
    if (std::isnan(f)) {
      EXPECT_EQ(half_bits(f) & 0x7e00, 0x7e00) << std::hex << b;  // quiet NaN
      EXPECT_EQ(half_bits(f) & 0x8000, b & 0x8000) << std::hex << b;
      continue;
    }
    EXPECT_EQ(half_bits(f), b) << std::hex << b;
    // The value itself: (-1)^s * 2^(e-15) * 1.m, or 2^-14 * 0.m for subnormals.
    uint32_t e = (b >> 10) & 0x1f, m = b & 0x3ff;
    double v = e == 0x1f ? INFINITY : e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, static_cast<int>(e) - 25);
    EXPECT_EQ(static_cast<double>(f), (b & 0x8000) ? -v : v) << std::hex << b;
  }
}

#if defined(__FLT16_MANT_DIG__)
TEST(ConvertHalf, AgreesWithTheCompilersFloat16) {
  // _Float16 narrowing is IEEE round-to-nearest-even; sample every float bit pattern.
  for (uint64_t u = 0; u <= 0xffffffffu; u += 1009) {
    float f = glia::bits_float(static_cast<uint32_t>(u));
    if (std::isnan(f)) continue;
    _Float16 r = static_cast<_Float16>(f);
    uint16_t expect;
    std::memcpy(&expect, &r, 2);
    ASSERT_EQ(half_bits(f), expect) << std::hex << u;
  }
}
#endif

TEST(ConvertBFloat16, FromFloatRoundsToNearestEven) {
  EXPECT_EQ(bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16_bits(-0.0f), 0x8000);
  EXPECT_EQ(bf16_bits(1.0f + pow2(-8)), 0x3f80);      // tie, even stays
  EXPECT_EQ(bf16_bits(1.0f + 3 * pow2(-8)), 0x3f82);  // tie, rounds up to even
  EXPECT_EQ(bf16_bits(1.0f + pow2(-8) + pow2(-20)), 0x3f81);
  EXPECT_EQ(bf16_bits(glia::bits_float(0x7f7f7fffu)), 0x7f7f);
  EXPECT_EQ(bf16_bits(glia::bits_float(0x7f7f8000u)), 0x7f80);  // tie above the maximum goes to infinity
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(bf16_bits(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(bf16_bits(glia::bits_float(0x00018000u)), 0x0002);  // subnormal tie, up to even
  EXPECT_EQ(bf16_bits(glia::bits_float(0x00008000u)), 0x0000);  // subnormal tie, down to even
  EXPECT_EQ(bf16_bits(glia::bits_float(0x00008001u)), 0x0001);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::min()), 0x0080);
  // c10's scalar conversion: one canonical quiet NaN whatever the sign or payload.
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::quiet_NaN()), 0x7fc0);
  EXPECT_EQ(bf16_bits(-std::numeric_limits<float>::quiet_NaN()), 0x7fc0);
  EXPECT_EQ(bf16_bits(glia::bits_float(0x7fffffffu)), 0x7fc0);
}

TEST(ConvertBFloat16, EveryBFloat16SurvivesARoundTrip) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    float f = BFloat16::from_bits(static_cast<uint16_t>(b));
    EXPECT_EQ(bits_of(f), b << 16) << std::hex << b;
    if (!std::isnan(f)) {
      EXPECT_EQ(bf16_bits(f), b) << std::hex << b;
    }
  }
}

TEST(Convert, DoubleNarrowsToHalfThroughFloat) {
  // torch rounds double -> float -> half, so a double just above a half tie can round down twice.
  double just_above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ((glia::convert<Half, double>(just_above_tie).bits), 0x3c00);
  EXPECT_EQ((glia::convert<BFloat16, double>(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)).bits), 0x3f80);
}

TEST(Convert, FloatToIntegerEdges) {
  EXPECT_EQ((glia::convert<int64_t, float>(-1.7f)), -1);
  EXPECT_EQ((glia::convert<int32_t, double>(2147483647.9)), 2147483647);
  EXPECT_EQ((glia::convert<int32_t, double>(-2147483648.9)), std::numeric_limits<int32_t>::min());
  EXPECT_EQ((glia::convert<uint8_t, float>(-1.0f)), 255);
  EXPECT_EQ((glia::convert<uint8_t, float>(-1.7f)), 255);
  EXPECT_EQ((glia::convert<uint8_t, float>(300.0f)), 44);
  EXPECT_EQ((glia::convert<uint8_t, Half>(Half(-2.5f))), 254);
  EXPECT_FALSE((glia::convert<bool, float>(-0.0f)));
  EXPECT_TRUE((glia::convert<bool, float>(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE((glia::convert<bool, BFloat16>(BFloat16::from_bits(0x0001))));
  EXPECT_FALSE((glia::convert<bool, Half>(Half::from_bits(0x8000))));
}

// int8 and int16 from floats outside their range: what torch 1.13 gives on x86 (a cvtt* into int32, then
// the low bits; beyond int32, and NaN/inf, the int32 minimum, whose low bits are 0). From
// torch.tensor([...]).to(torch.int8 / torch.int16), contiguous and element by element alike.
TEST(Convert, FloatToInt8AndInt16Wrap) {
  EXPECT_EQ((glia::convert<int8_t, float>(300.0f)), 44);
  EXPECT_EQ((glia::convert<int8_t, float>(-300.0f)), -44);
  EXPECT_EQ((glia::convert<int8_t, double>(127.9)), 127);
  EXPECT_EQ((glia::convert<int8_t, double>(-128.9)), -128);
  EXPECT_EQ((glia::convert<int8_t, float>(40000.0f)), 64);
  EXPECT_EQ((glia::convert<int8_t, float>(1e10f)), 0);
  EXPECT_EQ((glia::convert<int8_t, float>(std::numeric_limits<float>::quiet_NaN())), 0);
  EXPECT_EQ((glia::convert<int8_t, double>(std::numeric_limits<double>::infinity())), 0);
  EXPECT_EQ((glia::convert<int16_t, float>(40000.0f)), -25536);
  EXPECT_EQ((glia::convert<int16_t, float>(-40000.0f)), 25536);
  EXPECT_EQ((glia::convert<int16_t, float>(70000.5f)), 4464);
  EXPECT_EQ((glia::convert<int16_t, float>(3e9f)), 0);
  EXPECT_EQ((glia::convert<int16_t, BFloat16>(BFloat16(-128.9f))), -129);  // bfloat16 rounds -128.9 to -129
  EXPECT_EQ((glia::convert<int8_t, Half>(Half(70000.5f))), 0);             // inf in half
}

}  // namespace
