// EmbeddingBag and the CTC loss (torch 1.13): torch.nn.functional's argument
// checks and messages, then the ops of ops/sparse_ctc.h with their autograd
// nodes (EmbeddingBagBackward0, CtcLossBackward0).
#pragma once

#include <optional>

#include "autograd/node.h"
#include "ops/loss.h"
#include "ops/sparse_ctc.h"

namespace glia {

// torch.nn.functional.embedding_bag(input, weight, offsets, max_norm,
// norm_type, scale_grad_by_freq, mode, sparse=False, per_sample_weights,
// include_last_offset, padding_idx). offsets and per_sample_weights may be
// undefined (None). With max_norm the referenced rows of weight are
// renormalised in place first (not recorded by autograd). Gradients flow to
// weight and per_sample_weights.
Tensor embedding_bag(const Tensor& weight, const Tensor& input, const Tensor& offsets, std::optional<double> max_norm,
                     double norm_type, bool scale_grad_by_freq, ops::BagMode mode, const Tensor& per_sample_weights,
                     bool include_last_offset, std::optional<int64_t> padding_idx);

// torch.nn.functional.ctc_loss(log_probs, targets, input_lengths,
// target_lengths, blank, reduction, zero_infinity): log_probs [T, B, C] or
// unbatched [T, C]; targets (any integral or floating dtype, converted to
// int64) [sum(target_lengths)] or [B, S]; mean divides each loss by its
// target length (at least 1) and averages. Gradient to log_probs.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntSpan input_lengths, IntSpan target_lengths,
                int64_t blank, Reduction reduction, bool zero_infinity);

}  // namespace glia
