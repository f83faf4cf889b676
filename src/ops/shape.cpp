#include "ops/shape.h"

#include "core/checked.h"
#include "ops/reduce.h"

namespace glia::ops {

Dims infer_size(IntSpan shape, int64_t numel) {
  int64_t known = 1;
  int64_t infer = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      GLIA_CHECK(infer < 0, InvalidArgument, "only one dimension can be inferred");
      infer = static_cast<int64_t>(d);
    } else {
      GLIA_CHECK(shape[d] >= 0, InvalidArgument, "invalid shape dimension ", shape[d]);
      known = checked_mul(known, shape[d], "view");  // Note [Checked sizes]
    }
  }
  Dims out(shape);
  bool ok = numel == known || (infer >= 0 && known > 0 && numel % known == 0);
  GLIA_CHECK(ok, Shape, "shape '", shape, "' is invalid for input of size ", numel);
  if (infer >= 0) {
    // A -1 next to a zero-size dim is ambiguous.
    GLIA_CHECK(known != 0, Shape, "cannot reshape tensor of 0 elements into shape ", shape,
               " because the unspecified dimension size -1 can be any value and is ambiguous");
    out[static_cast<size_t>(infer)] = numel / known;
  }
  return out;
}

bool view_strides(const Tensor& t, IntSpan shape, Dims& st) {
  const Dims& old_shape = t.shape();
  const Dims& old_st = t.strides();
  st.assign(shape.size(), 0);
  if (old_shape.empty()) {
    st.assign(shape.size(), 1);
    return true;
  }
  if (t.numel() == 0) {
    st = contiguous_strides(shape);
    return true;
  }
  // Chunks of old dims that are contiguous with each other map onto new dims.
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = old_st.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_shape[d];
    if (d == 0 || (old_shape[d - 1] != 1 && old_st[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        st[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_st[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Tensor view(const Tensor& t, IntSpan shape) {
  Dims s = infer_size(shape, t.numel());
  Dims st;
  GLIA_CHECK(view_strides(t, s, st), Shape,
             "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
             "two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(t, s, st, t.offset());
}

Tensor reshape(const Tensor& t, IntSpan shape) {
  Dims s = infer_size(shape, t.numel());
  Dims st;
  if (view_strides(t, s, st)) return make_view(t, s, st, t.offset());
  Tensor c = contiguous(t);
  return make_view(c, s, contiguous_strides(s), c.offset());
}

Tensor permute(const Tensor& t, IntSpan dims) {
  int64_t nd = t.dim();
  GLIA_CHECK(static_cast<int64_t>(dims.size()) == nd, Shape,
             "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
             "ordering of dimensions i.e. input.dim() = ",
             nd, " is not equal to len(dims) = ", dims.size());
  Dims shape(static_cast<size_t>(nd)), st(static_cast<size_t>(nd));
  SmallVector<bool, 8> seen(static_cast<size_t>(nd), false);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t d = wrap_dim(dims[i], nd);
    GLIA_CHECK(!seen[d], InvalidArgument, "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    shape[i] = t.shape()[d];
    st[i] = t.strides()[d];
  }
  return make_view(t, shape, st, t.offset());
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  int64_t nd = t.dim();
  d0 = wrap_dim(d0, nd);
  d1 = wrap_dim(d1, nd);
  if (nd == 0) return make_view(t, t.shape(), t.strides(), t.offset());
  Dims shape = t.shape(), st = t.strides();
  std::swap(shape[d0], shape[d1]);
  std::swap(st[d0], st[d1]);
  return make_view(t, shape, st, t.offset());
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  int64_t nd = t.dim();
  dim = wrap_dim(dim, nd + 1);
  Dims shape = t.shape(), st = t.strides();
  int64_t s = dim < nd ? shape[dim] * st[dim] : 1;
  shape.insert(static_cast<size_t>(dim), 1);
  st.insert(static_cast<size_t>(dim), s);
  return make_view(t, shape, st, t.offset());
}

Tensor squeeze(const Tensor& t, IntSpan dims, bool all_dims) {
  int64_t nd = t.dim();
  SmallVector<bool, 8> drop(static_cast<size_t>(nd), false);
  if (all_dims) {
    for (int64_t d = 0; d < nd; ++d) drop[d] = t.shape()[d] == 1;
  } else {
    for (int64_t d : dims) {
      int64_t w = wrap_dim(d, nd);
      if (nd > 0 && t.shape()[w] == 1) drop[w] = true;
    }
  }
  Dims shape, st;
  for (int64_t d = 0; d < nd; ++d)
    if (!drop[d]) {
      shape.push_back(t.shape()[d]);
      st.push_back(t.strides()[d]);
    }
  return make_view(t, shape, st, t.offset());
}

Tensor expand(const Tensor& t, IntSpan shape) {
  int64_t nd = t.dim(), n = static_cast<int64_t>(shape.size());
  GLIA_CHECK(n >= nd, Shape, "expand(torch.", scalar_type_name(t.dtype()), "Tensor{", t.shape(), "}, size=", shape,
             "): the number of sizes provided (", n,
             ") must be greater or equal to the number of dimensions in the "
             "tensor (",
             nd, ")");
  Dims out(static_cast<size_t>(n)), st(static_cast<size_t>(n));
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t j = i - (n - nd);
    int64_t want = shape[i];
    if (j < 0) {
      GLIA_CHECK(want >= 0, Shape, "The expanded size of the tensor (", want,
                 ") isn't allowed in a leading, non-existing dimension ", i);
      out[i] = want;
      st[i] = 0;
      continue;
    }
    int64_t have = t.shape()[j];
    if (want == -1) want = have;
    GLIA_CHECK(have == want || have == 1, Shape, "The expanded size of the tensor (", want,
               ") must match the existing size (", have, ") at non-singleton dimension ", i, ".  Target sizes: ", shape,
               ".  Tensor sizes: ", t.shape());
    out[i] = want;
    st[i] = have == want ? t.strides()[j] : 0;
  }
  return make_view(t, out, st, t.offset());
}

Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  int64_t nd = t.dim();
  start_dim = wrap_dim(start_dim, nd);
  end_dim = wrap_dim(end_dim, nd);
  GLIA_CHECK(start_dim <= end_dim, InvalidArgument, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (nd == 0) return reshape(t, Dims{1});
  if (start_dim == end_dim) return make_view(t, t.shape(), t.strides(), t.offset());
  Dims shape;
  int64_t m = 1;
  for (int64_t d = 0; d < nd; ++d) {
    if (d < start_dim || d > end_dim) {
      shape.push_back(t.shape()[d]);
    } else {
      m *= t.shape()[d];
      if (d == end_dim) shape.push_back(m);
    }
  }
  return reshape(t, shape);
}

}  // namespace glia::ops
