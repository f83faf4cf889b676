// The CUDA backend's caching device allocator: host C++ over a small device interface, so the backend runs it
// over the CUDA runtime and tests/cuda/caching_allocator_test.cpp over a fake device memory on any machine.
//
// Note [Caching allocator] (torch's c10/cuda/CUDACachingAllocator.cpp, same policy):
// - Requests are rounded up to 512 bytes. Requests of at most 1 MiB come from the small pool, whose segments
//   (one device allocation each) are 2 MiB; larger ones from the large pool, whose segments are 20 MiB for
//   requests under 10 MiB and the request rounded up to 2 MiB above.
// - A free block is looked up in its pool by (stream, size): the smallest free block of the requesting stream
//   that fits. A block is split when the rest is worth keeping (>= 512 bytes in the small pool, > 1 MiB in the
//   large pool); a freed block merges with its free neighbours of the same segment.
// - Blocks belong to the stream they were allocated on: work on that stream is ordered, so a freed block is
//   reusable at once by later work on it. record_stream(ptr, s) marks a block used on another stream s; when
//   such a block is freed, an event is recorded on each of those streams and the block returns to its pool
//   only once all of them have completed (polled at the next malloc, waited for by empty_cache).
// - When the device is out of memory, the cached blocks that are whole segments are given back (after
//   waiting for pending events) and the allocation is tried once more; then it fails with torch's message.
// - One mutex per device. Statistics per device as torch's allocated_bytes/reserved_bytes (current and peak,
//   in rounded block bytes) and the number of allocations, frees, segments, retries and out-of-memory errors.
// - Without caching (GLIA_NO_CUDA_MEMORY_CACHING, torch's PYTORCH_NO_CUDA_MEMORY_CACHING), every request is
//   its own device allocation of exactly the requested size, freed at once: compute-sanitizer then sees
//   every out-of-bounds access. The device's free (cudaFree) waits for the device, so record_stream has
//   nothing to do.
// - Not (yet) torch's: PYTORCH_CUDA_ALLOC_CONF (max_split_size_mb, garbage_collection_threshold, expandable
//   segments), memory fractions, CUDA graph pools, free-memory callbacks, snapshots with stack traces.
#ifndef GLIA_CUDA_CACHING_ALLOCATOR_H
#define GLIA_CUDA_CACHING_ALLOCATOR_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace glia::cuda {

enum class Status { kOk, kOutOfMemory, kDeviceError };

// What the allocator needs of a device. Streams are opaque keys (the backend's stream handles). A failing call
// returns kOutOfMemory or kDeviceError and says why in *message.
class DeviceInterface {
 public:
  virtual ~DeviceInterface() = default;
  virtual Status malloc(int32_t device, size_t nbytes, void** out, std::string* message) = 0;
  virtual void free(int32_t device, void* ptr) = 0;
  // Free and total bytes of the device, for the out-of-memory message; false when unknown.
  virtual bool mem_info(int32_t device, size_t* free_bytes, size_t* total_bytes) = 0;
  virtual Status event_create(int32_t device, void** out, std::string* message) = 0;
  // Records `event` (of the stream's device) on `stream`: it completes when the work queued before it has.
  virtual Status event_record(void* event, void* stream, std::string* message) = 0;
  virtual Status event_query(void* event, bool* complete, std::string* message) = 0;
  virtual Status event_synchronize(void* event, std::string* message) = 0;
  virtual void event_destroy(void* event) = 0;
  // Waits for all work on the device: the fallback when an event cannot be recorded at a free.
  virtual Status synchronize(int32_t device, std::string* message) = 0;
  // A problem the allocator recovered from (a free cannot return an error).
  virtual void warn(const std::string& message) = 0;
};

constexpr size_t kMinBlockSize = 512;            // every request is rounded up to a multiple of this
constexpr size_t kSmallSize = 1048576;           // requests up to this size come from the small pool
constexpr size_t kSmallBuffer = 2097152;         // segment size of the small pool
constexpr size_t kLargeBuffer = 20971520;        // segment size of the large pool for requests under kMinLargeAlloc
constexpr size_t kMinLargeAlloc = 10485760;      // larger requests get a segment of their own size
constexpr size_t kRoundLarge = 2097152;          // ... rounded up to this
constexpr size_t kMaxRequest = size_t{1} << 62;  // larger requests fail as out of memory (rounding cannot overflow)

// The request size a block is made for, and the size of the segment a new block of that size comes from.
size_t round_size(size_t nbytes);
size_t segment_size(size_t rounded);

// torch's Stat: a current value, its peak, and the totals of its increases and decreases.
struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;
};

struct DeviceStats {
  Stat allocation;                // blocks handed out (allocated: number of mallocs, freed: number of frees)
  Stat segment;                   // device allocations held
  Stat allocated_bytes;           // bytes of the blocks handed out
  Stat reserved_bytes;            // bytes of the device allocations held (handed out or cached)
  int64_t num_alloc_retries = 0;  // mallocs that emptied the cache and tried again
  int64_t num_ooms = 0;           // mallocs that failed as out of memory
};

// One block of a segment, as snapshot() reports it.
struct BlockInfo {
  uintptr_t address;
  size_t size;
  bool allocated;
  int32_t pending_events;  // events still to complete before a freed block returns to its pool
};
struct SegmentInfo {
  uintptr_t address;
  size_t size;
  void* stream;
  bool small_pool;
  std::vector<BlockInfo> blocks;  // in address order, covering the segment
};

class DeviceCachingAllocator;

class CachingAllocator {
 public:
  // `device` must outlive the allocator. Without caching: see Note [Caching allocator].
  CachingAllocator(DeviceInterface* device, int32_t device_count, bool caching);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  int32_t device_count() const { return static_cast<int32_t>(devices_.size()); }
  bool caching() const { return caching_; }

  // A block of at least nbytes for work ordered on `stream`. On failure *out is NULL and *message says why
  // (kOutOfMemory: torch's "CUDA out of memory. Tried to allocate ..."). `device` must be in range.
  Status malloc(int32_t device, size_t nbytes, void* stream, void** out, std::string* message);
  // Returns a block from malloc. False (and nothing changes) for a pointer that is not an allocated block.
  bool free(int32_t device, void* ptr);
  // Marks the allocated block containing `ptr` as used on `stream` (see the Note). False when no allocated
  // block contains it.
  bool record_stream(int32_t device, void* ptr, void* stream);
  // Waits for pending events and gives every cached whole segment back to the device.
  Status empty_cache(int32_t device, std::string* message);

  DeviceStats stats(int32_t device) const;
  // Peaks back to the current values.
  void reset_peak_stats(int32_t device);
  std::vector<SegmentInfo> snapshot(int32_t device) const;

 private:
  std::vector<std::unique_ptr<DeviceCachingAllocator>> devices_;
  bool caching_;
};

// The environment switch: caching is off when GLIA_NO_CUDA_MEMORY_CACHING is set to anything but "" or "0".
bool caching_enabled_by_env(const char* no_caching_value);

}  // namespace glia::cuda

#endif  // GLIA_CUDA_CACHING_ALLOCATOR_H
