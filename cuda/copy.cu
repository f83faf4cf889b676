// The copy kernel of the CUDA backend: out <- in, same shape, any dtypes and strides (no overlap), each element
// converted as the core's convert<To, From> (dtypes.h's convert, the same rules). Contiguous views of one dtype
// are one cudaMemcpyAsync.
#include <string>

#include "common.h"
#include "launch.cuh"

namespace glia::cuda {

namespace {

bool contiguous(const glia_kernel_tensor& t) {
  int64_t expect = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.sizes[d] == 1) continue;
    if (t.strides[d] != expect) return false;
    expect *= t.sizes[d];
  }
  return true;
}

glia_error* k_copy(const glia_kernel_call* call) {
  const int32_t dev = call->outputs[0].device_index;
  const cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  return copy_views(call->outputs[0], call->inputs[0], call_stream(call, dev)->stream);
}

}  // namespace

glia_error* copy_views(const glia_kernel_tensor& dst, const glia_kernel_tensor& src, cudaStream_t stream) {
  const glia_kernel_tensor* v[2] = {&dst, &src};
  if (dst.dtype == src.dtype && contiguous(dst) && contiguous(src) && dst.ndim == src.ndim) {
    bool same = true;
    for (int32_t d = 0; same && d < dst.ndim; ++d) same = dst.sizes[d] == src.sizes[d];
    const int64_t n = view_numel(dst);
    if (same && n > 0) {
      const size_t nbytes = static_cast<size_t>(n * dtype_size(dst.dtype));
      const cudaError_t st = cudaMemcpyAsync(dst.data, src.data, nbytes, cudaMemcpyDeviceToDevice, stream);
      if (st != cudaSuccess) return cuda_error(st, "cudaMemcpyAsync", std::to_string(nbytes) + " bytes (copy)");
      return nullptr;
    }
  }
  return dispatch<Set::kAll>(dst.dtype, "copy", [&](auto dtag) -> glia_error* {
    using D = decltype(dtag);
    return dispatch<Set::kAll>(src.dtype, "copy", [&](auto stag) -> glia_error* {
      using S = decltype(stag);
      return launch<2>(v, "copy", Convert<D, S>{}, stream);
    });
  });
}

glia_kernel_fn copy_kernel() { return &k_copy; }

}  // namespace glia::cuda
