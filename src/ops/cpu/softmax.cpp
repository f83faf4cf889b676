// softmax / log_softmax over one dim: three passes over each slice (max, sum of
// exponentials, write), and their backwards from the saved output. Meta parts
// (glia::ops) and CPU kernels (glia::cpu), Note [Op = meta + kernel + rule].
#include <cmath>
#include <limits>
#include <vector>

#include "core/dispatch.h"
#include "ops/cpu/loops.h"
#include "ops/reduce.h"

namespace glia::ops {

Tensor softmax(const Tensor& t, int64_t dim, bool log) {
  int64_t d = wrap_dim(dim, t.dim());
  if (!is_floating(t.dtype()) || t.dtype() == DType::Float16) {
    bool lastdim = t.dim() == 0 || d == t.dim() - 1;
    const char* k = log ? (lastdim ? "log_softmax_lastdim_kernel_impl" : "softmax_kernel_impl")
                        : (lastdim ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl");
    not_implemented_for(k, t.dtype());
  }
  Tensor x = contiguous(t);
  Tensor out = empty(t.shape(), t.dtype(), t.device());
  if (t.numel() == 0) return out;
  run_kernel(KernelId::softmax, t.device(), {&x}, {&out}, {attr_i(t.dim() == 0 ? 0 : d), attr_i(log)});
  return out;
}

Tensor softmax_backward(const Tensor& grad, const Tensor& out, int64_t dim, bool log) {
  int64_t d = wrap_dim(dim, out.dim());
  const Device dev = common_device("softmax_backward", out, grad);
  Tensor g = contiguous(to_dtype(to_device(grad, dev), out.dtype()));
  Tensor y = contiguous(out);
  Tensor gi = empty(out.shape(), out.dtype(), dev);
  if (out.numel() == 0) return gi;
  run_kernel(KernelId::softmax_backward, dev, {&g, &y}, {&gi}, {attr_i(out.dim() == 0 ? 0 : d), attr_i(log)});
  return gi;
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::kGrain;

namespace {

// The input seen as [outer, n, inner] (contiguous).
struct Slices {
  int64_t outer = 1, n = 1, inner = 1;
};
Slices slices(IntSpan shape, int64_t d) {
  Slices s;
  for (int64_t k = 0; k < static_cast<int64_t>(shape.size()); ++k) {
    if (k < d)
      s.outer *= shape[k];
    else if (k == d)
      s.n = shape[k];
    else
      s.inner *= shape[k];
  }
  return s;
}

// Calls f(ptr offset of a slice start, stride between its elements) for every slice, over
// [outer * inner] slices; inner == 1 slices are contiguous rows, otherwise the caller
// processes `inner` slices at once (vector kernel) via f_block.
template <class Row, class Block>
void run_slices(const Slices& s, Row&& row, Block&& block) {
  if (s.inner == 1) {
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(s.n, 1));
    parallel_for(0, s.outer, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) row(i * s.n);
    });
  } else {
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(s.n * s.inner, 1));
    parallel_for(0, s.outer, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) block(i * s.n * s.inner);
    });
  }
}

}  // namespace

void softmax_kernel(const KernelArgs& k) {
  const Tensor &x = k.input(0), &out = k.output(0);
  const bool log = k.attr(1).i != 0;
  const Slices s = x.dim() == 0 ? Slices{} : slices(x.shape(), k.attr(0).i);
  dispatch_floating(x.dtype(), "softmax", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* xp = x.data_ptr<T>();
    T* op = out.data_ptr<T>();
    const int64_t n = s.n, inner = s.inner;
    auto row = [&](int64_t off) {
      const T* __restrict xr = xp + off;
      T* __restrict orow = op + off;
      A m = -std::numeric_limits<A>::infinity();
      for (int64_t k = 0; k < n; ++k) m = std::max(m, static_cast<A>(xr[k]));
      for (int64_t k = 0; k < n; ++k)
        if (xr[k] != xr[k]) m = static_cast<A>(xr[k]);
      A sum = 0;
      if (log) {
        for (int64_t k = 0; k < n; ++k) sum += std::exp(static_cast<A>(xr[k]) - m);
        A lse = std::log(sum) + m;
        for (int64_t k = 0; k < n; ++k) orow[k] = static_cast<T>(static_cast<A>(xr[k]) - lse);
      } else {
        for (int64_t k = 0; k < n; ++k) {
          A e = std::exp(static_cast<A>(xr[k]) - m);
          orow[k] = static_cast<T>(e);
          sum += e;
        }
        A inv = A(1) / sum;
        if constexpr (std::is_same_v<T, A>) {
          for (int64_t k = 0; k < n; ++k) orow[k] = orow[k] * inv;
        } else {
          for (int64_t k = 0; k < n; ++k) orow[k] = static_cast<T>(std::exp(static_cast<A>(xr[k]) - m) * inv);
        }
      }
    };
    auto block = [&](int64_t off) {
      // `inner` slices at once: every pass runs along the contiguous inner dim (vectorises).
      std::vector<A> m(static_cast<size_t>(inner), -std::numeric_limits<A>::infinity());
      std::vector<A> sum(static_cast<size_t>(inner), A(0));
      const T* xb = xp + off;
      T* ob = op + off;
      for (int64_t k = 0; k < n; ++k) {
        const T* __restrict xr = xb + k * inner;
        for (int64_t j = 0; j < inner; ++j) {
          A v = static_cast<A>(xr[j]);
          m[j] = (v > m[j] || v != v) ? v : m[j];
        }
      }
      for (int64_t k = 0; k < n; ++k) {
        const T* __restrict xr = xb + k * inner;
        for (int64_t j = 0; j < inner; ++j) sum[j] += std::exp(static_cast<A>(xr[j]) - m[j]);
      }
      for (int64_t j = 0; j < inner; ++j) sum[j] = log ? std::log(sum[j]) + m[j] : A(1) / sum[j];
      for (int64_t k = 0; k < n; ++k) {
        const T* __restrict xr = xb + k * inner;
        T* __restrict orow = ob + k * inner;
        if (log)
          for (int64_t j = 0; j < inner; ++j) orow[j] = static_cast<T>(static_cast<A>(xr[j]) - sum[j]);
        else
          for (int64_t j = 0; j < inner; ++j) orow[j] = static_cast<T>(std::exp(static_cast<A>(xr[j]) - m[j]) * sum[j]);
      }
    };
    run_slices(s, row, block);
  });
}

void softmax_backward_kernel(const KernelArgs& k) {
  const Tensor &g = k.input(0), &y = k.input(1), &gi = k.output(0);
  const bool log = k.attr(1).i != 0;
  const Slices s = y.dim() == 0 ? Slices{} : slices(y.shape(), k.attr(0).i);
  dispatch_floating(y.dtype(), "softmax_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* gp = g.data_ptr<T>();
    const T* yp = y.data_ptr<T>();
    T* op = gi.data_ptr<T>();
    const int64_t n = s.n, inner = s.inner;
    // softmax: gi = y * (g - sum(g * y)); log_softmax: gi = g - exp(y) * sum(g).
    auto row = [&](int64_t off) {
      const T* __restrict gr = gp + off;
      const T* __restrict yr = yp + off;
      T* __restrict orow = op + off;
      A acc = 0;
      if (log) {
        for (int64_t k = 0; k < n; ++k) acc += static_cast<A>(gr[k]);
        for (int64_t k = 0; k < n; ++k)
          orow[k] = static_cast<T>(static_cast<A>(gr[k]) - std::exp(static_cast<A>(yr[k])) * acc);
      } else {
        for (int64_t k = 0; k < n; ++k) acc += static_cast<A>(gr[k]) * static_cast<A>(yr[k]);
        for (int64_t k = 0; k < n; ++k) orow[k] = static_cast<T>(static_cast<A>(yr[k]) * (static_cast<A>(gr[k]) - acc));
      }
    };
    auto block = [&](int64_t off) {
      std::vector<A> acc(static_cast<size_t>(inner), A(0));
      for (int64_t k = 0; k < n; ++k) {
        const T* __restrict gr = gp + off + k * inner;
        const T* __restrict yr = yp + off + k * inner;
        if (log)
          for (int64_t j = 0; j < inner; ++j) acc[j] += static_cast<A>(gr[j]);
        else
          for (int64_t j = 0; j < inner; ++j) acc[j] += static_cast<A>(gr[j]) * static_cast<A>(yr[j]);
      }
      for (int64_t k = 0; k < n; ++k) {
        const T* __restrict gr = gp + off + k * inner;
        const T* __restrict yr = yp + off + k * inner;
        T* __restrict orow = op + off + k * inner;
        if (log)
          for (int64_t j = 0; j < inner; ++j)
            orow[j] = static_cast<T>(static_cast<A>(gr[j]) - std::exp(static_cast<A>(yr[j])) * acc[j]);
        else
          for (int64_t j = 0; j < inner; ++j)
            orow[j] = static_cast<T>(static_cast<A>(yr[j]) * (static_cast<A>(gr[j]) - acc[j]));
      }
    };
    run_slices(s, row, block);
  });
}

}  // namespace glia::cpu
