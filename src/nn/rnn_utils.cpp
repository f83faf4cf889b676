#include "nn/rnn_utils.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "autograd/functions.h"

namespace glia::nn {

namespace {

// input's rows [start, start + n) along dim 0, then `pad` rows of `value` (same trailing sizes).
Tensor padded_rows(const Tensor& t, int64_t start, int64_t n, int64_t pad, double value) {
  Tensor rows = narrow(t, 0, start, n);
  if (pad == 0) return rows;
  Dims shape = t.shape();
  shape[0] = pad;
  return cat({rows, full(shape, value, t.dtype(), t.device())}, 0);
}

Tensor int64_tensor(const std::vector<int64_t>& v, Device device) {
  Tensor t = empty(Dims{static_cast<int64_t>(v.size())}, DType::Int64, Device{});
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return device.is_cpu() ? t : to_device(t, device);
}

}  // namespace

std::vector<int64_t> batch_sizes_of(const Tensor& batch_sizes) {
  GLIA_CHECK(batch_sizes.defined() && batch_sizes.dim() == 1 && batch_sizes.dtype() == DType::Int64 &&
                 batch_sizes.device().is_cpu(),
             InvalidArgument, "batch_sizes should always be a 1D CPU int64 tensor");
  Tensor c = contiguous(batch_sizes);
  const int64_t* p = c.data_ptr<int64_t>();
  std::vector<int64_t> v(p, p + c.numel());
  GLIA_CHECK(!v.empty(), InvalidArgument, "batch_sizes is empty: a PackedSequence has at least one step");
  for (size_t i = 0; i < v.size(); ++i)
    GLIA_CHECK(v[i] > 0 && (i == 0 || v[i] <= v[i - 1]), InvalidArgument,
               "batch_sizes must be positive and non-increasing, got ", v[i], " at step ", i);
  return v;
}

PackedSequence pack_padded_sequence(const Tensor& input_, IntSpan lengths_, bool batch_first, bool enforce_sorted) {
  GLIA_CHECK(input_.defined(), InvalidArgument, "pack_padded_sequence: input is None");
  std::vector<int64_t> lengths(lengths_.begin(), lengths_.end());
  Tensor input = input_;
  PackedSequence out;
  const int64_t batch_dim = batch_first ? 0 : 1;
  if (!enforce_sorted) {
    std::vector<int64_t> order(lengths.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lengths[a] > lengths[b]; });
    std::vector<int64_t> inverse(order.size()), sorted(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      inverse[order[i]] = static_cast<int64_t>(i);
      sorted[i] = lengths[order[i]];
    }
    lengths = sorted;
    out.sorted_indices = int64_tensor(order, input.device());
    out.unsorted_indices = int64_tensor(inverse, input.device());
    GLIA_CHECK(input.dim() > batch_dim, InvalidArgument, "pack_padded_sequence: input must have at least ",
               batch_dim + 1, " dimensions, got ", input.dim());
    if (input.size(batch_dim) == static_cast<int64_t>(order.size()))
      input = index_select(input, batch_dim, out.sorted_indices);
  }
  // ATen's _pack_padded_sequence.
  if (batch_first) input = transpose(input, 0, 1);
  GLIA_CHECK(input.numel() > 0, InvalidArgument, "Cannot pack empty tensors.");
  const int64_t batch = input.size(1);
  GLIA_CHECK(static_cast<int64_t>(lengths.size()) == batch, InvalidArgument,
             "Expected `len(lengths)` to be equal to batch_size, but got ", lengths.size(), " (batch_size=", batch,
             ")");
  GLIA_CHECK(lengths[batch - 1] > 0, InvalidArgument,
             "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
  for (int64_t i = 0; i + 1 < batch; ++i)
    GLIA_CHECK(lengths[i + 1] <= lengths[i], InvalidArgument,
               "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
               "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
               "if you do not need ONNX exportability.");
  // torch 1.13 reads past the input here; glia refuses.
  GLIA_CHECK(lengths[0] <= input.size(0), InvalidArgument, "pack_padded_sequence: the longest length ", lengths[0],
             " exceeds the input's ", input.size(0), " steps");
  std::vector<int64_t> batch_sizes(static_cast<size_t>(lengths[0]));
  std::vector<Tensor> steps;
  for (int64_t t = 0; t < lengths[0]; ++t) {
    int64_t n = 0;
    while (n < batch && lengths[n] > t) ++n;
    batch_sizes[t] = n;
    steps.push_back(narrow(select(input, 0, t), 0, 0, n));
  }
  out.data = cat(steps, 0);
  out.batch_sizes = int64_tensor(batch_sizes, Device{});
  return out;
}

std::pair<Tensor, Tensor> pad_packed_sequence(const PackedSequence& p, bool batch_first, double padding_value,
                                              std::optional<int64_t> total_length) {
  GLIA_CHECK(p.data.defined() && p.data.dim() >= 1, InvalidArgument,
             "pad_packed_sequence: the sequence's data must have at least 1 dimension");
  std::vector<int64_t> bs = batch_sizes_of(p.batch_sizes);
  const int64_t steps = static_cast<int64_t>(bs.size());
  int64_t max_len = steps;
  if (total_length) {
    GLIA_CHECK(*total_length >= steps, InvalidArgument,
               "Expected total_length to be at least the length of the longest sequence in input, but got "
               "total_length=",
               *total_length, " and max sequence length being ", steps);
    max_len = *total_length;
  }
  const int64_t batch = bs[0];
  GLIA_CHECK(std::accumulate(bs.begin(), bs.end(), int64_t{0}) == p.data.size(0), InvalidArgument,
             "pad_packed_sequence: batch_sizes add up to ", std::accumulate(bs.begin(), bs.end(), int64_t{0}),
             " rows, data has ", p.data.size(0));
  std::vector<Tensor> rows;
  int64_t offset = 0;
  for (int64_t t = 0; t < steps; ++t) {
    rows.push_back(padded_rows(p.data, offset, bs[t], batch - bs[t], padding_value));
    offset += bs[t];
  }
  Tensor padded = stack(rows, 0);
  if (max_len > steps) {
    Dims shape = padded.shape();
    shape[0] = max_len - steps;
    padded = cat({padded, full(shape, padding_value, padded.dtype(), padded.device())}, 0);
  }
  std::vector<int64_t> lengths(static_cast<size_t>(batch), 0);
  for (int64_t t = 0; t < steps; ++t)
    for (int64_t b = 0; b < bs[t]; ++b) lengths[b] = t + 1;
  if (p.unsorted_indices.defined()) {
    padded = index_select(padded, 1, p.unsorted_indices);
    Tensor host =
        p.unsorted_indices.device().is_cpu() ? contiguous(p.unsorted_indices) : to_device(p.unsorted_indices, Device{});
    const int64_t* u = host.data_ptr<int64_t>();
    std::vector<int64_t> reordered(lengths.size());
    for (size_t i = 0; i < lengths.size(); ++i) reordered[i] = lengths[static_cast<size_t>(u[i])];
    lengths = reordered;
  }
  if (batch_first) padded = transpose(padded, 0, 1);
  return {padded, int64_tensor(lengths, Device{})};
}

Tensor pad_sequence(const std::vector<Tensor>& seqs, bool batch_first, double padding_value) {
  GLIA_CHECK(!seqs.empty(), InvalidArgument, "received an empty list of sequences");
  int64_t max_len = 0;
  for (size_t i = 0; i < seqs.size(); ++i) {
    GLIA_CHECK(seqs[i].defined() && seqs[i].dim() >= 1, InvalidArgument, "pad_sequence: sequence ", i,
               " must have at least 1 dimension");
    const Dims& a = seqs[i].shape();
    const Dims& b = seqs[0].shape();
    GLIA_CHECK(std::equal(a.begin() + 1, a.end(), b.begin() + 1, b.end()), Shape, "pad_sequence: sequence ", i,
               " has shape ", a, ", its trailing sizes must be sequence 0's (shape ", b, ")");
    max_len = std::max(max_len, seqs[i].size(0));
  }
  std::vector<Tensor> cols;
  for (const Tensor& s : seqs) cols.push_back(padded_rows(s, 0, s.size(0), max_len - s.size(0), padding_value));
  return stack(cols, batch_first ? 0 : 1);
}

}  // namespace glia::nn
