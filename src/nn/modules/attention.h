// torch.nn.MultiheadAttention (torch 1.13): parameters, init, state-dict keys
// and repr as torch's; forward is F.multi_head_attention_forward
// (autograd/fn/attention.h). The Transformer layers are composed over this
// module, Linear, LayerNorm and Dropout by the bindings, as torch composes
// them in Python (docs/c-api.md, "Attention and transformers").
//
// Note [MultiheadAttention through glia_module_forward]: torch's forward is
// (query, key, value, key_padding_mask=None, need_weights=True,
// attn_mask=None, average_attn_weights=True) -> (attn_output,
// attn_output_weights). Through glia_module_forward the inputs are [query,
// key, value, key_padding_mask, attn_mask] (the last two may be NULL or left
// out: None) and the outputs [attn_output, attn_output_weights] with torch's
// defaults need_weights=True, average_attn_weights=True.
// glia_nn_multihead_attention_forward takes the two flags too: it runs the
// same call (hooks included) with the flags handed to forward through
// MhaCallFlags; the weights are then NULL when need_weights is false.
#pragma once

#include <string>
#include <utility>

#include "nn/module.h"

namespace glia::nn {

struct MhaOptions {
  double dropout = 0.0;
  bool bias = true;
  bool add_bias_kv = false;
  bool add_zero_attn = false;
  int64_t kdim = -1;  // -1: None (embed_dim)
  int64_t vdim = -1;
  bool batch_first = false;
};

class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, const MhaOptions& o, const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  void reset_parameters() override;
  // torch's forward with every argument (no hooks: call() runs them around forward).
  std::pair<Tensor, Tensor> attend(const Tensor& query, const Tensor& key, const Tensor& value,
                                   const Tensor& key_padding_mask, bool need_weights, const Tensor& attn_mask,
                                   bool average_attn_weights);
  int64_t embed_dim, num_heads, kdim, vdim, head_dim;
  bool qkv_same_embed_dim;
  MhaOptions options;
};

// The flags of one glia_nn_multihead_attention_forward call, for the forward
// of `target` that call() runs on this thread (Note [MultiheadAttention
// through glia_module_forward]). Restores the previous flags when destroyed.
class MhaCallFlags {
 public:
  MhaCallFlags(const Module* target, bool need_weights, bool average_attn_weights);
  ~MhaCallFlags();
  MhaCallFlags(const MhaCallFlags&) = delete;
  MhaCallFlags& operator=(const MhaCallFlags&) = delete;
  // The flags for `m`'s forward: the pending ones when `m` is their target (taken: a nested call
  // of the same module from a hook gets torch's defaults), else torch's defaults (true, true).
  static std::pair<bool, bool> take(const Module* m);

 private:
  const Module* saved_target_;
  bool saved_need_, saved_average_;
};

}  // namespace glia::nn
