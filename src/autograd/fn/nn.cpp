// embedding, dropout and torchvision's normalize.
#include "autograd/fn/nn.h"

#include "autograd/fn/elementwise.h"
#include "autograd/grad_mode.h"
#include "ops/norm.h"

namespace glia {

namespace {

struct EmbeddingBackward : Node {
  SavedTensor indices;
  int64_t num_weights = 0, padding_idx = -1;
  bool scale_grad_by_freq = false;
  const char* name() const override { return "EmbeddingBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    Tensor idx = indices.unpack(name());
    if (!scale_grad_by_freq) return {ops::embedding_backward(g[0], idx, num_weights, padding_idx)};
    // torch divides each gradient row by the count of its index among all indices (padding_idx's
    // included): the counts are embedding_backward of ones, looked up again per index.
    const Tensor& gr = g[0];
    Tensor counts = ops::embedding_backward(ones(Dims{idx.numel(), 1}, gr.dtype(), gr.device()), idx, num_weights, -1);
    return {ops::embedding_backward(div(gr, ops::embedding(counts, idx)), idx, num_weights, padding_idx)};
  }
  void release_variables() override { indices.release(); }
};

// torchvision divides in place by std: the gradient is grad / std (DivBackward0).
struct NormalizeBackward : Node {
  Tensor std;  // [L, 1, 1] in x's dtype, made by the forward (never modified)
  const char* name() const override { return "DivBackward0"; }
  TensorList apply(TensorList&& g) override { return {div(g[0], std)}; }
  void release_variables() override { std = Tensor(); }
};

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq) {
  ops::check_embedding(weight, indices);
  const int64_t num = weight.size(0);
  int64_t pad = -1;
  if (padding_idx) {
    GLIA_CHECK(*padding_idx >= -num && *padding_idx < num, InvalidArgument,
               "Padding_idx must be within num_embeddings");
    pad = *padding_idx < 0 ? *padding_idx + num : *padding_idx;
  }
  if (max_norm) {
    // torch renormalises under no_grad: an in-place change autograd does not record.
    ops::embedding_renorm_(weight, indices, *max_norm, norm_type);
    bump_version(weight);
  }
  Tensor out = ops::embedding(weight, indices);
  if (any_requires_grad({&weight})) {
    auto n = make_ref<EmbeddingBackward>();
    n->indices = SavedTensor(indices);
    n->num_weights = num;
    n->padding_idx = pad;
    n->scale_grad_by_freq = scale_grad_by_freq;
    set_history(n.get(), {&weight}, {&out});
  }
  return out;
}

Tensor dropout(const Tensor& x, double p, bool training) {
  GLIA_CHECK(p >= 0 && p <= 1, InvalidArgument, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !training || x.numel() == 0) return x;
  // torch: x * 0 for p = 1 (so NaN and inf stay NaN, signs of zeros follow x), else x * noise.
  if (p == 1) return mul(x, zeros(Dims{}, x.dtype(), x.device()));
  GLIA_CHECK(is_floating(x.dtype()), DType, "result type Float can't be cast to the desired output type ",
             scalar_type_name(x.dtype()));
  return mul(x, ops::dropout_noise(x, p));
}

Tensor normalize(const Tensor& x, std::span<const double> mean, std::span<const double> std) {
  Tensor s;
  Tensor out = ops::normalize(x, mean, std, &s);
  if (any_requires_grad({&x})) {
    auto n = make_ref<NormalizeBackward>();
    n->std = s;
    set_history(n.get(), {&x}, {&out});
  }
  return out;
}

}  // namespace glia
