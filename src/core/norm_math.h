// The per-channel / per-row formulas of batch, layer and group normalisation (float64, as the CPU kernels
// compute them), shared by the CPU kernels (src/ops/cpu/norm.cpp) and the CUDA backend's (cuda/norm.cu):
// compiled by the host compiler and by nvcc, where GLIA_NORM_HD is __host__ __device__. In src/core/ because
// that is the one directory both may include (tests/layering/check_layers.py). The elementwise step of each
// kernel is then y = x * scale + shift (or (x - centre) * scale for layer norm) and dx = dy * a + x * b + c in
// the accumulation type of x (float for float32 and the 16-bit floats).
#ifndef GLIA_CORE_NORM_MATH_H
#define GLIA_CORE_NORM_MATH_H

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define GLIA_NORM_HD __host__ __device__ inline
#else
#define GLIA_NORM_HD inline
#endif

namespace glia::norm {

// 1 / sqrt(var + eps).
GLIA_NORM_HD double rstd_of(double var, double eps) { return 1.0 / std::sqrt(var + eps); }

// y = x * scale + shift.
struct Affine {
  double scale, shift;
};
// batch norm's: scale = rstd * w, shift = b - mean * scale (w = 1, b = 0 when absent).
GLIA_NORM_HD Affine batch_norm_affine(double mean, double rstd, double w, double b) {
  const double alpha = rstd * w;
  return {alpha, b - mean * alpha};
}
// group norm's, per channel: scale = rstd * w, shift = -scale * mean + b.
GLIA_NORM_HD Affine group_norm_affine(double mean, double rstd, double w, double b) {
  const double scale = rstd * w;
  return {scale, -scale * mean + b};
}

// torch's running-statistics update: momentum * stat * factor + (1 - momentum) * running (factor: 1 for the
// mean, count / (count - 1) for the variance, which makes it unbiased).
GLIA_NORM_HD double running_update(double running, double stat, double momentum, double factor) {
  return momentum * stat * factor + (1 - momentum) * running;
}

// dx = dy * a + x * b + c.
struct Coeffs {
  double a, b, c;
};

// batch norm, per channel, from s_dy = sum(dy) and s_dot = sum((x - mean) * dy) over the channel's `count`
// elements: training dx = (dy - mean(dy) - (x - mean) * rstd^2 * mean((x - mean) dy)) * rstd * w; eval (or
// count 0) dx = dy * rstd * w.
GLIA_NORM_HD Coeffs batch_norm_backward_coeffs(bool training, int64_t count, double mean, double rstd, double w,
                                               double s_dy, double s_dot) {
  const double k = rstd * w;
  double bx = 0, cst = 0;
  if (training && count > 0) {
    const double proj = s_dot * rstd * rstd / static_cast<double>(count);
    const double gmean = s_dy / static_cast<double>(count);
    bx = -proj * k;
    cst = (mean * proj - gmean) * k;
  }
  return {k, bx, cst};
}

// layer norm, per row of n, from ds = sum(dy * w * x) and db = sum(dy * w) (w = 1 when absent); dx = a * dy *
// w + b * x + c.
GLIA_NORM_HD Coeffs layer_norm_backward_coeffs(double mean, double rstd, double ds, double db, int64_t n) {
  const double a = rstd;
  const double b = (db * mean - ds) * a * a * a / static_cast<double>(n);
  const double c = -b * mean - db * a / static_cast<double>(n);
  return {a, b, c};
}

// group norm, per (sample, group) of len elements, from ds_g = sum_c w_c sum(dy * x) and db_g = sum_c w_c
// sum(dy); dx = rstd * w_c * dy + b * x + c (a is per channel: rstd * w_c, left 0 here).
GLIA_NORM_HD Coeffs group_norm_backward_coeffs(double mean, double rstd, double ds_g, double db_g, int64_t len) {
  const double s = 1.0 / static_cast<double>(len);
  const double c2 = (db_g * mean - ds_g) * rstd * rstd * rstd * s;
  const double c3 = -c2 * mean - db_g * rstd * s;
  return {0, c2, c3};
}

}  // namespace glia::norm

#endif  // GLIA_CORE_NORM_MATH_H
