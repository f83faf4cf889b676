// EmbeddingBag and CTC loss: the meta parts (torch 1.13's checks and messages,
// output allocation on the inputs' device); their CPU kernels are in
// ops/cpu/sparse_ctc.cpp.
#pragma once

#include "core/tensor.h"

namespace glia::ops {

// torch's embedding_bag modes (its mode_enum).
enum class BagMode : int64_t { Sum = 0, Mean = 1, Max = 2 };

// torch.embedding_bag's forward on 1-D indices and offsets (int64, on weight's
// device): *out [bags, dim] (bags = offsets' size, minus 1 with
// include_last_offset) and, in mode max, *max_indices int64 [bags, dim] (the
// row each maximum came from, -1 in an empty bag; otherwise left undefined).
// per_sample_weights: undefined or [n] of weight's dtype (mode sum). padding_idx
// in [0, num) or -1. Data checks (offsets[0] == 0, offsets[-1] <= n, indices
// in range) run in the kernel with torch's messages.
void embedding_bag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, const Tensor& per_sample_weights,
                   BagMode mode, bool include_last_offset, int64_t padding_idx, Tensor* out, Tensor* max_indices);
// The gradient of embedding_bag's output w.r.t. weight ([num_weights, dim]).
Tensor embedding_bag_backward(const Tensor& grad, const Tensor& indices, const Tensor& offsets,
                              const Tensor& per_sample_weights, const Tensor& max_indices, int64_t num_weights,
                              BagMode mode, bool include_last_offset, int64_t padding_idx, bool scale_grad_by_freq);
// The gradient w.r.t. per_sample_weights ([n]): grad[bag(i)] . weight[indices[i]].
Tensor embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices,
                                                 const Tensor& offsets, bool include_last_offset, int64_t padding_idx);

// torch._ctc_loss on the CPU: log_probs [T, B, C] float32/float64, targets
// int64 [sum(target_lengths)] (concatenated) or [B, S] (padded), one input and
// target length per batch element. *nll [B] (the negative log likelihoods),
// *log_alpha [B, T, 2 * max(target_lengths) + 1].
void ctc_loss(const Tensor& log_probs, const Tensor& targets, IntSpan input_lengths, IntSpan target_lengths,
              int64_t blank, Tensor* nll, Tensor* log_alpha);
// torch's ctc_loss_backward_cpu: the gradient [T, B, C] for grad [B] of nll
// (torch's formula: exp(log_probs) - exp(log(alpha beta) + nll - log_probs),
// which assumes log_probs came out of a log_softmax); zero after each input
// length and, with zero_infinity, for an infinite nll.
Tensor ctc_loss_backward(const Tensor& grad, const Tensor& log_probs, const Tensor& targets, IntSpan input_lengths,
                         IntSpan target_lengths, const Tensor& nll, const Tensor& log_alpha, int64_t blank,
                         bool zero_infinity);

}  // namespace glia::ops
