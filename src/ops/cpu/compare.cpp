// Comparisons (eq ne lt le gt ge) and logical and / or / xor / not; results are bool.
#include "ops/elementwise.h"

namespace glia::ops {

namespace {
constexpr const char* kCmpNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};
}

Tensor compare(const Tensor& a, const Tensor& b, Cmp op) {
  // Compared in the promoted type, as torch does (an int tensor against 2.5 compares in float32).
  DType t = result_type(a, b);
  const char* name = kCmpNames[static_cast<int>(op)];
  switch (op) {
    case Cmp::Eq:
      return binary_op(name, a, b, t, DType::Bool, [](auto x, auto y) { return x == y; });
    case Cmp::Ne:
      return binary_op(name, a, b, t, DType::Bool, [](auto x, auto y) { return x != y; });
    case Cmp::Lt:
      return binary_op(name, a, b, t, DType::Bool, [](auto x, auto y) { return x < y; });
    case Cmp::Le:
      return binary_op(name, a, b, t, DType::Bool, [](auto x, auto y) { return x <= y; });
    case Cmp::Gt:
      return binary_op(name, a, b, t, DType::Bool, [](auto x, auto y) { return x > y; });
    case Cmp::Ge:
      return binary_op(name, a, b, t, DType::Bool, [](auto x, auto y) { return x >= y; });
  }
  return Tensor();
}

Tensor logical(const Tensor& a, const Tensor& b, Logic op) {
  // Each operand is "nonzero"; converting to bool first keeps the kernels on one type.
  const char* name = op == Logic::And ? "logical_and" : op == Logic::Or ? "logical_or" : "logical_xor";
  switch (op) {
    case Logic::And:
      return binary_op<Types::Bool>(name, a, b, DType::Bool, DType::Bool, [](bool x, bool y) { return x && y; });
    case Logic::Or:
      return binary_op<Types::Bool>(name, a, b, DType::Bool, DType::Bool, [](bool x, bool y) { return x || y; });
    case Logic::Xor:
      return binary_op<Types::Bool>(name, a, b, DType::Bool, DType::Bool, [](bool x, bool y) { return x != y; });
  }
  return Tensor();
}

Tensor logical_not(const Tensor& a) {
  return unary_op<Types::Bool>(a, DType::Bool, DType::Bool, [](bool x) { return !x; });
}

}  // namespace glia::ops
