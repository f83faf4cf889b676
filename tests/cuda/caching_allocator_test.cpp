// The CUDA backend's caching allocator (cuda/caching_allocator.h, Note [Caching allocator]) over a fake device
// memory: runs on every machine, with or without a GPU.
#include "caching_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace glia::cuda {
namespace {

constexpr size_t kMiB = 1048576;

// A stream of the fake device: work is queued (launch) and completes when the test says so (finish), or when
// the device is waited for.
struct FakeStream {
  uint64_t queued = 0;
  uint64_t done = 0;
};

struct FakeEvent {
  FakeStream* stream = nullptr;
  uint64_t ticket = 0;
};

// Device memory as address ranges (never dereferenced), with a capacity, injected failures and a count of
// every call. Freeing device memory waits for the device, as cudaFree does.
class FakeDevice : public DeviceInterface {
 public:
  explicit FakeDevice(size_t capacity) : capacity_(capacity) {}

  FakeStream* stream() {
    std::lock_guard<std::mutex> lock(mu_);
    streams_.push_back(std::make_unique<FakeStream>());
    return streams_.back().get();
  }
  void launch(FakeStream* s) {
    std::lock_guard<std::mutex> lock(mu_);
    ++s->queued;
  }
  void finish(FakeStream* s) {
    std::lock_guard<std::mutex> lock(mu_);
    s->done = s->queued;
  }

  Status malloc(int32_t device, size_t nbytes, void** out, std::string* message) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++malloc_calls;
    malloc_sizes.push_back(nbytes);
    if (fail_next > 0) {
      --fail_next;
      *message = fail_message;
      return fail_status;
    }
    if (nbytes > capacity_ - used_) {
      *message = "cudaMalloc failed: out of memory (cudaErrorMemoryAllocation)";
      return Status::kOutOfMemory;
    }
    // Segments are never adjacent, so a merge across two of them would show as a block spanning a gap.
    const uintptr_t addr = next_ + static_cast<uintptr_t>(device) * (uintptr_t{1} << 40);
    next_ += (nbytes + 4095) / 4096 * 4096 + 4096;
    live_.emplace(addr, nbytes);
    used_ += nbytes;
    *out = reinterpret_cast<void*>(addr);
    return Status::kOk;
  }

  void free(int32_t, void* ptr) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++free_calls;
    auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == live_.end()) {
      ADD_FAILURE() << "free of a pointer the device never handed out";
      return;
    }
    used_ -= it->second;
    live_.erase(it);
    for (auto& s : streams_) s->done = s->queued;
  }

  bool mem_info(int32_t, size_t* free_bytes, size_t* total_bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    *free_bytes = capacity_ - used_;
    *total_bytes = capacity_;
    return true;
  }

  Status event_create(int32_t, void** out, std::string*) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::make_unique<FakeEvent>());
    *out = events_.back().get();
    return Status::kOk;
  }
  Status event_record(void* event, void* stream, std::string* message) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail_event_record) {
      *message = "cudaEventRecord failed: invalid resource handle";
      return Status::kDeviceError;
    }
    auto* e = static_cast<FakeEvent*>(event);
    e->stream = static_cast<FakeStream*>(stream);
    e->ticket = e->stream->queued;
    ++records;
    return Status::kOk;
  }
  Status event_query(void* event, bool* complete, std::string*) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto* e = static_cast<FakeEvent*>(event);
    *complete = !e->stream || e->stream->done >= e->ticket;
    return Status::kOk;
  }
  Status event_synchronize(void* event, std::string*) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto* e = static_cast<FakeEvent*>(event);
    if (e->stream) e->stream->done = std::max(e->stream->done, e->ticket);
    ++event_syncs;
    return Status::kOk;
  }
  void event_destroy(void*) override {}
  Status synchronize(int32_t, std::string*) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : streams_) s->done = s->queued;
    ++device_syncs;
    return Status::kOk;
  }
  void warn(const std::string& message) override {
    std::lock_guard<std::mutex> lock(mu_);
    warnings.push_back(message);
  }

  size_t used() {
    std::lock_guard<std::mutex> lock(mu_);
    return used_;
  }
  std::map<uintptr_t, size_t> live() {
    std::lock_guard<std::mutex> lock(mu_);
    return live_;
  }

  // Injection: the next `fail_next` mallocs fail with fail_status and fail_message.
  int fail_next = 0;
  Status fail_status = Status::kOutOfMemory;
  std::string fail_message;
  bool fail_event_record = false;
  // What happened.
  int malloc_calls = 0, free_calls = 0, records = 0, event_syncs = 0, device_syncs = 0;
  std::vector<size_t> malloc_sizes;
  std::vector<std::string> warnings;

 private:
  std::mutex mu_;
  size_t capacity_;
  size_t used_ = 0;
  uintptr_t next_ = uintptr_t{1} << 32;
  std::map<uintptr_t, size_t> live_;
  std::vector<std::unique_ptr<FakeStream>> streams_;
  std::vector<std::unique_ptr<FakeEvent>> events_;
};

uintptr_t addr(void* p) { return reinterpret_cast<uintptr_t>(p); }

class Allocator : public ::testing::Test {
 protected:
  explicit Allocator(size_t capacity = 1024 * kMiB, bool caching = true)
      : dev_(capacity), alloc_(&dev_, 2, caching), s1_(dev_.stream()), s2_(dev_.stream()), s3_(dev_.stream()) {}

  void* get(size_t n, FakeStream* s = nullptr) {
    void* p = nullptr;
    std::string why;
    EXPECT_EQ(alloc_.malloc(0, n, s ? s : s1_, &p, &why), Status::kOk) << why;
    EXPECT_NE(p, nullptr);
    return p;
  }
  void put(void* p) { EXPECT_TRUE(alloc_.free(0, p)); }
  // The blocks of device 0's segments: (size, allocated), segment by segment.
  std::vector<std::vector<std::pair<size_t, bool>>> layout() {
    std::vector<std::vector<std::pair<size_t, bool>>> out;
    for (const SegmentInfo& seg : alloc_.snapshot(0)) {
      out.emplace_back();
      for (const BlockInfo& b : seg.blocks) out.back().emplace_back(b.size, b.allocated);
    }
    return out;
  }
  using Layout = std::vector<std::vector<std::pair<size_t, bool>>>;

  FakeDevice dev_;
  CachingAllocator alloc_;
  FakeStream *s1_, *s2_, *s3_;
};

TEST(CachingAllocatorSizes, RoundingAndSegmentsAsTorch) {
  EXPECT_EQ(round_size(0), 512u);
  EXPECT_EQ(round_size(1), 512u);
  EXPECT_EQ(round_size(512), 512u);
  EXPECT_EQ(round_size(513), 1024u);
  EXPECT_EQ(round_size(kMiB + 1), kMiB + 512);
  EXPECT_EQ(segment_size(512), 2 * kMiB);
  EXPECT_EQ(segment_size(kMiB), 2 * kMiB);
  EXPECT_EQ(segment_size(kMiB + 512), 20 * kMiB);
  EXPECT_EQ(segment_size(10 * kMiB - 512), 20 * kMiB);
  EXPECT_EQ(segment_size(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(segment_size(10 * kMiB + 512), 12 * kMiB);
}

TEST(CachingAllocatorEnv, AnyValueButEmptyOrZeroTurnsCachingOff) {
  EXPECT_TRUE(caching_enabled_by_env(nullptr));
  EXPECT_TRUE(caching_enabled_by_env(""));
  EXPECT_TRUE(caching_enabled_by_env("0"));
  EXPECT_FALSE(caching_enabled_by_env("1"));
  EXPECT_FALSE(caching_enabled_by_env("yes"));
}

TEST_F(Allocator, SmallRequestsSplitOneTwoMiBSegment) {
  void* a = get(1000);
  void* b = get(1);
  void* c = get(kMiB);
  EXPECT_EQ(dev_.malloc_sizes, std::vector<size_t>{2 * kMiB});
  EXPECT_EQ(addr(b), addr(a) + 1024);
  EXPECT_EQ(addr(c), addr(b) + 512);
  EXPECT_EQ(layout(), (Layout{{{1024, true}, {512, true}, {kMiB, true}, {kMiB - 1536, false}}}));
  const DeviceStats st = alloc_.stats(0);
  EXPECT_EQ(st.allocated_bytes.current, static_cast<int64_t>(1536 + kMiB));
  EXPECT_EQ(st.reserved_bytes.current, static_cast<int64_t>(2 * kMiB));
  EXPECT_EQ(st.segment.current, 1);
  EXPECT_EQ(st.allocation.current, 3);
}

TEST_F(Allocator, SmallBlocksSplitDownTo512Bytes) {
  void* a = get(kMiB);
  void* b = get(kMiB - 512);
  EXPECT_EQ(layout(), (Layout{{{kMiB, true}, {kMiB - 512, true}, {512, false}}}));
  void* c = get(1);  // the last 512 bytes
  EXPECT_EQ(addr(c), addr(b) + kMiB - 512);
  EXPECT_EQ(layout(), (Layout{{{kMiB, true}, {kMiB - 512, true}, {512, true}}}));
  EXPECT_EQ(dev_.malloc_calls, 1);
  put(b);
  put(a);
  put(c);
  EXPECT_EQ(layout(), (Layout{{{2 * kMiB, false}}}));
}

TEST_F(Allocator, LargePoolSplitsOnlyRemaindersAboveOneMiB) {
  void* a = get(3 * kMiB);  // a 20 MiB segment, split
  EXPECT_EQ(dev_.malloc_sizes, std::vector<size_t>{20 * kMiB});
  EXPECT_EQ(layout(), (Layout{{{3 * kMiB, true}, {17 * kMiB, false}}}));
  void* b = get(16 * kMiB);  // the 1 MiB left is not worth a block: b takes all 17 MiB
  EXPECT_EQ(addr(b), addr(a) + 3 * kMiB);
  EXPECT_EQ(layout(), (Layout{{{3 * kMiB, true}, {17 * kMiB, true}}}));
  EXPECT_EQ(alloc_.stats(0).allocated_bytes.current, static_cast<int64_t>(20 * kMiB));
  void* c = get(11 * kMiB);  // at least 10 MiB: a segment of its own, rounded up to 2 MiB and not split
  EXPECT_EQ(dev_.malloc_sizes, (std::vector<size_t>{20 * kMiB, 12 * kMiB}));
  EXPECT_EQ(alloc_.stats(0).allocated_bytes.current, static_cast<int64_t>(32 * kMiB));
  put(a);
  put(b);
  put(c);
}

TEST_F(Allocator, BestFitReusesTheSmallestFreeBlock) {
  void* a = get(1024);
  void* b = get(4096);
  void* c = get(1024);
  void* d = get(2048);
  void* e = get(1024);
  put(b);
  put(d);
  void* f = get(1500);  // fits in d (2048) and b (4096): the smaller one
  EXPECT_EQ(f, d);
  void* g = get(3000);  // b, split: 3072 taken, 1024 left
  EXPECT_EQ(g, b);
  void* h = get(1000);  // the 1024 left of b, before the tail of the segment
  EXPECT_EQ(addr(h), addr(b) + 3072);
  EXPECT_EQ(dev_.malloc_calls, 1);
  for (void* p : {a, c, e, f, g, h}) put(p);
  EXPECT_EQ(layout(), (Layout{{{2 * kMiB, false}}}));
}

TEST_F(Allocator, FreedBlocksMergeWithFreeNeighboursInAnyOrder) {
  const std::vector<std::vector<int>> orders{{0, 1, 2}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}};
  for (const auto& order : orders) {
    void* p[3] = {get(1024), get(2048), get(4096)};
    for (int i : order) put(p[i]);
    EXPECT_EQ(layout(), (Layout{{{2 * kMiB, false}}}));
  }
  EXPECT_EQ(dev_.malloc_calls, 1);
}

TEST_F(Allocator, EmptyCacheReleasesOnlyWholeFreeSegments) {
  void* a = get(1024);
  void* b = get(3 * kMiB);
  put(b);
  std::string why;
  EXPECT_EQ(alloc_.empty_cache(0, &why), Status::kOk);
  EXPECT_EQ(dev_.live().size(), 1u);  // a's segment stays, b's went back
  EXPECT_EQ(alloc_.stats(0).reserved_bytes.current, static_cast<int64_t>(2 * kMiB));
  put(a);
  EXPECT_EQ(alloc_.empty_cache(0, &why), Status::kOk);
  EXPECT_EQ(dev_.used(), 0u);
  EXPECT_EQ(dev_.free_calls, 2);
  const DeviceStats st = alloc_.stats(0);
  EXPECT_EQ(st.reserved_bytes.current, 0);
  EXPECT_EQ(st.segment.current, 0);
  EXPECT_EQ(st.reserved_bytes.peak, static_cast<int64_t>(22 * kMiB));
}

TEST_F(Allocator, SmallAndLargePoolsAreSeparate) {
  void* a = get(3 * kMiB);
  put(a);
  void* b = get(1000);  // not from the free 20 MiB large block
  EXPECT_EQ(dev_.malloc_sizes, (std::vector<size_t>{20 * kMiB, 2 * kMiB}));
  put(b);
  void* c = get(2 * kMiB);  // not from the free 2 MiB small block
  EXPECT_EQ(c, a);
  put(c);
}

TEST_F(Allocator, BlocksBelongToTheirStream) {
  void* a = get(1024, s1_);
  put(a);
  void* b = get(1024, s2_);  // s1's free block is not handed to s2
  EXPECT_NE(b, a);
  EXPECT_EQ(dev_.malloc_calls, 2);
  void* c = get(1024, s1_);  // but to s1 again at once: its work is ordered after the free
  EXPECT_EQ(c, a);
  put(b);
  put(c);
}

TEST_F(Allocator, RecordStreamDelaysReuseUntilThatStreamsWorkIsDone) {
  void* a = get(1024, s1_);
  EXPECT_TRUE(alloc_.record_stream(0, static_cast<char*>(a) + 100, s2_));  // a view inside the block
  EXPECT_TRUE(alloc_.record_stream(0, a, s1_));                            // its own stream: nothing to do
  dev_.launch(s2_);
  put(a);
  EXPECT_EQ(dev_.records, 1);
  EXPECT_EQ(layout(), (Layout{{{1024, false}, {2 * kMiB - 1024, false}}}));
  EXPECT_EQ(alloc_.snapshot(0)[0].blocks[0].pending_events, 1);
  void* b = get(1024, s1_);  // s2 is still busy with a: b is elsewhere
  EXPECT_NE(b, a);
  dev_.launch(s2_);  // later work on s2 does not matter
  dev_.finish(s1_);
  void* c = get(1024, s1_);
  EXPECT_NE(c, a);
  // s2 finishes: a returns to s1's pool at the next malloc and merges with its free neighbours.
  dev_.finish(s2_);
  void* d = get(1024, s1_);
  EXPECT_EQ(d, a);
  for (void* p : {b, c, d}) put(p);
  EXPECT_EQ(layout(), (Layout{{{2 * kMiB, false}}}));
}

TEST_F(Allocator, EveryRecordedStreamMustFinish) {
  void* a = get(4096, s1_);
  EXPECT_TRUE(alloc_.record_stream(0, a, s2_));
  EXPECT_TRUE(alloc_.record_stream(0, a, s3_));
  EXPECT_TRUE(alloc_.record_stream(0, a, s3_));  // once per stream
  dev_.launch(s2_);
  dev_.launch(s3_);
  put(a);
  EXPECT_EQ(dev_.records, 2);
  dev_.finish(s2_);
  void* b = get(4096, s1_);
  EXPECT_NE(b, a);
  dev_.finish(s3_);
  void* c = get(4096, s1_);
  EXPECT_EQ(c, a);
  put(b);
  put(c);
}

TEST_F(Allocator, RecordStreamOfAnUnknownPointerIsRefused) {
  void* a = get(1024);
  EXPECT_FALSE(alloc_.record_stream(0, static_cast<char*>(a) + 1024, s2_));  // the free block after a
  EXPECT_FALSE(alloc_.record_stream(0, reinterpret_cast<void*>(16), s2_));
  put(a);
  EXPECT_FALSE(alloc_.record_stream(0, a, s2_));
}

TEST_F(Allocator, EmptyCacheWaitsForPendingEvents) {
  void* a = get(3 * kMiB, s1_);
  EXPECT_TRUE(alloc_.record_stream(0, a, s2_));
  dev_.launch(s2_);
  put(a);
  std::string why;
  EXPECT_EQ(alloc_.empty_cache(0, &why), Status::kOk);
  EXPECT_EQ(dev_.event_syncs, 1);
  EXPECT_EQ(dev_.used(), 0u);
  EXPECT_TRUE(alloc_.snapshot(0).empty());
}

TEST_F(Allocator, AFailedEventRecordFallsBackToWaitingForTheDevice) {
  void* a = get(1024, s1_);
  EXPECT_TRUE(alloc_.record_stream(0, a, s2_));
  dev_.launch(s2_);
  dev_.fail_event_record = true;
  put(a);
  ASSERT_EQ(dev_.warnings.size(), 1u);
  EXPECT_EQ(dev_.warnings[0],
            "cuda: caching allocator: cannot record an event at a free (cudaEventRecord failed: invalid resource "
            "handle); waiting for the device instead");
  EXPECT_EQ(dev_.device_syncs, 1);
  EXPECT_EQ(get(1024, s1_), a);  // safe at once
}

TEST_F(Allocator, StatisticsCountBlocksSegmentsAndPeaks) {
  void* a = get(1000);
  void* b = get(3 * kMiB);
  put(a);
  void* c = get(100);
  DeviceStats st = alloc_.stats(0);
  EXPECT_EQ(st.allocation.current, 2);
  EXPECT_EQ(st.allocation.allocated, 3);
  EXPECT_EQ(st.allocation.freed, 1);
  EXPECT_EQ(st.allocation.peak, 2);
  EXPECT_EQ(st.allocated_bytes.current, static_cast<int64_t>(512 + 3 * kMiB));
  EXPECT_EQ(st.allocated_bytes.peak, static_cast<int64_t>(1024 + 3 * kMiB));
  EXPECT_EQ(st.reserved_bytes.current, static_cast<int64_t>(22 * kMiB));
  EXPECT_EQ(st.segment.current, 2);
  put(b);
  alloc_.reset_peak_stats(0);
  st = alloc_.stats(0);
  EXPECT_EQ(st.allocated_bytes.peak, 512);
  EXPECT_EQ(st.allocation.peak, 1);
  EXPECT_EQ(st.reserved_bytes.peak, static_cast<int64_t>(22 * kMiB));
  EXPECT_EQ(st.num_ooms, 0);
  EXPECT_EQ(st.num_alloc_retries, 0);
  put(c);
  // Device 1 has its own statistics.
  EXPECT_EQ(alloc_.stats(1).allocation.allocated, 0);
}

TEST_F(Allocator, FreeOfAPointerThatIsNotAnAllocatedBlockIsRefused) {
  void* a = get(1024);
  EXPECT_FALSE(alloc_.free(0, static_cast<char*>(a) + 512));
  EXPECT_FALSE(alloc_.free(0, nullptr));
  EXPECT_FALSE(alloc_.free(1, a));  // another device's allocator
  put(a);
  EXPECT_FALSE(alloc_.free(0, a));  // twice
  const DeviceStats st = alloc_.stats(0);
  EXPECT_EQ(st.allocation.freed, 1);
  EXPECT_EQ(st.allocated_bytes.current, 0);
}

TEST_F(Allocator, DevicesAreSeparate) {
  void* a = get(1024);
  put(a);
  void* b = nullptr;
  std::string why;
  ASSERT_EQ(alloc_.malloc(1, 1024, s1_, &b, &why), Status::kOk);
  EXPECT_NE(b, a);
  EXPECT_EQ(dev_.malloc_calls, 2);
  EXPECT_EQ(alloc_.stats(1).reserved_bytes.current, static_cast<int64_t>(2 * kMiB));
  EXPECT_TRUE(alloc_.free(1, b));
}

class SmallDevice : public Allocator {
 protected:
  SmallDevice() : Allocator(32 * kMiB) {}
};

TEST_F(SmallDevice, OutOfMemoryEmptiesTheCacheAndRetries) {
  void* a = get(12 * kMiB);  // its own 12 MiB segment
  put(a);
  void* b = get(21 * kMiB);  // 22 more do not fit next to the cached 12: released, then it fits
  EXPECT_EQ(dev_.malloc_sizes, (std::vector<size_t>{12 * kMiB, 22 * kMiB, 22 * kMiB}));
  EXPECT_EQ(dev_.free_calls, 1);
  const DeviceStats st = alloc_.stats(0);
  EXPECT_EQ(st.num_alloc_retries, 1);
  EXPECT_EQ(st.num_ooms, 0);
  EXPECT_EQ(st.reserved_bytes.current, static_cast<int64_t>(22 * kMiB));
  put(b);
}

TEST_F(SmallDevice, OutOfMemoryAfterTheRetryFailsWithTorchsMessageAndChangesNothing) {
  void* a = get(1000);
  void* b = get(12 * kMiB);
  void* p = reinterpret_cast<void*>(1);
  std::string why;
  EXPECT_EQ(alloc_.malloc(0, 19 * kMiB, s1_, &p, &why), Status::kOutOfMemory);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(why,
            "CUDA out of memory. Tried to allocate 19.00 MiB (GPU 0; 32.00 MiB total capacity; 12.00 MiB already "
            "allocated; 18.00 MiB free; 14.00 MiB reserved in total by glia)");
  DeviceStats st = alloc_.stats(0);
  EXPECT_EQ(st.num_ooms, 1);
  EXPECT_EQ(st.num_alloc_retries, 1);
  EXPECT_EQ(st.allocation.current, 2);
  EXPECT_EQ(st.allocated_bytes.current, static_cast<int64_t>(1024 + 12 * kMiB));
  EXPECT_EQ(st.reserved_bytes.current, static_cast<int64_t>(14 * kMiB));
  // A request no device could hold, and one whose rounding would overflow.
  EXPECT_EQ(alloc_.malloc(0, SIZE_MAX, s1_, &p, &why), Status::kOutOfMemory);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(alloc_.malloc(0, size_t{1} << 40, s1_, &p, &why), Status::kOutOfMemory);
  EXPECT_EQ(why.rfind("CUDA out of memory. Tried to allocate 1024.00 GiB (GPU 0; ", 0), 0u) << why;
  EXPECT_EQ(alloc_.stats(0).num_ooms, 3);
  put(a);
  put(b);
}

TEST_F(SmallDevice, InjectedOutOfMemoryIsRetriedOnce) {
  void* a = get(3 * kMiB);
  put(a);
  dev_.fail_next = 1;
  void* b = get(1000);  // fails once, the cache is emptied, the second try succeeds
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(alloc_.stats(0).num_alloc_retries, 1);
  EXPECT_EQ(dev_.used(), 2 * kMiB);
  put(b);
  dev_.fail_next = 2;
  void* p = nullptr;
  std::string why;
  EXPECT_EQ(alloc_.malloc(0, 3 * kMiB, s1_, &p, &why), Status::kOutOfMemory);
  EXPECT_EQ(why,
            "CUDA out of memory. Tried to allocate 3.00 MiB (GPU 0; 32.00 MiB total capacity; 0 bytes already "
            "allocated; 32.00 MiB free; 0 bytes reserved in total by glia)");
}

TEST_F(SmallDevice, OtherDeviceErrorsAreNotRetried) {
  dev_.fail_next = 1;
  dev_.fail_status = Status::kDeviceError;
  dev_.fail_message = "cuda: cudaMalloc failed: unspecified launch failure (cudaErrorLaunchFailure)";
  void* p = nullptr;
  std::string why;
  EXPECT_EQ(alloc_.malloc(0, 1000, s1_, &p, &why), Status::kDeviceError);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(why, dev_.fail_message);
  const DeviceStats st = alloc_.stats(0);
  EXPECT_EQ(st.num_alloc_retries, 0);
  EXPECT_EQ(st.num_ooms, 0);
  EXPECT_EQ(st.allocation.allocated, 0);
  EXPECT_EQ(st.reserved_bytes.current, 0);
  put(get(1000));  // the device works again
}

class Uncached : public Allocator {
 protected:
  Uncached() : Allocator(32 * kMiB, false) {}
};

TEST_F(Uncached, EveryRequestIsItsOwnExactDeviceAllocation) {
  EXPECT_FALSE(alloc_.caching());
  void* a = get(1000);
  void* b = get(1000);
  EXPECT_EQ(dev_.malloc_sizes, (std::vector<size_t>{1000, 1000}));
  EXPECT_TRUE(alloc_.record_stream(0, static_cast<char*>(a) + 999, s2_));
  EXPECT_FALSE(alloc_.record_stream(0, static_cast<char*>(a) + 1000, s2_));
  DeviceStats st = alloc_.stats(0);
  EXPECT_EQ(st.allocated_bytes.current, 2000);
  EXPECT_EQ(st.reserved_bytes.current, 2000);
  put(a);
  EXPECT_EQ(dev_.free_calls, 1);  // at once
  EXPECT_EQ(dev_.records, 0);
  EXPECT_FALSE(alloc_.free(0, a));
  void* z = get(0);
  EXPECT_EQ(dev_.malloc_sizes.back(), 1u);
  put(z);
  void* p = nullptr;
  std::string why;
  EXPECT_EQ(alloc_.malloc(0, 40 * kMiB, s1_, &p, &why), Status::kOutOfMemory);
  EXPECT_EQ(why,
            "CUDA out of memory. Tried to allocate 40.00 MiB (GPU 0; 32.00 MiB total capacity; 1000 bytes already "
            "allocated; 32.00 MiB free; 1000 bytes reserved in total by glia)");
  st = alloc_.stats(0);
  EXPECT_EQ(st.num_ooms, 1);
  EXPECT_EQ(st.allocation.allocated, 3);
  EXPECT_EQ(st.reserved_bytes.peak, 2000);
  EXPECT_EQ(alloc_.snapshot(0).size(), 1u);
  put(b);
  EXPECT_EQ(alloc_.empty_cache(0, &why), Status::kOk);
  EXPECT_EQ(dev_.used(), 0u);
}

// Checks the allocator against the fake device and a model of the live allocations: blocks never overlap and
// lie in the device's segments, the segments cover all reserved bytes, free neighbours are merged, the
// statistics add up, and a block freed while another stream used it is not handed out before that stream's
// work is done.
class Checker {
 public:
  Checker(FakeDevice* dev, CachingAllocator* alloc) : dev_(dev), alloc_(alloc) {}

  void allocated(void* p, size_t n, FakeStream* s) {
    const uintptr_t a = addr(p);
    for (auto it = guards_.begin(); it != guards_.end();) {
      const Guard& g = it->second;
      const bool overlaps = a < it->first + g.size && it->first < a + round_size(n);
      if (g.user->done >= g.ticket) {
        it = guards_.erase(it);
        continue;
      }
      if (overlaps) ADD_FAILURE() << "a block was reused before the work of a stream using it finished";
      ++it;
    }
    live_.emplace(a, Live{n, s, {}});
  }
  void used_on(void* p, FakeStream* s) { live_.at(addr(p)).uses.push_back(s); }
  void freed(void* p) {
    auto it = live_.find(addr(p));
    for (FakeStream* u : it->second.uses)
      if (u != it->second.stream) guards_.emplace(it->first, Guard{round_size(it->second.size), u, u->queued});
    live_.erase(it);
  }
  const std::map<uintptr_t, std::pair<size_t, FakeStream*>> live() const {
    std::map<uintptr_t, std::pair<size_t, FakeStream*>> out;
    for (auto& [a, l] : live_) out.emplace(a, std::make_pair(l.size, l.stream));
    return out;
  }

  void check() {
    const auto segments = alloc_->snapshot(0);
    const auto device = dev_->live();
    const DeviceStats st = alloc_->stats(0);
    ASSERT_EQ(segments.size(), device.size());
    size_t reserved = 0, allocated = 0;
    int64_t blocks_allocated = 0;
    std::map<uintptr_t, size_t> allocated_blocks;
    for (const SegmentInfo& seg : segments) {
      ASSERT_EQ(device.count(seg.address), 1u);
      ASSERT_EQ(device.at(seg.address), seg.size);
      reserved += seg.size;
      uintptr_t at = seg.address;
      const BlockInfo* prev = nullptr;
      for (const BlockInfo& b : seg.blocks) {
        ASSERT_EQ(b.address, at);
        at += b.size;
        if (b.allocated) {
          allocated += b.size;
          ++blocks_allocated;
          allocated_blocks.emplace(b.address, b.size);
        }
        if (prev) {
          ASSERT_FALSE(!prev->allocated && !b.allocated && prev->pending_events == 0 && b.pending_events == 0)
              << "two free neighbours not merged";
        }
        prev = &b;
      }
      ASSERT_EQ(at, seg.address + seg.size);
    }
    ASSERT_EQ(reserved, dev_->used());
    ASSERT_EQ(static_cast<int64_t>(reserved), st.reserved_bytes.current);
    ASSERT_EQ(static_cast<int64_t>(allocated), st.allocated_bytes.current);
    ASSERT_EQ(blocks_allocated, st.allocation.current);
    ASSERT_EQ(static_cast<int64_t>(segments.size()), st.segment.current);
    ASSERT_EQ(allocated_blocks.size(), live_.size());
    for (auto& [a, l] : live_) {
      ASSERT_EQ(allocated_blocks.count(a), 1u);
      const size_t size = allocated_blocks.at(a);
      const size_t want = round_size(l.size);
      ASSERT_GE(size, want);
      ASSERT_LE(size - want, want <= kSmallSize ? kMinBlockSize - 1 : kSmallSize);  // kept, not split
    }
  }

 private:
  struct Live {
    size_t size;
    FakeStream* stream;
    std::vector<FakeStream*> uses;
  };
  struct Guard {
    size_t size;
    FakeStream* user;
    uint64_t ticket;
  };
  FakeDevice* dev_;
  CachingAllocator* alloc_;
  std::map<uintptr_t, Live> live_;
  std::multimap<uintptr_t, Guard> guards_;
};

TEST(CachingAllocatorStress, RandomOperationsKeepEveryInvariant) {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    FakeDevice dev(160 * kMiB);
    CachingAllocator alloc(&dev, 1, true);
    FakeStream* streams[3] = {dev.stream(), dev.stream(), dev.stream()};
    Checker checker(&dev, &alloc);
    std::mt19937 rng(seed);
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    std::vector<void*> live;
    int ooms = 0;
    for (int step = 0; step < 4000; ++step) {
      const size_t op = pick(100);
      if (op < 45 || live.empty()) {
        // Sizes from a few bytes to 24 MiB, log-uniform, so both pools and all segment kinds occur.
        const double e = std::uniform_real_distribution<double>(0.0, 24.5)(rng);
        const size_t n = static_cast<size_t>(std::exp2(e));
        FakeStream* s = streams[pick(3)];
        void* p = nullptr;
        std::string why;
        const Status st = alloc.malloc(0, n, s, &p, &why);
        if (st == Status::kOutOfMemory) {
          ++ooms;
          ASSERT_EQ(p, nullptr);
          ASSERT_EQ(why.rfind("CUDA out of memory. Tried to allocate ", 0), 0u);
        } else {
          ASSERT_EQ(st, Status::kOk) << why;
          checker.allocated(p, n, s);
          live.push_back(p);
        }
      } else if (op < 80) {
        const size_t i = pick(live.size());
        checker.freed(live[i]);
        ASSERT_TRUE(alloc.free(0, live[i]));
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (op < 88) {
        void* p = live[pick(live.size())];
        FakeStream* s = streams[pick(3)];
        const size_t n = checker.live().at(addr(p)).first;
        ASSERT_TRUE(alloc.record_stream(0, static_cast<char*>(p) + pick(std::max<size_t>(n, 1)), s));
        checker.used_on(p, s);
        dev.launch(s);
      } else if (op < 97) {
        FakeStream* s = streams[pick(3)];
        if (pick(2))
          dev.launch(s);
        else
          dev.finish(s);
      } else {
        std::string why;
        ASSERT_EQ(alloc.empty_cache(0, &why), Status::kOk);
      }
      checker.check();
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(ooms, 0);  // the capacity is small enough for the retry path to be taken
    EXPECT_GT(alloc.stats(0).num_alloc_retries, 0);
    for (void* p : live) {
      checker.freed(p);
      ASSERT_TRUE(alloc.free(0, p));
    }
    std::string why;
    ASSERT_EQ(alloc.empty_cache(0, &why), Status::kOk);
    checker.check();
    EXPECT_EQ(dev.used(), 0u);
    const DeviceStats st = alloc.stats(0);
    EXPECT_EQ(st.allocated_bytes.allocated, st.allocated_bytes.freed);
    EXPECT_EQ(st.reserved_bytes.allocated, st.reserved_bytes.freed);
    EXPECT_EQ(st.allocation.allocated, st.allocation.freed);
  }
}

TEST(CachingAllocatorThreads, ConcurrentCallsOnTwoDevicesKeepBlocksApart) {
  FakeDevice dev(4096 * kMiB);
  CachingAllocator alloc(&dev, 2, true);
  std::mutex mu;
  std::map<std::pair<int32_t, uintptr_t>, size_t> live;  // all threads' blocks
  bool overlap = false;
  auto worker = [&](int32_t device, uint32_t seed) {
    FakeStream* s = dev.stream();
    std::mt19937 rng(seed);
    std::vector<void*> mine;
    for (int i = 0; i < 3000; ++i) {
      if (mine.empty() || rng() % 2) {
        const size_t n = 1 + rng() % (rng() % 4 ? 65536 : 4 * kMiB);
        void* p = nullptr;
        std::string why;
        ASSERT_EQ(alloc.malloc(device, n, s, &p, &why), Status::kOk) << why;
        std::lock_guard<std::mutex> lock(mu);
        const uintptr_t a = addr(p);
        auto next = live.lower_bound({device, a});
        if (next != live.end() && next->first.first == device && next->first.second < a + n) overlap = true;
        if (next != live.begin()) {
          auto prev = std::prev(next);
          if (prev->first.first == device && prev->first.second + prev->second > a) overlap = true;
        }
        live.emplace(std::make_pair(device, a), n);
        mine.push_back(p);
      } else {
        void* p = mine.back();
        mine.pop_back();
        {
          std::lock_guard<std::mutex> lock(mu);
          live.erase({device, addr(p)});
        }
        ASSERT_TRUE(alloc.free(device, p));
      }
      if (i % 500 == 0) {
        std::string why;
        ASSERT_EQ(alloc.empty_cache(device, &why), Status::kOk);
      }
    }
    for (void* p : mine) {
      {
        std::lock_guard<std::mutex> lock(mu);
        live.erase({device, addr(p)});
      }
      ASSERT_TRUE(alloc.free(device, p));
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 6; ++t) threads.emplace_back(worker, static_cast<int32_t>(t % 2), 100 + t);
  for (auto& t : threads) t.join();
  EXPECT_FALSE(overlap);
  std::string why;
  for (int32_t d = 0; d < 2; ++d) {
    EXPECT_EQ(alloc.empty_cache(d, &why), Status::kOk);
    const DeviceStats st = alloc.stats(d);
    EXPECT_EQ(st.allocation.current, 0);
    EXPECT_EQ(st.allocation.allocated, st.allocation.freed);
    EXPECT_EQ(st.reserved_bytes.current, 0);
  }
  EXPECT_EQ(dev.used(), 0u);
}

}  // namespace
}  // namespace glia::cuda
