// The convolution kernels of the CUDA backend that are not cuDNN's (conv.cpp runs cuDNN): the bias added to a
// convolution's output (conv2d's bias, conv_transpose2d's), conv2d_backward_bias (per-channel sums), and the
// int64 convolutions, which cuDNN does not have. All deterministic: every output element is computed by one
// thread, or reduced by one block in a fixed tree (Note [Deterministic CUDA reductions] in reduce.cu), with
// no atomics.
#include <string>
#include <type_traits>

#include "conv.h"
#include "kernel_call.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

template <class T>
__global__ void __launch_bounds__(kThreads) bias_kernel(T* out, const T* bias, int64_t n, int64_t C, int64_t HW) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    const int64_t c = (i / HW) % C;
    out[i] = store_as<T>(load_acc(out[i]) + load_acc(bias[c]));
  }
}

// gb[o] = sum over n and the plane of gy [N, O, HW], accumulated in A (double for float32, as the CPU's
// float64 sums): thread t of block o adds the elements t, t + kThreads, ... of the channel's N * HW elements
// in order, then the block adds the partial sums in a fixed tree.
template <class T, class A>
__global__ void __launch_bounds__(kThreads) bias_grad_kernel(const T* gy, T* gb, int64_t N, int64_t O, int64_t HW) {
  __shared__ A part[kThreads];
  const int tid = static_cast<int>(threadIdx.x);
  for (int64_t o = blockIdx.x; o < O; o += gridDim.x) {
    A s = 0;
    for (int64_t k = tid; k < N * HW; k += kThreads) {
      const int64_t n = k / HW, j = k - n * HW;
      s += static_cast<A>(load_acc(gy[(n * O + o) * HW + j]));
    }
    part[tid] = s;
    __syncthreads();
    for (int h = kThreads / 2; h > 0; h /= 2) {
      if (tid < h) part[tid] += part[tid + h];
      __syncthreads();
    }
    if (tid == 0) gb[o] = store_as<T>(static_cast<acc_t<T>>(part[0]));
    __syncthreads();
  }
}

// Wrapping int64 products and sums (uint64 arithmetic: no signed overflow).
__device__ inline uint64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
}

// y[n, o, oh, ow] = sum over the group's channels and the taps of x * w.
__global__ void __launch_bounds__(kThreads)
    conv_int64_forward(ConvShape g, const int64_t* x, const int64_t* w, int64_t* y, int64_t n_out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t Cg = g.C / g.groups, Og = g.O / g.groups;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n_out; i += step) {
    const int64_t ow = i % g.Wo, oh = i / g.Wo % g.Ho, o = i / (g.Wo * g.Ho) % g.O, n = i / (g.Wo * g.Ho * g.O);
    const int64_t c0 = o / Og * Cg;
    uint64_t s = 0;
    for (int64_t c = 0; c < Cg; ++c)
      for (int64_t ki = 0; ki < g.kh; ++ki) {
        const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
        if (ih < 0 || ih >= g.H) continue;
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const int64_t iw = ow * g.sw - g.pw + kj * g.dw;
          if (iw < 0 || iw >= g.W) continue;
          s += wrap_mul(x[((n * g.C + c0 + c) * g.H + ih) * g.W + iw], w[((o * Cg + c) * g.kh + ki) * g.kw + kj]);
        }
      }
    y[i] = static_cast<int64_t>(s);
  }
}

// gx[n, c, ih, iw] = sum over the group's output channels and the taps that read (ih, iw) of gy * w.
__global__ void __launch_bounds__(kThreads)
    conv_int64_backward_input(ConvShape g, const int64_t* gy, const int64_t* w, int64_t* gx, int64_t n_out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t Cg = g.C / g.groups, Og = g.O / g.groups;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n_out; i += step) {
    const int64_t iw = i % g.W, ih = i / g.W % g.H, c = i / (g.W * g.H) % g.C, n = i / (g.W * g.H * g.C);
    const int64_t gr = c / Cg, cl = c - gr * Cg;
    uint64_t s = 0;
    for (int64_t ki = 0; ki < g.kh; ++ki) {
      const int64_t th = ih + g.ph - ki * g.dh;  // oh * sh
      if (th < 0 || th % g.sh != 0 || th / g.sh >= g.Ho) continue;
      const int64_t oh = th / g.sh;
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        const int64_t tw = iw + g.pw - kj * g.dw;
        if (tw < 0 || tw % g.sw != 0 || tw / g.sw >= g.Wo) continue;
        const int64_t ow = tw / g.sw;
        for (int64_t ol = 0; ol < Og; ++ol) {
          const int64_t o = gr * Og + ol;
          s += wrap_mul(gy[((n * g.O + o) * g.Ho + oh) * g.Wo + ow], w[((o * Cg + cl) * g.kh + ki) * g.kw + kj]);
        }
      }
    }
    gx[i] = static_cast<int64_t>(s);
  }
}

// gw[o, c, ki, kj] = sum over the images and output positions of gy * x.
__global__ void __launch_bounds__(kThreads)
    conv_int64_backward_weight(ConvShape g, const int64_t* gy, const int64_t* x, int64_t* gw, int64_t n_out) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t Cg = g.C / g.groups, Og = g.O / g.groups;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n_out; i += step) {
    const int64_t kj = i % g.kw, ki = i / g.kw % g.kh, c = i / (g.kw * g.kh) % Cg, o = i / (g.kw * g.kh * Cg);
    const int64_t cx = o / Og * Cg + c;
    uint64_t s = 0;
    for (int64_t n = 0; n < g.N; ++n)
      for (int64_t oh = 0; oh < g.Ho; ++oh) {
        const int64_t ih = oh * g.sh - g.ph + ki * g.dh;
        if (ih < 0 || ih >= g.H) continue;
        for (int64_t ow = 0; ow < g.Wo; ++ow) {
          const int64_t iw = ow * g.sw - g.pw + kj * g.dw;
          if (iw < 0 || iw >= g.W) continue;
          s += wrap_mul(gy[((n * g.O + o) * g.Ho + oh) * g.Wo + ow], x[((n * g.C + cx) * g.H + ih) * g.W + iw]);
        }
      }
    gw[i] = static_cast<int64_t>(s);
  }
}

bool contiguous(const glia_kernel_tensor& t) {
  int64_t expect = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.sizes[d];
  }
  return true;
}

// conv2d_backward_bias: in0 gy [N, O, Ho, Wo] contiguous -> out0 [O] (the meta part sends float32 only; the
// other floating dtypes work too).
glia_error* k_conv2d_backward_bias(const glia_kernel_call* call) {
  const char* what = "conv2d_backward_bias";
  const glia_kernel_tensor &gy = call->inputs[0], &gb = call->outputs[0];
  if (gy.ndim != 4 || gb.ndim != 1 || gy.dtype != gb.dtype || !contiguous(gy) || !contiguous(gb))
    return make_error(GLIA_ERR_INTERNAL,
                      "cuda: conv2d_backward_bias: expected a contiguous 4-D gradient and a "
                      "contiguous 1-D output of its dtype");
  const int64_t N = gy.sizes[0], O = gy.sizes[1], HW = gy.sizes[2] * gy.sizes[3];
  const int32_t dev = gb.device_index;
  cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  const cudaStream_t stream = call_stream(call, dev)->stream;
  if (O == 0) return nullptr;
  if (glia_error* e = dispatch<Set::kFloat>(gb.dtype, what, [&](auto tag) -> glia_error* {
        using T = decltype(tag);
        using A = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double, float>;
        bias_grad_kernel<T, A><<<static_cast<unsigned>(O < 65536 ? O : 65536), kThreads, 0, stream>>>(
            static_cast<const T*>(gy.data), static_cast<T*>(gb.data), N, O, HW);
        return nullptr;
      }))
    return e;
  return launched(what);
}

}  // namespace

glia_error* add_channel_bias(void* out, const void* bias, glia_dtype t, int64_t N, int64_t C, int64_t HW,
                             cudaStream_t stream) {
  const int64_t n = N * C * HW;
  if (n == 0) return nullptr;
  if (t == GLIA_INT64) {
    bias_kernel<int64_t>
        <<<grid_for(n), kThreads, 0, stream>>>(static_cast<int64_t*>(out), static_cast<const int64_t*>(bias), n, C, HW);
    return launched("conv2d bias");
  }
  if (glia_error* e = dispatch<Set::kFloat>(t, "conv2d bias", [&](auto tag) -> glia_error* {
        using T = decltype(tag);
        bias_kernel<T>
            <<<grid_for(n), kThreads, 0, stream>>>(static_cast<T*>(out), static_cast<const T*>(bias), n, C, HW);
        return nullptr;
      }))
    return e;
  return launched("conv2d bias");
}

glia_error* conv_int64(int dir, const ConvShape& g, const int64_t* a, const int64_t* b, int64_t* out,
                       cudaStream_t stream) {
  if (dir == 0) {
    const int64_t n = g.N * g.O * g.Ho * g.Wo;
    if (n > 0) conv_int64_forward<<<grid_for(n), kThreads, 0, stream>>>(g, a, b, out, n);
  } else if (dir == 1) {
    const int64_t n = g.N * g.C * g.H * g.W;
    if (n > 0) conv_int64_backward_input<<<grid_for(n), kThreads, 0, stream>>>(g, a, b, out, n);
  } else {
    const int64_t n = g.O * (g.C / g.groups) * g.kh * g.kw;
    if (n > 0) conv_int64_backward_weight<<<grid_for(n), kThreads, 0, stream>>>(g, a, b, out, n);
  }
  return launched(dir == 0   ? "conv2d (int64)"
                  : dir == 1 ? "conv2d_backward_input (int64)"
                             : "conv2d_backward_weight (int64)");
}

glia_kernel_fn conv_bias_kernel() { return &k_conv2d_backward_bias; }

}  // namespace glia::cuda
