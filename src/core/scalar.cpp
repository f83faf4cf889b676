#include "core/scalar.h"

#include <cmath>
#include <limits>

namespace glia {

namespace {

// The C type names torch's messages use.
const char* c_type_name(DType t) {
  switch (t) {
    case DType::Float32:
      return "float";
    case DType::Float64:
      return "double";
    case DType::Float16:
      return "at::Half";
    case DType::BFloat16:
      return "at::BFloat16";
    case DType::Int64:
      return "int64_t";
    case DType::Int32:
      return "int";
    case DType::UInt8:
      return "uint8_t";
    case DType::Bool:
      return "bool";
    case DType::Int8:
      return "int8_t";
    case DType::Int16:
      return "int16_t";
  }
  return "?";
}

// c10's overflows<To, From>: [lowest, max] of the type; a floating type also takes inf and NaN;
// an integer into uint8 may be negative down to -255 (it wraps, as two's complement does).
bool overflows(const Scalar& s, DType t) {
  double lo = 0, hi = 0;
  switch (t) {
    case DType::Bool:
    case DType::Float64:
      return false;
    case DType::Float32:
      lo = -std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::max();
      break;
    case DType::Float16:
      lo = -65504.0, hi = 65504.0;
      break;
    case DType::BFloat16:
      lo = -3.3895313892515355e38, hi = 3.3895313892515355e38;
      break;
    case DType::Int64:
      lo = -9223372036854775808.0, hi = 9223372036854775807.0;
      break;
    case DType::Int32:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    case DType::Int16:
      lo = -32768.0, hi = 32767.0;
      break;
    case DType::Int8:
      lo = -128.0, hi = 127.0;
      break;
    case DType::UInt8:
      if (s.kind != Scalar::Kind::Float) return s.i > 255 || s.i < -255;
      lo = 0, hi = 255;
      break;
  }
  if (s.kind != Scalar::Kind::Float) return s.kind == Scalar::Kind::Int && (s.to_double() < lo || s.to_double() > hi);
  if (is_floating(t) && !std::isfinite(s.f)) return false;
  return !(s.f >= lo && s.f <= hi);  // NaN fails too
}

}  // namespace

Scalar Scalar::from_fill_value(double v) {
  const bool integral = v >= -9223372036854775808.0 && v < 9223372036854775808.0 && v == std::trunc(v);
  return integral ? from_int(static_cast<int64_t>(v)) : from_double(v);
}

void Scalar::check_fits(DType t) const {
  GLIA_CHECK(!overflows(*this, t), InvalidArgument, "value cannot be converted to type ", c_type_name(t),
             " without overflow");
}

Tensor Scalar::to_tensor() const {
  Tensor t;
  switch (kind) {
    case Kind::Float:
      t = empty({}, DType::Float64, Device{});
      *t.data_ptr<double>() = f;
      break;
    case Kind::Int:
      t = empty({}, DType::Int64, Device{});
      *t.data_ptr<int64_t>() = i;
      break;
    case Kind::Bool:
      t = empty({}, DType::Bool, Device{});
      *t.data_ptr<bool>() = i != 0;
      break;
  }
  t.impl()->wrapped_number = true;
  return t;
}

}  // namespace glia
