// A Python-number-like scalar operand (torch's Scalar): its kind decides type
// promotion (an int scalar keeps an integer tensor integral, a float scalar
// makes it floating) and it has lower priority than any tensor.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace glia {

struct Scalar {
  enum class Kind : int32_t { Float = 0, Int = 1, Bool = 2 };
  Kind kind = Kind::Float;
  double f = 0;
  int64_t i = 0;

  static Scalar from_double(double v) { return {Kind::Float, v, 0}; }
  static Scalar from_int(int64_t v) { return {Kind::Int, static_cast<double>(v), v}; }
  static Scalar from_bool(bool v) { return {Kind::Bool, v ? 1.0 : 0.0, v ? 1 : 0}; }
  // A fill value the C ABI passes as a double: integral values in int64's range are taken as an int,
  // as torch takes a Python int (so -1 fits uint8, as torch.full(..., -1, dtype=torch.uint8) does).
  static Scalar from_fill_value(double v);
  bool is_floating() const { return kind == Kind::Float; }
  double to_double() const { return kind == Kind::Float ? f : static_cast<double>(i); }
  // A 0-dim wrapped-number tensor (float64, int64 or bool) for use as an operand.
  Tensor to_tensor() const;
  // torch's checked_convert: throws "value cannot be converted to type int64_t without overflow"
  // (InvalidArgument) when the value does not fit `t` (NaN or inf in an integer type, 1e300 in float32).
  void check_fits(DType t) const;
};

}  // namespace glia
