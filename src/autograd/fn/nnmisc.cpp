// The norms, dropouts and distances of issue 21, composed of differentiable ops
// (torch 1.13's checks and messages first, so a bad call changes nothing).
#include "autograd/fn/nnmisc.h"

#include <cmath>
#include <string>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/norm.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/fn/shape_ops.h"
#include "autograd/grad_mode.h"
#include "core/scalar.h"
#include "ops/iter.h"
#include "ops/nnmisc.h"
#include "ops/reduce.h"

namespace glia {

namespace {

Scalar num(double v) { return Scalar::from_double(v); }

// Both operands converted to their common (floating) dtype and expanded to their broadcast shape.
void common_operands(const Tensor& x1, const Tensor& x2, const char* op, Tensor* a, Tensor* b) {
  const DType dt = ops::result_type(x1, x2);
  Dims shape = ops::broadcast_shapes(op, x1.shape(), x2.shape());
  *a = expand(to_dtype_with_grad(x1, dt), shape);
  *b = expand(to_dtype_with_grad(x2, dt), shape);
}

// sum(x^2, dim) whose value is clamped below at eps^2 while its gradient stays
// the identity: torch clamps the norm in place under no_grad, so its gradient
// divides by the clamped norm.
Tensor clamped_squared_norm(const Tensor& x, int64_t dim, double eps) {
  Tensor s = sum(mul(x, x), Dims{dim}, true);
  Tensor c = clamp(s, num(eps * eps), std::nullopt);
  return add(s, detach(sub(c, s)));
}

}  // namespace

Tensor softsign(const Tensor& x) {
  // torch: input / (input.abs() + 1)
  return div(x, add_scalar(abs(x), Scalar::from_int(1)));
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  const DType dt = ops::result_type(x1, x2);
  GLIA_CHECK(is_floating(dt), DType, "expected common dtype to be floating point, yet common dtype is ",
             scalar_type_name(dt));
  Tensor a, b;
  common_operands(x1, x2, "cosine_similarity", &a, &b);
  const int64_t d = ops::wrap_dim(dim, a.dim());
  Tensor na = sqrt(clamped_squared_norm(a, d, eps));
  Tensor nb = sqrt(clamped_squared_norm(b, d, eps));
  return sum(mul(div(a, na), div(b, nb)), Dims{d}, false);
}

Tensor pdist(const Tensor& x, double p) {
  GLIA_CHECK(x.dim() == 2, Shape, "pdist only supports 2D tensors, got: ", x.dim(), "D");
  GLIA_CHECK(is_floating(x.dtype()), DType, "pdist only supports floating-point dtypes");
  GLIA_CHECK(p >= 0, InvalidArgument, "pdist only supports non-negative p values");
  Tensor first, second;
  ops::pdist_pairs(x.size(0), x.device(), &first, &second);
  Tensor diff = sub(index_select(x, 0, first), index_select(x, 0, second));
  return vector_norm(diff, p, Dims{1}, false);
}

Tensor instance_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  if (use_input_stats) {  // torch.nn.functional's _verify_spatial_size
    int64_t prod = 1;
    for (int64_t i = 2; i < x.dim(); ++i) prod *= x.size(i);
    GLIA_CHECK(prod != 1, InvalidArgument,
               "Expected more than 1 spatial element when training, got input size torch.Size(", IntSpan(x.shape()),
               ")");
  }
  GLIA_CHECK(use_input_stats || (running_mean.defined() && running_var.defined()), InvalidArgument,
             "Expected running_mean and running_var to be defined when use_input_stats is false");
  GLIA_CHECK(x.dim() >= 2, InvalidArgument, "Dimension out of range (expected to be in range of [",
             -std::max<int64_t>(x.dim(), 1), ", ", std::max<int64_t>(x.dim(), 1) - 1, "], but got 1)");
  const int64_t b = x.size(0), c = x.size(1);
  Dims shape(x.shape());
  shape[0] = 1;
  shape[1] = b * c;
  auto rep = [&](const Tensor& t) { return t.defined() ? repeat(t, Dims{b}) : Tensor(); };
  Tensor rm, rv;
  {
    GradModeGuard no_grad(false);
    rm = rep(running_mean);
    rv = rep(running_var);
  }
  Tensor out = batch_norm(reshape(x, shape), rm, rv, rep(weight), rep(bias), use_input_stats, momentum, eps);
  if (running_mean.defined() || running_var.defined()) {
    GradModeGuard no_grad(false);
    if (running_mean.defined()) copy_(running_mean, mean(reshape(rm, Dims{b, c}), Dims{0}, false));
    if (running_var.defined()) copy_(running_var, mean(reshape(rv, Dims{b, c}), Dims{0}, false));
  }
  return reshape(out, x.shape());
}

Tensor local_response_norm(const Tensor& x, int64_t size, double alpha, double beta, double k) {
  const int64_t dim = x.dim();
  GLIA_CHECK(dim >= 3, InvalidArgument, "Expected 3D or higher dimensionality                          input (got ",
             dim, " dimensions)");
  if (x.numel() == 0) return x;
  // torch's avg_pool2d / avg_pool3d messages
  GLIA_CHECK(size > 0, InvalidArgument, "kernel size should be greater than zero, but got ",
             dim == 3 ? "" : "kT: ", dim == 3 ? "" : std::to_string(size) + " ", "kH: ", dim == 3 ? size : 1, " kW: 1");
  // torch: the average of x^2 over a window of `size` channels, zero padded by
  // (size / 2, (size - 1) / 2), through avg_pool (count_include_pad).
  const int64_t ch = x.size(1);
  Dims pads(static_cast<size_t>(2 * (dim - 1)), 0);
  pads[pads.size() - 2] = size / 2;
  pads[pads.size() - 1] = (size - 1) / 2;
  Tensor padded = pad(mul(x, x), pads);
  Tensor acc = narrow(padded, 1, 0, ch);
  for (int64_t j = 1; j < size; ++j) acc = add(acc, narrow(padded, 1, j, ch));
  Tensor d = div_scalar(acc, Scalar::from_int(size));
  d = pow_scalar(add_scalar(mul_scalar(d, num(alpha)), num(k)), num(beta));
  return div(x, d);
}

Tensor dropout_impl(const Tensor& x, double p, bool training, bool feature, bool alpha) {
  GLIA_CHECK(p >= 0 && p <= 1, InvalidArgument, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !training || x.numel() == 0) return x;
  if (p == 1) return mul(x, zeros(Dims{}, x.dtype(), x.device()));
  Dims shape(x.shape());
  if (feature) {
    GLIA_CHECK(x.dim() >= 2, InvalidArgument, "Feature dropout requires at least 2 dimensions in the input");
    for (size_t i = 2; i < shape.size(); ++i) shape[i] = 1;
  }
  GLIA_CHECK(is_floating(x.dtype()), DType, "result type Float can't be cast to the desired output type ",
             scalar_type_name(x.dtype()));
  Tensor mask = ops::bernoulli_mask(shape, x.dtype(), x.device(), 1.0 - p);
  if (!alpha) return mul(x, div_scalar(mask, num(1.0 - p)));  // torch: noise.div_(1 - p)
  // torch: a = 1 / sqrt((alpha^2 p + 1)(1 - p)); b = (noise - 1) * alpha * a + alpha * a * p; x * (noise * a) + b
  constexpr double kAlpha = 1.7580993408473766;
  const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor b = add_scalar(mul_scalar(sub_scalar(mask, Scalar::from_int(1)), num(kAlpha * a)), num(kAlpha * a * p));
  return add(mul(x, mul_scalar(mask, num(a))), b);
}

Tensor dropout1d(const Tensor& x, double p, bool training) {
  GLIA_CHECK(p >= 0 && p <= 1, InvalidArgument, "dropout probability has to be between 0 and 1, but got ", p);
  const int64_t d = x.dim();
  GLIA_CHECK(d == 2 || d == 3, InvalidArgument, "dropout1d: Expected 2D or 3D input, but received a ", d,
             "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
             "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  if (d == 3) return dropout_impl(x, p, training, true, false);
  return squeeze(dropout_impl(unsqueeze(x, 0), p, training, true, false), Dims{0}, false);
}

Tensor dropout2d(const Tensor& x, double p, bool training) {
  GLIA_CHECK(p >= 0 && p <= 1, InvalidArgument, "dropout probability has to be between 0 and 1, but got ", p);
  // torch warns for inputs other than 3-D or 4-D and treats a 3-D input as [N, C, L].
  return dropout_impl(x, p, training, true, false);
}

Tensor dropout3d(const Tensor& x, double p, bool training) {
  GLIA_CHECK(p >= 0 && p <= 1, InvalidArgument, "dropout probability has to be between 0 and 1, but got ", p);
  // torch warns for inputs other than 4-D or 5-D; anything but 5-D gets a batch dim of 1.
  if (x.dim() == 5) return dropout_impl(x, p, training, true, false);
  return squeeze(dropout_impl(unsqueeze(x, 0), p, training, true, false), Dims{0}, false);
}

Tensor alpha_dropout(const Tensor& x, double p, bool training) { return dropout_impl(x, p, training, false, true); }

Tensor feature_alpha_dropout(const Tensor& x, double p, bool training) {
  return dropout_impl(x, p, training, true, true);
}

}  // namespace glia
