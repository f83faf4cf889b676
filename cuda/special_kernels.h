// The kernel families of h-cuspecial (one file each), for kernel_for (backend.cpp): the special functions
// (special.cu), the floating elementwise math after elementwise.cu's (elementwise_extra.cu), the binary ops
// that take integers too (binary_extra.cu) and the activations of issue 21 (activation_extra.cu). A header of
// their own rather than lines in common.h, which every kernel file includes.
#ifndef GLIA_CUDA_SPECIAL_KERNELS_H
#define GLIA_CUDA_SPECIAL_KERNELS_H

#include "common.h"

namespace glia::cuda {

glia_kernel_fn special_kernel(Kid id);
glia_kernel_fn elementwise_extra_kernel(Kid id);
glia_kernel_fn binary_extra_kernel(Kid id);
glia_kernel_fn activation_extra_kernel(Kid id);

}  // namespace glia::cuda

#endif  // GLIA_CUDA_SPECIAL_KERNELS_H
