// torch.nn's 1-D and 3-D pools: MaxPool1d, AvgPool1d, MaxPool3d, AvgPool3d, AdaptiveAvgPool1d,
// AdaptiveAvgPool3d (the 2-D ones are in nn/modules/layers.h). Thin modules over autograd/fn/pool.h
// with torch's extra_repr.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autograd/fn/pool.h"
#include "nn/module.h"

namespace glia::nn {

class MaxPool1d : public Module {
 public:
  explicit MaxPool1d(const MaxPool1dOptions& o);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  MaxPool1dOptions options;  // stride already resolved (0 -> kernel_size)
};

class AvgPool1d : public Module {
 public:
  explicit AvgPool1d(const AvgPool1dOptions& o);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  AvgPool1dOptions options;  // stride already resolved
};

class MaxPool3d : public Module {
 public:
  explicit MaxPool3d(const MaxPool3dOptions& o);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  MaxPool3dOptions options;  // stride already resolved
};

class AvgPool3d : public Module {
 public:
  explicit AvgPool3d(const AvgPool3dOptions& o);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  AvgPool3dOptions options;  // stride already resolved
};

class AdaptiveAvgPool1d : public Module {
 public:
  explicit AdaptiveAvgPool1d(int64_t out_l);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  int64_t output_size;
};

// output_size entries: nullopt is torch's None (keep the input's size).
class AdaptiveAvgPool3d : public Module {
 public:
  AdaptiveAvgPool3d(std::optional<int64_t> t, std::optional<int64_t> h, std::optional<int64_t> w);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  std::optional<int64_t> output_size[3];
};

// AdaptiveMaxPool1d / 2d / 3d (by the number of sizes); a size not `given` is torch's None (keep the
// input's). The module returns the values only (return_indices=False).
class AdaptiveMaxPool : public Module {
 public:
  AdaptiveMaxPool(Dims sizes, std::vector<bool> given);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  Dims output_size;
  std::vector<bool> given;
};

// LPPool1d / LPPool2d (dims 1 or 2); stride {0, 0}: torch's None.
class LPPool : public Module {
 public:
  LPPool(int dims, double norm_type, const int64_t kernel_size[2], const int64_t stride[2], bool ceil_mode);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  int dims;
  double norm_type;
  int64_t kernel_size[2], stride[2];
  bool ceil_mode;
};

}  // namespace glia::nn
