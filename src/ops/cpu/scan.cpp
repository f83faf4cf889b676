// Scans along one dim: cumsum, cumprod, cummax / cummin, logcumsumexp, and the
// backwards that need kernels of their own (cumprod with zeros, logcumsumexp).
// Meta parts (glia::ops) and CPU kernels (glia::cpu), Note [Op = meta + kernel
// + rule] in core/dispatch.h.
//
// Note [Scan layout]: a forward scan gets in0 contiguous and sees it as
// [outer, n, inner] (n the scanned dim's size). It walks the n slices in
// order and keeps one accumulator per inner element, in blocks of kScanBlock
// on the stack: with inner == 1 that is a sequential loop along each row, with
// inner > 1 each step is a contiguous, vectorisable loop over a block of the
// inner elements, so both layouts read memory in order and accumulate in
// torch's accumulation type (double for float32). The backwards get rows
// (Note [Canonical layout] in ops/reduce.h: the scanned dim last).
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dispatch.h"
#include "ops/cpu/loops.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

// The input as a contiguous tensor of `dtype` and the output allocated like it.
std::pair<Tensor, Tensor> scan_operands(const Tensor& t, DType dtype) {
  Tensor in = contiguous(to_dtype(t, dtype));
  return {in, empty(t.shape(), dtype, t.device())};
}

DType cum_dtype(const Tensor& t, std::optional<DType> dtype) {
  if (dtype) return *dtype;
  return is_integral(t.dtype(), true) ? DType::Int64 : t.dtype();
}

std::pair<Tensor, Tensor> cum_extreme(KernelId id, const Tensor& t, int64_t dim) {
  int64_t d = wrap_dim(dim, t.dim());
  Tensor in = contiguous(t);
  Tensor values = empty(t.shape(), t.dtype(), t.device());
  Tensor indices = empty(t.shape(), DType::Int64, t.device());
  run_kernel(id, t.device(), {&in}, {&values, &indices}, {attr_i(d)});
  return {values, indices};
}

// A scan backward over rows: x, result and grad in the canonical layout with `dim` last.
Tensor scan_backward(KernelId id, const char* op, const Tensor& grad, const Tensor& self, const Tensor& result,
                     int64_t dim) {
  const Device dev = common_device(op, self, grad);
  int64_t d = wrap_dim(dim, self.dim());
  int64_t ds[1] = {d};
  auto mask = reduce_mask(op, self.dim() == 0 ? IntSpan{} : IntSpan(ds), self.dim());
  Canonical cx = canonical(self, mask);
  Canonical cr = canonical(to_dtype(to_device(result, dev), self.dtype()), mask);
  Canonical cg = canonical(to_dtype(to_device(grad, dev), self.dtype()), mask);
  Tensor gi = empty(cx.x.shape(), self.dtype(), dev);
  run_kernel(id, dev, {&cx.x, &cr.x, &cg.x}, {&gi});
  return from_canonical(gi, self.shape(), cx.perm);
}

}  // namespace

Tensor cumsum(const Tensor& t, int64_t dim, std::optional<DType> dtype, bool reverse) {
  int64_t d = wrap_dim(dim, t.dim());
  auto [in, out] = scan_operands(t, cum_dtype(t, dtype));
  run_kernel(KernelId::cumsum, t.device(), {&in}, {&out}, {attr_i(d), attr_i(reverse)});
  return out;
}

Tensor cumprod(const Tensor& t, int64_t dim, std::optional<DType> dtype) {
  int64_t d = wrap_dim(dim, t.dim());
  auto [in, out] = scan_operands(t, cum_dtype(t, dtype));
  run_kernel(KernelId::cumprod, t.device(), {&in}, {&out}, {attr_i(d)});
  return out;
}

std::pair<Tensor, Tensor> cummax(const Tensor& t, int64_t dim) { return cum_extreme(KernelId::cummax, t, dim); }
std::pair<Tensor, Tensor> cummin(const Tensor& t, int64_t dim) { return cum_extreme(KernelId::cummin, t, dim); }

Tensor logcumsumexp(const Tensor& t, int64_t dim) {
  if (!is_floating(t.dtype())) not_implemented_for("logcumsumexp_out_cpu", t.dtype());
  int64_t d = wrap_dim(dim, t.dim());
  auto [in, out] = scan_operands(t, t.dtype());
  run_kernel(KernelId::logcumsumexp, t.device(), {&in}, {&out}, {attr_i(d)});
  return out;
}

Tensor cumprod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim) {
  return scan_backward(KernelId::cumprod_backward, "cumprod_backward", grad, self, result, dim);
}

Tensor logcumsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim) {
  return scan_backward(KernelId::logcumsumexp_backward, "logcumsumexp_backward", grad, self, result, dim);
}

}  // namespace glia::ops

namespace glia::cpu {

using ops::kGrain;

namespace {

constexpr int64_t kScanBlock = 256;

// torch's accumulation type of the CPU scans: double for float32/float64, float for the 16-bit
// floats, int64 for the integers.
template <class T>
using scan_acc_t =
    std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double,
                       std::conditional_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int64_t, acc_t<T>>>;

struct ScanShape {
  int64_t outer = 1, n = 1, inner = 1;
};

ScanShape scan_shape(const Tensor& t, int64_t dim) {
  ScanShape s;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < dim)
      s.outer *= t.shape()[d];
    else if (d == dim)
      s.n = t.shape()[d];
    else
      s.inner *= t.shape()[d];
  }
  return s;
}

// body(outer, i0, len, per-slice function) over the tasks of Note [Scan layout]: each task is one
// block of `len` <= kScanBlock inner elements of one outer index.
template <class F>
void for_scan_blocks(const ScanShape& s, F&& f) {
  if (s.n == 0 || s.inner == 0 || s.outer == 0) return;
  const int64_t nb = (s.inner + kScanBlock - 1) / kScanBlock;
  const int64_t tasks = s.outer * nb;
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(s.n * std::min(s.inner, kScanBlock), 1));
  parallel_for(0, tasks, grain, [&](int64_t b, int64_t e) {
    for (int64_t task = b; task < e; ++task) {
      const int64_t o = task / nb, i0 = (task % nb) * kScanBlock;
      f(o, i0, std::min(kScanBlock, s.inner - i0));
    }
  });
}

// y[j] = acc = step(acc, x[j]) along the dim (from the end when reverse), acc starting at init.
template <class T, class A, class Step>
void scan_loop(const Tensor& xt, const Tensor& yt, int64_t dim, bool reverse, A init, Step step) {
  const ScanShape s = scan_shape(xt, dim);
  const T* x = xt.data_ptr<T>();
  T* y = yt.data_ptr<T>();
  for_scan_blocks(s, [&](int64_t o, int64_t i0, int64_t len) {
    A acc[kScanBlock];
    for (int64_t l = 0; l < len; ++l) acc[l] = init;
    for (int64_t jj = 0; jj < s.n; ++jj) {
      const int64_t j = reverse ? s.n - 1 - jj : jj;
      const T* __restrict xr = x + (o * s.n + j) * s.inner + i0;
      T* __restrict yr = y + (o * s.n + j) * s.inner + i0;
      for (int64_t l = 0; l < len; ++l) {
        acc[l] = step(acc[l], static_cast<A>(static_cast<acc_t<T>>(xr[l])));
        yr[l] = static_cast<T>(acc[l]);
      }
    }
  });
}

// Wrapping integer arithmetic (torch's), without signed-overflow UB.
template <class A>
inline A wrap_add(A a, A b) {
  if constexpr (std::is_same_v<A, bool>)
    return a || b;
  else if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<std::make_unsigned_t<A>>(a) + static_cast<std::make_unsigned_t<A>>(b));
  else
    return a + b;
}
template <class A>
inline A wrap_mul(A a, A b) {
  if constexpr (std::is_same_v<A, bool>)
    return a && b;
  else if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<std::make_unsigned_t<A>>(a) * static_cast<std::make_unsigned_t<A>>(b));
  else
    return a * b;
}

// torch's _log_add_exp_helper: log(exp(x) + exp(y)), NaN propagating, infinities kept.
template <class A>
inline A log_add_exp(A x, A y) {
  A lo = std::isnan(y) ? y : std::min(x, y);
  A hi = std::isnan(y) ? y : std::max(x, y);
  if (lo != hi || std::isfinite(lo)) return std::log1p(std::exp(lo - hi)) + hi;
  return x;
}

template <class T>
inline bool is_nan_v(T v) {
  if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T>)
    return false;
  else
    return v != v;
}

// cummax / cummin: values and the index of the last element equal to the running extreme
// (torch's >= / <=); a NaN takes over and each later NaN takes its index.
template <bool Max>
void cum_extreme_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &vt = k.output(0), &it = k.output(1);
  const int64_t dim = k.attr(0).i;
  const ScanShape s = scan_shape(xt, dim);
  dispatch_all(xt.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* x = xt.data_ptr<T>();
    T* v = vt.data_ptr<T>();
    int64_t* ix = it.data_ptr<int64_t>();
    for_scan_blocks(s, [&](int64_t o, int64_t i0, int64_t len) {
      A best[kScanBlock] = {};
      int64_t bi[kScanBlock] = {};
      for (int64_t j = 0; j < s.n; ++j) {
        const int64_t off = (o * s.n + j) * s.inner + i0;
        for (int64_t l = 0; l < len; ++l) {
          A xv = static_cast<A>(x[off + l]);
          if (j == 0 || is_nan_v(xv) || (!is_nan_v(best[l]) && (Max ? xv >= best[l] : xv <= best[l]))) {
            best[l] = xv;
            bi[l] = j;
          }
          v[off + l] = static_cast<T>(best[l]);
          ix[off + l] = bi[l];
        }
      }
    });
  });
}

// For each row of n elements (Note [Canonical layout]).
template <class F>
void for_each_row(int64_t rows, int64_t n, F&& f) {
  int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1));
  parallel_for(0, rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) f(r);
  });
}

}  // namespace

void cumsum_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &y = k.output(0);
  const int64_t dim = x.dim() == 0 ? 0 : k.attr(0).i;
  const bool reverse = k.attr(1).i != 0;
  dispatch_all(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = scan_acc_t<T>;
    scan_loop<T, A>(x, y, dim, reverse, A(0), [](A a, A v) { return wrap_add(a, v); });
  });
}

void cumprod_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &y = k.output(0);
  const int64_t dim = x.dim() == 0 ? 0 : k.attr(0).i;
  dispatch_all(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = scan_acc_t<T>;
    scan_loop<T, A>(x, y, dim, false, A(1), [](A a, A v) { return wrap_mul(a, v); });
  });
}

void cummax_kernel(const KernelArgs& k) { cum_extreme_kernel<true>(k); }
void cummin_kernel(const KernelArgs& k) { cum_extreme_kernel<false>(k); }

void logcumsumexp_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &y = k.output(0);
  const int64_t dim = x.dim() == 0 ? 0 : k.attr(0).i;
  dispatch_floating(y.dtype(), "logcumsumexp", [&](auto tag) {
    using T = decltype(tag);
    using A = scan_acc_t<T>;
    scan_loop<T, A>(x, y, dim, false, -std::numeric_limits<A>::infinity(), [](A a, A v) { return log_add_exp(v, a); });
  });
}

// torch's cumprod_backward, one row at a time: before the first zero z the gradient is
// sum_{i>=j} g_i out_i / x_j; at z it is out_{z-1} * sum_{i>=z} g_i prod_{z<k<=i} x_k; after z 0.
void cumprod_backward_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &rt = k.input(1), &gt = k.input(2), &gi = k.output(0);
  dispatch_floating(xt.dtype(), "cumprod_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = scan_acc_t<T>;
    const int64_t n = xt.dim() == 0 ? 1 : xt.shape()[xt.dim() - 1];
    const int64_t rows = n ? xt.numel() / n : 0;
    const T* x = xt.data_ptr<T>();
    const T* r = rt.data_ptr<T>();
    const T* g = gt.data_ptr<T>();
    T* o = gi.data_ptr<T>();
    for_each_row(rows, n, [&](int64_t row) {
      const T* xr = x + row * n;
      const T* rr = r + row * n;
      const T* gr = g + row * n;
      T* orow = o + row * n;
      int64_t z = 0;
      while (z < n && static_cast<A>(xr[z]) != 0) ++z;
      A s = 0;
      for (int64_t j = z - 1; j >= 0; --j) {
        s += static_cast<A>(gr[j]) * static_cast<A>(rr[j]);
        orow[j] = static_cast<T>(s / static_cast<A>(xr[j]));
      }
      if (z < n) {
        A pre = z > 0 ? static_cast<A>(rr[z - 1]) : A(1);
        A c = 1, acc = static_cast<A>(gr[z]);
        for (int64_t i = z + 1; i < n; ++i) {
          c *= static_cast<A>(xr[i]);
          acc += static_cast<A>(gr[i]) * c;
        }
        orow[z] = static_cast<T>(pre * acc);
        for (int64_t j = z + 1; j < n; ++j) orow[j] = T(0);
      }
    });
  });
}

// torch's logcumsumexp_backward: sum_{i>=j} g_i exp(x_j - r_i), with the positive and negative
// gradients summed separately in log space (reverse logcumsumexp of log|g_i| - r_i).
void logcumsumexp_backward_kernel(const KernelArgs& k) {
  const Tensor &xt = k.input(0), &rt = k.input(1), &gt = k.input(2), &gi = k.output(0);
  dispatch_floating(xt.dtype(), "logcumsumexp_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = scan_acc_t<T>;
    const int64_t n = xt.dim() == 0 ? 1 : xt.shape()[xt.dim() - 1];
    const int64_t rows = n ? xt.numel() / n : 0;
    const T* x = xt.data_ptr<T>();
    const T* r = rt.data_ptr<T>();
    const T* g = gt.data_ptr<T>();
    T* o = gi.data_ptr<T>();
    const A lowest = std::numeric_limits<A>::lowest();
    for_each_row(rows, n, [&](int64_t row) {
      const T *xr = x + row * n, *rr = r + row * n, *gr = g + row * n;
      T* orow = o + row * n;
      A pos = lowest, neg = lowest;
      for (int64_t j = n - 1; j >= 0; --j) {
        A gv = static_cast<A>(gr[j]), rv = static_cast<A>(rr[j]);
        A lg = std::log(std::abs(gv));
        pos = log_add_exp((gv > 0 ? lg : lowest) - rv, pos);
        neg = log_add_exp((gv < 0 ? lg : lowest) - rv, neg);
        A xv = static_cast<A>(xr[j]);
        orow[j] = static_cast<T>(std::exp(pos + xv) - std::exp(neg + xv));
      }
    });
  });
}

}  // namespace glia::cpu
