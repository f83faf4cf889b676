// The matrix products of the CUDA backend through cuBLAS: mm, addmm, bmm (kernels.def's "matrix products": inputs
// of one dtype with any strides, transposed views included; out0 contiguous).
//
// Note [cuBLAS in the CUDA backend]: one cuBLAS handle per stream, made at the stream's first GEMM, bound to
// that stream, with a workspace of its own (kWorkspaceBytes; cublasSetWorkspace), so GEMMs on two streams never
// share scratch memory; the handle lives as long as the stream. Math mode CUBLAS_DEFAULT_MATH with a 32-bit
// float compute type: no TF32 for float32 (torch's default, allow_tf32 = False), unless
// glia_set_allow_tf32(GLIA_TF32_MATMUL, 1) allows it (the core's math_flags, read at each GEMM): then
// CUBLAS_COMPUTE_32F_FAST_TF32, as torch's allow_tf32 = True. float16 and bfloat16 multiply
// with float accumulation (CUBLAS_COMPUTE_32F), float64 in double. Integer matrices have no cuBLAS GEMM: an
// unsupported-dtype error. Row-major glia matrices are column-major transposes, so out = a @ b runs as
// out^T = b^T a^T; an operand whose strides are neither row- nor column-major is copied to a contiguous buffer
// first. Every cuBLAS status becomes a glia_error naming the library, the call and the status.
#include <cublas_v2.h>
#include <library_types.h>

#include <cstring>
#include <mutex>
#include <string>

#include "common.h"

namespace glia::cuda {

namespace {

constexpr size_t kWorkspaceBytes = size_t{4}
                                   << 20;  // torch's default for one handle (CUBLAS_WORKSPACE_CONFIG 4096 KiB)

glia_error* blas_error(cublasStatus_t st, const char* call, const std::string& detail) {
  const enum glia_error_code code = st == CUBLAS_STATUS_ALLOC_FAILED    ? GLIA_ERR_OUT_OF_MEMORY
                                    : st == CUBLAS_STATUS_NOT_SUPPORTED ? GLIA_ERR_UNSUPPORTED
                                                                        : GLIA_ERR_DEVICE;
  return make_error(code, std::string("cublas: ") + call + (detail.empty() ? "" : " (" + detail + ")") +
                              " failed: " + cublasGetStatusString(st) + " (" + cublasGetStatusName(st) + ")");
}

#define GLIA_BLAS_TRY(expr, detail)                                          \
  do {                                                                       \
    const cublasStatus_t st_ = (expr);                                       \
    if (st_ != CUBLAS_STATUS_SUCCESS) return blas_error(st_, #expr, detail); \
  } while (0)

std::mutex g_handle_mutex;

// The stream's cuBLAS handle (Note [cuBLAS in the CUDA backend]); the device is current.
glia_error* handle_of(CudaStream* s, cublasHandle_t* out) {
  std::lock_guard<std::mutex> lock(g_handle_mutex);
  if (!s->blas) {
    cublasHandle_t h = nullptr;
    GLIA_BLAS_TRY(cublasCreate(&h), "device " + std::to_string(s->device));
    void* ws = nullptr;
    const cudaError_t cst = cudaMalloc(&ws, kWorkspaceBytes);
    if (cst != cudaSuccess) {
      cublasDestroy(h);
      return cuda_error(cst, "cudaMalloc", "the cuBLAS workspace");
    }
    cublasStatus_t st = cublasSetStream(h, s->stream);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetWorkspace(h, ws, kWorkspaceBytes);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
    if (st != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(h);
      cudaFree(ws);
      return blas_error(st, "cublasSetStream/cublasSetWorkspace/cublasSetMathMode", "");
    }
    s->blas = h;
    s->blas_workspace = ws;
  }
  *out = static_cast<cublasHandle_t>(s->blas);
  return nullptr;
}

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
  bool double_scalars;  // alpha and beta as double (float64), else float
};

glia_error* gemm_types(glia_dtype t, const char* op, GemmTypes* out) {
  switch (t) {
    case GLIA_FLOAT32:
      *out = {CUDA_R_32F, CUBLAS_COMPUTE_32F, false};
      return nullptr;
    case GLIA_FLOAT64:
      *out = {CUDA_R_64F, CUBLAS_COMPUTE_64F, true};
      return nullptr;
    case GLIA_FLOAT16:
      *out = {CUDA_R_16F, CUBLAS_COMPUTE_32F, false};
      return nullptr;
    case GLIA_BFLOAT16:
      *out = {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false};
      return nullptr;
    default:
      return make_error(GLIA_ERR_UNSUPPORTED,
                        std::string("cuda: ") + op + ": cuBLAS has no GEMM for " + dtype_name(t) + " matrices");
  }
}

int64_t item_bytes(glia_dtype t) { return t == GLIA_FLOAT64 ? 8 : t == GLIA_FLOAT32 ? 4 : 2; }

// One operand matrix [rows, cols] (row-major indices) with element strides (sr, sc), as cuBLAS sees it in the
// transposed (column-major) problem: op N with ld = sr when sc == 1, op T with ld = sc when sr == 1.
struct Operand {
  const void* data;
  cublasOperation_t op;
  int64_t ld;
};

bool as_operand(const void* data, int64_t rows, int64_t cols, int64_t sr, int64_t sc, Operand* out) {
  // A size-1 dim's stride is arbitrary: give it the value that makes the layout valid.
  if (cols == 1) sc = 1;
  if (rows == 1) sr = cols > 1 && sc == 1 ? cols : sr;
  if (sc == 1 && sr >= (cols > 1 ? cols : 1)) {
    *out = {data, CUBLAS_OP_N, sr > 1 ? sr : 1};
    return true;
  }
  if (rows == 1) sr = 1;
  if (sr == 1 && sc >= (rows > 1 ? rows : 1)) {
    *out = {data, CUBLAS_OP_T, sc > 1 ? sc : 1};
    return true;
  }
  return false;
}

// A contiguous copy of `t` (any strides) in device memory the caller frees with device_free.
glia_error* compact(const glia_kernel_tensor& t, cudaStream_t s, void** buf, glia_kernel_tensor* view,
                    int64_t* strides) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.sizes[d];
  if (glia_error* e = device_alloc(t.device_index, static_cast<size_t>(n * item_bytes(t.dtype)), buf)) return e;
  int64_t st = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    strides[d] = st;
    st *= t.sizes[d];
  }
  *view = t;
  view->data = *buf;
  view->strides = strides;
  glia_error* e = copy_views(*view, t, s);
  if (e) {
    device_free(t.device_index, *buf);
    *buf = nullptr;
  }
  return e;
}

// out [batch, M, N] (contiguous) = alpha * a [batch, M, K] @ b [batch, K, N] + beta * out; a, b as views with
// `lead` leading batch dim (0 or 1).
glia_error* gemm(const glia_kernel_call* call, const char* op, const glia_kernel_tensor& a0,
                 const glia_kernel_tensor& b0, double alpha, double beta) {
  const glia_kernel_tensor& out = call->outputs[0];
  const int lead = out.ndim == 3 ? 1 : 0;
  const int64_t batch = lead ? out.sizes[0] : 1;
  const int64_t M = out.sizes[lead], N = out.sizes[lead + 1], K = a0.sizes[lead + 1];
  if (a0.dtype != out.dtype || b0.dtype != out.dtype)
    return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + op + ": operands of different dtypes");
  GemmTypes types{CUDA_R_32F, CUBLAS_COMPUTE_32F, false};
  if (glia_error* e = gemm_types(out.dtype, op, &types)) return e;
  // torch.backends.cuda.matmul.allow_tf32: float32 products may then use TF32 tensor cores.
  if (out.dtype == GLIA_FLOAT32 && (math_flags() & GLIA_BACKEND_MATH_TF32_MATMUL))
    types.compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  if (batch == 0 || M == 0 || N == 0) return nullptr;
  const int32_t dev = out.device_index;
  cudaError_t cst = cudaSetDevice(dev);
  if (cst != cudaSuccess) return cuda_error(cst, "cudaSetDevice", "device " + std::to_string(dev));
  CudaStream* stream = call_stream(call, dev);
  const size_t out_bytes = static_cast<size_t>(batch * M * N * item_bytes(out.dtype));
  if (K == 0) {  // an empty sum: beta * out (0 when beta == 0, whatever out held)
    if (beta == 0) {
      cst = cudaMemsetAsync(out.data, 0, out_bytes, stream->stream);
      if (cst != cudaSuccess) return cuda_error(cst, "cudaMemsetAsync", op);
      return nullptr;
    }
    alpha = 0;  // cuBLAS scales out by beta (K = 0 is allowed)
  }
  cublasHandle_t h = nullptr;
  if (glia_error* e = handle_of(stream, &h)) return e;

  // Operands in a layout cuBLAS takes, compacting those it does not.
  void* bufs[2] = {nullptr, nullptr};
  int64_t cstr[2][3];
  glia_kernel_tensor views[2] = {a0, b0};
  Operand oa{}, ob{};
  glia_error* err = nullptr;
  if (K == 0) {
    // Nothing is read: layouts that satisfy cuBLAS's leading-dimension checks.
    ob = {out.data, CUBLAS_OP_N, N};
    oa = {out.data, CUBLAS_OP_N, 1};
  }
  for (int k = 0; k < 2 && !err && K > 0; ++k) {
    const glia_kernel_tensor& t = views[k];
    const int64_t rows = t.sizes[lead], cols = t.sizes[lead + 1];
    Operand& o = k == 0 ? oa : ob;
    if (!as_operand(t.data, rows, cols, t.strides[lead], t.strides[lead + 1], &o)) {
      glia_kernel_tensor c;
      err = compact(t, stream->stream, &bufs[k], &c, cstr[k]);
      if (!err) {
        views[k] = c;
        as_operand(c.data, rows, cols, cols, 1, &o);
      }
    }
  }
  if (!err) {
    const int64_t sa = lead ? views[0].strides[0] : 0, sb = lead ? views[1].strides[0] : 0;
    const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
    const void* pa = types.double_scalars ? static_cast<const void*>(&alpha) : &af;
    const void* pb = types.double_scalars ? static_cast<const void*>(&beta) : &bf;
    // out^T [N, M] = b^T [N, K] @ a^T [K, M], column-major.
    const std::string detail = std::string(op) + ", " + std::to_string(M) + "x" + std::to_string(K) + " @ " +
                               std::to_string(K) + "x" + std::to_string(N) +
                               (lead ? ", batch " + std::to_string(batch) : "");
    cublasStatus_t st;
    const char* name;
    if (!lead) {
      name = "cublasGemmEx";
      st = cublasGemmEx(h, ob.op, oa.op, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), pa, ob.data,
                        types.data, static_cast<int>(ob.ld), oa.data, types.data, static_cast<int>(oa.ld), pb, out.data,
                        types.data, static_cast<int>(N), types.compute, CUBLAS_GEMM_DEFAULT);
    } else {
      name = "cublasGemmStridedBatchedEx";
      st = cublasGemmStridedBatchedEx(h, ob.op, oa.op, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K),
                                      pa, ob.data, types.data, static_cast<int>(ob.ld), sb, oa.data, types.data,
                                      static_cast<int>(oa.ld), sa, pb, out.data, types.data, static_cast<int>(N), M * N,
                                      static_cast<int>(batch), types.compute, CUBLAS_GEMM_DEFAULT);
    }
    if (st != CUBLAS_STATUS_SUCCESS) err = blas_error(st, name, detail);
  }
  for (int k = 0; k < 2; ++k)
    if (bufs[k]) device_free(dev, bufs[k]);  // ordered on the current stream: freed after the GEMM ran
  return err;
}

// cuBLAS takes int dims and leading dimensions.
glia_error* check_int_dims(const glia_kernel_call* call, const char* op) {
  for (int32_t i = 0; i < call->n_inputs + call->n_outputs; ++i) {
    const glia_kernel_tensor& t = i < call->n_inputs ? call->inputs[i] : call->outputs[i - call->n_inputs];
    for (int32_t d = 0; d < t.ndim; ++d)
      if (t.sizes[d] > 2147483647 || t.strides[d] > 2147483647)
        return make_error(GLIA_ERR_UNSUPPORTED,
                          std::string("cuda: ") + op + ": a matrix dim or stride above 2^31 - 1 (cuBLAS takes int)");
  }
  return nullptr;
}

glia_error* k_mm(const glia_kernel_call* call) {
  const char* op = call->n_attrs > 0 && call->attrs[0].s ? call->attrs[0].s : "mm";
  if (glia_error* e = check_int_dims(call, op)) return e;
  return gemm(call, op, call->inputs[0], call->inputs[1], 1.0, 0.0);
}

glia_error* k_bmm(const glia_kernel_call* call) {
  if (glia_error* e = check_int_dims(call, "bmm")) return e;
  return gemm(call, "bmm", call->inputs[0], call->inputs[1], 1.0, 0.0);
}

// out0 <- beta * in0 + alpha * in1 @ in2; in0 (<= 2-D) broadcast to [M, N] (not expanded), unread when beta == 0.
glia_error* k_addmm(const glia_kernel_call* call) {
  if (glia_error* e = check_int_dims(call, "addmm")) return e;
  const double beta = call->attrs[0].f, alpha = call->attrs[1].f;
  const glia_kernel_tensor &c = call->inputs[0], &out = call->outputs[0];
  if (beta != 0 && out.sizes[0] > 0 && out.sizes[1] > 0) {
    // out <- in0 expanded to [M, N] (zero strides on the broadcast dims), as the CPU's copy_into(expand_to(...)).
    if (c.ndim > 2) return make_error(GLIA_ERR_INTERNAL, "cuda: addmm: the input to add has more than 2 dims");
    int64_t sizes[2], strides[2];
    for (int d = 0; d < 2; ++d) {
      const int cd = d - (2 - c.ndim);  // c's dim aligned to the right
      const bool has = cd >= 0 && c.sizes[cd] != 1;
      sizes[d] = out.sizes[d];
      strides[d] = has ? c.strides[cd] : 0;
    }
    glia_kernel_tensor expanded = c;
    expanded.ndim = 2;
    expanded.sizes = sizes;
    expanded.strides = strides;
    const int32_t dev = out.device_index;
    const cudaError_t cst = cudaSetDevice(dev);
    if (cst != cudaSuccess) return cuda_error(cst, "cudaSetDevice", "device " + std::to_string(dev));
    if (glia_error* e = copy_views(out, expanded, call_stream(call, dev)->stream)) return e;
  }
  return gemm(call, "addmm", call->inputs[1], call->inputs[2], alpha, beta);
}

}  // namespace

void blas_release(CudaStream* s) {
  std::lock_guard<std::mutex> lock(g_handle_mutex);
  if (s->blas) cublasDestroy(static_cast<cublasHandle_t>(s->blas));
  if (s->blas_workspace) cudaFree(s->blas_workspace);
  s->blas = nullptr;
  s->blas_workspace = nullptr;
}

glia_kernel_fn blas_kernel(Kid id) {
  switch (id) {
    case Kid::mm:
      return &k_mm;
    case Kid::addmm:
      return &k_addmm;
    case Kid::bmm:
      return &k_bmm;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
