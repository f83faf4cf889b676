// Differentiable indexing, joining and padding (kernels: ops/index.h).
#pragma once

#include <vector>

#include "autograd/node.h"
#include "ops/index.h"

namespace glia {

Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& t, int64_t dim, const Tensor& index);
Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
// torch.scatter(t, dim, index, value): value converted to t's dtype.
Tensor scatter_value(const Tensor& t, int64_t dim, const Tensor& index, const Scalar& value);
Tensor masked_select(const Tensor& t, const Tensor& mask);
Tensor cat(const std::vector<Tensor>& ts, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& ts, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& t, IntSpan sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim = 0);
Tensor pad(const Tensor& t, IntSpan pad, PadMode mode = PadMode::Constant, double value = 0.0);

}  // namespace glia
