// torch.nn.functional's conv1d, conv3d, conv_transpose1d, conv_transpose3d, unfold and fold (Note [N-d
// convolutions] in ops/convnd.h).
#pragma once

#include "autograd/node.h"

namespace glia {

// Options with torch's defaults; 1-D uses element 0 of each array.
struct ConvNdOptions {
  int64_t stride[3] = {1, 1, 1};
  int64_t padding[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
  int64_t groups = 1;
  int padding_mode = 0;  // 0 explicit `padding`, 1 "valid", 2 "same"
};
struct ConvTransposeNdOptions {
  int64_t stride[3] = {1, 1, 1};
  int64_t padding[3] = {0, 0, 0};
  int64_t output_padding[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
  int64_t groups = 1;
};
struct FoldOptions {
  int64_t kernel_size[2] = {1, 1};
  int64_t dilation[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t stride[2] = {1, 1};
};

// x [N, C, L] or unbatched [C, L]; bias may be undefined. ConvolutionBackward0.
Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvNdOptions& o);
Tensor conv_transpose1d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvTransposeNdOptions& o);
// x [N, C, D, H, W] or unbatched [C, D, H, W].
Tensor conv3d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvNdOptions& o);
Tensor conv_transpose3d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvTransposeNdOptions& o);
// F.unfold (Im2ColBackward0): x [N, C, H, W] or [C, H, W] -> [N, C * kh * kw, L] (or [C * kh * kw, L]).
Tensor im2col(const Tensor& x, const FoldOptions& o);
// F.fold (Col2ImBackward0): cols [N, C * kh * kw, L] or [C * kh * kw, L] -> [N, C, out_h, out_w] (or
// [C, out_h, out_w]).
Tensor col2im(const Tensor& cols, int64_t out_h, int64_t out_w, const FoldOptions& o);

}  // namespace glia
