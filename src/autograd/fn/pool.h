// The 1-D and 3-D pools of torch.nn.functional (the 2-D ones are in autograd/fn/conv.h).
#pragma once

#include "autograd/node.h"

namespace glia {

// Options with torch's defaults; stride 0 is torch's stride=None (kernel_size).
struct MaxPool1dOptions {
  int64_t kernel_size = 1, stride = 0, padding = 0, dilation = 1;
  bool ceil_mode = false;
};
struct AvgPool1dOptions {
  int64_t kernel_size = 1, stride = 0, padding = 0;
  bool ceil_mode = false, count_include_pad = true;
};
struct MaxPool3dOptions {
  int64_t kernel_size[3] = {1, 1, 1};
  int64_t stride[3] = {0, 0, 0};
  int64_t padding[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
  bool ceil_mode = false;
};
struct AvgPool3dOptions {
  int64_t kernel_size[3] = {1, 1, 1};
  int64_t stride[3] = {0, 0, 0};
  int64_t padding[3] = {0, 0, 0};
  bool ceil_mode = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;  // 0: none
};

// x [N, C, L] or [C, L]: max_pool2d / avg_pool2d on x.unsqueeze(-2), squeezed again (torch's
// SqueezeBackward1 on top). *indices (non-null: return_indices) are positions along L.
Tensor max_pool1d(const Tensor& x, const MaxPool1dOptions& o, Tensor* indices = nullptr);
Tensor avg_pool1d(const Tensor& x, const AvgPool1dOptions& o);
// x [N, C, T, H, W] or [C, T, H, W]; *indices: flat positions in each T * H * W volume.
Tensor max_pool3d(const Tensor& x, const MaxPool3dOptions& o, Tensor* indices = nullptr);
Tensor avg_pool3d(const Tensor& x, const AvgPool3dOptions& o);
Tensor adaptive_avg_pool1d(const Tensor& x, int64_t out_l);
Tensor adaptive_avg_pool3d(const Tensor& x, int64_t out_t, int64_t out_h, int64_t out_w);
// torch's adaptive_max_pool1d / 2d / 3d; *indices (non-null: return_indices) flat positions in each
// plane (along L for 1-D).
Tensor adaptive_max_pool1d(const Tensor& x, int64_t out_l, Tensor* indices = nullptr);
Tensor adaptive_max_pool2d(const Tensor& x, int64_t out_h, int64_t out_w, Tensor* indices = nullptr);
Tensor adaptive_max_pool3d(const Tensor& x, int64_t out_t, int64_t out_h, int64_t out_w, Tensor* indices = nullptr);
// torch's max_unpool1d / 2d / 3d with the output's spatial size already resolved (out_size: 1, 2 or
// 3 sizes); x [N, C, spatial...] or unbatched, indices int64 of x's shape.
Tensor max_unpool(const Tensor& x, const Tensor& indices, IntSpan out_size);
// torch.nn.functional.lp_pool1d / lp_pool2d, as torch composes them (PowBackward0 on top):
// (sign(a) * relu(|a|) * kernel numel) ^ (1 / norm_type), a = avg_pool(x ^ norm_type, no padding).
// stride 0 is torch's stride=None.
Tensor lp_pool1d(const Tensor& x, double norm_type, int64_t kernel_size, int64_t stride, bool ceil_mode);
Tensor lp_pool2d(const Tensor& x, double norm_type, const int64_t kernel_size[2], const int64_t stride[2],
                 bool ceil_mode);

}  // namespace glia
