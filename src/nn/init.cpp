#include "nn/init.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/node.h"
#include "core/random.h"

namespace glia::nn::init {

namespace {

// Draws one double per element (row-major order) and writes them into t. The draws are made on
// the host, from the calling thread's generator, into a CPU float64 tensor that is then copied
// into t wherever it lives: a tensor on a device gets exactly the values the CPU would.
template <class F>
void fill_with(const Tensor& t, const char* fn, F draw) {
  GLIA_CHECK(t.defined(), InvalidArgument, fn, ": tensor is undefined");
  GLIA_CHECK(is_floating(t.dtype()), DType, fn, ": expected a floating point tensor, got ", dtype_name(t.dtype()));
  Tensor tmp = empty(t.shape(), DType::Float64, Device{});
  double* p = tmp.data_ptr<double>();
  for (int64_t i = 0; i < tmp.numel(); ++i) p[i] = draw();
  copy_into(t, tmp);
  bump_version(t);
}

void fill_value(const Tensor& t, double v, const char* fn) {
  GLIA_CHECK(t.defined(), InvalidArgument, fn, ": tensor is undefined");
  fill(t, v);
  bump_version(t);
}

double fan(const Tensor& t, FanMode mode) {
  auto [in, out] = fans(t);
  return static_cast<double>(mode == FanMode::FanIn ? in : out);
}

}  // namespace

double calculate_gain(const std::string& nl, double param) {
  static const char* linear_fns[] = {"linear",           "conv1d",           "conv2d",          "conv3d",
                                     "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
  for (const char* f : linear_fns)
    if (nl == f) return 1.0;
  if (nl == "sigmoid") return 1.0;
  if (nl == "tanh") return 5.0 / 3.0;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") {
    double slope = std::isnan(param) ? 0.01 : param;
    return std::sqrt(2.0 / (1.0 + slope * slope));
  }
  if (nl == "selu") return 3.0 / 4.0;
  fail(Code::InvalidArgument, "Unsupported nonlinearity ", nl);
}

std::pair<int64_t, int64_t> fans(const Tensor& t) {
  GLIA_CHECK(t.dim() >= 2, InvalidArgument,
             "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

void uniform_(const Tensor& t, double a, double b) {
  Generator& g = thread_generator();
  fill_with(t, "uniform_", [&] { return a + (b - a) * g.next_double(); });
}

void normal_(const Tensor& t, double mean, double std) {
  Generator& g = thread_generator();
  fill_with(t, "normal_", [&] { return mean + std * g.next_normal(); });
}

void constant_(const Tensor& t, double value) { fill_value(t, value, "constant_"); }
void ones_(const Tensor& t) { fill_value(t, 1.0, "ones_"); }
void zeros_(const Tensor& t) { fill_value(t, 0.0, "zeros_"); }

void eye_(const Tensor& t) {
  GLIA_CHECK(t.defined() && t.dim() == 2, InvalidArgument, "Only tensors with 2 dimensions are supported");
  int64_t cols = t.size(1);
  int64_t i = 0;
  fill_with(t, "eye_", [&] {
    int64_t r = i / cols, c = i % cols;
    ++i;
    return r == c ? 1.0 : 0.0;
  });
}

void dirac_(const Tensor& t, int64_t groups) {
  GLIA_CHECK(t.defined() && t.dim() >= 3 && t.dim() <= 5, InvalidArgument,
             "Only tensors with 3, 4, or 5 dimensions are supported");
  GLIA_CHECK(groups > 0, InvalidArgument, "dirac_: groups must be positive, got ", groups);
  GLIA_CHECK(t.size(0) % groups == 0, InvalidArgument, "dim 0 must be divisible by groups");
  const int64_t per_group = t.size(0) / groups, min_dim = std::min(per_group, t.size(1));
  // Row-major strides of the contiguous draw order, and the flat offset of the kernel's centre.
  int64_t centre = 0, inner = 1;
  for (int64_t d = t.dim() - 1; d >= 2; --d) {
    centre += (t.size(d) / 2) * inner;
    inner *= t.size(d);
  }
  const int64_t per_in = inner, per_out = t.size(1) * inner;
  int64_t i = 0;
  fill_with(t, "dirac_", [&] {
    const int64_t o = i / per_out, c = (i % per_out) / per_in, k = i % per_in;
    ++i;
    return (k == centre && c < min_dim && o % per_group == c) ? 1.0 : 0.0;
  });
}

void sparse_(const Tensor& t, double sparsity, double std) {
  GLIA_CHECK(t.defined() && t.dim() == 2, InvalidArgument, "Only tensors with 2 dimensions are supported");
  GLIA_CHECK(sparsity >= 0.0 && sparsity <= 1.0, InvalidArgument, "sparse_: sparsity must be in [0, 1], got ",
             sparsity);
  const int64_t rows = t.size(0), cols = t.size(1);
  const auto zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  Generator& g = thread_generator();
  std::vector<double> v(static_cast<size_t>(rows * cols));
  for (double& x : v) x = std * g.next_normal();
  // Per column, the first `zeros` rows of a random permutation (partial Fisher-Yates) become 0.
  std::vector<int64_t> perm(static_cast<size_t>(rows));
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < rows; ++r) perm[r] = r;
    for (int64_t k = 0; k < zeros; ++k) {
      int64_t j = k + static_cast<int64_t>(g.next_double() * static_cast<double>(rows - k));
      std::swap(perm[k], perm[std::min(j, rows - 1)]);
      v[perm[k] * cols + c] = 0.0;
    }
  }
  size_t i = 0;
  fill_with(t, "sparse_", [&] { return v[i++]; });
}

void xavier_uniform_(const Tensor& t, double gain) {
  auto [in, out] = fans(t);
  double std = gain * std::sqrt(2.0 / static_cast<double>(in + out));
  double a = std::sqrt(3.0) * std;
  uniform_(t, -a, a);
}

void xavier_normal_(const Tensor& t, double gain) {
  auto [in, out] = fans(t);
  normal_(t, 0.0, gain * std::sqrt(2.0 / static_cast<double>(in + out)));
}

void kaiming_uniform_(const Tensor& t, double a, FanMode mode, const std::string& nonlinearity) {
  GLIA_CHECK(t.defined(), InvalidArgument, "kaiming_uniform_: tensor is undefined");
  if (t.numel() == 0) return;  // torch warns "Initializing zero-element tensors is a no-op"
  double f = fan(t, mode);
  double bound = std::sqrt(3.0) * calculate_gain(nonlinearity, a) / std::sqrt(f);
  uniform_(t, -bound, bound);
}

void kaiming_normal_(const Tensor& t, double a, FanMode mode, const std::string& nonlinearity) {
  GLIA_CHECK(t.defined(), InvalidArgument, "kaiming_normal_: tensor is undefined");
  if (t.numel() == 0) return;
  double f = fan(t, mode);
  normal_(t, 0.0, calculate_gain(nonlinearity, a) / std::sqrt(f));
}

double bias_bound(const Tensor& weight) {
  auto [in, out] = fans(weight);
  return in > 0 ? 1.0 / std::sqrt(static_cast<double>(in)) : 0.0;
}

}  // namespace glia::nn::init
