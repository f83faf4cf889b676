// The upsampling math that the CPU kernels and the CUDA kernels share (src/core/resample_math.h), run on the
// CPU. The CPU goldens exercise upsample_taps through the CPU kernels; here: the inverse ranges that the CUDA
// backward gathers over (upsample_outputs_of), against a brute-force search of every output's taps, for every
// rule, with and without scale factors and align_corners, on the sizes that take torch's shortcuts (out == in,
// out == 2 * in) and on others.
#include "core/resample_math.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace math = glia::math;

namespace {

template <class T>
void check_inverse_ranges(int* checked) {
  const double scales[] = {0.0, 2.0, 1.5, 0.75, 3.3};
  for (int kind = 0; kind <= 3; ++kind)
    for (bool align : {false, true})
      for (bool backward : {false, true})
        for (double scale : scales)
          for (int64_t in = 1; in <= 9; ++in)
            for (int64_t out = 1; out <= 21; ++out) {
              for (int64_t i = 0; i < in; ++i) {
                int64_t lo = -1, hi = -1;
                math::upsample_outputs_of<T>(kind, in, out, scale, align, backward, i, &lo, &hi);
                ASSERT_LE(0, lo);
                ASSERT_LE(lo, hi);
                ASSERT_LE(hi, out);
                for (int64_t o = 0; o < out; ++o) {
                  int64_t idx[4];
                  T w[4];
                  const int n = math::upsample_taps<T>(kind, in, out, scale, align, backward, o, idx, w);
                  bool holds = false;
                  for (int t = 0; t < n; ++t) {
                    ASSERT_TRUE(idx[t] >= 0 && idx[t] < in) << "kind " << kind << " in " << in << " out " << out;
                    if (t > 0) ASSERT_LE(idx[t - 1], idx[t]);
                    holds = holds || idx[t] == i;
                  }
                  ASSERT_EQ(holds, o >= lo && o < hi)
                      << "kind " << kind << " align " << align << " backward " << backward << " scale " << scale
                      << " in " << in << " out " << out << " i " << i << " o " << o;
                }
                ++*checked;
              }
            }
}

TEST(ResampleMath, OutputsOfIsTheSetOfOutputsWhoseTapsHoldTheInput) {
  int checked = 0;
  check_inverse_ranges<float>(&checked);
  check_inverse_ranges<double>(&checked);
  EXPECT_GT(checked, 50000);
}

// The nearest rules' taps are torch's (UpSample.h): floor(dst * scale) and floor((dst + 0.5) * scale), clamped;
// the backward's shortcuts for out == in and out == 2 * in.
TEST(ResampleMath, NearestTapsAreTorchs) {
  int64_t idx[4];
  float w[4];
  ASSERT_EQ(math::upsample_taps<float>(0, 3, 7, 0.0, false, false, 6, idx, w), 1);
  EXPECT_EQ(idx[0], 2);  // floor(6 * 3 / 7) = 2
  EXPECT_EQ(w[0], 1.0f);
  math::upsample_taps<float>(1, 3, 7, 0.0, false, false, 1, idx, w);
  EXPECT_EQ(idx[0], 0);  // floor(1.5 * 3 / 7) = 0
  math::upsample_taps<float>(1, 3, 7, 0.0, false, false, 2, idx, w);
  EXPECT_EQ(idx[0], 1);  // floor(2.5 * 3 / 7) = 1
  math::upsample_taps<float>(0, 4, 8, 0.0, false, true, 5, idx, w);
  EXPECT_EQ(idx[0], 2);  // 5 >> 1
}

}  // namespace
