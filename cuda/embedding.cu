// embedding on the GPU: kernels.def's embedding (gather rows), embedding_renorm (max_norm, in place) and
// embedding_backward (the rows' summed gradients), as src/ops/cpu/nn.cpp's kernels. Indices are int32 or
// int64, contiguous. scale_grad_by_freq is the autograd rule's (embedding_backward of ones, an embedding and
// a division: all on the GPU); padding_idx arrives as embedding_backward's attribute.
//
// Index checks ("index out of range in self", the CPU's message and code): the kernel sets a flag in device
// memory, which the call reads back once; embedding_renorm checks every index before it changes a row, so a
// bad index leaves the weight as it was (the CPU's order). A bad index is never read through.
//
// Note [Deterministic embedding backward]: the indices are sorted with their positions (CUB's radix sort,
// which is stable: equal indices keep their positions' order), then one thread per (run of equal indices,
// column) sums the gradient rows of its run in position order, rounding to the gradient's dtype after each
// add as the CPU's loop does. No atomics: two runs give the same bits, and the CPU's bits (same order, same
// roundings). Rows no index names, padding_idx's and an index outside [0, num) (sorted last, skipped) stay 0.
// embedding_renorm: one thread per index position; a row named several times is renormalised once, by the
// thread that claims it first (atomicExch on a per-row flag: whichever claims it, the row gets the same
// values), with the CPU's norm (cuda/loss_ops.h, in column order).
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <string>

#include "common.h"
#include "kernel_call.h"
#include "launch.cuh"
#include "loss_ops.h"

namespace glia::cuda {

namespace {

template <class I>
__device__ __forceinline__ bool in_range(I i, int64_t num) {
  return i >= 0 && static_cast<int64_t>(i) < num;
}

// out [n, dim] <- w[idx[k]] row by row; E is a storage type of the element's size (any dtype).
template <class E, class I>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(const E* w, const I* idx, E* out, int64_t n, int64_t dim, int64_t num, int* bad) {
  const int64_t total = n * dim, step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; e < total; e += step) {
    const int64_t k = e / dim, j = e - k * dim;
    const I i = idx[k];
    if (in_range(i, num)) {
      out[e] = w[static_cast<int64_t>(i) * dim + j];
    } else {
      *bad = 1;
      out[e] = E{};
    }
  }
}

template <class I>
__global__ void __launch_bounds__(kThreads) check_kernel(const I* idx, int64_t n, int64_t num, int* bad) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; k < n; k += step)
    if (!in_range(idx[k], num)) *bad = 1;
}

template <class T>
struct RowAcc {  // a row's values as doubles, through the accumulation type (the CPU's static_cast<C>)
  const T* r;
  int64_t s1;
  __host__ __device__ double operator()(int64_t j) const { return static_cast<double>(load_acc(r[j * s1])); }
};
template <class T>
struct RowNonzero {
  const T* r;
  int64_t s1;
  __host__ __device__ bool operator()(int64_t j) const { return load_acc(r[j * s1]) != acc_t<T>(0); }
};

template <class T, class I>
__global__ void __launch_bounds__(kThreads)
    renorm_kernel(T* w, int64_t s0, int64_t s1, const I* idx, int64_t n, int64_t dim, double max_norm, double norm_type,
                  unsigned* claimed) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; k < n; k += step) {
    const int64_t i = static_cast<int64_t>(idx[k]);  // checked
    if (atomicExch(claimed + i, 1u) != 0u) continue;
    T* r = w + i * s0;
    const double norm = loss::renorm_row_norm(dim, norm_type, RowAcc<T>{r, s1}, RowNonzero<T>{r, s1});
    if (!loss::renorm_needed(norm, max_norm)) continue;
    const A scale = static_cast<A>(loss::renorm_scale(norm, max_norm));
    for (int64_t j = 0; j < dim; ++j) r[j * s1] = store_as<T>(load_acc(r[j * s1]) * scale);
  }
}

// Sort keys: the index, or num for one outside [0, num) (sorted last, never summed); values: positions.
template <class I>
__global__ void __launch_bounds__(kThreads)
    keys_kernel(const I* idx, int64_t n, int64_t num, uint64_t* keys, int64_t* pos) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; k < n; k += step) {
    const I i = idx[k];
    keys[k] = in_range(i, num) ? static_cast<uint64_t>(i) : static_cast<uint64_t>(num);
    pos[k] = k;
  }
}

// Note [Deterministic embedding backward]: thread (p, j) with p the first of a run of equal sorted keys.
template <class T>
__global__ void __launch_bounds__(kThreads)
    segment_sum_kernel(const T* g, const uint64_t* keys, const int64_t* pos, int64_t n, int64_t dim, int64_t num,
                       int64_t padding_idx, T* out) {
  using A = acc_t<T>;
  const int64_t total = n * dim, step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; e < total; e += step) {
    const int64_t p = e / dim, j = e - p * dim;
    const uint64_t key = keys[p];
    if (p > 0 && keys[p - 1] == key) continue;
    if (key >= static_cast<uint64_t>(num) || static_cast<int64_t>(key) == padding_idx) continue;
    A acc = A(0);
    for (int64_t q = p; q < n && keys[q] == key; ++q)
      acc = load_acc(store_as<T>(acc + load_acc(g[pos[q] * dim + j])));  // the CPU's T(C(o) + C(s))
    out[static_cast<int64_t>(key) * dim + j] = store_as<T>(acc);
  }
}

// ---- host side

glia_error* set_device(int32_t dev) {
  const cudaError_t st = cudaSetDevice(dev);
  return st == cudaSuccess ? nullptr : cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
}

// The flag at `bad` after the stream's work (one synchronisation): the CPU's error when it is set.
glia_error* index_error(const int* bad, cudaStream_t s, const char* what) {
  int flag = 0;
  cudaError_t st = cudaMemcpyAsync(&flag, bad, sizeof flag, cudaMemcpyDeviceToHost, s);
  if (st != cudaSuccess) return cuda_error(st, "cudaMemcpyAsync", std::string(what) + ": reading its check back");
  st = cudaStreamSynchronize(s);
  if (st != cudaSuccess) return cuda_error(st, "cudaStreamSynchronize", what);
  return flag ? make_error(GLIA_ERR_INVALID_ARGUMENT, "index out of range in self") : nullptr;
}

glia_error* new_flag(Scratch* scratch, cudaStream_t s, const char* what, int** bad) {
  if (glia_error* e = device_alloc(scratch->dev, sizeof(int), &scratch->p)) return e;
  *bad = static_cast<int*>(scratch->p);
  const cudaError_t st = cudaMemsetAsync(*bad, 0, sizeof(int), s);
  return st == cudaSuccess ? nullptr : cuda_error(st, "cudaMemsetAsync", what);
}

// f(I{}) for the indices' dtype.
template <class F>
glia_error* dispatch_index(glia_dtype t, const char* what, F&& f) {
  if (t == GLIA_INT64) return f(int64_t{});
  if (t == GLIA_INT32) return f(int32_t{});
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": indices that are not int32 or int64");
}

glia_error* k_embedding(const glia_kernel_call* call) {
  const char* what = "embedding";
  const glia_kernel_tensor &w = call->inputs[0], &idx = call->inputs[1], &out = call->outputs[0];
  if (w.ndim != 2) return make_error(GLIA_ERR_INTERNAL, "cuda: embedding: the weight is not 2-D");
  const int64_t num = w.sizes[0], dim = w.sizes[1], n = view_numel(idx);
  if (glia_error* e = set_device(out.device_index)) return e;
  const cudaStream_t s = call_stream(call, out.device_index)->stream;
  if (n == 0) return nullptr;
  Scratch scratch(out.device_index);
  int* bad = nullptr;
  if (glia_error* e = new_flag(&scratch, s, what, &bad)) return e;
  const unsigned grid = grid_for(n * dim > 0 ? n * dim : 1);
  glia_error* e = dispatch_index(idx.dtype, what, [&](auto itag) -> glia_error* {
    using I = decltype(itag);
    const I* ip = static_cast<const I*>(idx.data);
    if (dim == 0) {  // nothing to copy: the indices are still checked
      check_kernel<I><<<grid_for(n), kThreads, 0, s>>>(ip, n, num, bad);
      return launched(what);
    }
    switch (dtype_size(w.dtype)) {
      case 1:
        gather_kernel<uint8_t, I><<<grid, kThreads, 0, s>>>(static_cast<const uint8_t*>(w.data), ip,
                                                            static_cast<uint8_t*>(out.data), n, dim, num, bad);
        break;
      case 2:
        gather_kernel<uint16_t, I><<<grid, kThreads, 0, s>>>(static_cast<const uint16_t*>(w.data), ip,
                                                             static_cast<uint16_t*>(out.data), n, dim, num, bad);
        break;
      case 4:
        gather_kernel<uint32_t, I><<<grid, kThreads, 0, s>>>(static_cast<const uint32_t*>(w.data), ip,
                                                             static_cast<uint32_t*>(out.data), n, dim, num, bad);
        break;
      case 8:
        gather_kernel<uint64_t, I><<<grid, kThreads, 0, s>>>(static_cast<const uint64_t*>(w.data), ip,
                                                             static_cast<uint64_t*>(out.data), n, dim, num, bad);
        break;
      default:
        return dtype_error(what, w.dtype);
    }
    return launched(what);
  });
  if (e) return e;
  return index_error(bad, s, what);
}

glia_error* k_embedding_renorm(const glia_kernel_call* call) {
  const char* what = "embedding_renorm_";
  const glia_kernel_tensor &idx = call->inputs[0], &w = call->outputs[0];
  if (w.ndim != 2) return make_error(GLIA_ERR_INTERNAL, "cuda: embedding_renorm_: the weight is not 2-D");
  const double max_norm = call->attrs[0].f, norm_type = call->attrs[1].f;
  const int64_t num = w.sizes[0], dim = w.sizes[1], n = view_numel(idx);
  const int32_t dev = w.device_index;
  if (glia_error* e = set_device(dev)) return e;
  const cudaStream_t s = call_stream(call, dev)->stream;
  if (n == 0) return nullptr;
  return dispatch_index(idx.dtype, what, [&](auto itag) -> glia_error* {
    using I = decltype(itag);
    const I* ip = static_cast<const I*>(idx.data);
    {  // every index checked before a row changes
      Scratch flag(dev);
      int* bad = nullptr;
      if (glia_error* e = new_flag(&flag, s, what, &bad)) return e;
      check_kernel<I><<<grid_for(n), kThreads, 0, s>>>(ip, n, num, bad);
      if (glia_error* e = launched(what)) return e;
      if (glia_error* e = index_error(bad, s, what)) return e;
    }
    Scratch claims(dev);
    if (glia_error* e = device_alloc(dev, static_cast<size_t>(num) * sizeof(unsigned), &claims.p)) return e;
    const cudaError_t st = cudaMemsetAsync(claims.p, 0, static_cast<size_t>(num) * sizeof(unsigned), s);
    if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
    return dispatch<Set::kFloat>(w.dtype, what, [&](auto tag) -> glia_error* {
      using T = decltype(tag);
      renorm_kernel<T, I><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(w.data), w.strides[0], w.strides[1], ip, n,
                                                           dim, max_norm, norm_type, static_cast<unsigned*>(claims.p));
      return launched(what);
    });
  });
}

glia_error* k_embedding_backward(const glia_kernel_call* call) {
  const char* what = "embedding_backward";
  const glia_kernel_tensor &g = call->inputs[0], &idx = call->inputs[1], &out = call->outputs[0];
  const int64_t padding_idx = call->attrs[0].i;
  if (out.ndim != 2) return make_error(GLIA_ERR_INTERNAL, "cuda: embedding_backward: the output is not 2-D");
  if (g.dtype != out.dtype) return make_error(GLIA_ERR_INTERNAL, "cuda: embedding_backward: dtypes differ");
  const int64_t num = out.sizes[0], dim = out.sizes[1], n = view_numel(idx);
  const int32_t dev = out.device_index;
  if (glia_error* e = set_device(dev)) return e;
  const cudaStream_t s = call_stream(call, dev)->stream;
  if (num * dim == 0) return nullptr;
  cudaError_t st = cudaMemsetAsync(out.data, 0, static_cast<size_t>(num * dim * dtype_size(out.dtype)), s);
  if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
  if (n == 0) return nullptr;
  int end_bit = 1;  // keys are in [0, num]
  while (end_bit < 64 && (uint64_t{1} << end_bit) <= static_cast<uint64_t>(num)) ++end_bit;
  size_t temp_bytes = 0;
  st = cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, static_cast<const uint64_t*>(nullptr),
                                       static_cast<uint64_t*>(nullptr), static_cast<const int64_t*>(nullptr),
                                       static_cast<int64_t*>(nullptr), n, 0, end_bit, s);
  if (st != cudaSuccess) return cuda_error(st, "cub::DeviceRadixSort::SortPairs", "embedding_backward, size query");
  // keys in, keys out, positions in, positions out, then CUB's temporary storage (256-byte aligned).
  const size_t arr = (static_cast<size_t>(n) * 8 + 255) / 256 * 256;
  Scratch scratch(dev);
  if (glia_error* e = device_alloc(dev, 4 * arr + temp_bytes, &scratch.p)) return e;
  char* base = static_cast<char*>(scratch.p);
  auto* keys_in = reinterpret_cast<uint64_t*>(base);
  auto* keys = reinterpret_cast<uint64_t*>(base + arr);
  auto* pos_in = reinterpret_cast<int64_t*>(base + 2 * arr);
  auto* pos = reinterpret_cast<int64_t*>(base + 3 * arr);
  void* temp = base + 4 * arr;
  glia_error* e = dispatch_index(idx.dtype, what, [&](auto itag) -> glia_error* {
    using I = decltype(itag);
    keys_kernel<I><<<grid_for(n), kThreads, 0, s>>>(static_cast<const I*>(idx.data), n, num, keys_in, pos_in);
    return launched(what);
  });
  if (e) return e;
  st = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys, pos_in, pos, n, 0, end_bit, s);
  if (st != cudaSuccess) return cuda_error(st, "cub::DeviceRadixSort::SortPairs", what);
  return dispatch<Set::kFloat>(g.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    segment_sum_kernel<T><<<grid_for(n * dim), kThreads, 0, s>>>(static_cast<const T*>(g.data), keys, pos, n, dim, num,
                                                                 padding_idx, static_cast<T*>(out.data));
    return launched(what);
  });
}

}  // namespace

glia_kernel_fn embedding_kernel(Kid id) {
  switch (id) {
    case Kid::embedding:
      return &k_embedding;
    case Kid::embedding_renorm:
      return &k_embedding_renorm;
    case Kid::embedding_backward:
      return &k_embedding_backward;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
