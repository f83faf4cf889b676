// The other reductions of the CUDA backend (src/ops/cpu/reduce.cpp): the row kernels max_dim, min_dim, argmax,
// argmin, var, std_dev, logsumexp and the backwards amax_backward, index_reduce_backward, prod_backward,
// norm_backward (kernels.def: in0 contiguous, n_out rows of n_red elements, kept dims first), and the strided
// reductions vector_norm, all and any (through reduce.cuh), and the scans cumsum, cumprod, cummax, cummin,
// logcumsumexp with the backwards cumprod_backward and logcumsumexp_backward.
//
// The row kernels run a block per row (32 to 256 threads, the power of two that covers the row), thread t
// taking elements t, t + blockDim, ... in order, then a fixed tree (Note [Deterministic CUDA reductions] in
// reduce.cu): two runs give the same bits. The formulas and accumulation types are the CPU kernels':
//   - max/min: the first NaN, else the first index of the extremum (the tree keeps the lower index on ties);
//   - var/std: the CPU's two passes (the mean, then the sum of squared deviations) in facc_t (double for
//     float32/float64), divisor max(0, n - correction); the two passes are the CPU kernel's formula, which
//     Welford's one pass (cuda/welford.h, for the norms) would not reproduce to the last bit in float64;
//   - logsumexp: the max (a NaN sticks; an infinite max taken as 0), then log(sum exp(x - max)) + max;
//   - prod_backward: one thread per row, the CPU's serial prefix / suffix products with its roundings.
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>

#include "arg_extremum.h"
#include "common.h"
#include "kernel_call.h"
#include "launch.cuh"
#include "reduce.cuh"

namespace glia::cuda {

namespace {

template <class A>
__device__ __forceinline__ bool nan_(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return v != v;
  else
    return false;
}

// The block's reduction of v with `combine` over blockDim.x (a power of two <= kThreads) threads, in a fixed
// tree; every thread gets the result. `part` holds kThreads values.
template <class A, class Combine>
__device__ A block_reduce(A v, A* part, Combine combine) {
  const int tid = static_cast<int>(threadIdx.x);
  part[tid] = v;
  __syncthreads();
  for (int s = static_cast<int>(blockDim.x) / 2; s > 0; s /= 2) {
    if (tid < s) part[tid] = combine(part[tid], part[tid + s]);
    __syncthreads();
  }
  const A r = part[0];
  __syncthreads();  // part is reused by the next reduction
  return r;
}

struct Plus {
  template <class A>
  __device__ A operator()(A a, A b) const {
    return a + b;
  }
};
struct MaxNan {
  template <class A>
  __device__ A operator()(A m, A v) const {
    return (v > m || v != v) ? v : m;  // a NaN sticks
  }
};

// Rows: n_out rows of n elements, out of n_out.
struct Rows {
  int64_t n_out = 0, n = 0;
};

glia_error* rows_of(const glia_kernel_tensor& x, int64_t n_out, Rows* r) {
  r->n_out = n_out;
  r->n = n_out ? view_numel(x) / n_out : 0;
  return nullptr;
}

unsigned row_threads(int64_t n) {
  unsigned t = 32;
  while (t < static_cast<unsigned>(kThreads) && static_cast<int64_t>(t) < n) t *= 2;
  return t;
}
unsigned row_blocks(int64_t n_out) { return static_cast<unsigned>(n_out < 65536 ? n_out : 65536); }

glia_error* same_dtype(const glia_kernel_tensor& a, const glia_kernel_tensor& b, const char* what) {
  if (a.dtype == b.dtype) return nullptr;
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": operands of different dtypes");
}

// ---- max_dim / min_dim / argmax / argmin

template <bool Max, class T>
__global__ void __launch_bounds__(kThreads)
    max_rows_kernel(int64_t n_out, int64_t n, const T* x, T* values, int64_t* indices) {
  using A = acc_t<T>;
  __shared__ ArgCandidate<A> part[kThreads];
  for (int64_t r = blockIdx.x; r < n_out; r += gridDim.x) {
    const T* row = x + r * n;
    ArgCandidate<A> b{A(0), -1};
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
      b = arg_better<Max>(b, ArgCandidate<A>{static_cast<A>(load_acc(row[j])), j});
    b = block_reduce(b, part, [](ArgCandidate<A> p, ArgCandidate<A> q) { return arg_better<Max>(p, q); });
    if (threadIdx.x == 0) {
      const int64_t bi = b.i < 0 ? 0 : b.i;
      if (values) values[r] = row[bi];
      indices[r] = bi;
    }
  }
}

template <bool Max>
glia_error* max_rows(const glia_kernel_call* call, const char* what, bool with_values) {
  const glia_kernel_tensor& x = call->inputs[0];
  const glia_kernel_tensor& idx = call->outputs[with_values ? 1 : 0];
  if (idx.dtype != GLIA_INT64)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": indices not int64");
  if (with_values)
    if (glia_error* e = same_dtype(x, call->outputs[0], what)) return e;
  Rows r;
  rows_of(x, view_numel(idx), &r);
  if (r.n_out == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, idx.device_index, &s)) return e;
  return dispatch<Set::kAll>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    max_rows_kernel<Max, T><<<row_blocks(r.n_out), row_threads(r.n), 0, s>>>(
        r.n_out, r.n, static_cast<const T*>(x.data), with_values ? static_cast<T*>(call->outputs[0].data) : nullptr,
        static_cast<int64_t*>(idx.data));
    return launched(what);
  });
}

glia_error* k_max_dim(const glia_kernel_call* call) { return max_rows<true>(call, "max", true); }
glia_error* k_min_dim(const glia_kernel_call* call) { return max_rows<false>(call, "min", true); }
glia_error* k_argmax(const glia_kernel_call* call) { return max_rows<true>(call, "argmax", false); }
glia_error* k_argmin(const glia_kernel_call* call) { return max_rows<false>(call, "argmin", false); }

// ---- var / std_dev / logsumexp

template <bool Sqrt, class T>
__global__ void __launch_bounds__(kThreads)
    var_rows_kernel(int64_t n_out, int64_t n, double correction, const T* x, T* out) {
  using A = facc_t<T>;
  __shared__ A part[kThreads];
  const A nn = static_cast<A>(n), c = static_cast<A>(correction);
  const A div = nn - c > A(0) ? nn - c : A(0);  // std::max<A>(0, n - correction)
  for (int64_t r = blockIdx.x; r < n_out; r += gridDim.x) {
    const T* row = x + r * n;
    A s = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += static_cast<A>(load_acc(row[j]));
    s = block_reduce(s, part, Plus{});
    const A m = s / nn;
    A ss = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const A d = static_cast<A>(load_acc(row[j])) - m;
      ss += d * d;
    }
    ss = block_reduce(ss, part, Plus{});
    if (threadIdx.x == 0) {
      const A v = ss / div;
      out[r] = store_as<T>(Sqrt ? std::sqrt(v) : v);
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) logsumexp_rows_kernel(int64_t n_out, int64_t n, const T* x, T* out) {
  using A = facc_t<T>;
  __shared__ A part[kThreads];
  for (int64_t r = blockIdx.x; r < n_out; r += gridDim.x) {
    const T* row = x + r * n;
    A m = -std::numeric_limits<A>::infinity();
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) m = MaxNan{}(m, static_cast<A>(load_acc(row[j])));
    m = block_reduce(m, part, MaxNan{});
    if (std::isinf(m)) m = 0;  // torch: all -inf rows give -inf, a +inf gives +inf
    A s = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += std::exp(static_cast<A>(load_acc(row[j])) - m);
    s = block_reduce(s, part, Plus{});
    if (threadIdx.x == 0) out[r] = store_as<T>(std::log(s) + m);
  }
}

template <bool Sqrt>
glia_error* k_var_rows(const glia_kernel_call* call) {
  const char* what = Sqrt ? "std" : "var";
  const glia_kernel_tensor &x = call->inputs[0], &out = call->outputs[0];
  if (glia_error* e = same_dtype(x, out, what)) return e;
  Rows r;
  rows_of(x, view_numel(out), &r);
  if (r.n_out == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  const double correction = call->attrs[0].f;
  return dispatch<Set::kFloat>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    var_rows_kernel<Sqrt, T><<<row_blocks(r.n_out), row_threads(r.n), 0, s>>>(
        r.n_out, r.n, correction, static_cast<const T*>(x.data), static_cast<T*>(out.data));
    return launched(what);
  });
}

glia_error* k_logsumexp(const glia_kernel_call* call) {
  const char* what = "logsumexp";
  const glia_kernel_tensor &x = call->inputs[0], &out = call->outputs[0];
  if (glia_error* e = same_dtype(x, out, what)) return e;
  Rows r;
  rows_of(x, view_numel(out), &r);
  if (r.n_out == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  return dispatch<Set::kFloat>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    logsumexp_rows_kernel<T><<<row_blocks(r.n_out), row_threads(r.n), 0, s>>>(
        r.n_out, r.n, static_cast<const T*>(x.data), static_cast<T*>(out.data));
    return launched(what);
  });
}

// ---- vector_norm, all, any: strided reductions (reduce.cuh)

template <class A>
struct NormOp {  // ord: 2 (kind 0), 1 (1), 0 (2), inf (3), -inf (4), any other p (5)
  using Acc = A;
  int kind;
  A p;
  __device__ A init() const { return kind == 4 ? std::numeric_limits<A>::infinity() : A(0); }
  __device__ A step(A a, A x) const {
    switch (kind) {
      case 0:
        return a + x * x;
      case 1:
        return a + std::abs(x);
      case 2:
        return a + (x != 0 ? A(1) : A(0));
      case 3:
        return combine(a, std::abs(x));
      case 4:
        return combine(a, std::abs(x));
      default:
        return a + std::pow(std::abs(x), p);
    }
  }
  __device__ A combine(A a, A b) const {
    if (kind == 3) return (b > a || b != b) ? b : a;
    if (kind == 4) return (b < a || b != b) ? b : a;
    return a + b;
  }
  __device__ A finish(A a, int64_t) const {
    if (kind == 0) return std::sqrt(a);
    if (kind == 5) return std::pow(a, A(1) / p);
    return a;
  }
};

glia_error* k_vector_norm(const glia_kernel_call* call) {
  const char* what = "linalg.vector_norm";
  const double p = call->attrs[2].f;
  const int kind = p == 2 ? 0 : p == 1 ? 1 : p == 0 ? 2 : std::isinf(p) ? (p > 0 ? 3 : 4) : 5;
  return dispatch<Set::kFloat>(call->inputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    using A = facc_t<T>;
    return run_reduce<T>(call, what, NormOp<A>{kind, static_cast<A>(p)});
  });
}

template <bool All>
struct BoolOp {
  using Acc = bool;
  __device__ bool init() const { return All; }
  __device__ bool step(bool a, bool x) const { return All ? (a && x) : (a || x); }
  __device__ bool combine(bool a, bool b) const { return step(a, b); }
  __device__ bool finish(bool a, int64_t) const { return a; }
};

template <bool All>
glia_error* k_bool_reduce(const glia_kernel_call* call) {
  const char* what = All ? "all" : "any";
  const bool to_u8 = call->outputs[0].dtype == GLIA_UINT8;  // torch 1.13 keeps uint8
  return dispatch<Set::kAll>(call->inputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    if (to_u8) return run_reduce_to<T, uint8_t>(call, what, BoolOp<All>{});
    return run_reduce_to<T, bool>(call, what, BoolOp<All>{});
  });
}

// ---- backward row kernels: x [n_out, n], per-row values contiguous, out [n_out, n]

template <class T>
__global__ void __launch_bounds__(kThreads)
    amax_backward_kernel(int64_t n_out, int64_t n, const T* x, const T* g, const T* res, T* gi) {
  using A = acc_t<T>;
  __shared__ int64_t part[kThreads];
  for (int64_t r = blockIdx.x; r < n_out; r += gridDim.x) {
    const T* row = x + r * n;
    const A rv = static_cast<A>(load_acc(res[r]));
    const bool rnan = nan_(rv);
    int64_t cnt = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const A v = static_cast<A>(load_acc(row[j]));
      cnt += v == rv || (rnan && nan_(v));
    }
    cnt = block_reduce(cnt, part, Plus{});
    const A share = static_cast<A>(load_acc(g[r])) / static_cast<A>(cnt);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const A v = static_cast<A>(load_acc(row[j]));
      gi[r * n + j] = store_as<T>(v == rv || (rnan && nan_(v)) ? share : A(0));
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    index_reduce_backward_kernel(int64_t total, int64_t n, const T* g, const int64_t* idx, T* gi) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; e < total; e += step) {
    const int64_t r = e / n, j = e - r * n;
    gi[e] = j == idx[r] ? g[r] : store_as<T>(0.0f);
  }
}

// One thread per row: the CPU's serial loops, with its roundings to T between the prefix and suffix passes.
template <class T>
__global__ void __launch_bounds__(kThreads)
    prod_backward_kernel(int64_t n_out, int64_t n, const T* x, const T* g, T* gi) {
  using A = facc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; r < n_out; r += step) {
    const T* row = x + r * n;
    T* orow = gi + r * n;
    int64_t zeros_n = 0, zpos = -1;
    A others = 1;  // the product of the nonzero elements
    for (int64_t j = 0; j < n; ++j) {
      const A v = static_cast<A>(load_acc(row[j]));
      if (v == 0) {
        ++zeros_n;
        zpos = j;
      } else {
        others *= v;
      }
    }
    const A gv = static_cast<A>(load_acc(g[r]));
    for (int64_t j = 0; j < n; ++j) orow[j] = store_as<T>(0.0f);
    if (zeros_n == 0) {
      A pre = 1;
      for (int64_t j = 0; j < n; ++j) {
        orow[j] = store_as<T>(pre);
        pre *= static_cast<A>(load_acc(row[j]));
      }
      A suf = 1;
      for (int64_t j = n - 1; j >= 0; --j) {
        orow[j] = store_as<T>(static_cast<A>(load_acc(orow[j])) * suf * gv);
        suf *= static_cast<A>(load_acc(row[j]));
      }
    } else if (zeros_n == 1) {
      orow[zpos] = store_as<T>(others * gv);
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    norm_backward_kernel(int64_t n_out, int64_t n, double p, const T* x, const T* g, const T* norm, T* gi) {
  using A = facc_t<T>;
  __shared__ int64_t part[kThreads];
  auto sgn = [](A v) { return v > 0 ? A(1) : v < 0 ? A(-1) : A(0); };
  const A pa = static_cast<A>(p);
  for (int64_t r = blockIdx.x; r < n_out; r += gridDim.x) {
    const T* row = x + r * n;
    T* orow = gi + r * n;
    const A gv = static_cast<A>(load_acc(g[r])), nv = static_cast<A>(load_acc(norm[r]));
    if (p == 0) {
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) orow[j] = store_as<T>(A(0));
    } else if (p == 1) {
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
        orow[j] = store_as<T>(sgn(static_cast<A>(load_acc(row[j]))) * gv);
    } else if (p == 2) {
      const A sc = nv == 0 ? A(0) : gv / nv;
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
        orow[j] = store_as<T>(static_cast<A>(load_acc(row[j])) * sc);
    } else if (std::isinf(p)) {
      int64_t cnt = 0;
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
        const A a = std::abs(static_cast<A>(load_acc(row[j])));
        cnt += a == nv || a != a;
      }
      cnt = block_reduce(cnt, part, Plus{});
      const A share = gv / static_cast<A>(cnt);
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
        const A v = static_cast<A>(load_acc(row[j]));
        const A a = std::abs(v);
        orow[j] = store_as<T>(a == nv || a != a ? sgn(v) * share : A(0));
      }
    } else if (p < 1) {
      const A sc = gv * std::pow(nv, A(1) - pa);
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
        const A v = static_cast<A>(load_acc(row[j]));
        const A f = v == 0 ? A(0) : sgn(v) * std::pow(std::abs(v), pa - 1);
        orow[j] = store_as<T>(f * sc);
      }
    } else {
      const A sc = nv == 0 ? A(0) : gv / std::pow(nv, pa - 1);
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
        const A v = static_cast<A>(load_acc(row[j]));
        const A f = p < 2 ? sgn(v) * std::pow(std::abs(v), pa - 1) : v * std::pow(std::abs(v), pa - 2);
        orow[j] = store_as<T>(f * sc);
      }
    }
  }
}

glia_error* k_amax_backward(const glia_kernel_call* call) {
  const char* what = "amax_backward";
  const glia_kernel_tensor &x = call->inputs[0], &g = call->inputs[1], &res = call->inputs[2], &gi = call->outputs[0];
  for (const glia_kernel_tensor* t : {&g, &res, &gi})
    if (glia_error* e = same_dtype(x, *t, what)) return e;
  Rows r;
  rows_of(x, view_numel(g), &r);
  if (r.n_out == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, gi.device_index, &s)) return e;
  return dispatch<Set::kFloat>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    amax_backward_kernel<T><<<row_blocks(r.n_out), row_threads(r.n), 0, s>>>(
        r.n_out, r.n, static_cast<const T*>(x.data), static_cast<const T*>(g.data), static_cast<const T*>(res.data),
        static_cast<T*>(gi.data));
    return launched(what);
  });
}

glia_error* k_index_reduce_backward(const glia_kernel_call* call) {
  const char* what = "max_backward";
  const glia_kernel_tensor &g = call->inputs[0], &idx = call->inputs[1], &gi = call->outputs[0];
  if (glia_error* e = same_dtype(g, gi, what)) return e;
  if (idx.dtype != GLIA_INT64) return make_error(GLIA_ERR_INTERNAL, "cuda: max_backward: indices not int64");
  Rows r;
  rows_of(gi, view_numel(g), &r);
  const int64_t total = r.n_out * r.n;
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, gi.device_index, &s)) return e;
  return dispatch<Set::kFloat>(g.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    index_reduce_backward_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
        total, r.n, static_cast<const T*>(g.data), static_cast<const int64_t*>(idx.data), static_cast<T*>(gi.data));
    return launched(what);
  });
}

glia_error* k_prod_backward(const glia_kernel_call* call) {
  const char* what = "prod_backward";
  const glia_kernel_tensor &x = call->inputs[0], &g = call->inputs[1], &gi = call->outputs[0];
  for (const glia_kernel_tensor* t : {&g, &gi})
    if (glia_error* e = same_dtype(x, *t, what)) return e;
  Rows r;
  rows_of(x, view_numel(g), &r);
  if (r.n_out == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, gi.device_index, &s)) return e;
  return dispatch<Set::kFloat>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    prod_backward_kernel<T><<<grid_for(r.n_out), kThreads, 0, s>>>(
        r.n_out, r.n, static_cast<const T*>(x.data), static_cast<const T*>(g.data), static_cast<T*>(gi.data));
    return launched(what);
  });
}

glia_error* k_norm_backward(const glia_kernel_call* call) {
  const char* what = "norm_backward";
  const glia_kernel_tensor &x = call->inputs[0], &g = call->inputs[1], &nr = call->inputs[2], &gi = call->outputs[0];
  for (const glia_kernel_tensor* t : {&g, &nr, &gi})
    if (glia_error* e = same_dtype(x, *t, what)) return e;
  Rows r;
  rows_of(x, view_numel(g), &r);
  if (r.n_out == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, gi.device_index, &s)) return e;
  const double p = call->attrs[0].f;
  return dispatch<Set::kFloat>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    norm_backward_kernel<T><<<row_blocks(r.n_out), row_threads(r.n), 0, s>>>(
        r.n_out, r.n, p, static_cast<const T*>(x.data), static_cast<const T*>(g.data), static_cast<const T*>(nr.data),
        static_cast<T*>(gi.data));
    return launched(what);
  });
}

// ---- cumsum / cumprod (src/ops/cpu/scan.cpp, Note [Scan layout]): in0 contiguous as [outer, n, inner]; one
// thread per (outer, inner) slice walks the n elements in order with the CPU's accumulator (scan_acc_t), so
// the results are the CPU's bit for bit.

template <class T>
using scan_acc_t =
    std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double,
                       std::conditional_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int64_t, acc_t<T>>>;

template <class T, bool Prod>
__global__ void __launch_bounds__(kThreads)
    scan_kernel(int64_t slices, int64_t n, int64_t inner, bool reverse, const T* x, T* y) {
  using A = scan_acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t sl = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; sl < slices; sl += step) {
    const int64_t o = sl / inner, i = sl - o * inner;
    A acc = Prod ? A(1) : A(0);
    for (int64_t jj = 0; jj < n; ++jj) {
      const int64_t j = reverse ? n - 1 - jj : jj;
      const int64_t at = (o * n + j) * inner + i;
      const A v = static_cast<A>(load_acc(x[at]));
      if constexpr (std::is_same_v<A, bool>)
        acc = Prod ? (acc && v) : (acc || v);
      else if constexpr (Prod)
        acc = wrap_mul(acc, v);
      else
        acc = wrap_add(acc, v);
      y[at] = store_as<T>(acc);
    }
  }
}

template <bool Prod>
glia_error* k_scan(const glia_kernel_call* call) {
  const char* what = Prod ? "cumprod" : "cumsum";
  const glia_kernel_tensor &x = call->inputs[0], &y = call->outputs[0];
  if (glia_error* e = same_dtype(x, y, what)) return e;
  const int64_t dim = x.ndim == 0 ? 0 : call->attrs[0].i;
  const bool reverse = !Prod && call->attrs[1].i != 0;
  if (x.ndim > 0 && (dim < 0 || dim >= x.ndim))
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": dim out of range");
  int64_t outer = 1, n = 1, inner = 1;
  for (int32_t d = 0; d < x.ndim; ++d) (d < dim ? outer : d == dim ? n : inner) *= x.sizes[d];
  const int64_t slices = outer * inner;
  if (slices == 0 || n == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  return dispatch<Set::kAll>(y.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    scan_kernel<T, Prod><<<grid_for(slices), kThreads, 0, s>>>(slices, n, inner, reverse, static_cast<const T*>(x.data),
                                                               static_cast<T*>(y.data));
    return launched(what);
  });
}

// torch's _log_add_exp_helper (scan.cpp's log_add_exp): log(exp(x) + exp(y)), NaN propagating, infinities
// kept; std::min / std::max spelled out.
template <class A>
__device__ A log_add_exp(A x, A y) {
  const A lo = y != y ? y : (y < x ? y : x);
  const A hi = y != y ? y : (x < y ? y : x);
  if (lo != hi || std::isfinite(lo)) return std::log1p(std::exp(lo - hi)) + hi;
  return x;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    logcumsumexp_kernel(int64_t slices, int64_t n, int64_t inner, const T* x, T* y) {
  using A = scan_acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t sl = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; sl < slices; sl += step) {
    const int64_t o = sl / inner, i = sl - o * inner;
    A acc = -std::numeric_limits<A>::infinity();
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = (o * n + j) * inner + i;
      acc = log_add_exp(static_cast<A>(load_acc(x[at])), acc);
      y[at] = store_as<T>(acc);
    }
  }
}

// cummax / cummin: the value and index of the last element equal to the running extreme (torch's >= / <=); a
// NaN takes over and each later NaN takes its index.
template <class T, bool Max>
__global__ void __launch_bounds__(kThreads)
    cum_extreme_kernel(int64_t slices, int64_t n, int64_t inner, const T* x, T* v, int64_t* ix) {
  using A = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t sl = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; sl < slices; sl += step) {
    const int64_t o = sl / inner, i = sl - o * inner;
    A best = A(0);
    int64_t bi = 0;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = (o * n + j) * inner + i;
      const A xv = static_cast<A>(load_acc(x[at]));
      if (j == 0 || nan_(xv) || (!nan_(best) && (Max ? xv >= best : xv <= best))) {
        best = xv;
        bi = j;
      }
      v[at] = store_as<T>(best);
      ix[at] = bi;
    }
  }
}

// The [outer, n, inner] shape of a scan's input around dim (0-dim: one element).
glia_error* scan_shape(const glia_kernel_tensor& x, int64_t dim, const char* what, int64_t* outer, int64_t* n,
                       int64_t* inner) {
  *outer = *n = *inner = 1;
  if (x.ndim > 0 && (dim < 0 || dim >= x.ndim))
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": dim out of range");
  for (int32_t d = 0; d < x.ndim; ++d) (d < dim ? *outer : d == dim ? *n : *inner) *= x.sizes[d];
  return nullptr;
}

glia_error* k_logcumsumexp(const glia_kernel_call* call) {
  const char* what = "logcumsumexp";
  const glia_kernel_tensor &x = call->inputs[0], &y = call->outputs[0];
  if (glia_error* e = same_dtype(x, y, what)) return e;
  int64_t outer, n, inner;
  if (glia_error* e = scan_shape(x, x.ndim == 0 ? 0 : call->attrs[0].i, what, &outer, &n, &inner)) return e;
  if (outer * inner == 0 || n == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, y.device_index, &s)) return e;
  return dispatch<Set::kFloat>(y.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    logcumsumexp_kernel<T><<<grid_for(outer * inner), kThreads, 0, s>>>(
        outer * inner, n, inner, static_cast<const T*>(x.data), static_cast<T*>(y.data));
    return launched(what);
  });
}

template <bool Max>
glia_error* k_cum_extreme(const glia_kernel_call* call) {
  const char* what = Max ? "cummax" : "cummin";
  const glia_kernel_tensor &x = call->inputs[0], &v = call->outputs[0], &ix = call->outputs[1];
  if (glia_error* e = same_dtype(x, v, what)) return e;
  if (ix.dtype != GLIA_INT64)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": indices not int64");
  int64_t outer, n, inner;
  if (glia_error* e = scan_shape(x, x.ndim == 0 ? 0 : call->attrs[0].i, what, &outer, &n, &inner)) return e;
  if (outer * inner == 0 || n == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, v.device_index, &s)) return e;
  return dispatch<Set::kAll>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    cum_extreme_kernel<T, Max>
        <<<grid_for(outer * inner), kThreads, 0, s>>>(outer * inner, n, inner, static_cast<const T*>(x.data),
                                                      static_cast<T*>(v.data), static_cast<int64_t*>(ix.data));
    return launched(what);
  });
}

// ---- the scans' backwards: rows (the dim last), one thread per row, the CPU kernels' serial loops.

// torch's cumprod_backward: before the first zero z the gradient is sum_{i>=j} g_i out_i / x_j; at z it is
// out_{z-1} * sum_{i>=z} g_i prod_{z<k<=i} x_k; after z 0.
template <class T>
__global__ void __launch_bounds__(kThreads)
    cumprod_backward_kernel(int64_t rows, int64_t n, const T* x, const T* r, const T* g, T* gi) {
  using A = scan_acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; row < rows; row += step) {
    const T *xr = x + row * n, *rr = r + row * n, *gr = g + row * n;
    T* orow = gi + row * n;
    int64_t z = 0;
    while (z < n && static_cast<A>(load_acc(xr[z])) != 0) ++z;
    A s = 0;
    for (int64_t j = z - 1; j >= 0; --j) {
      s += static_cast<A>(load_acc(gr[j])) * static_cast<A>(load_acc(rr[j]));
      orow[j] = store_as<T>(s / static_cast<A>(load_acc(xr[j])));
    }
    if (z < n) {
      const A pre = z > 0 ? static_cast<A>(load_acc(rr[z - 1])) : A(1);
      A c = 1, acc = static_cast<A>(load_acc(gr[z]));
      for (int64_t i = z + 1; i < n; ++i) {
        c *= static_cast<A>(load_acc(xr[i]));
        acc += static_cast<A>(load_acc(gr[i])) * c;
      }
      orow[z] = store_as<T>(pre * acc);
      for (int64_t j = z + 1; j < n; ++j) orow[j] = store_as<T>(A(0));
    }
  }
}

// torch's logcumsumexp_backward: sum_{i>=j} g_i exp(x_j - r_i), the positive and negative gradients summed
// separately in log space.
template <class T>
__global__ void __launch_bounds__(kThreads)
    logcumsumexp_backward_kernel(int64_t rows, int64_t n, const T* x, const T* r, const T* g, T* gi) {
  using A = scan_acc_t<T>;
  const A lowest = std::numeric_limits<A>::lowest();
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; row < rows; row += step) {
    const T *xr = x + row * n, *rr = r + row * n, *gr = g + row * n;
    T* orow = gi + row * n;
    A pos = lowest, neg = lowest;
    for (int64_t j = n - 1; j >= 0; --j) {
      const A gv = static_cast<A>(load_acc(gr[j])), rv = static_cast<A>(load_acc(rr[j]));
      const A lg = std::log(std::abs(gv));
      pos = log_add_exp((gv > 0 ? lg : lowest) - rv, pos);
      neg = log_add_exp((gv < 0 ? lg : lowest) - rv, neg);
      const A xv = static_cast<A>(load_acc(xr[j]));
      orow[j] = store_as<T>(std::exp(pos + xv) - std::exp(neg + xv));
    }
  }
}

template <bool LogCumSumExp>
glia_error* k_scan_backward(const glia_kernel_call* call) {
  const char* what = LogCumSumExp ? "logcumsumexp_backward" : "cumprod_backward";
  const glia_kernel_tensor &x = call->inputs[0], &r = call->inputs[1], &g = call->inputs[2], &gi = call->outputs[0];
  for (const glia_kernel_tensor* t : {&r, &g, &gi})
    if (glia_error* e = same_dtype(x, *t, what)) return e;
  const int64_t n = x.ndim == 0 ? 1 : x.sizes[x.ndim - 1];
  const int64_t rows = n ? view_numel(x) / n : 0;
  if (rows == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, gi.device_index, &s)) return e;
  return dispatch<Set::kFloat>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    const T *xp = static_cast<const T*>(x.data), *rp = static_cast<const T*>(r.data),
            *gp = static_cast<const T*>(g.data);
    T* op = static_cast<T*>(gi.data);
    if constexpr (LogCumSumExp)
      logcumsumexp_backward_kernel<T><<<grid_for(rows), kThreads, 0, s>>>(rows, n, xp, rp, gp, op);
    else
      cumprod_backward_kernel<T><<<grid_for(rows), kThreads, 0, s>>>(rows, n, xp, rp, gp, op);
    return launched(what);
  });
}

}  // namespace

glia_kernel_fn reduce_extra_kernel(Kid id) {
  switch (id) {
    case Kid::max_dim:
      return &k_max_dim;
    case Kid::min_dim:
      return &k_min_dim;
    case Kid::argmax:
      return &k_argmax;
    case Kid::argmin:
      return &k_argmin;
    case Kid::var:
      return &k_var_rows<false>;
    case Kid::std_dev:
      return &k_var_rows<true>;
    case Kid::logsumexp:
      return &k_logsumexp;
    case Kid::vector_norm:
      return &k_vector_norm;
    case Kid::amax_backward:
      return &k_amax_backward;
    case Kid::index_reduce_backward:
      return &k_index_reduce_backward;
    case Kid::prod_backward:
      return &k_prod_backward;
    case Kid::norm_backward:
      return &k_norm_backward;
    case Kid::all:
      return &k_bool_reduce<true>;
    case Kid::any:
      return &k_bool_reduce<false>;
    case Kid::cumsum:
      return &k_scan<false>;
    case Kid::cumprod:
      return &k_scan<true>;
    case Kid::cummax:
      return &k_cum_extreme<true>;
    case Kid::cummin:
      return &k_cum_extreme<false>;
    case Kid::logcumsumexp:
      return &k_logcumsumexp;
    case Kid::cumprod_backward:
      return &k_scan_backward<false>;
    case Kid::logcumsumexp_backward:
      return &k_scan_backward<true>;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
