// torch functions of issue 20 missing from OpInfo / docs/coverage.md, composed of glia's ops following
// torch 1.13's ATen code (the same formulas in the same order, its checks and messages first, so a bad call
// changes nothing).
#include "autograd/fn/torchmisc.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/index_extra.h"
#include "autograd/fn/norm.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/fn/shape_ops.h"
#include "autograd/node.h"
#include "core/scalar.h"
#include "ops/elementwise.h"
#include "ops/factory.h"
#include "ops/index.h"
#include "ops/index_extra.h"
#include "ops/iter.h"
#include "ops/math.h"
#include "ops/reduce.h"
#include "ops/search.h"
#include "ops/shape.h"

namespace glia {

// ---- gcd, lcm (not differentiable: integer dtypes only)

namespace {

DType int_result(const char* kernel, const Tensor& a, const Tensor& b) {
  const DType t = ops::result_type(a, b);
  if (!is_integral(t, false)) ops::not_implemented_for(kernel, t);
  return t;
}

// torch's calc_gcd on whole tensors: Euclid's steps (while a != 0: a, b = b % a, a) applied to every
// element until all are done (at most ~92 steps for int64), on the magnitudes.
Tensor gcd_of(Tensor a, Tensor b) {
  a = ops::abs(a);
  b = ops::abs(b);
  for (;;) {
    Tensor live = ops::compare(a, ops::wrapped_scalar(0, true), ops::Cmp::Ne);
    if (a.numel() == 0 || item_int64(ops::any(live, Dims{}, false)) == 0) return b;
    Tensor safe = ops::where(live, a, ops::wrapped_scalar(1, true));
    Tensor next = ops::where(live, ops::binary_math(ops::BinaryMathOp::Fmod, b, safe), a);
    b = ops::where(live, a, b);
    a = next;
  }
}

std::pair<Tensor, Tensor> int_operands(const Tensor& a, const Tensor& b, DType t) {
  const Dims shape = ops::broadcast_shapes("gcd", a.shape(), b.shape());
  const Device dev = common_device("gcd", a, b);
  auto prep = [&](const Tensor& x) {
    Tensor y = to_dtype(x.device() == dev ? x : to_device(x, dev), t);
    return contiguous(ops::expand_to(y, shape));
  };
  return {prep(a), prep(b)};
}

Tensor lcm_of(const Tensor& a, const Tensor& b) {
  // torch: g = gcd(a, b); g == 0 ? 0 : abs(a / g * b)
  Tensor g = gcd_of(a, b);
  Tensor zero = ops::compare(g, ops::wrapped_scalar(0, true), ops::Cmp::Eq);
  Tensor safe = ops::where(zero, ops::wrapped_scalar(1, true), g);
  Tensor q = ops::div(a, safe, "trunc");
  Tensor r = ops::abs(ops::mul(q, b));
  return ops::where(zero, ops::wrapped_scalar(0, true), r);
}

}  // namespace

Tensor gcd(const Tensor& a, const Tensor& b) {
  const DType t = int_result("gcd_cpu", a, b);
  auto [x, y] = int_operands(a, b, t);
  return to_dtype(gcd_of(x, y), t);
}
Tensor lcm(const Tensor& a, const Tensor& b) {
  const DType t = int_result("lcm_cpu", a, b);
  auto [x, y] = int_operands(a, b, t);
  return to_dtype(lcm_of(x, y), t);
}
void gcd_(const Tensor& self, const Tensor& other) {
  check_inplace(self, "gcd_");
  const DType t = int_result("gcd_cpu", self, other);
  ops::check_inplace_cast("gcd_", t, self.dtype());
  GLIA_CHECK(ops::broadcast_shapes("gcd_", self.shape(), other.shape()) == self.shape(), Shape, "output with shape ",
             self.shape(), " doesn't match the broadcast shape ",
             ops::broadcast_shapes("gcd_", self.shape(), other.shape()));
  auto [x, y] = int_operands(self, other, t);
  ops::copy_(self, gcd_of(x, y));
  bump_version(self);
}
void lcm_(const Tensor& self, const Tensor& other) {
  check_inplace(self, "lcm_");
  const DType t = int_result("lcm_cpu", self, other);
  ops::check_inplace_cast("lcm_", t, self.dtype());
  GLIA_CHECK(ops::broadcast_shapes("lcm_", self.shape(), other.shape()) == self.shape(), Shape, "output with shape ",
             self.shape(), " doesn't match the broadcast shape ",
             ops::broadcast_shapes("lcm_", self.shape(), other.shape()));
  auto [x, y] = int_operands(self, other, t);
  ops::copy_(self, lcm_of(x, y));
  bump_version(self);
}

// ---- bincount

Tensor bincount(const Tensor& input, const Tensor& weights, int64_t minlength) {
  const DType t = input.dtype();
  if (!is_integral(t, false)) ops::not_implemented_for("bincount_cpu", t);
  GLIA_CHECK(minlength >= 0, InvalidArgument, "minlength should be >= 0");
  if (input.dim() == 1 && input.numel() == 0) {
    const DType rt = !weights.defined()                                                         ? DType::Int64
                     : (weights.dtype() == DType::Float32 || weights.dtype() == DType::Float64) ? weights.dtype()
                                                                                                : DType::Float64;
    return zeros(Dims{minlength}, rt, input.device());
  }
  bool ok = input.dim() == 1;
  if (ok) ok = item_int64(ops::amin(input, Dims{}, false)) >= 0;
  GLIA_CHECK(ok, InvalidArgument, "bincount only supports 1-d non-negative integral inputs.");
  GLIA_CHECK(!weights.defined() || (weights.dim() == 1 && weights.size(0) == input.size(0)), InvalidArgument,
             "weights should be 1-d and have the same length as input");
  const int64_t nbins = std::max(item_int64(ops::amax(input, Dims{}, false)) + 1, minlength);
  Tensor idx = to_dtype(input, DType::Int64);
  if (!weights.defined()) {
    Tensor ones_ = ones(Dims{input.size(0)}, DType::Int64, input.device());
    return ops::index_add(zeros(Dims{nbins}, DType::Int64, input.device()), 0, idx, ones_, Scalar::from_int(1));
  }
  const DType rt =
      (weights.dtype() == DType::Float32 || weights.dtype() == DType::Float64) ? weights.dtype() : DType::Float64;
  Tensor w = to_dtype(detach(weights), rt);
  return ops::index_add(zeros(Dims{nbins}, rt, input.device()), 0, idx, w, Scalar::from_int(1));
}

// ---- vander

Tensor vander(const Tensor& x, const int64_t* np, bool increasing) {
  GLIA_CHECK(x.dim() == 1, Shape, "x must be a one-dimensional tensor.");
  const int64_t n = np ? *np : x.size(0);
  GLIA_CHECK(n >= 0, InvalidArgument, "N must be non-negative.");
  // torch: the result's dtype is promote_types(x, int64); column 0 is ones, columns 1.. the cumulative
  // product of x, flipped unless increasing.
  const DType rt = ops::promote_types(x.dtype(), DType::Int64);
  const int64_t rows = x.size(0);
  Tensor xs = to_dtype(x, rt);
  Tensor result;
  if (n == 0) {
    result = zeros(Dims{rows, 0}, rt, x.device());
  } else {
    std::vector<Tensor> parts{ones(Dims{rows, 1}, rt, x.device())};
    if (n > 1) parts.push_back(cumprod(expand(unsqueeze(xs, 1), Dims{rows, n - 1}), 1));
    result = parts.size() == 1 ? parts[0] : cat(parts, 1);
  }
  if (!increasing && n > 0) result = flip(result, Dims{1});
  return result;
}

// ---- as_strided, as_strided_scatter

namespace {

// The storage positions (element offsets) of a geometry, row-major: [numel] int64 on `device`.
Tensor positions(IntSpan size, IntSpan stride, int64_t offset, Device device) {
  Tensor pos = full(Dims{}, static_cast<double>(offset), DType::Int64, device);
  for (size_t d = 0; d < size.size(); ++d) {
    Tensor r =
        mul_scalar(arange(0, static_cast<double>(size[d]), 1, DType::Int64, device), Scalar::from_int(stride[d]));
    pos = add(unsqueeze(pos, -1), reshape(r, Dims{size[d]}));
  }
  return reshape(pos, Dims{-1});
}

int64_t extent(IntSpan size, IntSpan stride, int64_t offset) {
  int64_t last = offset;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] == 0) return 0;
    last += (size[d] - 1) * stride[d];
  }
  return last + 1;
}

struct AsStridedBackward : Node {
  Dims in_size, in_stride, out_size, out_stride;
  int64_t in_offset = 0, out_offset = 0;
  DType dtype = DType::Float32;
  const char* name() const override { return "AsStridedBackward0"; }
  TensorList apply(TensorList&& g) override {
    // torch's as_strided_backward for an input that does not overlap itself: the output's gradient
    // summed into the storage positions it was read from, read back at the input's positions.
    const Device dev = output_device;
    Tensor grad = g[0].defined() ? g[0] : zeros(out_size, dtype, dev);
    const int64_t n = std::max(extent(in_size, in_stride, in_offset), extent(out_size, out_stride, out_offset));
    Tensor storage = zeros(Dims{n}, grad.dtype(), dev);
    if (grad.numel() > 0)
      storage = index_add(storage, 0, positions(out_size, out_stride, out_offset, dev), reshape(grad, Dims{-1}),
                          Scalar::from_int(1));
    Tensor r = index_select(storage, 0, positions(in_size, in_stride, in_offset, dev));
    return {reshape(r, in_size)};
  }
};

void check_as_strided(IntSpan size, IntSpan stride, int64_t offset) {
  GLIA_CHECK(size.size() == stride.size(), InvalidArgument, "mismatch in length of strides and shape");
  GLIA_CHECK(offset >= 0, InvalidArgument, "Tensor: invalid storage offset ", offset);
  for (size_t i = 0; i < stride.size(); ++i)
    GLIA_CHECK(stride[i] >= 0, InvalidArgument,
               "as_strided: Negative strides are not supported at the moment, got "
               "strides: ",
               IntSpan(stride));
}

}  // namespace

Tensor as_strided(const Tensor& input, IntSpan size, IntSpan stride, const int64_t* storage_offset) {
  const int64_t offset = storage_offset ? *storage_offset : input.offset();
  check_as_strided(size, stride, offset);
  Tensor out = make_view(input, size, stride, offset);
  if (any_requires_grad({&input})) {
    auto n = make_ref<AsStridedBackward>();
    n->in_size = input.shape();
    n->in_stride = input.strides();
    n->in_offset = input.offset();
    n->out_size = Dims(size);
    n->out_stride = Dims(stride);
    n->out_offset = offset;
    n->dtype = input.dtype();
    set_history(n.get(), {&input}, {&out});
  }
  return out;
}

Tensor as_strided_scatter(const Tensor& input, const Tensor& src, IntSpan size, IntSpan stride,
                          const int64_t* storage_offset) {
  // torch: output = input.clone() (contiguous); output.as_strided(size, stride, offset).copy_(src). The
  // geometry applies to the clone's storage, whose offset is 0.
  const int64_t offset = storage_offset ? *storage_offset : 0;
  check_as_strided(size, stride, offset);
  Tensor base = contiguous(detach(input));
  Tensor out = clone(base);
  Tensor view = make_view(out, size, stride, offset);
  GLIA_CHECK(view.shape() == src.shape(), Shape,
             "expected src to have a size equal to the slice of self. src size = ", src.shape(),
             ", slice size = ", view.shape());
  ops::copy_(view, detach(src));
  if (any_requires_grad({&input, &src})) {
    // Gradients as torch's: input's is the output's gradient with the scattered positions zeroed,
    // src's is the output's gradient read through the geometry.
    const Dims in_shape = input.shape(), sz(size), st(stride);
    const DType in_dt = input.dtype(), src_dt = src.dtype();
    struct Rule : Node {
      std::function<TensorList(const Tensor&, const Node&)> f;
      Dims shape;
      DType dtype = DType::Float32;
      const char* name() const override { return "AsStridedScatterBackward0"; }
      TensorList apply(TensorList&& g) override {
        return f(g[0].defined() ? g[0] : zeros(shape, dtype, output_device), *this);
      }
    };
    auto n = make_ref<Rule>();
    n->shape = in_shape;
    n->dtype = in_dt;
    n->f = [=](const Tensor& g, const Node& node) {
      TensorList r(2);
      Tensor gc = contiguous(g);
      Tensor flat = reshape(gc, Dims{-1});
      Tensor pos = positions(sz, st, offset, g.device());
      if (node.next_edges[0].valid()) {
        Tensor zero = zeros(Dims{pos.numel()}, g.dtype(), g.device());
        r[0] = reshape(index_copy(flat, 0, pos, zero), in_shape);
      }
      if (node.next_edges[1].valid()) r[1] = as_input(reshape(index_select(flat, 0, pos), sz), src_dt);
      return r;
    };
    set_history(n.get(), {&input, &src}, {&out});
  }
  return out;
}

// ---- gradient

std::vector<Tensor> gradient(const Tensor& self, const std::vector<double>& spacing,
                             const std::vector<Tensor>& coordinates, IntSpan dims_in, bool all_dims,
                             int64_t edge_order) {
  GLIA_CHECK(self.dtype() != DType::UInt8, DType, "torch.gradient does not support uint8 input.");
  const int64_t nsp =
      coordinates.empty() ? static_cast<int64_t>(spacing.size()) : static_cast<int64_t>(coordinates.size());
  const bool has_spacing = !coordinates.empty() || !spacing.empty();
  if (has_spacing && all_dims)
    GLIA_CHECK(nsp == 1 || nsp == self.dim(), InvalidArgument,
               "torch.gradient expected spacing to be unspecified, a scalar or a list of length ", self.dim(),
               " but got a list of length ", nsp);
  if (has_spacing && !all_dims)
    GLIA_CHECK(nsp == static_cast<int64_t>(dims_in.size()) || (coordinates.empty() && nsp == 1), InvalidArgument,
               "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have "
               "the same length, but got a spacing argument of length ",
               nsp, " and a dim argument of length ", dims_in.size(), ".");
  GLIA_CHECK(edge_order == 1 || edge_order == 2, InvalidArgument,
             "torch.gradient only supports edge_order=1 and edge_order=2.");
  Dims dims;
  if (all_dims) {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  } else {
    std::vector<bool> seen(static_cast<size_t>(self.dim()), false);
    for (int64_t d : dims_in) {
      const int64_t w = ops::wrap_dim(d, self.dim());
      GLIA_CHECK(!seen[static_cast<size_t>(w)], InvalidArgument, "dim ", w,
                 " appears multiple times in the list of dims");
      seen[static_cast<size_t>(w)] = true;
      dims.push_back(w);
    }
  }
  for (int64_t d : dims)
    GLIA_CHECK(self.size(d) >= edge_order + 1, InvalidArgument,
               "torch.gradient expected each dimension size to be at least edge_order+1");
  std::vector<Tensor> result;
  const int64_t end = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t dir = dims[i];
    auto sl = [&](int64_t a, int64_t b) { return slice(self, dir, a, b, 1); };
    Tensor center, prepend, append;
    if (coordinates.empty()) {
      const double h = spacing.empty() ? 1.0 : spacing.size() == 1 ? spacing[0] : spacing[i];
      const Scalar dx = Scalar::from_double(h);
      center = div_scalar(sub(sl(2, end), sl(0, -2)), dx);
      if (edge_order == 1) {
        prepend = div_scalar(sub(sl(1, 2), sl(0, 1)), dx);
        append = div_scalar(sub(sl(-1, end), sl(-2, -1)), dx);
      } else {
        prepend = div_scalar(
            sub(add(mul_scalar(sl(0, 1), Scalar::from_double(-1.5)), mul_scalar(sl(1, 2), Scalar::from_double(2.0))),
                mul_scalar(sl(2, 3), Scalar::from_double(0.5))),
            dx);
        append = div_scalar(add(add(mul_scalar(sl(-3, -2), Scalar::from_double(0.5)),
                                    mul_scalar(sl(-2, -1), Scalar::from_double(-2.0))),
                                mul_scalar(sl(-1, end), Scalar::from_double(1.5))),
                            dx);
      }
      center = div_scalar(center, Scalar::from_int(2));
    } else {
      const Tensor& c = coordinates[i];
      GLIA_CHECK(c.dim() == 1, InvalidArgument,
                 "torch.gradient expected each element of spacing to have one dimension, but got an element with ",
                 c.dim(), " dimensions!");
      Dims shape(static_cast<size_t>(self.dim()), 1);
      shape[static_cast<size_t>(dir)] = -1;
      Tensor ax = sub(slice(c, 0, 1, end, 1), slice(c, 0, 0, -1, 1));  // diff
      Tensor dx1 = slice(ax, 0, 0, -1, 1), dx2 = slice(ax, 0, 1, end, 1);
      Tensor a = reshape(div(neg(dx2), mul(dx1, add(dx1, dx2))), shape);
      Tensor b = reshape(div(sub(dx2, dx1), mul(dx1, dx2)), shape);
      Tensor cc = reshape(div(dx1, mul(dx2, add(dx1, dx2))), shape);
      center = add(add(mul(a, sl(0, -2)), mul(b, sl(1, -1))), mul(cc, sl(2, end)));
      const int64_t m = ax.size(0);
      Tensor d0 = select(ax, 0, 0), dl = select(ax, 0, m - 1);
      if (edge_order == 1) {
        prepend = div(sub(sl(1, 2), sl(0, 1)), d0);
        append = div(sub(sl(-1, end), sl(-2, -1)), dl);
      } else {
        Tensor d1 = select(ax, 0, 1), dm = select(ax, 0, m - 2);
        Tensor pa = neg(div(add(mul_scalar(d0, Scalar::from_double(2.0)), d1), mul(d0, add(d0, d1))));
        Tensor pb = div(add(d0, d1), mul(d0, d1));
        Tensor pc = div(neg(d0), mul(d1, add(d0, d1)));
        prepend = add(add(mul(pa, sl(0, 1)), mul(pb, sl(1, 2))), mul(pc, sl(2, 3)));
        Tensor qa = div(dl, mul(dm, add(dl, dm)));
        Tensor qb = neg(div(add(dl, dm), mul(dl, dm)));
        Tensor qc = div(add(mul_scalar(dl, Scalar::from_double(2.0)), dm), mul(dl, add(dl, dm)));
        append = add(add(mul(qa, sl(-3, -2)), mul(qb, sl(-2, -1))), mul(qc, sl(-1, end)));
      }
    }
    result.push_back(cat({prepend, center, append}, dir));
  }
  return result;
}

// ---- segment_reduce

Tensor segment_reduce(const Tensor& data, std::string_view reduce, const Tensor& lengths, const Tensor& offsets,
                      int64_t axis, bool unsafe, const double* initial) {
  enum { Sum, Mean, Max, Min, Prod } kind;
  if (reduce == "sum")
    kind = Sum;
  else if (reduce == "mean")
    kind = Mean;
  else if (reduce == "max")
    kind = Max;
  else if (reduce == "min")
    kind = Min;
  else if (reduce == "prod")
    kind = Prod;
  else
    fail(Code::InvalidArgument, "unsupported reduction given! ", reduce);
  const int64_t ax = ops::wrap_dim(axis, data.dim());
  GLIA_CHECK(lengths.defined() || offsets.defined(), InvalidArgument,
             "segment_reduce(): Either lengths or offsets must be defined.");
  const Tensor& seg = lengths.defined() ? lengths : offsets;
  if (!is_integral(seg.dtype(), false))
    ops::not_implemented_for(
        lengths.defined() ? "_segment_reduce_lengths_cpu_kernel1" : "_segment_reduce_offsets_cpu_kernel1", seg.dtype());
  GLIA_CHECK(seg.dim() == ax + 1, InvalidArgument, "segment_reduce(): Expected ",
             lengths.defined() ? "lengths" : "offsets", " to have ", ax + 1, " dimensions (axis + 1), got ", seg.dim());
  // ends[..., s]: the end of segment s along the axis; starts from the ends.
  Tensor seg64 = to_dtype(detach(seg), DType::Int64);
  Tensor ends, lens;
  if (lengths.defined()) {
    if (!unsafe) {
      if (seg64.numel() > 0)
        GLIA_CHECK(item_int64(ops::amin(seg64, Dims{}, false)) >= 0, InvalidArgument,
                   "lengths contains negative value!");
      Tensor total = ops::sum(seg64, Dims{ax}, false);
      const bool ok = total.numel() == 0 || (item_int64(ops::amin(total, Dims{}, false)) == data.size(ax) &&
                                             item_int64(ops::amax(total, Dims{}, false)) == data.size(ax));
      GLIA_CHECK(ok, InvalidArgument,
                 "segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) when "
                 "!unsafe.");
    }
    ends = ops::cumsum(seg64, ax);
    lens = seg64;
  } else {
    const int64_t s = seg64.size(ax) - 1;
    ends = ops::slice(seg64, ax, 1, s + 1, 1);
    lens = ops::sub(ends, ops::slice(seg64, ax, 0, s, 1), 1.0);
    ends = contiguous(ends);
  }
  const int64_t nseg = ends.size(ax);
  // The segment of each position j along the axis: the number of ends <= j.
  Dims lead;
  for (int64_t d = 0; d < ax; ++d) lead.push_back(ends.size(d));
  int64_t rows = 1;
  for (int64_t v : lead) rows *= v;
  Tensor pos = expand(
      reshape(arange(0, static_cast<double>(data.size(ax)), 1, DType::Int64, data.device()), Dims{1, data.size(ax)}),
      Dims{rows, data.size(ax)});
  Tensor ids = ops::searchsorted(reshape(contiguous(ends), Dims{rows, nseg}), contiguous(pos), false, true,
                                 std::nullopt, nullptr);
  ids = clamp(ids, std::nullopt, Scalar::from_int(std::max<int64_t>(nseg - 1, 0)));
  // ids [rows, N] -> data's shape: lead dims, the axis, then the trailing dims broadcast.
  Dims ishape = lead;
  ishape.push_back(data.size(ax));
  for (int64_t d = ax + 1; d < data.dim(); ++d) ishape.push_back(1);
  Tensor index = expand(reshape(ids, ishape), data.shape());
  Dims oshape = data.shape();
  oshape[static_cast<size_t>(ax)] = nseg;
  const DType dt = data.dtype();
  const double inf = std::numeric_limits<double>::infinity();
  auto base = [&](double v) { return full(oshape, initial ? *initial : v, dt, data.device()); };
  Tensor lens_b;  // lengths broadcast to the output's shape (for mean)
  {
    Dims lshape = lens.shape();
    for (int64_t d = ax + 1; d < data.dim(); ++d) lshape.push_back(1);
    lens_b = reshape(to_dtype(lens, dt), lshape);
  }
  switch (kind) {
    case Sum:
      return scatter_add(base(0.0), ax, index, data);
    case Prod:
      return glia::scatter_reduce(base(1.0), ax, index, data, ops::ScatterReduce::Prod, true);
    case Max:
      return glia::scatter_reduce(base(-inf), ax, index, data, ops::ScatterReduce::Amax, true);
    case Min:
      return glia::scatter_reduce(base(inf), ax, index, data, ops::ScatterReduce::Amin, true);
    case Mean: {
      Tensor s = scatter_add(full(oshape, initial ? *initial : 0.0, dt, data.device()), ax, index, data);
      Tensor m = div(s, lens_b);
      if (initial) m = where(glia::compare_scalar(lens_b, Scalar::from_int(0), ops::Cmp::Eq), s, m);
      return m;
    }
  }
  return Tensor();
}

}  // namespace glia

namespace glia {

// ---- native_batch_norm, native_layer_norm: the output through F.batch_norm / F.layer_norm (torch's
// NativeBatchNormBackward0 / NativeLayerNormBackward0 nodes); the saved statistics as torch returns them
// (x's dtype; they carry no gradient, as torch's backward ignores theirs).

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                                     const Tensor& running_mean, const Tensor& running_var,
                                                     bool training, double momentum, double eps) {
  GLIA_CHECK(x.dim() >= 2, Shape, "batch_norm: expected input with 2 or more dimensions, got ", x.dim());
  Tensor mean, invstd;
  if (training) {
    Dims red{0};
    for (int64_t d = 2; d < x.dim(); ++d) red.push_back(d);
    Tensor xd = detach(x);
    mean = glia::mean(xd, red, false);
    Dims keep(static_cast<size_t>(x.dim()), 1);
    keep[1] = x.size(1);
    Tensor c = sub(xd, reshape(mean, keep));
    Tensor var = glia::mean(mul(c, c), red, false);
    invstd = rsqrt(add_scalar(var, Scalar::from_double(eps)));
  } else {
    mean = zeros(Dims{0}, x.dtype(), x.device());
    invstd = zeros(Dims{0}, x.dtype(), x.device());
  }
  Tensor out = batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps);
  return {out, mean, invstd};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& x, IntSpan normalized_shape, const Tensor& weight,
                                                     const Tensor& bias, double eps) {
  Tensor out = layer_norm(x, normalized_shape, weight, bias, eps);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  Dims red;
  for (int64_t d = x.dim() - k; d < x.dim(); ++d) red.push_back(d);
  Tensor xd = detach(x);
  Tensor mean = glia::mean(xd, red, true);
  Tensor c = sub(xd, mean);
  Tensor var = glia::mean(mul(c, c), red, true);
  Tensor rstd = rsqrt(add_scalar(var, Scalar::from_double(eps)));
  return {out, mean, rstd};
}

// ---- histogram, histogramdd (torch's histogramdd_cpu: the bin of x is the last edge <= x, the last bin
// includes its right edge, values outside the edges and NaN are not counted)

namespace {

// torch's names of the C++ element types in histogramdd's messages.
const char* ctype(DType t) {
  switch (t) {
    case DType::Float64:
      return "double";
    case DType::Float32:
      return "float";
    case DType::Int64:
      return "long int";
    case DType::Int32:
      return "int";
    default:
      return dtype_name(t);
  }
}

void check_hist_dtypes(const Tensor& input, const Tensor& weight, const std::vector<Tensor>& edges) {
  if (input.dtype() != DType::Float32 && input.dtype() != DType::Float64)
    ops::not_implemented_for("histogramdd", input.dtype());
  for (size_t d = 0; d < edges.size(); ++d)
    GLIA_CHECK(edges[d].dtype() == input.dtype(), DType,
               "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with "
               "dtype ",
               ctype(input.dtype()), " and bins for dimension ", d, " with dtype ", ctype(edges[d].dtype()));
  if (weight.defined())
    GLIA_CHECK(weight.dtype() == input.dtype(), DType,
               "torch.histogramdd: if weight tensor is provided, it should have the same dtype as the input tensor, "
               "but got input with dtype ",
               ctype(input.dtype()), " and weight with dtype ", ctype(weight.dtype()));
}

// The bin of each value of x ([N]) against `edges` ([B + 1], ascending): index in [0, B) and whether it
// counts.
std::pair<Tensor, Tensor> bin_of(const Tensor& x, const Tensor& edges) {
  const int64_t nb = edges.size(0) - 1;
  Tensor pos = ops::searchsorted(contiguous(edges), contiguous(x), false, true, std::nullopt, nullptr);
  Tensor idx = sub_scalar(pos, Scalar::from_int(1));
  const double lo = 0, hi = static_cast<double>(nb - 1);
  // x equal to the last edge belongs to the last bin
  Tensor last = select(edges, 0, nb);
  Tensor at_last = glia::compare(x, last, ops::Cmp::Eq);
  idx = where(at_last, full(Dims{}, hi, DType::Int64, x.device()), idx);
  Tensor valid =
      glia::logical(glia::logical(glia::compare_scalar(idx, Scalar::from_double(lo), ops::Cmp::Ge),
                                  glia::compare_scalar(idx, Scalar::from_double(hi), ops::Cmp::Le), ops::Logic::And),
                    glia::logical(glia::compare(x, select(edges, 0, 0), ops::Cmp::Ge),
                                  glia::compare(x, last, ops::Cmp::Le), ops::Logic::And),
                    ops::Logic::And);
  idx = clamp(idx, Scalar::from_int(0), Scalar::from_int(std::max<int64_t>(nb - 1, 0)));
  return {idx, valid};
}

}  // namespace

std::pair<Tensor, std::vector<Tensor>> histogramdd(const Tensor& input, IntSpan bins,
                                                   const std::vector<Tensor>& edges_in, const double* range,
                                                   int64_t n_range, const Tensor& weight, bool density) {
  check_hist_dtypes(input, weight, edges_in);
  GLIA_CHECK(input.dim() >= 2, Shape, "torch.histogramdd: input tensor should have at least 2 dimensions, but got ",
             input.dim());
  const int64_t D = input.size(-1);
  if (edges_in.empty()) {
    // torch reads a missing count as 0
    for (int64_t d = 0; d < D; ++d) {
      const int64_t b = d < static_cast<int64_t>(bins.size()) ? bins[static_cast<size_t>(d)] : 0;
      GLIA_CHECK(b > 0, InvalidArgument, "torch.histogram(): bins must be > 0, but got ", b, " for dimension ", d);
    }
    GLIA_CHECK(static_cast<int64_t>(bins.size()) == D, InvalidArgument, "torch.histogramdd: expected ", D,
               " sequences of bin edges for each of the ", D, " input dimensions, but got ", bins.size(),
               " bin counts");
  } else {
    GLIA_CHECK(static_cast<int64_t>(edges_in.size()) == D, InvalidArgument, "torch.histogramdd: expected ", D,
               " sequences of bin edges for each of the ", D, " input dimensions, but got ", edges_in.size(),
               " bin edge tensors");
  }
  if (range)
    GLIA_CHECK(n_range == 2 * D, InvalidArgument, "torch.histogramdd: for a ", D,
               "-dimensional histogram range should have ", 2 * D, " elements, but got ", n_range);
  Tensor x = reshape(detach(input), Dims{-1, D});
  const int64_t n = x.size(0);
  if (weight.defined()) {
    Dims want;
    for (int64_t d = 0; d + 1 < input.dim(); ++d) want.push_back(input.size(d));
    GLIA_CHECK(weight.shape() == want, Shape,
               "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
               "excluding its innermost dimension, but got input with shape ",
               input.shape(), " and weight with shape ", weight.shape());
  }
  std::vector<Tensor> edges;
  for (int64_t d = 0; d < D; ++d) {
    Tensor col = select(x, 1, d);
    if (!edges_in.empty()) {
      edges.push_back(contiguous(detach(edges_in[static_cast<size_t>(d)])));
      continue;
    }
    double lo = 0, hi = 0;
    if (range) {
      lo = range[2 * d];
      hi = range[2 * d + 1];
      GLIA_CHECK(lo <= hi, InvalidArgument,
                 "torch.histogramdd: expected upper bin edge to be greater than or equal to "
                 "lower bin edge for dimension ",
                 d, ", but got lower edge ", lo, " and upper edge ", hi);
    } else if (n > 0) {
      auto [mn, mx] = ops::aminmax(col, std::nullopt, false);
      lo = item_double(mn);
      hi = item_double(mx);
    } else {
      hi = 1;  // torch's range of an empty input: [0, 1]
    }
    GLIA_CHECK(std::isfinite(lo) && std::isfinite(hi), InvalidArgument, "torch.histogramdd: dimension ", d,
               "'s range [", lo, ", ", hi, "] is not finite");
    if (lo == hi) {
      lo -= 0.5;
      hi += 0.5;
    }
    edges.push_back(ops::linspace(lo, hi, bins[static_cast<size_t>(d)] + 1, input.dtype(), input.device()));
  }
  Dims hshape;
  for (const Tensor& e : edges) hshape.push_back(e.size(0) - 1);
  int64_t total = 1;
  for (int64_t b : hshape) total *= b;
  Tensor w = weight.defined() ? reshape(detach(weight), Dims{-1}) : ones(Dims{n}, input.dtype(), input.device());
  Tensor lin = zeros(Dims{n}, DType::Int64, input.device());
  Tensor ok = ones(Dims{n}, DType::Bool, input.device());
  for (int64_t d = 0; d < D; ++d) {
    auto [idx, valid] = bin_of(select(x, 1, d), edges[static_cast<size_t>(d)]);
    lin = add(mul_scalar(lin, Scalar::from_int(hshape[static_cast<size_t>(d)])), idx);
    ok = glia::logical(ok, valid, ops::Logic::And);
  }
  Tensor hist = zeros(Dims{total}, input.dtype(), input.device());
  if (n > 0 && total > 0)
    hist = ops::index_add(hist, 0, lin, where(ok, w, zeros(Dims{}, w.dtype(), w.device())), Scalar::from_int(1));
  hist = reshape(hist, hshape);
  if (density) {
    Tensor s = sum(hist);
    hist = div(hist, s);
    for (int64_t d = 0; d < D; ++d) {
      const Tensor& e = edges[static_cast<size_t>(d)];
      Tensor width = sub(slice(e, 0, 1, std::numeric_limits<int64_t>::max(), 1), slice(e, 0, 0, -1, 1));
      Dims shape(static_cast<size_t>(D), 1);
      shape[static_cast<size_t>(d)] = -1;
      hist = div(hist, reshape(width, shape));
    }
  }
  return {hist, edges};
}

std::pair<Tensor, Tensor> histogram(const Tensor& input, int64_t bins, const Tensor& edges, const double* range,
                                    const Tensor& weight, bool density) {
  check_hist_dtypes(input, weight, edges.defined() ? std::vector<Tensor>{edges} : std::vector<Tensor>{});
  if (edges.defined())
    GLIA_CHECK(edges.dim() == 1, Shape, "torch.histogram(): bins tensor should have one dimension, but got ",
               edges.dim(), " dimensions in the bins tensor");
  else
    GLIA_CHECK(bins > 0, InvalidArgument, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  Tensor x = reshape(detach(input), Dims{-1, 1});
  Tensor w = weight.defined() ? reshape(detach(weight), Dims{-1}) : Tensor();
  const int64_t b = bins;
  auto r = edges.defined() ? histogramdd(x, {}, {edges}, range, range ? 2 : 0, w, density)
                           : histogramdd(x, IntSpan(&b, 1), {}, range, range ? 2 : 0, w, density);
  return {r.first, r.second[0]};
}

}  // namespace glia
