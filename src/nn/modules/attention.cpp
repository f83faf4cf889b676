// MultiheadAttention (torch/nn/modules/activation.py of torch 1.13).
#include "nn/modules/attention.h"

#include "autograd/fn/attention.h"
#include "autograd/functions.h"
#include "nn/init.h"
#include "nn/modules/layers.h"

namespace glia::nn {

namespace {

struct PendingFlags {
  const Module* target = nullptr;
  bool need_weights = true;
  bool average = true;
};
thread_local PendingFlags pending;

}  // namespace

MhaCallFlags::MhaCallFlags(const Module* target, bool need_weights, bool average_attn_weights)
    : saved_target_(pending.target), saved_need_(pending.need_weights), saved_average_(pending.average) {
  pending = PendingFlags{target, need_weights, average_attn_weights};
}

MhaCallFlags::~MhaCallFlags() { pending = PendingFlags{saved_target_, saved_need_, saved_average_}; }

std::pair<bool, bool> MhaCallFlags::take(const Module* m) {
  if (pending.target != m) return {true, true};
  pending.target = nullptr;
  return {pending.need_weights, pending.average};
}

MultiheadAttention::MultiheadAttention(int64_t e, int64_t h, const MhaOptions& o, const Factory& f)
    : Module("MultiheadAttention"),
      embed_dim(e),
      num_heads(h),
      kdim(o.kdim >= 0 ? o.kdim : e),
      vdim(o.vdim >= 0 ? o.vdim : e),
      head_dim(0),
      qkv_same_embed_dim(false),
      options(o) {
  qkv_same_embed_dim = kdim == e && vdim == e;
  // torch: embed_dim // num_heads (Python's floor division; 0 raises ZeroDivisionError).
  GLIA_CHECK(h != 0, InvalidArgument, "integer division or modulo by zero");
  head_dim = e / h;
  if (e % h != 0 && ((e < 0) != (h < 0))) --head_dim;
  GLIA_CHECK(head_dim * h == e, InvalidArgument, "embed_dim must be divisible by num_heads");
  if (!qkv_same_embed_dim) {
    check_param_shape(Dims{e, e});
    check_param_shape(Dims{e, kdim});
    check_param_shape(Dims{e, vdim});
    register_parameter("q_proj_weight", empty(Dims{e, e}, f.dtype, f.device));
    register_parameter("k_proj_weight", empty(Dims{e, kdim}, f.dtype, f.device));
    register_parameter("v_proj_weight", empty(Dims{e, vdim}, f.dtype, f.device));
    register_parameter("in_proj_weight", Tensor());
  } else {
    check_param_shape(Dims{3 * e, e});
    register_parameter("in_proj_weight", empty(Dims{3 * e, e}, f.dtype, f.device));
    register_parameter("q_proj_weight", Tensor());
    register_parameter("k_proj_weight", Tensor());
    register_parameter("v_proj_weight", Tensor());
  }
  register_parameter("in_proj_bias", o.bias ? empty(Dims{3 * e}, f.dtype, f.device) : Tensor());
  // torch builds out_proj here, so its default init draws before _reset_parameters.
  register_module("out_proj", make_ref<Linear>("NonDynamicallyQuantizableLinear", e, e, o.bias, f));
  if (o.add_bias_kv) {
    register_parameter("bias_k", empty(Dims{1, 1, e}, f.dtype, f.device));
    register_parameter("bias_v", empty(Dims{1, 1, e}, f.dtype, f.device));
  }
  maybe_reset(*this);
}

// torch's _reset_parameters.
void MultiheadAttention::reset_parameters() {
  if (qkv_same_embed_dim) {
    init::xavier_uniform_(param("in_proj_weight"));
  } else {
    init::xavier_uniform_(param("q_proj_weight"));
    init::xavier_uniform_(param("k_proj_weight"));
    init::xavier_uniform_(param("v_proj_weight"));
  }
  if (const Tensor& b = param("in_proj_bias"); b.defined()) {
    init::constant_(b, 0.0);
    ModuleRef* out = find_child("out_proj");
    if (out && *out) {
      const Tensor& ob = (*out)->param("bias");
      if (ob.defined()) init::constant_(ob, 0.0);
    }
  }
  if (options.add_bias_kv) {
    init::xavier_normal_(param("bias_k"));
    init::xavier_normal_(param("bias_v"));
  }
}

std::pair<Tensor, Tensor> MultiheadAttention::attend(const Tensor& query_in, const Tensor& key_in,
                                                     const Tensor& value_in, const Tensor& key_padding_mask,
                                                     bool need_weights, const Tensor& attn_mask,
                                                     bool average_attn_weights) {
  if (key_padding_mask.defined())
    GLIA_CHECK(key_padding_mask.dtype() == DType::Bool || is_floating(key_padding_mask.dtype()), InvalidArgument,
               "only bool and floating types of key_padding_mask are supported");
  const bool is_batched = query_in.dim() == 3;
  Tensor query = query_in, key = key_in, value = value_in;
  if (options.batch_first && is_batched) {
    // One transpose for a tensor passed twice, so attention still sees it as the same.
    query = transpose(query_in, 1, 0);
    key = key_in.is_same(query_in) ? query : transpose(key_in, 1, 0);
    value = value_in.is_same(key_in) ? key : value_in.is_same(query_in) ? query : transpose(value_in, 1, 0);
  }
  ModuleRef* out = find_child("out_proj");
  GLIA_CHECK(out && *out, InvalidArgument, "MultiheadAttention.forward: out_proj is None");
  MhaArgs a;
  a.embed_dim_to_check = embed_dim;
  a.num_heads = num_heads;
  a.in_proj_weight = param("in_proj_weight");
  a.in_proj_bias = param("in_proj_bias");
  if (options.add_bias_kv) {
    a.bias_k = param("bias_k");
    a.bias_v = param("bias_v");
  }
  a.add_zero_attn = options.add_zero_attn;
  a.dropout_p = options.dropout;
  a.out_proj_weight = (*out)->param("weight");
  a.out_proj_bias = (*out)->param("bias");
  a.training = is_training();
  a.key_padding_mask = key_padding_mask;
  a.need_weights = need_weights;
  a.attn_mask = attn_mask;
  a.average_attn_weights = average_attn_weights;
  if (!qkv_same_embed_dim) {
    a.use_separate_proj_weight = true;
    a.q_proj_weight = param("q_proj_weight");
    a.k_proj_weight = param("k_proj_weight");
    a.v_proj_weight = param("v_proj_weight");
  }
  auto [o, w] = multi_head_attention_forward(query, key, value, a);
  if (options.batch_first && is_batched) o = transpose(o, 1, 0);
  return {o, w};
}

TensorList MultiheadAttention::forward(const TensorList& inputs) {
  auto [need_weights, average] = MhaCallFlags::take(this);
  GLIA_CHECK(
      inputs.size() >= 3 && inputs.size() <= 5, InvalidArgument,
      "MultiheadAttention.forward: expected 3 to 5 inputs (query, key, value, key_padding_mask, attn_mask), got ",
      inputs.size());
  for (size_t i = 0; i < 3; ++i)
    GLIA_CHECK(inputs[i].defined(), InvalidArgument, "MultiheadAttention.forward: input ", i + 1, " of ", inputs.size(),
               " is None, expected a Tensor");
  Tensor kpm = inputs.size() > 3 ? inputs[3] : Tensor();
  Tensor mask = inputs.size() > 4 ? inputs[4] : Tensor();
  auto [o, w] = attend(inputs[0], inputs[1], inputs[2], kpm, need_weights, mask, average);
  return {o, w};
}

}  // namespace glia::nn
