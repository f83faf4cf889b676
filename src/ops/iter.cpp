#include "ops/iter.h"

#include <algorithm>

namespace glia::ops {

Dims broadcast_shapes(const char* op, IntSpan a, IntSpan b) {
  size_t n = std::max(a.size(), b.size());
  Dims out(n);
  // From the last dim, as torch's infer_size: with several mismatches it names the last one.
  for (size_t i = n; i-- > 0;) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    GLIA_CHECK(da == db || da == 1 || db == 1, Shape, op, ": The size of tensor a (", da,
               ") must match the size of tensor b (", db, ") at non-singleton dimension ", i, " (shapes ", a, " and ",
               b, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {
// Index order: f32 f64 f16 bf16 i64 i32 u8 b1 i8 i16 (DType values); torch 1.13's table
// (c10::promoteTypes), generated with torch.promote_types.
constexpr DType f4 = DType::Float32, f8 = DType::Float64, f2 = DType::Float16, bf = DType::BFloat16, i8 = DType::Int64,
                i4 = DType::Int32, u1 = DType::UInt8, b1 = DType::Bool, s1 = DType::Int8, s2 = DType::Int16;
constexpr DType kPromote[kNumDTypes][kNumDTypes] = {
    /* f32  */ {f4, f8, f4, f4, f4, f4, f4, f4, f4, f4},
    /* f64  */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
    /* f16  */ {f4, f8, f2, f4, f2, f2, f2, f2, f2, f2},
    /* bf16 */ {f4, f8, f4, bf, bf, bf, bf, bf, bf, bf},
    /* i64  */ {f4, f8, f2, bf, i8, i8, i8, i8, i8, i8},
    /* i32  */ {f4, f8, f2, bf, i8, i4, i4, i4, i4, i4},
    /* u8   */ {f4, f8, f2, bf, i8, i4, u1, u1, s2, s2},
    /* bool */ {f4, f8, f2, bf, i8, i4, u1, b1, s1, s2},
    /* i8   */ {f4, f8, f2, bf, i8, i4, s2, s1, s1, s2},
    /* i16  */ {f4, f8, f2, bf, i8, i4, s2, s2, s2, s2},
};
int category(DType t) { return is_floating(t) ? 2 : t == DType::Bool ? 0 : 1; }
}  // namespace

DType promote_types(DType a, DType b) { return kPromote[static_cast<int>(a)][static_cast<int>(b)]; }

DType result_type(std::span<const Tensor* const> operands) {
  // torch's ResultTypeState: dimensioned tensors, then 0-dim tensors, then wrapped numbers.
  int have[3] = {0, 0, 0};
  DType st[3] = {DType::Bool, DType::Bool, DType::Bool};
  for (const Tensor* t : operands) {
    int k = t->impl()->wrapped_number ? 2 : t->dim() == 0 ? 1 : 0;
    DType d = t->dtype();
    if (k == 2) d = is_floating(d) ? DType::Float32 : d == DType::Bool ? DType::Bool : DType::Int64;
    st[k] = have[k] ? promote_types(st[k], d) : d;
    have[k] = 1;
  }
  DType r = have[0] ? st[0] : have[1] ? st[1] : st[2];
  bool r_set = have[0];
  if (have[1]) {
    if (!r_set)
      r = st[1];
    else if (category(st[1]) > category(r))
      r = promote_types(r, st[1]);
    r_set = true;
  }
  if (have[2]) {
    if (!r_set)
      r = st[2];
    else if (category(st[2]) > category(r))
      r = promote_types(r, st[2]);
  }
  return r;
}

void not_implemented_for(const char* kernel, DType t) {
  fail(Code::DType, "\"", kernel, "\" not implemented for '", scalar_type_name(t), "'");
}

Tensor wrapped_scalar(double v, bool integral) {
  Tensor t = empty({}, integral ? DType::Int64 : DType::Float64, Device{});
  if (integral)
    *t.data_ptr<int64_t>() = static_cast<int64_t>(v);
  else
    *t.data_ptr<double>() = v;
  t.impl()->wrapped_number = true;
  return t;
}

Tensor expand_to(const Tensor& t, IntSpan shape) {
  if (IntSpan(t.shape()).size() == shape.size() && std::equal(shape.begin(), shape.end(), t.shape().begin())) return t;
  size_t n = shape.size(), m = t.shape().size();
  Dims st(n, 0);
  for (size_t i = 0; i < m; ++i) {
    size_t j = n - m + i;
    st[j] = t.shape()[i] == 1 && shape[j] != 1 ? 0 : t.strides()[i];
  }
  return make_view(t, shape, st, t.offset());
}

}  // namespace glia::ops
