// The CPU's loop helpers: the strided elementwise loops, the vectorised
// contiguous paths, the dtype dispatch of the CPU kernels, the reduction
// loops and the GEMM glue. Only the CPU kernels (src/ops/cpu/) include this
// (tests/layering checks it): the meta parts in src/ops/ are device-neutral
// (Note [Op = meta + kernel + rule] in core/dispatch.h).
//
// Note [Elementwise fast paths]: map_unary / map_binary / map_ternary take a
// plain loop over n elements when every operand is contiguous (or, for
// binary ops, one of them is a broadcast scalar: all strides 0); the loop
// bodies use __restrict pointers so the compiler vectorises them. Anything
// else (transposed, broadcast along some dims) goes through Loop<N>.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "core/dispatch.h"
#include "core/parallel.h"
#include "core/scalar.h"
#include "ops/elementwise.h"
#include "ops/iter.h"
#include "ops/linalg.h"
#include "ops/reduce.h"

namespace glia::ops {

// ---- strided loops (from ops/iter.h)

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
    // No element: no row to run, and the strides of an empty tensor may be anything (a blob's
    // size-0 dim can carry a stride whose byte count overflows), so they are not looked at.
    int64_t nd = numel == 0 ? 0 : t0.dim();
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

// ---- elementwise fast paths and dtype dispatch

// body(b, e) over [0, n): serial below kGrain, else parallel_for. The body is
// compiled once, out of line (one call per range): inlined at each of
// parallel_for's call sites it was two or three copies of every vectorised
// loop, for every op and dtype (Note [One kernel per op and dtype]).
template <class F>
inline void flat_for(int64_t n, F&& body) {
  if (n <= 0) return;
  auto once = [&body](int64_t b, int64_t e) __attribute__((noinline)) { body(b, e); };
  if (n < kGrain)
    once(int64_t{0}, n);
  else
    parallel_for(0, n, kGrain, once);
}

// Note [AVX2 float loops]: glia builds for baseline x86-64 (SSE2), so the
// generic loops below vectorise 4 floats wide. For float32 in and out (the
// common case) the contiguous loops also exist compiled for AVX2, 8 wide,
// taken when the CPU has it (checked once). No FMA: x + alpha * y rounds
// twice, as the SSE2 loop and the other dtypes do, so results do not depend
// on the CPU.
bool cpu_has_avx2();  // false off x86, where these loops are plain copies of the generic ones
#if defined(__x86_64__) || defined(__i386__)
#define GLIA_TARGET_AVX2 __attribute__((target("avx2"), noinline))
#else
#define GLIA_TARGET_AVX2 __attribute__((noinline))
#endif

template <class F>
GLIA_TARGET_AVX2 void float_loop_avx2(float* __restrict o, const float* __restrict x, const float* __restrict y,
                                      int64_t b, int64_t e, const F& f) {
  for (int64_t i = b; i < e; ++i) o[i] = static_cast<float>(f(x[i], y[i]));
}
template <class F>
GLIA_TARGET_AVX2 void float_loop_avx2_scalar(float* __restrict o, const float* __restrict x, float y, int64_t b,
                                             int64_t e, const F& f) {
  for (int64_t i = b; i < e; ++i) o[i] = static_cast<float>(f(x[i], y));
}
template <class F>
GLIA_TARGET_AVX2 void float_loop_avx2_unary(float* __restrict o, const float* __restrict x, int64_t b, int64_t e,
                                            const F& f) {
  for (int64_t i = b; i < e; ++i) o[i] = static_cast<float>(f(x[i]));
}

// True when every element of t is the same memory location (a broadcast scalar).
inline bool is_broadcast_scalar(const Tensor& t) {
  for (int64_t s : t.strides())
    if (s != 0) return false;
  return true;
}

// out[i] = f(in[i]); same shape; f works on acc types, the result is converted on store.
template <class Out, class In, class F>
void map_unary(const Tensor& out, const Tensor& in, F f) {
  using A = acc_t<In>;
  const int64_t n = out.numel();
  if (out.is_contiguous() && in.is_contiguous()) {
    Out* __restrict o = out.data_ptr<Out>();
    const In* __restrict a = in.data_ptr<In>();
    if constexpr (std::is_same_v<Out, float> && std::is_same_v<In, float>) {
      if (cpu_has_avx2()) {  // Note [AVX2 float loops]
        flat_for(n, [&](int64_t b, int64_t e) { float_loop_avx2_unary(o, a, b, e, f); });
        return;
      }
    }
    flat_for(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = static_cast<Out>(f(static_cast<A>(a[i])));
    });
    return;
  }
  unary_loop<Out, In>(out, in, f);
}

// out[i] = f(x[i], y[i]); x and y already expanded to out's shape, of element type In.
template <class Out, class In, class F>
void map_binary(const Tensor& out, const Tensor& x, const Tensor& y, F f) {
  using A = acc_t<In>;
  const int64_t n = out.numel();
  if (n == 0) return;  // the broadcast-scalar paths load an element up front
  if (out.is_contiguous()) {
    Out* __restrict o = out.data_ptr<Out>();
    const In* __restrict xp = x.data_ptr<In>();
    const In* __restrict yp = y.data_ptr<In>();
    const bool xc = x.is_contiguous(), yc = y.is_contiguous();
    if constexpr (std::is_same_v<Out, float> && std::is_same_v<In, float>) {
      if (cpu_has_avx2() && xc && (yc || is_broadcast_scalar(y))) {  // Note [AVX2 float loops]
        if (yc)
          flat_for(n, [&](int64_t b, int64_t e) { float_loop_avx2(o, xp, yp, b, e, f); });
        else
          flat_for(n, [&, yv = *yp](int64_t b, int64_t e) { float_loop_avx2_scalar(o, xp, yv, b, e, f); });
        return;
      }
    }
    if (xc && yc) {
      flat_for(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = static_cast<Out>(f(static_cast<A>(xp[i]), static_cast<A>(yp[i])));
      });
      return;
    }
    if (xc && is_broadcast_scalar(y)) {
      const A yv = static_cast<A>(*yp);
      flat_for(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = static_cast<Out>(f(static_cast<A>(xp[i]), yv));
      });
      return;
    }
    if (yc && is_broadcast_scalar(x)) {
      const A xv = static_cast<A>(*xp);
      flat_for(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = static_cast<Out>(f(xv, static_cast<A>(yp[i])));
      });
      return;
    }
  }
  binary_loop<Out, In>(out, x, y, f);
}

// out[i] = f(x[i], y[i], z[i]) with element types X, Y, Z (already expanded to out's shape).
template <class Out, class X, class Y, class Z, class F>
void map_ternary(const Tensor& out, const Tensor& x, const Tensor& y, const Tensor& z, F f) {
  using AX = acc_t<X>;
  using AY = acc_t<Y>;
  using AZ = acc_t<Z>;
  if (out.is_contiguous() && x.is_contiguous() && y.is_contiguous() && z.is_contiguous()) {
    Out* __restrict o = out.data_ptr<Out>();
    const X* __restrict xp = x.data_ptr<X>();
    const Y* __restrict yp = y.data_ptr<Y>();
    const Z* __restrict zp = z.data_ptr<Z>();
    flat_for(out.numel(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        o[i] = static_cast<Out>(f(static_cast<AX>(xp[i]), static_cast<AY>(yp[i]), static_cast<AZ>(zp[i])));
    });
    return;
  }
  // Contiguous operands mixed with broadcast scalars (e.g. where(mask, g, 0)).
  auto ok = [](const Tensor& t) { return t.is_contiguous() || is_broadcast_scalar(t); };
  if (out.is_contiguous() && ok(x) && ok(y) && ok(z) && out.numel() > 0) {
    Out* __restrict o = out.data_ptr<Out>();
    const X* __restrict xp = x.data_ptr<X>();
    const Y* __restrict yp = y.data_ptr<Y>();
    const Z* __restrict zp = z.data_ptr<Z>();
    const int64_t sx = x.is_contiguous(), sy = y.is_contiguous(), sz = z.is_contiguous();
    flat_for(out.numel(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        o[i] =
            static_cast<Out>(f(static_cast<AX>(xp[i * sx]), static_cast<AY>(yp[i * sy]), static_cast<AZ>(zp[i * sz])));
    });
    return;
  }
  Loop<4> loop({&out, &x, &y, &z});
  loop.run([&](const std::array<char*, 4>& p, const std::array<int64_t, 4>& s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      auto xv = static_cast<acc_t<X>>(*reinterpret_cast<const X*>(p[1] + i * s[1]));
      auto yv = static_cast<acc_t<Y>>(*reinterpret_cast<const Y*>(p[2] + i * s[2]));
      auto zv = static_cast<acc_t<Z>>(*reinterpret_cast<const Z*>(p[3] + i * s[3]));
      *reinterpret_cast<Out*>(p[0] + i * s[0]) = static_cast<Out>(f(xv, yv, zv));
    }
  });
}

// Which compute dtypes an op can be asked for: its kernels are instantiated for those only
// (Note [One kernel per op and dtype]). Floating: ops that compute in floating point (integer
// inputs are converted first, or rejected before). Bool: the logical ops.
enum class Types { All, Floating, Bool };

template <Types kTypes, class F>
decltype(auto) dispatch_types(DType t, F&& f) {
  if constexpr (kTypes == Types::Floating) {
    return dispatch_floating(t, "elementwise op", f);
  } else if constexpr (kTypes == Types::Bool) {
    GLIA_CHECK(t == DType::Bool, Internal, "logical op: compute dtype must be bool");
    return f(bool{});
  } else {
    return dispatch_all(t, f);
  }
}

// The CPU body of a binary kernel: f (a generic lambda on acc types) over
// in0, in1 (compute dtype, out's shape) into out (compute dtype, or bool when f is a predicate).
template <Types kTypes = Types::All, class F>
void binary_kernel(const KernelArgs& k, F f) {
  const Tensor &out = k.output(0), &x = k.input(0), &y = k.input(1);
  dispatch_types<kTypes>(x.dtype(), [&](auto ctag) {
    using C = decltype(ctag);
    using A = acc_t<C>;
    if constexpr (std::is_same_v<decltype(f(std::declval<A>(), std::declval<A>())), bool>)
      map_binary<bool, C>(out, x, y, f);
    else
      map_binary<C, C>(out, x, y, f);
  });
}
// The CPU body of a unary kernel.
template <Types kTypes = Types::All, class F>
void unary_kernel(const KernelArgs& k, F f) {
  const Tensor &out = k.output(0), &x = k.input(0);
  dispatch_types<kTypes>(x.dtype(), [&](auto ctag) {
    using C = decltype(ctag);
    using A = acc_t<C>;
    if constexpr (std::is_same_v<decltype(f(std::declval<A>())), bool>)
      map_unary<bool, C>(out, x, f);
    else
      map_unary<C, C>(out, x, f);
  });
}

// ---- reductions

namespace detail {

// Kept and reduced dims (outermost first) with adjacent dims of one group coalesced
// where their strides allow, and size-1 dims dropped.
struct ReduceGeometry {
  Dims kshape, kstride, rshape, rstride;
  int64_t n_out = 1, n_red = 1;
};
ReduceGeometry reduce_geometry(const Tensor& in, const SmallVector<bool, 8>& mask);

// Advances a multi-index over `shape` (innermost last) and returns the offset change.
inline int64_t odometer_offset(const Dims& shape, const Dims& stride, Dims& idx, int64_t last) {
  int64_t off = 0;
  for (int64_t d = last; d >= 0; --d) {
    if (++idx[d] < shape[d]) return off + stride[d];
    off -= stride[d] * (shape[d] - 1);
    idx[d] = 0;
  }
  return off;
}

struct NoCombine {};

}  // namespace detail

// Generic reduction: for each output element, acc = init; acc = step(acc, x) over the
// reduced elements (x converted to Acc), result = finish(acc, count). With `combine`
// (merges two partial accumulators: a + b for sums, the step itself for max/min), a
// contiguous inner reduction runs on 32 independent partial accumulators (vectorises).
// Reductions over outer dims (output contiguous, reduced dims strided) accumulate whole
// rows into a block of outputs instead of striding per output.
template <class In, class Out, class Acc, class Step, class Finish, class Combine = detail::NoCombine>
void reduce_loop(const Tensor& in, const Tensor& out_keepdim, const SmallVector<bool, 8>& mask, Acc init, Step step,
                 Finish finish, Combine combine = {}) {
  constexpr bool kLanes = !std::is_same_v<Combine, detail::NoCombine>;
  constexpr int kLaneN = 32;  // independent partial accumulators (GCC vectorises a loop of 32, not of 8)
  detail::ReduceGeometry g = detail::reduce_geometry(in, mask);
  const int64_t n_out = g.n_out, n_red = g.n_red;
  const In* base = in.data_ptr<In>();
  Out* o = out_keepdim.data_ptr<Out>();  // contiguous, same order as kept dims
  if (n_out == 0) return;
  auto load = [](In v) { return static_cast<Acc>(static_cast<acc_t<In>>(v)); };
  const int64_t nk = g.kshape.ssize(), nr = g.rshape.ssize();
  if (n_red == 0 || nr == 0) {
    // Nothing to reduce (empty) or every reduced dim has size 1: one element per output.
    auto body = [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        if (n_red == 0) {
          o[i] = static_cast<Out>(finish(init, 0));
          continue;
        }
        const In* p = base;
        int64_t rem = i;
        for (int64_t d = nk - 1; d >= 0; --d) {
          p += (rem % g.kshape[d]) * g.kstride[d];
          rem /= g.kshape[d];
        }
        o[i] = static_cast<Out>(finish(step(init, load(*p)), 1));
      }
    };
    parallel_for(0, n_out, kGrain, body);
    return;
  }
  if (nk > 0 && g.kstride[nk - 1] == 1 && g.rstride[nr - 1] != 1) {
    // Outer reduction: rows of L contiguous outputs, accumulated row by row in blocks.
    constexpr int64_t kBlock = 1024;
    const int64_t L = g.kshape[nk - 1];
    const int64_t n_blocks = (L + kBlock - 1) / kBlock;
    const int64_t tasks = (n_out / L) * n_blocks;
    if constexpr (kLanes) {
      // Tall and narrow (column sums of [N, C] with small C): split the rows into fixed chunks
      // reduced in parallel, merged in chunk order (the result does not depend on threads).
      const int64_t rows_per_chunk = std::max<int64_t>(1, 2 * kGrain / L);
      if (tasks == 1 && nr == 1 && n_red >= 2 * rows_per_chunk) {
        const int64_t n_chunks = (n_red + rows_per_chunk - 1) / rows_per_chunk;
        std::unique_ptr<Acc[]> part(new Acc[static_cast<size_t>(n_chunks * L)]);  // not vector<bool>
        for (int64_t k = 0; k < n_chunks * L; ++k) part[k] = init;
        const int64_t rs = g.rstride[0];
        const In* p = base;  // tasks == 1: a single row of at most kBlock outputs
        parallel_for(0, n_chunks, 1, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            Acc* __restrict acc = part.get() + c * L;
            const int64_t r_end = std::min(n_red, (c + 1) * rows_per_chunk);
            for (int64_t r = c * rows_per_chunk; r < r_end; ++r) {
              const In* __restrict row = p + r * rs;
              for (int64_t j = 0; j < L; ++j) acc[j] = step(acc[j], load(row[j]));
            }
          }
        });
        for (int64_t j = 0; j < L; ++j) {
          Acc a = part[j];
          for (int64_t c = 1; c < n_chunks; ++c) a = combine(a, part[c * L + j]);
          o[j] = static_cast<Out>(finish(a, n_red));
        }
        return;
      }
    }
    int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(n_red * std::min(L, kBlock), 1));
    parallel_for(0, tasks, grain, [&](int64_t b, int64_t e) {
      Acc acc[kBlock];
      Dims ridx(static_cast<size_t>(nr), 0);
      for (int64_t task = b; task < e; ++task) {
        int64_t outer = task / n_blocks, j0 = (task % n_blocks) * kBlock;
        int64_t len = std::min(kBlock, L - j0);
        const In* p = base + j0;
        int64_t rem = outer;
        for (int64_t d = nk - 2; d >= 0; --d) {
          p += (rem % g.kshape[d]) * g.kstride[d];
          rem /= g.kshape[d];
        }
        for (int64_t j = 0; j < len; ++j) acc[j] = init;
        std::fill(ridx.begin(), ridx.end(), 0);
        const In* q = p;
        for (int64_t r = 0; r < n_red; ++r) {
          const In* __restrict row = q;
          for (int64_t j = 0; j < len; ++j) acc[j] = step(acc[j], load(row[j]));
          q += detail::odometer_offset(g.rshape, g.rstride, ridx, nr - 1);
        }
        Out* out_row = o + outer * L + j0;
        for (int64_t j = 0; j < len; ++j) out_row[j] = static_cast<Out>(finish(acc[j], n_red));
      }
    });
    return;
  }
  const bool inner_contig = g.rstride[nr - 1] == 1;
  const int64_t inner = g.rshape[nr - 1];
  const int64_t rows = n_red / inner;
  if constexpr (kLanes) {
    // Few outputs over long contiguous runs (x.sum(), loss.mean()): split each run into fixed
    // chunks reduced in parallel, merged in chunk order (the result does not depend on threads).
    constexpr int64_t kChunk = 2 * kGrain;
    if (nr == 1 && inner_contig && n_out < 8 && n_red >= 2 * kChunk) {
      const int64_t n_chunks = (n_red + kChunk - 1) / kChunk;
      std::unique_ptr<Acc[]> part(new Acc[static_cast<size_t>(n_chunks)]);  // not vector<bool>: no shared words
      for (int64_t i = 0; i < n_out; ++i) {
        const In* p = base;
        int64_t rem = i;
        for (int64_t d = nk - 1; d >= 0; --d) {
          p += (rem % g.kshape[d]) * g.kstride[d];
          rem /= g.kshape[d];
        }
        parallel_for(0, n_chunks, 1, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            const In* __restrict row = p + c * kChunk;
            const int64_t len = std::min(kChunk, n_red - c * kChunk);
            Acc lane[kLaneN];
            for (int u = 0; u < kLaneN; ++u) lane[u] = init;
            int64_t k = 0;
            for (; k + kLaneN <= len; k += kLaneN)
              for (int u = 0; u < kLaneN; ++u) lane[u] = step(lane[u], load(row[k + u]));
            for (; k < len; ++k) lane[0] = step(lane[0], load(row[k]));
            Acc acc = lane[0];
            for (int u = 1; u < kLaneN; ++u) acc = combine(acc, lane[u]);
            part[c] = acc;
          }
        });
        Acc acc = part[0];
        for (int64_t c = 1; c < n_chunks; ++c) acc = combine(acc, part[c]);
        o[i] = static_cast<Out>(finish(acc, n_red));
      }
      return;
    }
  }
  auto body = [&](int64_t b, int64_t e) {
    Dims ridx(static_cast<size_t>(nr), 0);
    for (int64_t i = b; i < e; ++i) {
      const In* p = base;
      int64_t rem = i;
      for (int64_t d = nk - 1; d >= 0; --d) {
        p += (rem % g.kshape[d]) * g.kstride[d];
        rem /= g.kshape[d];
      }
      std::fill(ridx.begin(), ridx.end(), 0);
      Acc acc = init;
      if constexpr (kLanes) {
        if (inner_contig && inner >= 2 * kLaneN) {
          Acc lane[kLaneN];
          for (int u = 0; u < kLaneN; ++u) lane[u] = init;
          const In* q = p;
          for (int64_t r = 0; r < rows; ++r) {
            const In* __restrict row = q;
            int64_t k = 0;
            for (; k + kLaneN <= inner; k += kLaneN)
              for (int u = 0; u < kLaneN; ++u) lane[u] = step(lane[u], load(row[k + u]));
            for (; k < inner; ++k) lane[0] = step(lane[0], load(row[k]));
            q += detail::odometer_offset(g.rshape, g.rstride, ridx, nr - 2);
          }
          acc = lane[0];
          for (int u = 1; u < kLaneN; ++u) acc = combine(acc, lane[u]);
          o[i] = static_cast<Out>(finish(acc, n_red));
          continue;
        }
      }
      const In* q = p;
      const int64_t is = g.rstride[nr - 1];
      for (int64_t r = 0; r < rows; ++r) {
        if (inner_contig)
          for (int64_t k = 0; k < inner; ++k) acc = step(acc, load(q[k]));
        else
          for (int64_t k = 0; k < inner; ++k) acc = step(acc, load(q[k * is]));
        q += detail::odometer_offset(g.rshape, g.rstride, ridx, nr - 2);
      }
      o[i] = static_cast<Out>(finish(acc, n_red));
    }
  };
  int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(n_red, 1));
  parallel_for(0, n_out, grain, body);
}

// ---- matrix products

// out <- beta * out + alpha * a @ b for a [M, K], b [K, N] with any strides (transposed operands
// go to BLAS as flags, other BLAS-compatible strides as leading dimensions; only others are copied)
// and out a contiguous [M, N] tensor of the same dtype. beta == 0 ignores out's contents.
// `op` names the operation in dtype errors ("addmm_impl_cpu_", "bmm", "dot", "addmv_impl_cpu").
void gemm_into(const Tensor& out, const Tensor& a, const Tensor& b, double beta, double alpha,
               const char* op = "addmm_impl_cpu_");
// out[i] <- beta * out[i] + alpha * a[i] @ b[i] over dim 0 of 3-D operands (batch strides may be 0).
void bgemm_into(const Tensor& out, const Tensor& a, const Tensor& b, double beta, double alpha, const char* op = "bmm");

// C [M, N] (row stride ldc) <- beta C + alpha op(A) op(B) for row-major A ([M, K], or [K, M] when ta)
// and B ([K, N], or [N, K] when tb) with leading dimensions lda, ldb. T: float, double (OpenBLAS,
// split across glia's pool when large; serial inside a parallel region) or int64_t (loops).
template <class T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B, int64_t ldb,
          T beta, T* C, int64_t ldc);

// Runs body(i) for every i in [0, n) on glia's pool, pieces claimed dynamically: parallel_for over
// the threads, each claiming pieces until none is left, so a thread that starts late (descheduled
// on a busy machine) finds the work done instead of holding the others up. Serial with one
// thread or inside a parallel region.
template <class F>
void parallel_pieces(int64_t n, F&& body) {
  int nt = get_num_threads();
  if (n <= 1 || nt == 1 || in_parallel_region()) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<int64_t> next{0};
  parallel_for(0, std::min<int64_t>(nt, n), 1, [&](int64_t, int64_t) {
    for (int64_t i = next.fetch_add(1, std::memory_order_relaxed); i < n;
         i = next.fetch_add(1, std::memory_order_relaxed))
      body(i);
  });
}

// Note [BLAS threads]: see linalg.cpp. Makes OpenBLAS single-threaded (glia parallelises GEMMs
// itself on its pool); cheap to call before every BLAS call.
void blas_single_thread();

}  // namespace glia::ops
