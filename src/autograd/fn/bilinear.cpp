#include "autograd/fn/bilinear.h"

#include "autograd/fn/elementwise.h"
#include "autograd/fn/linalg.h"
#include "autograd/fn/shape.h"

namespace glia {

Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& weight, const Tensor& bias) {
  GLIA_CHECK(x1.dim() == x2.dim(), Shape, "bilinear(): input dimensions do not match: got ", x1.dim(), " and ",
             x2.dim());
  GLIA_CHECK(x1.dim() >= 1, Shape, "bilinear(): inputs must have at least one dimension");
  for (int64_t i = 0; i + 1 < x1.dim(); ++i)
    GLIA_CHECK(x1.size(i) == x2.size(i), Shape, "bilinear(): input batch dimensions do not match at dim ", i, ": got ",
               x1.size(i), " and ", x2.size(i));
  GLIA_CHECK(weight.dim() == 3, Shape, "bilinear(): weight must be 3-D, got ", weight.dim(), "-D");
  GLIA_CHECK(x1.size(-1) == weight.size(1), Shape, "bilinear(): input1 size does not match weight size: got ",
             x1.size(-1), " but expected ", weight.size(1));
  GLIA_CHECK(x2.size(-1) == weight.size(2), Shape, "bilinear(): input2 size does not match weight size: got ",
             x2.size(-1), " but expected ", weight.size(2));
  GLIA_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)), Shape,
             "bilinear(): bias size does not match weight size: got ", bias.defined() ? bias.size(0) : 0,
             " but expected ", weight.size(0));
  const int64_t out = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  Dims lead(IntSpan(x1.shape().data(), static_cast<size_t>(x1.dim() - 1)));
  int64_t n = 1;
  for (int64_t s : lead) n *= s;
  // t[n, o * in1 + i] = sum_j x2[n, j] * weight[o, i, j]; y[n, o] = sum_i t[n, o, i] * x1[n, i].
  Tensor a = reshape(x1, Dims{n, in1, 1});
  Tensor b = reshape(x2, Dims{n, in2});
  Tensor t = matmul(b, transpose(reshape(weight, Dims{out * in1, in2}), 0, 1));
  Tensor y = reshape(bmm(reshape(t, Dims{n, out, in1}), a), Dims{n, out});
  if (bias.defined()) y = add(y, bias);
  Dims shape = lead;
  shape.push_back(out);
  return reshape(y, shape);
}

}  // namespace glia
