// cuda/algo_cache.h (Note [cuDNN algorithm cache]) on the CPU: a hit gives back the candidates in their
// order, every field of the key separates, a full cache starts over, and concurrent callers see whole
// entries only.
#include "algo_cache.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace {

using glia::cuda::AlgoCache;
using glia::cuda::ConvKey;

struct Cand {  // stands for a cudnnConvolution*AlgoPerf_t
  int algo;
  size_t memory;
  bool operator==(const Cand& o) const { return algo == o.algo && memory == o.memory; }
};

ConvKey key(int64_t base) {
  ConvKey k;
  for (size_t i = 0; i < ConvKey::kFields; ++i) k.v[i] = base + static_cast<int64_t>(i);
  return k;
}

TEST(AlgoCache, AHitGivesTheCandidatesInTheirOrder) {
  AlgoCache<Cand> c;
  std::vector<Cand> got{{9, 9}};
  EXPECT_FALSE(c.find(key(0), &got));
  EXPECT_EQ(got, (std::vector<Cand>{{9, 9}}));  // a miss leaves the output alone
  c.insert(key(0), {{3, 100}, {1, 0}, {7, 4096}});
  ASSERT_TRUE(c.find(key(0), &got));
  EXPECT_EQ(got, (std::vector<Cand>{{3, 100}, {1, 0}, {7, 4096}}));
  c.insert(key(0), {{2, 0}});  // a new answer replaces the old
  ASSERT_TRUE(c.find(key(0), &got));
  EXPECT_EQ(got, (std::vector<Cand>{{2, 0}}));
  EXPECT_EQ(c.size(), 1u);
}

TEST(AlgoCache, EveryFieldOfTheKeySeparates) {
  AlgoCache<Cand> c;
  c.insert(key(0), {{1, 0}});
  for (size_t i = 0; i < ConvKey::kFields; ++i) {
    ConvKey k = key(0);
    k.v[i] += 1;  // one size, one flag, the direction or the device differs
    std::vector<Cand> got;
    EXPECT_FALSE(c.find(k, &got)) << "field " << i;
    c.insert(k, {{static_cast<int>(i) + 10, 0}});
  }
  EXPECT_EQ(c.size(), ConvKey::kFields + 1);
  std::vector<Cand> got;
  ASSERT_TRUE(c.find(key(0), &got));
  EXPECT_EQ(got, (std::vector<Cand>{{1, 0}}));
}

TEST(AlgoCache, AFullCacheStartsOver) {
  AlgoCache<Cand> c(3);
  for (int i = 0; i < 3; ++i) c.insert(key(100 * i), {{i, 0}});
  EXPECT_EQ(c.size(), 3u);
  c.insert(key(100), {{42, 0}});  // a key it holds: replaced, nothing dropped
  EXPECT_EQ(c.size(), 3u);
  c.insert(key(900), {{9, 0}});  // a fourth key: the others go
  EXPECT_EQ(c.size(), 1u);
  std::vector<Cand> got;
  EXPECT_FALSE(c.find(key(0), &got));
  ASSERT_TRUE(c.find(key(900), &got));
  EXPECT_EQ(got, (std::vector<Cand>{{9, 0}}));
  c.clear();
  EXPECT_EQ(c.size(), 0u);
}

TEST(AlgoCache, ConcurrentCallersSeeWholeEntries) {
  AlgoCache<Cand> c(64);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&c, t] {
      for (int i = 0; i < 2000; ++i) {
        const int64_t k = (i * 7 + t) % 100;  // more keys than room: inserts clear while others read
        std::vector<Cand> got;
        if (c.find(key(k), &got)) {
          ASSERT_EQ(got.size(), 2u);
          EXPECT_EQ(got[0].algo, static_cast<int>(k));
          EXPECT_EQ(got[1].memory, static_cast<size_t>(k));
        } else {
          c.insert(key(k), {{static_cast<int>(k), 0}, {0, static_cast<size_t>(k)}});
        }
      }
    });
  }
  for (auto& th : ts) th.join();
  EXPECT_LE(c.size(), 64u);
}

}  // namespace
