// conv2d and its gradients on the GPU through cuDNN 9's convolution API (kernels.def's "convolution": NCHW,
// attributes stride, padding, dilation (.ints, 2 each), groups (.i); conv2d in0 x, in1 w[, in2 bias] -> out0 y;
// conv2d_backward_input in0 gy, in1 w[, in2 bias added to gx (conv_transpose2d)] -> out0 gx;
// conv2d_backward_weight in0 gy, in1 x -> out0 gw). conv2d_backward_bias and the int64 convolutions are
// conv.cu's own kernels.
//
// Note [cuDNN in the CUDA backend]:
// - Library. libcudnn.so.9 (the shim of cuDNN 9) is linked dynamically and found by the loader like cuBLAS;
//   it loads its sub-libraries (libcudnn_graph, libcudnn_ops, libcudnn_cnn.so.9) itself. cudnn_check() runs
//   their version checks when the backend first counts devices, so a missing or mismatched piece makes the
//   backend unavailable with the loader's message in glia_backend_status, not an error at the first
//   convolution.
// - Handles. One cuDNN handle per stream, as cuBLAS's (Note [cuBLAS in the CUDA backend]): made at the
//   stream's first convolution, bound to it with cudnnSetStream, destroyed with the stream. With it live the
//   stream's tensor, filter and convolution descriptors (set for each call, so no allocation per call) and a
//   mutex held for the whole call: cuDNN handles must not be used by two threads at once.
// - API. The legacy convolution API of the cnn sub-library (cudnnConvolutionForward, BackwardData,
//   BackwardFilter), with cudnnGet*Algorithm_v7's heuristics (torch's choice when cudnn.benchmark is off):
//   the candidates in the heuristics' order, the first whose workspace can be allocated runs; the
//   candidates are cached per convolution (Note [cuDNN algorithm cache] in algo_cache.h). Workspace
//   from the caching allocator on the call's stream (device_alloc, freed after the call: stream-ordered).
// - Determinism (torch.use_deterministic_algorithms or torch.backends.cudnn.deterministic: the
//   GLIA_BACKEND_MATH_DETERMINISTIC / _CUDNN_DETERMINISTIC bits of the core's math_flags): only candidates
//   that cuDNN reports CUDNN_DETERMINISTIC; none left is GLIA_ERR_UNSUPPORTED. Off (torch's default), cuDNN
//   may pick algorithms that accumulate with atomics (some backward-filter ones): two runs may then differ
//   in the last bits, as with torch.
// - Math. float32 computes in float32, with TF32 tensor cores only when torch.backends.cudnn.allow_tf32
//   (GLIA_BACKEND_MATH_TF32_CUDNN, default on as torch's) lets it: CUDNN_DEFAULT_MATH then, CUDNN_FMA_MATH
//   otherwise (candidates that need tensor-op math are skipped). float16 and bfloat16 compute in float
//   (tensor-op math), float64 in double. Other dtypes: int64 runs conv.cu's exact kernels; the rest is
//   GLIA_ERR_UNSUPPORTED naming op, dtype and device.
// - Layout. Tensors are described as packed NCHW; a view that is not (the core sends contiguous ones
//   today) is copied first, an output that is not gets a packed buffer copied back. "same" padding that
//   pads one more row or column at the bottom/right (cuDNN pads symmetrically) runs on a zero-padded copy of
//   x, as torch does. cuDNN takes int dims and at most 2^31 - 1 elements a tensor: bigger batches run in
//   chunks of images (the weight gradient accumulates over the chunks).
// - Bias: added after the convolution by conv.cu's kernel, in the dtype's accumulation type.
// Every cuDNN status becomes a glia_error naming the library, the call, the op and shapes, and the status.
#include "conv.h"

#include <cudnn.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

#include "algo_cache.h"
#include "common.h"
#include "cudnn_check.h"

namespace glia::cuda {

namespace {

glia_error* dnn_error(cudnnStatus_t st, const char* call, const std::string& detail) {
  const enum glia_error_code code = st == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
                                            st == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED
                                        ? GLIA_ERR_OUT_OF_MEMORY
                                    : CUDNN_STATUS_CATEGORY(st) == CUDNN_STATUS_NOT_SUPPORTED ? GLIA_ERR_UNSUPPORTED
                                                                                              : GLIA_ERR_DEVICE;
  return make_error(code, std::string("cudnn: ") + call + (detail.empty() ? "" : " (" + detail + ")") +
                              " failed: " + cudnn_status_message(st));
}

// ---- the per-stream state (Note [cuDNN in the CUDA backend])

struct DnnState {
  std::mutex mu;
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t xd = nullptr, yd = nullptr;
  cudnnFilterDescriptor_t wd = nullptr;
  cudnnConvolutionDescriptor_t cd = nullptr;
};

void destroy_state(DnnState* s) {
  if (s->cd) cudnnDestroyConvolutionDescriptor(s->cd);
  if (s->wd) cudnnDestroyFilterDescriptor(s->wd);
  if (s->yd) cudnnDestroyTensorDescriptor(s->yd);
  if (s->xd) cudnnDestroyTensorDescriptor(s->xd);
  if (s->handle) cudnnDestroy(s->handle);
  delete s;
}

std::mutex g_state_mutex;

// The stream's state, made at its first convolution; the device is current.
glia_error* state_of(CudaStream* s, DnnState** out) {
  std::lock_guard<std::mutex> lock(g_state_mutex);
  if (!s->dnn) {
    auto* st = new (std::nothrow) DnnState;
    if (!st) return make_error(GLIA_ERR_OUT_OF_MEMORY, "cudnn: out of host memory");
    const std::string dev = "device " + std::to_string(s->device);
    cudnnStatus_t r = cudnnCreate(&st->handle);
    const char* call = "cudnnCreate";
    if (r == CUDNN_STATUS_SUCCESS) r = cudnnSetStream(st->handle, s->stream), call = "cudnnSetStream";
    if (r == CUDNN_STATUS_SUCCESS) r = cudnnCreateTensorDescriptor(&st->xd), call = "cudnnCreateTensorDescriptor";
    if (r == CUDNN_STATUS_SUCCESS) r = cudnnCreateTensorDescriptor(&st->yd);
    if (r == CUDNN_STATUS_SUCCESS) r = cudnnCreateFilterDescriptor(&st->wd), call = "cudnnCreateFilterDescriptor";
    if (r == CUDNN_STATUS_SUCCESS)
      r = cudnnCreateConvolutionDescriptor(&st->cd), call = "cudnnCreateConvolutionDescriptor";
    if (r != CUDNN_STATUS_SUCCESS) {
      glia_error* e = dnn_error(r, call, dev);
      destroy_state(st);
      return e;
    }
    s->dnn = st;
  }
  *out = static_cast<DnnState*>(s->dnn);
  return nullptr;
}

// ---- tensors

int64_t item_bytes(glia_dtype t) { return t == GLIA_FLOAT64 || t == GLIA_INT64 ? 8 : t == GLIA_FLOAT32 ? 4 : 2; }

int64_t numel(const glia_kernel_tensor& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.sizes[d];
  return n;
}

bool packed(const glia_kernel_tensor& t) {
  int64_t expect = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.sizes[d];
  }
  return true;
}

// A packed 4-D buffer of `sizes` in device memory, freed when the Buffer goes (ordered on the current
// stream, so after the work queued with it).
struct Buffer {
  int32_t device = 0;
  void* data = nullptr;
  int64_t sizes[4] = {}, strides[4] = {};
  glia_dtype dtype = GLIA_FLOAT32;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (data) device_free(device, data);
  }
  glia_error* alloc(int32_t dev, glia_dtype t, const int64_t* sz) {
    device = dev;
    dtype = t;
    int64_t n = 1;
    for (int d = 3; d >= 0; --d) {
      sizes[d] = sz[d];
      strides[d] = n;
      n *= sz[d];
    }
    return device_alloc(dev, static_cast<size_t>(n * item_bytes(t)), &data);
  }
  glia_kernel_tensor view() const { return {data, sizes, strides, 4, dtype, device, 0}; }
  // The view of the top-left `sz` corner.
  glia_kernel_tensor corner(const int64_t* sz) const { return {data, sz, strides, 4, dtype, device, 0}; }
};

// ---- the convolution

enum class Dir { kForward, kData, kFilter };

const char* op_name(Dir d) {
  return d == Dir::kForward ? "conv2d" : d == Dir::kData ? "conv2d_backward_input" : "conv2d_backward_weight";
}

// cuDNN's element type, or false for a dtype it has no convolution for.
bool dnn_type(glia_dtype t, cudnnDataType_t* data, cudnnDataType_t* compute) {
  switch (t) {
    case GLIA_FLOAT32:
      *data = *compute = CUDNN_DATA_FLOAT;
      return true;
    case GLIA_FLOAT64:
      *data = *compute = CUDNN_DATA_DOUBLE;
      return true;
    case GLIA_FLOAT16:
      *data = CUDNN_DATA_HALF, *compute = CUDNN_DATA_FLOAT;
      return true;
    case GLIA_BFLOAT16:
      *data = CUDNN_DATA_BFLOAT16, *compute = CUDNN_DATA_FLOAT;
      return true;
    default:
      return false;
  }
}

// What the messages say about a call: "conv2d, input [N, C, H, W], weight [...], output [...], float32, stride
// (sh, sw), padding (ph, pw), dilation (dh, dw), groups g" (snprintf: GCC 12's -Wrestrict misreads chains of
// std::string concatenations at -O3).
std::string describe(Dir dir, const ConvShape& g, glia_dtype t) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s, input [%lld, %lld, %lld, %lld], weight [%lld, %lld, %lld, %lld], output [%lld, %lld, %lld, %lld], "
                "%s, stride (%lld, %lld), padding (%lld, %lld), dilation (%lld, %lld), groups %lld",
                op_name(dir), static_cast<long long>(g.N), static_cast<long long>(g.C), static_cast<long long>(g.H),
                static_cast<long long>(g.W), static_cast<long long>(g.O),
                static_cast<long long>(g.groups ? g.C / g.groups : 0), static_cast<long long>(g.kh),
                static_cast<long long>(g.kw), static_cast<long long>(g.N), static_cast<long long>(g.O),
                static_cast<long long>(g.Ho), static_cast<long long>(g.Wo), dtype_name(t), static_cast<long long>(g.sh),
                static_cast<long long>(g.sw), static_cast<long long>(g.ph), static_cast<long long>(g.pw),
                static_cast<long long>(g.dh), static_cast<long long>(g.dw), static_cast<long long>(g.groups));
  return buf;
}

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

// Whether a product of sizes (each in [0, 2^31)) is at most INT_MAX, without overflow.
bool product_fits(std::initializer_list<int64_t> sizes) {
  unsigned __int128 p = 1;
  for (int64_t v : sizes) {
    p *= static_cast<unsigned __int128>(v);
    if (p > INT_MAX) return false;
  }
  return true;
}

// The candidates of one direction, through one interface.
template <Dir D>
struct Algo;

template <>
struct Algo<Dir::kForward> {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static constexpr const char* kHeuristic = "cudnnGetConvolutionForwardAlgorithm_v7";
  static constexpr const char* kWorkspace = "cudnnGetConvolutionForwardWorkspaceSize";
  static constexpr const char* kRun = "cudnnConvolutionForward";
  static cudnnStatus_t heuristic(DnnState* s, int* n, Perf* p) {
    return cudnnGetConvolutionForwardAlgorithm_v7(s->handle, s->xd, s->wd, s->cd, s->yd, kCount, n, p);
  }
  static cudnnStatus_t workspace(DnnState* s, const Perf& p, size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(s->handle, s->xd, s->wd, s->cd, s->yd, p.algo, bytes);
  }
  // a: x, b: w, out: y
  static cudnnStatus_t run(DnnState* s, const Perf& p, const void* alpha, const void* a, const void* b, void* ws,
                           size_t ws_bytes, const void* beta, void* out) {
    return cudnnConvolutionForward(s->handle, alpha, s->xd, a, s->wd, b, s->cd, p.algo, ws, ws_bytes, beta, s->yd, out);
  }
};

template <>
struct Algo<Dir::kData> {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static constexpr const char* kHeuristic = "cudnnGetConvolutionBackwardDataAlgorithm_v7";
  static constexpr const char* kWorkspace = "cudnnGetConvolutionBackwardDataWorkspaceSize";
  static constexpr const char* kRun = "cudnnConvolutionBackwardData";
  static cudnnStatus_t heuristic(DnnState* s, int* n, Perf* p) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(s->handle, s->wd, s->yd, s->cd, s->xd, kCount, n, p);
  }
  static cudnnStatus_t workspace(DnnState* s, const Perf& p, size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(s->handle, s->wd, s->yd, s->cd, s->xd, p.algo, bytes);
  }
  // a: gy, b: w, out: gx
  static cudnnStatus_t run(DnnState* s, const Perf& p, const void* alpha, const void* a, const void* b, void* ws,
                           size_t ws_bytes, const void* beta, void* out) {
    return cudnnConvolutionBackwardData(s->handle, alpha, s->wd, b, s->yd, a, s->cd, p.algo, ws, ws_bytes, beta, s->xd,
                                        out);
  }
};

template <>
struct Algo<Dir::kFilter> {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  static constexpr int kCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static constexpr const char* kHeuristic = "cudnnGetConvolutionBackwardFilterAlgorithm_v7";
  static constexpr const char* kWorkspace = "cudnnGetConvolutionBackwardFilterWorkspaceSize";
  static constexpr const char* kRun = "cudnnConvolutionBackwardFilter";
  static cudnnStatus_t heuristic(DnnState* s, int* n, Perf* p) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(s->handle, s->xd, s->yd, s->cd, s->wd, kCount, n, p);
  }
  static cudnnStatus_t workspace(DnnState* s, const Perf& p, size_t* bytes) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(s->handle, s->xd, s->yd, s->cd, s->wd, p.algo, bytes);
  }
  // a: gy, b: x, out: gw
  static cudnnStatus_t run(DnnState* s, const Perf& p, const void* alpha, const void* a, const void* b, void* ws,
                           size_t ws_bytes, const void* beta, void* out) {
    return cudnnConvolutionBackwardFilter(s->handle, alpha, s->xd, b, s->yd, a, s->cd, p.algo, ws, ws_bytes, beta,
                                          s->wd, out);
  }
};

struct Plan {
  Dir dir;
  ConvShape g;      // of the convolution cuDNN runs (H, W those of the padded copy, if any)
  ConvShape shown;  // the call's, for messages
  glia_dtype dtype;
  cudnnDataType_t data, compute;
  bool deterministic, tf32;
  int32_t device;
};

// One cuDNN call on images [n0, n0 + nb) (a, b, out point at image n0 where they hold images); the state's
// descriptors are set here. beta 0 overwrites out, 1 accumulates (the weight gradient's later chunks).
template <Dir D>
glia_error* run_chunk(DnnState* s, const Plan& p, int64_t nb, const void* a, const void* b, void* out, double beta) {
  using A = Algo<D>;
  const ConvShape& g = p.g;
  const int xdims[4] = {static_cast<int>(nb), static_cast<int>(g.C), static_cast<int>(g.H), static_cast<int>(g.W)};
  const int xstr[4] = {static_cast<int>(g.C * g.H * g.W), static_cast<int>(g.H * g.W), static_cast<int>(g.W), 1};
  const int ydims[4] = {static_cast<int>(nb), static_cast<int>(g.O), static_cast<int>(g.Ho), static_cast<int>(g.Wo)};
  const int ystr[4] = {static_cast<int>(g.O * g.Ho * g.Wo), static_cast<int>(g.Ho * g.Wo), static_cast<int>(g.Wo), 1};
  auto detail = [&] { return describe(D, p.shown, p.dtype); };
  cudnnStatus_t r = cudnnSetTensorNdDescriptor(s->xd, p.data, 4, xdims, xstr);
  if (r == CUDNN_STATUS_SUCCESS) r = cudnnSetTensorNdDescriptor(s->yd, p.data, 4, ydims, ystr);
  if (r != CUDNN_STATUS_SUCCESS) return dnn_error(r, "cudnnSetTensorNdDescriptor", detail());
  r = cudnnSetFilter4dDescriptor(s->wd, p.data, CUDNN_TENSOR_NCHW, static_cast<int>(g.O),
                                 static_cast<int>(g.C / g.groups), static_cast<int>(g.kh), static_cast<int>(g.kw));
  if (r != CUDNN_STATUS_SUCCESS) return dnn_error(r, "cudnnSetFilter4dDescriptor", detail());
  r = cudnnSetConvolution2dDescriptor(s->cd, static_cast<int>(g.ph), static_cast<int>(g.pw), static_cast<int>(g.sh),
                                      static_cast<int>(g.sw), static_cast<int>(g.dh), static_cast<int>(g.dw),
                                      CUDNN_CROSS_CORRELATION, p.compute);
  if (r == CUDNN_STATUS_SUCCESS) r = cudnnSetConvolutionGroupCount(s->cd, static_cast<int>(g.groups));
  // The math the heuristics are asked for (torch's): FMA only for float32 without TF32, tensor ops for the
  // 16-bit floats, cuDNN's default otherwise (which lets float32 use TF32).
  const bool fma_only = p.dtype == GLIA_FLOAT32 && !p.tf32;
  const cudnnMathType_t asked = fma_only                                              ? CUDNN_FMA_MATH
                                : p.dtype == GLIA_FLOAT16 || p.dtype == GLIA_BFLOAT16 ? CUDNN_TENSOR_OP_MATH
                                                                                      : CUDNN_DEFAULT_MATH;
  if (r == CUDNN_STATUS_SUCCESS) r = cudnnSetConvolutionMathType(s->cd, asked);
  if (r != CUDNN_STATUS_SUCCESS) return dnn_error(r, "cudnnSetConvolution2dDescriptor", detail());

  // The heuristics' candidates that glia may run, from the cache when it has them (Note [cuDNN algorithm
  // cache] in algo_cache.h).
  static AlgoCache<typename A::Perf> cache;
  const ConvKey key{{static_cast<int64_t>(D),
                     p.device,
                     static_cast<int64_t>(p.dtype),
                     nb,
                     g.C,
                     g.H,
                     g.W,
                     g.O,
                     g.kh,
                     g.kw,
                     g.Ho,
                     g.Wo,
                     g.sh,
                     g.sw,
                     g.ph,
                     g.pw,
                     g.dh,
                     g.dw,
                     g.groups,
                     p.deterministic ? 1 : 0,
                     p.tf32 ? 1 : 0}};
  std::vector<typename A::Perf> candidates;
  if (!cache.find(key, &candidates)) {
    typename A::Perf perf[A::kCount];
    int n = 0;
    r = A::heuristic(s, &n, perf);
    if (r != CUDNN_STATUS_SUCCESS) return dnn_error(r, A::kHeuristic, detail());
    for (int i = 0; i < n; ++i) {
      const typename A::Perf& c = perf[i];
      if (c.status != CUDNN_STATUS_SUCCESS) continue;
      if (p.deterministic && c.determinism != CUDNN_DETERMINISTIC) continue;
      const bool tensor_op = c.mathType == CUDNN_TENSOR_OP_MATH || c.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
      if (fma_only && tensor_op) continue;
      candidates.push_back(c);
    }
    if (candidates.empty() && n > 0 && p.deterministic)
      return make_error(GLIA_ERR_UNSUPPORTED, std::string("cudnn: ") + A::kHeuristic + " (" + detail() +
                                                  ") offers no deterministic algorithm, and deterministic "
                                                  "algorithms were asked for (glia_set_deterministic_algorithms or "
                                                  "glia_set_cudnn_deterministic)");
    if (candidates.empty())
      return make_error(GLIA_ERR_UNSUPPORTED,
                        std::string("cudnn: ") + A::kHeuristic + " (" + detail() + ") offers no usable algorithm");
    cache.insert(key, candidates);
  }
  const bool dbl = p.dtype == GLIA_FLOAT64;
  const float alpha_f = 1.0f, beta_f = static_cast<float>(beta);
  const double alpha_d = 1.0;
  const void* alpha = dbl ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* pbeta = dbl ? static_cast<const void*>(&beta) : &beta_f;
  size_t oom_bytes = 0;  // the smallest workspace that could not be allocated
  for (const typename A::Perf& c : candidates) {
    r = cudnnSetConvolutionMathType(s->cd, fma_only ? CUDNN_FMA_MATH : c.mathType);
    if (r != CUDNN_STATUS_SUCCESS) return dnn_error(r, "cudnnSetConvolutionMathType", detail());
    size_t ws_bytes = 0;
    r = A::workspace(s, c, &ws_bytes);
    if (r != CUDNN_STATUS_SUCCESS) return dnn_error(r, A::kWorkspace, detail());
    void* ws = nullptr;
    if (ws_bytes > 0) {
      bool oom = false;
      if (glia_error* e = device_try_alloc(p.device, ws_bytes, &ws, &oom)) return e;
      if (oom) {
        // torch's choice: an algorithm whose workspace does not fit gives way to the next one.
        oom_bytes = oom_bytes == 0 || ws_bytes < oom_bytes ? ws_bytes : oom_bytes;
        continue;
      }
    }
    r = A::run(s, c, alpha, a, b, ws, ws_bytes, pbeta, out);
    if (ws) device_free(p.device, ws);
    if (r != CUDNN_STATUS_SUCCESS) return dnn_error(r, A::kRun, detail());
    return nullptr;
  }
  return make_error(GLIA_ERR_OUT_OF_MEMORY, std::string("cudnn: ") + A::kRun + " (" + detail() +
                                                "): CUDA out of memory: no algorithm's workspace could be "
                                                "allocated (the smallest needed " +
                                                std::to_string(oom_bytes) + " bytes)");
}

template <Dir D>
glia_error* run_chunks(DnnState* s, const Plan& p, const void* a, const void* b, void* out) {
  const ConvShape& g = p.g;
  const int64_t per_image = std::max(g.C * g.H * g.W, g.O * g.Ho * g.Wo);
  const int64_t nb_max = per_image > 0 ? std::max<int64_t>(1, INT_MAX / per_image) : g.N;
  const int64_t esz = item_bytes(p.dtype);
  const int64_t xstep = g.C * g.H * g.W * esz, ystep = g.O * g.Ho * g.Wo * esz;
  for (int64_t n0 = 0; n0 < g.N; n0 += nb_max) {
    const int64_t nb = std::min(nb_max, g.N - n0);
    // Forward: a x, out y; data: a gy, out gx; filter: a gy, b x, out gw (not per image).
    const char* ca = static_cast<const char*>(a) + n0 * (D == Dir::kForward ? xstep : ystep);
    const char* cb = static_cast<const char*>(b) + (D == Dir::kFilter ? n0 * xstep : 0);
    char* co = static_cast<char*>(out) + (D == Dir::kFilter ? 0 : n0 * (D == Dir::kForward ? ystep : xstep));
    if (glia_error* e = run_chunk<D>(s, p, nb, ca, cb, co, D == Dir::kFilter && n0 > 0 ? 1.0 : 0.0)) return e;
  }
  return nullptr;
}

glia_error* unsupported_dtype(Dir dir, glia_dtype t, int32_t device) {
  return make_error(GLIA_ERR_UNSUPPORTED, std::string("\"") + op_name(dir) + "\" is not implemented for " +
                                              dtype_name(t) + " tensors on cuda:" + std::to_string(device) +
                                              " (cuDNN convolutions take float32, float64, float16 and bfloat16)");
}

// The convolution of one kernel call. Roles: forward a = x (in0), b = w (in1), out = y; data a = gy (in0),
// b = w (in1), out = gx; filter a = gy (in0), b = x (in1), out = gw.
glia_error* convolution(const glia_kernel_call* call, Dir dir) {
  const glia_kernel_tensor& a0 = call->inputs[0];
  const glia_kernel_tensor& b0 = call->inputs[1];
  const glia_kernel_tensor& out0 = call->outputs[0];
  const char* op = op_name(dir);
  if (a0.ndim != 4 || b0.ndim != 4 || out0.ndim != 4 || call->n_attrs < 4)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + op + ": expected 4-D tensors and 4 attributes");
  const glia_kernel_tensor& x = dir == Dir::kForward ? a0 : dir == Dir::kData ? out0 : b0;
  const glia_kernel_tensor& w = dir == Dir::kFilter ? out0 : b0;
  const glia_kernel_tensor& y = dir == Dir::kForward ? out0 : a0;
  const glia_kernel_attr* at = call->attrs;
  ConvShape g{x.sizes[0],    x.sizes[1],    x.sizes[2],    x.sizes[3],    w.sizes[0],    w.sizes[2],
              w.sizes[3],    y.sizes[2],    y.sizes[3],    at[0].ints[0], at[0].ints[1], at[1].ints[0],
              at[1].ints[1], at[2].ints[0], at[2].ints[1], at[3].i};
  const glia_dtype t = out0.dtype;
  if (a0.dtype != t || b0.dtype != t)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + op + ": operands of different dtypes");
  const int32_t dev = out0.device_index;
  Plan p{dir, g, g, t, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, false, false, dev};
  const bool is_int = t == GLIA_INT64;
  if (!is_int && !dnn_type(t, &p.data, &p.compute)) return unsupported_dtype(dir, t, dev);
  const glia_kernel_tensor* bias = call->n_inputs > 2 && dir != Dir::kFilter ? &call->inputs[2] : nullptr;
  if (bias && (bias->dtype != t || bias->ndim != 1))
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + op + ": a bias of another dtype or shape");

  cudaError_t cst = cudaSetDevice(dev);
  if (cst != cudaSuccess) return cuda_error(cst, "cudaSetDevice", "device " + std::to_string(dev));
  CudaStream* stream = call_stream(call, dev);
  const cudaStream_t cs = stream->stream;
  if (numel(out0) == 0) return nullptr;

  // Inputs as packed views (copies of those that are not).
  Buffer abuf, bbuf, obuf, biasbuf;
  glia_kernel_tensor a = a0, b = b0, out = out0;
  if (!packed(a0)) {
    if (glia_error* e = abuf.alloc(dev, t, a0.sizes)) return e;
    a = abuf.view();
    if (glia_error* e = copy_views(a, a0, cs)) return e;
  }
  if (!packed(b0)) {
    if (glia_error* e = bbuf.alloc(dev, t, b0.sizes)) return e;
    b = bbuf.view();
    if (glia_error* e = copy_views(b, b0, cs)) return e;
  }
  if (!packed(out0)) {
    if (glia_error* e = obuf.alloc(dev, t, out0.sizes)) return e;
    out = obuf.view();
  }
  const void* bias_data = nullptr;
  if (bias) {
    bias_data = bias->data;
    if (!packed(*bias)) {
      // A 1-D view as a [C, 1, 1, 1] buffer.
      const int64_t bs[4] = {bias->sizes[0], 1, 1, 1};
      if (glia_error* e = biasbuf.alloc(dev, t, bs)) return e;
      glia_kernel_tensor bv = biasbuf.view();
      bv.ndim = 1;
      if (glia_error* e = copy_views(bv, *bias, cs)) return e;
      bias_data = biasbuf.data;
    }
  }
  const size_t out_bytes = static_cast<size_t>(numel(out) * item_bytes(t));

  // Nothing to sum over (no input channels, no output channels, no images): zeros.
  const bool empty_sum = numel(a) == 0 || numel(b) == 0;
  glia_error* err = nullptr;
  if (empty_sum) {
    cst = cudaMemsetAsync(out.data, 0, out_bytes, cs);
    if (cst != cudaSuccess) return cuda_error(cst, "cudaMemsetAsync", op);
  } else {
    if (!fits_int(g.N) || !fits_int(g.C) || !fits_int(g.H) || !fits_int(g.W) || !fits_int(g.O) || !fits_int(g.kh) ||
        !fits_int(g.kw) || !fits_int(g.Ho) || !fits_int(g.Wo) || !fits_int(g.sh) || !fits_int(g.sw) ||
        !fits_int(g.ph) || !fits_int(g.pw) || !fits_int(g.dh) || !fits_int(g.dw) || !fits_int(g.groups) ||
        g.groups == 0 || !product_fits({g.C, g.H, g.W}) || !product_fits({g.O, g.Ho, g.Wo}) ||
        !product_fits({g.O, g.C / g.groups, g.kh, g.kw}))
      return make_error(GLIA_ERR_UNSUPPORTED, std::string("cudnn: ") + op + " (" + describe(dir, g, t) +
                                                  "): a size, padding, stride or dilation, or one image or the "
                                                  "weight, exceeds cuDNN's limit of 2^31 - 1");
    // cuDNN derives the output size from the input's, floor((H + 2p - ek) / s) + 1 with symmetric padding. The
    // input size that gives exactly the call's Ho: H itself, mostly; H plus the row "same" padding adds at the
    // bottom (zeros); or H less trailing rows that no output reads (conv_transpose2d's output_padding). Values
    // below 2^31 (checked above): no overflow.
    auto fit = [](int64_t H, int64_t Ho, int64_t s, int64_t p, int64_t ek) -> int64_t {
      const int64_t span = H + 2 * p - ek;
      const int64_t have = span < 0 ? 0 : span / s + 1;
      if (have == Ho) return H;
      if (have < Ho) return (Ho - 1) * s + ek - 2 * p;
      return H - (have - Ho) * s;
    };
    const int64_t Hc = fit(g.H, g.Ho, g.sh, g.ph, g.dh * (g.kh - 1) + 1);
    const int64_t Wc = fit(g.W, g.Wo, g.sw, g.pw, g.dw * (g.kw - 1) + 1);
    if (Hc < 1 || Wc < 1 || Hc > INT_MAX || Wc > INT_MAX || !product_fits({g.C, Hc, Wc}))
      return make_error(GLIA_ERR_UNSUPPORTED, std::string("cudnn: ") + op + " (" + describe(dir, g, t) +
                                                  "): no input size gives this output size with symmetric padding");
    Buffer xfit;  // x (or gx) at the size cuDNN sees, when it differs
    const int64_t common[4] = {g.N, g.C, std::min(g.H, Hc), std::min(g.W, Wc)};
    const void* ra = a.data;
    const void* rb = b.data;
    void* rout = out.data;
    if (Hc != g.H || Wc != g.W) {
      const int64_t fs[4] = {g.N, g.C, Hc, Wc};
      if ((err = xfit.alloc(dev, t, fs))) return err;
      p.g.H = Hc, p.g.W = Wc;
      if (dir != Dir::kData) {
        if (Hc > g.H || Wc > g.W) {
          cst = cudaMemsetAsync(xfit.data, 0, static_cast<size_t>(g.N * g.C * Hc * Wc * item_bytes(t)), cs);
          if (cst != cudaSuccess) return cuda_error(cst, "cudaMemsetAsync", op);
        }
        glia_kernel_tensor xin = dir == Dir::kForward ? a : b;
        xin.sizes = common;
        if ((err = copy_views(xfit.corner(common), xin, cs))) return err;
        (dir == Dir::kForward ? ra : rb) = xfit.data;
      } else {
        rout = xfit.data;
      }
    }
    if (is_int) {
      err = conv_int64(static_cast<int>(dir), p.g, static_cast<const int64_t*>(ra), static_cast<const int64_t*>(rb),
                       static_cast<int64_t*>(rout), cs);
    } else {
      DnnState* s = nullptr;
      if ((err = state_of(stream, &s))) return err;
      const uint32_t flags = math_flags();
      p.deterministic = (flags & (GLIA_BACKEND_MATH_DETERMINISTIC | GLIA_BACKEND_MATH_CUDNN_DETERMINISTIC)) != 0;
      p.tf32 = (flags & GLIA_BACKEND_MATH_TF32_CUDNN) != 0;
      std::lock_guard<std::mutex> lock(s->mu);
      err = dir == Dir::kForward ? run_chunks<Dir::kForward>(s, p, ra, rb, rout)
            : dir == Dir::kData  ? run_chunks<Dir::kData>(s, p, ra, rb, rout)
                                 : run_chunks<Dir::kFilter>(s, p, ra, rb, rout);
    }
    if (err) return err;
    if (rout != out.data) {
      // gx: the rows and columns cuDNN did not see are zero (no output reads them).
      if (Hc < g.H || Wc < g.W) {
        cst = cudaMemsetAsync(out.data, 0, out_bytes, cs);
        if (cst != cudaSuccess) return cuda_error(cst, "cudaMemsetAsync", op);
      }
      glia_kernel_tensor oc = out;
      oc.sizes = common;
      if ((err = copy_views(oc, xfit.corner(common), cs))) return err;
    }
  }
  if (bias &&
      (err = add_channel_bias(out.data, bias_data, t, out.sizes[0], out.sizes[1], out.sizes[2] * out.sizes[3], cs)))
    return err;
  if (obuf.data && (err = copy_views(out0, out, cs))) return err;
  return nullptr;
}

glia_error* k_conv2d(const glia_kernel_call* call) { return convolution(call, Dir::kForward); }
glia_error* k_conv2d_backward_input(const glia_kernel_call* call) { return convolution(call, Dir::kData); }
glia_error* k_conv2d_backward_weight(const glia_kernel_call* call) { return convolution(call, Dir::kFilter); }

}  // namespace

void dnn_release(CudaStream* s) {
  std::lock_guard<std::mutex> lock(g_state_mutex);
  if (s->dnn) destroy_state(static_cast<DnnState*>(s->dnn));
  s->dnn = nullptr;
}

glia_kernel_fn conv_kernel(Kid id) {
  switch (id) {
    case Kid::conv2d:
      return &k_conv2d;
    case Kid::conv2d_backward_input:
      return &k_conv2d_backward_input;
    case Kid::conv2d_backward_weight:
      return &k_conv2d_backward_weight;
    case Kid::conv2d_backward_bias:
      return conv_bias_kernel();
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
