#pragma once
// Per-thread scratch buffers that do not pin the library (Note [Per-thread scratch]).

#include <cstddef>

namespace glia {

// Who owns a scratch slot: each user has its own, so nested users never share memory.
enum class ScratchSlot : int { GemmA, GemmB, ConvColFloat, ConvColDouble, ConvColOther, kCount };

// Note [Per-thread scratch]: kernels keep packing and im2col buffers per thread so that a hot loop
// does not allocate. A thread_local with a destructor would make glibc pin libglia
// (Note [Trivially destructible TLS]), so the per-thread part is plain data (pointer, capacity,
// generation) and the blocks are owned by a process-wide list: glia_shutdown frees them all and
// bumps the generation, after which each thread's stale pointer is dropped unread on its next
// use. A thread that exits keeps its blocks in the list until glia_shutdown or unload.

// At least `bytes` bytes, 64-byte aligned, contents unspecified; valid on the calling thread until
// its next call for the same slot, or glia_shutdown. Throws std::bad_alloc.
void* thread_scratch(ScratchSlot slot, size_t bytes);

// Frees every thread's scratch (glia_shutdown; no kernel may be running).
void release_thread_scratch();

}  // namespace glia
