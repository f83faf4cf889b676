// Checked int64 arithmetic for sizes, strides, offsets and output shapes.
//
// Note [Checked sizes]: every size, stride, offset or output-shape computation
// that starts from numbers a caller gave (shapes, kernel sizes, paddings,
// strides, dilations, slice bounds, expand sizes) is written with Checked, so
// an overflow is an error naming the operation instead of signed-overflow UB
// that yields a nonsense shape, a 0-byte block or an endless loop. The core
// backstops are TensorImpl (no negative size, numel fits in int64), empty()
// (byte size fits) and make_view() (a view stays inside its storage), so a
// computation that slips through is still caught before memory is touched.
#pragma once

#include <cstdint>

#include "core/error.h"

namespace glia {

class Checked {
 public:
  // `op` names the operation in the error ("conv2d", "max_pool2d"); it is kept
  // through every result computed from this value.
  constexpr Checked(int64_t v, const char* op = nullptr) : v_(v), op_(op) {}  // NOLINT: implicit by design

  int64_t value() const { return v_; }

  friend Checked operator+(Checked a, Checked b) {
    int64_t r;
    if (__builtin_add_overflow(a.v_, b.v_, &r)) overflow(a.pick(b), a.v_, " + ", b.v_);
    return {r, a.pick(b)};
  }
  friend Checked operator-(Checked a, Checked b) {
    int64_t r;
    if (__builtin_sub_overflow(a.v_, b.v_, &r)) overflow(a.pick(b), a.v_, " - ", b.v_);
    return {r, a.pick(b)};
  }
  friend Checked operator*(Checked a, Checked b) {
    int64_t r;
    if (__builtin_mul_overflow(a.v_, b.v_, &r)) overflow(a.pick(b), a.v_, " * ", b.v_);
    return {r, a.pick(b)};
  }
  // Division rounding toward negative infinity (torch's div_rtn); b > 0.
  friend Checked floor_div(Checked a, Checked b) {
    GLIA_CHECK(b.v_ > 0, Internal, "floor_div by ", b.v_);
    int64_t q = a.v_ / b.v_;
    if (a.v_ % b.v_ != 0 && a.v_ < 0) --q;
    return {q, a.pick(b)};
  }

 private:
  const char* pick(const Checked& o) const { return op_ ? op_ : o.op_; }
  [[noreturn]] static void overflow(const char* op, int64_t a, const char* sym, int64_t b) {
    fail(Code::Shape, op ? op : "size arithmetic", ": integer overflow computing ", a, sym, b,
         " (a size, stride, padding or other argument is too large)");
  }

  int64_t v_;
  const char* op_;
};

// a * b, or an error naming `op` when it overflows.
inline int64_t checked_mul(int64_t a, int64_t b, const char* op) { return (Checked(a, op) * b).value(); }
inline int64_t checked_add(int64_t a, int64_t b, const char* op) { return (Checked(a, op) + b).value(); }

}  // namespace glia
