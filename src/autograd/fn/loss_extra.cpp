// torch 1.13's composite losses (ATen's Loss.cpp and torch/nn/functional.py) written with
// differentiable ops. Where torch has a dedicated kernel (soft_margin_loss, multi_margin_loss,
// multilabel_margin_loss) the same formula is composed; what torch does not differentiate
// (soft_margin_loss's target, multi_margin_loss's weight) is detached.
#include "autograd/fn/loss_extra.h"

#include <cmath>
#include <numbers>

#include "autograd/fn/activation.h"
#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/math.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "core/error.h"

namespace glia {

namespace {

using ops::Cmp;

Tensor reduce(const Tensor& out, Reduction r) {
  if (r == Reduction::Mean) return mean(out);
  if (r == Reduction::Sum) return sum(out);
  return out;
}

Tensor num(double v) { return ops::wrapped_scalar(v, false); }
Tensor zero_of(const Tensor& t) { return zero_like_scalar(t); }
Tensor clamp_min0(const Tensor& t) { return clamp(t, Scalar::from_double(0.0), std::nullopt); }

void check_index_dtype(const Tensor& target) {
  GLIA_CHECK(target.dtype() == DType::Int64, DType, "expected scalar type Long but found ",
             scalar_type_name(target.dtype()));
}

// Input [N, C], [C] or 0-dim (torch's multi_margin / multilabel_margin shape check).
void check_margin_input(const Tensor& input) {
  int64_t nd = input.dim();
  GLIA_CHECK((nd == 2 && input.size(1) != 0) || (nd == 1 && input.size(0) != 0) || nd == 0, Shape,
             "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", input.shape());
}

// [lo, hi] of an int64 tensor with elements (reads two numbers back from the tensor's device).
std::pair<int64_t, int64_t> index_range(const Tensor& t) { return {item_int64(amin(t)), item_int64(amax(t))}; }

}  // namespace

Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction, bool log_target, bool batchmean) {
  Tensor out = log_target ? mul(exp(target), sub(target, input))
                          : sub(glia::binary_math(ops::BinaryMathOp::Xlogy, target, target), mul(target, input));
  if (!batchmean) return reduce(out, reduction);
  Tensor s = sum(out);
  return input.dim() == 0 ? s : div(s, num(static_cast<double>(input.size(0))));
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        Reduction reduction) {
  Tensor loss = log_input ? sub(exp(input), mul(target, input))
                          : sub(input, mul(target, log(add_scalar(input, Scalar::from_double(eps)))));
  if (full) {
    // target * log(target) - target + 0.5 * log(2 pi target), zero where target <= 1
    Tensor stirling =
        add(sub(mul(target, log(target)), target), mul(num(0.5), log(mul(num(2 * std::numbers::pi), target))));
    loss = add(loss, where(compare_scalar(target, Scalar::from_double(1.0), Cmp::Le), zero_of(stirling), stirling));
  }
  return reduce(loss, reduction);
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var_in, bool full, double eps,
                         Reduction reduction) {
  Tensor var = var_in;
  const Dims& is = input.shape();
  const Dims& vs = var.shape();
  if (vs != is) {
    auto prefix_eq = [](const Dims& a, size_t na, const Dims& b, size_t nb) {
      if (na != nb) return false;
      for (size_t i = 0; i < na; ++i)
        if (a[i] != b[i]) return false;
      return true;
    };
    size_t ni = is.empty() ? 0 : is.size() - 1;
    if (prefix_eq(is, ni, vs, vs.size())) {
      var = unsqueeze(var, -1);
    } else {
      GLIA_CHECK(!vs.empty() && prefix_eq(is, ni, vs, vs.size() - 1) && vs.back() == 1, InvalidArgument,
                 "var is of incorrect size");
    }
  }
  GLIA_CHECK(var.numel() == 0 ||
                 !item_double(to_dtype(any(compare_scalar(var, Scalar::from_double(0.0), Cmp::Lt)), DType::Float64)),
             InvalidArgument, "var has negative entry/entries");
  // torch clamps a clone in place under no_grad: the values are max(var, eps), the gradient
  // flows to var unchanged.
  Tensor v = detach(var);
  var = add(var, detach(sub(clamp(v, Scalar::from_double(eps), std::nullopt), v)));
  Tensor d = sub(input, target);
  Tensor loss = mul(num(0.5), add(log(var), div(mul(d, d), var)));
  if (full) loss = add_scalar(loss, Scalar::from_double(0.5 * std::log(2 * std::numbers::pi)));
  return reduce(loss, reduction);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           Reduction reduction) {
  GLIA_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(), Shape,
             "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: ",
             input1.shape(), ", input2: ", input2.shape(), ", target: ", target.shape());
  Tensor out = clamp_min0(add_scalar(mul(neg(target), sub(input1, input2)), Scalar::from_double(margin)));
  return reduce(out, reduction);
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin, Reduction reduction) {
  Tensor zero = zero_of(input);
  Tensor margin_clamp = clamp_min0(rsub_scalar(input, Scalar::from_double(margin)));
  Tensor out_margin = where(compare_scalar(target, Scalar::from_double(1.0), Cmp::Ne), margin_clamp, zero);
  Tensor out_self = where(compare_scalar(target, Scalar::from_double(-1.0), Cmp::Ne), input, zero);
  return reduce(add(out_margin, out_self), reduction);
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  // torch writes -input * target into a tensor of the input's shape.
  Tensor prod = mul(neg(input), detach(target));
  GLIA_CHECK(prod.shape() == input.shape(), Shape, "output with shape ", input.shape(),
             " doesn't match the broadcast shape ", prod.shape());
  return reduce(log1p(exp(prod)), reduction);
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   Reduction reduction) {
  GLIA_CHECK(input.dim() > 0, InvalidArgument, "Dimension specified as -1 but tensor has no dimensions");
  // logsigmoid(x) = -softplus(-x)
  Tensor ls_pos = neg(softplus(neg(input)));
  Tensor ls_neg = neg(softplus(input));
  Tensor loss = neg(add(mul(target, ls_pos), mul(rsub_scalar(target, Scalar::from_double(1.0)), ls_neg)));
  if (weight.defined()) loss = mul(loss, weight);
  int64_t class_dim = input.dim() - 1;
  int64_t c = input.size(class_dim);
  loss = div(sum(loss, std::vector<int64_t>{class_dim}), num(static_cast<double>(c)));
  return reduce(loss, reduction);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             Reduction reduction) {
  int64_t td = target.dim();
  GLIA_CHECK(td == 1 || td == 0, Shape, "0D or 1D target tensor expected, multi-target not supported");
  if (td == 1)
    GLIA_CHECK(input1.dim() == 2, Shape, "1D target tensor expects 2D input tensors, but found inputs with sizes ",
               input1.shape(), " and ", input2.shape(), ".");
  else
    GLIA_CHECK(input1.dim() == 1, Shape, "0D target tensor expects 1D input tensors, but found inputs with sizes ",
               input1.shape(), " and ", input2.shape(), ".");
  const double epsilon = static_cast<double>(1e-12f);  // torch's EPSILON is a float
  std::vector<int64_t> d{td};
  Tensor prod_sum = sum(mul(input1, input2), d);
  Tensor mag1 = add_scalar(sum(mul(input1, input1), d), Scalar::from_double(epsilon));
  Tensor mag2 = add_scalar(sum(mul(input2, input2), d), Scalar::from_double(epsilon));
  Tensor cos = div(prod_sum, sqrt(mul(mag1, mag2)));
  Tensor zero = zero_of(cos);
  Tensor pos = rsub_scalar(cos, Scalar::from_double(1.0));
  Tensor ng = clamp_min0(sub_scalar(cos, Scalar::from_double(margin)));
  Tensor out = add(where(compare_scalar(target, Scalar::from_double(1.0), Cmp::Eq), pos, zero),
                   where(compare_scalar(target, Scalar::from_double(-1.0), Cmp::Eq), ng, zero));
  return reduce(out, reduction);
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p, double margin, const Tensor& weight,
                         Reduction reduction) {
  GLIA_CHECK(p == 1 || p == 2, InvalidArgument, "only p == 1 and p == 2 supported");
  GLIA_CHECK(!weight.defined() || weight.dim() == 1, InvalidArgument, "weight must be one-dimensional");
  check_margin_input(input);
  int64_t nd = input.dim();
  int64_t nframe = nd <= 1 ? 1 : input.size(0);
  int64_t dim = nd == 0 ? 1 : input.size(nd - 1);
  GLIA_CHECK(target.dim() <= 1 && target.numel() == nframe, Shape, "inconsistent target size, got: ", target.shape());
  if (weight.defined())
    GLIA_CHECK(weight.numel() == dim, Shape, "inconsistent weight size, expected ", dim, " but got ", weight.shape());
  check_index_dtype(target);
  if (target.numel() > 0) {
    auto [lo, hi] = index_range(target);
    GLIA_CHECK(lo >= 0 && hi < dim, InvalidArgument, "target out of range");
  }
  std::vector<int64_t> xs{nframe, dim}, ts{nframe, 1};
  Tensor x = reshape(input, xs);
  Tensor t = reshape(target, ts);
  // z[n, i] = max(0, margin - x[n, y] + x[n, i]) (^2), times weight[y], over i != y
  Tensor z = clamp_min0(add(rsub_scalar(gather(x, 1, t), Scalar::from_double(margin)), x));
  if (p == 2) z = mul(z, z);
  if (weight.defined())
    z = mul(z, reshape(index_select(detach(weight), 0, reshape(target, std::vector<int64_t>{nframe})), ts));
  Tensor cls = unsqueeze(arange(0, static_cast<double>(dim), 1, DType::Int64, input.device()), 0);
  z = where(glia::compare(cls, t, Cmp::Ne), z, zero_of(z));
  Tensor per = div(sum(z, std::vector<int64_t>{1}), num(static_cast<double>(dim)));
  if (reduction == Reduction::None) return target.dim() > 0 ? per : reshape(per, std::vector<int64_t>{});
  return reduce(per, reduction);
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  check_margin_input(input);
  int64_t nd = input.dim();
  int64_t nframe = nd <= 1 ? 1 : input.size(0);
  int64_t dim = nd == 0 ? 1 : input.size(nd - 1);
  bool ok = nd <= 1 ? target.dim() <= 1 && target.numel() == dim
                    : target.dim() == 2 && target.size(0) == nframe && target.size(1) == dim;
  GLIA_CHECK(ok, Shape, "inconsistent size ", target.shape(), " for argument #2 'target'");
  check_index_dtype(target);
  if (target.numel() > 0) {
    auto [lo, hi] = index_range(target);
    GLIA_CHECK(lo >= -1 && hi < dim, InvalidArgument, "argument #2 'target' is out of range");
  }
  std::vector<int64_t> s2{nframe, dim};
  Tensor x = reshape(input, s2);
  Tensor t = reshape(target, s2);
  // Row n's targets are t[n, j] for j before its first negative entry.
  Tensor negs = to_dtype(compare_scalar(t, Scalar::from_int(0), Cmp::Lt), DType::Int64);
  Tensor valid = compare_scalar(cumsum(negs, 1), Scalar::from_int(0), Cmp::Eq);  // [n, j]
  Tensor tc = where(valid, t, zero_of(t));
  Tensor cls =
      reshape(arange(0, static_cast<double>(dim), 1, DType::Int64, input.device()), std::vector<int64_t>{1, 1, dim});
  Tensor hit =
      glia::logical(unsqueeze(valid, 2), glia::compare(unsqueeze(tc, 2), cls, Cmp::Eq), ops::Logic::And);  // [n, j, c]
  Tensor is_target = any(hit, std::vector<int64_t>{1});                                                    // [n, c]
  // z[n, j, i] = max(0, 1 - x[n, t[n, j]] + x[n, i]) for valid j and non-target i
  Tensor xj = gather(x, 1, tc);
  Tensor z = clamp_min0(add(rsub_scalar(unsqueeze(xj, 2), Scalar::from_double(1.0)), unsqueeze(x, 1)));
  Tensor mask = glia::logical(unsqueeze(valid, 2), unsqueeze(logical_not(is_target), 1), ops::Logic::And);
  z = where(mask, z, zero_of(z));
  Tensor per = div(sum(z, std::vector<int64_t>{1, 2}), num(static_cast<double>(dim)));
  if (reduction == Reduction::None) return target.dim() > 1 ? per : reshape(per, std::vector<int64_t>{});
  return reduce(per, reduction);
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  int64_t out_dim = std::max(x1.dim(), x2.dim());
  Tensor d = add_scalar(sub(x1, x2), Scalar::from_double(eps));
  if (!is_floating(d.dtype())) d = to_dtype_with_grad(d, DType::Float32);  // torch's norm of integers (eps = 0)
  if (out_dim == 0) return vector_norm(d, p);
  return vector_norm(d, p, std::vector<int64_t>{out_dim - 1}, keepdim);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, Reduction reduction) {
  GLIA_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(), Shape,
             "All inputs should have same dimension but got ", anchor.dim(), "D, ", positive.dim(), "D and ",
             negative.dim(), "D inputs.");
  Tensor dist_pos = pairwise_distance(anchor, positive, p, eps);
  Tensor dist_neg = pairwise_distance(anchor, negative, p, eps);
  if (swap) dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps));
  return reduce(clamp_min0(sub(add_scalar(dist_pos, Scalar::from_double(margin)), dist_neg)), reduction);
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const DistanceFn& distance, double margin, bool swap, Reduction reduction) {
  auto dist = [&](const Tensor& a, const Tensor& b) {
    Tensor d = distance ? distance(a, b) : pairwise_distance(a, b);
    GLIA_CHECK(d.defined(), InvalidArgument, "triplet_margin_with_distance_loss: distance_function returned no tensor");
    return d;
  };
  Tensor pos = dist(anchor, positive);
  Tensor ng = dist(anchor, negative);
  if (swap) ng = minimum(ng, dist(positive, negative));
  return reduce(clamp_min0(add_scalar(sub(pos, ng), Scalar::from_double(margin))), reduction);
}

}  // namespace glia
