// Normalisation (batch, layer and group norm), embedding, dropout and
// torchvision's normalize: fused kernels without autograd (autograd/fn/norm.h
// and fn/nn.h wrap them). The normalisations and normalize are meta parts of
// device kernels (results on x's device; ops/cpu/norm.cpp, nn.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "core/tensor.h"

namespace glia::ops {

// A normalisation's result: the output and, per normalised group, the mean and
// the reciprocal standard deviation (float64; what backward needs).
struct NormOut {
  Tensor out, mean, rstd;
};
// Gradients w.r.t. input (input's dtype), weight and bias (float64; the caller
// converts them to the parameters' dtypes). Undefined where not asked for.
struct NormGrads {
  Tensor input, weight, bias;
};
using GradMask = std::array<bool, 3>;  // input, weight, bias

// torch.nn.functional.batch_norm on [N, C, *]. Training normalises with the
// batch statistics and, where given, updates the running statistics in place:
// running = (1 - momentum) * running + momentum * batch (unbiased variance);
// eval normalises with the running statistics (rstd = 1/sqrt(running_var + eps)).
// Validates everything before touching the running statistics.
NormOut batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                   const Tensor& running_var, bool training, double momentum, double eps);
NormGrads batch_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& mean,
                              const Tensor& rstd, bool training, GradMask mask);

// torch.nn.functional.layer_norm: normalises over the trailing dims `normalized_shape`.
NormOut layer_norm(const Tensor& x, IntSpan normalized_shape, const Tensor& weight, const Tensor& bias, double eps);
NormGrads layer_norm_backward(const Tensor& dy, const Tensor& x, IntSpan normalized_shape, const Tensor& mean,
                              const Tensor& rstd, const Tensor& weight, GradMask mask);

// torch.nn.functional.group_norm on [N, C, *].
NormOut group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps);
NormGrads group_norm_backward(const Tensor& dy, const Tensor& x, int64_t num_groups, const Tensor& mean,
                              const Tensor& rstd, const Tensor& weight, GradMask mask);

// torch.nn.functional.embedding: rows of `weight` ([num, dim]) picked by
// `indices` (int64 or int32): shape indices.shape + [dim]. padding_idx (already
// wrapped to [0, num)) only matters for the gradient.
void check_embedding(const Tensor& weight, const Tensor& indices);
Tensor embedding(const Tensor& weight, const Tensor& indices);
// torch.embedding_renorm_: rows referenced by `indices` whose norm_type-norm
// exceeds max_norm are scaled by max_norm / (norm + 1e-7), in place.
void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm, double norm_type);
// Scatter-add of grad rows into a [num, dim] zero tensor; row padding_idx (if >= 0) gets none.
Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx);

// Dropout's noise: a tensor of x's shape and dtype holding 1/(1-p) where an
// element is kept (probability 1 - p, glia's generator) and 0 where dropped.
Tensor dropout_noise(const Tensor& x, double p);

// torchvision.transforms.functional.normalize on [..., C, H, W]: (x - mean[c]) / std[c],
// rounded to x's dtype after each step as torchvision's sub_/div_ do. `std_out`
// receives std as a [C', 1, 1] tensor of x's dtype on x's device (C' = number of std values), for backward.
Tensor normalize(const Tensor& x, std::span<const double> mean, std::span<const double> std, Tensor* std_out);

}  // namespace glia::ops
