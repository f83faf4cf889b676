// Upsampling and fold/unfold on the GPU: kernels.def's upsample, upsample_backward (src/ops/cpu/resample.cpp),
// im2col_nd and col2im_nd (src/ops/cpu/convnd.cpp), float32 and float64 (im2col any dtype, col2im also int32
// and int64), contiguous operands.
//   - upsample: one thread per output (core/resample_math.h's upsample_output: each dim's taps from
//     upsample_taps, the function the CPU kernel builds its tap tables with, combined in the CPU's nesting).
//   - upsample_backward: a gather, no atomics, for every scale (integer or not): one thread per input element
//     (resample_math.h's upsample_input_grad) runs over the outputs whose taps hold it (upsample_outputs_of,
//     two binary searches per dim) in increasing output order and, per output, over its taps in the CPU's
//     order, adding each weighted gradient as the CPU's scatter does: the CPU's order, so its bits
//     (tests/cuda/resample_math_test.cpp checks both functions against the CPU kernel's loops bit for bit).
//   - im2col_nd: one thread per column element, a copy (dispatched on the element size).
//   - col2im_nd: a gather, no atomics: one thread per image element adds the column entries of the taps whose
//     window position lands on it, in tap order (the CPU's scatter order: each tap reaches a position once).
//     The index math of both is cuda/fold_index.h's, checked against the CPU kernels' loops in
//     tests/cuda/fold_index_test.cpp.
#include <string>

#include "common.h"
#include "core/resample_math.h"
#include "fold_index.h"
#include "kernel_call.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

glia_error* internal(const char* what, const char* msg) {
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": " + msg);
}

// Index i of [P, n0, n1, n2] as its plane and coordinates.
__device__ __forceinline__ int64_t split3(int64_t i, const int64_t n[3], int64_t c[3]) {
  c[2] = i % n[2];
  c[1] = (i / n[2]) % n[1];
  c[0] = (i / (n[2] * n[1])) % n[0];
  return i / (n[2] * n[1] * n[0]);
}

// ---- upsample: resample_math.h's per-element functions (UpsampleGeom: spatial dims padded to 3).
using UpGeom = math::UpsampleGeom;

template <class T>
__global__ void __launch_bounds__(kThreads)
    upsample_kernel(int64_t total, UpGeom g, const T* __restrict x, T* __restrict y) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t plane_in = g.in[0] * g.in[1] * g.in[2];
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; o < total; o += step) {
    int64_t c[3];
    const int64_t p = split3(o, g.out, c);
    y[o] = math::upsample_output<T>(g, x + p * plane_in, c);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    upsample_backward_kernel(int64_t total, UpGeom g, const T* __restrict gy, T* __restrict gx) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t plane_out = g.out[0] * g.out[1] * g.out[2];
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += step) {
    int64_t c[3];
    const int64_t p = split3(i, g.in, c);
    gx[i] = math::upsample_input_grad<T>(g, gy + p * plane_out, c);
  }
}

// x [N, C, *in] (the small tensor), y [N, C, *out]; the attributes kind, align_corners, scales x3.
glia_error* up_geom(const glia_kernel_call* call, const glia_kernel_tensor& small, const glia_kernel_tensor& big,
                    const char* what, UpGeom* g) {
  if (small.ndim != big.ndim || small.ndim < 3 || small.ndim > 5) return internal(what, "operands of the wrong rank");
  if (call->n_attrs < 5) return internal(what, "missing attributes");
  g->k = small.ndim - 2;
  g->kind = static_cast<int>(call->attrs[0].i);
  g->align_corners = call->attrs[1].i != 0;
  if (g->kind < 0 || g->kind > 3) return internal(what, "unknown kind");
  for (int j = 0; j < 3; ++j) g->in[j] = g->out[j] = 1, g->scale[j] = 0.0;
  for (int j = 0; j < g->k; ++j) {
    g->in[3 - g->k + j] = small.sizes[2 + j];
    g->out[3 - g->k + j] = big.sizes[2 + j];
    g->scale[3 - g->k + j] = call->attrs[2 + j].f;
  }
  return nullptr;
}

// The CPU's message for another dtype (resample.cpp's check_dtype names torch's weights function).
glia_error* up_dtype_error(int kind, glia_dtype t) {
  const char* fn = kind == 2   ? "compute_indices_weights_linear"
                   : kind == 3 ? "compute_indices_weights_cubic"
                               : "compute_indices_weights_nearest";
  return make_error(GLIA_ERR_DTYPE, std::string("\"") + fn + "\" not implemented for '" + dtype_name(t) + "'");
}

glia_error* upsample(const glia_kernel_call* call, bool backward) {
  const char* what = backward ? "upsample_backward" : "upsample";
  const glia_kernel_tensor &a = call->inputs[0], &b = call->outputs[0];
  UpGeom g;
  if (glia_error* e = up_geom(call, backward ? b : a, backward ? a : b, what, &g)) return e;
  if (a.dtype != b.dtype) return internal(what, "operands of different dtypes");
  if (a.dtype != GLIA_FLOAT32 && a.dtype != GLIA_FLOAT64) return up_dtype_error(g.kind, a.dtype);
  const int64_t total = view_numel(b);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, b.device_index, &s)) return e;
  const size_t item = a.dtype == GLIA_FLOAT32 ? 4 : 8;
  // torch's bicubic backward copies when the sizes are the input's (the CPU kernel's shortcut).
  if (backward && g.kind == 3 && g.in[1] == g.out[1] && g.in[2] == g.out[2]) {
    const cudaError_t st =
        cudaMemcpyAsync(b.data, a.data, static_cast<size_t>(total) * item, cudaMemcpyDeviceToDevice, s);
    return st == cudaSuccess ? nullptr : cuda_error(st, "cudaMemcpyAsync", what);
  }
  if (a.dtype == GLIA_FLOAT32) {
    if (backward)
      upsample_backward_kernel<float><<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const float*>(a.data),
                                                                           static_cast<float*>(b.data));
    else
      upsample_kernel<float><<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const float*>(a.data),
                                                                  static_cast<float*>(b.data));
  } else {
    if (backward)
      upsample_backward_kernel<double><<<grid_for(total), kThreads, 0, s>>>(
          total, g, static_cast<const double*>(a.data), static_cast<double*>(b.data));
    else
      upsample_kernel<double><<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const double*>(a.data),
                                                                   static_cast<double*>(b.data));
  }
  return launched(what);
}

glia_error* k_upsample(const glia_kernel_call* call) { return upsample(call, false); }
glia_error* k_upsample_backward(const glia_kernel_call* call) { return upsample(call, true); }

// ---- im2col_nd / col2im_nd: a 2-D geometry is a 3-D one with a unit leading dim (convnd.cpp's col_geom).
using ColGeom = FoldGeom;  // fold_index.h

glia_error* col_geom(const glia_kernel_call* call, const glia_kernel_tensor& x, const char* what, ColGeom* g) {
  const int nd = x.ndim - 2;
  if (nd < 1 || nd > 3) return internal(what, "an image of the wrong rank");
  if (call->n_attrs < 5) return internal(what, "missing attributes");
  for (int a = 0; a < 5; ++a)
    if (call->attrs[a].n_ints != nd || !call->attrs[a].ints) return internal(what, "an attribute of the wrong length");
  g->P = x.sizes[0] * x.sizes[1];
  for (int a = 0; a < 3; ++a) g->in[a] = g->k[a] = g->d[a] = g->s[a] = g->out[a] = 1, g->p[a] = 0;
  const int off = 3 - nd;
  for (int i = 0; i < nd; ++i) {
    g->in[off + i] = x.sizes[2 + i];
    g->k[off + i] = call->attrs[0].ints[i], g->d[off + i] = call->attrs[1].ints[i];
    g->p[off + i] = call->attrs[2].ints[i], g->s[off + i] = call->attrs[3].ints[i];
    g->out[off + i] = call->attrs[4].ints[i];
  }
  return nullptr;
}

template <class E>
__global__ void __launch_bounds__(kThreads)
    im2col_kernel(int64_t total, ColGeom g, const E* __restrict x, E* __restrict cols) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t vol = g.in[0] * g.in[1] * g.in[2];
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; e < total; e += step) {
    int64_t plane = 0;
    const int64_t at = im2col_source(g, e, &plane);
    cols[e] = at >= 0 ? x[plane * vol + at] : E{};
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    col2im_kernel(int64_t total, ColGeom g, const T* __restrict cols, T* __restrict x) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t L = g.out[0] * g.out[1] * g.out[2], taps = g.k[0] * g.k[1] * g.k[2];
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < total; i += step) {
    int64_t c[3];
    const int64_t plane = split3(i, g.in, c);
    x[i] = col2im_element<T>(g, cols + plane * taps * L, c);
  }
}

glia_error* k_im2col_nd(const glia_kernel_call* call) {
  const char* what = "im2col_nd";
  const glia_kernel_tensor &x = call->inputs[0], &cols = call->outputs[0];
  ColGeom g;
  if (glia_error* e = col_geom(call, x, what, &g)) return e;
  if (x.dtype != cols.dtype) return internal(what, "operands of different dtypes");
  const int64_t total = view_numel(cols);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, cols.device_index, &s)) return e;
  switch (x.dtype) {
    case GLIA_BOOL:
    case GLIA_UINT8:
    case GLIA_INT8:
      im2col_kernel<uint8_t><<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const uint8_t*>(x.data),
                                                                  static_cast<uint8_t*>(cols.data));
      break;
    case GLIA_INT16:
    case GLIA_FLOAT16:
    case GLIA_BFLOAT16:
      im2col_kernel<uint16_t><<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const uint16_t*>(x.data),
                                                                   static_cast<uint16_t*>(cols.data));
      break;
    case GLIA_INT32:
    case GLIA_FLOAT32:
      im2col_kernel<uint32_t><<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const uint32_t*>(x.data),
                                                                   static_cast<uint32_t*>(cols.data));
      break;
    case GLIA_INT64:
    case GLIA_FLOAT64:
      im2col_kernel<uint64_t><<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const uint64_t*>(x.data),
                                                                   static_cast<uint64_t*>(cols.data));
      break;
    default:
      return dtype_error("im2col", x.dtype);
  }
  return launched(what);
}

glia_error* k_col2im_nd(const glia_kernel_call* call) {
  const char* what = "col2im_nd";
  const glia_kernel_tensor &cols = call->inputs[0], &x = call->outputs[0];
  ColGeom g;
  if (glia_error* e = col_geom(call, x, what, &g)) return e;
  if (x.dtype != cols.dtype) return internal(what, "operands of different dtypes");
  const int64_t total = view_numel(x);
  if (total == 0) return nullptr;
  cudaStream_t s;
  if (glia_error* e = device_stream(call, x.device_index, &s)) return e;
  auto run = [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    col2im_kernel<T>
        <<<grid_for(total), kThreads, 0, s>>>(total, g, static_cast<const T*>(cols.data), static_cast<T*>(x.data));
    return launched(what);
  };
  switch (x.dtype) {
    case GLIA_FLOAT32:
      return run(float{});
    case GLIA_FLOAT64:
      return run(double{});
    case GLIA_INT64:
      return run(int64_t{});
    case GLIA_INT32:
      return run(int32_t{});
    default:
      return dtype_error("col2im", x.dtype);
  }
}

}  // namespace

glia_kernel_fn resample_kernel(Kid id) {
  switch (id) {
    case Kid::upsample:
      return &k_upsample;
    case Kid::upsample_backward:
      return &k_upsample_backward;
    case Kid::im2col_nd:
      return &k_im2col_nd;
    case Kid::col2im_nd:
      return &k_col2im_nd;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
