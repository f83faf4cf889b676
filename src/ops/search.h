// Searching, set membership, unique values and histograms (no autograd; none of them is differentiable):
// torch.searchsorted / bucketize / isin / unique / unique_consecutive / histc. Meta parts over the kernels
// of src/ops/cpu/search.cpp (Note [Op = meta + kernel + rule]). unique and unique_consecutive size their
// results after a first kernel: one int64 comes back to the host (torch synchronises on CUDA there too).
#pragma once

#include <optional>
#include <string_view>
#include <tuple>

#include "core/tensor.h"

namespace glia::ops {

// torch.searchsorted(sorted_sequence, values, out_int32, right, side, sorter); side empty: not given.
Tensor searchsorted(const Tensor& seq, const Tensor& values, bool out_int32, bool right,
                    std::optional<std::string_view> side, const Tensor* sorter);
// torch.bucketize(input, boundaries, out_int32, right).
Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right);
// torch.isin(elements, test_elements, assume_unique, invert).
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert);
// torch.unique(input, sorted, return_inverse=True, return_counts=True) with dim=None: (values, inverse, counts).
// glia always sorts (torch's CPU order for sorted=False is its hash set's).
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& input, bool sorted);
// torch.unique_consecutive(input, return_inverse=True, return_counts=True) with dim=None.
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& input);
// torch.histc(input, bins, min, max).
Tensor histc(const Tensor& input, int64_t bins, double min, double max);

}  // namespace glia::ops
