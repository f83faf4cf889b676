// torch.nn.EmbeddingBag and torch.nn.CTCLoss.
#include "nn/modules/sparse_ctc.h"

#include "autograd/grad_mode.h"
#include "nn/init.h"

namespace glia::nn {

EmbeddingBag::EmbeddingBag(int64_t num, int64_t dim, std::optional<double> mn, double nt, bool freq, ops::BagMode m,
                           bool last, std::optional<int64_t> pad, const Factory& f)
    : Module("EmbeddingBag"),
      num_embeddings(num),
      embedding_dim(dim),
      max_norm(mn),
      norm_type(nt),
      scale_grad_by_freq(freq),
      include_last_offset(last),
      mode(m) {
  if (pad) {
    GLIA_CHECK(*pad < num, InvalidArgument, "padding_idx must be within num_embeddings");
    GLIA_CHECK(*pad >= -num, InvalidArgument, "padding_idx must be within num_embeddings");
    padding_idx = *pad < 0 ? *pad + num : *pad;
  }
  check_param_shape(Dims{num, dim});
  register_parameter("weight", empty(Dims{num, dim}, f.dtype, f.device));
  maybe_reset(*this);
}

// normal(0, 1), the padding row zeroed (torch's EmbeddingBag.reset_parameters).
void EmbeddingBag::reset_parameters() {
  const Tensor& w = param("weight");
  init::normal_(w);
  if (padding_idx) {
    GradModeGuard g(false);
    fill(select(w, 0, *padding_idx), 0.0);
    bump_version(w);
  }
}

TensorList EmbeddingBag::forward(const TensorList& inputs) {
  GLIA_CHECK(!inputs.empty() && inputs.size() <= 3, InvalidArgument,
             "EmbeddingBag.forward: expected 1 to 3 inputs (input, offsets, per_sample_weights), got ", inputs.size());
  GLIA_CHECK(inputs[0].defined(), InvalidArgument, "EmbeddingBag.forward: input is None, expected a Tensor");
  Tensor offsets = inputs.size() > 1 ? inputs[1] : Tensor();
  Tensor psw = inputs.size() > 2 ? inputs[2] : Tensor();
  return {embedding_bag(param("weight"), inputs[0], offsets, max_norm, norm_type, scale_grad_by_freq, mode, psw,
                        include_last_offset, padding_idx)};
}

std::string EmbeddingBag::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (max_norm) s += ", max_norm=" + py_float(*max_norm);
  if (norm_type != 2.0) s += ", norm_type=" + py_float(norm_type);
  if (scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  s += std::string(", mode=") + (mode == ops::BagMode::Sum ? "sum" : mode == ops::BagMode::Mean ? "mean" : "max");
  if (padding_idx) s += ", padding_idx=" + std::to_string(*padding_idx);
  return s;
}

std::vector<int64_t> lengths_of(const Tensor& t, const char* what) {
  GLIA_CHECK(t.dtype() != DType::Float32 && t.dtype() != DType::Float64 && t.dtype() != DType::Float16 &&
                 t.dtype() != DType::BFloat16 && t.dtype() != DType::Bool,
             InvalidArgument, what, " must be integral");
  Tensor h = contiguous(to_dtype(to_device(t, Device{}), DType::Int64));
  const int64_t* p = h.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + h.numel());
}

TensorList CTCLoss::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 4);
  std::vector<int64_t> il = lengths_of(inputs[2], "input_lengths");
  std::vector<int64_t> tl = lengths_of(inputs[3], "target_lengths");
  return {ctc_loss(inputs[0], inputs[1], il, tl, blank, reduction, zero_infinity)};
}

}  // namespace glia::nn
