#pragma once

#include <optional>
#include <span>

#include "autograd/node.h"

namespace glia {

// torch.nn.functional.embedding(indices, weight, padding_idx, max_norm, norm_type).
// padding_idx in [-num, num) (negative counts from the end); its row gets no
// gradient. With max_norm the referenced rows of weight are renormalised in
// place first (not recorded by autograd), as torch does. scale_grad_by_freq
// divides each row's gradient by its index's count among the indices.
Tensor embedding(const Tensor& weight, const Tensor& indices, std::optional<int64_t> padding_idx = std::nullopt,
                 std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
                 bool scale_grad_by_freq = false);
// torch.nn.functional.dropout: in training, zeroes elements with probability p
// (glia's generator) and scales the rest by 1 / (1 - p); eval, p = 0 or an
// empty x return x itself.
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true);
// torchvision.transforms.functional.normalize on [..., C, H, W].
Tensor normalize(const Tensor& x, std::span<const double> mean, std::span<const double> std);

}  // namespace glia
