// torch.nn's Conv1d, Conv3d, ConvTranspose1d, ConvTranspose3d, Unfold and Fold (Conv2d's scheme:
// torch's constructor checks, parameter names and init, extra_repr; forward calls autograd/fn/convnd.h).
#pragma once

#include <string>

#include "autograd/functions.h"
#include "nn/module.h"
#include "nn/modules/layers.h"

namespace glia::nn {

// Arguments of an N-d convolution module (nd = 1 or 3 spatial dims; 1-D uses element 0).
struct ConvNdArgs {
  int64_t kernel_size[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t padding[3] = {0, 0, 0};
  int64_t output_padding[3] = {0, 0, 0};  // transposed only
  int64_t dilation[3] = {1, 1, 1};
  int64_t groups = 1;
  bool bias = true;
  int padding_kind = 0;                           // 0 explicit, 1 "valid", 2 "same" (not transposed)
  ConvPadMode padding_mode = ConvPadMode::Zeros;  // not transposed
};

// Conv1d / Conv3d (transposed false) and ConvTranspose1d / ConvTranspose3d (true).
class ConvNd : public Module {
 public:
  ConvNd(int nd, bool transposed, int64_t in_channels, int64_t out_channels, const ConvNdArgs& a, const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  int nd;
  bool transposed;
  int64_t in_channels, out_channels;
  ConvNdArgs args;
};

class Unfold : public Module {
 public:
  explicit Unfold(const FoldOptions& o);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  FoldOptions options;
};

class Fold : public Module {
 public:
  Fold(int64_t out_h, int64_t out_w, const FoldOptions& o);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  int64_t out_h, out_w;
  FoldOptions options;
};

}  // namespace glia::nn
