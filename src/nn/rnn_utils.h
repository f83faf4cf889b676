// torch.nn.utils.rnn: PackedSequence and the functions that make and undo
// one (ATen's PackedSequence.cpp and torch/nn/utils/rnn.py of torch 1.13),
// made of differentiable ops (narrow, cat, stack, index_select).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "autograd/node.h"

namespace glia::nn {

// torch's PackedSequence: data [sum(lengths), *] holds step after step the rows
// of the sequences still running, batch_sizes (int64, 1-D, on the CPU) how many
// rows each step has (non-increasing); sorted_indices / unsorted_indices (int64,
// on data's device) are undefined when the batch was already sorted.
struct PackedSequence {
  Tensor data, batch_sizes, sorted_indices, unsorted_indices;
};

// pack_padded_sequence(input, lengths, batch_first, enforce_sorted): input
// [T, B, *] ([B, T, *] with batch_first), lengths one per sequence, each in
// [1, T]. torch's errors (InvalidArgument): "Cannot pack empty tensors.",
// "Expected `len(lengths)` to be equal to batch_size, ...", "Length of all
// samples has to be greater than 0, ...", "`lengths` array must be sorted in
// decreasing order when `enforce_sorted` is True. ...".
PackedSequence pack_padded_sequence(const Tensor& input, IntSpan lengths, bool batch_first, bool enforce_sorted);

// pad_packed_sequence(sequence, batch_first, padding_value, total_length):
// (padded [T, B, *] or [B, T, *], lengths int64 on the CPU), in the original
// batch order. total_length pads to that many steps ("Expected total_length
// to be at least the length of the longest sequence in input, ...").
std::pair<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first, double padding_value,
                                              std::optional<int64_t> total_length);

// pad_sequence(sequences, batch_first, padding_value): sequences [L_i, *] with
// equal trailing sizes, stacked into [max L, B, *] ([B, max L, *]).
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value);

// batch_sizes as host values (checks a 1-D int64 CPU tensor of positive, non-increasing sizes).
std::vector<int64_t> batch_sizes_of(const Tensor& batch_sizes);

}  // namespace glia::nn
