// The optimizer steps on the GPU (kernels.def's sgd_step, adam_step, rmsprop_step, adadelta_step,
// adagrad_step, adamax_step, asgd_step, nadam_step, radam_step, rprop_step): torch 1.13's single-tensor update
// of one parameter, in place, one thread per element running the CPU kernels' own per-element function
// (cuda/optim_ops.h; Note [Optimizer updates without contraction] there: the GPU gives the CPU's bits).
// What arrives (the prepare passes of src/optim/algorithms.cpp and algorithms_extra.cpp): in0 the grad; out0
// the parameter, out1.. its states, read and written; all contiguous, of one dtype, float32 or float64, of the
// parameter's element count (16-bit and strided parameters reach the kernel as float64 working copies, made
// and written back by the core, as on the CPU). The attributes are read by the same functions as the CPU's.
//
// One launch per parameter: the core's commit pass (optim/optimizer.cpp, Update::run) calls the kernel once per
// parameter, and a kernel call holds one parameter's tensors (kernels.def: 1 input, at most 4 outputs). A fused
// multi-tensor launch (torch's multi_tensor_apply: one launch over the chunks of every parameter of a group)
// needs the core to hand the backend a list of parameters in one call (docs/cuda.md, Kernels).
#include <string>

#include "common.h"
#include "launch.cuh"
#include "optim_ops.h"

namespace glia::cuda {

namespace {

using namespace optim_ops;

// The states of a parameter in fixed slots (the update's order); a slot whose state the options leave out is
// nullptr, and the update gets a register it never reads.
constexpr int kSlots = 3;

template <class T>
struct StepTensors {
  T* p;
  const T* g;
  T* s[kSlots];
};

template <class T, class Op>
__global__ void __launch_bounds__(kThreads) step_kernel(int64_t n, StepTensors<T> t, Op op) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride) {
    T p = t.p[i];
    T s[kSlots];
#pragma unroll
    for (int k = 0; k < kSlots; ++k) s[k] = t.s[k] ? t.s[k][i] : T(0);
    op(t.g[i], p, s);
    t.p[i] = p;
#pragma unroll
    for (int k = 0; k < kSlots; ++k)
      if (t.s[k]) t.s[k][i] = s[k];
  }
}

// ---- the updates as the kernel's Op: the constants in T and the flags of one call.

template <class T>
struct SgdOp {
  SgdConsts<T> c;
  bool maximize, weight_decay, momentum, nesterov, first;
  __device__ __forceinline__ void operator()(T g, T& p, T* s) const {
    sgd_update(c, maximize, weight_decay, momentum, nesterov, first, g, p, s[0]);
  }
};
template <class T>
struct AdamOp {
  AdamConsts<T> c;
  bool maximize, decoupled, weight_decay, amsgrad;
  __device__ __forceinline__ void operator()(T g, T& p, T* s) const {
    adam_update(c, maximize, decoupled, weight_decay, amsgrad, g, p, s[0], s[1], s[2]);
  }
};
template <class T>
struct RmspropOp {
  RmspropConsts<T> c;
  bool maximize, weight_decay, centered, momentum;
  __device__ __forceinline__ void operator()(T g, T& p, T* s) const {
    rmsprop_update(c, maximize, weight_decay, centered, momentum, g, p, s[0], s[1], s[2]);
  }
};
template <class T>
struct AdadeltaOp {
  AdadeltaConsts<T> c;
  bool maximize, weight_decay;
  __device__ __forceinline__ void operator()(T g, T& p, T* s) const {
    adadelta_update(c, maximize, weight_decay, g, p, s[0], s[1]);
  }
};
template <class T>
struct AdagradOp {
  AdagradConsts<T> c;
  bool maximize, weight_decay;
  __device__ __forceinline__ void operator()(T g, T& p, T* s) const {
    adagrad_update(c, maximize, weight_decay, g, p, s[0]);
  }
};
template <class T>
struct AdamaxOp {
  AdamaxConsts<T> c;
  bool maximize, weight_decay;
  __device__ __forceinline__ void operator()(T g, T& p, T* s) const {
    adamax_update(c, maximize, weight_decay, g, p, s[0], s[1]);
  }
};
template <class T>
struct AsgdOp {
  AsgdConsts<T> c;
  bool maximize, weight_decay, averaging;
  __device__ __forceinline__ void operator()(T g, T& p, T* s) const {
    asgd_update(c, maximize, weight_decay, averaging, g, p, s[0]);
  }
};
template <class T>
struct NadamOp {
  NadamConsts<T> c;
  bool weight_decay;
  __device__ __forceinline__ void operator()(T g, T& p, T* s) const { nadam_update(c, weight_decay, g, p, s[0], s[1]); }
};
template <class T>
struct RadamOp {
  RadamConsts<T> c;
  bool weight_decay, rectified;
  __device__ __forceinline__ void operator()(T g, T& p, T* s) const {
    radam_update(c, weight_decay, rectified, g, p, s[0], s[1]);
  }
};
template <class T>
struct RpropOp {
  RpropConsts<T> c;
  bool maximize;
  __device__ __forceinline__ void operator()(T g, T& p, T* s) const { rprop_update(c, maximize, g, p, s[0], s[1]); }
};

// ---- host side

glia_error* internal(const char* what, const std::string& message) {
  return make_error(GLIA_ERR_INTERNAL, std::string("cuda: ") + what + ": " + message);
}

glia_error* check_attrs(const glia_kernel_call* call, const char* what, int32_t n) {
  if (call->n_attrs < n || call->attrs == nullptr)
    return internal(what, std::to_string(call->n_attrs) + " attributes, expected " + std::to_string(n));
  return nullptr;
}

bool contiguous(const glia_kernel_tensor& t) {
  int64_t expected = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != expected) return false;
    expected *= t.sizes[d];
  }
  return true;
}

// What the CPU kernels take for granted (the prepare passes guarantee it), checked: the output count the
// options call for, the grad, every operand contiguous, of the parameter's dtype (float32 or float64, the
// CPU's message otherwise), element count and device.
glia_error* check_call(const glia_kernel_call* call, const char* what, int32_t outputs) {
  if (call->n_outputs != outputs)
    return internal(what, std::to_string(call->n_outputs) + " outputs, expected " + std::to_string(outputs));
  if (call->n_inputs != 1) return internal(what, std::to_string(call->n_inputs) + " inputs, expected 1");
  const glia_kernel_tensor& p = call->outputs[0];
  if (p.dtype != GLIA_FLOAT32 && p.dtype != GLIA_FLOAT64)
    return internal(what, std::string("expected a float32 or float64 parameter, got ") + dtype_name(p.dtype));
  const int64_t n = view_numel(p);
  // `which`: -1 the grad, 0 the parameter, i > 0 state i (a name is made only for an error).
  auto check = [&](const glia_kernel_tensor& t, int32_t which) -> glia_error* {
    const bool dtype_ok = t.dtype == p.dtype, numel_ok = view_numel(t) == n,
               device_ok = t.device_index == p.device_index;
    const bool contiguous_ok = contiguous(t);
    if (dtype_ok && numel_ok && device_ok && contiguous_ok) return nullptr;
    const std::string name = which < 0 ? "the grad" : which == 0 ? "the parameter" : "state " + std::to_string(which);
    if (!dtype_ok)
      return internal(what, name + " is " + dtype_name(t.dtype) + ", the parameter " + dtype_name(p.dtype));
    if (!numel_ok) return internal(what, name + " does not have the parameter's element count");
    if (!device_ok) return internal(what, name + " is on another device than the parameter");
    return internal(what, name + " is not contiguous");
  };
  if (glia_error* e = check(p, 0)) return e;
  if (glia_error* e = check(call->inputs[0], -1)) return e;
  for (int32_t i = 1; i < call->n_outputs; ++i)
    if (glia_error* e = check(call->outputs[i], i)) return e;
  return nullptr;
}

// Runs the update make_op(T{}) over the call's parameter: slots[k] is the output index of slot k's state (0:
// none).
template <class MakeOp>
glia_error* run_step(const glia_kernel_call* call, const char* what, int32_t outputs, const int (&slots)[kSlots],
                     MakeOp make_op) {
  if (glia_error* e = check_call(call, what, outputs)) return e;
  const glia_kernel_tensor& pt = call->outputs[0];
  const int64_t n = view_numel(pt);
  if (n == 0) return nullptr;
  const int32_t dev = pt.device_index;
  cudaError_t st = cudaSetDevice(dev);
  if (st != cudaSuccess) return cuda_error(st, "cudaSetDevice", "device " + std::to_string(dev));
  const cudaStream_t stream = call_stream(call, dev)->stream;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    StepTensors<T> t;
    t.p = static_cast<T*>(pt.data);
    t.g = static_cast<const T*>(call->inputs[0].data);
    for (int k = 0; k < kSlots; ++k) t.s[k] = slots[k] > 0 ? static_cast<T*>(call->outputs[slots[k]].data) : nullptr;
    const auto op = make_op(tag);
    step_kernel<T, decltype(op)><<<grid_for(n), kThreads, 0, stream>>>(n, t, op);
  };
  if (pt.dtype == GLIA_FLOAT32)
    go(float{});
  else
    go(double{});
  st = cudaGetLastError();
  return st == cudaSuccess ? nullptr : cuda_error(st, "kernel launch", what);
}

glia_error* k_sgd(const glia_kernel_call* call) {
  const char* what = "sgd_step";
  if (glia_error* e = check_attrs(call, what, 7)) return e;
  const SgdArgs a = sgd_args(call->attrs);
  const bool mom = a.momentum != 0;
  return run_step(call, what, a.outputs(), {mom ? 1 : 0, 0, 0}, [&](auto tag) {
    using T = decltype(tag);
    return SgdOp<T>{sgd_consts<T>(a), a.maximize, a.weight_decay != 0, mom, a.nesterov, a.first};
  });
}

glia_error* k_adam(const glia_kernel_call* call) {
  const char* what = "adam_step";
  if (glia_error* e = check_attrs(call, what, 9)) return e;
  const AdamArgs a = adam_args(call->attrs);
  return run_step(call, what, a.outputs(), {1, 2, a.amsgrad ? 3 : 0}, [&](auto tag) {
    using T = decltype(tag);
    return AdamOp<T>{adam_consts<T>(a), a.maximize, a.decoupled, a.weight_decay != 0, a.amsgrad};
  });
}

glia_error* k_rmsprop(const glia_kernel_call* call) {
  const char* what = "rmsprop_step";
  if (glia_error* e = check_attrs(call, what, 7)) return e;
  const RmspropArgs a = rmsprop_args(call->attrs);
  const bool mom = a.has_momentum();
  // Outputs: square_avg, then momentum_buffer iff momentum > 0, then grad_avg iff centered.
  return run_step(call, what, a.outputs(), {1, mom ? 2 : 0, a.centered ? (mom ? 3 : 2) : 0}, [&](auto tag) {
    using T = decltype(tag);
    return RmspropOp<T>{rmsprop_consts<T>(a), a.maximize, a.weight_decay != 0, a.centered, mom};
  });
}

glia_error* k_adadelta(const glia_kernel_call* call) {
  const char* what = "adadelta_step";
  if (glia_error* e = check_attrs(call, what, 5)) return e;
  const AdadeltaArgs a = adadelta_args(call->attrs);
  return run_step(call, what, a.outputs(), {1, 2, 0}, [&](auto tag) {
    using T = decltype(tag);
    return AdadeltaOp<T>{adadelta_consts<T>(a), a.maximize, a.weight_decay != 0};
  });
}

glia_error* k_adagrad(const glia_kernel_call* call) {
  const char* what = "adagrad_step";
  if (glia_error* e = check_attrs(call, what, 6)) return e;
  const AdagradArgs a = adagrad_args(call->attrs);
  return run_step(call, what, a.outputs(), {1, 0, 0}, [&](auto tag) {
    using T = decltype(tag);
    return AdagradOp<T>{adagrad_consts<T>(a), a.maximize, a.weight_decay != 0};
  });
}

glia_error* k_adamax(const glia_kernel_call* call) {
  const char* what = "adamax_step";
  if (glia_error* e = check_attrs(call, what, 7)) return e;
  const AdamaxArgs a = adamax_args(call->attrs);
  return run_step(call, what, a.outputs(), {1, 2, 0}, [&](auto tag) {
    using T = decltype(tag);
    return AdamaxOp<T>{adamax_consts<T>(a), a.maximize, a.weight_decay != 0};
  });
}

glia_error* k_asgd(const glia_kernel_call* call) {
  const char* what = "asgd_step";
  if (glia_error* e = check_attrs(call, what, 5)) return e;
  const AsgdArgs a = asgd_args(call->attrs);
  return run_step(call, what, a.outputs(), {1, 0, 0}, [&](auto tag) {
    using T = decltype(tag);
    return AsgdOp<T>{asgd_consts<T>(a), a.maximize, a.weight_decay != 0, a.averaging()};
  });
}

glia_error* k_nadam(const glia_kernel_call* call) {
  const char* what = "nadam_step";
  if (glia_error* e = check_attrs(call, what, 7)) return e;
  const NadamArgs a = nadam_args(call->attrs);
  return run_step(call, what, a.outputs(), {1, 2, 0}, [&](auto tag) {
    using T = decltype(tag);
    return NadamOp<T>{nadam_consts<T>(a), a.weight_decay != 0};
  });
}

glia_error* k_radam(const glia_kernel_call* call) {
  const char* what = "radam_step";
  if (glia_error* e = check_attrs(call, what, 6)) return e;
  const RadamArgs a = radam_args(call->attrs);
  return run_step(call, what, a.outputs(), {1, 2, 0}, [&](auto tag) {
    using T = decltype(tag);
    return RadamOp<T>{radam_consts<T>(a), a.weight_decay != 0, a.rectified};
  });
}

glia_error* k_rprop(const glia_kernel_call* call) {
  const char* what = "rprop_step";
  if (glia_error* e = check_attrs(call, what, 5)) return e;
  const RpropArgs a = rprop_args(call->attrs);
  return run_step(call, what, a.outputs(), {1, 2, 0}, [&](auto tag) {
    using T = decltype(tag);
    return RpropOp<T>{rprop_consts<T>(a), a.maximize};
  });
}

}  // namespace

glia_kernel_fn optim_kernel(Kid id) {
  switch (id) {
    case Kid::sgd_step:
      return &k_sgd;
    case Kid::adam_step:
      return &k_adam;
    case Kid::rmsprop_step:
      return &k_rmsprop;
    case Kid::adadelta_step:
      return &k_adadelta;
    case Kid::adagrad_step:
      return &k_adagrad;
    case Kid::adamax_step:
      return &k_adamax;
    case Kid::asgd_step:
      return &k_asgd;
    case Kid::nadam_step:
      return &k_nadam;
    case Kid::radam_step:
      return &k_radam;
    case Kid::rprop_step:
      return &k_rprop;
    default:
      return nullptr;
  }
}

}  // namespace glia::cuda
