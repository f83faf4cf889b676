// Broadcasting, type promotion and the strided loops every elementwise kernel
// runs on (the role of torch's TensorIterator, without its generality).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "core/parallel.h"
#include "core/tensor.h"

namespace glia::ops {

// torch.broadcast_shapes; Error(Shape) with torch's message naming `op`.
Dims broadcast_shapes(const char* op, IntSpan a, IntSpan b);
// torch.promote_types.
DType promote_types(DType a, DType b);
// torch.result_type over operands (wrapped numbers and 0-dim tensors have lower priority).
DType result_type(std::span<const Tensor* const> operands);
inline DType result_type(const Tensor& a, const Tensor& b) {
  const Tensor* ops[] = {&a, &b};
  return result_type(ops);
}
// torch's error for a CPU kernel without an instance for `t`:
// "<kernel>" not implemented for '<ScalarType>' (GLIA_ERR_DTYPE).
[[noreturn]] void not_implemented_for(const char* kernel, DType t);
// A 0-dim tensor holding a Python-number-like scalar: int64 when `integral`, else float64 (wrapped).
Tensor wrapped_scalar(double v, bool integral);
// View of `t` expanded (stride 0) to `shape`; `shape` must be a broadcast of t's shape.
Tensor expand_to(const Tensor& t, IntSpan shape);

// Elements per chunk below which loops stay serial (Note [Parallel regions]).
constexpr int64_t kGrain = 32768;

// N operands of equal (already broadcast) shape; operand 0 is usually the
// output. Dimensions are coalesced where memory allows, then f(ptrs, strides,
// n) is called for each innermost row, with byte strides for each operand.
template <size_t N>
struct Loop {
  std::array<char*, N> base;
  std::array<Dims, N> strides;  // bytes, per coalesced dim
  Dims shape;
  int64_t numel = 0;

  Loop(const std::array<const Tensor*, N>& ts) {
    const Tensor& t0 = *ts[0];
    numel = t0.numel();
    for (size_t k = 0; k < N; ++k) base[k] = static_cast<char*>(ts[k]->data());
    int64_t nd = t0.dim();
    // Coalesce from the innermost dim outwards; drop size-1 dims.
    for (int64_t d = nd - 1; d >= 0; --d) {
      int64_t sz = t0.shape()[d];
      if (sz == 1) continue;
      std::array<int64_t, N> st;
      for (size_t k = 0; k < N; ++k) st[k] = ts[k]->strides()[d] * static_cast<int64_t>(itemsize(ts[k]->dtype()));
      if (!shape.empty()) {
        bool merge = true;
        for (size_t k = 0; k < N; ++k)
          if (st[k] != strides[k].back() * shape.back()) merge = false;
        if (merge) {
          shape.back() *= sz;
          continue;
        }
      }
      shape.push_back(sz);
      for (size_t k = 0; k < N; ++k) strides[k].push_back(st[k]);
    }
    // shape/strides are innermost-first here.
    if (shape.empty()) {
      shape.push_back(1);
      for (size_t k = 0; k < N; ++k) strides[k].push_back(0);
    }
  }

  // Calls f(ptrs, inner_strides, n) for the rows of linear range [begin, end).
  template <class F>
  void run_range(int64_t begin, int64_t end, F& f) const {
    const int64_t inner = shape[0];
    std::array<int64_t, N> is;
    for (size_t k = 0; k < N; ++k) is[k] = strides[k][0];
    int64_t nd = shape.ssize();
    int64_t idx[64];
    int64_t rem = begin;
    for (int64_t d = 0; d < nd; ++d) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
    }
    int64_t pos = begin;
    while (pos < end) {
      std::array<char*, N> p = base;
      for (int64_t d = 0; d < nd; ++d)
        for (size_t k = 0; k < N; ++k) p[k] += idx[d] * strides[k][d];
      int64_t n = std::min(inner - idx[0], end - pos);
      f(p, is, n);
      pos += n;
      idx[0] += n;
      for (int64_t d = 0; d < nd - 1 && idx[d] >= shape[d]; ++d) {
        idx[d] = 0;
        ++idx[d + 1];
      }
    }
  }

  template <class F>
  void run(F&& f) const {
    if (numel == 0) return;
    if (numel < kGrain) {
      run_range(0, numel, f);
      return;
    }
    parallel_for(0, numel, kGrain, [&](int64_t b, int64_t e) { run_range(b, e, f); });
  }
};

// out[i] = f(in[i]) elementwise on same-shape tensors of element types Out and In
// (f works on acc types and the result is converted on store).
template <class Out, class In, class F>
void unary_loop(const Tensor& out, const Tensor& in, F f) {
  Loop<2> loop({&out, &in});
  loop.run([&](const std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      Out* o = reinterpret_cast<Out*>(p[0]);
      const In* a = reinterpret_cast<const In*>(p[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(f(static_cast<acc_t<In>>(a[i])));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const In* a = reinterpret_cast<const In*>(p[1] + i * s[1]);
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = static_cast<Out>(f(static_cast<acc_t<In>>(*a)));
      }
    }
  });
}

// out[i] = f(a[i], b[i]); a and b already expanded to out's shape and of type In.
template <class Out, class In, class F>
void binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  Loop<3> loop({&out, &a, &b});
  loop.run([&](const std::array<char*, 3>& p, const std::array<int64_t, 3>& s, int64_t n) {
    using A = acc_t<In>;
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* x = reinterpret_cast<const In*>(p[1]);
    const In* y = reinterpret_cast<const In*>(p[2]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == sizeof(In)) {
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(f(static_cast<A>(x[i]), static_cast<A>(y[i])));
    } else if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == 0) {
      const A yv = static_cast<A>(*y);
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(f(static_cast<A>(x[i]), yv));
    } else if (s[0] == sizeof(Out) && s[1] == 0 && s[2] == sizeof(In)) {
      const A xv = static_cast<A>(*x);
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(f(xv, static_cast<A>(y[i])));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        A xv = static_cast<A>(*reinterpret_cast<const In*>(p[1] + i * s[1]));
        A yv = static_cast<A>(*reinterpret_cast<const In*>(p[2] + i * s[2]));
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = static_cast<Out>(f(xv, yv));
      }
    }
  });
}

}  // namespace glia::ops
