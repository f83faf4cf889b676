// Grid sampling and fractional max pooling (ops/grid.h): the meta parts with torch 1.13's checks and the
// CPU kernels. grid_sampler: one pass over the output positions (parallel over N * rows), the sampling
// positions computed once per position and used for every channel; the 2-D formulas follow torch's
// vectorised CPU kernel (GridSamplerKernel.cpp), the 3-D ones its generic kernel (GridSampler.cpp). The
// backward runs parallel over the batch (each batch element's input gradient is its own).
#include "ops/grid.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/dispatch.h"
#include "core/grid_math.h"
#include "ops/cpu/loops.h"
#include "ops/iter.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

void check_grid_sampler(const Tensor& input, const Tensor& grid, int64_t mode) {
  GLIA_CHECK(input.device() == grid.device(), Device,
             "grid_sampler(): expected input and grid to be on same device, but input is on ", input.device(),
             " and grid is on ", grid.device());
  GLIA_CHECK(input.dim() >= 1 && grid.dim() >= 1, Shape,
             "grid_sampler(): expected input and grid with at least one dimension, but got input with sizes ",
             input.shape(), " and grid with sizes ", grid.shape());
  GLIA_CHECK(input.size(0) == grid.size(0), Shape,
             "grid_sampler(): expected grid and input to have same batch size, but got input with sizes ",
             input.shape(), " and grid with sizes ", grid.shape());
  GLIA_CHECK(grid.size(grid.dim() - 1) == input.dim() - 2, Shape, "grid_sampler(): expected grid to have size ",
             input.dim() - 2, " in last dimension, but got grid with sizes ", grid.shape());
  for (int64_t i = 2; i < input.dim(); ++i)
    GLIA_CHECK(input.size(i) > 0, Shape,
               "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes ",
               input.shape(), " with dimension ", i, " being empty");
  if (input.dim() == 4) {
    GLIA_CHECK(input.dim() == grid.dim(), Shape,
               "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with sizes ",
               input.shape(), " and grid with sizes ", grid.shape());
    if (input.dtype() != DType::Float32 && input.dtype() != DType::Float64)
      fail(Code::DType, "grid_sampler_2d_cpu not implemented for ", scalar_type_name(input.dtype()));
  } else {
    GLIA_CHECK(input.dim() == 5 && input.dim() == grid.dim(), Shape,
               "grid_sampler(): expected 5D input and grid with same number of dimensions, but got input with sizes ",
               input.shape(), " and grid with sizes ", grid.shape());
    GLIA_CHECK(mode != math::kGridBicubic, Shape, "grid_sampler(): bicubic interpolation only supports 4D input");
    if (input.dtype() != DType::Float32 && input.dtype() != DType::Float64)
      not_implemented_for("grid_sampler3d_cpu", input.dtype());
  }
  GLIA_CHECK(grid.dtype() == input.dtype(), DType, "expected scalar type ", scalar_type_name(input.dtype()),
             " but found ", scalar_type_name(grid.dtype()));
}

}  // namespace

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding_mode, bool align_corners) {
  check_grid_sampler(input, grid, mode);
  Dims shape{input.size(0), input.size(1)};
  for (int64_t d = 1; d + 1 < grid.dim(); ++d) shape.push_back(grid.size(d));
  Tensor out = empty(shape, input.dtype(), input.device());
  if (out.numel() == 0) return out;
  Tensor x = contiguous(input), g = contiguous(grid);
  run_kernel(KernelId::grid_sampler, input.device(), {&x, &g}, {&out},
             {attr_i(mode), attr_i(padding_mode), attr_i(align_corners ? 1 : 0)});
  return out;
}

std::pair<Tensor, Tensor> grid_sampler_backward(const Tensor& grad, const Tensor& input, const Tensor& grid,
                                                int64_t mode, int64_t padding_mode, bool align_corners) {
  check_grid_sampler(input, grid, mode);
  GLIA_CHECK(grad.dtype() == input.dtype(), DType, "expected scalar type ", scalar_type_name(input.dtype()),
             " but found ", scalar_type_name(grad.dtype()));
  const Device dev = input.device();
  if (grad.numel() == 0 || input.numel() == 0)
    return {zeros(input.shape(), input.dtype(), dev), zeros(grid.shape(), grid.dtype(), dev)};
  Tensor gi = empty(input.shape(), input.dtype(), dev);  // the kernel zero-fills it
  Tensor gg = empty(grid.shape(), grid.dtype(), dev);
  Tensor gy = contiguous(grad), x = contiguous(input), g = contiguous(grid);
  run_kernel(KernelId::grid_sampler_backward, dev, {&gy, &x, &g}, {&gi, &gg},
             {attr_i(mode), attr_i(padding_mode), attr_i(align_corners ? 1 : 0)});
  return {gi, gg};
}

Tensor fractional_max_pool(const Tensor& input, int64_t k, IntSpan kernel_size, IntSpan output_size,
                           const Tensor* samples_in, Tensor* indices) {
  const bool three = k == 3;
  const char* fn = three ? "fractional_max_pool3d_out()" : "fractional_max_pool2d()";
  GLIA_CHECK(static_cast<int64_t>(kernel_size.size()) == k, InvalidArgument,
             three ? "fractional_max_pool3d: kernel_size must either be a single Int or tuple of three Ints"
                   : "fractional_max_pool2d: kernel_size must either be a single Int or tuple of Ints");
  GLIA_CHECK(static_cast<int64_t>(output_size.size()) == k, InvalidArgument,
             three ? "fractional_max_pool3d: output_size must either be a single Int or tuple of three Ints"
                   : "fractional_max_pool2d: output_size must either be a single Int or tuple of Ints");
  const int64_t nd = input.dim();
  if (three)
    GLIA_CHECK(nd == 4 || nd == 5, Shape, fn, ": Expected 4D or 5D tensor, but got: ", input.shape());
  else
    GLIA_CHECK(nd == 3 || nd == 4, Shape, fn, ": Expected 3D or 4D tensor, but got: ", input.shape());
  for (int64_t i = 1; i < nd; ++i)
    GLIA_CHECK(input.size(i) > 0, Shape, fn, ": Expected input to have non-zero size for non-batch dimensions, but got",
               input.shape(), " with dimension ", i, " being empty.");
  const bool batched = nd == k + 2;
  const int64_t b = batched ? 1 : 0;
  static const char* dim_names[3] = {"time", "height", "width"};
  for (int64_t j = 0; j < k; ++j) {
    const int64_t in = input.size(b + 1 + j);
    GLIA_CHECK(output_size[j] + kernel_size[j] - 1 <= in, Shape, fn, ": pool ", dim_names[3 - k + j], " ",
               kernel_size[j], " too large relative to input ", dim_names[3 - k + j], " ", in);
  }
  if (input.dtype() != DType::Float32 && input.dtype() != DType::Float64)
    not_implemented_for(three ? "fractional_max_pool3d_out_frame" : "fractional_max_pool2d_out_frame", input.dtype());
  // glia's checks where torch reads out of bounds: the kernel must be positive, random_samples [N, C, k].
  for (int64_t j = 0; j < k; ++j)
    GLIA_CHECK(kernel_size[j] > 0, InvalidArgument, fn, ": kernel_size must be greater than zero, but got ",
               Dims(kernel_size));
  const int64_t n = batched ? input.size(0) : 1, c = input.size(b);
  // torch.nn.functional's default: torch.rand(N, C, k) in the input's dtype, on its device.
  const int64_t sshape[3] = {n, c, k};
  const Tensor samples = samples_in ? *samples_in : rand(sshape, input.dtype(), input.device());
  GLIA_CHECK(samples.dtype() == input.dtype(), DType, "expected scalar type ", scalar_type_name(input.dtype()),
             " but found ", scalar_type_name(samples.dtype()));
  GLIA_CHECK(samples.device() == input.device(), Device, fn, ": expected _random_samples on the input's device ",
             input.device(), ", but got ", samples.device());
  GLIA_CHECK(samples.dim() == 3 && samples.size(0) == n && samples.size(1) == c && samples.size(2) == k, Shape, fn,
             ": expected _random_samples of shape [", n, ", ", c, ", ", k, "], but got ", samples.shape());
  Dims shape;
  if (batched) shape.push_back(n);
  shape.push_back(c);
  for (int64_t j = 0; j < k; ++j) shape.push_back(output_size[j]);
  Tensor y = empty(shape, input.dtype(), input.device());
  Tensor idx = empty(shape, DType::Int64, input.device());
  if (y.numel() > 0) {
    Tensor x = contiguous(input), s = contiguous(samples);
    run_kernel(three ? KernelId::fractional_max_pool3d : KernelId::fractional_max_pool2d, input.device(), {&x, &s},
               {&y, &idx}, {attr_ints(kernel_size)});
  }
  if (indices) *indices = idx;
  return y;
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

namespace {

using namespace glia::math;
using ops::kGrain;

template <class F>
void dispatch_real(DType t, F&& f) {
  if (t == DType::Float64)
    f(double{});
  else
    f(float{});
}

struct GridArgs {
  int mode, padding;
  bool align;
};

GridArgs grid_args(const KernelArgs& k) {
  return {static_cast<int>(k.attr(0).i), static_cast<int>(k.attr(1).i), k.attr(2).i != 0};
}

template <class T>
inline bool cubic_tap(T x, T y, int64_t W, int64_t H, const GridArgs& a, int64_t& at) {
  return grid_cubic_tap<T>(x, y, W, H, a.padding, a.align, &at);
}

// ---- 2-D: input [N, C, H, W], grid [N, Ho, Wo, 2], out [N, C, Ho, Wo].
template <class T>
void grid_sample_2d(const Tensor& xt, const Tensor& gt, const Tensor& yt, const GridArgs& a) {
  const int64_t N = xt.size(0), C = xt.size(1), H = xt.size(2), W = xt.size(3), Ho = yt.size(2), Wo = yt.size(3);
  const T* xp = xt.data_ptr<T>();
  const T* gp = gt.data_ptr<T>();
  T* yp = yt.data_ptr<T>();
  const int64_t plane = H * W, oplane = Ho * Wo;
  parallel_for(0, N * Ho, std::max<int64_t>(1, kGrain / std::max<int64_t>(Wo * C, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / Ho, h = r % Ho;
      const T* src = xp + n * C * plane;
      for (int64_t w = 0; w < Wo; ++w) {
        const T* gxy = gp + ((n * Ho + h) * Wo + w) * 2;
        T* dst = yp + n * C * oplane + h * Wo + w;
        if (a.mode == kGridBicubic) {
          const T x = grid_unnormalize<T>(gxy[0], W, a.align), y = grid_unnormalize<T>(gxy[1], H, a.align);
          const T fx = std::floor(x), fy = std::floor(y);
          T cx[4], cy[4];
          grid_cubic_coefficients<T>(cx, x - fx);
          grid_cubic_coefficients<T>(cy, y - fy);
          int64_t at[4][4];
          bool in[4][4];
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) in[i][j] = cubic_tap<T>(fx - T(1) + T(j), fy - T(1) + T(i), W, H, a, at[i][j]);
          for (int64_t c = 0; c < C; ++c) {
            const T* s = src + c * plane;
            T rows[4];
            for (int i = 0; i < 4; ++i) {
              T v[4];
              for (int j = 0; j < 4; ++j) v[j] = in[i][j] ? s[at[i][j]] : T(0);
              rows[i] = cx[0] * v[0] + cx[1] * v[1] + cx[2] * v[2] + cx[3] * v[3];
            }
            dst[c * oplane] = cy[0] * rows[0] + cy[1] * rows[1] + cy[2] * rows[2] + cy[3] * rows[3];
          }
          continue;
        }
        const T x = grid_source_index<T>(gxy[0], W, a.padding, a.align);
        const T y = grid_source_index<T>(gxy[1], H, a.padding, a.align);
        if (a.mode == kGridNearest) {
          const int64_t ix = grid_nearest_index(x), iy = grid_nearest_index(y);
          const bool inside = grid_in_bounds(ix, W) && grid_in_bounds(iy, H);
          for (int64_t c = 0; c < C; ++c) dst[c * oplane] = inside ? src[c * plane + iy * W + ix] : T(0);
          continue;
        }
        const T xw = std::floor(x), yn = std::floor(y);
        const int64_t ix = static_cast<int64_t>(xw), iy = static_cast<int64_t>(yn);
        const T we = x - xw, ea = T(1) - we, no = y - yn, so = T(1) - no;
        const T nw = so * ea, ne = so * we, sw = no * ea, se = no * we;
        const bool bw = grid_in_bounds(ix, W), be = grid_in_bounds(ix + 1, W), bn = grid_in_bounds(iy, H),
                   bs = grid_in_bounds(iy + 1, H);
        const int64_t o = iy * W + ix;
        for (int64_t c = 0; c < C; ++c) {
          const T* s = src + c * plane;
          const T vnw = bn && bw ? s[o] : T(0), vne = bn && be ? s[o + 1] : T(0);
          const T vsw = bs && bw ? s[o + W] : T(0), vse = bs && be ? s[o + W + 1] : T(0);
          dst[c * oplane] = vnw * nw + vne * ne + vsw * sw + vse * se;
        }
      }
    }
  });
}

template <class T>
void grid_sample_2d_backward(const Tensor& gyt, const Tensor& xt, const Tensor& gt, const Tensor& git,
                             const Tensor& ggt, const GridArgs& a) {
  const int64_t N = xt.size(0), C = xt.size(1), H = xt.size(2), W = xt.size(3), Ho = gyt.size(2), Wo = gyt.size(3);
  const T* gyp = gyt.data_ptr<T>();
  const T* xp = xt.data_ptr<T>();
  const T* gp = gt.data_ptr<T>();
  T* gip = git.data_ptr<T>();
  T* ggp = ggt.data_ptr<T>();
  const int64_t plane = H * W, oplane = Ho * Wo;
  parallel_for(0, N, std::max<int64_t>(1, kGrain / std::max<int64_t>(oplane * C, 1)), [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) {
      const T* src = xp + n * C * plane;
      T* gsrc = gip + n * C * plane;
      const T* go = gyp + n * C * oplane;
      for (int64_t p = 0; p < oplane; ++p) {
        const T* gxy = gp + (n * oplane + p) * 2;
        T* gg = ggp + (n * oplane + p) * 2;
        if (a.mode == kGridBicubic) {
          T mx, my;
          const T x = grid_unnormalize<T>(gxy[0], W, a.align, &mx), y = grid_unnormalize<T>(gxy[1], H, a.align, &my);
          const T fx = std::floor(x), fy = std::floor(y);
          T cx[4], cy[4], dx[4], dy[4];
          grid_cubic_coefficients<T>(cx, x - fx);
          grid_cubic_coefficients<T>(cy, y - fy);
          grid_cubic_coefficients_grad<T>(dx, x - fx);
          grid_cubic_coefficients_grad<T>(dy, y - fy);
          int64_t at[4][4];
          bool in[4][4];
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) in[i][j] = cubic_tap<T>(fx - T(1) + T(i), fy - T(1) + T(j), W, H, a, at[i][j]);
          T gx = T(0), gyv = T(0);
          for (int64_t c = 0; c < C; ++c) {
            const T g = go[c * oplane + p];
            const T* s = src + c * plane;
            T* gs = gsrc + c * plane;
            for (int i = 0; i < 4; ++i)
              for (int j = 0; j < 4; ++j) {
                if (!in[i][j]) continue;
                gs[at[i][j]] += g * cx[i] * cy[j];
                const T v = s[at[i][j]];
                gx -= v * g * dx[i] * cy[j];
                gyv -= v * g * dy[j] * cx[i];
              }
          }
          gg[0] = gx * mx;
          gg[1] = gyv * my;
          continue;
        }
        T mx, my;
        const T x = grid_source_index<T>(gxy[0], W, a.padding, a.align, &mx);
        const T y = grid_source_index<T>(gxy[1], H, a.padding, a.align, &my);
        if (a.mode == kGridNearest) {
          const int64_t ix = grid_nearest_index(x), iy = grid_nearest_index(y);
          if (grid_in_bounds(ix, W) && grid_in_bounds(iy, H))
            for (int64_t c = 0; c < C; ++c) gsrc[c * plane + iy * W + ix] += go[c * oplane + p];
          gg[0] = T(0);
          gg[1] = T(0);
          continue;
        }
        const T xw = std::floor(x), yn = std::floor(y);
        const int64_t ix = static_cast<int64_t>(xw), iy = static_cast<int64_t>(yn);
        const T we = x - xw, ea = T(1) - we, no = y - yn, so = T(1) - no;
        const T nw = so * ea, ne = so * we, sw = no * ea, se = no * we;
        const bool bw = grid_in_bounds(ix, W), be = grid_in_bounds(ix + 1, W), bn = grid_in_bounds(iy, H),
                   bs = grid_in_bounds(iy + 1, H);
        const int64_t o = iy * W + ix;
        T gx = T(0), gyv = T(0);
        for (int64_t c = 0; c < C; ++c) {
          const T g = go[c * oplane + p];
          const T* s = src + c * plane;
          T* gs = gsrc + c * plane;
          T vnw = T(0), vne = T(0), vsw = T(0), vse = T(0);
          if (bn && bw) {
            gs[o] += g * nw;
            vnw = s[o];
          }
          if (bn && be) {
            gs[o + 1] += g * ne;
            vne = s[o + 1];
          }
          if (bs && bw) {
            gs[o + W] += g * sw;
            vsw = s[o + W];
          }
          if (bs && be) {
            gs[o + W + 1] += g * se;
            vse = s[o + W + 1];
          }
          gx = gx + ((vne - vnw) * so + (vse - vsw) * no) * g;
          gyv = gyv + ((vsw - vnw) * ea + (vse - vne) * we) * g;
        }
        gg[0] = gx * mx;
        gg[1] = gyv * my;
      }
    }
  });
}

// ---- 3-D: input [N, C, D, H, W], grid [N, Do, Ho, Wo, 3] (x, y, z), out [N, C, Do, Ho, Wo]; torch's generic
// kernel's trilinear weights: the corner (dx, dy, dz) weighs fx * fy * fz with fx = ix - x0 for dx = 1, else
// x0 + 1 - ix.
struct Corners3 {
  int64_t at[8];
  bool in[8];
};

template <class T>
inline void trilinear(T ix, T iy, T iz, int64_t D, int64_t H, int64_t W, Corners3& c, T f[3][2]) {
  grid_trilinear<T>(ix, iy, iz, D, H, W, c.at, c.in, f);
}

template <class T>
void grid_sample_3d(const Tensor& xt, const Tensor& gt, const Tensor& yt, const GridArgs& a) {
  const int64_t N = xt.size(0), C = xt.size(1), D = xt.size(2), H = xt.size(3), W = xt.size(4);
  const int64_t Do = yt.size(2), Ho = yt.size(3), Wo = yt.size(4);
  const T* xp = xt.data_ptr<T>();
  const T* gp = gt.data_ptr<T>();
  T* yp = yt.data_ptr<T>();
  const int64_t vol = D * H * W, ovol = Do * Ho * Wo;
  parallel_for(0, N * Do * Ho, std::max<int64_t>(1, kGrain / std::max<int64_t>(Wo * C, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / (Do * Ho);
      const T* src = xp + n * C * vol;
      for (int64_t w = 0; w < Wo; ++w) {
        const int64_t p = (r % (Do * Ho)) * Wo + w;
        const T* g3 = gp + (n * ovol + p) * 3;
        T* dst = yp + n * C * ovol + p;
        const T ix = grid_source_index<T>(g3[0], W, a.padding, a.align);
        const T iy = grid_source_index<T>(g3[1], H, a.padding, a.align);
        const T iz = grid_source_index<T>(g3[2], D, a.padding, a.align);
        if (a.mode == kGridNearest) {
          const int64_t x = grid_nearest_index(ix), y = grid_nearest_index(iy), z = grid_nearest_index(iz);
          const bool inside = grid_in_bounds(x, W) && grid_in_bounds(y, H) && grid_in_bounds(z, D);
          for (int64_t c = 0; c < C; ++c) dst[c * ovol] = inside ? src[c * vol + (z * H + y) * W + x] : T(0);
          continue;
        }
        Corners3 cr;
        T f[3][2];
        trilinear<T>(ix, iy, iz, D, H, W, cr, f);
        T wt[8];
        for (int k = 0; k < 8; ++k) wt[k] = f[0][k & 1] * f[1][(k >> 1) & 1] * f[2][k >> 2];
        for (int64_t c = 0; c < C; ++c) {
          const T* s = src + c * vol;
          T v = T(0);
          for (int k = 0; k < 8; ++k)
            if (cr.in[k]) v += s[cr.at[k]] * wt[k];
          dst[c * ovol] = v;
        }
      }
    }
  });
}

template <class T>
void grid_sample_3d_backward(const Tensor& gyt, const Tensor& xt, const Tensor& gt, const Tensor& git,
                             const Tensor& ggt, const GridArgs& a) {
  const int64_t N = xt.size(0), C = xt.size(1), D = xt.size(2), H = xt.size(3), W = xt.size(4);
  const int64_t ovol = gyt.size(2) * gyt.size(3) * gyt.size(4), vol = D * H * W;
  const T* gyp = gyt.data_ptr<T>();
  const T* xp = xt.data_ptr<T>();
  const T* gp = gt.data_ptr<T>();
  T* gip = git.data_ptr<T>();
  T* ggp = ggt.data_ptr<T>();
  parallel_for(0, N, std::max<int64_t>(1, kGrain / std::max<int64_t>(ovol * C, 1)), [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) {
      const T* src = xp + n * C * vol;
      T* gsrc = gip + n * C * vol;
      const T* go = gyp + n * C * ovol;
      for (int64_t p = 0; p < ovol; ++p) {
        const T* g3 = gp + (n * ovol + p) * 3;
        T* gg = ggp + (n * ovol + p) * 3;
        T mx, my, mz;
        const T ix = grid_source_index<T>(g3[0], W, a.padding, a.align, &mx);
        const T iy = grid_source_index<T>(g3[1], H, a.padding, a.align, &my);
        const T iz = grid_source_index<T>(g3[2], D, a.padding, a.align, &mz);
        if (a.mode == kGridNearest) {
          const int64_t x = grid_nearest_index(ix), y = grid_nearest_index(iy), z = grid_nearest_index(iz);
          if (grid_in_bounds(x, W) && grid_in_bounds(y, H) && grid_in_bounds(z, D))
            for (int64_t c = 0; c < C; ++c) gsrc[c * vol + (z * H + y) * W + x] += go[c * ovol + p];
          gg[0] = gg[1] = gg[2] = T(0);
          continue;
        }
        Corners3 cr;
        T f[3][2];
        trilinear<T>(ix, iy, iz, D, H, W, cr, f);
        T wt[8], dwx[8], dwy[8], dwz[8];
        for (int k = 0; k < 8; ++k) {
          const int bx = k & 1, by = (k >> 1) & 1, bz = k >> 2;
          wt[k] = f[0][bx] * f[1][by] * f[2][bz];
          dwx[k] = (bx ? T(1) : T(-1)) * f[1][by] * f[2][bz];
          dwy[k] = (by ? T(1) : T(-1)) * f[0][bx] * f[2][bz];
          dwz[k] = (bz ? T(1) : T(-1)) * f[0][bx] * f[1][by];
        }
        T gx = T(0), gyv = T(0), gz = T(0);
        for (int64_t c = 0; c < C; ++c) {
          const T g = go[c * ovol + p];
          const T* s = src + c * vol;
          T* gs = gsrc + c * vol;
          for (int k = 0; k < 8; ++k) {
            if (!cr.in[k]) continue;
            gs[cr.at[k]] += wt[k] * g;
            const T v = s[cr.at[k]];
            gx += v * dwx[k] * g;
            gyv += v * dwy[k] * g;
            gz += v * dwz[k] * g;
          }
        }
        gg[0] = mx * gx;
        gg[1] = my * gyv;
        gg[2] = mz * gz;
      }
    }
  });
}

// ---- fractional max pooling on [P, T, H, W] planes (T = 1 for 2-D); samples [P, k] hold, per plane,
// torch's order: 2-D (w, h), 3-D (t, h, w).
template <class T>
void fractional_into(const T* xp, const T* sp, T* yp, int64_t* ip, int64_t P, int k, const int64_t in[3],
                     const int64_t out[3], const int64_t pool[3], int64_t* bad) {
  const int64_t vol = in[0] * in[1] * in[2], ovol = out[0] * out[1] * out[2];
  parallel_for(0, P, std::max<int64_t>(1, kGrain / std::max<int64_t>(ovol * pool[0] * pool[1] * pool[2], 1)),
               [&](int64_t b, int64_t e) {
                 std::vector<int64_t> seq[3];
                 for (int d = 0; d < 3; ++d) seq[d].resize(static_cast<size_t>(out[d]));
                 for (int64_t p = b; p < e; ++p) {
                   const T* s = sp + p * k;
                   // the sample of each of the padded dims T, H, W
                   const T smp[3] = {k == 3 ? s[0] : T(0), k == 3 ? s[1] : s[1], k == 3 ? s[2] : s[0]};
                   bool ok = true;
                   for (int d = 0; d < 3; ++d)
                     for (int64_t i = 0; i < out[d]; ++i) {
                       const int64_t v =
                           (d == 0 && k == 2) ? 0 : fractional_start<T>(smp[d], in[d], out[d], pool[d], i);
                       seq[d][static_cast<size_t>(i)] = v;
                       ok = ok && v >= 0 && v + pool[d] <= in[d];
                     }
                   if (!ok) {
                     __atomic_store_n(bad, 1, __ATOMIC_RELAXED);
                     continue;
                   }
                   const T* src = xp + p * vol;
                   for (int64_t ot = 0; ot < out[0]; ++ot)
                     for (int64_t oh = 0; oh < out[1]; ++oh)
                       for (int64_t ow = 0; ow < out[2]; ++ow) {
                         const int64_t t0 = seq[0][static_cast<size_t>(ot)], h0 = seq[1][static_cast<size_t>(oh)],
                                       w0 = seq[2][static_cast<size_t>(ow)];
                         T best = -std::numeric_limits<T>::infinity();
                         int64_t bi = (t0 * in[1] + h0) * in[2] + w0;
                         for (int64_t t = t0; t < t0 + pool[0]; ++t)
                           for (int64_t h = h0; h < h0 + pool[1]; ++h)
                             for (int64_t w = w0; w < w0 + pool[2]; ++w) {
                               const int64_t at = (t * in[1] + h) * in[2] + w;
                               const T v = src[at];
                               if (v > best || std::isnan(v)) {
                                 best = v;
                                 bi = at;
                               }
                             }
                         const int64_t o = p * ovol + (ot * out[1] + oh) * out[2] + ow;
                         yp[o] = best;
                         ip[o] = bi;
                       }
                 }
               });
}

void fractional_kernel(const KernelArgs& k, int dims) {
  const Tensor &x = k.input(0), &s = k.input(1), &y = k.output(0), &idx = k.output(1);
  const int64_t b = x.dim() - dims;  // 1 unbatched, 2 batched
  int64_t P = 1;
  for (int64_t d = 0; d < b; ++d) P *= x.size(d);
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, pool[3] = {1, 1, 1};
  for (int d = 0; d < dims; ++d) {
    in[3 - dims + d] = x.size(b + d);
    out[3 - dims + d] = y.size(b + d);
    pool[3 - dims + d] = k.attr(0).ints[d];
  }
  int64_t bad = 0;
  dispatch_real(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    fractional_into<T>(x.data_ptr<T>(), s.data_ptr<T>(), y.data_ptr<T>(), idx.data_ptr<int64_t>(), P, dims, in, out,
                       pool, &bad);
  });
  GLIA_CHECK(bad == 0, InvalidArgument, dims == 2 ? "fractional_max_pool2d()" : "fractional_max_pool3d_out()",
             ": a pooling window lies outside the input (_random_samples should lie in [0, 1))");
}

}  // namespace

void grid_sampler_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &g = k.input(1), &y = k.output(0);
  const GridArgs a = grid_args(k);
  dispatch_real(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (x.dim() == 4)
      grid_sample_2d<T>(x, g, y, a);
    else
      grid_sample_3d<T>(x, g, y, a);
  });
}

void grid_sampler_backward_kernel(const KernelArgs& k) {
  const Tensor &gy = k.input(0), &x = k.input(1), &g = k.input(2), &gi = k.output(0), &gg = k.output(1);
  const GridArgs a = grid_args(k);
  std::memset(gi.data(), 0, static_cast<size_t>(gi.numel()) * itemsize(gi.dtype()));
  dispatch_real(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (x.dim() == 4)
      grid_sample_2d_backward<T>(gy, x, g, gi, gg, a);
    else
      grid_sample_3d_backward<T>(gy, x, g, gi, gg, a);
  });
}

void fractional_max_pool2d_kernel(const KernelArgs& k) { fractional_kernel(k, 2); }
void fractional_max_pool3d_kernel(const KernelArgs& k) { fractional_kernel(k, 3); }

}  // namespace glia::cpu
