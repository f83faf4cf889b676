#pragma once

#include "autograd/node.h"

namespace glia {

// Options of the convolutions and pools, with torch's defaults.
struct Conv2dOptions {
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
  int64_t groups = 1;
  int padding_mode = 0;  // 0 explicit `padding`, 1 "valid", 2 "same"
};
struct ConvTranspose2dOptions {
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t output_padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
  int64_t groups = 1;
};
struct MaxPool2dOptions {
  int64_t kernel_size[2] = {1, 1};
  int64_t stride[2] = {0, 0};  // 0: kernel_size
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
  bool ceil_mode = false;
};
struct AvgPool2dOptions {
  int64_t kernel_size[2] = {1, 1};
  int64_t stride[2] = {0, 0};  // 0: kernel_size
  int64_t padding[2] = {0, 0};
  bool ceil_mode = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;  // 0: none
};

// torch.nn.functional's conv2d, conv_transpose2d (x [N, C, H, W] or unbatched [C, H, W]; bias may be undefined).
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dOptions& o);
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvTranspose2dOptions& o);
// max_pool2d; *indices receives return_indices' tensor when non-null.
Tensor max_pool2d(const Tensor& x, const MaxPool2dOptions& o, Tensor* indices = nullptr);
Tensor avg_pool2d(const Tensor& x, const AvgPool2dOptions& o);
Tensor adaptive_avg_pool2d(const Tensor& x, int64_t out_h, int64_t out_w);

}  // namespace glia
