// Sum and the dim-handling shared by every reduction.
#include "ops/reduce.h"

namespace glia::ops {

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = ndim == 0 ? 1 : ndim;
  GLIA_CHECK(dim >= -n && dim < n, InvalidArgument, "Dimension out of range (expected to be in range of [", -n, ", ",
             n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

SmallVector<bool, 8> reduce_mask(const char* op, IntSpan dims, int64_t ndim) {
  SmallVector<bool, 8> mask(static_cast<size_t>(ndim), dims.empty());
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim);
    if (ndim == 0) continue;
    GLIA_CHECK(!mask[w], InvalidArgument, op, ": dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  return mask;
}

Dims reduced_shape(IntSpan shape, const SmallVector<bool, 8>& mask, bool keepdim) {
  Dims out;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!mask[d])
      out.push_back(shape[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

Tensor sum(const Tensor& t, IntSpan dims, bool keepdim, std::optional<DType> dtype) {
  DType out_t = dtype ? *dtype : is_integral(t.dtype(), true) ? DType::Int64 : t.dtype();
  auto mask = reduce_mask("sum", dims, t.dim());
  Tensor in = to_dtype(t, out_t);
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), out_t, t.device());
  dispatch_all(out_t, [&](auto tag) {
    using T = decltype(tag);
    using A = std::conditional_t<std::is_same_v<T, bool>, int64_t,
                                 std::conditional_t<std::is_floating_point_v<T>, T, acc_t<T>>>;
    using Acc = std::conditional_t<std::is_same_v<A, float>, double, A>;
    reduce_loop<T, T, Acc>(
        in, out, mask, Acc(0), [](Acc a, Acc x) { return a + x; }, [](Acc a, int64_t) { return a; });
  });
  return out;
}

}  // namespace glia::ops
