// torch functions of issue 20 composed of differentiable ops, following torch 1.13's ATen code (the same
// formulas in the same order, its checks and messages first, so a bad call changes nothing): diff, cross,
// tensordot, kron, block_diag, diagflat, cov, corrcoef, trapezoid, cumulative_trapezoid, cdist,
// constant_pad_nd, combinations, einsum.
#include "autograd/fn/stats_extra.h"

#include <algorithm>
#include <array>
#include <limits>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/linalg.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/fn/shape_ops.h"
#include "core/scalar.h"
#include "ops/iter.h"
#include "ops/reduce.h"

namespace glia {

namespace {

constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();

void check_same_dtype(const Tensor& a, const Tensor& b) {
  GLIA_CHECK(a.dtype() == b.dtype(), DType, "expected scalar type ", scalar_type_name(a.dtype()), " but found ",
             scalar_type_name(b.dtype()));
}

Tensor scalar_like(double v, DType dtype, const Tensor& like) { return full(Dims{}, v, dtype, like.device()); }

}  // namespace

Tensor diff(const Tensor& input, int64_t n, int64_t dim, const Tensor* prepend, const Tensor* append) {
  GLIA_CHECK(input.dim() >= 1, Shape, "diff expects input to be at least one-dimensional");
  const int64_t d = ops::wrap_dim(dim, input.dim());
  for (const Tensor* o : {prepend, append}) {
    if (!o) continue;
    GLIA_CHECK(o->dim() == input.dim(), Shape, "diff expects prepend or append to be the same dimension as input");
    for (int64_t i = 0; i < o->dim(); ++i)
      GLIA_CHECK(o->size(i) == input.size(i) || i == d, Shape,
                 "diff expects the shape of tensor to prepend or append to match that of input except along the "
                 "differencing dimension; input.size(",
                 i, ") = ", input.size(i), ", but got tensor.size(", i, ") = ", o->size(i));
  }
  Tensor x = input;
  if (prepend || append) {
    std::vector<Tensor> parts;
    if (prepend) parts.push_back(*prepend);
    parts.push_back(input);
    if (append) parts.push_back(*append);
    x = cat(parts, d);
  }
  if (n <= 0) return x;  // torch 1.13 differences nothing for n <= 0
  n = std::min(n, x.size(d));
  int64_t len = x.size(d) - 1;
  const bool is_bool = x.dtype() == DType::Bool;
  for (int64_t i = 0; i < n; ++i) {
    Tensor hi = narrow(x, d, 1, len), lo = narrow(x, d, 0, len);
    x = is_bool ? glia::logical(hi, lo, ops::Logic::Xor) : sub(hi, lo);
    --len;
  }
  return x;
}

Tensor cross(const Tensor& input, const Tensor& other, const int64_t* dimp) {
  int64_t dim = 0;
  if (dimp) {
    dim = *dimp;
  } else {  // torch 1.13's default: the first dim of size 3
    int64_t found = -1;
    for (int64_t i = 0; i < input.dim() && found < 0; ++i)
      if (input.size(i) == 3) found = i;
    GLIA_CHECK(found >= 0, Shape, "no dimension of size 3 in input");
    dim = found;
  }
  GLIA_CHECK(input.dim() == other.dim(), Shape, "linalg.cross: inputs must have the same number of dimensions.");
  const int64_t d = ops::wrap_dim(dim, input.dim());
  GLIA_CHECK(input.size(d) == 3 && other.size(d) == 3, Shape, "linalg.cross: inputs dimension ", dim,
             " must have length 3. Got ", input.size(d), " and ", other.size(d));
  check_same_dtype(input, other);
  std::array<Tensor, 3> a, b;
  for (int64_t i = 0; i < 3; ++i) {
    a[i] = narrow(input, d, i, 1);
    b[i] = narrow(other, d, i, 1);
  }
  return cat({sub(mul(a[1], b[2]), mul(a[2], b[1])), sub(mul(a[2], b[0]), mul(a[0], b[2])),
              sub(mul(a[0], b[1]), mul(a[1], b[0]))},
             d);
}

Tensor tensordot(const Tensor& a, const Tensor& b, IntSpan dims_a, IntSpan dims_b) {
  GLIA_CHECK(dims_a.size() == dims_b.size(), Shape, "both dimension lists should have same length");
  Tensor t1 = a, t2 = b;
  int64_t csize = 1;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t s1 = a.size(ops::wrap_dim(dims_a[i], a.dim())), s2 = b.size(ops::wrap_dim(dims_b[i], b.dim()));
    if (s2 == 1) {
      t1 = sum(t1, Dims{dims_a[i]}, true);
    } else if (s1 == 1) {
      t2 = sum(t2, Dims{dims_b[i]}, true);
    } else {
      GLIA_CHECK(s1 == s2, Shape, "contracted dimensions need to match, but first has size ", s1, " in dim ", dims_a[i],
                 " and second has size ", s2, " in dim ", dims_b[i]);
      csize *= s1;
    }
  }
  auto mask1 = ops::reduce_mask("tensordot", dims_a, a.dim());
  auto mask2 = ops::reduce_mask("tensordot", dims_b, b.dim());
  if (dims_a.empty()) mask1.assign(static_cast<size_t>(a.dim()), false);  // reduce_mask: empty means all
  if (dims_b.empty()) mask2.assign(static_cast<size_t>(b.dim()), false);
  check_same_dtype(a, b);
  Dims p1, p2, rsizes;
  int64_t size1 = 1, size2 = 1;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (!mask1[static_cast<size_t>(i)]) {
      p1.push_back(i);
      size1 *= t1.size(i);
      rsizes.push_back(t1.size(i));
    }
  for (int64_t x : dims_a) p1.push_back(ops::wrap_dim(x, a.dim()));
  for (int64_t x : dims_b) p2.push_back(ops::wrap_dim(x, b.dim()));
  for (int64_t i = 0; i < b.dim(); ++i)
    if (!mask2[static_cast<size_t>(i)]) {
      p2.push_back(i);
      size2 *= t2.size(i);
      rsizes.push_back(t2.size(i));
    }
  Tensor m1 = reshape(permute(t1, p1), Dims{size1, csize});
  Tensor m2 = reshape(permute(t2, p2), Dims{csize, size2});
  return reshape(mm(m1, m2), rsizes);
}

Tensor kron(const Tensor& a, const Tensor& b) {
  const int64_t maxdim = std::max(a.dim(), b.dim());
  const int64_t pad_a = maxdim - a.dim(), pad_b = maxdim - b.dim();
  Dims ra(static_cast<size_t>(2 * maxdim)), rb(static_cast<size_t>(2 * maxdim)), rr(static_cast<size_t>(maxdim));
  for (int64_t i = 0; i < maxdim; ++i) {
    const int64_t sa = i >= pad_a ? a.size(i - pad_a) : 1, sb = i >= pad_b ? b.size(i - pad_b) : 1;
    ra[static_cast<size_t>(2 * i)] = sa;
    ra[static_cast<size_t>(2 * i + 1)] = 1;
    rb[static_cast<size_t>(2 * i)] = 1;
    rb[static_cast<size_t>(2 * i + 1)] = sb;
    rr[static_cast<size_t>(i)] = sa * sb;
  }
  return reshape(mul(reshape(a, ra), reshape(b, rb)), rr);
}

Tensor block_diag(const std::vector<Tensor>& tensors) {
  if (tensors.empty()) return empty(Dims{1, 0}, DType::Float32, Device{});
  const Device dev = tensors[0].device();
  for (size_t i = 0; i < tensors.size(); ++i)
    GLIA_CHECK(tensors[i].device() == dev, Device,
               "torch.block_diag: input tensors must all be on the same device. Input 0 is on device ", dev,
               " and input ", i, " is on device ", tensors[i].device());
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : tensors) ptrs.push_back(&t);
  const DType dtype = ops::result_type(std::span<const Tensor* const>(ptrs.data(), ptrs.size()));
  std::vector<Tensor> blocks;
  int64_t rows = 0, cols = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    GLIA_CHECK(t.dim() <= 2, Shape, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ", i,
               " has ", t.dim(), " dimensions");
    Tensor b = t.dim() == 2 ? t : reshape(t, Dims{1, t.dim() == 1 ? t.size(0) : 1});
    blocks.push_back(to_dtype_with_grad(b, dtype));
    rows += b.size(0);
    cols += b.size(1);
  }
  // Each block padded with zeros to the full width, then the rows stacked (a block without rows only
  // widens the result).
  std::vector<Tensor> padded;
  int64_t left = 0;
  for (const Tensor& b : blocks) {
    const int64_t w = b.size(1), right = cols - left - w;
    if (b.size(0) > 0) padded.push_back(left == 0 && right == 0 ? b : pad(b, Dims{left, right, 0, 0}));
    left += w;
  }
  if (padded.empty()) return zeros(Dims{rows, cols}, dtype, dev);
  return cat(padded, 0);
}

Tensor diagflat(const Tensor& input, int64_t offset) { return diag(reshape(input, Dims{input.numel()}), offset); }

Tensor cov(const Tensor& input, int64_t correction, const Tensor* fweights, const Tensor* aweights) {
  GLIA_CHECK(input.dim() <= 2, Shape, "cov(): expected input to have two or fewer dimensions but got an input with ",
             input.dim(), " dimensions");
  GLIA_CHECK(input.dtype() != DType::Bool, DType, "cov(): bool dtype is not supported for input");
  Tensor in = input.dim() < 2 ? reshape(input, Dims{1, input.numel()}) : input;
  const int64_t nobs = in.size(1);
  Tensor w;
  bool has_w = false;
  if (fweights) {
    const Tensor& f = *fweights;
    GLIA_CHECK(f.dim() <= 1, Shape, "cov(): expected fweights to have one or fewer dimensions but got fweights with ",
               f.dim(), " dimensions");
    GLIA_CHECK(is_integral(f.dtype(), false), DType,
               "cov(): expected fweights to have integral dtype but got fweights with ", scalar_type_name(f.dtype()),
               " dtype");
    GLIA_CHECK(f.numel() == nobs, Shape,
               "cov(): expected fweights to have the same numel as there are observations in the input but got ",
               f.numel(), " != ", nobs);
    GLIA_CHECK(nobs == 0 || item_double(amin(f)) >= 0, InvalidArgument, "cov(): fweights cannot be negative");
    w = f;
    has_w = true;
  }
  if (aweights) {
    const Tensor& aw = *aweights;
    GLIA_CHECK(aw.dim() <= 1, Shape, "cov(): expected aweights to have one or fewer dimensions but got aweights with ",
               aw.dim(), " dimensions");
    GLIA_CHECK(is_floating(aw.dtype()), DType,
               "cov(): expected aweights to have floating point dtype but got aweights with ",
               scalar_type_name(aw.dtype()), " dtype");
    GLIA_CHECK(aw.numel() == nobs, Shape,
               "cov(): expected aweights to have the same numel as there are observations in the input but got ",
               aw.numel(), " != ", nobs);
    GLIA_CHECK(nobs == 0 || item_double(amin(aw)) >= 0, InvalidArgument, "cov(): aweights cannot be negative");
    w = has_w ? mul(w, aw) : aw;
    has_w = true;
  }
  Tensor w_sum = has_w ? sum(w) : scalar_like(static_cast<double>(nobs), DType::Int64, in);
  GLIA_CHECK(!has_w || item_double(w_sum) != 0, InvalidArgument, "cov(): weights sum to zero, can't be normalized");
  Tensor avg = div(sum(has_w ? mul(in, w) : in, Dims{1}), w_sum);
  Tensor norm_factor;
  if (has_w && aweights && correction != 0)
    norm_factor = sub(w_sum, div(mul_scalar(sum(mul(w, *aweights)), Scalar::from_int(correction)), w_sum));
  else
    norm_factor = sub_scalar(w_sum, Scalar::from_int(correction));
  if (item_double(norm_factor) <= 0) norm_factor = scalar_like(0.0, norm_factor.dtype(), in);  // torch warns
  in = sub(in, unsqueeze(avg, 1));
  Tensor c = mm(in, transpose(has_w ? mul(in, w) : in, 0, 1));
  return squeeze(div(c, norm_factor));
}

Tensor corrcoef(const Tensor& input) {
  GLIA_CHECK(input.dim() <= 2, Shape,
             "corrcoef(): expected input to have two or fewer dimensions but got an input with ", input.dim(),
             " dimensions");
  Tensor c = cov(input, 1, nullptr, nullptr);
  if (c.dim() == 0) return div(c, c);  // NaN for a covariance of 0, inf or NaN, else 1
  Tensor stddev = sqrt(diagonal(c));
  c = div(c, reshape(stddev, Dims{stddev.numel(), 1}));
  c = div(c, reshape(stddev, Dims{1, stddev.numel()}));
  return clamp(c, Scalar::from_int(-1), Scalar::from_int(1));
}

namespace {

// The sample points x seen with y's number of dims (torch's x_viewed), then their differences along d.
Tensor spacing(const Tensor& y, const Tensor& x, int64_t d, const char* op) {
  Tensor xv = x;
  if (x.dim() == 1) {
    GLIA_CHECK(x.size(0) == y.size(d), Shape, op, ": There must be one `x` value for each sample point");
    Dims s(static_cast<size_t>(y.dim()), 1);
    s[static_cast<size_t>(d)] = x.size(0);
    xv = reshape(x, s);
  } else if (x.dim() < y.dim()) {
    Dims s(static_cast<size_t>(y.dim() - x.dim()), 1);
    for (int64_t v : x.shape()) s.push_back(v);
    xv = reshape(x, s);
  }
  return sub(slice(xv, d, 1, kEnd), slice(xv, d, 0, -1));
}

}  // namespace

Tensor trapezoid(const Tensor& y, const Tensor* x, double dx, int64_t dim) {
  const int64_t d = ops::wrap_dim(dim, y.dim());
  if (y.size(d) == 0) {  // numpy's 0 for no samples
    Dims s;
    for (int64_t i = 0; i < y.dim(); ++i)
      if (i != d) s.push_back(y.size(i));
    return zeros(s, y.dtype(), y.device());
  }
  if (x) {
    GLIA_CHECK(y.dtype() != DType::Bool && x->dtype() != DType::Bool, DType,
               "trapezoid: received a bool input for `x` or `y`, but bool is not supported");
    Tensor dxs = spacing(y, *x, d, "trapezoid");
    return div_scalar(sum(mul(dxs, add(slice(y, d, 1, kEnd), slice(y, d, 0, -1))), Dims{d}), Scalar::from_double(2.0));
  }
  GLIA_CHECK(y.dtype() != DType::Bool, DType, "trapezoid: received a bool input for `y`, but bool is not supported");
  // dx * (sum(y) - (y_first + y_last) / 2), torch's form for constant spacing.
  Tensor ends = mul_scalar(add(select(y, d, 0), select(y, d, -1)), Scalar::from_double(0.5));
  return mul_scalar(sub(sum(y, Dims{d}), ends), Scalar::from_double(dx));
}

Tensor cumulative_trapezoid(const Tensor& y, const Tensor* x, double dx, int64_t dim) {
  const int64_t d = ops::wrap_dim(dim, y.dim());
  if (x)
    GLIA_CHECK(y.dtype() != DType::Bool && x->dtype() != DType::Bool, DType,
               "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported");
  Tensor pairs = add(slice(y, d, 0, -1), slice(y, d, 1, kEnd));
  if (x) {
    Tensor dxs = spacing(y, *x, d, "cumulative_trapezoid");
    return cumsum(mul(div_scalar(dxs, Scalar::from_double(2.0)), pairs), d);
  }
  return cumsum(mul_scalar(pairs, Scalar::from_double(dx / 2.0)), d);
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p) {
  GLIA_CHECK(x1.dim() >= 2, Shape, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  GLIA_CHECK(x2.dim() >= 2, Shape, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  GLIA_CHECK(x1.size(-1) == x2.size(-1), Shape, "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
             " X2: ", x2.size(-1));
  GLIA_CHECK(is_floating(x1.dtype()), DType,
             "cdist only supports floating-point dtypes, X1 got: ", scalar_type_name(x1.dtype()));
  GLIA_CHECK(is_floating(x2.dtype()), DType,
             "cdist only supports floating-point dtypes, X2 got: ", scalar_type_name(x2.dtype()));
  GLIA_CHECK(p >= 0, InvalidArgument, "cdist only supports non-negative p values");
  check_same_dtype(x1, x2);
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2);
  if (p == 2 && (r1 > 25 || r2 > 25) && x1.numel() != 0 && x2.numel() != 0) {
    // torch's _euclidean_dist: one matrix product of [-2 x1, |x1|^2, 1] and [x2, 1, |x2|^2].
    Tensor n1 = sum(pow_scalar(x1, Scalar::from_int(2)), Dims{-1}, true);
    Tensor n2 = sum(pow_scalar(x2, Scalar::from_int(2)), Dims{-1}, true);
    Tensor o1 = full(n1.shape(), 1.0, n1.dtype(), n1.device()), o2 = full(n2.shape(), 1.0, n2.dtype(), n2.device());
    Tensor a = cat({mul_scalar(x1, Scalar::from_int(-2)), n1, o1}, -1);
    Tensor b = cat({x2, o2, n2}, -1);
    Tensor r = matmul(a, transpose(b, -1, -2));
    return sqrt(clamp(r, Scalar::from_double(1e-30), std::nullopt));
  }
  // The differences of every pair of rows, [..., R1, R2, M], and their p-norms.
  Tensor dif = sub(unsqueeze(x1, -2), unsqueeze(x2, -3));
  return vector_norm(dif, p, Dims{-1}, false);
}

Tensor constant_pad_nd(const Tensor& input, IntSpan pad_sizes, double value) {
  // torch's own messages (F.pad's Python checks, which glia's pad gives, come before them in torch).
  const int64_t n = static_cast<int64_t>(pad_sizes.size());
  GLIA_CHECK(n % 2 == 0, InvalidArgument, "Length of pad must be even but instead it equals ", n);
  GLIA_CHECK(n <= 2 * input.dim(), InvalidArgument,
             "Length of pad should be no more than twice the number of dimensions of the input. Pad length is ", n,
             "while the input has ", input.dim(), "dimensions.");
  return pad(input, pad_sizes, PadMode::Constant, value);
}

Tensor combinations(const Tensor& input, int64_t r, bool with_replacement) {
  GLIA_CHECK(input.dim() == 1, Shape, "Expect a 1D vector, but got shape ", input.shape());
  GLIA_CHECK(r >= 0, InvalidArgument, "Expect a non-negative number, but got ", r);
  if (r == 0) return empty(Dims{0}, input.dtype(), input.device());
  // The index tuples in lexicographic order (torch's triu mask over the meshgrid, read row-major).
  const int64_t n = input.size(0);
  std::vector<int64_t> idx, cur(static_cast<size_t>(r), 0);
  if (!with_replacement)
    for (int64_t i = 0; i < r; ++i) cur[static_cast<size_t>(i)] = i;
  auto valid = [&] { return n > 0 && cur[static_cast<size_t>(r - 1)] < n; };
  int64_t count = 0;
  while (valid()) {
    idx.insert(idx.end(), cur.begin(), cur.end());
    ++count;
    int64_t k = r - 1;  // the last position that can still grow
    while (k >= 0) {
      const int64_t limit = with_replacement ? n - 1 : n - r + k;
      if (cur[static_cast<size_t>(k)] < limit) break;
      --k;
    }
    if (k < 0) break;
    ++cur[static_cast<size_t>(k)];
    for (int64_t j = k + 1; j < r; ++j)
      cur[static_cast<size_t>(j)] = cur[static_cast<size_t>(j - 1)] + (with_replacement ? 0 : 1);
  }
  Tensor host = empty(Dims{count * r}, DType::Int64, Device{});
  std::copy(idx.begin(), idx.end(), host.data_ptr<int64_t>());
  Tensor sel = index_select(input, 0, to_device(host, input.device()));
  return reshape(sel, Dims{count, r});
}

// ---- einsum
namespace {

constexpr int kEll = 52;  // the label index of the ellipsis' dims

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}
char char_of(int l) { return static_cast<char>(l < 26 ? 'A' + l : 'a' + (l - 26)); }

// One term's labels in order; kEll stands for the ellipsis (at most once).
struct Term {
  std::vector<int> labels;
  bool has_ell = false;
};

Term parse_term(std::string_view eq, size_t begin, size_t end, bool output) {
  Term t;
  for (size_t i = begin; i < end; ++i) {
    const char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      GLIA_CHECK(!t.has_ell && i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.', InvalidArgument,
                 "einsum(): found '.' for ", output ? "output" : "operand", " that is not part of any ellipsis");
      t.has_ell = true;
      t.labels.push_back(kEll);
      i += 2;
      continue;
    }
    const int l = label_of(c);
    GLIA_CHECK(l >= 0, InvalidArgument, "einsum(): invalid subscript given at index ", i,
               " in the equation string, subscripts must be in [a-zA-Z]");
    t.labels.push_back(l);
  }
  return t;
}

}  // namespace

Tensor einsum(std::string_view eq, const std::vector<Tensor>& operands) {
  GLIA_CHECK(!operands.empty(), InvalidArgument, "einsum(): must provide at least one operand");
  const size_t arrow = eq.find("->");
  const size_t lhs_end = arrow == std::string_view::npos ? eq.size() : arrow;
  std::vector<Term> terms;
  size_t start = 0;
  for (size_t i = 0; i <= lhs_end; ++i)
    if (i == lhs_end || eq[i] == ',') {
      GLIA_CHECK(terms.size() < operands.size(), InvalidArgument,
                 "einsum(): fewer operands were provided than specified in the equation");
      terms.push_back(parse_term(eq, start, i, false));
      start = i + 1;
    }
  GLIA_CHECK(terms.size() == operands.size(), InvalidArgument,
             "einsum(): more operands were provided than specified in the equation");
  // Each operand's dims: labels, with the ellipsis expanded to its dims (ell_dims of them, right-aligned).
  int64_t ell_dims = 0;
  std::array<int64_t, kEll> counts{};
  for (size_t k = 0; k < terms.size(); ++k) {
    const Term& t = terms[k];
    const int64_t named = static_cast<int64_t>(t.labels.size()) - (t.has_ell ? 1 : 0);
    const int64_t nd = operands[k].dim();
    if (t.has_ell) {
      GLIA_CHECK(nd >= named, Shape, "einsum(): the number of subscripts in the equation (", named,
                 ") is more than the number of dimensions (", nd, ") for operand ", k);
      ell_dims = std::max(ell_dims, nd - named);
    } else {
      GLIA_CHECK(nd == named, Shape, "einsum(): the number of subscripts in the equation (", named,
                 ") does not match the number of dimensions (", nd, ") for operand ", k, " and no ellipsis was given");
    }
    for (int l : t.labels)
      if (l != kEll) ++counts[static_cast<size_t>(l)];
  }
  // The output's labels.
  std::vector<int> out;
  bool out_ell = false;
  if (arrow != std::string_view::npos) {
    Term o = parse_term(eq, arrow + 2, eq.size(), true);
    std::array<bool, kEll> seen{};
    for (int l : o.labels) {
      if (l == kEll) {
        out_ell = true;
      } else {
        GLIA_CHECK(counts[static_cast<size_t>(l)] > 0, InvalidArgument, "einsum(): output subscript ", char_of(l),
                   " does not appear in the equation for any input operand");
        GLIA_CHECK(!seen[static_cast<size_t>(l)], InvalidArgument, "einsum(): output subscript ", char_of(l),
                   " appears more than once in the output");
        seen[static_cast<size_t>(l)] = true;
      }
      out.push_back(l);
    }
  } else {
    bool any_ell = false;
    for (const Term& t : terms) any_ell = any_ell || t.has_ell;
    if (any_ell) {
      out_ell = true;
      out.push_back(kEll);
    }
    for (int l = 0; l < kEll; ++l)
      if (counts[static_cast<size_t>(l)] == 1) out.push_back(l);
  }
  // The full dim order: the ellipsis' dims, then every label in index order. Each operand is brought to
  // that order, with size-1 dims for what it lacks (so that the products broadcast).
  std::vector<int> used;
  for (int l = 0; l < kEll; ++l)
    if (counts[static_cast<size_t>(l)] > 0) used.push_back(l);
  const int64_t full_nd = ell_dims + static_cast<int64_t>(used.size());
  auto pos_of = [&](int l) {
    return ell_dims + static_cast<int64_t>(std::lower_bound(used.begin(), used.end(), l) - used.begin());
  };
  std::array<int64_t, kEll> size_of;
  size_of.fill(-1);
  std::vector<Tensor> aligned;
  for (size_t k = 0; k < terms.size(); ++k) {
    Tensor x = operands[k];
    // dim labels of x: the ellipsis' dims get kEll + 1 + (their position among the ellipsis' dims)
    std::vector<int> dl;
    const int64_t named = static_cast<int64_t>(terms[k].labels.size()) - (terms[k].has_ell ? 1 : 0);
    const int64_t own_ell = x.dim() - named;
    for (int l : terms[k].labels) {
      if (l == kEll) {
        for (int64_t e = 0; e < own_ell; ++e) dl.push_back(kEll + 1 + static_cast<int>(ell_dims - own_ell + e));
      } else {
        dl.push_back(l);
      }
    }
    // Repeated labels: their diagonal (diagonal() moves it last).
    for (bool again = true; again;) {
      again = false;
      for (size_t i = 0; i < dl.size() && !again; ++i)
        for (size_t j = i + 1; j < dl.size() && !again; ++j)
          if (dl[i] == dl[j]) {
            GLIA_CHECK(x.size(static_cast<int64_t>(i)) == x.size(static_cast<int64_t>(j)), Shape,
                       "einsum(): subscript ", char_of(dl[i]), " is repeated for operand ", k,
                       " but the sizes don't match, ", x.size(static_cast<int64_t>(j)),
                       " != ", x.size(static_cast<int64_t>(i)));
            x = diagonal(x, 0, static_cast<int64_t>(i), static_cast<int64_t>(j));
            const int l = dl[i];
            dl.erase(dl.begin() + static_cast<std::ptrdiff_t>(j));
            dl.erase(dl.begin() + static_cast<std::ptrdiff_t>(i));
            dl.push_back(l);
            again = true;
          }
    }
    // Sizes must agree (or be 1) across operands.
    for (size_t i = 0; i < dl.size(); ++i) {
      if (dl[i] > kEll) continue;
      const int64_t s = x.size(static_cast<int64_t>(i));
      int64_t& known = size_of[static_cast<size_t>(dl[i])];
      GLIA_CHECK(known < 0 || known == s || known == 1 || s == 1, Shape, "einsum(): subscript ", char_of(dl[i]),
                 " has size ", s, " for operand ", k, " which does not broadcast with previously seen size ", known);
      if (known < 0 || known == 1) known = s;
    }
    // Permute to the full order and insert the missing dims.
    Dims perm;
    Dims shape(static_cast<size_t>(full_nd), 1);
    std::vector<std::pair<int64_t, int64_t>> at;  // (full position, x's dim)
    for (size_t i = 0; i < dl.size(); ++i) {
      const int64_t p = dl[i] > kEll ? dl[i] - kEll - 1 : pos_of(dl[i]);
      at.emplace_back(p, static_cast<int64_t>(i));
    }
    std::sort(at.begin(), at.end());
    for (auto [p, i] : at) {
      perm.push_back(i);
      shape[static_cast<size_t>(p)] = x.size(i);
    }
    aligned.push_back(reshape(permute(x, perm), shape));
  }
  // Multiply left to right, summing a label away (keeping its dim as 1) once no later operand and not the
  // output has it.
  std::vector<int64_t> last_use(static_cast<size_t>(kEll), -1);
  for (size_t k = 0; k < terms.size(); ++k)
    for (int l : terms[k].labels)
      if (l != kEll) last_use[static_cast<size_t>(l)] = static_cast<int64_t>(k);
  std::array<bool, kEll> in_out{};
  for (int l : out)
    if (l != kEll) in_out[static_cast<size_t>(l)] = true;
  Tensor acc = aligned[0];
  for (size_t k = 0; k < aligned.size(); ++k) {
    if (k > 0) acc = mul(acc, aligned[k]);
    Dims done;
    for (int l : used)
      if (!in_out[static_cast<size_t>(l)] && last_use[static_cast<size_t>(l)] == static_cast<int64_t>(k))
        done.push_back(pos_of(l));
    if (!done.empty()) acc = sum(acc, done, true);
  }
  // The output's order: its labels (the ellipsis' dims where it stands), then the summed dims (size 1).
  Dims perm, out_shape;
  std::vector<bool> taken(static_cast<size_t>(full_nd), false);
  for (int l : out) {
    if (l == kEll) {
      for (int64_t e = 0; e < ell_dims; ++e) {
        perm.push_back(e);
        taken[static_cast<size_t>(e)] = true;
      }
    } else {
      perm.push_back(pos_of(l));
      taken[static_cast<size_t>(pos_of(l))] = true;
    }
  }
  for (int64_t p : perm) out_shape.push_back(acc.size(p));
  if (!out_ell) {  // ellipsis dims not in the output are summed
    Dims ed;
    for (int64_t e = 0; e < ell_dims; ++e) ed.push_back(e);
    if (!ed.empty()) acc = sum(acc, ed, true);
  }
  for (int64_t p = 0; p < full_nd; ++p)
    if (!taken[static_cast<size_t>(p)]) perm.push_back(p);
  return reshape(permute(acc, perm), out_shape);
}

}  // namespace glia
