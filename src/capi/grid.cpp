// glia_grid_sample, glia_affine_grid, glia_fractional_max_pool2d / 3d (autograd/fn/grid.h): argument checks,
// torch.nn.functional's Python-level defaults (None align_corners with its warning, output_ratio, the
// default random samples) and the exception barrier.
#include "autograd/fn/grid.h"

#include <cmath>
#include <vector>

#include "capi/api.h"
#include "core/log.h"

using namespace glia;
using namespace glia::capi;

namespace {

const char* kAlignWarning =
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details.";

// align_corners: -1 (None: False, with torch's warning), 0 or 1.
bool align_arg(int32_t v, const char* fn) {
  GLIA_CHECK(v >= -1 && v <= 1, InvalidArgument, fn, ": argument 'align_corners' must be -1 (None), 0 or 1, got ", v);
  if (v < 0) {
    if (log_enabled(LogLevel::Warning)) log(LogLevel::Warning, kAlignWarning);
    return false;
  }
  return v != 0;
}

template <class T>
void list_arg(const T* p, int64_t n, const char* fn, const char* arg, const char* n_arg) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument '", n_arg, "' must be >= 0, got ", n);
  GLIA_CHECK(p || n == 0, InvalidArgument, fn, ": argument '", arg, "' is NULL with ", n_arg, " ", n);
}

glia_error* fractional_entry(const glia_tensor* x, const int64_t* kernel_size, int64_t n_kernel_size,
                             const int64_t* output_size, int64_t n_output_size, const double* output_ratio,
                             int64_t n_output_ratio, const glia_tensor* random_samples, glia_tensor** out,
                             glia_tensor** out_indices, int64_t k, const char* fn) {
  return guard([&] {
    Tensor xt = tensor_arg(x, fn, "x");
    Tensor st = tensor_opt(random_samples, fn, "random_samples");
    check_out(out, fn, "out");
    list_arg(kernel_size, n_kernel_size, fn, "kernel_size", "n_kernel_size");
    list_arg(output_size, n_output_size, fn, "output_size", "n_output_size");
    list_arg(output_ratio, n_output_ratio, fn, "output_ratio", "n_output_ratio");
    const char* name = k == 3 ? "fractional_max_pool3d" : "fractional_max_pool2d";
    GLIA_CHECK(n_output_size > 0 || n_output_ratio > 0, InvalidArgument, name,
               " requires specifying either an output_size or an output_ratio");
    // A single value stands for every spatial dim (torch's int), else the list as given.
    std::vector<int64_t> ks(kernel_size, kernel_size + n_kernel_size), os;
    if (ks.size() == 1) ks.assign(static_cast<size_t>(k), ks[0]);
    if (n_output_size > 0) {
      os.assign(output_size, output_size + n_output_size);
      if (os.size() == 1) os.assign(static_cast<size_t>(k), os[0]);
    } else {
      std::vector<double> r(output_ratio, output_ratio + n_output_ratio);
      if (r.size() == 1) r.assign(static_cast<size_t>(k), r[0]);
      GLIA_CHECK(static_cast<int64_t>(r.size()) == k, InvalidArgument, name,
                 ": output_ratio must be a single float or ", k, " floats, got ", r.size());
      // torch: [int(input.size(-k + j) * ratio[j])]
      for (int64_t j = 0; j < k; ++j) {
        const int64_t d = xt.dim() - k + j;
        os.push_back(d >= 0 ? static_cast<int64_t>(std::trunc(static_cast<double>(xt.size(d)) * r[j])) : 0);
      }
    }
    Tensor idx;
    Tensor y = fractional_max_pool(xt, k, ks, os, st.defined() ? &st : nullptr, out_indices ? &idx : nullptr);
    glia_tensor* hy = tensor_handle(y);
    if (out_indices) *out_indices = tensor_handle(idx);
    *out = hy;
  });
}

}  // namespace

extern "C" {

glia_error* glia_grid_sample(const glia_tensor* input, const glia_tensor* grid, glia_grid_sample_mode mode,
                             glia_grid_padding padding, int32_t align_corners, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_grid_sample";
    Tensor x = tensor_arg(input, fn, "input");
    Tensor g = tensor_arg(grid, fn, "grid");
    check_out(out, fn, "out");
    const int m = static_cast<int>(mode), p = static_cast<int>(padding);
    GLIA_CHECK(m >= 0 && m <= 2, InvalidArgument,
               "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: ", m);
    GLIA_CHECK(
        p >= 0 && p <= 2, InvalidArgument,
        "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: ", p);
    const bool align = align_arg(align_corners, fn);
    *out = tensor_handle(grid_sample(x, g, m, p, align));
  });
}

glia_error* glia_affine_grid(const glia_tensor* theta, const int64_t* size, int64_t n_size, int32_t align_corners,
                             glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_affine_grid";
    Tensor t = tensor_arg(theta, fn, "theta");
    check_out(out, fn, "out");
    list_arg(size, n_size, fn, "size", "n_size");
    const bool align = align_arg(align_corners, fn);
    const IntSpan sz(size, static_cast<size_t>(n_size));
    if (align && (n_size == 4 || n_size == 5)) {
      int64_t smallest = sz[2];
      for (int64_t j = 2; j < n_size; ++j) smallest = std::min(smallest, sz[j]);
      if (smallest == 1 && log_enabled(LogLevel::Warning))
        log(LogLevel::Warning,
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. This "
            "is not an intended use case of affine_grid. See the documentation of affine_grid for details.");
    }
    *out = tensor_handle(affine_grid(t, sz, align));
  });
}

glia_error* glia_fractional_max_pool2d(const glia_tensor* x, const int64_t* kernel_size, int64_t n_kernel_size,
                                       const int64_t* output_size, int64_t n_output_size, const double* output_ratio,
                                       int64_t n_output_ratio, const glia_tensor* random_samples, glia_tensor** out,
                                       glia_tensor** out_indices) {
  return fractional_entry(x, kernel_size, n_kernel_size, output_size, n_output_size, output_ratio, n_output_ratio,
                          random_samples, out, out_indices, 2, "glia_fractional_max_pool2d");
}

glia_error* glia_fractional_max_pool3d(const glia_tensor* x, const int64_t* kernel_size, int64_t n_kernel_size,
                                       const int64_t* output_size, int64_t n_output_size, const double* output_ratio,
                                       int64_t n_output_ratio, const glia_tensor* random_samples, glia_tensor** out,
                                       glia_tensor** out_indices) {
  return fractional_entry(x, kernel_size, n_kernel_size, output_size, n_output_size, output_ratio, n_output_ratio,
                          random_samples, out, out_indices, 3, "glia_fractional_max_pool3d");
}

}  // extern "C"

extern "C" glia_error* glia_conv_tbc(const glia_tensor* input, const glia_tensor* weight, const glia_tensor* bias,
                                     int64_t pad, glia_tensor** out) {
  return guard([&] {
    const char* fn = "glia_conv_tbc";
    Tensor x = tensor_arg(input, fn, "input");
    Tensor w = tensor_arg(weight, fn, "weight");
    Tensor b = tensor_arg(bias, fn, "bias");
    check_out(out, fn, "out");
    *out = tensor_handle(glia::conv_tbc(x, w, b, pad));
  });
}
