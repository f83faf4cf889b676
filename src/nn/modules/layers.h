// Built-in layers (torch.nn's Identity, Linear, Bilinear, Conv2d,
// ConvTranspose2d, pools, activations, Dropout, Flatten, Unflatten,
// Embedding, and torchvision's Normalize). Each is a thin Module: torch's
// constructor arguments and validation, parameters registered under torch's
// names, reset_parameters with torch's init scheme, extra_repr with torch's
// text, and a forward that calls the functional layer (autograd/functions.h).
// Constructors end with nn::maybe_reset (skipped under SkipInitGuard).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autograd/functions.h"
#include "nn/module.h"
#include "nn/repr.h"

namespace glia::nn {

// torch.empty's check of constructor shapes: "Trying to create tensor with
// negative dimension -1: [3, -1]" (InvalidArgument).
void check_param_shape(IntSpan shape);

class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  TensorList forward(const TensorList& inputs) override;
};

// y = x W^T + b; weight [out, in], bias [out].
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias, const Factory& f);
  // The same layer under another class name (MultiheadAttention's out_proj is a
  // NonDynamicallyQuantizableLinear in torch's repr).
  Linear(std::string type_name, int64_t in_features, int64_t out_features, bool bias, const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  int64_t in_features, out_features;
};

// y = x1^T W x2 + b; weight [out, in1, in2], bias [out]. Two inputs.
class Bilinear : public Module {
 public:
  Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias, const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  int64_t in1_features, in2_features, out_features;
};

// torch's padding_mode of the convolutions.
enum class ConvPadMode { Zeros, Reflect, Replicate, Circular };

struct Conv2dArgs {
  int64_t kernel_size[2] = {1, 1};
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
  int64_t groups = 1;
  bool bias = true;
  int padding_kind = 0;  // Conv2dOptions::padding_mode: 0 explicit, 1 "valid", 2 "same"
  ConvPadMode padding_mode = ConvPadMode::Zeros;
};

class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, const Conv2dArgs& a, const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  int64_t in_channels, out_channels;
  Conv2dArgs args;
};

struct ConvTranspose2dArgs {
  int64_t kernel_size[2] = {1, 1};
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t output_padding[2] = {0, 0};
  int64_t groups = 1;
  bool bias = true;
  int64_t dilation[2] = {1, 1};
};

class ConvTranspose2d : public Module {
 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, const ConvTranspose2dArgs& a, const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  int64_t in_channels, out_channels;
  ConvTranspose2dArgs args;
};

class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(const MaxPool2dOptions& o);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  MaxPool2dOptions options;  // stride already resolved (0 -> kernel_size)
};

class AvgPool2d : public Module {
 public:
  explicit AvgPool2d(const AvgPool2dOptions& o);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  AvgPool2dOptions options;  // stride already resolved
};

// output_size entries: nullopt is torch's None (keep the input's size).
class AdaptiveAvgPool2d : public Module {
 public:
  AdaptiveAvgPool2d(std::optional<int64_t> out_h, std::optional<int64_t> out_w);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  std::optional<int64_t> output_size[2];
};

// The parameterless activations: one class, a kind and its arguments.
class Activation : public Module {
 public:
  enum class Kind { ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax, LogSoftmax };
  Activation(Kind kind, double arg = 0.0, int64_t dim = 0);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  Kind kind;
  double arg;            // LeakyReLU negative_slope, ELU alpha, GELU: 1 for "tanh"
  int64_t dim;           // Softmax / LogSoftmax
  bool inplace = false;  // ReLU, LeakyReLU, ELU, SiLU: torch's inplace=True (glia_nn_activation_set_inplace)
};

class Dropout : public Module {
 public:
  explicit Dropout(double p);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  double p;
};

class Flatten : public Module {
 public:
  Flatten(int64_t start_dim, int64_t end_dim);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  int64_t start_dim, end_dim;
};

class Unflatten : public Module {
 public:
  Unflatten(int64_t dim, std::vector<int64_t> sizes);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  int64_t dim;
  std::vector<int64_t> sizes;
};

// torchvision.transforms.Normalize(mean, std) (not in place).
class Normalize : public Module {
 public:
  Normalize(std::vector<double> mean, std::vector<double> std);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  std::vector<double> mean, std;
};

class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx,
            std::optional<double> max_norm, double norm_type, const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  int64_t num_embeddings, embedding_dim;
  std::optional<int64_t> padding_idx;  // resolved to [0, num_embeddings)
  std::optional<double> max_norm;
  double norm_type;
  bool scale_grad_by_freq = false;  // glia_nn_embedding_set_scale_grad_by_freq
};

}  // namespace glia::nn
