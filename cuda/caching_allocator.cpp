// Note [Caching allocator] in caching_allocator.h.
#include "caching_allocator.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>

namespace glia::cuda {

size_t round_size(size_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((nbytes + kMinBlockSize - 1) / kMinBlockSize);
}

size_t segment_size(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge);
}

bool caching_enabled_by_env(const char* no_caching_value) {
  return !no_caching_value || no_caching_value[0] == '\0' || std::string(no_caching_value) == "0";
}

namespace {

struct BlockPool;

struct Block {
  void* stream;
  size_t size;
  uintptr_t ptr;
  BlockPool* pool;
  bool allocated = false;
  int32_t event_count = 0;         // events still pending after a free (see insert_events)
  std::vector<void*> stream_uses;  // streams other than `stream` that used the block (record_stream)
  Block* prev = nullptr;           // neighbours in the same segment
  Block* next = nullptr;

  Block(void* s, size_t n, uintptr_t p, BlockPool* pl) : stream(s), size(n), ptr(p), pool(pl) {}
  bool is_split() const { return prev || next; }
};

// Free blocks ordered by (stream, size, address): lower_bound of (stream, size, 0) is the best fit.
struct BlockLess {
  bool operator()(const Block* a, const Block* b) const {
    const auto sa = reinterpret_cast<uintptr_t>(a->stream), sb = reinterpret_cast<uintptr_t>(b->stream);
    if (sa != sb) return sa < sb;
    if (a->size != b->size) return a->size < b->size;
    return a->ptr < b->ptr;
  }
};

struct BlockPool {
  explicit BlockPool(bool small) : is_small(small) {}
  std::set<Block*, BlockLess> blocks;
  const bool is_small;
};

void increase(Stat& s, int64_t n) {
  s.current += n;
  s.peak = std::max(s.peak, s.current);
  s.allocated += n;
}

void decrease(Stat& s, int64_t n) {
  s.current -= n;
  s.freed += n;
}

// torch's format_size.
std::string format_size(uint64_t size) {
  char buf[64];
  if (size <= 1024)
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(size));
  else if (size <= 1048576)
    std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(size) / 1024.0);
  else if (size <= 1073741824ULL)
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(size) / 1048576.0);
  else
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(size) / 1073741824.0);
  return buf;
}

}  // namespace

class DeviceCachingAllocator {
 public:
  DeviceCachingAllocator(DeviceInterface* dev, int32_t device, bool caching)
      : dev_(dev), device_(device), caching_(caching), large_(false), small_(true) {}

  // Host bookkeeping only: the device memory and events stay with the device (the backend's allocator lives
  // until the process exits, when the CUDA runtime may already be gone).
  ~DeviceCachingAllocator() {
    std::set<Block*> all;
    for (auto& [p, b] : allocated_) all.insert(b);
    for (Block* b : large_.blocks) all.insert(b);
    for (Block* b : small_.blocks) all.insert(b);
    for (auto& [s, q] : pending_)
      for (auto& [e, b] : q) all.insert(b);
    for (Block* b : all) delete b;
  }

  Status malloc(size_t nbytes, void* stream, void** out, std::string* message) {
    *out = nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    if (nbytes > kMaxRequest) return out_of_memory(nbytes, message);
    if (!caching_) return malloc_uncached(nbytes, out, message);
    Status st = process_events(message);
    if (st != Status::kOk) return st;
    const size_t size = round_size(nbytes);
    BlockPool& pool = size <= kSmallSize ? small_ : large_;
    Block* block = get_free_block(pool, stream, size);
    if (!block) {
      st = alloc_block(pool, stream, segment_size(size), &block, message);
      if (st == Status::kOutOfMemory) {
        // Give back every cached segment, then try once more.
        st = release_cached_blocks(message);
        if (st != Status::kOk) return st;
        ++stats_.num_alloc_retries;
        st = alloc_block(pool, stream, segment_size(size), &block, message);
      }
      if (st == Status::kOutOfMemory) return out_of_memory(size, message);
      if (st != Status::kOk) return st;
    }
    if (should_split(block, size)) {
      Block* rest = block;
      block = new Block(stream, size, rest->ptr, &pool);
      block->prev = rest->prev;
      if (block->prev) block->prev->next = block;
      block->next = rest;
      rest->prev = block;
      rest->ptr += size;
      rest->size -= size;
      pool.blocks.insert(rest);
    }
    block->allocated = true;
    allocated_.emplace(block->ptr, block);
    increase(stats_.allocation, 1);
    increase(stats_.allocated_bytes, static_cast<int64_t>(block->size));
    *out = reinterpret_cast<void*>(block->ptr);
    return Status::kOk;
  }

  bool free(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto p = reinterpret_cast<uintptr_t>(ptr);
    if (!caching_) {
      auto it = uncached_.find(p);
      if (it == uncached_.end()) return false;
      dev_->free(device_, ptr);
      const auto n = static_cast<int64_t>(it->second);
      uncached_.erase(it);
      decrease(stats_.allocation, 1);
      decrease(stats_.allocated_bytes, n);
      decrease(stats_.segment, 1);
      decrease(stats_.reserved_bytes, n);
      return true;
    }
    auto it = allocated_.find(p);
    if (it == allocated_.end()) return false;
    Block* block = it->second;
    allocated_.erase(it);
    block->allocated = false;
    decrease(stats_.allocation, 1);
    decrease(stats_.allocated_bytes, static_cast<int64_t>(block->size));
    if (block->stream_uses.empty())
      free_block(block);
    else
      insert_events(block);
    return true;
  }

  bool record_stream(void* ptr, void* stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto p = reinterpret_cast<uintptr_t>(ptr);
    if (!caching_) {
      auto it = uncached_.upper_bound(p);
      if (it == uncached_.begin()) return false;
      --it;
      return p < it->first + std::max<size_t>(it->second, 1);
    }
    auto it = allocated_.upper_bound(p);
    if (it == allocated_.begin()) return false;
    Block* block = (--it)->second;
    if (p >= block->ptr + block->size) return false;
    if (stream == block->stream) return true;
    auto& uses = block->stream_uses;
    if (std::find(uses.begin(), uses.end(), stream) == uses.end()) uses.push_back(stream);
    return true;
  }

  Status empty_cache(std::string* message) {
    std::lock_guard<std::mutex> lock(mutex_);
    return caching_ ? release_cached_blocks(message) : Status::kOk;
  }

  DeviceStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

  void reset_peak_stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Stat* s : {&stats_.allocation, &stats_.segment, &stats_.allocated_bytes, &stats_.reserved_bytes})
      s->peak = s->current;
  }

  std::vector<SegmentInfo> snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<SegmentInfo> out;
    if (!caching_) {
      for (auto& [p, n] : uncached_) out.push_back(SegmentInfo{p, n, nullptr, false, {BlockInfo{p, n, true, 0}}});
      return out;
    }
    std::map<uintptr_t, const Block*> all;
    for (auto& [p, b] : allocated_) all.emplace(p, b);
    for (const Block* b : large_.blocks) all.emplace(b->ptr, b);
    for (const Block* b : small_.blocks) all.emplace(b->ptr, b);
    for (auto& [s, q] : pending_)
      for (auto& [e, b] : q) all.emplace(b->ptr, b);
    for (auto& [p, b] : all) {
      if (b->prev) continue;
      SegmentInfo seg{p, 0, b->stream, b->pool->is_small, {}};
      for (const Block* x = b; x; x = x->next) {
        seg.blocks.push_back(BlockInfo{x->ptr, x->size, x->allocated, x->event_count});
        seg.size += x->size;
      }
      out.push_back(std::move(seg));
    }
    return out;
  }

 private:
  Status malloc_uncached(size_t nbytes, void** out, std::string* message) {
    Status st = dev_->malloc(device_, std::max<size_t>(nbytes, 1), out, message);
    if (st == Status::kOutOfMemory) return out_of_memory(nbytes, message);
    if (st != Status::kOk) return st;
    uncached_.emplace(reinterpret_cast<uintptr_t>(*out), nbytes);
    const auto n = static_cast<int64_t>(nbytes);
    increase(stats_.allocation, 1);
    increase(stats_.allocated_bytes, n);
    increase(stats_.segment, 1);
    increase(stats_.reserved_bytes, n);
    return Status::kOk;
  }

  Status out_of_memory(size_t size, std::string* message) {
    ++stats_.num_ooms;
    size_t free_bytes = 0, total_bytes = 0;
    const bool known = dev_->mem_info(device_, &free_bytes, &total_bytes);
    *message = "CUDA out of memory. Tried to allocate " + format_size(size) + " (GPU " + std::to_string(device_) +
               "; " + (known ? format_size(total_bytes) + " total capacity; " : "") +
               format_size(static_cast<uint64_t>(stats_.allocated_bytes.current)) + " already allocated; " +
               (known ? format_size(free_bytes) + " free; " : "") +
               format_size(static_cast<uint64_t>(stats_.reserved_bytes.current)) + " reserved in total by glia)";
    return Status::kOutOfMemory;
  }

  Block* get_free_block(BlockPool& pool, void* stream, size_t size) {
    Block key(stream, size, 0, &pool);
    auto it = pool.blocks.lower_bound(&key);
    if (it == pool.blocks.end() || (*it)->stream != stream) return nullptr;
    Block* block = *it;
    pool.blocks.erase(it);
    return block;
  }

  static bool should_split(const Block* block, size_t size) {
    const size_t rest = block->size - size;
    return block->pool->is_small ? rest >= kMinBlockSize : rest > kSmallSize;
  }

  Status alloc_block(BlockPool& pool, void* stream, size_t size, Block** out, std::string* message) {
    void* p = nullptr;
    Status st = dev_->malloc(device_, size, &p, message);
    if (st != Status::kOk) return st;
    *out = new Block(stream, size, reinterpret_cast<uintptr_t>(p), &pool);
    increase(stats_.segment, 1);
    increase(stats_.reserved_bytes, static_cast<int64_t>(size));
    return Status::kOk;
  }

  // A freed block (no pending events) merges with its free neighbours and returns to its pool.
  void free_block(Block* block) {
    for (Block* candidate : {block->prev, block->next}) try_merge(block, candidate);
    block->pool->blocks.insert(block);
  }

  void try_merge(Block* dst, Block* src) {
    if (!src || src->allocated || src->event_count > 0) return;
    if (dst->prev == src) {
      dst->ptr = src->ptr;
      dst->prev = src->prev;
      if (dst->prev) dst->prev->next = dst;
    } else {
      dst->next = src->next;
      if (dst->next) dst->next->prev = dst;
    }
    dst->size += src->size;
    dst->pool->blocks.erase(src);
    delete src;
  }

  // One event per stream that used the block; it returns to its pool when all have completed. When an event
  // cannot be recorded, waiting for the device makes the block safe at once.
  void insert_events(Block* block) {
    std::vector<void*> uses;
    uses.swap(block->stream_uses);
    for (void* stream : uses) {
      std::string why;
      void* event = nullptr;
      Status st = get_event(&event, &why);
      if (st == Status::kOk) {
        st = dev_->event_record(event, stream, &why);
        if (st != Status::kOk) free_events_.push_back(event);
      }
      if (st != Status::kOk) {
        dev_->warn("cuda: caching allocator: cannot record an event at a free (" + why +
                   "); waiting for the device instead");
        std::string sync_why;
        if (dev_->synchronize(device_, &sync_why) != Status::kOk)
          dev_->warn("cuda: caching allocator: waiting for the device failed (" + sync_why + ")");
        break;
      }
      ++block->event_count;
      pending_[stream].emplace_back(event, block);
    }
    if (block->event_count == 0) free_block(block);
  }

  Status get_event(void** out, std::string* message) {
    if (!free_events_.empty()) {
      *out = free_events_.back();
      free_events_.pop_back();
      return Status::kOk;
    }
    return dev_->event_create(device_, out, message);
  }

  void event_done(void* event, Block* block) {
    free_events_.push_back(event);
    if (--block->event_count == 0) free_block(block);
  }

  // Returns the blocks whose events have all completed to their pools. Events of one stream complete in the
  // order they were recorded.
  Status process_events(std::string* message) {
    for (auto it = pending_.begin(); it != pending_.end();) {
      auto& queue = it->second;
      while (!queue.empty()) {
        bool complete = false;
        Status st = dev_->event_query(queue.front().first, &complete, message);
        if (st != Status::kOk) return st;
        if (!complete) break;
        event_done(queue.front().first, queue.front().second);
        queue.pop_front();
      }
      it = queue.empty() ? pending_.erase(it) : std::next(it);
    }
    return Status::kOk;
  }

  Status release_cached_blocks(std::string* message) {
    for (auto it = pending_.begin(); it != pending_.end(); it = pending_.erase(it)) {
      auto& queue = it->second;
      while (!queue.empty()) {
        Status st = dev_->event_synchronize(queue.front().first, message);
        if (st != Status::kOk) return st;
        event_done(queue.front().first, queue.front().second);
        queue.pop_front();
      }
    }
    release_blocks(large_);
    release_blocks(small_);
    return Status::kOk;
  }

  // Gives back the free blocks that are whole segments.
  void release_blocks(BlockPool& pool) {
    for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
      Block* block = *it;
      if (block->is_split()) {
        ++it;
        continue;
      }
      dev_->free(device_, reinterpret_cast<void*>(block->ptr));
      decrease(stats_.segment, 1);
      decrease(stats_.reserved_bytes, static_cast<int64_t>(block->size));
      it = pool.blocks.erase(it);
      delete block;
    }
  }

  DeviceInterface* dev_;
  const int32_t device_;
  const bool caching_;
  mutable std::mutex mutex_;
  BlockPool large_, small_;
  std::map<uintptr_t, Block*> allocated_;  // by address: record_stream finds the block containing a pointer
  std::unordered_map<void*, std::deque<std::pair<void*, Block*>>> pending_;  // per stream: (event, block)
  std::vector<void*> free_events_;
  std::map<uintptr_t, size_t> uncached_;  // without caching: address -> requested size
  DeviceStats stats_;
};

CachingAllocator::CachingAllocator(DeviceInterface* device, int32_t device_count, bool caching) : caching_(caching) {
  for (int32_t d = 0; d < device_count; ++d)
    devices_.push_back(std::make_unique<DeviceCachingAllocator>(device, d, caching));
}

CachingAllocator::~CachingAllocator() = default;

Status CachingAllocator::malloc(int32_t device, size_t nbytes, void* stream, void** out, std::string* message) {
  return devices_[static_cast<size_t>(device)]->malloc(nbytes, stream, out, message);
}
bool CachingAllocator::free(int32_t device, void* ptr) { return devices_[static_cast<size_t>(device)]->free(ptr); }
bool CachingAllocator::record_stream(int32_t device, void* ptr, void* stream) {
  return devices_[static_cast<size_t>(device)]->record_stream(ptr, stream);
}
Status CachingAllocator::empty_cache(int32_t device, std::string* message) {
  return devices_[static_cast<size_t>(device)]->empty_cache(message);
}
DeviceStats CachingAllocator::stats(int32_t device) const { return devices_[static_cast<size_t>(device)]->stats(); }
void CachingAllocator::reset_peak_stats(int32_t device) { devices_[static_cast<size_t>(device)]->reset_peak_stats(); }
std::vector<SegmentInfo> CachingAllocator::snapshot(int32_t device) const {
  return devices_[static_cast<size_t>(device)]->snapshot();
}

}  // namespace glia::cuda
