// The index ops and padding of the CUDA backend (kernels.def's "index ops" and "padding" blocks; the CPU kernels
// are src/ops/cpu/index.cpp and pad.cpp): index_select, index_add, gather, scatter (copy, add, prod, amax, amin),
// masked_select_count, masked_select, masked_scatter, pad and pad_backward.
//
// Note [Deterministic CUDA index kernels]:
//   - Indices are checked before anything is written: a kernel records the row-major position of the first
//     index outside [0, size) with an integer atomicMin on a device word (the minimum does not depend on the
//     order), the word is read back once per call (a stream synchronisation, as torch's CUDA index kernels
//     report a device-side assert), and a bad index becomes the CPU kernel's error and message with nothing
//     changed.
//   - scatter and index_add walk the scattered dim in order, one thread per position outside it (two positions
//     that differ outside the dim never meet in the destination): duplicate indices are applied in the CPU's
//     order, so scatter's last write wins and index_add's sums are the CPU's, bit for bit. No floating atomics.
//   - masked_select and masked_scatter keep the CPU's chunks (masked_select_count: chunk c is
//     [c * L, min(n, (c + 1) * L)) row-major, L = ceil(n / C)); a block per chunk, its offset the sum of the
//     counts before it, and a block-wide integer prefix sum per tile of kThreads elements: exact.
//   - pad_backward gathers: one thread per input element adds the gradients of the output positions that copy
//     it (cuda/pad_index.h), in row-major order, rounding to the dtype after each addition as the CPU does.
#include <string>
#include <type_traits>

#include "common.h"
#include "kernel_call.h"
#include "launch.cuh"
#include "pad_index.h"

namespace glia::cuda {

namespace {

// ---- geometry: N views of one shape, row-major (outermost first), element strides; size-1 dims dropped and
// dims merged where every view allows.

template <int N>
struct Geom {
  int nd = 0;
  int64_t size[kMaxDims];
  int64_t stride[N][kMaxDims];
};

template <int N>
__device__ __forceinline__ void offsets_of(int64_t i, const Geom<N>& g, int64_t* off) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = g.nd - 1; d >= 0; --d) {
    const int64_t q = i / g.size[d];
    const int64_t c = i - q * g.size[d];
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += c * g.stride[k][d];
    i = q;
  }
}

// shape[nd] with strides st[k][nd] per view; skip_dim (or -1) is left out.
template <int N>
glia_error* make_geom(int32_t nd, const int64_t* shape, const int64_t* const* st, int32_t skip_dim, const char* what,
                      Geom<N>* g) {
  g->nd = 0;
  for (int32_t d = 0; d < nd; ++d) {
    if (d == skip_dim || shape[d] == 1) continue;
    if (g->nd > 0) {
      bool merge = true;
      for (int k = 0; k < N; ++k)
        if (g->stride[k][g->nd - 1] != st[k][d] * shape[d]) merge = false;
      if (merge) {
        g->size[g->nd - 1] *= shape[d];
        for (int k = 0; k < N; ++k) g->stride[k][g->nd - 1] = st[k][d];
        continue;
      }
    }
    if (g->nd == kMaxDims)
      return make_error(GLIA_ERR_UNSUPPORTED,
                        std::string("cuda: ") + what + ": more than " + std::to_string(kMaxDims) + " dims");
    g->size[g->nd] = shape[d];
    for (int k = 0; k < N; ++k) g->stride[k][g->nd] = st[k][d];
    ++g->nd;
  }
  return nullptr;
}

// Element copies move bytes: one unsigned type per element size.
template <class F>
glia_error* dispatch_size(glia_dtype t, const char* what, F&& f) {
  switch (dtype_size(t)) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    default:
      return dtype_error(what, t);
  }
}

__device__ __forceinline__ int tid_() { return static_cast<int>(threadIdx.x); }

// The block's sum (kThreads threads), every thread gets it; `part` holds kThreads values.
__device__ int64_t block_sum(int64_t v, int64_t* part) {
  const int tid = tid_();
  part[tid] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (tid < s) part[tid] += part[tid + s];
    __syncthreads();
  }
  const int64_t r = part[0];
  __syncthreads();
  return r;
}

// The block's inclusive prefix sum of v (kThreads threads); *total gets the sum of all.
__device__ int block_scan(int v, int* s, int* total) {
  const int tid = tid_();
  s[tid] = v;
  __syncthreads();
  for (int off = 1; off < kThreads; off *= 2) {
    const int t = tid >= off ? s[tid - off] : 0;
    __syncthreads();
    s[tid] += t;
    __syncthreads();
  }
  const int r = s[tid];
  *total = s[kThreads - 1];
  __syncthreads();
  return r;
}

// ---- the index check

__global__ void __launch_bounds__(kThreads)
    bad_index_kernel(int64_t n, Geom<1> g, const int64_t* idx, int64_t size, unsigned long long* first) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    int64_t off;
    offsets_of<1>(i, g, &off);
    const int64_t v = idx[off];
    if (v < 0 || v >= size) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

// The first (row-major) element of the int64 view `idx` outside [0, size): *found, and its value in *bad.
glia_error* first_bad_index(const glia_kernel_tensor& idx, int64_t size, cudaStream_t s, const char* what, bool* found,
                            int64_t* bad) {
  *found = false;
  const int64_t n = view_numel(idx);
  if (n == 0) return nullptr;
  if (idx.dtype != GLIA_INT64) return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": index not int64");
  Geom<1> g;
  const int64_t* st[1] = {idx.strides};
  if (glia_error* e = make_geom<1>(idx.ndim, idx.sizes, st, -1, what, &g)) return e;
  const int32_t dev = idx.device_index;
  void* word = nullptr;
  if (glia_error* e = device_alloc(dev, sizeof(unsigned long long), &word)) return e;
  unsigned long long first = 0;
  cudaError_t st_ = cudaMemsetAsync(word, 0x7f, sizeof first, s);  // 0x7f7f...: above any position
  if (st_ == cudaSuccess) {
    bad_index_kernel<<<grid_for(n), kThreads, 0, s>>>(n, g, static_cast<const int64_t*>(idx.data), size,
                                                      static_cast<unsigned long long*>(word));
    st_ = cudaGetLastError();
  }
  if (st_ == cudaSuccess) st_ = cudaMemcpyAsync(&first, word, sizeof first, cudaMemcpyDeviceToHost, s);
  if (st_ == cudaSuccess) st_ = cudaStreamSynchronize(s);
  device_free(dev, word);
  if (st_ != cudaSuccess) return cuda_error(st_, "index check", what);
  if (first >= static_cast<unsigned long long>(n)) return nullptr;
  // The value at that position, for the message.
  int64_t pos = static_cast<int64_t>(first), off = 0;
  for (int32_t d = idx.ndim - 1; d >= 0; --d) {
    off += (pos % idx.sizes[d]) * idx.strides[d];
    pos /= idx.sizes[d];
  }
  st_ = cudaMemcpyAsync(bad, static_cast<const int64_t*>(idx.data) + off, sizeof *bad, cudaMemcpyDeviceToHost, s);
  if (st_ == cudaSuccess) st_ = cudaStreamSynchronize(s);
  if (st_ != cudaSuccess) return cuda_error(st_, "cudaMemcpyAsync", std::string(what) + " index");
  *found = true;
  return nullptr;
}

// ---- gather and index_select: out[p] = src[p with dim replaced by idx[p]]

template <class U>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(int64_t n, Geom<3> g, U* out, const int64_t* idx, const U* src, int64_t src_dim_stride) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    int64_t off[3];
    offsets_of<3>(i, g, off);
    out[off[0]] = src[off[2] + idx[off[1]] * src_dim_stride];
  }
}

// out (shape) <- src at idx along dim; idx_st: the index's strides over `shape`, src_st: src restrided (0 at
// dim).
glia_error* run_gather(const glia_kernel_tensor& out, const int64_t* idx_st, const glia_kernel_tensor& src,
                       const glia_kernel_tensor& idx, int64_t dim, cudaStream_t s, const char* what) {
  const int64_t n = view_numel(out);
  if (n == 0) return nullptr;
  int64_t src_st[64];
  if (out.ndim > 64) return make_error(GLIA_ERR_UNSUPPORTED, std::string("cuda: ") + what + ": more than 64 dims");
  for (int32_t d = 0; d < out.ndim; ++d) src_st[d] = d == dim ? 0 : src.strides[d];
  Geom<3> g;
  const int64_t* st[3] = {out.strides, idx_st, src_st};
  if (glia_error* e = make_geom<3>(out.ndim, out.sizes, st, -1, what, &g)) return e;
  if (out.dtype != src.dtype)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": source and output dtypes differ");
  return dispatch_size(out.dtype, what, [&](auto tag) -> glia_error* {
    using U = decltype(tag);
    gather_kernel<U><<<grid_for(n), kThreads, 0, s>>>(n, g, static_cast<U*>(out.data),
                                                      static_cast<const int64_t*>(idx.data),
                                                      static_cast<const U*>(src.data), src.strides[dim]);
    return launched(what);
  });
}

glia_error* k_index_select(const glia_kernel_call* call) {
  const char* what = "index_select";
  const glia_kernel_tensor &tv = call->inputs[0], &idx = call->inputs[1], &out = call->outputs[0];
  const int64_t dim = call->attrs[0].i;
  if (dim < 0 || dim >= tv.ndim || out.ndim != tv.ndim || idx.ndim != 1)
    return make_error(GLIA_ERR_INTERNAL, "cuda: index_select: unexpected operands");
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  const int64_t size = tv.sizes[dim];
  bool found = false;
  int64_t bad = 0;
  if (glia_error* e = first_bad_index(idx, size, s, what, &found, &bad)) return e;
  if (found)
    return make_error(GLIA_ERR_INVALID_ARGUMENT, "INDICES element is out of DATA bounds, id=" + std::to_string(bad) +
                                                     " axis_dim=" + std::to_string(size));
  int64_t idx_st[64];
  for (int32_t d = 0; d < out.ndim; ++d) idx_st[d] = d == dim ? idx.strides[0] : 0;
  return run_gather(out, idx_st, tv, idx, dim, s, what);
}

glia_error* k_gather(const glia_kernel_call* call) {
  const char* what = "gather";
  const glia_kernel_tensor &tv = call->inputs[0], &iv = call->inputs[1], &out = call->outputs[0];
  const int64_t dim = call->attrs[0].i;
  if (dim < 0 || dim >= tv.ndim || out.ndim != tv.ndim || iv.ndim != tv.ndim || tv.ndim > 64)
    return make_error(GLIA_ERR_INTERNAL, "cuda: gather: unexpected operands");
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  const int64_t size = tv.sizes[dim];
  bool found = false;
  int64_t bad = 0;
  if (glia_error* e = first_bad_index(iv, size, s, what, &found, &bad)) return e;
  if (found)
    return make_error(GLIA_ERR_INVALID_ARGUMENT, "index " + std::to_string(bad) + " is out of bounds for dimension " +
                                                     std::to_string(dim) + " with size " + std::to_string(size));
  return run_gather(out, iv.strides, tv, iv, dim, s, what);
}

// ---- scatter and index_add: one thread per position outside dim, walking dim in order

template <class T>
__device__ __forceinline__ void scatter_one(T* d, T v, int mode) {
  if (mode == 1) {  // add (bool: or)
    if constexpr (std::is_same_v<T, bool>)
      *d = *d || v;
    else
      *d = store_as<T>(wrap_add(load_acc(*d), load_acc(v)));
    return;
  }
  // prod, amax, amin (torch's scatter_reduce: a NaN source wins amax / amin, a NaN already there stays)
  using A = std::conditional_t<std::is_same_v<T, bool>, int64_t, acc_t<T>>;
  const A x = static_cast<A>(load_acc(v)), cur = static_cast<A>(load_acc(*d));
  A r;
  if (mode == 2) {
    r = wrap_mul(cur, x);
  } else {
    bool x_nan = false;
    if constexpr (std::is_floating_point_v<A>) x_nan = x != x;
    if (mode == 3)
      r = x_nan ? x : (cur < x ? x : cur);
    else
      r = x_nan ? x : (x < cur ? x : cur);
  }
  *d = store_as<T>(r);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    scatter_kernel(int64_t cols, Geom<3> g, int64_t k_size, int64_t src_step, int64_t idx_step, int64_t dst_dim_stride,
                   const T* src, const int64_t* idx, T* dst, int mode) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; c < cols; c += step) {
    int64_t off[3];
    offsets_of<3>(c, g, off);
    for (int64_t k = 0; k < k_size; ++k) {
      T* d = dst + off[2] + idx[off[1] + k * idx_step] * dst_dim_stride;
      const T v = src[off[0] + k * src_step];
      if (mode == 0)
        *d = v;
      else
        scatter_one(d, v, mode);
    }
  }
}

// dst (restrided to src's shape) at idx along dim (+)= src; idx_st: the index's strides over src's shape.
glia_error* run_scatter(const glia_kernel_tensor& src, const int64_t* idx_st, const glia_kernel_tensor& idx,
                        const glia_kernel_tensor& dst, int64_t dim, int mode, cudaStream_t s, const char* what) {
  if (view_numel(src) == 0) return nullptr;
  if (src.dtype != dst.dtype)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": source and output dtypes differ");
  Geom<3> g;
  const int64_t* st[3] = {src.strides, idx_st, dst.strides};
  if (glia_error* e = make_geom<3>(src.ndim, src.sizes, st, static_cast<int32_t>(dim), what, &g)) return e;
  const int64_t cols = view_numel(src) / src.sizes[dim];
  return dispatch<Set::kAll>(dst.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    scatter_kernel<T><<<grid_for(cols), kThreads, 0, s>>>(
        cols, g, src.sizes[dim], src.strides[dim], idx_st[dim], dst.strides[dim], static_cast<const T*>(src.data),
        static_cast<const int64_t*>(idx.data), static_cast<T*>(dst.data), mode);
    return launched(what);
  });
}

glia_error* k_index_add(const glia_kernel_call* call) {
  const char* what = "index_add";
  const glia_kernel_tensor &sv = call->inputs[0], &idx = call->inputs[1], &ov = call->outputs[0];
  const int64_t dim = call->attrs[0].i;
  if (dim < 0 || dim >= ov.ndim || sv.ndim != ov.ndim || idx.ndim != 1 || ov.ndim > 64)
    return make_error(GLIA_ERR_INTERNAL, "cuda: index_add: unexpected operands");
  cudaStream_t s;
  if (glia_error* e = device_stream(call, ov.device_index, &s)) return e;
  bool found = false;
  int64_t bad = 0;
  if (glia_error* e = first_bad_index(idx, ov.sizes[dim], s, what, &found, &bad)) return e;
  if (found) return make_error(GLIA_ERR_INVALID_ARGUMENT, "index out of range in self");
  int64_t idx_st[64];
  for (int32_t d = 0; d < sv.ndim; ++d) idx_st[d] = d == dim ? idx.strides[0] : 0;
  return run_scatter(sv, idx_st, idx, ov, dim, 1, s, what);
}

glia_error* k_scatter(const glia_kernel_call* call) {
  const char* what = "scatter";
  const glia_kernel_tensor &sv = call->inputs[0], &iv = call->inputs[1], &ov = call->outputs[0];
  const int64_t dim = call->attrs[0].i;
  const int64_t mode = call->attrs[1].i;  // 0 copy, 1 add, 2 prod, 3 amax, 4 amin
  if (dim < 0 || dim >= ov.ndim || sv.ndim != ov.ndim || iv.ndim != ov.ndim || mode < 0 || mode > 4)
    return make_error(GLIA_ERR_INTERNAL, "cuda: scatter: unexpected operands");
  cudaStream_t s;
  if (glia_error* e = device_stream(call, ov.device_index, &s)) return e;
  const int64_t size = ov.sizes[dim];
  bool found = false;
  int64_t bad = 0;
  if (glia_error* e = first_bad_index(iv, size, s, what, &found, &bad)) return e;
  if (found)
    return make_error(GLIA_ERR_INVALID_ARGUMENT, "index " + std::to_string(bad) + " is out of bounds for dimension " +
                                                     std::to_string(dim) + " with size " + std::to_string(size));
  return run_scatter(sv, iv.strides, iv, ov, dim, static_cast<int>(mode), s, what);
}

// ---- masked_select and masked_scatter

// counts[c] = the trues of chunk c of the mask view (row-major).
__global__ void __launch_bounds__(kThreads)
    mask_count_kernel(int64_t n, int64_t chunks, int64_t len, Geom<1> g, const uint8_t* mask, int64_t* counts) {
  __shared__ int64_t part[kThreads];
  for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    const int64_t lo = c * len, hi = lo + len < n ? lo + len : n;
    int64_t cnt = 0;
    for (int64_t i = lo + tid_(); i < hi; i += kThreads) {
      int64_t off;
      offsets_of<1>(i, g, &off);
      cnt += mask[off] != 0;
    }
    cnt = block_sum(cnt, part);
    if (tid_() == 0) counts[c] = cnt;
  }
}

// The total of counts[0, chunks) into *total (one block).
__global__ void __launch_bounds__(kThreads) count_total_kernel(int64_t chunks, const int64_t* counts, int64_t* total) {
  __shared__ int64_t part[kThreads];
  int64_t t = 0;
  for (int64_t c = tid_(); c < chunks; c += kThreads) t += counts[c];
  t = block_sum(t, part);
  if (tid_() == 0) *total = t;
}

// Select (Scatter false): out[base_c + k] = te[k-th true of chunk c]; scatter (Scatter true): out[k-th true of
// chunk c] = src[base_c + k]. base_c: the counts of the chunks before c. g: the views (te or out, mask).
template <class U, bool Scatter>
__global__ void __launch_bounds__(kThreads) masked_kernel(int64_t n, int64_t chunks, int64_t len, Geom<2> g, U* strided,
                                                          const uint8_t* mask, const int64_t* counts, U* packed) {
  __shared__ int64_t part[kThreads];
  __shared__ int scan[kThreads];
  for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    int64_t before = 0;
    for (int64_t j = tid_(); j < c; j += kThreads) before += counts[j];
    int64_t base = block_sum(before, part);
    const int64_t lo = c * len, hi = lo + len < n ? lo + len : n;
    for (int64_t t0 = lo; t0 < hi; t0 += kThreads) {
      const int64_t i = t0 + tid_();
      int64_t off[2] = {0, 0};
      int flag = 0;
      if (i < hi) {
        offsets_of<2>(i, g, off);
        flag = mask[off[1]] != 0;
      }
      int total = 0;
      const int incl = block_scan(flag, scan, &total);
      if (flag) {
        if constexpr (Scatter)
          strided[off[0]] = packed[base + incl - 1];
        else
          packed[base + incl - 1] = strided[off[0]];
      }
      base += total;
    }
  }
}

glia_error* check_mask(const glia_kernel_tensor& m, const char* what) {
  if (m.dtype != GLIA_BOOL && m.dtype != GLIA_UINT8)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": mask not bool or uint8");
  return nullptr;
}

glia_error* k_masked_select_count(const glia_kernel_call* call) {
  const char* what = "masked_select_count";
  const glia_kernel_tensor &me = call->inputs[0], &counts = call->outputs[0];
  const int64_t numel = view_numel(me), chunks = view_numel(counts);
  if (chunks == 0) return nullptr;
  if (glia_error* e = check_mask(me, what)) return e;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, counts.device_index, &s)) return e;
  Geom<1> g;
  const int64_t* st[1] = {me.strides};
  if (glia_error* e = make_geom<1>(me.ndim, me.sizes, st, -1, what, &g)) return e;
  const int64_t len = (numel + chunks - 1) / chunks;
  mask_count_kernel<<<blocks_for(chunks), kThreads, 0, s>>>(numel, chunks, len, g, static_cast<const uint8_t*>(me.data),
                                                            static_cast<int64_t*>(counts.data));
  return launched(what);
}

glia_error* k_masked_select(const glia_kernel_call* call) {
  const char* what = "masked_select";
  const glia_kernel_tensor &te = call->inputs[0], &me = call->inputs[1], &counts = call->inputs[2],
                           &out = call->outputs[0];
  const int64_t numel = view_numel(te), chunks = view_numel(counts);
  if (chunks == 0 || view_numel(out) == 0) return nullptr;
  if (glia_error* e = check_mask(me, what)) return e;
  if (te.dtype != out.dtype) return make_error(GLIA_ERR_INTERNAL, "cuda: masked_select: dtypes differ");
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  Geom<2> g;
  const int64_t* st[2] = {te.strides, me.strides};
  if (glia_error* e = make_geom<2>(te.ndim, te.sizes, st, -1, what, &g)) return e;
  const int64_t len = (numel + chunks - 1) / chunks;
  return dispatch_size(te.dtype, what, [&](auto tag) -> glia_error* {
    using U = decltype(tag);
    masked_kernel<U, false><<<blocks_for(chunks), kThreads, 0, s>>>(
        numel, chunks, len, g, static_cast<U*>(te.data), static_cast<const uint8_t*>(me.data),
        static_cast<const int64_t*>(counts.data), static_cast<U*>(out.data));
    return launched(what);
  });
}

glia_error* k_masked_scatter(const glia_kernel_call* call) {
  const char* what = "masked_scatter";
  const glia_kernel_tensor &me = call->inputs[0], &src = call->inputs[1], &out = call->outputs[0];
  const int64_t numel = view_numel(out);
  if (numel == 0) return nullptr;
  if (glia_error* e = check_mask(me, what)) return e;
  if (src.dtype != out.dtype) return make_error(GLIA_ERR_INTERNAL, "cuda: masked_scatter: dtypes differ");
  const int32_t dev = out.device_index;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, dev, &s)) return e;
  Geom<1> gm;
  const int64_t* stm[1] = {me.strides};
  if (glia_error* e = make_geom<1>(me.ndim, me.sizes, stm, -1, what, &gm)) return e;
  Geom<2> g;
  const int64_t* st[2] = {out.strides, me.strides};
  if (glia_error* e = make_geom<2>(out.ndim, out.sizes, st, -1, what, &g)) return e;
  // The CPU's chunking (masked_select's), counts and their total on the device; the total read back to check
  // the source's size before anything is written.
  constexpr int64_t kChunk = 32768;
  const int64_t chunks = (numel + kChunk - 1) / kChunk, len = (numel + chunks - 1) / chunks;
  void* buf = nullptr;
  if (glia_error* e = device_alloc(dev, static_cast<size_t>(chunks + 1) * sizeof(int64_t), &buf)) return e;
  int64_t* counts = static_cast<int64_t*>(buf);
  mask_count_kernel<<<blocks_for(chunks), kThreads, 0, s>>>(numel, chunks, len, gm,
                                                            static_cast<const uint8_t*>(me.data), counts);
  count_total_kernel<<<1, kThreads, 0, s>>>(chunks, counts, counts + chunks);
  int64_t total = 0;
  cudaError_t st_ = cudaGetLastError();
  if (st_ == cudaSuccess) st_ = cudaMemcpyAsync(&total, counts + chunks, sizeof total, cudaMemcpyDeviceToHost, s);
  if (st_ == cudaSuccess) st_ = cudaStreamSynchronize(s);
  glia_error* err = nullptr;
  if (st_ != cudaSuccess)
    err = cuda_error(st_, "mask count", what);
  else if (total > view_numel(src))
    err = make_error(GLIA_ERR_INVALID_ARGUMENT, "Number of elements of source < number of ones in mask");
  if (!err && total > 0) {
    err = dispatch_size(out.dtype, what, [&](auto tag) -> glia_error* {
      using U = decltype(tag);
      masked_kernel<U, true><<<blocks_for(chunks), kThreads, 0, s>>>(numel, chunks, len, g, static_cast<U*>(out.data),
                                                                     static_cast<const uint8_t*>(me.data), counts,
                                                                     static_cast<U*>(src.data));
      return launched(what);
    });
    // The counts are freed once the kernel is done (they belong to the device's current stream's pool).
    st_ = cudaStreamSynchronize(s);
    if (!err && st_ != cudaSuccess) err = cuda_error(st_, "cudaStreamSynchronize", what);
  }
  device_free(dev, buf);
  return err;
}

// ---- padding: the tensor as [planes, D, H, W] with 1 to 3 padded dims (missing ones of size 1)

struct PadDims {
  int64_t mode = 0, planes = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, pl[3] = {0, 0, 0}, pr[3] = {0, 0, 0};
};

glia_error* pad_dims(const glia_kernel_call* call, const glia_kernel_tensor& in_shape, const char* what, PadDims* p) {
  const glia_kernel_attr& pad = call->attrs[0];
  p->mode = call->attrs[1].i;
  const int64_t k = pad.n_ints / 2, nd = in_shape.ndim;
  if (pad.n_ints % 2 != 0 || k < 1 || k > 3 || nd < k || p->mode < kPadReflect || p->mode > kPadCircular)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": unexpected padding");
  for (int64_t d = 0; d < nd - k; ++d) p->planes *= in_shape.sizes[d];
  for (int64_t j = 0; j < k; ++j) {  // j: the padded dims, outermost first, at slot 3 - k + j
    const int64_t slot = 3 - k + j, pi = 2 * (k - 1 - j);
    p->in[slot] = in_shape.sizes[nd - k + j];
    p->pl[slot] = pad.ints[pi];
    p->pr[slot] = pad.ints[pi + 1];
    p->out[slot] = p->in[slot] + p->pl[slot] + p->pr[slot];
  }
  return nullptr;
}

template <class U>
__global__ void __launch_bounds__(kThreads) pad_kernel(int64_t n, PadDims p, const U* in, U* out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; r < n; r += step) {
    int64_t rest = r, src = 0, mul = 1;
    int64_t o[3];
    for (int j = 2; j >= 0; --j) {
      o[j] = rest % p.out[j];
      rest /= p.out[j];
    }
    for (int j = 2; j >= 0; --j) {
      src += pad_source_index(p.mode, p.in[j], p.pl[j], p.pr[j], o[j]) * mul;
      mul *= p.in[j];
    }
    out[r] = in[rest * mul + src];  // rest: the plane
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) pad_backward_kernel(int64_t n, PadDims p, const T* go, T* gi) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t plane_out = p.out[0] * p.out[1] * p.out[2];
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; r < n; r += step) {
    int64_t rest = r, i[3];
    for (int j = 2; j >= 0; --j) {
      i[j] = rest % p.in[j];
      rest /= p.in[j];
    }
    const T* g = go + rest * plane_out;
    T acc = store_as<T>(0.0f);
    pad_for_each_source_of(p.mode, p.in[0], p.pl[0], p.pr[0], p.out[0], i[0], [&](int64_t d) {
      pad_for_each_source_of(p.mode, p.in[1], p.pl[1], p.pr[1], p.out[1], i[1], [&](int64_t h) {
        const T* row = g + (d * p.out[1] + h) * p.out[2];
        pad_for_each_source_of(p.mode, p.in[2], p.pl[2], p.pr[2], p.out[2], i[2],
                               [&](int64_t w) { acc = store_as<T>(load_acc(acc) + load_acc(row[w])); });
      });
    });
    gi[r] = acc;
  }
}

glia_error* k_pad(const glia_kernel_call* call) {
  const char* what = "pad";
  const glia_kernel_tensor &in = call->inputs[0], &out = call->outputs[0];
  PadDims p;
  if (glia_error* e = pad_dims(call, in, what, &p)) return e;
  const int64_t n = view_numel(out);
  if (n == 0) return nullptr;
  if (in.dtype != out.dtype || n != p.planes * p.out[0] * p.out[1] * p.out[2])
    return make_error(GLIA_ERR_INTERNAL, "cuda: pad: unexpected output");
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  return dispatch_size(in.dtype, what, [&](auto tag) -> glia_error* {
    using U = decltype(tag);
    pad_kernel<U><<<grid_for(n), kThreads, 0, s>>>(n, p, static_cast<const U*>(in.data), static_cast<U*>(out.data));
    return launched(what);
  });
}

glia_error* k_pad_backward(const glia_kernel_call* call) {
  const char* what = "pad backward";
  const glia_kernel_tensor &go = call->inputs[0], &gi = call->outputs[0];
  PadDims p;
  if (glia_error* e = pad_dims(call, gi, what, &p)) return e;
  const int64_t n = view_numel(gi);
  if (n == 0) return nullptr;
  if (go.dtype != gi.dtype || view_numel(go) != p.planes * p.out[0] * p.out[1] * p.out[2])
    return make_error(GLIA_ERR_INTERNAL, "cuda: pad backward: unexpected gradient");
  cudaStream_t s;
  if (glia_error* e = device_stream(call, gi.device_index, &s)) return e;
  return dispatch<Set::kFloat>(gi.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    pad_backward_kernel<T>
        <<<grid_for(n), kThreads, 0, s>>>(n, p, static_cast<const T*>(go.data), static_cast<T*>(gi.data));
    return launched(what);
  });
}

}  // namespace

glia_kernel_fn index_kernel(Kid id) {
  switch (id) {
    case Kid::index_select:
      return &k_index_select;
    case Kid::index_add:
      return &k_index_add;
    case Kid::gather:
      return &k_gather;
    case Kid::scatter:
      return &k_scatter;
    case Kid::masked_select_count:
      return &k_masked_select_count;
    case Kid::masked_select:
      return &k_masked_select;
    case Kid::masked_scatter:
      return &k_masked_scatter;
    case Kid::pad:
      return &k_pad;
    case Kid::pad_backward:
      return &k_pad_backward;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
