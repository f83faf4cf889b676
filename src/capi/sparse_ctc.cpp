// C entry points of EmbeddingBag and the CTC loss (issue 21): glia_embedding_bag,
// glia_embedding_ex, glia_ctc_loss and the modules glia_nn_embedding_bag,
// glia_nn_ctc_loss, plus glia_nn_embedding_set_scale_grad_by_freq.
#include "autograd/fn/sparse_ctc.h"

#include <cmath>
#include <cstring>

#include "autograd/fn/nn.h"
#include "capi/api.h"
#include "capi/options.h"
#include "nn/modules/sparse_ctc.h"

using namespace glia;
using namespace glia::capi;

namespace {

ops::BagMode mode_arg(const char* mode) {
  if (!mode || std::strcmp(mode, "mean") == 0) return ops::BagMode::Mean;
  if (std::strcmp(mode, "sum") == 0) return ops::BagMode::Sum;
  if (std::strcmp(mode, "max") == 0) return ops::BagMode::Max;
  fail(Code::InvalidArgument, "mode has to be one of sum, mean or max");
}

std::optional<double> max_norm_arg(const double* max_norm, const char* fn) {
  if (!max_norm) return std::nullopt;
  GLIA_CHECK(!std::isnan(*max_norm), InvalidArgument, fn, ": max_norm is NaN");
  return *max_norm;
}

IntSpan lengths_arg(const int64_t* v, int64_t n, const char* fn, const char* arg, const char* n_arg) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument '", n_arg, "' is ", n, ", expected >= 0");
  GLIA_CHECK(v || n == 0, InvalidArgument, fn, ": argument '", arg, "' is NULL but '", n_arg, "' is ", n);
  return IntSpan(v, static_cast<size_t>(n));
}

}  // namespace

extern "C" {

glia_error* glia_embedding_ex(glia_tensor* weight, const glia_tensor* indices, const int64_t* padding_idx,
                              const double* max_norm, double norm_type, int32_t scale_grad_by_freq, glia_tensor** out) {
  const char* fn = "glia_embedding_ex";
  return guard([&] {
    Tensor w = tensor_arg(weight, fn, "weight");
    Tensor i = tensor_arg(indices, fn, "indices");
    check_out(out, fn, "out");
    std::optional<int64_t> pad;
    if (padding_idx) pad = *padding_idx;
    *out = tensor_handle(embedding(w, i, pad, max_norm_arg(max_norm, fn), norm_type, scale_grad_by_freq != 0));
  });
}

glia_error* glia_embedding_bag(glia_tensor* weight, const glia_tensor* input, const glia_tensor* offsets,
                               const double* max_norm, double norm_type, int32_t scale_grad_by_freq, const char* mode,
                               const glia_tensor* per_sample_weights, int32_t include_last_offset,
                               const int64_t* padding_idx, glia_tensor** out) {
  const char* fn = "glia_embedding_bag";
  return guard([&] {
    Tensor w = tensor_arg(weight, fn, "weight");
    Tensor in = tensor_arg(input, fn, "input");
    Tensor off = tensor_opt(offsets, fn, "offsets");
    Tensor psw = tensor_opt(per_sample_weights, fn, "per_sample_weights");
    check_out(out, fn, "out");
    std::optional<int64_t> pad;
    if (padding_idx) pad = *padding_idx;
    const ops::BagMode m = mode_arg(mode);
    *out = tensor_handle(embedding_bag(w, in, off, max_norm_arg(max_norm, fn), norm_type, scale_grad_by_freq != 0, m,
                                       psw, include_last_offset != 0, pad));
  });
}

glia_error* glia_ctc_loss(const glia_tensor* log_probs, const glia_tensor* targets, const int64_t* input_lengths,
                          int64_t n_input_lengths, const int64_t* target_lengths, int64_t n_target_lengths,
                          int64_t blank, glia_reduction reduction, int32_t zero_infinity, glia_tensor** out) {
  const char* fn = "glia_ctc_loss";
  return guard([&] {
    Tensor lp = tensor_arg(log_probs, fn, "log_probs");
    Tensor tg = tensor_arg(targets, fn, "targets");
    IntSpan il = lengths_arg(input_lengths, n_input_lengths, fn, "input_lengths", "n_input_lengths");
    IntSpan tl = lengths_arg(target_lengths, n_target_lengths, fn, "target_lengths", "n_target_lengths");
    const Reduction r = reduction_arg(reduction, fn);
    check_out(out, fn, "out");
    *out = tensor_handle(ctc_loss(lp, tg, il, tl, blank, r, zero_infinity != 0));
  });
}

glia_error* glia_nn_embedding_set_scale_grad_by_freq(glia_module* module, int32_t scale_grad_by_freq) {
  const char* fn = "glia_nn_embedding_set_scale_grad_by_freq";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    auto* e = dynamic_cast<nn::Embedding*>(m);
    GLIA_CHECK(e, InvalidArgument, fn, ": module is a ", m->type_name(), ", not an Embedding");
    e->scale_grad_by_freq = scale_grad_by_freq != 0;
  });
}

glia_error* glia_nn_embedding_bag(int64_t num_embeddings, int64_t embedding_dim, const double* max_norm,
                                  double norm_type, int32_t scale_grad_by_freq, const char* mode,
                                  int32_t include_last_offset, const int64_t* padding_idx,
                                  const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_embedding_bag";
  return module_entry(factory, out, fn, [&](const nn::Factory& f) -> nn::ModuleRef {
    std::optional<int64_t> pad;
    if (padding_idx) pad = *padding_idx;
    return make_ref<nn::EmbeddingBag>(num_embeddings, embedding_dim, max_norm_arg(max_norm, fn), norm_type,
                                      scale_grad_by_freq != 0, mode_arg(mode), include_last_offset != 0, pad, f);
  });
}

glia_error* glia_nn_ctc_loss(int64_t blank, glia_reduction reduction, int32_t zero_infinity,
                             const glia_factory_options* factory, glia_module** out) {
  const char* fn = "glia_nn_ctc_loss";
  return module_entry(factory, out, fn, [&](const nn::Factory&) -> nn::ModuleRef {
    return make_ref<nn::CTCLoss>(blank, reduction_arg(reduction, fn), zero_infinity != 0);
  });
}

}  // extern "C"
