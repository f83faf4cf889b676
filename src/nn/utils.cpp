#include "nn/utils.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/error.h"
#include "nn/repr.h"

namespace glia::nn::utils {

namespace {

std::vector<Tensor> grads_of(const std::vector<Tensor>& params) {
  std::vector<Tensor> gs;
  for (const Tensor& p : params) {
    GLIA_CHECK(p.defined(), InvalidArgument, "clip_grad: a parameter is undefined");
    AutogradMeta* m = autograd_meta_if(p);
    if (m && m->grad.defined()) gs.push_back(m->grad);
  }
  return gs;
}

// torch.norm(v, p) over doubles: inf -> max |x|, -inf -> min |x|, 0 -> count of non-zeros.
template <class Get>
double vector_norm(int64_t n, double p, Get get) {
  if (std::isinf(p)) {
    double r = p > 0 ? 0.0 : std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i) {
      double a = std::fabs(get(i));
      if (std::isnan(a)) return a;
      r = p > 0 ? std::max(r, a) : std::min(r, a);
    }
    return n == 0 && p < 0 ? 0.0 : r;
  }
  if (p == 0) {
    double c = 0;
    for (int64_t i = 0; i < n; ++i) c += get(i) != 0 ? 1 : 0;
    return c;
  }
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += p == 2.0 ? get(i) * get(i) : std::pow(std::fabs(get(i)), p);
  return p == 2.0 ? std::sqrt(s) : (p == 1.0 ? s : std::pow(s, 1.0 / p));
}

double tensor_norm(const Tensor& g, double p) {
  Tensor d = contiguous(to_dtype(g, DType::Float64));
  const double* x = d.data_ptr<double>();
  double r = vector_norm(d.numel(), p, [&](int64_t i) { return x[i]; });
  // torch computes the per-grad norm in the grad's dtype.
  return item_double(to_dtype(full({}, r, DType::Float64), g.dtype()));
}

}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type, bool error_if_nonfinite) {
  std::vector<Tensor> gs = grads_of(params);
  if (gs.empty()) return 0.0;
  std::vector<double> norms;
  for (const Tensor& g : gs) norms.push_back(tensor_norm(g, norm_type));
  double total = gs.size() == 1 && std::isinf(norm_type) && norm_type > 0
                     ? norms[0]
                     : vector_norm(static_cast<int64_t>(norms.size()), norm_type, [&](int64_t i) { return norms[i]; });
  if (error_if_nonfinite && !std::isfinite(total))
    fail(Code::InvalidArgument, "The total norm of order ", py_float(norm_type),
         " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale "
         "the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  double coef = std::min(max_norm / (total + 1e-6), 1.0);
  if (std::isnan(max_norm / (total + 1e-6))) coef = std::numeric_limits<double>::quiet_NaN();  // torch.clamp keeps NaN
  GradModeGuard no_grad(false);
  for (const Tensor& g : gs) {
    Tensor d = contiguous(to_dtype(g, DType::Float64));
    double* x = d.data_ptr<double>();
    for (int64_t i = 0; i < d.numel(); ++i) x[i] *= coef;
    copy_into(g, d);
    bump_version(g);
  }
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  GradModeGuard no_grad(false);
  for (const Tensor& g : grads_of(params)) {
    Tensor d = contiguous(to_dtype(g, DType::Float64));
    double* x = d.data_ptr<double>();
    for (int64_t i = 0; i < d.numel(); ++i) {
      // torch.clamp: NaN stays NaN.
      if (x[i] < -clip_value) x[i] = -clip_value;
      if (x[i] > clip_value) x[i] = clip_value;
    }
    copy_into(g, d);
    bump_version(g);
  }
}

}  // namespace glia::nn::utils
