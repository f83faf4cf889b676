// torch.nn.functional.multi_head_attention_forward (torch 1.13), composed from
// differentiable ops (linear, bmm, baddbmm, softmax, dropout, cat, pad, where),
// so autograd, create_graph and every device follow from theirs.
#pragma once

#include <utility>

#include "autograd/node.h"

namespace glia {

// The arguments after query, key and value, with torch's names and defaults;
// an undefined Tensor is torch's None.
struct MhaArgs {
  int64_t embed_dim_to_check = 0;
  int64_t num_heads = 1;
  Tensor in_proj_weight, in_proj_bias, bias_k, bias_v;
  bool add_zero_attn = false;
  double dropout_p = 0.0;
  Tensor out_proj_weight, out_proj_bias;
  bool training = true;
  Tensor key_padding_mask;
  bool need_weights = true;
  Tensor attn_mask;
  bool use_separate_proj_weight = false;
  Tensor q_proj_weight, k_proj_weight, v_proj_weight, static_k, static_v;
  bool average_attn_weights = true;
};

// (attn_output, attn_output_weights); the weights are undefined when
// !need_weights. query [L, N, E] or unbatched [L, E]; key and value [S, N, *]
// or [S, *]. Torch's checks and texts: its AssertionErrors fail with
// InvalidArgument (DType for a mask's dtype), its RuntimeErrors with Shape.
std::pair<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       const MhaArgs& a);

}  // namespace glia
