// The strided reductions of the CUDA backend: sum, mean, prod, amax, amin, nansum (kernels.def's "dims: .ints,
// keepdim: .i"; in0 any strides, out0 contiguous with one element per kept index, in in0's order of kept dims).
//
// Note [Deterministic CUDA reductions]: each output is reduced in a fixed order that depends only on the shapes:
// with at least kBlockMin elements per output, one block of kThreads threads per output, thread t accumulating
// elements t, t + kThreads, ... in order, then a fixed tree over shared memory; with fewer, one thread per
// output, in order. No atomics, so two runs of one reduction give the same bits. The accumulation types and
// the per-element steps are the CPU kernels' (src/ops/cpu/reduce.cpp): float32, float16 and bfloat16 sums
// accumulate in double (the CPU's Acc), means in facc_t (double for float32/float64, float for the 16-bit
// floats); amax/amin let a NaN stick; integer sums and products wrap.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "common.h"
#include "launch.cuh"
#include "reduce.cuh"

namespace glia::cuda {

namespace {

// ---- the reductions' steps (reduce.cpp's lambdas)

template <class A>
struct SumOp {
  using Acc = A;
  __device__ Acc init() const { return Acc(0); }
  __device__ Acc step(Acc a, Acc x) const {
    if constexpr (std::is_integral_v<Acc>)  // wraps like torch
      return static_cast<Acc>(static_cast<std::make_unsigned_t<Acc>>(a) + static_cast<std::make_unsigned_t<Acc>>(x));
    else
      return a + x;
  }
  __device__ Acc combine(Acc a, Acc b) const { return step(a, b); }
  __device__ Acc finish(Acc a, int64_t) const { return a; }
};
template <class A>
struct MeanOp : SumOp<A> {
  __device__ A finish(A a, int64_t n) const { return a / static_cast<A>(n); }
};
template <class A>
struct NansumOp : SumOp<A> {
  __device__ A step(A a, A x) const { return x != x ? a : a + x; }
};
template <class A>
struct ProdOp {
  using Acc = A;
  __device__ Acc init() const { return Acc(1); }
  __device__ Acc step(Acc a, Acc x) const {
    if constexpr (std::is_integral_v<Acc>) {
      using U = std::conditional_t<(sizeof(Acc) < sizeof(unsigned)), unsigned, std::make_unsigned_t<Acc>>;
      return static_cast<Acc>(static_cast<U>(static_cast<U>(a) * static_cast<U>(x)));
    } else {
      return a * x;
    }
  }
  __device__ Acc combine(Acc a, Acc b) const { return step(a, b); }
  __device__ Acc finish(Acc a, int64_t) const { return a; }
};
template <class A, bool Max>
struct ExtremumOp {
  using Acc = A;
  __device__ Acc init() const {
    if constexpr (std::is_floating_point_v<A>)
      return Max ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else if constexpr (std::is_same_v<A, bool>)
      return !Max;
    else
      return Max ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
  }
  __device__ Acc step(Acc a, Acc x) const {
    if constexpr (std::is_floating_point_v<A>)
      return ((Max ? x > a : x < a) || x != x) ? x : a;  // a NaN sticks
    else
      return (Max ? x > a : x < a) ? x : a;
  }
  __device__ Acc combine(Acc a, Acc b) const { return step(a, b); }
  __device__ Acc finish(Acc a, int64_t) const { return a; }
};

glia_error* k_sum(const glia_kernel_call* call) {
  return dispatch<Set::kAll>(call->outputs[0].dtype, "sum", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    return run_reduce<T>(call, "sum", SumOp<sum_acc_t<T>>{});
  });
}
glia_error* k_mean(const glia_kernel_call* call) {
  return dispatch<Set::kFloat>(call->inputs[0].dtype, "mean", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    return run_reduce<T>(call, "mean", MeanOp<facc_t<T>>{});
  });
}
glia_error* k_nansum(const glia_kernel_call* call) {
  return dispatch<Set::kFloat>(call->inputs[0].dtype, "nansum", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    return run_reduce<T>(call, "nansum", NansumOp<facc_t<T>>{});
  });
}
glia_error* k_prod(const glia_kernel_call* call) {
  return dispatch<Set::kNoBool>(call->outputs[0].dtype, "prod", [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_integral_v<T>, T, facc_t<T>>;
    return run_reduce<T>(call, "prod", ProdOp<Acc>{});
  });
}
template <bool Max>
glia_error* k_extremum(const glia_kernel_call* call) {
  const char* what = Max ? "amax" : "amin";
  return dispatch<Set::kAll>(call->inputs[0].dtype, what, [&](auto tag) -> glia_error* {
    using T = decltype(tag);
    return run_reduce<T>(call, what, ExtremumOp<acc_t<T>, Max>{});
  });
}

}  // namespace

glia_kernel_fn reduce_kernel(Kid id) {
  switch (id) {
    case Kid::sum:
      return &k_sum;
    case Kid::mean:
      return &k_mean;
    case Kid::prod:
      return &k_prod;
    case Kid::amax:
      return &k_extremum<true>;
    case Kid::amin:
      return &k_extremum<false>;
    case Kid::nansum:
      return &k_nansum;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
