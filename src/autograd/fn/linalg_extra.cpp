// The products of issue 20, composed from mm, bmm, addmm and elementwise ops
// (torch 1.13's checks and messages first, so a bad call changes nothing).
#include "autograd/fn/elementwise.h"
#include "autograd/fn/linalg.h"
#include "autograd/fn/shape.h"
#include "core/scalar.h"
#include "ops/linalg.h"

namespace glia {

namespace {

int64_t prod(IntSpan s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// torch's expand_size check of `input` against the result's shape, with its message.
void check_expands(const Tensor& input, IntSpan shape) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  GLIA_CHECK(input.dim() <= nd, Shape, "The expanded size of the tensor must match: input of size ", input.shape(),
             " cannot be expanded to ", shape);
  for (int64_t d = 0; d < input.dim(); ++d) {
    int64_t td = d + nd - input.dim();
    GLIA_CHECK(input.size(d) == 1 || input.size(d) == shape[td], Shape, "The expanded size of the tensor (", shape[td],
               ") must match the existing size (", input.size(d), ") at non-singleton dimension ", td,
               ".  Target sizes: ", shape, ".  Tensor sizes: ", input.shape());
  }
}

void check_same_dtype(const Tensor& a, const Tensor& b) {
  GLIA_CHECK(a.dtype() == b.dtype(), DType, "expected scalar type ", scalar_type_name(a.dtype()), " but found ",
             scalar_type_name(b.dtype()));
}

// s * t, with s an int for an integer t when it is integral (torch keeps the dtype).
Tensor times(const Tensor& t, double s) { return s == 1.0 ? t : mul_scalar(t, Scalar::from_fill_value(s)); }

}  // namespace

Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  // torch: self + value * t1 * t2, in that order.
  return add(input, mul(mul_scalar(t1, value), t2));
}

Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  GLIA_CHECK(!(is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true)), DType,
             "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
             "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
             "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
             "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
             "(input + value * tensor1 / tensor2), for all dtypes.");
  return add(input, div(mul_scalar(t1, value), t2));
}

Tensor vdot(const Tensor& a, const Tensor& b) { return dot(a, b); }

Tensor inner(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0) return mul(a, b);
  GLIA_CHECK(a.size(-1) == b.size(-1), Shape,
             "inner() the last dimension must match on both input tensors but got shapes ", a.shape(), " and ",
             b.shape());
  const int64_t k = a.size(-1);
  IntSpan fa(a.shape().data(), static_cast<size_t>(a.dim() - 1));
  IntSpan fb(b.shape().data(), static_cast<size_t>(b.dim() - 1));
  Tensor p = mm(reshape(a, Dims{prod(fa), k}), transpose(reshape(b, Dims{prod(fb), k}), 0, 1));
  Dims out(fa);
  for (int64_t s : fb) out.push_back(s);
  return reshape(p, out);
}

Tensor outer(const Tensor& a, const Tensor& b) {
  GLIA_CHECK(a.dim() == 1, Shape, "outer: Expected 1-D argument self, but got ", a.dim(), "-D");
  GLIA_CHECK(b.dim() == 1, Shape, "outer: Expected 1-D argument vec2, but got ", b.dim(), "-D");
  return mul(unsqueeze(a, 1), b);  // torch: self.reshape({-1, 1}) * vec2
}

Tensor addmv(const Tensor& input, const Tensor& m, const Tensor& v, double beta, double alpha) {
  GLIA_CHECK(m.dim() == 2 && v.dim() == 1 && input.dim() <= 1, Shape, "vector + matrix @ vector expected, got ",
             input.dim(), ", ", m.dim(), ", ", v.dim());
  GLIA_CHECK(m.size(1) == v.size(0) && (m.size(0) == input.numel() || input.numel() == 1), Shape, "size mismatch, got ",
             input.dim() == 1 ? input.size(0) : input.numel(), ", ", m.size(0), "x", m.size(1), ",", v.size(0));
  check_same_dtype(input, m);
  check_same_dtype(m, v);
  Tensor c = input.dim() == 1 ? unsqueeze(input, 1) : input;
  return squeeze(addmm(c, m, unsqueeze(v, 1), beta, alpha), Dims{1}, false);
}

Tensor addr(const Tensor& input, const Tensor& v1, const Tensor& v2, double beta, double alpha) {
  GLIA_CHECK(v1.dim() == 1, Shape, "addr: Expected 1-D argument vec1, but got ", v1.dim(), "-D");
  GLIA_CHECK(v2.dim() == 1, Shape, "addr: Expected 1-D argument vec2, but got ", v2.dim(), "-D");
  return addmm(input, unsqueeze(v1, 1), unsqueeze(v2, 0), beta, alpha);
}

Tensor baddbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, double beta, double alpha) {
  GLIA_CHECK(b1.dim() == 3, Shape, "batch1 must be a 3D tensor");
  GLIA_CHECK(b2.dim() == 3, Shape, "batch2 must be a 3D tensor");
  GLIA_CHECK(b2.size(0) == b1.size(0) && b2.size(1) == b1.size(2), Shape,
             "Expected size for first two dimensions of batch2 tensor to be: [", b1.size(0), ", ", b1.size(2),
             "] but got: [", b2.size(0), ", ", b2.size(1), "].");
  check_same_dtype(b1, b2);
  check_same_dtype(b1, input);
  int64_t shape[3] = {b1.size(0), b1.size(1), b2.size(2)};
  check_expands(input, IntSpan(shape));
  Tensor p = times(bmm(b1, b2), alpha);
  if (beta == 0.0) return p;  // torch does not read input then (NaN in it does not propagate)
  return add(times(input, beta), p);
}

Tensor addbmm(const Tensor& input, const Tensor& b1, const Tensor& b2, double beta, double alpha) {
  GLIA_CHECK(b1.dim() == 3, Shape, "batch1 must be a 3D tensor");
  GLIA_CHECK(b2.dim() == 3, Shape, "batch2 must be a 3D tensor");
  GLIA_CHECK(b1.size(0) == b2.size(0), Shape, "batch1 and batch2 must have same number of batches, got ", b1.size(0),
             " and ", b2.size(0));
  GLIA_CHECK(b1.size(2) == b2.size(1), Shape, "Incompatible matrix sizes for bmm (", b1.size(1), "x", b1.size(2),
             " and ", b2.size(1), "x", b2.size(2), ")");
  // sum_b b1[b] @ b2[b] is one GEMM of [n, B*m] by [B*m, p].
  const int64_t nb = b1.size(0), n = b1.size(1), m = b1.size(2), p = b2.size(2);
  Tensor a = reshape(transpose(b1, 0, 1), Dims{n, nb * m});
  return addmm(input, a, reshape(b2, Dims{nb * m, p}), beta, alpha);
}

}  // namespace glia
