// Sorting and selection along one dim on the GPU (src/ops/cpu/sort.cpp): sort, topk, kthvalue, median (and
// nanmedian), mode. kernels.def: in0 rows of n (the dim last, contiguous), out1 int64 indices into the row.
//
// Note [CUDA sort by radix keys]: every kernel here starts from the same stable sort of each row: a radix key
// per element (sorting::radix_key, core/sort_math.h: the order of the CPU's less_nan, every NaN one largest
// key, -0.0 and +0.0 one key) paired with its index in the row, sorted by CUB's radix sort (stable), for
// descending orders on ~key. So ties come out in index order, as the CPU's stable sort and its (value, index)
// comparators give them:
//   - sort: the row in that order (descending: ~key, so equal values still keep index order);
//   - topk: the first k of the row sorted by ~key (largest) or key: the CPU's partial_sort with ties by index;
//   - kthvalue: position k - 1, the CPU's nth_element on (value, index);
//   - median / nanmedian: NaNs share the largest key and sort last in index order, so their count is n minus
//     the first position of that key, and the row's first NaN is at that position; sorting::median_rank then
//     picks the position, as on the CPU;
//   - mode: runs of equal keys; the longest, the first (smallest value) among the longest, its last element
//     (the greatest index holding that value), found by a block per row in a fixed tree.
// The values written are the input's own elements (gathered by index), so a NaN keeps its bits, as on the CPU.
// One row: cub::DeviceRadixSort; several: cub::DeviceSegmentedRadixSort over chunks of rows of fewer than
// 2^31 elements (its item count is an int). Keys and indices live in scratch memory from the caching
// allocator, on the call's device and stream.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <string>
#include <type_traits>

#include "common.h"
#include "core/sort_math.h"
#include "kernel_call.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

// The radix key type of a storage type: 64 bits for float64 and int64, 32 bits otherwise (the 16-bit floats
// keyed by their float value), and the bits of it the sort looks at.
template <class T>
using key_of = std::conditional_t<sizeof(acc_t<T>) == 8, uint64_t, uint32_t>;
template <class T>
constexpr int key_bits() {
  return is_float_v<T> ? static_cast<int>(8 * sizeof(key_of<T>)) : static_cast<int>(8 * sizeof(T));
}

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

template <class T, class K>
__global__ void __launch_bounds__(kThreads) keys_kernel(const T* __restrict x, int64_t total, int64_t n, bool flip,
                                                        K* __restrict keys, int64_t* __restrict pos) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += step) {
    const K k = sorting::radix_key<K>(load_acc(x[i]));
    keys[i] = flip ? static_cast<K>(~k) : k;
    pos[i] = i % n;
  }
}

__global__ void offsets_kernel(int* off, int64_t count, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < count; i += step)
    off[i] = static_cast<int>(i * n);
}

// Each row's (key, index) pairs sorted by key, stably (Note [CUDA sort by radix keys]); *keys and *pos point
// into `mem`.
template <class T>
glia_error* sort_rows(cudaStream_t s, const T* x, int64_t rows, int64_t n, bool flip, const char* what, Scratch* mem,
                      key_of<T>** keys, int64_t** pos) {
  using K = key_of<T>;
  constexpr int bits = key_bits<T>();
  const int64_t total = rows * n;
  // Rows per segmented sort (its counts are ints); a row of 2^30 elements or more sorts alone.
  const int64_t chunk = std::max<int64_t>(1, static_cast<int64_t>(INT_MAX) / n);
  const bool segmented = rows > 1 && chunk > 1;
  const int64_t seg_rows = std::min(chunk, rows);
  size_t temp = 0;
  cudaError_t st = cudaSuccess;
  if (!segmented) {
    st = cub::DeviceRadixSort::SortPairs(nullptr, temp, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                         static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr), n, 0,
                                         bits, s);
  } else {
    for (int64_t c : {seg_rows, rows % seg_rows}) {
      if (c == 0) continue;
      size_t t = 0;
      st = cub::DeviceSegmentedRadixSort::SortPairs(
          nullptr, t, static_cast<const K*>(nullptr), static_cast<K*>(nullptr), static_cast<const int64_t*>(nullptr),
          static_cast<int64_t*>(nullptr), static_cast<int>(c * n), static_cast<int>(c),
          static_cast<const int*>(nullptr), static_cast<const int*>(nullptr), 0, bits, s);
      if (st != cudaSuccess) break;
      temp = std::max(temp, t);
    }
  }
  if (st != cudaSuccess) return cuda_error(st, "cub radix sort", std::string(what) + ", size query");
  // keys in, keys out, indices in, indices out, the segments' offsets, CUB's temporary storage.
  const size_t kb = align256(static_cast<size_t>(total) * sizeof(K)), pb = align256(static_cast<size_t>(total) * 8);
  const size_t ob = segmented ? align256(static_cast<size_t>(seg_rows + 1) * sizeof(int)) : 0;
  if (glia_error* e = device_alloc(mem->dev, 2 * kb + 2 * pb + ob + temp, &mem->p)) return e;
  char* base = static_cast<char*>(mem->p);
  K* keys_in = reinterpret_cast<K*>(base);
  K* keys_out = reinterpret_cast<K*>(base + kb);
  int64_t* pos_in = reinterpret_cast<int64_t*>(base + 2 * kb);
  int64_t* pos_out = reinterpret_cast<int64_t*>(base + 2 * kb + pb);
  int* off = reinterpret_cast<int*>(base + 2 * kb + 2 * pb);
  void* tmp = base + 2 * kb + 2 * pb + ob;
  keys_kernel<T, K><<<grid_for(total), kThreads, 0, s>>>(x, total, n, flip, keys_in, pos_in);
  if (glia_error* e = launched(what)) return e;
  if (segmented) {
    offsets_kernel<<<grid_for(seg_rows + 1), kThreads, 0, s>>>(off, seg_rows + 1, n);
    if (glia_error* e = launched(what)) return e;
  }
  for (int64_t r0 = 0; r0 < rows; r0 += segmented ? seg_rows : 1) {
    const int64_t o = r0 * n;
    if (segmented) {
      const int64_t c = std::min(seg_rows, rows - r0);
      st = cub::DeviceSegmentedRadixSort::SortPairs(tmp, temp, keys_in + o, keys_out + o, pos_in + o, pos_out + o,
                                                    static_cast<int>(c * n), static_cast<int>(c), off, off + 1, 0, bits,
                                                    s);
    } else {
      st =
          cub::DeviceRadixSort::SortPairs(tmp, temp, keys_in + o, keys_out + o, pos_in + o, pos_out + o, n, 0, bits, s);
    }
    if (st != cudaSuccess) return cuda_error(st, "cub radix sort", what);
  }
  *keys = keys_out;
  *pos = pos_out;
  return nullptr;
}

// The first k of each sorted row: values gathered from x, and their indices.
template <class T>
__global__ void __launch_bounds__(kThreads)
    take_kernel(const T* __restrict x, const int64_t* __restrict pos, int64_t n, int64_t k, int64_t total,
                T* __restrict values, int64_t* __restrict indices) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += step) {
    const int64_t r = i / k, j = i - r * k;
    const int64_t p = pos[r * n + j];
    values[i] = x[r * n + p];
    indices[i] = p;
  }
}

// One element per row: the k-th smallest (kind 0), the median (1) or the nanmedian (2).
template <class T, class K>
__global__ void __launch_bounds__(kThreads)
    select_kernel(const T* __restrict x, const K* __restrict keys, const int64_t* __restrict pos, int64_t rows,
                  int64_t n, int kind, int64_t kth, T* __restrict values, int64_t* __restrict indices) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; r < rows; r += step) {
    int64_t rank = kth - 1;
    if (kind != 0) {
      int64_t first_nan = n;  // the first position of the NaN key (only NaNs have it)
      if constexpr (is_float_v<T>) {
        const K* kr = keys + r * n;
        first_nan = sorting::first_nan_key<K>([kr](int64_t j) { return kr[j]; }, n);
      }
      rank = sorting::median_rank(n, n - first_nan, kind == 2);
      if (rank < 0) rank = first_nan;  // the row's first NaN: NaNs sort last, in index order
    }
    const int64_t p = pos[r * n + rank];
    values[r] = x[r * n + p];
    indices[r] = p;
  }
}

// mode: a block per row (blockDim.x a power of two <= kThreads). Thread t looks at the ends of runs at
// positions t, t + blockDim, ...; a run's start is the lower bound of its key. The best run: the longest, then
// the one ending first (the smallest value).
template <class T, class K>
__global__ void __launch_bounds__(kThreads)
    mode_kernel(const T* __restrict x, const K* __restrict keys, const int64_t* __restrict pos, int64_t rows, int64_t n,
                T* __restrict values, int64_t* __restrict indices) {
  __shared__ int64_t part_len[kThreads], part_end[kThreads];
  const int tid = static_cast<int>(threadIdx.x);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const K* kr = keys + r * n;
    int64_t len = 0, end = 0;
    for (int64_t j = tid; j < n; j += blockDim.x) {
      if (j + 1 < n && kr[j + 1] == kr[j]) continue;  // not the last of its run
      const int64_t l = j - sorting::run_start([kr](int64_t q) { return kr[q]; }, j) + 1;
      if (sorting::mode_prefers(l, j, len, end)) {
        len = l;
        end = j;
      }
    }
    part_len[tid] = len;
    part_end[tid] = end;
    __syncthreads();
    for (int h = static_cast<int>(blockDim.x) / 2; h > 0; h /= 2) {
      if (tid < h) {
        const int64_t l2 = part_len[tid + h], e2 = part_end[tid + h];
        if (sorting::mode_prefers(l2, e2, part_len[tid], part_end[tid])) {
          part_len[tid] = l2;
          part_end[tid] = e2;
        }
      }
      __syncthreads();
    }
    if (tid == 0) {
      const int64_t p = pos[r * n + part_end[0]];  // the run's last: its greatest index
      values[r] = x[r * n + p];
      indices[r] = p;
    }
    __syncthreads();  // part_* are reused by the next row
  }
}

unsigned row_threads(int64_t n) {
  unsigned t = 32;
  while (t < static_cast<unsigned>(kThreads) && static_cast<int64_t>(t) < n) t *= 2;
  return t;
}

// The checks and geometry every kernel here shares: in0's rows of n, outputs of in0's dtype and int64.
struct Call {
  const glia_kernel_tensor *x, *values, *indices;
  int64_t n = 1, total = 0;
  cudaStream_t s = nullptr;
  int32_t dev = 0;
};

glia_error* prepare(const glia_kernel_call* call, const char* what, Call* c) {
  c->x = &call->inputs[0];
  c->values = &call->outputs[0];
  c->indices = &call->outputs[1];
  if (c->values->dtype != c->x->dtype || c->indices->dtype != GLIA_INT64)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": outputs of the wrong dtypes");
  c->n = c->x->ndim == 0 ? 1 : c->x->sizes[c->x->ndim - 1];
  c->total = view_numel(*c->x);
  c->dev = c->values->device_index;
  const cudaError_t st = cudaSetDevice(c->dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(c->dev));
  c->s = call_stream(call, c->dev)->stream;
  return nullptr;
}

// sort (k = n, order by attr descending) and topk (k, order by attr largest).
glia_error* sort_or_topk(const glia_kernel_call* call, const char* what, int64_t k, bool flip) {
  Call c;
  if (glia_error* e = prepare(call, what, &c)) return e;
  const int64_t rows = c.n ? c.total / c.n : 0;
  const int64_t out = rows * k;
  if (out == 0) return nullptr;
  return dispatch<Set::kAll>(c.x->dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(c.x->data);
    Scratch mem(c.dev);
    key_of<T>* keys = nullptr;
    int64_t* pos = nullptr;
    if (glia_error* e = sort_rows(c.s, x, rows, c.n, flip, what, &mem, &keys, &pos)) return e;
    take_kernel<T><<<grid_for(out), kThreads, 0, c.s>>>(x, pos, c.n, k, out, static_cast<T*>(c.values->data),
                                                        static_cast<int64_t*>(c.indices->data));
    return launched(what);
  });
}

glia_error* k_sort(const glia_kernel_call* call) {
  const int64_t n = call->inputs[0].ndim == 0 ? 1 : call->inputs[0].sizes[call->inputs[0].ndim - 1];
  return sort_or_topk(call, "sort", n, call->attrs[0].i != 0);
}

glia_error* k_topk(const glia_kernel_call* call) {
  return sort_or_topk(call, "topk", call->attrs[0].i, call->attrs[1].i != 0);
}

// kthvalue (kind 0), median (1), nanmedian (2), mode (3): one value per row.
glia_error* select_rows(const glia_kernel_call* call, const char* what, int kind, int64_t kth) {
  Call c;
  if (glia_error* e = prepare(call, what, &c)) return e;
  const int64_t rows = view_numel(*c.values);
  if (rows == 0 || c.n == 0) return nullptr;
  if (kind == 0 && (kth < 1 || kth > c.n))
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": k out of range");
  return dispatch<Set::kAll>(c.x->dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    using K = key_of<T>;
    const T* x = static_cast<const T*>(c.x->data);
    Scratch mem(c.dev);
    K* keys = nullptr;
    int64_t* pos = nullptr;
    if (glia_error* e = sort_rows(c.s, x, rows, c.n, false, what, &mem, &keys, &pos)) return e;
    T* values = static_cast<T*>(c.values->data);
    int64_t* indices = static_cast<int64_t*>(c.indices->data);
    if (kind == 3) {
      const unsigned blocks = static_cast<unsigned>(rows < 65536 ? rows : 65536);
      mode_kernel<T, K><<<blocks, row_threads(c.n), 0, c.s>>>(x, keys, pos, rows, c.n, values, indices);
    } else {
      select_kernel<T, K><<<grid_for(rows), kThreads, 0, c.s>>>(x, keys, pos, rows, c.n, kind, kth, values, indices);
    }
    return launched(what);
  });
}

glia_error* k_kthvalue(const glia_kernel_call* call) { return select_rows(call, "kthvalue", 0, call->attrs[0].i); }
glia_error* k_median(const glia_kernel_call* call) {
  const bool ignore_nan = call->attrs[0].i != 0;
  return select_rows(call, ignore_nan ? "nanmedian" : "median", ignore_nan ? 2 : 1, 0);
}
glia_error* k_mode(const glia_kernel_call* call) { return select_rows(call, "mode", 3, 0); }

}  // namespace

glia_kernel_fn sort_kernel(Kid id) {
  switch (id) {
    case Kid::sort:
      return &k_sort;
    case Kid::topk:
      return &k_topk;
    case Kid::kthvalue:
      return &k_kthvalue;
    case Kid::median:
      return &k_median;
    case Kid::mode:
      return &k_mode;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
