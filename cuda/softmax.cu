// softmax / log_softmax over one dim and their backwards on the GPU (kernels.def's softmax and
// softmax_backward: floating, not float16, all contiguous, same shape, numel > 0; dim wrapped, 0 for a 0-dim
// tensor). The tensor is seen as [outer, n, inner] (src/ops/cpu/softmax.cpp's Slices); one block per slice of
// n elements (stride `inner`), with the CPU kernel's formulas in its accumulation type (float for float32 and
// bfloat16, double for float64): softmax = exp(x - max) * (1 / sum), log_softmax = x - (log(sum) + max), a
// NaN max when the slice holds a NaN; backward gi = y * (g - sum(g * y)) and gi = g - exp(y) * sum(g). The
// block reductions run in a fixed order (Note [Deterministic CUDA reductions] in reduce.cu).
#include <cmath>
#include <limits>
#include <string>

#include "common.h"
#include "kernel_call.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

// The block's reduction of v (every thread's partial value) with `combine`, in a fixed tree; every thread gets
// the result. `part` holds kThreads values.
template <class A, class Combine>
__device__ A block_reduce(A v, A* part, Combine combine) {
  const int tid = static_cast<int>(threadIdx.x);
  part[tid] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (tid < s) part[tid] = combine(part[tid], part[tid + s]);
    __syncthreads();
  }
  const A r = part[0];
  __syncthreads();  // part is reused by the next reduction
  return r;
}

struct MaxNan {
  template <class A>
  __device__ A operator()(A m, A v) const {
    return (v > m || v != v) ? v : m;  // a NaN sticks
  }
};
struct Plus {
  template <class A>
  __device__ A operator()(A a, A b) const {
    return a + b;
  }
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_kernel(const T* x, T* out, int64_t outer, int64_t n, int64_t inner, bool log) {
  using A = acc_t<T>;
  __shared__ A part[kThreads];
  const int64_t slices = outer * inner;
  for (int64_t sl = blockIdx.x; sl < slices; sl += gridDim.x) {
    const int64_t base = (sl / inner) * n * inner + sl % inner;
    A m = -std::numeric_limits<A>::infinity();
    for (int64_t k = threadIdx.x; k < n; k += kThreads) m = MaxNan{}(m, static_cast<A>(load_acc(x[base + k * inner])));
    m = block_reduce(m, part, MaxNan{});
    A sum = 0;
    for (int64_t k = threadIdx.x; k < n; k += kThreads)
      sum += std::exp(static_cast<A>(load_acc(x[base + k * inner])) - m);
    sum = block_reduce(sum, part, Plus{});
    if (log) {
      const A lse = std::log(sum) + m;
      for (int64_t k = threadIdx.x; k < n; k += kThreads)
        out[base + k * inner] = store_as<T>(static_cast<A>(load_acc(x[base + k * inner])) - lse);
    } else {
      const A inv = A(1) / sum;
      for (int64_t k = threadIdx.x; k < n; k += kThreads)
        out[base + k * inner] = store_as<T>(std::exp(static_cast<A>(load_acc(x[base + k * inner])) - m) * inv);
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_backward_kernel(const T* g, const T* y, T* out, int64_t outer, int64_t n, int64_t inner, bool log) {
  using A = acc_t<T>;
  __shared__ A part[kThreads];
  const int64_t slices = outer * inner;
  for (int64_t sl = blockIdx.x; sl < slices; sl += gridDim.x) {
    const int64_t base = (sl / inner) * n * inner + sl % inner;
    A acc = 0;
    for (int64_t k = threadIdx.x; k < n; k += kThreads) {
      const A gv = static_cast<A>(load_acc(g[base + k * inner]));
      acc += log ? gv : gv * static_cast<A>(load_acc(y[base + k * inner]));
    }
    acc = block_reduce(acc, part, Plus{});
    for (int64_t k = threadIdx.x; k < n; k += kThreads) {
      const int64_t i = base + k * inner;
      const A gv = static_cast<A>(load_acc(g[i])), yv = static_cast<A>(load_acc(y[i]));
      out[i] = store_as<T>(log ? gv - std::exp(yv) * acc : yv * (gv - acc));
    }
  }
}

struct Slices {
  int64_t outer = 1, n = 1, inner = 1;
};

glia_error* slices_of(const glia_kernel_call* call, const char* what, Slices* s) {
  const glia_kernel_tensor& t = call->outputs[0];
  const int64_t d = call->attrs[0].i;
  if (t.ndim > 0 && (d < 0 || d >= t.ndim))
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": dim out of range");
  for (int32_t k = 0; k < t.ndim; ++k) (k < d ? s->outer : k == d ? s->n : s->inner) *= t.sizes[k];
  for (int32_t i = 0; i < call->n_inputs; ++i)
    if (call->inputs[i].dtype != t.dtype)
      return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": operands of different dtypes");
  return nullptr;
}

glia_error* k_softmax(const glia_kernel_call* call) {
  const char* what = "softmax";
  Slices s;
  if (glia_error* e = slices_of(call, what, &s)) return e;
  const bool log = call->attrs[1].i != 0;
  const int32_t dev = call->outputs[0].device_index;
  cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  const cudaStream_t stream = call_stream(call, dev)->stream;
  if (s.outer * s.n * s.inner == 0) return nullptr;
  glia_error* e = dispatch<Set::kFloat>(call->inputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, f16>) {
      return dtype_error(what, GLIA_FLOAT16);  // the meta part refuses it (torch's CPU has no float16 softmax)
    } else {
      softmax_kernel<T><<<blocks_for(s.outer * s.inner), kThreads, 0, stream>>>(
          static_cast<const T*>(call->inputs[0].data), static_cast<T*>(call->outputs[0].data), s.outer, s.n, s.inner,
          log);
      return nullptr;
    }
  });
  if (e) return e;
  st = cudaGetLastError();
  return st == cudaSuccess ? nullptr : cuda_error(st, "kernel launch", what);
}

glia_error* k_softmax_backward(const glia_kernel_call* call) {
  const char* what = "softmax_backward";
  Slices s;
  if (glia_error* e = slices_of(call, what, &s)) return e;
  const bool log = call->attrs[1].i != 0;
  const int32_t dev = call->outputs[0].device_index;
  cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  const cudaStream_t stream = call_stream(call, dev)->stream;
  if (s.outer * s.n * s.inner == 0) return nullptr;
  glia_error* e = dispatch<Set::kFloat>(call->outputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, f16>) {
      return dtype_error(what, GLIA_FLOAT16);
    } else {
      softmax_backward_kernel<T><<<blocks_for(s.outer * s.inner), kThreads, 0, stream>>>(
          static_cast<const T*>(call->inputs[0].data), static_cast<const T*>(call->inputs[1].data),
          static_cast<T*>(call->outputs[0].data), s.outer, s.n, s.inner, log);
      return nullptr;
    }
  });
  if (e) return e;
  st = cudaGetLastError();
  return st == cudaSuccess ? nullptr : cuda_error(st, "kernel launch", what);
}

}  // namespace

glia_kernel_fn softmax_kernel_for(Kid id) {
  switch (id) {
    case Kid::softmax:
      return &k_softmax;
    case Kid::softmax_backward:
      return &k_softmax_backward;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
