// Reductions: sum, mean, prod, amax/amin, max/min with indices, argmax/argmin,
// var/std, logsumexp, vector norms, and the dim-handling shared by every reduction.
#include "ops/reduce.h"

#include <cmath>
#include <limits>
#include <vector>

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

namespace {

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
    auto add = [](Acc a, Acc x) {
      if constexpr (std::is_integral_v<Acc>)  // wraps like torch, without signed-overflow UB
        return static_cast<Acc>(static_cast<std::make_unsigned_t<Acc>>(a) + static_cast<std::make_unsigned_t<Acc>>(x));
      else
        return a + x;
    };
    reduce_loop<T, T, Acc>(
        in, out, mask, Acc(0), add, [](Acc a, int64_t) { return a; }, add);
  });
  return out;
}

Tensor mean(const Tensor& t, IntSpan dims, bool keepdim) {
  GLIA_CHECK(is_floating(t.dtype()), DType,
             "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
             "Got: ",
             scalar_type_name(t.dtype()));
  auto mask = reduce_mask("mean", dims, t.dim());
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), t.dtype(), t.device());
  dispatch_floating(t.dtype(), "mean", [&](auto tag) {
    using T = decltype(tag);
    using Acc = facc_t<T>;
    auto add = [](Acc a, Acc x) { return a + x; };
    reduce_loop<T, T, Acc>(
        t, out, mask, Acc(0), add, [](Acc a, int64_t n) { return a / static_cast<Acc>(n); }, add);
  });
  return out;
}

Tensor prod(const Tensor& t, IntSpan dims, bool keepdim) {
  DType out_t = is_integral(t.dtype(), true) ? DType::Int64 : t.dtype();
  auto mask = reduce_mask("prod", dims, t.dim());
  Tensor in = to_dtype(t, out_t);
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), out_t, t.device());
  dispatch_all(out_t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      using Acc = std::conditional_t<std::is_integral_v<T>, T, facc_t<T>>;
      auto mul = [](Acc a, Acc x) {
        if constexpr (std::is_integral_v<Acc>)  // wraps like torch, without signed-overflow UB
          return static_cast<Acc>(static_cast<std::make_unsigned_t<Acc>>(a) *
                                  static_cast<std::make_unsigned_t<Acc>>(x));
        else
          return a * x;
      };
      reduce_loop<T, T, Acc>(
          in, out, mask, Acc(1), mul, [](Acc a, int64_t) { return a; }, mul);
    }
  });
  return out;
}

namespace {

template <bool Max>
Tensor amax_impl(const char* op, const Tensor& t, IntSpan dims, bool keepdim) {
  auto mask = reduce_mask(op, dims, t.dim());
  check_nonempty_reduction(op, t, mask, !dims.empty());
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), t.dtype(), t.device());
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
        t, out, mask, init, step, [](A a, int64_t) { return a; }, step);
  });
  return out;
}

template <bool Max>
std::pair<Tensor, Tensor> max_dim_impl(const char* op, const Tensor& t, std::optional<int64_t> dim, bool keepdim,
                                       bool want_values) {
  SmallVector<bool, 8> mask;
  Canonical c;
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
  c = canonical(t, mask);
  Tensor values = want_values ? empty(oshape, t.dtype(), t.device()) : Tensor();
  Tensor indices = empty(oshape, DType::Int64, t.device());
  dispatch_all(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* x = c.x.data_ptr<T>();
    T* vo = want_values ? values.data_ptr<T>() : nullptr;
    int64_t* io = indices.data_ptr<int64_t>();
    int64_t n = c.n_red;
    for_rows(c.n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        A best = static_cast<A>(row[0]);
        int64_t bi = 0;
        if (!is_nan(best))
          for (int64_t k = 1; k < n; ++k) {
            A v = static_cast<A>(row[k]);
            if (is_nan(v)) {
              best = v;
              bi = k;
              break;
            }
            if (Max ? v > best : v < best) {
              best = v;
              bi = k;
            }
          }
        if (vo) vo[i] = row[bi];
        io[i] = bi;
      }
    });
  });
  return {values, indices};
}

}  // namespace

Tensor amax(const Tensor& t, IntSpan dims, bool keepdim) { return amax_impl<true>("amax", t, dims, keepdim); }
Tensor amin(const Tensor& t, IntSpan dims, bool keepdim) { return amax_impl<false>("amin", t, dims, keepdim); }

std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim) {
  return max_dim_impl<true>("max", t, dim, keepdim, true);
}
std::pair<Tensor, Tensor> min_dim(const Tensor& t, int64_t dim, bool keepdim) {
  return max_dim_impl<false>("min", t, dim, keepdim, true);
}

Tensor argmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  if (t.dtype() == DType::Bool) not_implemented_for("argmax_cpu", t.dtype());
  return max_dim_impl<true>("argmax", t, dim, keepdim, false).second;
}
Tensor argmin(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  if (t.dtype() == DType::Bool) not_implemented_for("argmin_cpu", t.dtype());
  return max_dim_impl<false>("argmin", t, dim, keepdim, false).second;
}

namespace {

Tensor var_impl(const char* op, const Tensor& t, IntSpan dims, double correction, bool keepdim, bool take_sqrt) {
  GLIA_CHECK(is_floating(t.dtype()), DType, "std and var only support floating point and complex dtypes");
  auto mask = reduce_mask(op, dims, t.dim());
  Canonical c = canonical(t, mask);
  Tensor out = empty(reduced_shape(t.shape(), mask, keepdim), t.dtype(), t.device());
  dispatch_floating(t.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using A = facc_t<T>;
    const T* x = c.x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    int64_t n = c.n_red;
    A div = std::max<A>(A(0), static_cast<A>(n) - static_cast<A>(correction));
    for_rows(c.n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        A s = 0;
        for (int64_t k = 0; k < n; ++k) s += static_cast<A>(row[k]);
        A m = s / static_cast<A>(n);
        A ss = 0;
        for (int64_t k = 0; k < n; ++k) {
          A d = static_cast<A>(row[k]) - m;
          ss += d * d;
        }
        A v = ss / div;
        o[i] = static_cast<T>(take_sqrt ? std::sqrt(v) : v);
      }
    });
  });
  return out;
}

}  // namespace

Tensor var(const Tensor& t, IntSpan dims, double correction, bool keepdim) {
  return var_impl("var", t, dims, correction, keepdim, false);
}
Tensor std_dev(const Tensor& t, IntSpan dims, double correction, bool keepdim) {
  return var_impl("std", t, dims, correction, keepdim, true);
}

Tensor logsumexp(const Tensor& t, IntSpan dims, bool keepdim) {
  Tensor in = is_floating(t.dtype()) ? t : to_dtype(t, DType::Float32);
  auto mask = reduce_mask("logsumexp", dims, in.dim());
  Canonical c = canonical(in, mask);
  Tensor out = empty(reduced_shape(in.shape(), mask, keepdim), in.dtype(), in.device());
  dispatch_floating(in.dtype(), "logsumexp", [&](auto tag) {
    using T = decltype(tag);
    using A = facc_t<T>;
    const T* x = c.x.data_ptr<T>();
    T* o = out.data_ptr<T>();
    int64_t n = c.n_red;
    for_rows(c.n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        A m = -std::numeric_limits<A>::infinity();
        for (int64_t k = 0; k < n; ++k) {
          A v = static_cast<A>(row[k]);
          if (v != v || v > m) m = v;
          if (m != m) break;
        }
        if (std::isinf(m)) m = 0;  // torch: all -inf rows give -inf, a +inf gives +inf
        A s = 0;
        for (int64_t k = 0; k < n; ++k) s += std::exp(static_cast<A>(row[k]) - m);
        o[i] = static_cast<T>(std::log(s) + m);
      }
    });
  });
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
  return out;
}

// ---- backward kernels

namespace {

// grad (reduced shape, with or without keepdim) as a contiguous [n_out] vector in canonical order.
Tensor grad_rows(const Tensor& grad) { return contiguous(grad); }

}  // namespace

Tensor amax_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntSpan dims, bool keepdim) {
  (void)keepdim;
  auto mask = reduce_mask("amax", dims, self.dim());
  Canonical c = canonical(self, mask);
  Tensor g = grad_rows(to_dtype(grad, self.dtype()));
  Tensor r = contiguous(result);
  Tensor gi = empty(c.x.shape(), self.dtype(), self.device());
  dispatch_floating(self.dtype(), "amax_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* x = c.x.data_ptr<T>();
    const T* gp = g.data_ptr<T>();
    const T* rp = r.data_ptr<T>();
    T* o = gi.data_ptr<T>();
    int64_t n = c.n_red;
    for_rows(c.n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        A rv = static_cast<A>(rp[i]);
        int64_t cnt = 0;
        for (int64_t k = 0; k < n; ++k) cnt += static_cast<A>(row[k]) == rv || (rv != rv && row[k] != row[k]);
        A share = static_cast<A>(gp[i]) / static_cast<A>(cnt);
        for (int64_t k = 0; k < n; ++k) {
          A v = static_cast<A>(row[k]);
          o[i * n + k] = static_cast<T>(v == rv || (rv != rv && v != v) ? share : A(0));
        }
      }
    });
  });
  return from_canonical(gi, self.shape(), c.perm);
}

Tensor index_reduce_backward(const Tensor& grad, const Tensor& indices, IntSpan shape, int64_t dim, bool keepdim) {
  (void)keepdim;
  int64_t nd = static_cast<int64_t>(shape.size());
  int64_t d = wrap_dim(dim, nd);
  int64_t ds[1] = {d};
  auto mask = reduce_mask("max", ds, nd);
  Dims perm;
  int64_t n_out = 1, n = 1;
  for (int64_t k = 0; k < nd; ++k)
    if (!mask[k]) {
      perm.push_back(k);
      n_out *= shape[k];
    }
  for (int64_t k = 0; k < nd; ++k)
    if (mask[k]) {
      perm.push_back(k);
      n *= shape[k];
    }
  Tensor g = contiguous(grad);
  Tensor idx = contiguous(indices);
  Dims pshape;
  for (int64_t k : perm) pshape.push_back(shape[k]);
  Tensor gi = zeros(pshape, grad.dtype(), grad.device());
  dispatch_floating(grad.dtype(), "max_backward", [&](auto tag) {
    using T = decltype(tag);
    const T* gp = g.data_ptr<T>();
    const int64_t* ip = idx.data_ptr<int64_t>();
    T* o = gi.data_ptr<T>();
    for (int64_t i = 0; i < n_out; ++i) o[i * n + ip[i]] = gp[i];
  });
  return from_canonical(gi, shape, perm);
}

Tensor prod_backward(const Tensor& grad, const Tensor& self, IntSpan dims, bool keepdim) {
  (void)keepdim;
  auto mask = reduce_mask("prod", dims, self.dim());
  Canonical c = canonical(self, mask);
  Tensor g = grad_rows(to_dtype(grad, self.dtype()));
  Tensor gi = empty(c.x.shape(), self.dtype(), self.device());
  dispatch_floating(self.dtype(), "prod_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = facc_t<T>;
    const T* x = c.x.data_ptr<T>();
    const T* gp = g.data_ptr<T>();
    T* o = gi.data_ptr<T>();
    int64_t n = c.n_red;
    for_rows(c.n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        T* orow = o + i * n;
        int64_t zeros_n = 0, zpos = -1;
        A others = 1;  // product of the nonzero elements
        for (int64_t k = 0; k < n; ++k) {
          A v = static_cast<A>(row[k]);
          if (v == 0) {
            ++zeros_n;
            zpos = k;
          } else {
            others *= v;
          }
        }
        A gv = static_cast<A>(gp[i]);
        for (int64_t k = 0; k < n; ++k) orow[k] = T(0);
        if (zeros_n == 0) {
          // Product of all others without dividing (exact where x_k is tiny): prefix * suffix.
          A pre = 1;
          for (int64_t k = 0; k < n; ++k) {
            orow[k] = static_cast<T>(pre);
            pre *= static_cast<A>(row[k]);
          }
          A suf = 1;
          for (int64_t k = n - 1; k >= 0; --k) {
            orow[k] = static_cast<T>(static_cast<A>(orow[k]) * suf * gv);
            suf *= static_cast<A>(row[k]);
          }
        } else if (zeros_n == 1) {
          orow[zpos] = static_cast<T>(others * gv);
        }
      }
    });
  });
  return from_canonical(gi, self.shape(), c.perm);
}

Tensor norm_backward(const Tensor& grad, const Tensor& self, const Tensor& norm, double p, IntSpan dims, bool keepdim) {
  (void)keepdim;
  auto mask = reduce_mask("linalg.vector_norm", dims, self.dim());
  Canonical c = canonical(self, mask);
  Tensor g = grad_rows(to_dtype(grad, self.dtype()));
  Tensor nr = contiguous(norm);
  Tensor gi = empty(c.x.shape(), self.dtype(), self.device());
  dispatch_floating(self.dtype(), "norm_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = facc_t<T>;
    const T* x = c.x.data_ptr<T>();
    const T* gp = g.data_ptr<T>();
    const T* np = nr.data_ptr<T>();
    T* o = gi.data_ptr<T>();
    int64_t n = c.n_red;
    auto sgn = [](A v) { return v > 0 ? A(1) : v < 0 ? A(-1) : A(0); };
    for_rows(c.n_out, n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* row = x + i * n;
        T* orow = o + i * n;
        A gv = static_cast<A>(gp[i]), nv = static_cast<A>(np[i]);
        if (p == 0) {
          for (int64_t k = 0; k < n; ++k) orow[k] = T(0);
        } else if (p == 1) {
          for (int64_t k = 0; k < n; ++k) orow[k] = static_cast<T>(sgn(static_cast<A>(row[k])) * gv);
        } else if (p == 2) {
          A s = nv == 0 ? A(0) : gv / nv;
          for (int64_t k = 0; k < n; ++k) orow[k] = static_cast<T>(static_cast<A>(row[k]) * s);
        } else if (std::isinf(p)) {
          int64_t cnt = 0;
          for (int64_t k = 0; k < n; ++k) {
            A a = std::abs(static_cast<A>(row[k]));
            cnt += a == nv || a != a;
          }
          A share = gv / static_cast<A>(cnt);
          for (int64_t k = 0; k < n; ++k) {
            A v = static_cast<A>(row[k]);
            A a = std::abs(v);
            orow[k] = static_cast<T>(a == nv || a != a ? sgn(v) * share : A(0));
          }
        } else if (p < 1) {
          A s = gv * std::pow(nv, A(1) - static_cast<A>(p));
          for (int64_t k = 0; k < n; ++k) {
            A v = static_cast<A>(row[k]);
            A sc = v == 0 ? A(0) : sgn(v) * std::pow(std::abs(v), static_cast<A>(p) - 1);
            orow[k] = static_cast<T>(sc * s);
          }
        } else {
          A s = nv == 0 ? A(0) : gv / std::pow(nv, static_cast<A>(p) - 1);
          for (int64_t k = 0; k < n; ++k) {
            A v = static_cast<A>(row[k]);
            A sc = p < 2 ? sgn(v) * std::pow(std::abs(v), static_cast<A>(p) - 1)
                         : v * std::pow(std::abs(v), static_cast<A>(p) - 2);
            orow[k] = static_cast<T>(sc * s);
          }
        }
      }
    });
  });
  return from_canonical(gi, self.shape(), c.perm);
}

}  // namespace glia::ops
