#include "nn/modules/norm.h"

#include <charconv>
#include <cmath>

#include "autograd/functions.h"
#include "autograd/grad_mode.h"
#include "nn/init.h"

namespace glia::nn {

// ---- BatchNorm -------------------------------------------------------------------

BatchNorm::BatchNorm(int spatial_dims, int64_t num_features, const BatchNormOptions& options, const Factory& f)
    : Module(spatial_dims == 1   ? "BatchNorm1d"
             : spatial_dims == 2 ? "BatchNorm2d"
                                 : "BatchNorm3d"),
      spatial_dims_(spatial_dims),
      num_features_(num_features),
      options_(options) {
  GLIA_CHECK(num_features >= 0, InvalidArgument, "Trying to create tensor with negative dimension ", num_features,
             ": [", num_features, "]");
  Dims shape{num_features};
  if (options.affine) {
    register_parameter("weight", empty(shape, f.dtype, f.device));
    register_parameter("bias", empty(shape, f.dtype, f.device));
  } else {
    register_parameter("weight", Tensor());
    register_parameter("bias", Tensor());
  }
  if (options.track_running_stats) {
    register_buffer("running_mean", zeros(shape, f.dtype, f.device));
    register_buffer("running_var", ones(shape, f.dtype, f.device));
    register_buffer("num_batches_tracked", zeros({}, DType::Int64, f.device));
  } else {
    register_buffer("running_mean", Tensor());
    register_buffer("running_var", Tensor());
    register_buffer("num_batches_tracked", Tensor());
  }
  maybe_reset(*this);
}

void BatchNorm::reset_running_stats() {
  if (!options_.track_running_stats) return;
  init::zeros_(buffer("running_mean"));
  init::ones_(buffer("running_var"));
  init::zeros_(buffer("num_batches_tracked"));
}

void BatchNorm::reset_parameters() {
  reset_running_stats();
  if (options_.affine) {
    init::ones_(param("weight"));
    init::zeros_(param("bias"));
  }
}

TensorList BatchNorm::forward(const TensorList& inputs) {
  check_num_inputs(inputs, 1);
  const Tensor& x = inputs[0];
  GLIA_CHECK(x.defined(), InvalidArgument, type_name(), ".forward: input is None");
  int64_t d = x.dim();
  if (spatial_dims_ == 1)
    GLIA_CHECK(d == 2 || d == 3, InvalidArgument, "expected 2D or 3D input (got ", d, "D input)");
  else
    GLIA_CHECK(d == spatial_dims_ + 2, InvalidArgument, "expected ", spatial_dims_ + 2, "D input (got ", d, "D input)");
  double factor = options_.momentum.value_or(0.0);
  const Tensor& rm = buffer("running_mean");
  const Tensor& rv = buffer("running_var");
  if (training_ && options_.track_running_stats) {
    const Tensor& nbt = buffer("num_batches_tracked");
    if (nbt.defined()) {
      int64_t n = item_int64(nbt) + 1;
      fill(nbt, static_cast<double>(n));
      bump_version(nbt);
      if (!options_.momentum) factor = 1.0 / static_cast<double>(n);
    }
  }
  bool bn_training = training_ || (!rm.defined() && !rv.defined());
  bool pass_stats = !training_ || options_.track_running_stats;
  return {batch_norm(x, pass_stats ? rm : Tensor(), pass_stats ? rv : Tensor(), param("weight"), param("bias"),
                     bn_training, factor, options_.eps)};
}

std::string BatchNorm::extra_repr() const {
  return std::to_string(num_features_) + ", eps=" + py_float(options_.eps) +
         ", momentum=" + (options_.momentum ? py_float(*options_.momentum) : std::string("None")) +
         ", affine=" + py_bool(options_.affine) + ", track_running_stats=" + py_bool(options_.track_running_stats);
}

// ---- LayerNorm -------------------------------------------------------------------

LayerNorm::LayerNorm(IntSpan normalized_shape, double eps, bool elementwise_affine, bool bias, const Factory& f)
    : Module("LayerNorm"), normalized_shape_(normalized_shape), eps_(eps), elementwise_affine_(elementwise_affine) {
  check_shape("LayerNorm", normalized_shape);
  if (elementwise_affine) {
    register_parameter("weight", empty(normalized_shape, f.dtype, f.device));
    register_parameter("bias", bias ? empty(normalized_shape, f.dtype, f.device) : Tensor());
  } else {
    register_parameter("weight", Tensor());
    register_parameter("bias", Tensor());
  }
  maybe_reset(*this);
}

void LayerNorm::reset_parameters() {
  if (!elementwise_affine_) return;
  init::ones_(param("weight"));
  if (param("bias").defined()) init::zeros_(param("bias"));
}

TensorList LayerNorm::forward(const TensorList& inputs) {
  check_num_inputs(inputs, 1);
  GLIA_CHECK(inputs[0].defined(), InvalidArgument, "LayerNorm.forward: input is None");
  return {layer_norm(inputs[0], normalized_shape_, param("weight"), param("bias"), eps_)};
}

std::string LayerNorm::extra_repr() const {
  std::string s = "(";
  for (size_t i = 0; i < normalized_shape_.size(); ++i) s += (i ? ", " : "") + std::to_string(normalized_shape_[i]);
  if (normalized_shape_.size() == 1) s += ",";
  s += ")";
  return s + ", eps=" + py_float(eps_) + ", elementwise_affine=" + py_bool(elementwise_affine_);
}

// ---- GroupNorm -------------------------------------------------------------------

GroupNorm::GroupNorm(int64_t num_groups, int64_t num_channels, double eps, bool affine, const Factory& f)
    : Module("GroupNorm"), num_groups_(num_groups), num_channels_(num_channels), eps_(eps), affine_(affine) {
  GLIA_CHECK(num_groups != 0, InvalidArgument, "integer division or modulo by zero");
  GLIA_CHECK(num_channels % num_groups == 0, InvalidArgument, "num_channels must be divisible by num_groups");
  GLIA_CHECK(num_channels >= 0, InvalidArgument, "Trying to create tensor with negative dimension ", num_channels,
             ": [", num_channels, "]");
  if (affine) {
    register_parameter("weight", empty(Dims{num_channels}, f.dtype, f.device));
    register_parameter("bias", empty(Dims{num_channels}, f.dtype, f.device));
  } else {
    register_parameter("weight", Tensor());
    register_parameter("bias", Tensor());
  }
  maybe_reset(*this);
}

void GroupNorm::reset_parameters() {
  if (!affine_) return;
  init::ones_(param("weight"));
  init::zeros_(param("bias"));
}

TensorList GroupNorm::forward(const TensorList& inputs) {
  check_num_inputs(inputs, 1);
  GLIA_CHECK(inputs[0].defined(), InvalidArgument, "GroupNorm.forward: input is None");
  return {group_norm(inputs[0], num_groups_, param("weight"), param("bias"), eps_)};
}

std::string GroupNorm::extra_repr() const {
  return std::to_string(num_groups_) + ", " + std::to_string(num_channels_) + ", eps=" + py_float(eps_) +
         ", affine=" + py_bool(affine_);
}

}  // namespace glia::nn
