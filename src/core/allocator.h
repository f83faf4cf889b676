// The CPU allocator: 64-byte aligned blocks, a size-class cache, optional host
// hooks (glia_set_allocator), and the statistics of glia_memory_stats.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/refcount.h"

namespace glia {

constexpr size_t kAlignment = 64;

// An allocator description from the host (or the built-in one when fns are null).
struct HostAllocator : RefCounted {
  void* (*alloc_fn)(void*, size_t, size_t) = nullptr;
  void (*free_fn)(void*, void*, size_t) = nullptr;
  void* user_data = nullptr;
  void (*free_user_data)(void*) = nullptr;
  ~HostAllocator() override;
};

struct CpuBlock {
  void* ptr = nullptr;
  size_t size = 0;  // the rounded size the block really has
  Ref<HostAllocator> owner;
};

// Throws Error(OutOfMemory) when even an emptied cache does not help.
CpuBlock cpu_allocate(size_t nbytes);
void cpu_deallocate(CpuBlock& block) noexcept;

// Replaces the host allocator (null: built-in); empties the cache first.
void set_host_allocator(Ref<HostAllocator> a);

struct MemoryStats {
  uint64_t bytes_in_use, peak_bytes_in_use, bytes_cached, allocations;
};
MemoryStats memory_stats();
void reset_peak_memory_stats();
void empty_cache();

}  // namespace glia
