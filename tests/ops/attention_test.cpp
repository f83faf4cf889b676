// glia_multi_head_attention_forward against tests/golden/gen_transformer.py's ops/attention.json
// (inputs: query, key, value, in_proj_weight, in_proj_bias, bias_k, bias_v, out_proj_weight,
// out_proj_bias, key_padding_mask, attn_mask, q/k/v_proj_weight, static_k, static_v; NULL is None).
#include "ops/golden_support.h"

using namespace glia_ops_test;

GLIA_ADAPTER(multi_head_attention_forward) {
  auto in = [&](size_t i) -> const glia_tensor* { return i < c.in.size() ? c.in[i] : nullptr; };
  glia_multi_head_attention_options o;
  glia_multi_head_attention_options_init(&o);
  o.bias_k = in(5);
  o.bias_v = in(6);
  o.add_zero_attn = c.flag("add_zero_attn", false);
  o.dropout_p = c.num("dropout_p", 0.0);
  o.training = c.flag("training", true);
  o.key_padding_mask = in(9);
  o.need_weights = c.flag("need_weights", true);
  o.attn_mask = in(10);
  o.use_separate_proj_weight = c.flag("use_separate_proj_weight", false);
  o.q_proj_weight = in(11);
  o.k_proj_weight = in(12);
  o.v_proj_weight = in(13);
  o.static_k = in(14);
  o.static_v = in(15);
  o.average_attn_weights = c.flag("average_attn_weights", true);
  // One output without the weights (torch returns None for them).
  glia_tensor** outs = c.out(o.need_weights ? 2 : 1);
  return glia_multi_head_attention_forward(in(0), in(1), in(2), c.integer("embed_dim", 0), c.integer("num_heads", 1),
                                           in(3), in(4), in(7), in(8), &o, &outs[0],
                                           o.need_weights ? &outs[1] : nullptr);
}

TEST(Attention, Golden) { run_cases("attention.json"); }
TEST(Attention, Errors) { run_errors("attention.json"); }
