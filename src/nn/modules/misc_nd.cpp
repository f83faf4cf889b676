#include "nn/modules/misc_nd.h"

#include "autograd/fn/elementwise.h"
#include "autograd/fn/loss_extra.h"
#include "autograd/fn/nnmisc.h"
#include "autograd/fn/shape.h"
#include "nn/init.h"

namespace glia::nn {

// ---- InstanceNorm ----------------------------------------------------------------

namespace {
const char* instance_norm_name(int d) {
  return d == 1 ? "InstanceNorm1d" : d == 2 ? "InstanceNorm2d" : "InstanceNorm3d";
}
}  // namespace

InstanceNorm::InstanceNorm(int spatial_dims, int64_t num_features, const InstanceNormOptions& options, const Factory& f)
    : Module(instance_norm_name(spatial_dims)),
      spatial_dims_(spatial_dims),
      num_features_(num_features),
      options_(options) {
  GLIA_CHECK(num_features >= 0, InvalidArgument, "Trying to create tensor with negative dimension ", num_features,
             ": [", num_features, "]");
  Dims shape{num_features};
  if (options.affine) {
    register_parameter("weight", empty(shape, f.dtype, f.device));
    register_parameter("bias", empty(shape, f.dtype, f.device));
  } else {
    register_parameter("weight", Tensor());
    register_parameter("bias", Tensor());
  }
  if (options.track_running_stats) {
    register_buffer("running_mean", zeros(shape, f.dtype, f.device));
    register_buffer("running_var", ones(shape, f.dtype, f.device));
    register_buffer("num_batches_tracked", zeros({}, DType::Int64, f.device));
  } else {
    register_buffer("running_mean", Tensor());
    register_buffer("running_var", Tensor());
    register_buffer("num_batches_tracked", Tensor());
  }
  maybe_reset(*this);
}

void InstanceNorm::reset_parameters() {
  if (options_.track_running_stats) {
    init::zeros_(buffer("running_mean"));
    init::ones_(buffer("running_var"));
    init::zeros_(buffer("num_batches_tracked"));
  }
  if (options_.affine) {
    init::ones_(param("weight"));
    init::zeros_(param("bias"));
  }
}

TensorList InstanceNorm::forward(const TensorList& inputs) {
  check_tensor_inputs(inputs, 1);
  const Tensor& x = inputs[0];
  const int64_t d = x.dim(), unbatched = spatial_dims_ + 1;
  GLIA_CHECK(d == unbatched || d == unbatched + 1, InvalidArgument, "expected ", unbatched, "D or ", unbatched + 1,
             "D input (got ", d, "D input)");
  const bool use_input_stats = training_ || !options_.track_running_stats;
  auto apply = [&](const Tensor& t) {
    return instance_norm(t, buffer("running_mean"), buffer("running_var"), param("weight"), param("bias"),
                         use_input_stats, options_.momentum, options_.eps);
  };
  if (d == unbatched) return {squeeze(apply(unsqueeze(x, 0)), Dims{0}, false)};
  return {apply(x)};
}

std::string InstanceNorm::extra_repr() const {
  return std::to_string(num_features_) + ", eps=" + py_float(options_.eps) +
         ", momentum=" + py_float(options_.momentum) + ", affine=" + py_bool(options_.affine) +
         ", track_running_stats=" + py_bool(options_.track_running_stats);
}

// ---- the stateless modules -------------------------------------------------------

namespace {
using K = NnMisc::Kind;

const char* misc_name(K k) {
  switch (k) {
    case K::LocalResponseNorm:
      return "LocalResponseNorm";
    case K::CosineSimilarity:
      return "CosineSimilarity";
    case K::PairwiseDistance:
      return "PairwiseDistance";
    case K::Softsign:
      return "Softsign";
    case K::Dropout1d:
      return "Dropout1d";
    case K::Dropout2d:
      return "Dropout2d";
    case K::Dropout3d:
      return "Dropout3d";
    case K::AlphaDropout:
      return "AlphaDropout";
    case K::FeatureAlphaDropout:
      return "FeatureAlphaDropout";
  }
  return "";
}

bool is_dropout(K k) { return k >= K::Dropout1d; }
}  // namespace

NnMisc::NnMisc(Kind kind, const Args& args) : Module(misc_name(kind)), kind_(kind), args_(args) {
  if (is_dropout(kind))
    GLIA_CHECK(args.p >= 0 && args.p <= 1, InvalidArgument, "dropout probability has to be between 0 and 1, but got ",
               py_float(args.p));
}

TensorList NnMisc::forward(const TensorList& inputs) {
  const Args& a = args_;
  if (kind_ == K::CosineSimilarity || kind_ == K::PairwiseDistance) {
    check_tensor_inputs(inputs, 2);
    if (kind_ == K::CosineSimilarity) return {cosine_similarity(inputs[0], inputs[1], a.dim, a.eps)};
    return {pairwise_distance(inputs[0], inputs[1], a.p, a.eps, a.keepdim)};
  }
  check_tensor_inputs(inputs, 1);
  const Tensor& x = inputs[0];
  Tensor r;
  switch (kind_) {
    case K::LocalResponseNorm:
      return {local_response_norm(x, a.size, a.alpha, a.beta, a.k)};
    case K::Softsign:
      return {softsign(x)};
    case K::AlphaDropout:  // torch's AlphaDropout and FeatureAlphaDropout never pass inplace on
      return {alpha_dropout(x, a.p, training_)};
    case K::FeatureAlphaDropout:
      return {feature_alpha_dropout(x, a.p, training_)};
    case K::Dropout1d:
      r = dropout1d(x, a.p, training_);
      break;
    case K::Dropout2d:
      r = dropout2d(x, a.p, training_);
      break;
    default:
      r = dropout3d(x, a.p, training_);
      break;
  }
  if (!a.inplace || r.is_same(x)) return {r};
  copy_(x, r);  // torch's feature_dropout_: the input is overwritten and returned
  return {x};
}

std::string NnMisc::extra_repr() const {
  const Args& a = args_;
  switch (kind_) {
    case K::LocalResponseNorm:
      return std::to_string(a.size) + ", alpha=" + py_float(a.alpha) + ", beta=" + py_float(a.beta) +
             ", k=" + py_float(a.k);
    case K::CosineSimilarity:
    case K::PairwiseDistance:
    case K::Softsign:
      return "";
    default:
      return "p=" + py_float(a.p) + ", inplace=" + py_bool(a.inplace);
  }
}

}  // namespace glia::nn
