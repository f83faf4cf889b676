// torch.nn.EmbeddingBag and torch.nn.CTCLoss (torch 1.13's arguments, init,
// parameter names and repr), over autograd/fn/sparse_ctc.h.
#pragma once

#include <optional>
#include <string>

#include "autograd/fn/sparse_ctc.h"
#include "nn/module.h"
#include "nn/modules/layers.h"

namespace glia::nn {

// torch.nn.EmbeddingBag(num_embeddings, embedding_dim, max_norm, norm_type,
// scale_grad_by_freq, mode, sparse=False, include_last_offset, padding_idx):
// weight [num, dim] normal(0, 1), the padding row zeroed. forward(input,
// offsets, per_sample_weights): offsets and per_sample_weights may be absent
// or undefined.
class EmbeddingBag : public Module {
 public:
  EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim, std::optional<double> max_norm, double norm_type,
               bool scale_grad_by_freq, ops::BagMode mode, bool include_last_offset, std::optional<int64_t> padding_idx,
               const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  int64_t num_embeddings, embedding_dim;
  std::optional<double> max_norm;
  double norm_type;
  bool scale_grad_by_freq, include_last_offset;
  ops::BagMode mode;
  std::optional<int64_t> padding_idx;  // resolved to [0, num_embeddings)
};

// torch.nn.CTCLoss(blank, reduction, zero_infinity). forward(log_probs,
// targets, input_lengths, target_lengths): the lengths are integral tensors
// (0-d or 1-d, on any device; read on the host).
class CTCLoss : public Module {
 public:
  CTCLoss(int64_t blank, Reduction reduction, bool zero_infinity)
      : Module("CTCLoss"), blank(blank), reduction(reduction), zero_infinity(zero_infinity) {}
  TensorList forward(const TensorList& inputs) override;
  int64_t blank;
  Reduction reduction;
  bool zero_infinity;
};

// The host values of an integral lengths tensor (torch's "<what> must be
// integral" otherwise).
std::vector<int64_t> lengths_of(const Tensor& t, const char* what);

}  // namespace glia::nn
