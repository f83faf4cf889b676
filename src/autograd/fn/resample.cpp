#include "autograd/fn/resample.h"

#include <charconv>
#include <cmath>
#include <string>

#include "autograd/fn/conv.h"
#include "autograd/fn/pool.h"
#include "ops/shape.h"

namespace glia {

namespace {

using ops::UpsampleKind;

const char* mode_name(InterpolateMode m) {
  static const char* names[] = {"nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact"};
  return names[static_cast<int>(m)];
}

// Python's repr of a list of ints / floats ("[2.0, 1.5]").
std::string py_list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
std::string py_list(const std::vector<double>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), v[i]);
    std::string f(buf, r.ptr);
    if (std::isfinite(v[i]) && f.find_first_of(".e") == std::string::npos) f += ".0";
    s += (i ? ", " : "") + f;
  }
  return s + "]";
}

// torch's node names: UpsampleNearest2DBackward1, UpsampleBilinear2DBackward1, ...
const char* node_name(UpsampleKind kind, int64_t k) {
  static const char* nearest[] = {"UpsampleNearest1DBackward1", "UpsampleNearest2DBackward1",
                                  "UpsampleNearest3DBackward1"};
  static const char* exact[] = {"UpsampleNearestExact1DBackward1", "UpsampleNearestExact2DBackward1",
                                "UpsampleNearestExact3DBackward1"};
  static const char* linear[] = {"UpsampleLinear1DBackward1", "UpsampleBilinear2DBackward1",
                                 "UpsampleTrilinear3DBackward1"};
  switch (kind) {
    case UpsampleKind::Nearest:
      return nearest[k - 1];
    case UpsampleKind::NearestExact:
      return exact[k - 1];
    case UpsampleKind::Linear:
      return linear[k - 1];
    default:
      return "UpsampleBicubic2DBackward1";
  }
}

struct UpsampleGeom {
  UpsampleKind kind = UpsampleKind::Nearest;
  Dims in_shape, out_size;
  double scales[3] = {0, 0, 0};
  bool align = false;
};

Tensor upsample_op(const Tensor& x, const UpsampleGeom& g);

// The gradient of upsample (sums onto the input positions); differentiable: its own gradient is the
// upsample again.
struct UpsampleBackwardBackward : Node {
  UpsampleGeom geom;
  const char* name() const override { return "UpsampleBackwardBackward0"; }
  TensorList apply(TensorList&& g) override { return {upsample_op(g[0], geom)}; }
};

Tensor upsample_backward_op(const Tensor& grad, const UpsampleGeom& g) {
  Tensor out = ops::upsample_backward(grad, g.kind, g.in_shape, g.scales, g.align);
  if (any_requires_grad({&grad})) {
    auto n = make_ref<UpsampleBackwardBackward>();
    n->geom = g;
    set_history(n.get(), {&grad}, {&out});
  }
  return out;
}

struct UpsampleBackward : Node {
  UpsampleGeom geom;
  const char* name() const override { return node_name(geom.kind, static_cast<int64_t>(geom.out_size.size())); }
  TensorList apply(TensorList&& g) override { return {upsample_backward_op(g[0], geom)}; }
};

Tensor upsample_op(const Tensor& x, const UpsampleGeom& g) {
  Tensor out = ops::upsample(x, g.kind, g.out_size, g.scales, g.align);
  if (any_requires_grad({&x})) {
    auto n = make_ref<UpsampleBackward>();
    n->geom = g;
    n->geom.in_shape = x.shape();
    set_history(n.get(), {&x}, {&out});
  }
  return out;
}

}  // namespace

Tensor interpolate(const Tensor& x, const std::optional<std::vector<int64_t>>& size,
                   const std::optional<std::vector<double>>& scale_factor, InterpolateMode mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor) {
  const bool interpolating =
      mode != InterpolateMode::Nearest && mode != InterpolateMode::Area && mode != InterpolateMode::NearestExact;
  GLIA_CHECK(interpolating || !align_corners, InvalidArgument,
             "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
             "trilinear");
  const bool align = align_corners.value_or(false);
  const int64_t nd = x.dim(), dim = nd - 2;
  std::vector<int64_t> output_size;
  std::vector<double> scales;
  GLIA_CHECK(!(size && scale_factor), InvalidArgument, "only one of size or scale_factor should be defined");
  if (size) {
    if (size->size() == 1) {
      output_size.assign(static_cast<size_t>(std::max<int64_t>(dim, 0)), (*size)[0]);
    } else {
      GLIA_CHECK(static_cast<int64_t>(size->size()) == dim, InvalidArgument,
                 "Input and output must have the same number of spatial dimensions, but got input with spatial "
                 "dimensions of ",
                 py_list(std::vector<int64_t>(x.shape().begin() + std::min<int64_t>(2, nd), x.shape().end())),
                 " and output size of ", py_list(*size),
                 ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                 "format.");
      output_size = *size;
    }
  } else if (scale_factor) {
    if (scale_factor->size() == 1) {
      scales.assign(static_cast<size_t>(std::max<int64_t>(dim, 0)), (*scale_factor)[0]);
    } else {
      GLIA_CHECK(static_cast<int64_t>(scale_factor->size()) == dim, InvalidArgument,
                 "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                 "spatial dimensions of ",
                 py_list(std::vector<int64_t>(x.shape().begin() + std::min<int64_t>(2, nd), x.shape().end())),
                 " and scale_factor of shape ", py_list(*scale_factor),
                 ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                 "...,sK) format.");
      scales = *scale_factor;
    }
  } else {
    fail(Code::InvalidArgument, "either size or scale_factor should be defined");
  }
  const bool recompute_given = recompute_scale_factor.value_or(false);
  GLIA_CHECK(!(recompute_given && size), InvalidArgument,
             "recompute_scale_factor is not meaningful with an explicit size.");
  const bool recompute = recompute_given || (mode == InterpolateMode::Area && !size);
  if (recompute) {
    for (int64_t i = 0; i < dim; ++i)
      output_size.push_back(static_cast<int64_t>(std::floor(static_cast<double>(x.shape()[2 + i]) * scales[i])));
    scales.clear();
  } else if (!size) {
    // torch's compute_output_size: input size * scale factor, truncated.
    for (int64_t i = 0; i < dim; ++i)
      output_size.push_back(static_cast<int64_t>(static_cast<double>(x.shape()[2 + i]) * scales[i]));
  }
  const char* wrong = nullptr;
  if (nd == 3 && mode == InterpolateMode::Bilinear) wrong = "Got 3D input, but bilinear mode needs 4D input";
  if (nd == 3 && mode == InterpolateMode::Trilinear) wrong = "Got 3D input, but trilinear mode needs 5D input";
  if (nd == 4 && mode == InterpolateMode::Linear) wrong = "Got 4D input, but linear mode needs 3D input";
  if (nd == 4 && mode == InterpolateMode::Trilinear) wrong = "Got 4D input, but trilinear mode needs 5D input";
  if (nd == 5 && mode == InterpolateMode::Linear) wrong = "Got 5D input, but linear mode needs 3D input";
  if (nd == 5 && mode == InterpolateMode::Bilinear) wrong = "Got 5D input, but bilinear mode needs 4D input";
  GLIA_CHECK(!wrong, Unsupported, wrong);
  const bool supported =
      (nd >= 3 && nd <= 5 && mode != InterpolateMode::Bicubic) || (nd == 4 && mode == InterpolateMode::Bicubic);
  GLIA_CHECK(supported, Unsupported, "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", nd,
             "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got ",
             mode_name(mode), ")");
  if (mode == InterpolateMode::Area) {  // torch: adaptive average pooling of the input's spatial dims
    if (nd == 3) return adaptive_avg_pool1d(x, output_size[0]);
    if (nd == 4) return adaptive_avg_pool2d(x, output_size[0], output_size[1]);
    return adaptive_avg_pool3d(x, output_size[0], output_size[1], output_size[2]);
  }
  UpsampleGeom g;
  g.kind = mode == InterpolateMode::Nearest        ? UpsampleKind::Nearest
           : mode == InterpolateMode::NearestExact ? UpsampleKind::NearestExact
           : mode == InterpolateMode::Bicubic      ? UpsampleKind::Cubic
                                                   : UpsampleKind::Linear;
  g.align = align;
  g.out_size = Dims(output_size);
  for (size_t i = 0; i < scales.size() && i < 3; ++i) g.scales[i] = scales[i];
  return upsample_op(x, g);
}

// ---- pixel_shuffle, pixel_unshuffle, channel_shuffle: a view of the input's layout, permuted and copied.

namespace {

// A new contiguous tensor holding t (never t's storage: the results do not alias their inputs).
Tensor fresh(const Tensor& t) { return t.is_contiguous() ? clone(t) : contiguous(t); }

void check_shuffle_factor(const Tensor& x, int64_t r, const char* fn, const char* factor) {
  GLIA_CHECK(x.dim() >= 3, Shape, fn, " expects input to have at least 3 dimensions, but got input with ", x.dim(),
             " dimension(s)");
  GLIA_CHECK(r > 0, InvalidArgument, fn, " expects a positive ", factor, ", but got ", r);
}

// [*, C * r * r, H, W] -> [*, C, H * r, W * r] (unshuffle: the inverse), without autograd.
Tensor shuffle_pixels(const Tensor& x, int64_t r, bool inverse) {
  const int64_t nd = x.dim(), lead = nd - 3;
  const IntSpan s = x.shape();
  Dims split, perm, out;
  for (int64_t d = 0; d < lead; ++d) {
    split.push_back(s[d]);
    perm.push_back(d);
    out.push_back(s[d]);
  }
  const int64_t c = s[lead], h = s[lead + 1], w = s[lead + 2];
  if (!inverse) {
    // [*, C, r, r, H, W] -> [*, C, H, r, W, r]
    for (int64_t v : {c / (r * r), r, r, h, w}) split.push_back(v);
    for (int64_t v : {0, 3, 1, 4, 2}) perm.push_back(lead + v);
    for (int64_t v : {c / (r * r), h * r, w * r}) out.push_back(v);
  } else {
    // [*, C, H, r, W, r] -> [*, C, r, r, H, W]
    for (int64_t v : {c, h / r, r, w / r, r}) split.push_back(v);
    for (int64_t v : {0, 2, 4, 1, 3}) perm.push_back(lead + v);
    for (int64_t v : {c * r * r, h / r, w / r}) out.push_back(v);
  }
  return ops::reshape(fresh(ops::permute(ops::reshape(x, split), perm)), out);
}

struct PixelShuffleBackward : Node {
  int64_t factor = 1;
  bool unshuffle = false;  // the node of pixel_unshuffle
  const char* name() const override { return unshuffle ? "PixelUnshuffleBackward0" : "PixelShuffleBackward0"; }
  TensorList apply(TensorList&& g) override {
    return {unshuffle ? pixel_shuffle(g[0], factor) : pixel_unshuffle(g[0], factor)};
  }
};

Tensor record_shuffle(const Tensor& x, Tensor out, int64_t factor, bool unshuffle) {
  if (any_requires_grad({&x})) {
    auto n = make_ref<PixelShuffleBackward>();
    n->factor = factor;
    n->unshuffle = unshuffle;
    set_history(n.get(), {&x}, {&out});
  }
  return out;
}

// torch's NotImplemented node: the op has no derivative.
struct NotImplementedBackward : Node {
  const char* op = "";
  const char* name() const override { return "torch::autograd::NotImplemented"; }
  TensorList apply(TensorList&&) override { fail(Code::Unsupported, "derivative for ", op, " is not implemented"); }
};

}  // namespace

Tensor pixel_shuffle(const Tensor& x, int64_t upscale_factor) {
  check_shuffle_factor(x, upscale_factor, "pixel_shuffle", "upscale_factor");
  const int64_t c = x.shape()[x.dim() - 3], sq = upscale_factor * upscale_factor;
  GLIA_CHECK(c % sq == 0, Shape,
             "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
             "but input.size(-3)=",
             c, " is not divisible by ", sq);
  return record_shuffle(x, shuffle_pixels(x, upscale_factor, false), upscale_factor, false);
}

Tensor pixel_unshuffle(const Tensor& x, int64_t downscale_factor) {
  check_shuffle_factor(x, downscale_factor, "pixel_unshuffle", "downscale_factor");
  const int64_t h = x.shape()[x.dim() - 2], w = x.shape()[x.dim() - 1];
  GLIA_CHECK(h % downscale_factor == 0, Shape,
             "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
             " is not divisible by ", downscale_factor);
  GLIA_CHECK(w % downscale_factor == 0, Shape,
             "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
             " is not divisible by ", downscale_factor);
  return record_shuffle(x, shuffle_pixels(x, downscale_factor, true), downscale_factor, true);
}

Tensor channel_shuffle(const Tensor& x, int64_t groups) {
  GLIA_CHECK(x.dim() > 2, Shape, "channel_shuffle expects input with > 2 dims, but got input with sizes ", x.shape());
  GLIA_CHECK(groups > 0, InvalidArgument,
             "Number of groups to divide channels in must be positive. Value of groups:", groups);
  const int64_t c = x.shape()[1];
  GLIA_CHECK(c % groups == 0, Shape, "Number of channels must be divisible by groups. Got ", c, " channels and ",
             groups, " groups.");
  // [N, g, C / g, *] -> [N, C / g, g, *]
  Dims split{x.shape()[0], groups, c / groups}, perm{0, 2, 1};
  for (int64_t d = 2; d < x.dim(); ++d) {
    split.push_back(x.shape()[d]);
    perm.push_back(d + 1);
  }
  Tensor out = ops::reshape(fresh(ops::permute(ops::reshape(x, split), perm)), x.shape());
  if (any_requires_grad({&x})) {
    auto n = make_ref<NotImplementedBackward>();
    n->op = "channel_shuffle";
    set_history(n.get(), {&x}, {&out});
  }
  return out;
}

}  // namespace glia
