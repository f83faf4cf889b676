// Triangles, flips and torchvision's normalize on the GPU (src/ops/cpu/layout.cpp, nn.cpp's normalize_kernel).
//   - tril / triu and flip move elements without looking at them: a thread per element of the contiguous
//     output reads in0 at its offset (flipped dims read with their stride negated, from the far end), as
//     unsigned words of the element's size;
//   - normalize: a thread per element, the CPU's (x - mean[c]) / std[c] rounded to x's dtype after each step.
#include <cstdint>
#include <string>
#include <type_traits>

#include "common.h"
#include "kernel_call.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

// in0's dims (outermost first) with its element strides, flipped dims negated; `start` the element offset of
// the output's first element. tril: the last two dims are the matrix.
struct Gather {
  int nd;
  int64_t size[kMaxDims];
  int64_t stride[kMaxDims];
  int64_t start;
  int tri;  // 0: none, 1: tril, 2: triu
  int64_t diagonal;
};

template <class U>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(const U* __restrict in, U* __restrict out, int64_t total, Gather g) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += step) {
    int64_t rem = i, off = g.start, col = 0, row = 0;
    for (int d = g.nd - 1; d >= 0; --d) {
      const int64_t q = rem / g.size[d], c = rem - q * g.size[d];
      rem = q;
      off += c * g.stride[d];
      if (d == g.nd - 1) col = c;
      if (d == g.nd - 2) row = c;
    }
    // Kept: j - i <= diagonal (tril) or >= diagonal (triu); j - i cannot overflow, diagonal is any int64.
    const bool keep = g.tri == 0 || (g.tri == 1 ? col - row <= g.diagonal : col - row >= g.diagonal);
    out[i] = keep ? in[off] : U(0);
  }
}

glia_error* run_gather(const glia_kernel_call* call, const char* what, Gather* g) {
  const glia_kernel_tensor &in = call->inputs[0], &out = call->outputs[0];
  if (in.dtype != out.dtype)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": input and output of different dtypes");
  const int64_t total = view_numel(out);
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  if (total == 0) return nullptr;
  switch (dtype_size(in.dtype)) {
    case 1:
      gather_kernel<uint8_t><<<grid_for(total), kThreads, 0, s>>>(static_cast<const uint8_t*>(in.data),
                                                                  static_cast<uint8_t*>(out.data), total, *g);
      break;
    case 2:
      gather_kernel<uint16_t><<<grid_for(total), kThreads, 0, s>>>(static_cast<const uint16_t*>(in.data),
                                                                   static_cast<uint16_t*>(out.data), total, *g);
      break;
    case 4:
      gather_kernel<uint32_t><<<grid_for(total), kThreads, 0, s>>>(static_cast<const uint32_t*>(in.data),
                                                                   static_cast<uint32_t*>(out.data), total, *g);
      break;
    case 8:
      gather_kernel<uint64_t><<<grid_for(total), kThreads, 0, s>>>(static_cast<const uint64_t*>(in.data),
                                                                   static_cast<uint64_t*>(out.data), total, *g);
      break;
    default:
      return dtype_error(what, in.dtype);
  }
  return launched(what);
}

glia_error* gather_of(const glia_kernel_tensor& in, const char* what, Gather* g) {
  if (in.ndim > kMaxDims)
    return make_error(GLIA_ERR_UNSUPPORTED,
                      std::string("cuda: ") + what + ": more than " + std::to_string(kMaxDims) + " dims");
  g->nd = in.ndim;
  g->start = 0;
  g->tri = 0;
  g->diagonal = 0;
  for (int d = 0; d < in.ndim; ++d) {
    g->size[d] = in.sizes[d];
    g->stride[d] = in.strides[d];
  }
  return nullptr;
}

glia_error* k_tril(const glia_kernel_call* call) {
  const bool upper = call->attrs[1].i != 0;
  const char* what = upper ? "triu" : "tril";
  const glia_kernel_tensor& in = call->inputs[0];
  if (in.ndim < 2)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": an input of fewer than 2 dims");
  Gather g;
  if (glia_error* e = gather_of(in, what, &g)) return e;
  g.tri = upper ? 2 : 1;
  g.diagonal = call->attrs[0].i;
  return run_gather(call, what, &g);
}

glia_error* k_flip(const glia_kernel_call* call) {
  const char* what = "flip";
  const glia_kernel_tensor& in = call->inputs[0];
  Gather g;
  if (glia_error* e = gather_of(in, what, &g)) return e;
  const glia_kernel_attr& dims = call->attrs[0];
  for (int64_t i = 0; i < dims.n_ints; ++i) {
    const int64_t d = dims.ints[i];
    if (d < 0 || d >= in.ndim) return make_error(GLIA_ERR_INTERNAL, "cuda: flip: a dim out of range");
    if (g.size[d] == 0) continue;
    g.start += (g.size[d] - 1) * g.stride[d];
    g.stride[d] = -g.stride[d];
  }
  return run_gather(call, what, &g);
}

// ---- normalize

template <class T>
__global__ void __launch_bounds__(kThreads)
    normalize_kernel(const T* __restrict x, const T* __restrict mean, const T* __restrict sd, int64_t total, int64_t hw,
                     int64_t ch, int64_t lm, int64_t ls, T* __restrict y) {
  using C = acc_t<T>;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += step) {
    const int64_t p = i / hw;
    const int64_t c = ch == 0 ? 0 : p % ch;
    const C mc = load_acc(mean[lm == 1 ? 0 : c]), sc = load_acc(sd[ls == 1 ? 0 : c]);
    // The CPU's T(C(T(C(x) - mc)) / sc): rounded to T after the subtraction and after the division.
    y[i] = store_as<T>(load_acc(store_as<T>(load_acc(x[i]) - mc)) / sc);
  }
}

glia_error* k_normalize(const glia_kernel_call* call) {
  const char* what = "normalize";
  const glia_kernel_tensor &x = call->inputs[0], &m = call->inputs[1], &sd = call->inputs[2], &out = call->outputs[0];
  if (x.ndim < 3) return make_error(GLIA_ERR_INTERNAL, "cuda: normalize: an input of fewer than 3 dims");
  if (m.dtype != x.dtype || sd.dtype != x.dtype || out.dtype != x.dtype)
    return make_error(GLIA_ERR_INTERNAL, "cuda: normalize: operands of different dtypes");
  const int64_t ch = x.sizes[x.ndim - 3], hw = x.sizes[x.ndim - 1] * x.sizes[x.ndim - 2];
  const int64_t total = view_numel(x), lm = view_numel(m), ls = view_numel(sd);
  cudaStream_t s;
  if (glia_error* e = device_stream(call, out.device_index, &s)) return e;
  if (total == 0 || hw == 0) return nullptr;
  return dispatch<Set::kFloat>(x.dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    normalize_kernel<T><<<grid_for(total), kThreads, 0, s>>>(
        static_cast<const T*>(x.data), static_cast<const T*>(m.data), static_cast<const T*>(sd.data), total, hw, ch, lm,
        ls, static_cast<T*>(out.data));
    return launched(what);
  });
}

}  // namespace

glia_kernel_fn layout_extra_kernel(Kid id) {
  switch (id) {
    case Kid::tril:
      return &k_tril;
    case Kid::flip:
      return &k_flip;
    case Kid::normalize:
      return &k_normalize;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
