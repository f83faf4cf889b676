// torch.nn.init.orthogonal_ (a Householder QR of a normal matrix, with torch's
// flattening and sign fix) and trunc_normal_ (torch's inverse-CDF method).
#include <cmath>
#include <numbers>
#include <vector>

#include "autograd/node.h"
#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"
#include "core/random.h"
#include "nn/init.h"

namespace glia::nn::init {

namespace {

void check_floating(const Tensor& t, const char* fn) {
  GLIA_CHECK(t.defined(), InvalidArgument, fn, ": tensor is undefined");
  GLIA_CHECK(is_floating(t.dtype()), DType, fn, ": expected a floating point tensor, got ", dtype_name(t.dtype()));
}

// Writes row-major doubles into t (any layout, floating dtype and device: a host tensor is
// copied over) and bumps its version.
void store(const Tensor& t, const std::vector<double>& v) {
  Tensor tmp = empty(t.shape(), DType::Float64, Device{});
  std::copy(v.begin(), v.end(), tmp.data_ptr<double>());
  copy_into(t, tmp);
  bump_version(t);
}

// The thin Q (m x n, m >= n, row-major) of A = QR with diag(R) made
// non-negative, as torch's q * sign(diag(r)) does after LAPACK's geqrf.
std::vector<double> thin_q(std::vector<double> a, int64_t m, int64_t n) {
  std::vector<std::vector<double>> vs(static_cast<size_t>(n));
  std::vector<double> rdiag(static_cast<size_t>(n));
  auto A = [&](int64_t i, int64_t j) -> double& { return a[static_cast<size_t>(i * n + j)]; };
  for (int64_t k = 0; k < n; ++k) {
    double norm2 = 0;
    for (int64_t i = k; i < m; ++i) norm2 += A(i, k) * A(i, k);
    double norm = std::sqrt(norm2);
    double alpha = A(k, k) > 0 ? -norm : norm;
    std::vector<double>& v = vs[static_cast<size_t>(k)];
    v.assign(static_cast<size_t>(m - k), 0.0);
    for (int64_t i = k; i < m; ++i) v[static_cast<size_t>(i - k)] = A(i, k);
    v[0] -= alpha;
    double vn = 0;
    for (double x : v) vn += x * x;
    rdiag[static_cast<size_t>(k)] = alpha;
    if (vn == 0) {  // the column is already zero below the diagonal
      v.clear();
      rdiag[static_cast<size_t>(k)] = A(k, k);
      continue;
    }
    vn = std::sqrt(vn);
    for (double& x : v) x /= vn;
    // A[k:, k:] -= 2 v (v^T A[k:, k:]), column by column.
    parallel_for(k + 1, n, 64, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        double dot = 0;
        for (int64_t i = k; i < m; ++i) dot += v[static_cast<size_t>(i - k)] * A(i, j);
        for (int64_t i = k; i < m; ++i) A(i, j) -= 2 * dot * v[static_cast<size_t>(i - k)];
      }
    });
  }
  // Q = H_0 ... H_{n-1} I[:, :n].
  std::vector<double> q(static_cast<size_t>(m * n), 0.0);
  auto Q = [&](int64_t i, int64_t j) -> double& { return q[static_cast<size_t>(i * n + j)]; };
  for (int64_t i = 0; i < n; ++i) Q(i, i) = 1.0;
  for (int64_t k = n - 1; k >= 0; --k) {
    const std::vector<double>& v = vs[static_cast<size_t>(k)];
    if (v.empty()) continue;
    parallel_for(0, n, 64, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        double dot = 0;
        for (int64_t i = k; i < m; ++i) dot += v[static_cast<size_t>(i - k)] * Q(i, j);
        for (int64_t i = k; i < m; ++i) Q(i, j) -= 2 * dot * v[static_cast<size_t>(i - k)];
      }
    });
  }
  // torch: ph = sign(diag(r)) (sign(0) = 0); q *= ph.
  for (int64_t j = 0; j < n; ++j) {
    double d = rdiag[static_cast<size_t>(j)];
    double s = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
    for (int64_t i = 0; i < m; ++i) Q(i, j) *= s;
  }
  return q;
}

// erfinv on (-1, 1) in double: Giles' single-precision approximation refined
// by Newton steps against std::erf.
double erfinv(double y) {
  if (y <= -1) return y == -1 ? -INFINITY : NAN;
  if (y >= 1) return y == 1 ? INFINITY : NAN;
  double w = -std::log((1.0 - y) * (1.0 + y)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
                     0.246640727, 1.50140941})
      p = c + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                     1.00167406, 2.83297682})
      p = c + p * w;
  }
  double x = p * y;
  const double k = 2.0 / std::sqrt(std::numbers::pi);
  for (int it = 0; it < 3; ++it) {
    double d = k * std::exp(-x * x);
    if (d == 0) break;
    x -= (std::erf(x) - y) / d;
  }
  return x;
}

}  // namespace

void orthogonal_(const Tensor& t, double gain) {
  check_floating(t, "orthogonal_");
  GLIA_CHECK(t.dim() >= 2, InvalidArgument, "Only tensors with 2 or more dimensions are supported");
  if (t.numel() == 0) return;
  const int64_t rows = t.size(0), cols = t.numel() / rows;
  const bool transposed = rows < cols;
  const int64_t m = transposed ? cols : rows, n = transposed ? rows : cols;
  Generator& g = thread_generator();
  // The normal draws fill the (rows, cols) matrix row-major, as torch's flattened.normal_ does.
  std::vector<double> flat(static_cast<size_t>(rows * cols));
  for (double& x : flat) x = g.next_normal();
  std::vector<double> a(static_cast<size_t>(m * n));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      double v = flat[static_cast<size_t>(r * cols + c)];
      if (transposed)
        a[static_cast<size_t>(c * n + r)] = v;
      else
        a[static_cast<size_t>(r * n + c)] = v;
    }
  std::vector<double> q = thin_q(std::move(a), m, n);
  std::vector<double> out(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[static_cast<size_t>(r * cols + c)] =
          gain * (transposed ? q[static_cast<size_t>(c * n + r)] : q[static_cast<size_t>(r * n + c)]);
  store(t, out);
}

void trunc_normal_(const Tensor& t, double mean, double std, double a, double b) {
  check_floating(t, "trunc_normal_");
  if (mean < a - 2 * std || mean > b + 2 * std)
    log(LogLevel::Warning,
        "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be incorrect.");
  auto norm_cdf = [](double x) { return (1. + std::erf(x / std::sqrt(2.))) / 2.; };
  const double l = norm_cdf((a - mean) / std), u = norm_cdf((b - mean) / std);
  const double lo = 2 * l - 1, hi = 2 * u - 1;
  Generator& g = thread_generator();
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (double& x : v) {
    double y = lo + (hi - lo) * g.next_double();
    x = erfinv(y) * (std * std::sqrt(2.)) + mean;
    x = std::min(std::max(x, a), b);  // torch's clamp_(min=a, max=b)
  }
  store(t, v);
}

}  // namespace glia::nn::init
