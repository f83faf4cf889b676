// torch functions of issue 20 missing from OpInfo / docs/coverage.md (h-rand; src/autograd/fn/torchmisc.cpp):
// gcd, lcm, bincount, vander, as_strided, as_strided_scatter, gradient, segment_reduce, histogram,
// histogramdd. Composed of glia's ops following torch 1.13's ATen code (its checks and messages first), so
// their gradients are those of the ops they are made of; as_strided records torch's AsStridedBackward0.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace glia {

Tensor gcd(const Tensor& a, const Tensor& b);
Tensor lcm(const Tensor& a, const Tensor& b);
void gcd_(const Tensor& self, const Tensor& other);
void lcm_(const Tensor& self, const Tensor& other);
// torch.bincount(input, weights, minlength): weights undefined for counts (int64).
Tensor bincount(const Tensor& input, const Tensor& weights, int64_t minlength);
// torch.vander(x, N, increasing): N null for x.size(0).
Tensor vander(const Tensor& x, const int64_t* n, bool increasing);
// torch.as_strided(input, size, stride, storage_offset): offset null for input's own.
Tensor as_strided(const Tensor& input, IntSpan size, IntSpan stride, const int64_t* storage_offset);
Tensor as_strided_scatter(const Tensor& input, const Tensor& src, IntSpan size, IntSpan stride,
                          const int64_t* storage_offset);
// torch.gradient: spacing either numbers (empty: 1; one: for every dim) or coordinate tensors (one per
// dim); dims empty with all_dims for every dim.
std::vector<Tensor> gradient(const Tensor& input, const std::vector<double>& spacing,
                             const std::vector<Tensor>& coordinates, IntSpan dims, bool all_dims, int64_t edge_order);
// torch.segment_reduce(data, reduce, lengths=, offsets=, axis, unsafe, initial).
Tensor segment_reduce(const Tensor& data, std::string_view reduce, const Tensor& lengths, const Tensor& offsets,
                      int64_t axis, bool unsafe, const double* initial);

}  // namespace glia

namespace glia {

// torch.native_batch_norm: (output, save_mean, save_invstd); save_* [C] in training, empty in eval.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                                     const Tensor& running_mean, const Tensor& running_var,
                                                     bool training, double momentum, double eps);
// torch.native_layer_norm: (output, mean, rstd), mean and rstd of shape x.shape[:-n] + [1] * n.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& x, IntSpan normalized_shape, const Tensor& weight,
                                                     const Tensor& bias, double eps);
// torch.histogram(input, bins, range, weight, density): bins a count (edges undefined) or the edges.
std::pair<Tensor, Tensor> histogram(const Tensor& input, int64_t bins, const Tensor& edges, const double* range,
                                    const Tensor& weight, bool density);
// torch.histogramdd(input [..., D], bins, range, weight, density): counts (one per dim, edges empty) or
// edges (one tensor per dim); range 2 * D values or null.
std::pair<Tensor, std::vector<Tensor>> histogramdd(const Tensor& input, IntSpan bins, const std::vector<Tensor>& edges,
                                                   const double* range, int64_t n_range, const Tensor& weight,
                                                   bool density);

}  // namespace glia
