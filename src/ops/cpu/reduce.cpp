// Reductions: sum, mean, prod, amax/amin, max/min with indices, argmax/argmin,
// var/std, logsumexp, vector norms, and the dim-handling shared by every reduction.
// Each op is a meta part here (glia::ops: dims, dtypes, torch's checks and
// messages, outputs allocated on the input's device) and a kernel per device
// (glia::cpu::<name>_kernel below for the CPU; Note [Op = meta + kernel + rule]
// in core/dispatch.h). Kernels that need whole slices get the input in the
// canonical layout (Note [Canonical layout]), made by the meta part.
#include "ops/reduce.h"

#include <cmath>
#include <limits>
#include <vector>

#include "core/dispatch.h"
#include "ops/cpu/loops.h"
#include "ops/elementwise.h"
#include "ops/shape.h"

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

namespace detail {

ReduceGeometry reduce_geometry(const Tensor& in, const SmallVector<bool, 8>& mask) {
  ReduceGeometry g;
  int64_t prev_group = -1;  // 0 kept, 1 reduced, of the last dim pushed
  for (int64_t d = 0; d < in.dim(); ++d) {
    int64_t sz = in.shape()[d], st = in.strides()[d];
    int group = mask[d] ? 1 : 0;
    if (group)
      g.n_red *= sz;
    else
      g.n_out *= sz;
    if (sz == 1) continue;
    Dims& shp = group ? g.rshape : g.kshape;
    Dims& str = group ? g.rstride : g.kstride;
    if (prev_group == group && !shp.empty() && str.back() == st * sz) {
      shp.back() *= sz;
      str.back() = st;
    } else {
      shp.push_back(sz);
      str.push_back(st);
    }
    prev_group = group;
  }
  return g;
}

}  // namespace detail

Canonical canonical(const Tensor& t, const SmallVector<bool, 8>& mask) {
  Canonical c;
  c.n_out = 1;
  c.n_red = 1;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (!mask[d]) {
      c.perm.push_back(d);
      c.n_out *= t.shape()[d];
    }
  for (int64_t d = 0; d < t.dim(); ++d)
    if (mask[d]) {
      c.perm.push_back(d);
      c.n_red *= t.shape()[d];
    }
  c.x = contiguous(permute(t, c.perm));
  return c;
}

Tensor from_canonical(const Tensor& g, IntSpan shape, IntSpan perm) {
  Dims pshape, inv(perm.size(), 0);
  for (size_t i = 0; i < perm.size(); ++i) {
    pshape.push_back(shape[perm[i]]);
    inv[perm[i]] = static_cast<int64_t>(i);
  }
  Tensor v = make_view(g, pshape, contiguous_strides(pshape), g.offset());
  return contiguous(permute(v, inv));
}

void check_nonempty_reduction(const char* op, const Tensor& t, const SmallVector<bool, 8>& mask, bool dims_given) {
  if (t.numel() != 0) return;
  GLIA_CHECK(dims_given, InvalidArgument, op,
             "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
             "'dim' argument.");
  for (int64_t d = 0; d < t.dim(); ++d)
    GLIA_CHECK(!mask[d] || t.shape()[d] != 0, InvalidArgument, op, "(): Expected reduction dim ", d,
               " to have non-zero size.");
}

// ---- meta parts (Note [Op = meta + kernel + rule])

namespace {

// The reduced dims of `mask`, ascending: the kernels' dims attribute.
Dims mask_dims(const SmallVector<bool, 8>& mask) {
  Dims d;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) d.push_back(static_cast<int64_t>(i));
  return d;
}

// A reduction kernel of the reduce_loop kind: in0 `in` (any strides), out0 `out`; attributes dims, keepdim.
void run_reduce(KernelId id, const Tensor& in, const Tensor& out, const SmallVector<bool, 8>& mask, bool keepdim) {
  const Dims d = mask_dims(mask);
  run_kernel(id, in.device(), {&in}, {&out}, {attr_ints(d), attr_i(keepdim)});
}

}  // namespace

Tensor sum(const Tensor& t, IntSpan dims, bool keepdim, std::optional<DType> dtype) {
  DType out_t = dtype ? *dtype : is_integral(t.dtype(), true) ? DType::Int64 : t.dtype();
  auto mask = reduce_mask("sum", dims, t.dim());
  Tensor in = to_dtype(t, out_t);
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), out_t, t.device());
  run_reduce(KernelId::sum, in, out, mask, keepdim);
  return out;
}

Tensor mean(const Tensor& t, IntSpan dims, bool keepdim) {
  GLIA_CHECK(is_floating(t.dtype()), DType,
             "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
             "Got: ",
             scalar_type_name(t.dtype()));
  auto mask = reduce_mask("mean", dims, t.dim());
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), t.dtype(), t.device());
  run_reduce(KernelId::mean, t, out, mask, keepdim);
  return out;
}

Tensor prod(const Tensor& t, IntSpan dims, bool keepdim) {
  DType out_t = is_integral(t.dtype(), true) ? DType::Int64 : t.dtype();
  auto mask = reduce_mask("prod", dims, t.dim());
  Tensor in = to_dtype(t, out_t);
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), out_t, t.device());
  run_reduce(KernelId::prod, in, out, mask, keepdim);
  return out;
}

namespace {

Tensor amax_meta(KernelId id, const char* op, const Tensor& t, IntSpan dims, bool keepdim) {
  auto mask = reduce_mask(op, dims, t.dim());
  check_nonempty_reduction(op, t, mask, !dims.empty());
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), t.dtype(), t.device());
  run_reduce(id, t, out, mask, keepdim);
  return out;
}

// max/min with dim, argmax/argmin: checks, the canonical input and the outputs (values only when `want_values`).
std::pair<Tensor, Tensor> max_dim_meta(KernelId id, const char* op, const Tensor& t, std::optional<int64_t> dim,
                                       bool keepdim, bool want_values) {
  SmallVector<bool, 8> mask;
  Dims oshape;
  if (dim) {
    int64_t d = wrap_dim(*dim, t.dim());
    int64_t ds[1] = {d};
    mask = reduce_mask(op, ds, t.dim());
    if (t.dim() > 0)
      GLIA_CHECK(t.shape()[d] != 0, InvalidArgument, op, "(): Expected reduction dim ", d, " to have non-zero size.");
    oshape = reduced_shape(t.shape(), mask, keepdim);
  } else {
    GLIA_CHECK(t.numel() != 0, InvalidArgument, op,
               "(): Expected reduction dim to be specified for input.numel() == 0.");
    mask = reduce_mask(op, {}, t.dim());
    oshape = keepdim ? Dims(static_cast<size_t>(t.dim()), 1) : Dims();
  }
  Canonical c = canonical(t, mask);
  const Tensor& x = c.x;
  Tensor values = want_values ? empty(oshape, t.dtype(), t.device()) : Tensor();
  Tensor indices = empty(oshape, DType::Int64, t.device());
  if (want_values)
    run_kernel(id, t.device(), {&x}, {&values, &indices});
  else
    run_kernel(id, t.device(), {&x}, {&indices});
  return {values, indices};
}

}  // namespace

Tensor amax(const Tensor& t, IntSpan dims, bool keepdim) { return amax_meta(KernelId::amax, "amax", t, dims, keepdim); }
Tensor amin(const Tensor& t, IntSpan dims, bool keepdim) { return amax_meta(KernelId::amin, "amin", t, dims, keepdim); }

std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim) {
  return max_dim_meta(KernelId::max_dim, "max", t, dim, keepdim, true);
}
std::pair<Tensor, Tensor> min_dim(const Tensor& t, int64_t dim, bool keepdim) {
  return max_dim_meta(KernelId::min_dim, "min", t, dim, keepdim, true);
}

Tensor argmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  if (t.dtype() == DType::Bool) not_implemented_for("argmax_cpu", t.dtype());
  return max_dim_meta(KernelId::argmax, "argmax", t, dim, keepdim, false).second;
}
Tensor argmin(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  if (t.dtype() == DType::Bool) not_implemented_for("argmin_cpu", t.dtype());
  return max_dim_meta(KernelId::argmin, "argmin", t, dim, keepdim, false).second;
}

namespace {

Tensor var_meta(KernelId id, const char* op, const Tensor& t, IntSpan dims, double correction, bool keepdim) {
  GLIA_CHECK(is_floating(t.dtype()), DType, "std and var only support floating point and complex dtypes");
  auto mask = reduce_mask(op, dims, t.dim());
  Canonical c = canonical(t, mask);
  const Tensor& x = c.x;
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), t.dtype(), t.device());
  run_kernel(id, t.device(), {&x}, {&out}, {attr_f(correction)});
  return out;
}

}  // namespace

Tensor var(const Tensor& t, IntSpan dims, double correction, bool keepdim) {
  return var_meta(KernelId::var, "var", t, dims, correction, keepdim);
}
Tensor std_dev(const Tensor& t, IntSpan dims, double correction, bool keepdim) {
  return var_meta(KernelId::std_dev, "std", t, dims, correction, keepdim);
}

Tensor logsumexp(const Tensor& t, IntSpan dims, bool keepdim) {
  Tensor in = is_floating(t.dtype()) ? t : to_dtype(t, DType::Float32);
  auto mask = reduce_mask("logsumexp", dims, in.dim());
  Canonical c = canonical(in, mask);
  const Tensor& x = c.x;
  Tensor out = empty(reduced_shape(in.shape(), mask, keepdim), in.dtype(), in.device());
  run_kernel(KernelId::logsumexp, in.device(), {&x}, {&out});
  return out;
}

namespace {

const char* ord_name(double p, char* buf, size_t cap) {
  if (std::isinf(p)) return p > 0 ? "inf" : "-inf";
  std::snprintf(buf, cap, "%g", p);
  return buf;
}

}  // namespace

Tensor vector_norm(const Tensor& t, double p, IntSpan dims, bool keepdim) {
  GLIA_CHECK(is_floating(t.dtype()), DType,
             "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
             scalar_type_name(t.dtype()));
  auto mask = reduce_mask("linalg.vector_norm", dims, t.dim());
  if (p < 0 || std::isinf(p)) {
    char buf[32];
    if (t.numel() == 0) {
      GLIA_CHECK(!dims.empty(), InvalidArgument, "linalg.vector_norm cannot compute the ", ord_name(p, buf, 32),
                 " norm on an empty tensor because the operation does not have an identity");
      for (int64_t d = 0; d < t.dim(); ++d)
        GLIA_CHECK(!mask[d] || t.shape()[d] != 0, InvalidArgument, "linalg.vector_norm cannot compute the ",
                   ord_name(p, buf, 32), " norm on the dimension ", d,
                   "because this dimension is empty and the operation does not have an identity");
    }
  }
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), t.dtype(), t.device());
  const Dims rd = mask_dims(mask);
  run_kernel(KernelId::vector_norm, t.device(), {&t}, {&out}, {attr_ints(rd), attr_i(keepdim), attr_f(p)});
  return out;
}

// ---- backward meta parts: the canonical input, grad (and saved results) as contiguous
// [n_out] vectors on the input's device, the gradient as a canonical [n_out, n_red] matrix
// turned back into the input's shape.

namespace {

// `t` on `dev` (a wrapped CPU scalar next to device tensors moves), as a contiguous vector of `dtype`.
Tensor row_values(const Tensor& t, Device dev, DType dtype) { return contiguous(to_dtype(to_device(t, dev), dtype)); }

}  // namespace

Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntSpan dims, bool keepdim) {
  (void)keepdim;
  const Device dev = common_device("amax_backward", self, grad);
  common_device("amax_backward", self, result);
  auto mask = reduce_mask("amax", dims, self.dim());
  Canonical c = canonical(self, mask);
  const Tensor& x = c.x;
  Tensor g = row_values(grad, dev, self.dtype());
  Tensor r = contiguous(to_device(result, dev));
  Tensor gi = empty(x.shape(), self.dtype(), dev);
  run_kernel(KernelId::amax_backward, dev, {&x, &g, &r}, {&gi});
  return from_canonical(gi, self.shape(), c.perm);
}

Tensor index_reduce_backward(const Tensor& grad, const Tensor& indices, IntSpan shape, int64_t dim, bool keepdim) {
  (void)keepdim;
  const Device dev = common_device("max_backward", grad, indices);
  int64_t nd = static_cast<int64_t>(shape.size());
  int64_t d = wrap_dim(dim, nd);
  int64_t ds[1] = {d};
  auto mask = reduce_mask("max", ds, nd);
  Dims perm;  // kept dims, then the reduced one (Note [Canonical layout])
  for (int64_t k = 0; k < nd; ++k)
    if (!mask[k]) perm.push_back(k);
  for (int64_t k = 0; k < nd; ++k)
    if (mask[k]) perm.push_back(k);
  Tensor g = contiguous(to_device(grad, dev));
  Tensor idx = contiguous(to_device(indices, dev));
  Dims pshape;
  for (int64_t k : perm) pshape.push_back(shape[k]);
  Tensor gi = empty(pshape, grad.dtype(), dev);
  run_kernel(KernelId::index_reduce_backward, dev, {&g, &idx}, {&gi});
  return from_canonical(gi, shape, perm);
}

Tensor prod_backward(const Tensor& grad, const Tensor& self, IntSpan dims, bool keepdim) {
  (void)keepdim;
  const Device dev = common_device("prod_backward", self, grad);
  auto mask = reduce_mask("prod", dims, self.dim());
  Canonical c = canonical(self, mask);
  const Tensor& x = c.x;
  Tensor g = row_values(grad, dev, self.dtype());
  Tensor gi = empty(x.shape(), self.dtype(), dev);
  run_kernel(KernelId::prod_backward, dev, {&x, &g}, {&gi});
  return from_canonical(gi, self.shape(), c.perm);
}

Tensor norm_backward(const Tensor& grad, const Tensor& self, const Tensor& norm, double p, IntSpan dims, bool keepdim) {
  (void)keepdim;
  const Device dev = common_device("norm_backward", self, grad);
  common_device("norm_backward", self, norm);
  auto mask = reduce_mask("linalg.vector_norm", dims, self.dim());
  Canonical c = canonical(self, mask);
  const Tensor& x = c.x;
  Tensor g = row_values(grad, dev, self.dtype());
  Tensor nr = contiguous(to_device(norm, dev));
  Tensor gi = empty(x.shape(), self.dtype(), dev);
  run_kernel(KernelId::norm_backward, dev, {&x, &g, &nr}, {&gi}, {attr_f(p)});
  return from_canonical(gi, self.shape(), c.perm);
}

}  // namespace glia::ops

// ---- CPU kernels (the kernels.def lines of the reductions say what each gets)

namespace glia::cpu {

using ops::canonical;
using ops::kGrain;
using ops::reduce_loop;

namespace {

// The reduce mask of a reduce_loop kernel: attribute 0 lists the reduced dims of in0.
SmallVector<bool, 8> mask_of(const KernelArgs& k) {
  SmallVector<bool, 8> mask(static_cast<size_t>(k.input(0).dim()), false);
  const Attr& d = k.attr(0);
  for (int64_t i = 0; i < d.n_ints; ++i) mask[d.ints[i]] = true;
  return mask;
}

template <class T>
inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

// Accumulator of floating reductions: double for float32/float64, float for the 16-bit types.
template <class T>
using facc_t = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double, acc_t<T>>;

// Runs f(row_begin, row_end) over [0, n_out) rows of n_red elements each, parallel above kGrain.
template <class F>
void for_rows(int64_t n_out, int64_t n_red, F&& f) {
  int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(n_red, 1));
  parallel_for(0, n_out, grain, f);
}

}  // namespace

void sum_kernel(const KernelArgs& k) {
  const Tensor &in = k.input(0), &out = k.output(0);
  dispatch_all(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = std::conditional_t<std::is_same_v<T, bool>, int64_t,
                                 std::conditional_t<std::is_floating_point_v<T>, T, acc_t<T>>>;
    using Acc = std::conditional_t<std::is_same_v<A, float>, double, A>;
    auto add = [](Acc a, Acc x) {
      if constexpr (std::is_integral_v<Acc>)  // wraps like torch, without signed-overflow UB
        return static_cast<Acc>(static_cast<std::make_unsigned_t<Acc>>(a) + static_cast<std::make_unsigned_t<Acc>>(x));
      else
        return a + x;
    };
    reduce_loop<T, T, Acc>(
        in, out, mask_of(k), Acc(0), add, [](Acc a, int64_t) { return a; }, add);
  });
}

void mean_kernel(const KernelArgs& k) {
  const Tensor &t = k.input(0), &out = k.output(0);
  dispatch_floating(t.dtype(), "mean", [&](auto tag) {
    using T = decltype(tag);
    using Acc = facc_t<T>;
    auto add = [](Acc a, Acc x) { return a + x; };
    reduce_loop<T, T, Acc>(
        t, out, mask_of(k), Acc(0), add, [](Acc a, int64_t n) { return a / static_cast<Acc>(n); }, add);
  });
}

void prod_kernel(const KernelArgs& k) {
  const Tensor &in = k.input(0), &out = k.output(0);
  dispatch_all(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      using Acc = std::conditional_t<std::is_integral_v<T>, T, facc_t<T>>;
      auto mul = [](Acc a, Acc x) {
        if constexpr (std::is_integral_v<Acc>) {  // wraps like torch, without signed-overflow UB
          // At least unsigned int: uint16 * uint16 would promote to int and could overflow it.
          using U = std::conditional_t<(sizeof(Acc) < sizeof(unsigned)), unsigned, std::make_unsigned_t<Acc>>;
          return static_cast<Acc>(static_cast<U>(static_cast<U>(a) * static_cast<U>(x)));
        } else
          return a * x;
      };
      reduce_loop<T, T, Acc>(
          in, out, mask_of(k), Acc(1), mul, [](Acc a, int64_t) { return a; }, mul);
    }
  });
}

namespace {

template <bool Max>
void amax_rows(const KernelArgs& k) {
  const Tensor &t = k.input(0), &out = k.output(0);
  dispatch_all(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    A init;
    if constexpr (std::is_floating_point_v<A>)
      init = Max ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else if constexpr (std::is_same_v<A, bool>)
      init = !Max;
    else
      init = Max ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
    auto step = [](A a, A x) {
      if constexpr (std::is_floating_point_v<A>)
        return ((Max ? x > a : x < a) || x != x) ? x : a;  // a NaN sticks: nothing compares past it
      else
        return (Max ? x > a : x < a) ? x : a;
    };
    reduce_loop<T, T, A>(
        t, out, mask_of(k), init, step, [](A a, int64_t) { return a; }, step);
  });
}

// Values (when `values`) and int64 indices of the max (min) of each row of x [n_out, n_red].
template <bool Max>
void max_rows(const Tensor& x, const Tensor* values, const Tensor& indices) {
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = x.data_ptr<T>();
    T* vo = values ? values->data_ptr<T>() : nullptr;
    int64_t* io = indices.data_ptr<int64_t>();
    const int64_t n_out = indices.numel(), n = n_out ? x.numel() / n_out : 0;
    for_rows(n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = xp + i * n;
        A best = static_cast<A>(row[0]);
        int64_t bi = 0;
        if (!is_nan(best))
          for (int64_t j = 1; j < n; ++j) {
            A v = static_cast<A>(row[j]);
            if (is_nan(v)) {
              best = v;
              bi = j;
              break;
            }
            if (Max ? v > best : v < best) {
              best = v;
              bi = j;
            }
          }
        if (vo) vo[i] = row[bi];
        io[i] = bi;
      }
    });
  });
}

template <bool Sqrt>
void var_rows(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &out = k.output(0);
  const double correction = k.attr(0).f;
  dispatch_floating(xt.dtype(), Sqrt ? "std" : "var", [&](auto tag) {
    using T = decltype(tag);
    using A = facc_t<T>;
    const T* x = xt.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const int64_t n_out = out.numel(), n = n_out ? xt.numel() / n_out : 0;
    A div = std::max<A>(A(0), static_cast<A>(n) - static_cast<A>(correction));
    for_rows(n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        A s = 0;
        for (int64_t j = 0; j < n; ++j) s += static_cast<A>(row[j]);
        A m = s / static_cast<A>(n);
        A ss = 0;
        for (int64_t j = 0; j < n; ++j) {
          A d = static_cast<A>(row[j]) - m;
          ss += d * d;
        }
        A v = ss / div;
        o[i] = static_cast<T>(Sqrt ? std::sqrt(v) : v);
      }
    });
  });
}

}  // namespace

void amax_kernel(const KernelArgs& k) { amax_rows<true>(k); }
void amin_kernel(const KernelArgs& k) { amax_rows<false>(k); }
void max_dim_kernel(const KernelArgs& k) { max_rows<true>(k.input(0), &k.output(0), k.output(1)); }
void min_dim_kernel(const KernelArgs& k) { max_rows<false>(k.input(0), &k.output(0), k.output(1)); }
void argmax_kernel(const KernelArgs& k) { max_rows<true>(k.input(0), nullptr, k.output(0)); }
void argmin_kernel(const KernelArgs& k) { max_rows<false>(k.input(0), nullptr, k.output(0)); }
void var_kernel(const KernelArgs& k) { var_rows<false>(k); }
void std_dev_kernel(const KernelArgs& k) { var_rows<true>(k); }

void logsumexp_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &out = k.output(0);
  dispatch_floating(xt.dtype(), "logsumexp", [&](auto tag) {
    using T = decltype(tag);
    using A = facc_t<T>;
    const T* x = xt.data_ptr<T>();
    T* o = out.data_ptr<T>();
    const int64_t n_out = out.numel(), n = n_out ? xt.numel() / n_out : 0;
    for_rows(n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        A m = -std::numeric_limits<A>::infinity();
        for (int64_t j = 0; j < n; ++j) {
          A v = static_cast<A>(row[j]);
          if (v != v || v > m) m = v;
          if (m != m) break;
        }
        if (std::isinf(m)) m = 0;  // torch: all -inf rows give -inf, a +inf gives +inf
        A s = 0;
        for (int64_t j = 0; j < n; ++j) s += std::exp(static_cast<A>(row[j]) - m);
        o[i] = static_cast<T>(std::log(s) + m);
      }
    });
  });
}

void vector_norm_kernel(const KernelArgs& k) {
  const Tensor &t = k.input(0), &out = k.output(0);
  const double p = k.attr(2).f;
  const auto mask = mask_of(k);
  dispatch_floating(t.dtype(), "linalg.vector_norm", [&](auto tag) {
    using T = decltype(tag);
    using A = facc_t<T>;
    auto id = [](A a, int64_t) { return a; };
    auto add = [](A a, A b) { return a + b; };
    auto amax = [](A a, A v) { return (v > a || v != v) ? v : a; };
    auto amin = [](A a, A v) { return (v < a || v != v) ? v : a; };
    if (p == 2) {
      reduce_loop<T, T, A>(
          t, out, mask, A(0), [](A a, A x) { return a + x * x; }, [](A a, int64_t) { return std::sqrt(a); }, add);
    } else if (p == 1) {
      reduce_loop<T, T, A>(
          t, out, mask, A(0), [](A a, A x) { return a + std::abs(x); }, id, add);
    } else if (p == 0) {
      reduce_loop<T, T, A>(
          t, out, mask, A(0), [](A a, A x) { return a + (x != 0 ? A(1) : A(0)); }, id, add);
    } else if (std::isinf(p) && p > 0) {
      reduce_loop<T, T, A>(
          t, out, mask, A(0), [amax](A a, A x) { return amax(a, std::abs(x)); }, id, amax);
    } else if (std::isinf(p)) {
      reduce_loop<T, T, A>(
          t, out, mask, std::numeric_limits<A>::infinity(), [amin](A a, A x) { return amin(a, std::abs(x)); }, id,
          amin);
    } else {
      A pp = static_cast<A>(p);
      reduce_loop<T, T, A>(
          t, out, mask, A(0), [pp](A a, A x) { return a + std::pow(std::abs(x), pp); },
          [pp](A a, int64_t) { return std::pow(a, A(1) / pp); }, add);
    }
  });
}

// ---- backward kernels: x [n_out, n_red] canonical, per-row values contiguous, out [n_out, n_red].

void amax_backward_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &g = k.input(1), &r = k.input(2), &gi = k.output(0);
  dispatch_floating(xt.dtype(), "amax_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* x = xt.data_ptr<T>();
    const T* gp = g.data_ptr<T>();
    const T* rp = r.data_ptr<T>();
    T* o = gi.data_ptr<T>();
    const int64_t n_out = g.numel(), n = n_out ? xt.numel() / n_out : 0;
    for_rows(n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        A rv = static_cast<A>(rp[i]);
        int64_t cnt = 0;
        for (int64_t j = 0; j < n; ++j) cnt += static_cast<A>(row[j]) == rv || (rv != rv && row[j] != row[j]);
        A share = static_cast<A>(gp[i]) / static_cast<A>(cnt);
        for (int64_t j = 0; j < n; ++j) {
          A v = static_cast<A>(row[j]);
          o[i * n + j] = static_cast<T>(v == rv || (rv != rv && v != v) ? share : A(0));
        }
      }
    });
  });
}

void index_reduce_backward_kernel(const KernelArgs& k) {
  const Tensor &g = k.input(0), &idx = k.input(1), &gi = k.output(0);
  dispatch_floating(g.dtype(), "max_backward", [&](auto tag) {
    using T = decltype(tag);
    const T* gp = g.data_ptr<T>();
    const int64_t* ip = idx.data_ptr<int64_t>();
    T* o = gi.data_ptr<T>();
    const int64_t n_out = g.numel(), n = n_out ? gi.numel() / n_out : 0;
    std::fill(o, o + n_out * n, T(0));
    for (int64_t i = 0; i < n_out; ++i) o[i * n + ip[i]] = gp[i];
  });
}

void prod_backward_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &g = k.input(1), &gi = k.output(0);
  dispatch_floating(xt.dtype(), "prod_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = facc_t<T>;
    const T* x = xt.data_ptr<T>();
    const T* gp = g.data_ptr<T>();
    T* o = gi.data_ptr<T>();
    const int64_t n_out = g.numel(), n = n_out ? xt.numel() / n_out : 0;
    for_rows(n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        T* orow = o + i * n;
        int64_t zeros_n = 0, zpos = -1;
        A others = 1;  // product of the nonzero elements
        for (int64_t j = 0; j < n; ++j) {
          A v = static_cast<A>(row[j]);
          if (v == 0) {
            ++zeros_n;
            zpos = j;
          } else {
            others *= v;
          }
        }
        A gv = static_cast<A>(gp[i]);
        for (int64_t j = 0; j < n; ++j) orow[j] = T(0);
        if (zeros_n == 0) {
          // Product of all others without dividing (exact where x_j is tiny): prefix * suffix.
          A pre = 1;
          for (int64_t j = 0; j < n; ++j) {
            orow[j] = static_cast<T>(pre);
            pre *= static_cast<A>(row[j]);
          }
          A suf = 1;
          for (int64_t j = n - 1; j >= 0; --j) {
            orow[j] = static_cast<T>(static_cast<A>(orow[j]) * suf * gv);
            suf *= static_cast<A>(row[j]);
          }
        } else if (zeros_n == 1) {
          orow[zpos] = static_cast<T>(others * gv);
        }
      }
    });
  });
}

void norm_backward_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &g = k.input(1), &nr = k.input(2), &gi = k.output(0);
  const double p = k.attr(0).f;
  dispatch_floating(xt.dtype(), "norm_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = facc_t<T>;
    const T* x = xt.data_ptr<T>();
    const T* gp = g.data_ptr<T>();
    const T* np = nr.data_ptr<T>();
    T* o = gi.data_ptr<T>();
    const int64_t n_out = g.numel(), n = n_out ? xt.numel() / n_out : 0;
    auto sgn = [](A v) { return v > 0 ? A(1) : v < 0 ? A(-1) : A(0); };
    for_rows(n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        T* orow = o + i * n;
        A gv = static_cast<A>(gp[i]), nv = static_cast<A>(np[i]);
        if (p == 0) {
          for (int64_t j = 0; j < n; ++j) orow[j] = T(0);
        } else if (p == 1) {
          for (int64_t j = 0; j < n; ++j) orow[j] = static_cast<T>(sgn(static_cast<A>(row[j])) * gv);
        } else if (p == 2) {
          A s = nv == 0 ? A(0) : gv / nv;
          for (int64_t j = 0; j < n; ++j) orow[j] = static_cast<T>(static_cast<A>(row[j]) * s);
        } else if (std::isinf(p)) {
          int64_t cnt = 0;
          for (int64_t j = 0; j < n; ++j) {
            A a = std::abs(static_cast<A>(row[j]));
            cnt += a == nv || a != a;
          }
          A share = gv / static_cast<A>(cnt);
          for (int64_t j = 0; j < n; ++j) {
            A v = static_cast<A>(row[j]);
            A a = std::abs(v);
            orow[j] = static_cast<T>(a == nv || a != a ? sgn(v) * share : A(0));
          }
        } else if (p < 1) {
          A s = gv * std::pow(nv, A(1) - static_cast<A>(p));
          for (int64_t j = 0; j < n; ++j) {
            A v = static_cast<A>(row[j]);
            A sc = v == 0 ? A(0) : sgn(v) * std::pow(std::abs(v), static_cast<A>(p) - 1);
            orow[j] = static_cast<T>(sc * s);
          }
        } else {
          A s = nv == 0 ? A(0) : gv / std::pow(nv, static_cast<A>(p) - 1);
          for (int64_t j = 0; j < n; ++j) {
            A v = static_cast<A>(row[j]);
            A sc = p < 2 ? sgn(v) * std::pow(std::abs(v), static_cast<A>(p) - 1)
                         : v * std::pow(std::abs(v), static_cast<A>(p) - 2);
            orow[j] = static_cast<T>(sc * s);
          }
        }
      }
    });
  });
}

}  // namespace glia::cpu

// ---- all / any / nansum, and the reductions made of other ops (count_nonzero, aminmax)

namespace glia::ops {

namespace {

Tensor bool_reduce(KernelId id, const char* op, const Tensor& t, IntSpan dims, bool keepdim) {
  auto mask = reduce_mask(op, dims, t.dim());
  DType out_t = t.dtype() == DType::UInt8 ? DType::UInt8 : DType::Bool;  // torch 1.13 keeps uint8
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), out_t, t.device());
  run_reduce(id, t, out, mask, keepdim);
  return out;
}

}  // namespace

Tensor all(const Tensor& t, IntSpan dims, bool keepdim) { return bool_reduce(KernelId::all, "all", t, dims, keepdim); }
Tensor any(const Tensor& t, IntSpan dims, bool keepdim) { return bool_reduce(KernelId::any, "any", t, dims, keepdim); }

Tensor count_nonzero(const Tensor& t, IntSpan dims) {
  reduce_mask("count_nonzero", dims, t.dim());  // torch's checks first
  return sum(compare(t, wrapped_scalar(0, true), Cmp::Ne), dims, false);
}

Tensor nansum(const Tensor& t, IntSpan dims, bool keepdim) {
  if (!is_floating(t.dtype())) return sum(t, dims, keepdim);  // no NaN to skip
  auto mask = reduce_mask("nansum", dims, t.dim());
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), t.dtype(), t.device());
  run_reduce(KernelId::nansum, t, out, mask, keepdim);
  return out;
}

std::pair<Tensor, Tensor> aminmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  if (dim) {
    int64_t d = wrap_dim(*dim, t.dim());
    if (t.dim() > 0)
      GLIA_CHECK(t.shape()[d] != 0, InvalidArgument, "aminmax: Expected reduction dim ", d, " to have non-zero size.");
    int64_t ds[1] = {d};
    if (t.dim() == 0 && keepdim) {
      // torch 1.13 resizes its 0-dim out= results to [1] here (with a deprecation warning).
      const int64_t one[1] = {1};
      return {reshape(amin(t, ds, false), one), reshape(amax(t, ds, false), one)};
    }
    return {amin(t, ds, keepdim), amax(t, ds, keepdim)};
  }
  GLIA_CHECK(t.numel() != 0, InvalidArgument,
             "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  Tensor lo = amin(t, {}, false), hi = amax(t, {}, false);
  if (keepdim) {
    Dims ones(static_cast<size_t>(t.dim()), 1);
    lo = reshape(lo, ones);
    hi = reshape(hi, ones);
  }
  return {lo, hi};
}

}  // namespace glia::ops

namespace glia::cpu {

namespace {

template <bool All>
void bool_reduce_kernel(const KernelArgs& k) {
  const Tensor &in = k.input(0), &out = k.output(0);
  dispatch_all(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    auto step = [](bool a, bool x) { return All ? (a && x) : (a || x); };
    auto fin = [](bool a, int64_t) { return a; };
    if (out.dtype() == DType::UInt8)
      reduce_loop<T, uint8_t, bool>(in, out, mask_of(k), All, step, fin, step);
    else
      reduce_loop<T, bool, bool>(in, out, mask_of(k), All, step, fin, step);
  });
}

}  // namespace

void all_kernel(const KernelArgs& k) { bool_reduce_kernel<true>(k); }
void any_kernel(const KernelArgs& k) { bool_reduce_kernel<false>(k); }

void nansum_kernel(const KernelArgs& k) {
  const Tensor &in = k.input(0), &out = k.output(0);
  dispatch_floating(in.dtype(), "nansum", [&](auto tag) {
    using T = decltype(tag);
    using Acc = facc_t<T>;
    reduce_loop<T, T, Acc>(
        in, out, mask_of(k), Acc(0), [](Acc a, Acc x) { return x != x ? a : a + x; }, [](Acc a, int64_t) { return a; },
        [](Acc a, Acc b) { return a + b; });
  });
}

}  // namespace glia::cpu
