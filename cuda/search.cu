// Searching and counting on the GPU (src/ops/cpu/search.cpp): searchsorted, isin_sorted, histc,
// unique_consecutive_ids, unique_consecutive_fill. The rules (torch's bounds, isin's lower bound with NaN last,
// histc's position by division) are the CPU kernels' own functions, core/sort_math.h.
//   - searchsorted, isin_sorted: a thread per value, a binary search each;
//   - histc: a thread per value; its bin counted with atomicAdd of 1 on the float32/float64 output. Every
//     addend is 1, so the sum is the same in any order (the count, or 2^24 / 2^53 where the CPU's serial sum
//     stops growing too): order-free, hence deterministic, as the CPU's;
//   - unique_consecutive_ids: 0/1 flags (x[i] != x[i - 1]), then CUB's inclusive sum (integers: exact);
//   - unique_consecutive_fill: per run id, its count (integer atomicAdd) and its first index (atomicMin), then
//     the first value gathered: the CPU's result for any ids, in any order.
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <string>
#include <type_traits>

#include "common.h"
#include "core/sort_math.h"
#include "kernel_call.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

glia_error* internal(const char* what, const char* why) {
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": " + why);
}

#define GLIA_GRID_LOOP(i, n)                                                  \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x, \
               i##_step = static_cast<int64_t>(gridDim.x) * kThreads;         \
       i < (n); i += i##_step)

// ---- searchsorted, isin_sorted

template <class T, class O>
__global__ void __launch_bounds__(kThreads)
    searchsorted_kernel(const T* __restrict b, const T* __restrict v, int64_t m, int64_t rb, int64_t n, int64_t total,
                        bool right, O* __restrict out) {
  using A = acc_t<T>;
  GLIA_GRID_LOOP(i, total) {
    const T* row = b + (rb == 1 ? 0 : i / n) * m;
    out[i] = static_cast<O>(sorting::search_bound<A>([row](int64_t j) { return static_cast<A>(load_acc(row[j])); }, m,
                                                     static_cast<A>(load_acc(v[i])), right));
  }
}

glia_error* k_searchsorted(const glia_kernel_call* call) {
  const char* what = "searchsorted";
  const glia_kernel_tensor &b = call->inputs[0], &v = call->inputs[1], &out = call->outputs[0];
  if (b.ndim != 2 || v.ndim != 2) return internal(what, "operands that are not 2-D");
  if (b.dtype != v.dtype) return internal(what, "boundaries and values of different dtypes");
  if (out.dtype != GLIA_INT64 && out.dtype != GLIA_INT32) return internal(what, "an output not int64 or int32");
  const int64_t rb = b.sizes[0], m = b.sizes[1], n = v.sizes[1], total = view_numel(v);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  return dispatch<Set::kAll>(v.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    const T* bp = static_cast<const T*>(b.data);
    const T* vp = static_cast<const T*>(v.data);
    const bool right = call->attrs[0].i != 0;
    if (out.dtype == GLIA_INT32)
      searchsorted_kernel<T, int32_t>
          <<<grid_for(total), kThreads, 0, s>>>(bp, vp, m, rb, n, total, right, static_cast<int32_t*>(out.data));
    else
      searchsorted_kernel<T, int64_t>
          <<<grid_for(total), kThreads, 0, s>>>(bp, vp, m, rb, n, total, right, static_cast<int64_t*>(out.data));
    return launched(what);
  });
}

template <class T>
__global__ void __launch_bounds__(kThreads) isin_kernel(const T* __restrict e, const T* __restrict sorted, int64_t n,
                                                        int64_t m, bool invert, bool* __restrict out) {
  using A = acc_t<T>;
  GLIA_GRID_LOOP(i, n) {
    const A x = static_cast<A>(load_acc(e[i]));
    const int64_t p =
        sorting::lower_bound_nan<A>([sorted](int64_t j) { return static_cast<A>(load_acc(sorted[j])); }, m, x);
    const bool found = p != m && static_cast<A>(load_acc(sorted[p])) == x;
    out[i] = found != invert;
  }
}

glia_error* k_isin_sorted(const glia_kernel_call* call) {
  const char* what = "isin";
  const glia_kernel_tensor &el = call->inputs[0], &st = call->inputs[1], &out = call->outputs[0];
  if (el.dtype != st.dtype) return internal(what, "elements and test elements of different dtypes");
  if (out.dtype != GLIA_BOOL) return internal(what, "an output that is not bool");
  const int64_t n = view_numel(el), m = view_numel(st);
  if (n == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  return dispatch<Set::kAll>(el.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    isin_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<const T*>(el.data), static_cast<const T*>(st.data), n,
                                                    m, call->attrs[0].i != 0, static_cast<bool*>(out.data));
    return launched(what);
  });
}

// ---- histc

template <class T>
__global__ void __launch_bounds__(kThreads)
    histc_kernel(const T* __restrict x, const T* __restrict edges, int64_t n, int64_t ne, T* __restrict h) {
  const T left = edges[0], right = edges[ne - 1];
  GLIA_GRID_LOOP(i, n) {
    const int64_t pos = sorting::histc_bin<T>(x[i], left, right, ne);
    if (pos >= 0) atomicAdd(h + pos, T(1));  // order-free: every addend is 1
  }
}

glia_error* k_histc(const glia_kernel_call* call) {
  const char* what = "histc";
  const glia_kernel_tensor &x = call->inputs[0], &ed = call->inputs[1], &out = call->outputs[0];
  if (x.dtype != ed.dtype || x.dtype != out.dtype) return internal(what, "operands of different dtypes");
  const int64_t n = view_numel(x), ne = view_numel(ed), bins = view_numel(out);
  if (ne != bins + 1) return internal(what, "edges that are not bins + 1");
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  if (bins == 0) return nullptr;
  const cudaError_t st = cudaMemsetAsync(out.data, 0, static_cast<size_t>(bins * dtype_size(out.dtype)), s);
  if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
  if (n == 0) return nullptr;
  auto run = [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    histc_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<const T*>(x.data), static_cast<const T*>(ed.data), n,
                                                     ne, static_cast<T*>(out.data));
    return launched(what);
  };
  if (x.dtype == GLIA_FLOAT32) return run(float{});
  if (x.dtype == GLIA_FLOAT64) return run(double{});
  return dtype_error(what, x.dtype);
}

// ---- unique_consecutive_ids, unique_consecutive_fill

template <class T>
__global__ void __launch_bounds__(kThreads) run_flags_kernel(const T* __restrict x, int64_t n, int64_t* __restrict f) {
  using A = acc_t<T>;
  GLIA_GRID_LOOP(i, n) { f[i] = i == 0 ? 0 : !(static_cast<A>(load_acc(x[i])) == static_cast<A>(load_acc(x[i - 1]))); }
}

glia_error* k_unique_consecutive_ids(const glia_kernel_call* call) {
  const char* what = "unique_consecutive";
  const glia_kernel_tensor &x = call->inputs[0], &ids = call->outputs[0];
  if (ids.dtype != GLIA_INT64) return internal(what, "ids that are not int64");
  const int64_t n = view_numel(x);
  if (n == 0) return nullptr;
  const int32_t dev = ids.device_index;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, dev, &s)) return e;
  int64_t* out = static_cast<int64_t*>(ids.data);
  size_t temp = 0;
  cudaError_t st = cub::DeviceScan::InclusiveSum(nullptr, temp, static_cast<const int64_t*>(nullptr), out, n, s);
  if (st != cudaSuccess) return cuda_error(st, "cub::DeviceScan::InclusiveSum", "unique_consecutive, size query");
  const size_t fb = (static_cast<size_t>(n) * 8 + 255) / 256 * 256;
  Scratch mem(dev);
  if (glia_error* e = device_alloc(dev, fb + temp, &mem.p)) return e;
  int64_t* flags = static_cast<int64_t*>(mem.p);
  glia_error* e = dispatch<Set::kAll>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    run_flags_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<const T*>(x.data), n, flags);
    return launched(what);
  });
  if (e) return e;
  st = cub::DeviceScan::InclusiveSum(static_cast<char*>(mem.p) + fb, temp, flags, out, n, s);
  return st == cudaSuccess ? nullptr : cuda_error(st, "cub::DeviceScan::InclusiveSum", what);
}

__global__ void __launch_bounds__(kThreads) fill_max_kernel(int64_t* p, int64_t n) {
  GLIA_GRID_LOOP(i, n) { p[i] = INT64_MAX; }
}

__global__ void __launch_bounds__(kThreads)
    runs_kernel(const int64_t* __restrict ids, int64_t n, unsigned long long* counts, long long* first) {
  GLIA_GRID_LOOP(i, n) {
    const int64_t r = ids[i];
    atomicAdd(counts + r, 1ull);
    atomicMin(first + r, static_cast<long long>(i));
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    run_values_kernel(const T* __restrict x, const int64_t* __restrict first, int64_t runs, T* __restrict v) {
  GLIA_GRID_LOOP(r, runs) {
    if (first[r] != INT64_MAX) v[r] = x[first[r]];
  }
}

glia_error* k_unique_consecutive_fill(const glia_kernel_call* call) {
  const char* what = "unique_consecutive";
  const glia_kernel_tensor &x = call->inputs[0], &ids = call->inputs[1], &vals = call->outputs[0],
                           &counts = call->outputs[1];
  if (ids.dtype != GLIA_INT64 || counts.dtype != GLIA_INT64) return internal(what, "ids or counts not int64");
  if (vals.dtype != x.dtype) return internal(what, "values of another dtype than the input");
  const int64_t n = view_numel(x), runs = view_numel(vals);
  const int32_t dev = vals.device_index;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, dev, &s)) return e;
  if (runs == 0) return nullptr;
  cudaError_t st = cudaMemsetAsync(counts.data, 0, static_cast<size_t>(runs) * 8, s);
  if (st != cudaSuccess) return cuda_error(st, "cudaMemsetAsync", what);
  Scratch mem(dev);
  if (glia_error* e = device_alloc(dev, static_cast<size_t>(runs) * 8, &mem.p)) return e;
  int64_t* first = static_cast<int64_t*>(mem.p);
  fill_max_kernel<<<grid_for(runs), kThreads, 0, s>>>(first, runs);
  if (glia_error* e = launched(what)) return e;
  if (n > 0) {
    runs_kernel<<<grid_for(n), kThreads, 0, s>>>(static_cast<const int64_t*>(ids.data), n,
                                                 static_cast<unsigned long long*>(counts.data),
                                                 reinterpret_cast<long long*>(first));
    if (glia_error* e = launched(what)) return e;
  }
  return dispatch<Set::kAll>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    run_values_kernel<T>
        <<<grid_for(runs), kThreads, 0, s>>>(static_cast<const T*>(x.data), first, runs, static_cast<T*>(vals.data));
    return launched(what);
  });
}

#undef GLIA_GRID_LOOP

}  // namespace

glia_kernel_fn search_kernel(Kid id) {
  switch (id) {
    case Kid::searchsorted:
      return &k_searchsorted;
    case Kid::isin_sorted:
      return &k_isin_sorted;
    case Kid::histc:
      return &k_histc;
    case Kid::unique_consecutive_ids:
      return &k_unique_consecutive_ids;
    case Kid::unique_consecutive_fill:
      return &k_unique_consecutive_fill;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
