// torch.nn's 1-D and 3-D pools: MaxPool1d, AvgPool1d, MaxPool3d, AvgPool3d, AdaptiveAvgPool1d,
// AdaptiveAvgPool3d (the 2-D ones are in nn/modules/layers.h). Thin modules over autograd/fn/pool.h
// with torch's extra_repr.
#pragma once

#include <optional>
#include <string>

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

}  // namespace glia::nn
