// Upsampling (ops/resample.h): the meta part with torch 1.13's checks and one CPU kernel for each
// direction. Each output position of a spatial dim reads 1 (nearest), 2 (linear) or 4 (cubic) taps of that
// dim, with weights; the tables are built once per call (resample_math.h holds the per-element formulas)
// and an N-D output element is the nested sum over the dims' taps, the innermost dim first, as torch's
// generic CPU kernel evaluates it.
#include "ops/resample.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/dispatch.h"
#include "core/resample_math.h"
#include "ops/cpu/loops.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

const char* weights_fn(UpsampleKind kind) {
  switch (kind) {
    case UpsampleKind::Linear:
      return "compute_indices_weights_linear";
    case UpsampleKind::Cubic:
      return "compute_indices_weights_cubic";
    default:
      return "compute_indices_weights_nearest";
  }
}

// torch's upsample_{1,2,3}d_common_check and the "Non-empty" check of the kernels.
void check_upsample(IntSpan in, IntSpan out) {
  const int64_t k = static_cast<int64_t>(out.size()), nd = static_cast<int64_t>(in.size());
  GLIA_CHECK(nd == k + 2, Shape, "It is expected input_size equals to ", k + 2, ", but got size ", nd);
  bool positive = true;
  for (int64_t j = 0; j < k; ++j) positive = positive && in[2 + j] > 0 && out[j] > 0;
  if (k == 1) {
    GLIA_CHECK(positive, Shape, "Input and output sizes should be greater than 0, but got input (W: ", in[2],
               ") and output (W: ", out[0], ")");
  } else if (k == 2) {
    GLIA_CHECK(positive, Shape, "Input and output sizes should be greater than 0, but got input (H: ", in[2],
               ", W: ", in[3], ") output (H: ", out[0], ", W: ", out[1], ")");
  } else {
    GLIA_CHECK(positive, Shape, "Input and output sizes should be greater than 0, but got input (D: ", in[2],
               ", H: ", in[3], ", W: ", in[4], ") output (D: ", out[0], ", H: ", out[1], ", W: ", out[2], ")");
  }
  bool non_empty = true;
  for (int64_t d = 1; d < nd; ++d) non_empty = non_empty && in[d] != 0;
  GLIA_CHECK(non_empty, Shape, "Non-empty ", nd, "D data tensor expected but got a tensor with sizes ", Dims(in));
}

void check_dtype(const Tensor& t, UpsampleKind kind) {
  GLIA_CHECK(t.dtype() == DType::Float32 || t.dtype() == DType::Float64, DType, "\"", weights_fn(kind),
             "\" not implemented for '", scalar_type_name(t.dtype()), "'");
}

}  // namespace

Tensor upsample(const Tensor& x, UpsampleKind kind, IntSpan out_size, const double* scales, bool align_corners) {
  const int64_t k = static_cast<int64_t>(out_size.size());
  GLIA_CHECK(k >= 1 && k <= 3 && (kind != UpsampleKind::Cubic || k == 2), Unsupported,
             "upsample: unsupported number of spatial dims ", k);
  check_upsample(x.shape(), out_size);
  check_dtype(x, kind);
  Dims shape{x.shape()[0], x.shape()[1]};
  for (int64_t s : out_size) shape.push_back(s);
  Tensor out = empty(shape, x.dtype(), x.device());
  if (out.numel() == 0) return out;
  Tensor c = contiguous(x);
  run_kernel(KernelId::upsample, x.device(), {&c}, {&out},
             {attr_i(static_cast<int64_t>(kind)), attr_i(align_corners ? 1 : 0), attr_f(k > 0 ? scales[0] : 0.0),
              attr_f(k > 1 ? scales[1] : 0.0), attr_f(k > 2 ? scales[2] : 0.0)});
  return out;
}

Tensor upsample_backward(const Tensor& grad, UpsampleKind kind, IntSpan in_shape, const double* scales,
                         bool align_corners) {
  const int64_t k = grad.dim() - 2;
  GLIA_CHECK(k >= 1 && k <= 3 && static_cast<int64_t>(in_shape.size()) == grad.dim(), Shape,
             "upsample backward: grad has ", grad.dim(), " dims, the input ", in_shape.size());
  check_dtype(grad, kind);
  Tensor gi = empty(in_shape, grad.dtype(), grad.device());
  if (gi.numel() == 0) return gi;
  if (grad.numel() == 0) {
    fill(gi, 0.0);
    return gi;
  }
  Tensor gc = contiguous(grad);
  run_kernel(KernelId::upsample_backward, grad.device(), {&gc}, {&gi},
             {attr_i(static_cast<int64_t>(kind)), attr_i(align_corners ? 1 : 0), attr_f(k > 0 ? scales[0] : 0.0),
              attr_f(k > 1 ? scales[1] : 0.0), attr_f(k > 2 ? scales[2] : 0.0)});
  return gi;
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

namespace {

using ops::UpsampleKind;

// The taps of one dim: for output position o, taps idx[o * n + t] (input positions) with weights w[...].
template <class T>
struct Taps {
  int64_t n = 1;
  std::vector<int64_t> idx;
  std::vector<T> w;
};

// Spatial dims padded to 3 (outer dims of size 1 with one tap of weight 1).
struct Geom {
  int64_t planes = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  double scale[3] = {0, 0, 0};
  int64_t k = 0;
};

Geom geometry(const Tensor& small, const Tensor& big, const KernelArgs& a) {
  Geom g;
  g.k = small.dim() - 2;
  g.planes = small.shape()[0] * small.shape()[1];
  for (int64_t j = 0; j < g.k; ++j) {
    g.in[3 - g.k + j] = small.shape()[2 + j];
    g.out[3 - g.k + j] = big.shape()[2 + j];
    g.scale[3 - g.k + j] = a.attr(static_cast<int>(2 + j)).f;
  }
  return g;
}

// backward: the index rules of torch's backward kernels (nearest: nearest_idx's shortcuts).
template <class T>
Taps<T> taps(UpsampleKind kind, int64_t in, int64_t out, double scale, bool align, bool padded, bool backward) {
  Taps<T> t;
  if (padded) {
    t.idx.assign(1, 0);
    t.w.assign(1, T(1));
    return t;
  }
  t.n = kind == UpsampleKind::Linear ? 2 : kind == UpsampleKind::Cubic ? 4 : 1;
  t.idx.resize(static_cast<size_t>(t.n * out));
  t.w.resize(static_cast<size_t>(t.n * out));
  for (int64_t o = 0; o < out; ++o) {
    const auto b = static_cast<size_t>(t.n * o);
    math::upsample_taps<T>(static_cast<int>(kind), in, out, scale, align, backward, o, &t.idx[b], &t.w[b]);
  }
  return t;
}

template <class F>
void dispatch_real(DType t, F&& f) {
  if (t == DType::Float64)
    f(double{});
  else
    f(float{});
}

}  // namespace

void upsample_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &y = k.output(0);
  const auto kind = static_cast<UpsampleKind>(k.attr(0).i);
  const bool align = k.attr(1).i != 0;
  const Geom g = geometry(x, y, k);
  dispatch_real(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Taps<T> tp[3];
    for (int j = 0; j < 3; ++j) tp[j] = taps<T>(kind, g.in[j], g.out[j], g.scale[j], align, j < 3 - g.k, false);
    const T* in = x.data_ptr<T>();
    T* out = y.data_ptr<T>();
    const int64_t od = g.out[0], oh = g.out[1], ow = g.out[2], ih = g.in[1], iw = g.in[2];
    const int64_t plane_in = g.in[0] * ih * iw;
    const bool nearest = kind == UpsampleKind::Nearest || kind == UpsampleKind::NearestExact;
    const int64_t rows = g.planes * od * oh;
    parallel_for(0, rows, std::max<int64_t>(1, ops::kGrain / std::max<int64_t>(ow, 1)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t h = r % oh, rest = r / oh, d = rest % od, p = rest / od;
        const T* src = in + p * plane_in;
        T* dst = out + r * ow;
        const int64_t *id = &tp[0].idx[static_cast<size_t>(d * tp[0].n)],
                      *ihx = &tp[1].idx[static_cast<size_t>(h * tp[1].n)];
        const T *wd = &tp[0].w[static_cast<size_t>(d * tp[0].n)], *wh = &tp[1].w[static_cast<size_t>(h * tp[1].n)];
        const int64_t* iwx = tp[2].idx.data();
        const T* ww = tp[2].w.data();
        if (nearest) {
          const T* row = src + (id[0] * ih + ihx[0]) * iw;
          for (int64_t o = 0; o < ow; ++o) dst[o] = row[iwx[o]];
          continue;
        }
        const int64_t nd = tp[0].n, nh = tp[1].n, nw = tp[2].n;
        for (int64_t o = 0; o < ow; ++o) {
          const int64_t* xi = iwx + o * nw;
          const T* xw = ww + o * nw;
          T vd = T(0);
          for (int64_t td = 0; td < nd; ++td) {
            T vh = T(0);
            for (int64_t th = 0; th < nh; ++th) {
              const T* row = src + (id[td] * ih + ihx[th]) * iw;
              T vw = row[xi[0]] * xw[0];
              for (int64_t tw = 1; tw < nw; ++tw) vw += row[xi[tw]] * xw[tw];
              vh = th == 0 ? vw * wh[th] : vh + vw * wh[th];
            }
            vd = td == 0 ? vh * wd[td] : vd + vh * wd[td];
          }
          dst[o] = vd;
        }
      }
    });
  });
}

void upsample_backward_kernel(const KernelArgs& k) {
  const Tensor &gy = k.input(0), &gx = k.output(0);
  const auto kind = static_cast<UpsampleKind>(k.attr(0).i);
  const bool align = k.attr(1).i != 0;
  const Geom g = geometry(gx, gy, k);
  dispatch_real(gy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* go = gy.data_ptr<T>();
    T* gi = gx.data_ptr<T>();
    // torch's bicubic backward copies when the sizes are the input's.
    if (kind == UpsampleKind::Cubic && g.in[1] == g.out[1] && g.in[2] == g.out[2]) {
      std::memcpy(gi, go, static_cast<size_t>(gx.numel()) * sizeof(T));
      return;
    }
    Taps<T> tp[3];
    for (int j = 0; j < 3; ++j) tp[j] = taps<T>(kind, g.in[j], g.out[j], g.scale[j], align, j < 3 - g.k, true);
    const int64_t od = g.out[0], oh = g.out[1], ow = g.out[2], ih = g.in[1], iw = g.in[2];
    const int64_t plane_in = g.in[0] * ih * iw, plane_out = od * oh * ow;
    const int64_t nd = tp[0].n, nh = tp[1].n, nw = tp[2].n;
    const bool cubic = kind == UpsampleKind::Cubic;
    // Planes are independent; within a plane several outputs add onto one input.
    parallel_for(0, g.planes, std::max<int64_t>(1, ops::kGrain / std::max<int64_t>(plane_out, 1)),
                 [&](int64_t b, int64_t e) {
                   std::fill(gi + b * plane_in, gi + e * plane_in, T(0));
                   for (int64_t p = b; p < e; ++p) {
                     T* dst = gi + p * plane_in;
                     const T* src = go + p * plane_out;
                     for (int64_t d = 0; d < od; ++d) {
                       const int64_t* id = &tp[0].idx[static_cast<size_t>(d * nd)];
                       const T* wd = &tp[0].w[static_cast<size_t>(d * nd)];
                       for (int64_t h = 0; h < oh; ++h) {
                         const int64_t* ihx = &tp[1].idx[static_cast<size_t>(h * nh)];
                         const T* wh = &tp[1].w[static_cast<size_t>(h * nh)];
                         const T* srow = src + (d * oh + h) * ow;
                         for (int64_t o = 0; o < ow; ++o) {
                           const int64_t* xi = &tp[2].idx[static_cast<size_t>(o * nw)];
                           const T* xw = &tp[2].w[static_cast<size_t>(o * nw)];
                           const T v = srow[o];
                           for (int64_t td = 0; td < nd; ++td)
                             for (int64_t th = 0; th < nh; ++th) {
                               T* row = dst + (id[td] * ih + ihx[th]) * iw;
                               if (cubic) {
                                 for (int64_t tw = 0; tw < nw; ++tw) row[xi[tw]] += v * wh[th] * xw[tw];
                               } else {
                                 for (int64_t tw = 0; tw < nw; ++tw) row[xi[tw]] += wd[td] * wh[th] * xw[tw] * v;
                               }
                             }
                         }
                       }
                     }
                   }
                 });
  });
}

}  // namespace glia::cpu
