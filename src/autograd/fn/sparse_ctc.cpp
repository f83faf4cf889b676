// EmbeddingBag and the CTC loss: torch.nn.functional's checks (in torch's
// order, so a bad call changes nothing), the ops, and their autograd nodes.
#include "autograd/fn/sparse_ctc.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/grad_mode.h"
#include "core/dispatch.h"
#include "core/scalar.h"
#include "ops/norm.h"

namespace glia {

namespace {

struct EmbeddingBagBackward : Node {
  SavedTensor weight, indices, offsets, per_sample_weights, max_indices;
  int64_t num_weights = 0, padding_idx = -1;
  ops::BagMode mode = ops::BagMode::Mean;
  bool include_last_offset = false, scale_grad_by_freq = false;
  const char* name() const override { return "EmbeddingBagBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    Tensor idx = indices.unpack(name()), off = offsets.unpack(name()), psw = per_sample_weights.unpack(name());
    TensorList r(next_edges.size());
    if (next_edges[0].valid())
      r[0] = ops::embedding_bag_backward(g[0], idx, off, psw, max_indices.unpack(name()), num_weights, mode,
                                         include_last_offset, padding_idx, scale_grad_by_freq);
    if (next_edges.size() > 1 && next_edges[1].valid())
      r[1] = ops::embedding_bag_per_sample_weights_backward(g[0], weight.unpack(name()), idx, off, include_last_offset,
                                                            padding_idx);
    return r;
  }
  void release_variables() override {
    weight.release();
    indices.release();
    offsets.release();
    per_sample_weights.release();
    max_indices.release();
  }
};

struct CtcLossBackward : Node {
  SavedTensor log_probs, targets, nll, log_alpha;
  std::vector<int64_t> input_lengths, target_lengths;
  int64_t blank = 0;
  bool zero_infinity = false;
  const char* name() const override { return "CtcLossBackward0"; }
  bool backward_is_differentiable() const override { return false; }
  TensorList apply(TensorList&& g) override {
    return {ops::ctc_loss_backward(g[0], log_probs.unpack(name()), targets.unpack(name()), input_lengths,
                                   target_lengths, nll.unpack(name()), log_alpha.unpack(name()), blank, zero_infinity)};
  }
  void release_variables() override {
    log_probs.release();
    targets.release();
    nll.release();
    log_alpha.release();
  }
};

std::string tensor_type(DType t) {
  // torch names a CPU bfloat16 tensor's type CPUBFloat16Type in these messages.
  if (t == DType::BFloat16) return "CPUBFloat16Type";
  return std::string("torch.") + scalar_type_name(t) + "Tensor";
}

std::string size_str(IntSpan s) {
  std::string r = "torch.Size([";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "])";
}

void check_index_dtype(const Tensor& t) {
  GLIA_CHECK(t.dtype() == DType::Int64 || t.dtype() == DType::Int32, DType,
             "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but "
             "got ",
             tensor_type(t.dtype()), " instead (while checking arguments for embedding_bag)");
}

}  // namespace

Tensor embedding_bag(const Tensor& weight, const Tensor& input, const Tensor& offsets, std::optional<double> max_norm,
                     double norm_type, bool scale_grad_by_freq, ops::BagMode mode, const Tensor& per_sample_weights,
                     bool include_last_offset, std::optional<int64_t> padding_idx) {
  // torch.nn.functional.embedding_bag's checks.
  if (per_sample_weights.defined())
    GLIA_CHECK(per_sample_weights.shape() == input.shape(), InvalidArgument, "embedding_bag: If per_sample_weights (",
               size_str(per_sample_weights.shape()), ") is not None, then it must have the same shape as the input (",
               size_str(input.shape()), ")");
  Tensor idx = input, off = offsets, psw = per_sample_weights;
  if (input.dim() == 2) {
    GLIA_CHECK(!offsets.defined(), InvalidArgument,
               "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
               "sequences. However, found offsets of type <class 'torch.Tensor'>");
    GLIA_CHECK(input.size(1) != 0, InvalidArgument, "step must be nonzero");
    check_index_dtype(input);
    off = arange(0, static_cast<double>(input.numel()), static_cast<double>(input.size(1)), input.dtype(),
                 input.device());
    idx = reshape(input, Dims{-1});
    if (psw.defined()) psw = reshape(psw, Dims{-1});
  } else if (input.dim() == 1) {
    GLIA_CHECK(offsets.defined(), InvalidArgument, "offsets has to be a 1D Tensor but got None");
    GLIA_CHECK(offsets.dim() == 1, InvalidArgument, "offsets has to be a 1D Tensor");
  } else {
    fail(Code::InvalidArgument, "input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
  }
  GLIA_CHECK(!(mode == ops::BagMode::Max && scale_grad_by_freq), InvalidArgument,
             "max mode does not support scaling the gradient by the frequency");
  // ATen's checks (before max_norm's renormalisation, so that a failing call changes nothing).
  check_index_dtype(idx);
  check_index_dtype(off);
  GLIA_CHECK(weight.dim() == 2, Shape, "embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension ",
             weight.dim());
  const DType wt = weight.dtype();
  GLIA_CHECK(wt == DType::Float16 || wt == DType::Float32 || wt == DType::Float64, DType,
             "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, Float, "
             "Double; but got ",
             tensor_type(wt), " instead (while checking arguments for embedding_bag)");
  common_device("embedding_bag", weight, idx, false);
  common_device("embedding_bag", weight, off, false);
  const int64_t num = weight.size(0);
  int64_t pad = -1;
  if (padding_idx) {
    GLIA_CHECK(*padding_idx >= -num && *padding_idx < num, InvalidArgument,
               "padding_idx must be within the number of embeddings, -", num, " through ", num - 1, ", but got ",
               *padding_idx);
    pad = *padding_idx < 0 ? *padding_idx + num : *padding_idx;
  }
  if (psw.defined()) {
    GLIA_CHECK(mode == ops::BagMode::Sum, Unsupported,
               "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for "
               "mode='sum' (got mode='",
               mode == ops::BagMode::Mean ? "mean" : "max", "'). Please open a feature request on GitHub.");
    GLIA_CHECK(psw.dtype() == wt, DType,
               "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
               "'per_sample_weights'; but type ",
               tensor_type(wt), " does not equal ", tensor_type(psw.dtype()),
               " (while checking arguments for embedding_bag)");
    common_device("embedding_bag", weight, psw, false);
  }
  GLIA_CHECK(!include_last_offset || off.size(0) >= 1, InvalidArgument,
             "include_last_offset: number of offset should be at least 1");
  idx = contiguous(to_dtype(idx, DType::Int64));
  off = contiguous(to_dtype(off, DType::Int64));
  Tensor out, max_indices;
  if (max_norm) {
    // The kernel checks the offsets and indices; run it once before renormalising, so that a call
    // that fails leaves weight as it was (torch would have renormalised it already).
    ops::embedding_bag(weight, idx, off, psw, mode, include_last_offset, pad, &out, &max_indices);
    // torch renormalises under no_grad: an in-place change autograd does not record.
    ops::embedding_renorm_(weight, idx, *max_norm, norm_type);
    bump_version(weight);
  }
  ops::embedding_bag(weight, idx, off, psw, mode, include_last_offset, pad, &out, &max_indices);
  const bool psw_grad = psw.defined() && any_requires_grad({&psw});
  if (any_requires_grad({&weight}) || psw_grad) {
    auto n = make_ref<EmbeddingBagBackward>();
    n->indices = SavedTensor(idx);
    n->offsets = SavedTensor(off);
    if (psw.defined()) n->per_sample_weights = SavedTensor(psw);
    if (psw_grad) n->weight = SavedTensor(weight);
    if (max_indices.defined()) n->max_indices = SavedTensor(max_indices);
    n->num_weights = num;
    n->padding_idx = pad;
    n->mode = mode;
    n->include_last_offset = include_last_offset;
    n->scale_grad_by_freq = scale_grad_by_freq;
    if (psw.defined())
      set_history(n.get(), {&weight, &psw}, {&out});
    else
      set_history(n.get(), {&weight}, {&out});
  }
  return out;
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntSpan input_lengths, IntSpan target_lengths,
                int64_t blank, Reduction reduction, bool zero_infinity) {
  const bool batched = log_probs.dim() == 3;
  const DType dt = log_probs.dtype();
  GLIA_CHECK(dt == DType::Float32 || dt == DType::Float64, DType, "\"ctc_loss_cpu\" not implemented for '",
             scalar_type_name(dt), "'");
  Tensor lp = batched ? log_probs : unsqueeze(log_probs, 1);
  common_device("ctc_loss", log_probs, targets, false);
  GLIA_CHECK(targets.dtype() != DType::Bool, DType, "ctc_loss: targets must be integral or floating, got Bool");
  Tensor tg = to_dtype(targets, DType::Int64);
  Tensor nll, log_alpha;
  ops::ctc_loss(detach(lp), tg, input_lengths, target_lengths, blank, &nll, &log_alpha);
  if (any_requires_grad({&lp})) {
    auto n = make_ref<CtcLossBackward>();
    n->log_probs = SavedTensor(lp);
    n->targets = SavedTensor(tg);
    n->nll = SavedTensor(nll);
    n->log_alpha = SavedTensor(log_alpha);
    n->input_lengths.assign(input_lengths.begin(), input_lengths.end());
    n->target_lengths.assign(target_lengths.begin(), target_lengths.end());
    n->blank = blank;
    n->zero_infinity = zero_infinity;
    set_history(n.get(), {&lp}, {&nll});
  }
  Tensor res = nll;
  if (zero_infinity)
    res = where(compare_scalar(res, Scalar::from_double(std::numeric_limits<double>::infinity()), ops::Cmp::Eq),
                zeros(Dims{}, dt, res.device()), res);
  if (reduction == Reduction::Mean) {
    Tensor lengths = empty(Dims{static_cast<int64_t>(target_lengths.size())}, dt, Device{});
    for (size_t b = 0; b < target_lengths.size(); ++b) {
      const double v = static_cast<double>(std::max<int64_t>(target_lengths[b], 1));
      if (dt == DType::Float64)
        lengths.data_ptr<double>()[b] = v;
      else
        lengths.data_ptr<float>()[b] = static_cast<float>(v);
    }
    return mean(div(res, to_device(lengths, res.device())));
  }
  if (reduction == Reduction::Sum) return sum(res);
  return batched ? res : squeeze(res, Dims{0}, false);
}

}  // namespace glia
