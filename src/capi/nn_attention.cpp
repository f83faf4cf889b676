// glia_multi_head_attention_forward (autograd/fn/attention.h) and
// glia_nn_multihead_attention (nn/modules/attention.h).
#include "autograd/fn/attention.h"
#include "capi/api.h"
#include "capi/options.h"
#include "nn/modules/attention.h"

using namespace glia;
using namespace glia::capi;

extern "C" {

void glia_multi_head_attention_options_init(glia_multi_head_attention_options* o) {
  if (!o) return;
  *o = glia_multi_head_attention_options{};
  o->struct_size = sizeof(*o);
  o->training = 1;
  o->need_weights = 1;
  o->average_attn_weights = 1;
}

glia_error* glia_multi_head_attention_forward(const glia_tensor* query, const glia_tensor* key,
                                              const glia_tensor* value, int64_t embed_dim_to_check, int64_t num_heads,
                                              const glia_tensor* in_proj_weight, const glia_tensor* in_proj_bias,
                                              const glia_tensor* out_proj_weight, const glia_tensor* out_proj_bias,
                                              const glia_multi_head_attention_options* options, glia_tensor** out,
                                              glia_tensor** out_weights) {
  const char* fn = "glia_multi_head_attention_forward";
  return guard([&] {
    Tensor q = tensor_arg(query, fn, "query");
    Tensor k = tensor_arg(key, fn, "key");
    Tensor v = tensor_arg(value, fn, "value");
    MhaArgs a;
    a.embed_dim_to_check = embed_dim_to_check;
    a.num_heads = num_heads;
    a.in_proj_weight = tensor_opt(in_proj_weight, fn, "in_proj_weight");
    a.in_proj_bias = tensor_opt(in_proj_bias, fn, "in_proj_bias");
    a.out_proj_weight = tensor_arg(out_proj_weight, fn, "out_proj_weight");
    a.out_proj_bias = tensor_opt(out_proj_bias, fn, "out_proj_bias");
    if (options) {
      check_struct_size(options, fn, "glia_multi_head_attention_options_init");
      if (GLIA_COVERS(options, bias_k)) a.bias_k = tensor_opt(options->bias_k, fn, "options->bias_k");
      if (GLIA_COVERS(options, bias_v)) a.bias_v = tensor_opt(options->bias_v, fn, "options->bias_v");
      GLIA_READ_FLAG(options, add_zero_attn, a.add_zero_attn);
      GLIA_READ(options, dropout_p, a.dropout_p);
      GLIA_READ_FLAG(options, training, a.training);
      if (GLIA_COVERS(options, key_padding_mask))
        a.key_padding_mask = tensor_opt(options->key_padding_mask, fn, "options->key_padding_mask");
      GLIA_READ_FLAG(options, need_weights, a.need_weights);
      if (GLIA_COVERS(options, attn_mask)) a.attn_mask = tensor_opt(options->attn_mask, fn, "options->attn_mask");
      GLIA_READ_FLAG(options, use_separate_proj_weight, a.use_separate_proj_weight);
      if (GLIA_COVERS(options, q_proj_weight))
        a.q_proj_weight = tensor_opt(options->q_proj_weight, fn, "options->q_proj_weight");
      if (GLIA_COVERS(options, k_proj_weight))
        a.k_proj_weight = tensor_opt(options->k_proj_weight, fn, "options->k_proj_weight");
      if (GLIA_COVERS(options, v_proj_weight))
        a.v_proj_weight = tensor_opt(options->v_proj_weight, fn, "options->v_proj_weight");
      if (GLIA_COVERS(options, static_k)) a.static_k = tensor_opt(options->static_k, fn, "options->static_k");
      if (GLIA_COVERS(options, static_v)) a.static_v = tensor_opt(options->static_v, fn, "options->static_v");
      GLIA_READ_FLAG(options, average_attn_weights, a.average_attn_weights);
    }
    check_out(out, fn, "out");
    auto [o, w] = multi_head_attention_forward(q, k, v, a);
    *out = tensor_handle(o);
    if (out_weights) *out_weights = w.defined() ? tensor_handle(w) : nullptr;
  });
}

void glia_nn_multihead_attention_options_init(glia_nn_multihead_attention_options* o) {
  if (!o) return;
  *o = glia_nn_multihead_attention_options{};
  o->struct_size = sizeof(*o);
  o->bias = 1;
  o->kdim = -1;
  o->vdim = -1;
}

glia_error* glia_nn_multihead_attention(int64_t embed_dim, int64_t num_heads,
                                        const glia_nn_multihead_attention_options* options,
                                        const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_multihead_attention";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) -> nn::ModuleRef {
    nn::MhaOptions o;
    if (options) {
      check_struct_size(options, fn, "glia_nn_multihead_attention_options_init");
      GLIA_READ(options, dropout, o.dropout);
      GLIA_READ_FLAG(options, bias, o.bias);
      GLIA_READ_FLAG(options, add_bias_kv, o.add_bias_kv);
      GLIA_READ_FLAG(options, add_zero_attn, o.add_zero_attn);
      GLIA_READ(options, kdim, o.kdim);
      GLIA_READ(options, vdim, o.vdim);
      GLIA_READ_FLAG(options, batch_first, o.batch_first);
    }
    GLIA_CHECK(o.kdim >= -1 && o.vdim >= -1, InvalidArgument, fn, ": kdim and vdim must be >= 0 or -1 (None), got ",
               o.kdim, " and ", o.vdim);
    return make_ref<nn::MultiheadAttention>(embed_dim, num_heads, o, f);
  });
}

glia_error* glia_nn_multihead_attention_forward(glia_module* module, const glia_tensor* query, const glia_tensor* key,
                                                const glia_tensor* value, const glia_tensor* key_padding_mask,
                                                int32_t need_weights, const glia_tensor* attn_mask,
                                                int32_t average_attn_weights, glia_tensor** out,
                                                glia_tensor** out_weights) {
  const char* fn = "glia_nn_multihead_attention_forward";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    GLIA_CHECK(dynamic_cast<nn::MultiheadAttention*>(m.get()) != nullptr, InvalidArgument, fn,
               ": argument 'module' is a ", m->type_name(), ", expected a MultiheadAttention");
    TensorList xs{tensor_arg(query, fn, "query"), tensor_arg(key, fn, "key"), tensor_arg(value, fn, "value"),
                  tensor_opt(key_padding_mask, fn, "key_padding_mask"), tensor_opt(attn_mask, fn, "attn_mask")};
    check_out(out, fn, "out");
    TensorList ys;
    {
      nn::MhaCallFlags flags(m.get(), need_weights != 0, average_attn_weights != 0);
      ys = m->call(xs);
    }
    GLIA_CHECK(!ys.empty() && ys[0].defined(), Callback, fn, ": a forward hook returned no attn_output");
    *out = tensor_handle(ys[0]);
    if (out_weights) *out_weights = ys.size() > 1 && ys[1].defined() ? tensor_handle(ys[1]) : nullptr;
  });
}

}  // extern "C"
