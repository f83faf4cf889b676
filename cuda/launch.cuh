// The strided elementwise launcher of the CUDA backend (nvcc only).
//
// Note [CUDA elementwise launcher]: every elementwise kernel is out = f(in...) over N operands of one shape
// (broadcast inputs arrive expanded, with zero strides: the core's meta parts did that, as for the CPU). The
// host side coalesces the dims as the CPU's Loop<N> does (size-1 dims dropped, adjacent dims merged where every
// operand's strides allow, innermost first) and picks one of four kernels:
//   - flat: one dim left (contiguous operands, broadcast scalars among them, or any 1-D stride): offset =
//     i * stride, no division;
//   - strided: the offsets from the linear index by division over the coalesced dims;
// each with a 32-bit index (numel and every operand's byte extent below 2^31: 32-bit divisions are several
// times cheaper) or a 64-bit one (big tensors). Grid-stride loops, 256 threads a block. Element types are the
// storage types of dtypes.h; f works on accumulation types (load_acc) and its result is stored with store_as,
// as the CPU loops' static_cast<Out>.
#ifndef GLIA_CUDA_LAUNCH_CUH
#define GLIA_CUDA_LAUNCH_CUH

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "common.h"
#include "dtypes.h"

namespace glia::cuda {

constexpr int kMaxDims = 25;  // torch's MAX_DIMS for its TensorIterator offsets
constexpr int kThreads = 256;

// Bytes per element of a glia dtype (0 for an unknown one).
inline int64_t dtype_size(glia_dtype t) {
  switch (t) {
    case GLIA_FLOAT64:
    case GLIA_INT64:
      return 8;
    case GLIA_FLOAT32:
    case GLIA_INT32:
      return 4;
    case GLIA_FLOAT16:
    case GLIA_BFLOAT16:
    case GLIA_INT16:
      return 2;
    case GLIA_UINT8:
    case GLIA_BOOL:
    case GLIA_INT8:
      return 1;
  }
  return 0;
}

inline int64_t view_numel(const glia_kernel_tensor& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.sizes[d];
  return n;
}

// The glia dtype of a storage type.
template <class T>
constexpr glia_dtype dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return GLIA_FLOAT32;
  else if constexpr (std::is_same_v<T, double>)
    return GLIA_FLOAT64;
  else if constexpr (std::is_same_v<T, f16>)
    return GLIA_FLOAT16;
  else if constexpr (std::is_same_v<T, bf16>)
    return GLIA_BFLOAT16;
  else if constexpr (std::is_same_v<T, int64_t>)
    return GLIA_INT64;
  else if constexpr (std::is_same_v<T, int32_t>)
    return GLIA_INT32;
  else if constexpr (std::is_same_v<T, int16_t>)
    return GLIA_INT16;
  else if constexpr (std::is_same_v<T, int8_t>)
    return GLIA_INT8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return GLIA_UINT8;
  else
    return GLIA_BOOL;
}

template <int N>
struct Ptrs {
  char* p[N];
};

// Coalesced dims, innermost first; byte strides per operand.
template <class Off, int N>
struct Geometry {
  int nd;
  Off size[kMaxDims];
  Off stride[kMaxDims][N];
};

// Calls op(ptrs, offsets) for every element: offsets in bytes, one per operand.
template <class Index, class Off, int N, class Op>
__global__ void __launch_bounds__(kThreads) flat_kernel(Index n, Ptrs<N> p, Geometry<Off, N> g, Op op) {
  const Index step = static_cast<Index>(gridDim.x) * kThreads;
  for (Index i = static_cast<Index>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    Off off[N];
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = static_cast<Off>(i) * g.stride[0][k];
    op(p, off);
  }
}

template <class Index, class Off, int N, class Op>
__global__ void __launch_bounds__(kThreads) strided_kernel(Index n, Ptrs<N> p, Geometry<Off, N> g, Op op) {
  const Index step = static_cast<Index>(gridDim.x) * kThreads;
  for (Index i = static_cast<Index>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    Off off[N];
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
    Index rem = i;
    for (int d = 0; d < g.nd; ++d) {
      const Index sz = static_cast<Index>(g.size[d]);
      const Index q = rem / sz;
      const Off c = static_cast<Off>(rem - q * sz);
      rem = q;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += c * g.stride[d][k];
    }
    op(p, off);
  }
}

// The host's view of a launch: coalesced sizes and byte strides (64-bit), numel.
template <int N>
struct Plan {
  int nd = 0;
  int64_t size[kMaxDims];
  int64_t stride[kMaxDims][N];
  int64_t numel = 0;
  bool fits32 = true;
};

// Builds the plan of N views of one shape (the first's). Returns an error for mismatched shapes or more than
// kMaxDims dims after coalescing.
template <int N>
glia_error* make_plan(const glia_kernel_tensor* const* ts, const char* what, Plan<N>* plan) {
  const glia_kernel_tensor& t0 = *ts[0];
  for (int k = 1; k < N; ++k) {
    bool same = ts[k]->ndim == t0.ndim;
    for (int32_t d = 0; same && d < t0.ndim; ++d) same = ts[k]->sizes[d] == t0.sizes[d];
    if (!same)
      return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": operand " + std::to_string(k) +
                                               " does not have the output's shape");
  }
  plan->numel = view_numel(t0);
  plan->nd = 0;
  if (plan->numel == 0) return nullptr;
  int64_t item[N];
  for (int k = 0; k < N; ++k) item[k] = dtype_size(ts[k]->dtype);
  for (int32_t d = t0.ndim - 1; d >= 0; --d) {
    const int64_t sz = t0.sizes[d];
    if (sz == 1) continue;
    int64_t st[N];
    for (int k = 0; k < N; ++k) st[k] = ts[k]->strides[d] * item[k];
    if (plan->nd > 0) {
      bool merge = true;
      for (int k = 0; k < N; ++k)
        if (st[k] != plan->stride[plan->nd - 1][k] * plan->size[plan->nd - 1]) merge = false;
      if (merge) {
        plan->size[plan->nd - 1] *= sz;
        continue;
      }
    }
    if (plan->nd == kMaxDims)
      return make_error(GLIA_ERR_UNSUPPORTED, std::string("cuda: ") + what + ": more than " + std::to_string(kMaxDims) +
                                                  " dims that cannot be merged");
    plan->size[plan->nd] = sz;
    for (int k = 0; k < N; ++k) plan->stride[plan->nd][k] = st[k];
    ++plan->nd;
  }
  if (plan->nd == 0) {  // every dim of size 1: one element
    plan->nd = 1;
    plan->size[0] = 1;
    for (int k = 0; k < N; ++k) plan->stride[0][k] = 0;
  }
  // 32-bit indexing: the element count and every operand's reach (lowest to highest byte offset) below 2^31.
  constexpr int64_t kLimit = int64_t{1} << 31;
  plan->fits32 = plan->numel < kLimit;
  for (int k = 0; k < N && plan->fits32; ++k) {
    int64_t reach = item[k];
    for (int d = 0; d < plan->nd; ++d) {
      const int64_t s = plan->stride[d][k] < 0 ? -plan->stride[d][k] : plan->stride[d][k];
      reach += (plan->size[d] - 1) * s;
    }
    plan->fits32 = reach < kLimit;
  }
  return nullptr;
}

inline unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65536 ? blocks : 65536);  // the grid-stride loop covers the rest
}

template <class Index, class Off, int N, class Op>
void launch_with(const Plan<N>& plan, const Ptrs<N>& p, const Op& op, cudaStream_t stream) {
  Geometry<Off, N> g;
  g.nd = plan.nd;
  for (int d = 0; d < plan.nd; ++d) {
    g.size[d] = static_cast<Off>(plan.size[d]);
    for (int k = 0; k < N; ++k) g.stride[d][k] = static_cast<Off>(plan.stride[d][k]);
  }
  const Index n = static_cast<Index>(plan.numel);
  if (plan.nd == 1)
    flat_kernel<Index, Off, N, Op><<<grid_for(plan.numel), kThreads, 0, stream>>>(n, p, g, op);
  else
    strided_kernel<Index, Off, N, Op><<<grid_for(plan.numel), kThreads, 0, stream>>>(n, p, g, op);
}

// Runs op over N views (ts[0] the output) on `stream`; a launch failure becomes an error naming `what`.
template <int N, class Op>
glia_error* launch(const glia_kernel_tensor* const* ts, const char* what, const Op& op, cudaStream_t stream) {
  Plan<N> plan;
  if (glia_error* e = make_plan<N>(ts, what, &plan)) return e;
  if (plan.numel == 0) return nullptr;
  Ptrs<N> p;
  for (int k = 0; k < N; ++k) p.p[k] = static_cast<char*>(ts[k]->data);
  if (plan.fits32)
    launch_with<uint32_t, int32_t, N>(plan, p, op, stream);
  else
    launch_with<uint64_t, int64_t, N>(plan, p, op, stream);
  const cudaError_t st = cudaGetLastError();
  if (st != cudaSuccess) return cuda_error(st, "kernel launch", what);
  return nullptr;
}

// out = f(in...) with stored types Out, In...: the Op of the launcher.
template <class Out, class F, class... In>
struct Apply {
  F f;
  template <class Off>
  __device__ __forceinline__ void operator()(const Ptrs<1 + sizeof...(In)>& p, const Off* off) const {
    run(p, off, std::index_sequence_for<In...>{});
  }
  template <class Off, size_t... I>
  __device__ __forceinline__ void run(const Ptrs<1 + sizeof...(In)>& p, const Off* off,
                                      std::index_sequence<I...>) const {
    *reinterpret_cast<Out*>(p.p[0] + off[0]) =
        store_as<Out>(f(load_acc(*reinterpret_cast<const In*>(p.p[1 + I] + off[1 + I]))...));
  }
};

// out = convert<Out, In>(in): the copy kernel.
template <class Out, class In>
struct Convert {
  template <class Off>
  __device__ __forceinline__ void operator()(const Ptrs<2>& p, const Off* off) const {
    *reinterpret_cast<Out*>(p.p[0] + off[0]) = convert<Out, In>(*reinterpret_cast<const In*>(p.p[1] + off[1]));
  }
};

// out = value: the fill kernel.
template <class T>
struct Fill {
  T value;
  template <class Off>
  __device__ __forceinline__ void operator()(const Ptrs<1>& p, const Off* off) const {
    *reinterpret_cast<T*>(p.p[0] + off[0]) = value;
  }
};

// The call's output 0 and inputs as one array of views (output first), N = 1 + n_inputs.
template <int N>
struct Views {
  const glia_kernel_tensor* v[N];
};
template <int N>
Views<N> out_then_inputs(const glia_kernel_call* call) {
  Views<N> w;
  w.v[0] = &call->outputs[0];
  for (int k = 1; k < N; ++k) w.v[k] = &call->inputs[k - 1];
  return w;
}

// Dtype dispatch: f(T{}) for the storage type T of `t`; f returns glia_error*. kAll: every dtype; kFloat:
// float32, float64, float16, bfloat16; kNoBool: every dtype but bool. A dtype outside the set is an
// unsupported-dtype error naming the kernel.
enum class Set { kAll, kFloat, kNoBool, kBool };

glia_error* dtype_error(const char* what, glia_dtype t);

template <Set S, class F>
glia_error* dispatch(glia_dtype t, const char* what, F&& f) {
  if constexpr (S == Set::kBool) {
    if (t == GLIA_BOOL) return f(bool{});
    return dtype_error(what, t);
  } else {
    switch (t) {
      case GLIA_FLOAT32:
        return f(float{});
      case GLIA_FLOAT64:
        return f(double{});
      case GLIA_FLOAT16:
        return f(f16{});
      case GLIA_BFLOAT16:
        return f(bf16{});
      default:
        break;
    }
    if constexpr (S != Set::kFloat) {
      switch (t) {
        case GLIA_INT64:
          return f(int64_t{});
        case GLIA_INT32:
          return f(int32_t{});
        case GLIA_INT16:
          return f(int16_t{});
        case GLIA_INT8:
          return f(int8_t{});
        case GLIA_UINT8:
          return f(uint8_t{});
        case GLIA_BOOL:
          if constexpr (S == Set::kAll) return f(bool{});
          break;
        default:
          break;
      }
    }
    return dtype_error(what, t);
  }
}

}  // namespace glia::cuda

#endif  // GLIA_CUDA_LAUNCH_CUH
