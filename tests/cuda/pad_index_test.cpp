// cuda/pad_index.h on the CPU: the source maps of reflect / replicate / circular padding against torch 1.13's
// (the index of each output element of F.pad(arange(size), (pl, pr), mode), from
// /usr/bin/python3 -c "import torch, torch.nn.functional as F; print(F.pad(torch.arange(4.).view(1, 1, 4),
// (3, 2), mode='reflect').long().view(-1).tolist())" and likewise), and pad_for_each_source_of, the inverse map
// of the backward kernel, against a search over every output position, for every valid padding of small sizes.
#include "pad_index.h"

#include <gtest/gtest.h>

#include <vector>

namespace glia::cuda {
namespace {

std::vector<int64_t> source_map(int64_t mode, int64_t size, int64_t pl, int64_t pr) {
  std::vector<int64_t> m;
  for (int64_t o = 0; o < size + pl + pr; ++o) m.push_back(pad_source_index(mode, size, pl, pr, o));
  return m;
}

TEST(PadIndex, SourceMapsAreTorchs) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(source_map(kPadReflect, 4, 3, 2), (V{3, 2, 1, 0, 1, 2, 3, 2, 1}));
  EXPECT_EQ(source_map(kPadReflect, 5, -1, 2), (V{1, 2, 3, 4, 3, 2}));
  EXPECT_EQ(source_map(kPadReplicate, 3, 4, 2), (V{0, 0, 0, 0, 0, 1, 2, 2, 2}));
  EXPECT_EQ(source_map(kPadReplicate, 4, -2, 1), (V{2, 3, 3}));
  EXPECT_EQ(source_map(kPadCircular, 4, 3, 4), (V{1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(source_map(kPadCircular, 5, -1, 2), (V{1, 2, 3, 4, 1, 2}));
  EXPECT_EQ(source_map(kPadCircular, 3, 2, -1), (V{0, 1, 0, 1}));
}

// The paddings torch accepts: reflect pads below the size, circular pads at most the size; replicate any
// (bounded here); negative pads (cropping) that leave an output of at least one element.
TEST(PadIndex, InverseMapIsExact) {
  int checked = 0;
  for (int64_t mode : {kPadReflect, kPadReplicate, kPadCircular}) {
    for (int64_t size = 1; size <= 6; ++size) {
      const int64_t hi = mode == kPadReflect ? size - 1 : mode == kPadCircular ? size : size + 3;
      for (int64_t pl = -size + 1; pl <= hi; ++pl) {
        for (int64_t pr = -size + 1; pr <= hi; ++pr) {
          const int64_t out = size + pl + pr;
          if (out < 1) continue;
          for (int64_t i = 0; i < size; ++i) {
            std::vector<int64_t> want, got;
            for (int64_t o = 0; o < out; ++o)
              if (pad_source_index(mode, size, pl, pr, o) == i) want.push_back(o);
            pad_for_each_source_of(mode, size, pl, pr, out, i, [&](int64_t o) { got.push_back(o); });
            ASSERT_EQ(got, want) << "mode " << mode << " size " << size << " pads " << pl << ", " << pr << " input "
                                 << i;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace glia::cuda
