// Functions compiled by both the host compiler and nvcc: the per-element math a CUDA kernel and a CPU loop (or
// a CPU test) share.
#ifndef GLIA_CUDA_HOST_DEVICE_H
#define GLIA_CUDA_HOST_DEVICE_H

#if defined(__CUDACC__)
#define GLIA_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define GLIA_HOST_DEVICE inline
#endif

#endif  // GLIA_CUDA_HOST_DEVICE_H
