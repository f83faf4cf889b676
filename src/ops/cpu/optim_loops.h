// The optimizers' update loops (ops/cpu/optim.cpp, ops/cpu/optim_extra.cpp):
// the per-element loop over a parameter, its grad and its states, and
// Note [Flag-free update loops]. The per-element updates themselves are
// cuda/optim_ops.h's (shared with the CUDA kernels).
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/dispatch.h"
#include "core/error.h"
#include "core/parallel.h"

namespace glia::cpu::optim_loops {

constexpr int64_t kGrain = 1 << 15;

// Note [Flag-free update loops]: the per-element loops must not test option
// flags (maximize, weight decay, momentum, ...) per element: the branches stop
// the compiler from vectorising and made SGD-momentum a third of a small MLP's
// train step. with_flags turns runtime flags into std::bool_constant
// arguments, one instantiation per combination, so each loop is branch-free.
template <class F>
void with_flags(F&& f) {
  f();
}
template <class F, class... B>
void with_flags(F&& f, bool b, B... rest) {
  if (b)
    with_flags([&](auto... c) { f(std::true_type{}, c...); }, rest...);
  else
    with_flags([&](auto... c) { f(std::false_type{}, c...); }, rest...);
}

// Runs body(T{}, p, g, states, begin, end) in parallel over the elements, with
// T the parameter's dtype (float32 or float64). states[i] is output i + 1, or
// nullptr when the call has fewer outputs than N + 1.
template <size_t N, class Body>
void step_loop(const KernelArgs& k, const char* name, Body body) {
  const Tensor& p = k.output(0);
  const int64_t n = p.numel();
  auto go = [&]<class T>(T) {
    T* pp = p.data_ptr<T>();
    const T* gp = k.input(0).data_ptr<T>();
    std::array<T*, N> sp{};
    for (size_t i = 0; i < N; ++i)
      sp[i] = static_cast<int32_t>(i) + 1 < k.n_out ? k.output(static_cast<int>(i) + 1).data_ptr<T>() : nullptr;
    parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) { body(T{}, pp, gp, sp, b, e); });
  };
  if (p.dtype() == DType::Float32)
    go(float{});
  else if (p.dtype() == DType::Float64)
    go(double{});
  else
    fail(Code::Internal, name, ": expected a float32 or float64 parameter, got ", dtype_name(p.dtype()));
}

}  // namespace glia::cpu::optim_loops
