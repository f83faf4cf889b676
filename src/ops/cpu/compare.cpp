// Comparisons (eq ne lt le gt ge) and logical and / or / xor / not; results are bool.
#include "ops/cpu/loops.h"
#include "ops/elementwise.h"

namespace glia::ops {

namespace {
constexpr const char* kCmpNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};
constexpr KernelId kCmpKernels[] = {KernelId::eq, KernelId::ne, KernelId::lt, KernelId::le, KernelId::gt, KernelId::ge};
}  // namespace

// ---- meta parts (Note [Op = meta + kernel + rule])

Tensor compare(const Tensor& a, const Tensor& b, Cmp op) {
  // Compared in the promoted type, as torch does (an int tensor against 2.5 compares in float32).
  DType t = result_type(a, b);
  const int i = static_cast<int>(op);
  return binary_meta(kCmpKernels[i], kCmpNames[i], a, b, t, DType::Bool);
}

Tensor logical(const Tensor& a, const Tensor& b, Logic op) {
  // Each operand is "nonzero"; converting to bool first keeps the kernels on one type.
  switch (op) {
    case Logic::And:
      return binary_meta(KernelId::logical_and, "logical_and", a, b, DType::Bool, DType::Bool);
    case Logic::Or:
      return binary_meta(KernelId::logical_or, "logical_or", a, b, DType::Bool, DType::Bool);
    case Logic::Xor:
      return binary_meta(KernelId::logical_xor, "logical_xor", a, b, DType::Bool, DType::Bool);
  }
  return Tensor();
}

Tensor logical_not(const Tensor& a) { return unary_meta(KernelId::logical_not, a, DType::Bool, DType::Bool); }

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

using ops::binary_kernel;
using ops::Types;

void eq_kernel(const KernelArgs& k) {
  binary_kernel(k, [](auto x, auto y) { return x == y; });
}
void ne_kernel(const KernelArgs& k) {
  binary_kernel(k, [](auto x, auto y) { return x != y; });
}
void lt_kernel(const KernelArgs& k) {
  binary_kernel(k, [](auto x, auto y) { return x < y; });
}
void le_kernel(const KernelArgs& k) {
  binary_kernel(k, [](auto x, auto y) { return x <= y; });
}
void gt_kernel(const KernelArgs& k) {
  binary_kernel(k, [](auto x, auto y) { return x > y; });
}
void ge_kernel(const KernelArgs& k) {
  binary_kernel(k, [](auto x, auto y) { return x >= y; });
}

void logical_and_kernel(const KernelArgs& k) {
  binary_kernel<Types::Bool>(k, [](bool x, bool y) { return x && y; });
}
void logical_or_kernel(const KernelArgs& k) {
  binary_kernel<Types::Bool>(k, [](bool x, bool y) { return x || y; });
}
void logical_xor_kernel(const KernelArgs& k) {
  binary_kernel<Types::Bool>(k, [](bool x, bool y) { return x != y; });
}
void logical_not_kernel(const KernelArgs& k) {
  ops::unary_kernel<Types::Bool>(k, [](bool x) { return !x; });
}

}  // namespace glia::cpu
