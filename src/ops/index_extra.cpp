// torch's indexing and scatter family beyond index.cpp (issue 20): meta parts (glia::ops, ops/index_extra.h)
// composed of existing kernels (scatter with its reduce modes, index_add, masked_scatter, masked_select,
// copies), so they run on every device. Note [Op = meta + kernel + rule]; messages follow torch 1.13.
#include "ops/index_extra.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>

#include "core/dispatch.h"
#include "ops/elementwise.h"
#include "ops/index.h"
#include "ops/reduce.h"
#include "ops/shape.h"
#include "ops/shape_ops.h"

namespace glia::ops {

namespace {

Tensor as_1d(const Tensor& t) { return t.dim() == 0 ? make_view(t, Dims{1}, Dims{1}, t.offset()) : t; }

// t's sizes without dim, as torch prints a std::vector: "3 5".
std::string sizes_without(const Tensor& t, int64_t dim) {
  std::string s;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d == dim) continue;
    if (!s.empty()) s += ' ';
    s += std::to_string(t.shape()[d]);
  }
  return s;
}

// The index vector idx ([n], contiguous) viewed with `shape` (n along dim, stride 0 elsewhere).
Tensor index_view(const Tensor& idx, IntSpan shape, int64_t dim) {
  Dims st(shape.size(), 0);
  st[dim] = 1;
  return make_view(idx, shape, st, idx.offset());
}

// A 0-dim tensor of `dtype` holding `v` (converted as a copy converts), on `dev`.
Tensor scalar_tensor(const Scalar& v, DType dtype, Device dev) {
  Tensor s = empty(Dims{}, dtype, dev);
  const char* kind = v.kind == Scalar::Kind::Float ? "float" : v.kind == Scalar::Kind::Int ? "int" : "bool";
  run_kernel(KernelId::fill, dev, {}, {&s}, {Attr{v.i, v.f, nullptr, 0, kind}});
  return s;
}

// index_add_ / index_copy_'s shape rule: source has self's dims (0-dim counts as [1]) and sizes apart from dim.
void check_slices(const char* fn, const Tensor& t, int64_t dim, const Tensor& source) {
  Tensor tv = t.dim() == 0 ? as_1d(t) : t, sv = source.dim() == 0 ? as_1d(source) : source;
  bool ok = tv.dim() == sv.dim();
  for (int64_t d = 0; ok && d < tv.dim(); ++d) ok = d == dim || tv.shape()[d] == sv.shape()[d];
  GLIA_CHECK(ok, Shape, fn, "(): Source/destination tensor must have same slice shapes. Destination slice shape: ",
             sizes_without(tv, dim), " at dimension ", dim, " and source slice shape: ", sizes_without(sv, dim),
             " at dimension 0.");
}

// The identity of a reduction in `dt` (amax: -inf, or the lowest integer; amin: +inf, or the largest).
Scalar reduce_identity(ScatterReduce r, DType dt) {
  if (r == ScatterReduce::Prod) return Scalar::from_int(1);
  if (r != ScatterReduce::Amax && r != ScatterReduce::Amin) return Scalar::from_int(0);
  const bool lo = r == ScatterReduce::Amax;
  if (is_floating(dt)) return Scalar::from_double(lo ? -INFINITY : INFINITY);
  switch (dt) {
    case DType::Bool:
      return Scalar::from_bool(!lo);
    case DType::UInt8:
      return Scalar::from_int(lo ? 0 : 255);
    case DType::Int8:
      return Scalar::from_int(lo ? INT8_MIN : INT8_MAX);
    case DType::Int16:
      return Scalar::from_int(lo ? INT16_MIN : INT16_MAX);
    case DType::Int32:
      return Scalar::from_int(lo ? INT32_MIN : INT32_MAX);
    default:
      return Scalar::from_int(lo ? INT64_MIN : INT64_MAX);
  }
}

}  // namespace

ScatterReduce scatter_reduce_kind(const char* reduce) {
  static const char* names[] = {"sum", "prod", "mean", "amax", "amin"};
  for (int i = 0; i < 5; ++i)
    if (reduce && std::strcmp(reduce, names[i]) == 0) return static_cast<ScatterReduce>(i);
  fail(Code::InvalidArgument, "reduce argument must be either sum, prod, mean, amax or amin.");
}

Tensor check_index(const Tensor& index, int64_t size, int64_t dim, bool wrap, IndexMessage msg) {
  Tensor idx = contiguous(reshape(to_dtype(index, DType::Int64), Dims{-1}));
  if (idx.numel() == 0) return idx;
  GLIA_CHECK(msg != IndexMessage::Put || size > 0, InvalidArgument,
             "put_(): Tried to put elements into an empty tensor");
  // The entries out of range, read back to the host (usually none: a count per chunk and no values),
  // as masked_select reads its size; the first one is reported with torch's message.
  Tensor bad = logical(compare(idx, wrapped_scalar(wrap ? static_cast<double>(-size) : 0.0, true), Cmp::Lt),
                       compare(idx, wrapped_scalar(static_cast<double>(size), true), Cmp::Ge), Logic::Or);
  Tensor vals = masked_select(idx, bad);
  if (vals.numel() > 0) {
    const int64_t v = to_device(vals, Device{}).data_ptr<int64_t>()[0];
    if (msg == IndexMessage::Put)
      fail(Code::InvalidArgument, "out of range: tried to access index ", v, " on a tensor of ", size, " elements.");
    if (msg == IndexMessage::OutOfRange) fail(Code::InvalidArgument, "index out of range in self");
    fail(Code::InvalidArgument, msg == IndexMessage::IndexCopy ? "index_copy_(): " : "", "index ", v,
         " is out of bounds for dimension ", dim, " with size ", size);
  }
  if (!wrap) return idx;
  return where(compare(idx, wrapped_scalar(0.0, true), Cmp::Lt),
               add(idx, wrapped_scalar(static_cast<double>(size), true), 1.0), idx);
}

namespace {

// torch's index_func_meta_impl (index_add_, index_reduce_): the checks and messages of `fn`; returns dim wrapped.
int64_t check_index_func(const char* fn, const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source) {
  common_device(fn, t, index, false);
  common_device(fn, t, source, false);
  dim = wrap_dim(dim, t.dim());
  GLIA_CHECK(index.dim() <= 1, InvalidArgument, fn, "(): Index is supposed to be a vector, but got dim: ", index.dim(),
             " with type: ", scalar_type_name(index.dtype()), " and size: ", index.shape());
  GLIA_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, DType, fn,
             "(): Expected dtype int32/int64 for index but got: ", scalar_type_name(index.dtype()));
  GLIA_CHECK(t.dtype() == source.dtype(), DType, fn, "(): self (", scalar_type_name(t.dtype()), ") and source (",
             scalar_type_name(source.dtype()), ") must have the same scalar type");
  GLIA_CHECK(dim == 0 || dim < source.dim(), InvalidArgument, fn, "(): Indexing dim ", dim,
             " is out of bounds of the source tensor with dim ", source.dim());
  const int64_t n = index.numel(), src_n = source.dim() == 0 ? 1 : source.shape()[dim];
  GLIA_CHECK(n == src_n, InvalidArgument, fn, "(): Number of indices (", n, ") should be equal to source.size(dim): (",
             src_n, "), for dim: ", dim);
  check_slices(fn, t, dim, source);
  return dim;
}

}  // namespace

Tensor index_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  dim = check_index_func("index_add_", t, dim, index, source);
  Tensor out = clone(t);
  Tensor src = source;
  if (alpha.to_double() != 1.0) src = mul(source, scalar_tensor(alpha, source.dtype(), t.device()));
  index_add_(out, dim, index, src);  // checks the indices ("index out of range in self")
  return out;
}

Tensor index_reduce_index(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                          ScatterReduce reduce) {
  GLIA_CHECK(reduce != ScatterReduce::Sum, InvalidArgument,
             "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum.");
  dim = check_index_func("index_reduce_", t, dim, index, source);
  const int64_t size = t.dim() == 0 ? 1 : t.shape()[dim];
  Tensor idx = check_index(index, size, dim, false, IndexMessage::OutOfRange);
  Dims shape = source.dim() == 0 ? Dims{1} : source.shape();
  return index_view(idx, shape, dim);
}

Tensor index_copy(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source) {
  common_device("index_copy", t, index, false);
  common_device("index_copy", t, source, false);
  dim = wrap_dim(dim, t.dim());
  GLIA_CHECK(index.dim() < 2, InvalidArgument, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(),
             ")");
  const int64_t n = index.numel();
  GLIA_CHECK(source.dim() != 0 || n == 1, InvalidArgument,
             "index_copy_(): When source is scalar, index should have one element (got ", n, ")");
  GLIA_CHECK(source.dim() == t.dim() || source.dim() == 0 || t.dim() == 0, InvalidArgument,
             "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source "
             "dimensionality (",
             source.dim(), "), destination dimensionality (", t.dim(), ")");
  GLIA_CHECK(index.dtype() == DType::Int64, DType, "index_copy_(): Expected a long tensor for index, but got ",
             scalar_type_name(index.dtype()));
  GLIA_CHECK(t.dtype() == source.dtype(), DType,
             "index_copy_(): self and source expected to have the same dtype, but got (self) ",
             scalar_type_name(t.dtype()), " and (source) ", scalar_type_name(source.dtype()));
  check_slices("index_copy_", t, dim, source);
  const int64_t src_n = source.dim() == 0 ? 1 : source.shape()[dim];
  GLIA_CHECK(n == src_n, InvalidArgument, "index_copy_(): Number of indices (", n,
             ") should be equal to source.size(dim) (", src_n, ")");
  Tensor out = clone(t);
  if (n == 0) return out;
  const int64_t size = t.dim() == 0 ? 1 : t.shape()[dim];
  Tensor idx = check_index(reshape(index, Dims{-1}), size, dim, false, IndexMessage::IndexCopy);
  Tensor sv = as_1d(source);
  scatter_(out, dim, index_view(idx, sv.shape(), dim), sv, false);
  return out;
}

Tensor index_fill(const Tensor& t, int64_t dim, const Tensor& index, const Scalar& value) {
  common_device("index_fill", t, index, false);
  GLIA_CHECK(index.dtype() == DType::Int64, DType, "index_fill_(): Expected dtype int64 for index.");
  dim = wrap_dim(dim, t.dim());
  GLIA_CHECK(index.dim() <= 1, InvalidArgument, "Index has to be a vector/scalar");
  value.check_fits(t.dtype());
  Tensor out = clone(t);
  if (index.numel() == 0 || t.numel() == 0) return out;
  Tensor ov = as_1d(out);
  Tensor idx = check_index(reshape(index, Dims{-1}), ov.shape()[dim], dim, true, IndexMessage::Bounds);
  Dims shape = ov.shape();
  shape[dim] = idx.numel();
  Tensor v = scalar_tensor(value, t.dtype(), t.device());
  Tensor src = make_view(v, shape, Dims(shape.size(), 0), v.offset());
  scatter_(ov, dim, index_view(idx, shape, dim), src, false);
  return out;
}

Tensor scatter_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce,
                      bool include_self) {
  const Device dev = common_device("scatter_reduce", t, index, false);
  common_device("scatter_reduce", t, src, false);
  check_gather("scatter", t, dim, index, &src);
  dim = wrap_dim(dim, t.dim());
  Tensor out = clone(t);
  if (index.numel() == 0) return out;
  Tensor ov = as_1d(out), iv = as_1d(index), sv = as_1d(src);
  // The scatter kernel's reduce modes (kernels.def's h-index block): 1 add, 2 prod, 3 amax, 4 amin; mean
  // adds, then divides. include_self false: the scattered positions start from the reduction's identity.
  static const int64_t modes[] = {1, 2, 1, 3, 4};
  if (!include_self) {
    Tensor id = scalar_tensor(reduce_identity(reduce, t.dtype()), t.dtype(), dev);
    scatter_(ov, dim, iv, make_view(id, iv.shape(), Dims(iv.shape().size(), 0), id.offset()), false);
  }
  run_kernel(KernelId::scatter, dev, {&sv, &iv}, {&ov}, {attr_i(dim), attr_i(modes[static_cast<int>(reduce)])});
  if (reduce != ScatterReduce::Mean) return out;
  // mean: the sum over the number of contributions (self's element counting one with include_self).
  Tensor count = include_self ? ones(ov.shape(), t.dtype(), dev) : zeros(ov.shape(), t.dtype(), dev);
  Tensor one = ones(Dims{}, t.dtype(), dev);
  scatter_(count, dim, iv, make_view(one, iv.shape(), Dims(iv.shape().size(), 0), one.offset()), true);
  count = where(compare(count, zeros(Dims{}, t.dtype(), dev), Cmp::Eq), one, count);
  const bool integral = !is_floating(t.dtype());
  Tensor r = div(out, reshape(count, t.shape()), integral ? "floor" : nullptr);
  return integral ? to_dtype(r, t.dtype()) : r;
}

Tensor masked_scatter(const Tensor& t, const Tensor& mask, const Tensor& source) {
  const Device dev = common_device("masked_scatter", t, mask, false);
  common_device("masked_scatter", t, source, false);
  GLIA_CHECK(mask.dtype() == DType::Bool || mask.dtype() == DType::UInt8, DType,
             "masked_scatter_ only supports boolean masks, but got mask with dtype ", scalar_type_name(mask.dtype()));
  GLIA_CHECK(t.dtype() == source.dtype(), DType, "masked_scatter: expected self and source to have same dtypes but got",
             scalar_type_name(t.dtype()), " and ", scalar_type_name(source.dtype()));
  Dims shape = broadcast_shapes("masked_scatter", mask.shape(), t.shape());
  Tensor out = empty(shape, t.dtype(), dev);
  copy_strided(out, expand_to(t, shape));
  masked_scatter_(out, mask, source);
  return out;
}

Tensor nonzero(const Tensor& t) {
  const Device dev = t.device();
  Tensor mask = compare(t, zeros(Dims{}, t.dtype(), dev), Cmp::Ne);
  const int64_t nd = t.dim();
  if (nd == 0) {
    const int64_t k = masked_select(zeros(Dims{}, DType::Int64, dev), mask).numel();
    return empty(Dims{k, 0}, DType::Int64, dev);
  }
  // Column d: the coordinate along d of every element (arange along d, stride 0 elsewhere) where mask holds.
  std::vector<Tensor> cols;
  cols.reserve(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) {
    Tensor r = arange(0, static_cast<double>(t.shape()[d]), 1, DType::Int64, dev);
    Dims st(static_cast<size_t>(nd), 0);
    st[d] = 1;
    cols.push_back(masked_select(make_view(r, t.shape(), st, r.offset()), mask));
  }
  return stack(cols, 1);
}

Tensor index_put_linear(const Tensor& t, const std::vector<Tensor>& indices, int64_t& k, Dims& bshape) {
  // Bool and uint8 masks become their nonzero coordinates (one index per masked dim).
  std::vector<Tensor> idx;
  for (const Tensor& i : indices) {
    common_device("index_put", t, i, false);
    if (i.dtype() == DType::Bool || i.dtype() == DType::UInt8) {
      const int64_t at = static_cast<int64_t>(idx.size());
      GLIA_CHECK(at + i.dim() <= t.dim(), InvalidArgument, "too many indices for tensor of dimension ", t.dim(),
                 " (got ", at + i.dim(), ")");
      for (int64_t d = 0; d < i.dim(); ++d)
        GLIA_CHECK(i.shape()[d] == t.shape()[at + d], InvalidArgument, "The shape of the mask ", i.shape(),
                   " at index ", d, " does not match the shape of the indexed tensor ", t.shape(), " at index ",
                   at + d);
      Tensor nz = nonzero(i);
      for (int64_t d = 0; d < i.dim(); ++d) idx.push_back(select(nz, 1, d));
      continue;
    }
    GLIA_CHECK(
        i.dtype() == DType::Int64 || i.dtype() == DType::Int32 || i.dtype() == DType::Int16 || i.dtype() == DType::Int8,
        DType, "tensors used as indices must be long, byte or bool tensors");
    idx.push_back(i);
  }
  k = static_cast<int64_t>(idx.size());
  GLIA_CHECK(k <= t.dim(), InvalidArgument, "too many indices for tensor of dimension ", t.dim(), " (got ", k, ")");
  GLIA_CHECK(k > 0, InvalidArgument, "index_put: expected at least one index tensor");
  bshape = idx[0].shape();
  for (size_t j = 1; j < idx.size(); ++j) {
    bool ok = true;
    try {
      bshape = broadcast_shapes("index_put", bshape, idx[j].shape());
    } catch (const Error&) {
      ok = false;
    }
    if (!ok) {
      std::string shapes;
      for (size_t q = 0; q < idx.size(); ++q) {
        if (q) shapes += ", ";
        std::ostringstream s;
        s << idx[q].shape();
        shapes += s.str();
      }
      fail(Code::InvalidArgument, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
           shapes);
    }
  }
  // The linear index into the first k dims: sum_j wrap(idx_j) * (product of t's sizes j+1 .. k-1).
  Tensor lin;
  int64_t stride = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    Tensor w =
        check_index(to_dtype(idx[static_cast<size_t>(j)], DType::Int64), t.shape()[j], j, true, IndexMessage::Bounds);
    Tensor term = stride == 1 ? w : mul(w, full(Dims{}, static_cast<double>(stride), DType::Int64, t.device()));
    lin = lin.defined() ? add(lin, term, 1.0) : term;
    stride *= t.shape()[j];
  }
  return contiguous(expand_to(lin, bshape));
}

Tensor diagonal_scatter(const Tensor& t, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  common_device("diagonal_scatter", t, src, false);
  Tensor out = clone(t);
  Tensor slot = diagonal(out, offset, dim1, dim2);
  GLIA_CHECK(slot.shape() == src.shape(), Shape,
             "expected src to have a size equal to the slice of self. src size = ", src.shape(),
             ", slice size = ", slot.shape());
  copy_strided(slot, to_dtype(src, t.dtype()));
  return out;
}

Tensor select_scatter(const Tensor& t, const Tensor& src, int64_t dim, int64_t index) {
  common_device("select_scatter", t, src, false);
  Tensor out = clone(t);
  Tensor slot = select(out, dim, index);
  GLIA_CHECK(slot.shape() == src.shape(), Shape,
             "expected src to have a size equal to the slice of self. src size = ", src.shape(),
             ", slice size = ", slot.shape());
  copy_strided(slot, to_dtype(src, t.dtype()));
  return out;
}

Tensor slice_scatter(const Tensor& t, const Tensor& src, int64_t dim, int64_t start, int64_t end, int64_t step) {
  common_device("slice_scatter", t, src, false);
  Tensor out = clone(t);
  Tensor slot = slice(out, dim, start, end, step);
  GLIA_CHECK(slot.shape() == src.shape(), Shape,
             "expected src to have a size equal to the slice of self. src size = ", src.shape(),
             ", slice size = ", slot.shape());
  copy_strided(slot, to_dtype(src, t.dtype()));
  return out;
}

}  // namespace glia::ops
