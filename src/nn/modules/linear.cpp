// Linear, Bilinear and Embedding.
#include <cmath>
#include <utility>

#include "autograd/fn/bilinear.h"
#include "autograd/grad_mode.h"
#include "nn/init.h"
#include "nn/modules/layers.h"

namespace glia::nn {

Linear::Linear(int64_t in, int64_t out, bool bias, const Factory& f) : Linear("Linear", in, out, bias, f) {}

Linear::Linear(std::string type_name, int64_t in, int64_t out, bool bias, const Factory& f)
    : Module(std::move(type_name)), in_features(in), out_features(out) {
  check_param_shape(Dims{out, in});
  register_parameter("weight", empty(Dims{out, in}, f.dtype, f.device));
  register_parameter("bias", bias ? empty(Dims{out}, f.dtype, f.device) : Tensor());
  maybe_reset(*this);
}

void Linear::reset_parameters() {
  const Tensor& w = param("weight");
  init::kaiming_uniform_(w, std::sqrt(5.0));
  if (const Tensor& b = param("bias"); b.defined()) {
    double bound = init::bias_bound(w);
    init::uniform_(b, -bound, bound);
  }
}

TensorList Linear::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {linear(inputs[0], param("weight"), param("bias"))};
}

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + py_bool(param("bias").defined());
}

Bilinear::Bilinear(int64_t in1, int64_t in2, int64_t out, bool bias, const Factory& f)
    : Module("Bilinear"), in1_features(in1), in2_features(in2), out_features(out) {
  check_param_shape(Dims{out, in1, in2});
  register_parameter("weight", empty(Dims{out, in1, in2}, f.dtype, f.device));
  register_parameter("bias", bias ? empty(Dims{out}, f.dtype, f.device) : Tensor());
  maybe_reset(*this);
}

// torch's Bilinear.reset_parameters: uniform(-1/sqrt(in1), 1/sqrt(in1)) for both.
void Bilinear::reset_parameters() {
  const Tensor& w = param("weight");
  double bound = w.size(1) > 0 ? 1.0 / std::sqrt(static_cast<double>(w.size(1))) : 0.0;
  if (w.numel() > 0) init::uniform_(w, -bound, bound);
  if (const Tensor& b = param("bias"); b.defined() && b.numel() > 0) init::uniform_(b, -bound, bound);
}

TensorList Bilinear::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 2);
  return {bilinear(inputs[0], inputs[1], param("weight"), param("bias"))};
}

std::string Bilinear::extra_repr() const {
  return "in1_features=" + std::to_string(in1_features) + ", in2_features=" + std::to_string(in2_features) +
         ", out_features=" + std::to_string(out_features) + ", bias=" + py_bool(param("bias").defined());
}

Embedding::Embedding(int64_t num, int64_t dim, std::optional<int64_t> pad, std::optional<double> mn, double nt,
                     const Factory& f)
    : Module("Embedding"), num_embeddings(num), embedding_dim(dim), max_norm(mn), norm_type(nt) {
  if (pad) {
    GLIA_CHECK(*pad < num && *pad >= -num, InvalidArgument, "Padding_idx must be within num_embeddings");
    padding_idx = *pad < 0 ? *pad + num : *pad;
  }
  check_param_shape(Dims{num, dim});
  register_parameter("weight", empty(Dims{num, dim}, f.dtype, f.device));
  maybe_reset(*this);
}

// normal(0, 1), the padding row zeroed.
void Embedding::reset_parameters() {
  const Tensor& w = param("weight");
  init::normal_(w);
  if (padding_idx) {
    GradModeGuard g(false);
    fill(select(w, 0, *padding_idx), 0.0);
    bump_version(w);
  }
}

TensorList Embedding::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  return {embedding(param("weight"), inputs[0], padding_idx, max_norm, norm_type, scale_grad_by_freq)};
}

std::string Embedding::extra_repr() const {
  std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  if (padding_idx) s += ", padding_idx=" + std::to_string(*padding_idx);
  if (max_norm) s += ", max_norm=" + py_float(*max_norm);
  if (norm_type != 2.0) s += ", norm_type=" + py_float(norm_type);
  if (scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  return s;
}

}  // namespace glia::nn
