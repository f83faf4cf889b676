// The strided-reduction machinery of the CUDA backend (nvcc only), shared by reduce.cu and reduce_extra.cu: the
// kernels.def reductions with "dims: .ints, keepdim: .i" (in0 any strides, out0 contiguous with one element per
// kept index, in in0's order of kept dims) run through run_reduce_to with an Op of init / step / combine /
// finish, in the fixed order of Note [Deterministic CUDA reductions] (reduce.cu).
#ifndef GLIA_CUDA_REDUCE_CUH
#define GLIA_CUDA_REDUCE_CUH

#include <cstdint>
#include <string>
#include <type_traits>

#include "common.h"
#include "launch.cuh"

namespace glia::cuda {

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

template <class In, class Out, class Op>
__global__ void __launch_bounds__(kThreads)
    reduce_block_kernel(int64_t n_out, int64_t n_red, ReduceGeom g, const In* in, Out* out, Op op) {
  using Acc = typename Op::Acc;
  __shared__ Acc part[kThreads];
  const int tid = static_cast<int>(threadIdx.x);
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    const In* base = in + offset_of(o, g.nk, g.ksize, g.kstride);
    Acc acc = op.init();
    for (int64_t j = tid; j < n_red; j += kThreads)
      acc = op.step(acc, static_cast<Acc>(load_acc(base[offset_of(j, g.nr, g.rsize, g.rstride)])));
    part[tid] = acc;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s /= 2) {
      if (tid < s) part[tid] = op.combine(part[tid], part[tid + s]);
      __syncthreads();
    }
    if (tid == 0) out[o] = store_as<Out>(op.finish(part[0], n_red));
    __syncthreads();
  }
}

template <class In, class Out, class Op>
__global__ void __launch_bounds__(kThreads)
    reduce_thread_kernel(int64_t n_out, int64_t n_red, ReduceGeom g, const In* in, Out* out, Op op) {
  using Acc = typename Op::Acc;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < n_out; o += step) {
    const In* base = in + offset_of(o, g.nk, g.ksize, g.kstride);
    Acc acc = op.init();
    for (int64_t j = 0; j < n_red; ++j)
      acc = op.step(acc, static_cast<Acc>(load_acc(base[offset_of(j, g.nr, g.rsize, g.rstride)])));
    out[o] = store_as<Out>(op.finish(acc, n_red));
  }
}

// The CPU's accumulation types: sum's (int64 for bool, double for float32 and the 16-bit floats), facc_t
// (double for float32/float64, float for the 16-bit floats).
template <class T>
using sum_acc_t = std::conditional_t<std::is_same_v<T, bool>, int64_t,
                                     std::conditional_t<std::is_same_v<acc_t<T>, float>, double, acc_t<T>>>;
template <class T>
using facc_t = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double, acc_t<T>>;

inline glia_error* plan_reduce(const glia_kernel_call* call, const char* what, ReduceGeom* g, int64_t* n_out,
                               int64_t* n_red) {
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

template <class In, class Out, class Op>
glia_error* run_reduce_to(const glia_kernel_call* call, const char* what, Op op) {
  const glia_kernel_tensor &in = call->inputs[0], &out = call->outputs[0];
  if (in.dtype != dtype_of<In>() || out.dtype != dtype_of<Out>())
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": unexpected input or output dtype");
  ReduceGeom g;
  int64_t n_out = 0, n_red = 0;
  if (glia_error* e = plan_reduce(call, what, &g, &n_out, &n_red)) return e;
  if (n_out == 0) return nullptr;
  const int32_t dev = out.device_index;
  cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  const cudaStream_t s = call_stream(call, dev)->stream;
  const In* ip = static_cast<const In*>(in.data);
  Out* op_ = static_cast<Out*>(out.data);
  if (n_red >= kBlockMin) {
    const unsigned blocks = static_cast<unsigned>(n_out < 65536 ? n_out : 65536);
    reduce_block_kernel<In, Out, Op><<<blocks, kThreads, 0, s>>>(n_out, n_red, g, ip, op_, op);
  } else {
    reduce_thread_kernel<In, Out, Op><<<grid_for(n_out), kThreads, 0, s>>>(n_out, n_red, g, ip, op_, op);
  }
  st = cudaGetLastError();
  if (st != cudaSuccess) return cuda_error(st, "kernel launch", what);
  return nullptr;
}

// The reductions whose output has the input's dtype.
template <class T, class Op>
glia_error* run_reduce(const glia_kernel_call* call, const char* what, Op op) {
  return run_reduce_to<T, T>(call, what, op);
}

}  // namespace glia::cuda

#endif  // GLIA_CUDA_REDUCE_CUH
