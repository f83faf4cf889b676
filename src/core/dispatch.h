// Kernel dispatch: the table of kernels per device type, indexed by kernel id
// (Note [Op = meta + kernel + rule]).
//
// Note [Op = meta + kernel + rule]: every op is three parts.
//  1. Its meta part (src/ops/*.cpp, device-neutral): torch's argument checks
//     and messages, the result's shape, dtype and device, conversions and
//     broadcasting of the inputs, and the allocation of the outputs on that
//     device. It never touches tensor data.
//  2. One kernel per device type, registered in a table indexed by kernel id
//     (core/kernels.def): the CPU's in src/ops/cpu/ (kCpuKernels, a constant
//     array, so the CPU call is one indirect call with no lookup), other
//     devices' from their backend library through the C ABI of
//     include/glia/glia_backend.h, read once when the backend loads.
//  3. Its autograd rule, written once in src/autograd/fn/, made of ops, so it
//     runs on every device.
// run_kernel() is the bridge from 1 to 2: no strings, no heap allocation on
// the call path (Note [No allocation on the hot path]).
#pragma once

#include <initializer_list>

#include "core/tensor.h"
#include "glia/glia_backend.h"

namespace glia {

enum class KernelId : uint32_t {
#define GLIA_KERNEL(name, ...) name,
#include "core/kernels.def"
#undef GLIA_KERNEL
  kCount
};
constexpr uint32_t kKernelCount = static_cast<uint32_t>(KernelId::kCount);

// The kernel's name in kernels.def; nullptr past the end.
const char* kernel_name(uint32_t id);

using Attr = glia_kernel_attr;
inline Attr attr_f(double v) { return Attr{0, v, nullptr, 0, nullptr}; }
inline Attr attr_i(int64_t v) { return Attr{v, static_cast<double>(v), nullptr, 0, nullptr}; }
inline Attr attr_s(const char* s) { return Attr{0, 0.0, nullptr, 0, s}; }
inline Attr attr_ints(IntSpan v) { return Attr{0, 0.0, v.data(), static_cast<int64_t>(v.size()), nullptr}; }

struct KernelArgs {
  const Tensor* const* in;
  const Tensor* const* out;
  const Attr* attrs;
  int32_t n_in, n_out, n_attrs;
  const Tensor& input(int i) const { return *in[i]; }
  const Tensor& output(int i) const { return *out[i]; }
  const Attr& attr(int i) const { return attrs[i]; }
};

using CpuKernel = void (*)(const KernelArgs&);
// Defined in src/ops/cpu/kernel_table.cpp, one entry per line of kernels.def.
extern const CpuKernel kCpuKernels[kKernelCount];

// The CPU kernels, one per line of kernels.def: cpu::<name>_kernel.
namespace cpu {
#define GLIA_KERNEL(name, ...) void name##_kernel(const KernelArgs& k);
#include "core/kernels.def"
#undef GLIA_KERNEL
}  // namespace cpu

// Kernels of non-CPU devices (through their backend); throws Unsupported when the backend has none.
void run_kernel_external(KernelId id, Device device, const KernelArgs& k);

inline void run_kernel(KernelId id, Device device, std::initializer_list<const Tensor*> in,
                       std::initializer_list<const Tensor*> out, std::initializer_list<Attr> attrs = {}) {
  const KernelArgs k{in.begin(), out.begin(), attrs.begin(), static_cast<int32_t>(in.size()),
                     static_cast<int32_t>(out.size()), static_cast<int32_t>(attrs.size())};
  if (__builtin_expect(device.is_cpu(), 1))
    kCpuKernels[static_cast<uint32_t>(id)](k);
  else
    run_kernel_external(id, device, k);
}

// torch's rule: all tensor arguments of an op on one device, except 0-dim CPU
// tensors next to tensors of another device (wrapped scalars), where
// `allow_cpu_scalars`. Returns the device the op runs on.
[[noreturn]] void fail_devices(const char* op, Device a, Device b);
inline Device common_device(const char* op, const Tensor& a, const Tensor& b, bool allow_cpu_scalars = true) {
  const Device da = a.device(), db = b.device();
  if (__builtin_expect(da == db, 1)) return da;
  if (allow_cpu_scalars && da.is_cpu() && a.dim() == 0) return db;
  if (allow_cpu_scalars && db.is_cpu() && b.dim() == 0) return da;
  fail_devices(op, da, db);
}

}  // namespace glia
