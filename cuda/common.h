// What the kernel files of the CUDA backend share with its entry point (backend.cpp): the services of the
// core, errors, the backend's stream handles, device memory and the kernel table.
#ifndef GLIA_CUDA_COMMON_H
#define GLIA_CUDA_COMMON_H

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "glia/glia_backend.h"

namespace glia::cuda {

// Kernel ids: the positions of src/core/kernels.def (the backend ABI's numbering).
enum class Kid : uint32_t {
#define GLIA_KERNEL(name, ...) name,
#include "core/kernels.def"
#undef GLIA_KERNEL
  kCount
};

// Streams are the backend's own handles, which know their device (backend.cpp). `blas` is the cuBLAS handle of
// the stream (created at its first GEMM, with its workspace; blas.cpp).
struct CudaStream {
  cudaStream_t stream;  // nullptr: the legacy default stream of `device`
  int32_t device;
  void* blas;  // cublasHandle_t, or nullptr
  void* blas_workspace;
  void* dnn = nullptr;  // the stream's cuDNN handle and descriptors (conv.cpp), or nullptr
};

// torch's name of a dtype ("float32"...): the backend cannot call libglia's glia_dtype_name.
inline const char* dtype_name(glia_dtype t) {
  switch (t) {
    case GLIA_FLOAT32:
      return "float32";
    case GLIA_FLOAT64:
      return "float64";
    case GLIA_FLOAT16:
      return "float16";
    case GLIA_BFLOAT16:
      return "bfloat16";
    case GLIA_INT64:
      return "int64";
    case GLIA_INT32:
      return "int32";
    case GLIA_UINT8:
      return "uint8";
    case GLIA_BOOL:
      return "bool";
    case GLIA_INT8:
      return "int8";
    case GLIA_INT16:
      return "int16";
  }
  return "an unknown dtype";
}

// The core's services (set by glia_backend_v2).
const glia_backend_services& services();
// The core's math switches now (GLIA_BACKEND_MATH_* bits: determinism, TF32), read at each call that uses them.
uint32_t math_flags();

// An error object: `message` as it is.
glia_error* make_error(enum glia_error_code code, const std::string& message);
// A CUDA status as an error naming the library, the call and the status ("cuda: <call> (<detail>) failed: ...").
glia_error* cuda_error(cudaError_t st, const char* call, const std::string& detail);

// Device memory through the caching allocator (ordered on the device's current stream).
glia_error* device_alloc(int32_t device, size_t nbytes, void** out);
// As device_alloc, but running out of memory is *out_of_memory = true with no error (for a caller with a
// fallback: cuDNN's next algorithm).
glia_error* device_try_alloc(int32_t device, size_t nbytes, void** out, bool* out_of_memory);
void device_free(int32_t device, void* ptr);

// The stream of a kernel call (the call's handle, or the device's current stream).
CudaStream* call_stream(const glia_kernel_call* call, int32_t device);

// The kernel of id `id`, nullptr when this backend has none (kernels.cpp).
glia_kernel_fn kernel_for(uint32_t id);

// The kernel families (one file each).
glia_kernel_fn elementwise_kernel(Kid id);  // elementwise.cu
glia_kernel_fn copy_kernel();               // copy.cu
glia_kernel_fn reduce_kernel(Kid id);       // reduce.cu
glia_kernel_fn softmax_kernel_for(Kid id);  // softmax.cu
glia_kernel_fn blas_kernel(Kid id);         // blas.cpp
glia_kernel_fn pool_kernel(Kid id);         // pool.cu
glia_kernel_fn norm_kernel(Kid id);         // norm.cu
glia_kernel_fn loss_kernel(Kid id);         // loss.cu (and embedding.cu's, through it)
glia_kernel_fn optim_kernel(Kid id);        // optim.cu

// indexing and padding (index.cu); the other reductions (reduce_extra.cu)
glia_kernel_fn index_kernel(Kid id);
glia_kernel_fn reduce_extra_kernel(Kid id);

// Destroys the cuBLAS handle and workspace of a stream (stream_destroy).
void blas_release(CudaStream* s);
const glia_backend_collectives* nccl_collectives();  // nccl.cpp (NCCL, opened at the first use)
glia_kernel_fn conv_kernel(Kid id);                  // conv.cpp (cuDNN) and conv.cu
// Destroys the cuDNN handle and descriptors of a stream (stream_destroy).
void dnn_release(CudaStream* s);

// The copy kernel on views (dst <- src, any dtypes and strides, same shape), for the other kernel files.
glia_error* copy_views(const glia_kernel_tensor& dst, const glia_kernel_tensor& src, cudaStream_t stream);

}  // namespace glia::cuda

#endif  // GLIA_CUDA_COMMON_H
