// The strided reductions of the CUDA backend: sum, mean, prod, amax, amin, nansum (kernels.def's "dims: .ints,
// keepdim: .i"; in0 any strides, out0 contiguous with one element per kept index, in in0's order of kept dims).
//
// Note [Deterministic CUDA reductions]: each output is reduced in a fixed order that depends only on the shapes:
// with at least kBlockMin elements per output, one block of kThreads threads per output, thread t accumulating
// elements t, t + kThreads, ... in order, then a fixed tree over shared memory; with fewer, one thread per
// output, in order. No atomics, so two runs of one reduction give the same bits. The accumulation types and
// the per-element steps are the CPU kernels' (src/ops/cpu/reduce.cpp): float32, float16 and bfloat16 sums
// accumulate in double (the CPU's Acc), means in facc_t (double for float32/float64, float for the 16-bit
// floats); amax/amin let a NaN stick; integer sums and products wrap.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "common.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

constexpr int64_t kBlockMin = 128;

struct ReduceGeom {
  int nk = 0, nr = 0;  // kept and reduced dims, outermost first
  int64_t ksize[kMaxDims], kstride[kMaxDims], rsize[kMaxDims], rstride[kMaxDims];
};

__device__ __forceinline__ int64_t offset_of(int64_t i, int n, const int64_t* size, const int64_t* stride) {
  int64_t off = 0;
  for (int d = n - 1; d >= 0; --d) {
    const int64_t q = i / size[d];
    off += (i - q * size[d]) * stride[d];
    i = q;
  }
  return off;
}

template <class T, class Op>
__global__ void __launch_bounds__(kThreads)
    reduce_block_kernel(int64_t n_out, int64_t n_red, ReduceGeom g, const T* in, T* out, Op op) {
  using Acc = typename Op::Acc;
  __shared__ Acc part[kThreads];
  const int tid = static_cast<int>(threadIdx.x);
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    const T* base = in + offset_of(o, g.nk, g.ksize, g.kstride);
    Acc acc = op.init();
    for (int64_t j = tid; j < n_red; j += kThreads)
      acc = op.step(acc, static_cast<Acc>(load_acc(base[offset_of(j, g.nr, g.rsize, g.rstride)])));
    part[tid] = acc;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s /= 2) {
      if (tid < s) part[tid] = op.combine(part[tid], part[tid + s]);
      __syncthreads();
    }
    if (tid == 0) out[o] = store_as<T>(op.finish(part[0], n_red));
    __syncthreads();
  }
}

template <class T, class Op>
__global__ void __launch_bounds__(kThreads)
    reduce_thread_kernel(int64_t n_out, int64_t n_red, ReduceGeom g, const T* in, T* out, Op op) {
  using Acc = typename Op::Acc;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < n_out; o += step) {
    const T* base = in + offset_of(o, g.nk, g.ksize, g.kstride);
    Acc acc = op.init();
    for (int64_t j = 0; j < n_red; ++j)
      acc = op.step(acc, static_cast<Acc>(load_acc(base[offset_of(j, g.nr, g.rsize, g.rstride)])));
    out[o] = store_as<T>(op.finish(acc, n_red));
  }
}

// ---- the reductions' steps (reduce.cpp's lambdas)

template <class A>
struct SumOp {
  using Acc = A;
  __device__ Acc init() const { return Acc(0); }
  __device__ Acc step(Acc a, Acc x) const {
    if constexpr (std::is_integral_v<Acc>)  // wraps like torch
      return static_cast<Acc>(static_cast<std::make_unsigned_t<Acc>>(a) + static_cast<std::make_unsigned_t<Acc>>(x));
    else
      return a + x;
  }
  __device__ Acc combine(Acc a, Acc b) const { return step(a, b); }
  __device__ Acc finish(Acc a, int64_t) const { return a; }
};
template <class A>
struct MeanOp : SumOp<A> {
  __device__ A finish(A a, int64_t n) const { return a / static_cast<A>(n); }
};
template <class A>
struct NansumOp : SumOp<A> {
  __device__ A step(A a, A x) const { return x != x ? a : a + x; }
};
template <class A>
struct ProdOp {
  using Acc = A;
  __device__ Acc init() const { return Acc(1); }
  __device__ Acc step(Acc a, Acc x) const {
    if constexpr (std::is_integral_v<Acc>) {
      using U = std::conditional_t<(sizeof(Acc) < sizeof(unsigned)), unsigned, std::make_unsigned_t<Acc>>;
      return static_cast<Acc>(static_cast<U>(static_cast<U>(a) * static_cast<U>(x)));
    } else {
      return a * x;
    }
  }
  __device__ Acc combine(Acc a, Acc b) const { return step(a, b); }
  __device__ Acc finish(Acc a, int64_t) const { return a; }
};
template <class A, bool Max>
struct ExtremumOp {
  using Acc = A;
  __device__ Acc init() const {
    if constexpr (std::is_floating_point_v<A>)
      return Max ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else if constexpr (std::is_same_v<A, bool>)
      return !Max;
    else
      return Max ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
  }
  __device__ Acc step(Acc a, Acc x) const {
    if constexpr (std::is_floating_point_v<A>)
      return ((Max ? x > a : x < a) || x != x) ? x : a;  // a NaN sticks
    else
      return (Max ? x > a : x < a) ? x : a;
  }
  __device__ Acc combine(Acc a, Acc b) const { return step(a, b); }
  __device__ Acc finish(Acc a, int64_t) const { return a; }
};

// The CPU's accumulation types: sum's (int64 for bool, double for float32 and the 16-bit floats), facc_t
// (double for float32/float64, float for the 16-bit floats).
template <class T>
using sum_acc_t = std::conditional_t<std::is_same_v<T, bool>, int64_t,
                                     std::conditional_t<std::is_same_v<acc_t<T>, float>, double, acc_t<T>>>;
template <class T>
using facc_t = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double, acc_t<T>>;

glia_error* plan_reduce(const glia_kernel_call* call, const char* what, ReduceGeom* g, int64_t* n_out, int64_t* n_red) {
  const glia_kernel_tensor& in = call->inputs[0];
  const glia_kernel_attr& dims = call->attrs[0];
  bool reduced[64] = {};
  if (in.ndim > 64) return make_error(GLIA_ERR_UNSUPPORTED, std::string("cuda: ") + what + ": more than 64 dims");
  for (int64_t i = 0; i < dims.n_ints; ++i) {
    const int64_t d = dims.ints[i];
    if (d < 0 || d >= in.ndim)
      return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": reduced dim out of range");
    reduced[d] = true;
  }
  *n_out = 1;
  *n_red = 1;
  for (int32_t d = 0; d < in.ndim; ++d) {
    const int64_t sz = in.sizes[d];
    (reduced[d] ? *n_red : *n_out) *= sz;
    if (sz == 1) continue;
    int& n = reduced[d] ? g->nr : g->nk;
    if (n == kMaxDims)
      return make_error(GLIA_ERR_UNSUPPORTED,
                        std::string("cuda: ") + what + ": more than " + std::to_string(kMaxDims) + " dims");
    (reduced[d] ? g->rsize : g->ksize)[n] = sz;
    (reduced[d] ? g->rstride : g->kstride)[n] = in.strides[d];
    ++n;
  }
  if (view_numel(call->outputs[0]) != *n_out)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what +
                                             ": the output does not hold one element "
                                             "per kept index");
  return nullptr;
}

template <class T, class Op>
glia_error* run_reduce(const glia_kernel_call* call, const char* what, Op op) {
  const glia_kernel_tensor &in = call->inputs[0], &out = call->outputs[0];
  if (in.dtype != dtype_of<T>() || out.dtype != dtype_of<T>())
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": input and output dtypes differ");
  ReduceGeom g;
  int64_t n_out = 0, n_red = 0;
  if (glia_error* e = plan_reduce(call, what, &g, &n_out, &n_red)) return e;
  if (n_out == 0) return nullptr;
  const int32_t dev = out.device_index;
  cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  const cudaStream_t s = call_stream(call, dev)->stream;
  const T* ip = static_cast<const T*>(in.data);
  T* op_ = static_cast<T*>(out.data);
  if (n_red >= kBlockMin) {
    const unsigned blocks = static_cast<unsigned>(n_out < 65536 ? n_out : 65536);
    reduce_block_kernel<T, Op><<<blocks, kThreads, 0, s>>>(n_out, n_red, g, ip, op_, op);
  } else {
    reduce_thread_kernel<T, Op><<<grid_for(n_out), kThreads, 0, s>>>(n_out, n_red, g, ip, op_, op);
  }
  st = cudaGetLastError();
  if (st != cudaSuccess) return cuda_error(st, "kernel launch", what);
  return nullptr;
}

glia_error* k_sum(const glia_kernel_call* call) {
  return dispatch<Set::kAll>(call->outputs[0].dtype, "sum", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    return run_reduce<T>(call, "sum", SumOp<sum_acc_t<T>>{});
  });
}
glia_error* k_mean(const glia_kernel_call* call) {
  return dispatch<Set::kFloat>(call->inputs[0].dtype, "mean", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    return run_reduce<T>(call, "mean", MeanOp<facc_t<T>>{});
  });
}
glia_error* k_nansum(const glia_kernel_call* call) {
  return dispatch<Set::kFloat>(call->inputs[0].dtype, "nansum", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    return run_reduce<T>(call, "nansum", NansumOp<facc_t<T>>{});
  });
}
glia_error* k_prod(const glia_kernel_call* call) {
  return dispatch<Set::kNoBool>(call->outputs[0].dtype, "prod", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_integral_v<T>, T, facc_t<T>>;
    return run_reduce<T>(call, "prod", ProdOp<Acc>{});
  });
}
template <bool Max>
glia_error* k_extremum(const glia_kernel_call* call) {
  const char* what = Max ? "amax" : "amin";
  return dispatch<Set::kAll>(call->inputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    return run_reduce<T>(call, what, ExtremumOp<acc_t<T>, Max>{});
  });
}

}  // namespace

glia_kernel_fn reduce_kernel(Kid id) {
  switch (id) {
    case Kid::sum:
      return &k_sum;
    case Kid::mean:
      return &k_mean;
    case Kid::prod:
      return &k_prod;
    case Kid::amax:
      return &k_extremum<true>;
    case Kid::amin:
      return &k_extremum<false>;
    case Kid::nansum:
      return &k_nansum;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
