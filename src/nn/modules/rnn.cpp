// RNNCell, LSTMCell, GRUCell, RNN, LSTM, GRU (torch/nn/modules/rnn.py and
// ATen's RNN.cpp of torch 1.13): the same gates, the same checks and texts.
#include "nn/modules/rnn.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "autograd/functions.h"
#include "core/log.h"
#include "nn/init.h"
#include "nn/modules/layers.h"
#include "nn/repr.h"

namespace glia::nn {

namespace {

const char* cell_name(RnnMode m) {
  switch (m) {
    case RnnMode::Lstm:
      return "LSTMCell";
    case RnnMode::Gru:
      return "GRUCell";
    default:
      return "RNNCell";
  }
}

const char* layer_name(RnnMode m) {
  switch (m) {
    case RnnMode::Lstm:
      return "LSTM";
    case RnnMode::Gru:
      return "GRU";
    default:
      return "RNN";
  }
}

// torch's RNNCellBase/RNNBase.reset_parameters: every parameter uniform in
// +-1/sqrt(hidden_size), drawn in registration order.
void reset_uniform(Module& m, int64_t hidden_size) {
  double stdv = hidden_size > 0 ? 1.0 / std::sqrt(static_cast<double>(hidden_size)) : 0.0;
  for (const NamedTensor& p : m.local_parameters())
    if (p.value.defined() && p.value.numel() > 0) init::uniform_(p.value, -stdv, stdv);
}

// ---- one time step (ATen's RNN.cpp cells) ------------------------------------------
// gi = x W_ih^T + b_ih and gh = h W_hh^T + b_hh, both [batch, chunks * hidden].

Tensor rnn_step(const Tensor& gi, const Tensor& gh, bool use_relu) {
  Tensor s = add(gi, gh);
  return use_relu ? relu(s) : tanh(s);
}

// Gates i, f, g, o; c' = f c + i g; h' = o tanh(c') (then W_hr h' with a projection).
void lstm_step(const Tensor& gi, const Tensor& gh, const Tensor& c, const Tensor& w_hr, int64_t hidden, Tensor& h_out,
               Tensor& c_out) {
  Tensor g = add(gi, gh);
  Tensor i = sigmoid(narrow(g, 1, 0, hidden));
  Tensor f = sigmoid(narrow(g, 1, hidden, hidden));
  Tensor cand = tanh(narrow(g, 1, 2 * hidden, hidden));
  Tensor o = sigmoid(narrow(g, 1, 3 * hidden, hidden));
  c_out = add(mul(f, c), mul(i, cand));
  h_out = mul(o, tanh(c_out));
  if (w_hr.defined()) h_out = linear(h_out, w_hr, Tensor());
}

// Gates r, z, n; n = tanh(gi_n + r gh_n); h' = (h - n) z + n.
Tensor gru_step(const Tensor& gi, const Tensor& gh, const Tensor& h, int64_t hidden) {
  Tensor r = sigmoid(add(narrow(gi, 1, 0, hidden), narrow(gh, 1, 0, hidden)));
  Tensor z = sigmoid(add(narrow(gi, 1, hidden, hidden), narrow(gh, 1, hidden, hidden)));
  Tensor n = tanh(add(narrow(gi, 1, 2 * hidden, hidden), mul(r, narrow(gh, 1, 2 * hidden, hidden))));
  return add(mul(sub(h, n), z), n);
}

// ATen's check_rnn_cell_forward_hidden.
void check_cell_hidden(const Tensor& input, const Tensor& h, int64_t hidden_size) {
  GLIA_CHECK(input.size(0) == h.size(0), Shape, "Input batch size ", input.size(0),
             " doesn't match hidden0 batch size ", h.size(0));
  GLIA_CHECK(h.size(1) == hidden_size, Shape, "hidden0 has inconsistent hidden_size: got ", h.size(1), ", expected ",
             hidden_size);
}

// Python's str of a tuple of ints: "(2, 3, 4)".
std::string py_tuple(const Dims& d) {
  std::ostringstream s;
  s.exceptions(std::ios::badbit);  // out of memory is thrown, not swallowed into a shorter text
  s << '(';
  for (size_t i = 0; i < d.size(); ++i) s << (i ? ", " : "") << d[i];
  s << (d.size() == 1 ? ",)" : ")");
  return s.str();
}

std::string py_list(const Dims& d) {
  std::ostringstream s;
  s.exceptions(std::ios::badbit);  // out of memory is thrown, not swallowed into a shorter text
  s << d;
  return s.str();
}

// torch's check of forward's arity ((input, hx) or, flattened, (input, h, c)) and of
// LSTM's hx pair (Note [Recurrent modules through glia_module_forward]).
void check_recurrent_inputs(const std::string& type, const TensorList& inputs, bool lstm) {
  const size_t most = lstm ? 3 : 2;
  GLIA_CHECK(!inputs.empty() && inputs.size() <= most, InvalidArgument, type, ".forward: expected 1 to ", most,
             lstm ? " inputs (input, h_0, c_0)" : " inputs (input, h_0)", ", got ", inputs.size());
  GLIA_CHECK(inputs[0].defined(), InvalidArgument, type, ".forward: input 1 of ", inputs.size(),
             " is None, expected a Tensor");
  if (lstm) {
    bool h = inputs.size() > 1 && inputs[1].defined();
    bool c = inputs.size() > 2 && inputs[2].defined();
    GLIA_CHECK(h == c, InvalidArgument, type,
               ".forward: h_0 and c_0 must both be given or both be None (torch's hx=(h_0, c_0)), got ",
               h ? "h_0 without c_0" : "c_0 without h_0");
  }
}

}  // namespace

int64_t rnn_gate_chunks(RnnMode mode) {
  switch (mode) {
    case RnnMode::Lstm:
      return 4;
    case RnnMode::Gru:
      return 3;
    default:
      return 1;
  }
}

// ---- cells ---------------------------------------------------------------------------

RnnCell::RnnCell(RnnMode m, int64_t in, int64_t hidden, bool b, const Factory& f)
    : Module(cell_name(m)), mode(m), input_size(in), hidden_size(hidden), bias(b) {
  const int64_t gates = rnn_gate_chunks(m) * hidden;
  check_param_shape(Dims{gates, in});
  check_param_shape(Dims{gates, hidden});
  register_parameter("weight_ih", empty(Dims{gates, in}, f.dtype, f.device));
  register_parameter("weight_hh", empty(Dims{gates, hidden}, f.dtype, f.device));
  register_parameter("bias_ih", b ? empty(Dims{gates}, f.dtype, f.device) : Tensor());
  register_parameter("bias_hh", b ? empty(Dims{gates}, f.dtype, f.device) : Tensor());
  maybe_reset(*this);
}

void RnnCell::reset_parameters() { reset_uniform(*this, hidden_size); }

TensorList RnnCell::forward(const TensorList& inputs) {
  const bool lstm = mode == RnnMode::Lstm;
  check_recurrent_inputs(type_name(), inputs, lstm);
  Tensor input = inputs[0];
  Tensor hx = inputs.size() > 1 ? inputs[1] : Tensor();
  Tensor cx = inputs.size() > 2 ? inputs[2] : Tensor();
  GLIA_CHECK(input.dim() == 1 || input.dim() == 2, Shape, type_name(),
             ": Expected input to be 1-D or 2-D but received ", input.dim(), "-D tensor");
  const bool batched = input.dim() == 2;
  if (!batched) input = unsqueeze(input, 0);
  if (!hx.defined()) {
    hx = zeros(Dims{input.size(0), hidden_size}, input.dtype(), input.device());
    if (lstm) cx = hx;
  } else if (!batched) {
    hx = unsqueeze(hx, 0);
    if (lstm) cx = unsqueeze(cx, 0);
  }
  const Tensor& w_ih = param("weight_ih");
  const Tensor& w_hh = param("weight_hh");
  GLIA_CHECK(input.size(1) == w_ih.size(1), Shape, "input has inconsistent input_size: got ", input.size(1),
             " expected ", w_ih.size(1));
  check_cell_hidden(input, hx, w_hh.size(1));
  if (lstm) check_cell_hidden(input, cx, w_hh.size(1));

  Tensor gi = linear(input, w_ih, param("bias_ih"));
  Tensor gh = linear(hx, w_hh, param("bias_hh"));
  TensorList out;
  switch (mode) {
    case RnnMode::Lstm: {
      Tensor h, c;
      lstm_step(gi, gh, cx, Tensor(), hidden_size, h, c);
      out = {h, c};
      break;
    }
    case RnnMode::Gru:
      out = {gru_step(gi, gh, hx, hidden_size)};
      break;
    default:
      out = {rnn_step(gi, gh, mode == RnnMode::RnnRelu)};
  }
  if (!batched)
    for (Tensor& t : out) t = select(t, 0, 0);
  return out;
}

std::string RnnCell::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (!bias) s += ", bias=False";
  if (mode == RnnMode::RnnRelu) s += ", nonlinearity=relu";
  return s;
}

// ---- layers ----------------------------------------------------------------------------

Rnn::Rnn(RnnMode m, int64_t in, int64_t hidden, const RnnOptions& o, const Factory& f)
    : Module(layer_name(m)), mode(m), input_size(in), hidden_size(hidden), options(o) {
  GLIA_CHECK(m == RnnMode::Lstm || o.proj_size == 0, InvalidArgument,
             "proj_size argument is only supported for LSTM, not RNN or GRU");
  GLIA_CHECK(o.dropout >= 0 && o.dropout <= 1, InvalidArgument,
             "dropout should be a number in range [0, 1] representing the probability of an element being zeroed");
  if (o.dropout > 0 && o.num_layers == 1 && log_enabled(LogLevel::Warning))
    log(LogLevel::Warning,
        "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects num_layers "
        "greater than 1, but got dropout=" +
            py_float(o.dropout) + " and num_layers=1");
  GLIA_CHECK(o.proj_size >= 0, InvalidArgument,
             "proj_size should be a positive integer or zero to disable projections");
  GLIA_CHECK(o.proj_size < hidden, InvalidArgument, "proj_size has to be smaller than hidden_size");
  // torch 1.13 accepts num_layers <= 0 and fails at the first call; later versions refuse it here.
  GLIA_CHECK(o.num_layers > 0, InvalidArgument, "num_layers must be greater than zero");

  const int64_t gates = rnn_gate_chunks(m) * hidden;
  const int64_t real_hidden = o.proj_size > 0 ? o.proj_size : hidden;
  const int64_t dirs = o.bidirectional ? 2 : 1;
  for (int64_t layer = 0; layer < o.num_layers; ++layer) {
    const int64_t layer_in = layer == 0 ? in : real_hidden * dirs;
    for (int64_t d = 0; d < dirs; ++d) {
      const std::string suffix = std::to_string(layer) + (d == 1 ? "_reverse" : "");
      for (const char* kind : {"weight_ih_l", "weight_hh_l", "bias_ih_l", "bias_hh_l", "weight_hr_l"})
        names_.push_back(kind + suffix);
      const std::string* name = &names_[names_.size() - 5];
      check_param_shape(Dims{gates, layer_in});
      register_parameter(name[0], empty(Dims{gates, layer_in}, f.dtype, f.device));
      register_parameter(name[1], empty(Dims{gates, real_hidden}, f.dtype, f.device));
      if (o.bias) {
        register_parameter(name[2], empty(Dims{gates}, f.dtype, f.device));
        register_parameter(name[3], empty(Dims{gates}, f.dtype, f.device));
      }
      if (o.proj_size > 0) register_parameter(name[4], empty(Dims{o.proj_size, hidden}, f.dtype, f.device));
    }
  }
  maybe_reset(*this);
}

void Rnn::reset_parameters() { reset_uniform(*this, hidden_size); }

Rnn::Weights Rnn::weights(int64_t layer, int64_t direction) const {
  const std::string* name = &names_[static_cast<size_t>((layer * (options.bidirectional ? 2 : 1) + direction) * 5)];
  Weights w;
  w.w_ih = param(name[0]);
  w.w_hh = param(name[1]);
  if (options.bias) {
    w.b_ih = param(name[2]);
    w.b_hh = param(name[3]);
  }
  if (options.proj_size > 0) w.w_hr = param(name[4]);
  return w;
}

void Rnn::step(const Weights& w, const Tensor& gi, Tensor& h, Tensor& c) const {
  Tensor gh = linear(h, w.w_hh, w.b_hh);
  switch (mode) {
    case RnnMode::Lstm:
      lstm_step(gi, gh, c, w.w_hr, hidden_size, h, c);
      break;
    case RnnMode::Gru:
      h = gru_step(gi, gh, h, hidden_size);
      break;
    default:
      h = rnn_step(gi, gh, mode == RnnMode::RnnRelu);
  }
}

// torch's check_forward_args (check_input, check_hidden_size).
void Rnn::check_forward_args(const Tensor& input, int64_t input_dim, const Tensor& hx, const Tensor& cx,
                             int64_t batch) const {
  const bool lstm = mode == RnnMode::Lstm;
  const int64_t dirs = options.bidirectional ? 2 : 1;
  GLIA_CHECK(input.dim() == input_dim, Shape, "input must have ", input_dim, " dimensions, got ", input.dim());
  GLIA_CHECK(input.size(-1) == input_size, Shape, "input.size(-1) must be equal to input_size. Expected ", input_size,
             ", got ", input.size(-1));
  const Dims expected_h{options.num_layers * dirs, batch, options.proj_size > 0 ? options.proj_size : hidden_size};
  GLIA_CHECK(hx.shape() == expected_h, Shape, lstm ? "Expected hidden[0] size " : "Expected hidden size ",
             py_tuple(expected_h), ", got ", py_list(hx.shape()));
  if (lstm) {
    const Dims expected_c{options.num_layers * dirs, batch, hidden_size};
    GLIA_CHECK(cx.shape() == expected_c, Shape, "Expected hidden[1] size ", py_tuple(expected_c), ", got ",
               py_list(cx.shape()));
  }
}

TensorList Rnn::forward(const TensorList& inputs) {
  const bool lstm = mode == RnnMode::Lstm;
  check_recurrent_inputs(type_name(), inputs, lstm);
  Tensor input = inputs[0];
  Tensor hx = inputs.size() > 1 ? inputs[1] : Tensor();
  Tensor cx = inputs.size() > 2 ? inputs[2] : Tensor();

  // torch's forward: an input that is not 3-D is unbatched and gets a batch dim.
  const bool batched = input.dim() == 3;
  const int64_t batch_dim = options.batch_first ? 0 : 1;
  if (!batched) input = unsqueeze(input, batch_dim);
  if (hx.defined()) {
    const int64_t want = batched ? 3 : 2;
    const char* what = batched ? "For batched 3-D input" : "For unbatched 2-D input";
    if (lstm)
      GLIA_CHECK(hx.dim() == want && cx.dim() == want, Shape, what, ", hx and cx should also be ", want, "-D but got (",
                 hx.dim(), "-D, ", cx.dim(), "-D) tensors");
    else
      GLIA_CHECK(hx.dim() == want, Shape, what, ", hx should also be ", want, "-D but got ", hx.dim(), "-D tensor");
    if (!batched) {
      hx = unsqueeze(hx, 1);
      if (lstm) cx = unsqueeze(cx, 1);
    }
  }
  const int64_t batch = input.size(batch_dim);
  const int64_t dirs = options.bidirectional ? 2 : 1;
  const int64_t real_hidden = options.proj_size > 0 ? options.proj_size : hidden_size;
  if (!hx.defined()) {
    hx = zeros(Dims{options.num_layers * dirs, batch, real_hidden}, input.dtype(), input.device());
    if (lstm) cx = zeros(Dims{options.num_layers * dirs, batch, hidden_size}, input.dtype(), input.device());
  }
  check_forward_args(input, 3, hx, cx, batch);

  Tensor x = options.batch_first ? transpose(input, 0, 1) : input;  // [T, B, features]
  const int64_t steps = x.size(0);
  GLIA_CHECK(steps > 0, Shape, "Expected sequence length to be larger than 0 in RNN");
  std::vector<Tensor> h_n, c_n, outs(static_cast<size_t>(steps)), dir_out;
  for (int64_t layer = 0; layer < options.num_layers; ++layer) {
    dir_out.clear();
    for (int64_t d = 0; d < dirs; ++d) {
      const Weights w = weights(layer, d);
      Tensor h = select(hx, 0, layer * dirs + d);
      Tensor c = lstm ? select(cx, 0, layer * dirs + d) : Tensor();
      // The input projection of every step in one product (as ATen's FullLayer).
      Tensor xw = linear(x, w.w_ih, w.b_ih);
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t t = d == 0 ? s : steps - 1 - s;
        step(w, select(xw, 0, t), h, c);
        outs[static_cast<size_t>(t)] = h;
      }
      dir_out.push_back(stack(outs, 0));
      h_n.push_back(h);
      if (lstm) c_n.push_back(c);
    }
    x = dirs == 2 ? cat(dir_out, 2) : dir_out[0];
    if (layer + 1 < options.num_layers && options.dropout > 0 && is_training()) x = dropout(x, options.dropout, true);
  }
  Tensor output = options.batch_first ? transpose(x, 0, 1) : x;
  TensorList out{output, stack(h_n, 0)};
  if (lstm) out.push_back(stack(c_n, 0));
  if (!batched) {
    out[0] = select(out[0], batch_dim, 0);
    for (size_t i = 1; i < out.size(); ++i) out[i] = select(out[i], 1, 0);
  }
  return out;
}

// ATen's PackedLayer and ReversedPackedLayer: step t runs the first
// batch_sizes[t] rows; a sequence's final state is its state after its last step.
Rnn::PackedResult Rnn::forward_packed(const PackedSequence& input, Tensor hx, Tensor cx) {
  const bool lstm = mode == RnnMode::Lstm;
  GLIA_CHECK(input.data.defined(), InvalidArgument, type_name(), ".forward: the PackedSequence's data is None");
  GLIA_CHECK(lstm || !cx.defined(), InvalidArgument, type_name(), ".forward: c_0 is only for LSTM");
  GLIA_CHECK(!lstm || hx.defined() == cx.defined(), InvalidArgument, type_name(),
             ".forward: h_0 and c_0 must both be given or both be None (torch's hx=(h_0, c_0))");
  const std::vector<int64_t> bs = batch_sizes_of(input.batch_sizes);
  const int64_t steps = static_cast<int64_t>(bs.size()), batch = bs[0];
  const int64_t dirs = options.bidirectional ? 2 : 1;
  const int64_t real_hidden = options.proj_size > 0 ? options.proj_size : hidden_size;
  const Tensor& data = input.data;
  if (!hx.defined()) {
    hx = zeros(Dims{options.num_layers * dirs, batch, real_hidden}, data.dtype(), data.device());
    if (lstm) cx = zeros(Dims{options.num_layers * dirs, batch, hidden_size}, data.dtype(), data.device());
  } else if (input.sorted_indices.defined()) {
    hx = index_select(hx, 1, input.sorted_indices);
    if (lstm) cx = index_select(cx, 1, input.sorted_indices);
  }
  check_forward_args(data, 2, hx, cx, batch);
  std::vector<int64_t> offset(bs.size(), 0);
  for (size_t t = 1; t < bs.size(); ++t) offset[t] = offset[t - 1] + bs[t - 1];

  auto rows = [](const Tensor& t, int64_t start, int64_t n) { return t.defined() ? narrow(t, 0, start, n) : t; };
  auto join = [](const std::vector<Tensor>& ts) { return ts.size() == 1 ? ts[0] : cat(ts, 0); };
  Tensor x = data;
  std::vector<Tensor> h_n, c_n, outs(static_cast<size_t>(steps)), dir_out;
  for (int64_t layer = 0; layer < options.num_layers; ++layer) {
    dir_out.clear();
    for (int64_t d = 0; d < dirs; ++d) {
      const Weights w = weights(layer, d);
      const Tensor h0 = select(hx, 0, layer * dirs + d);
      const Tensor c0 = lstm ? select(cx, 0, layer * dirs + d) : Tensor();
      Tensor xw = linear(x, w.w_ih, w.b_ih);
      Tensor h = h0, c = c0;
      if (d == 0) {
        // Rows leave the batch as their sequences end: keep their final state.
        std::vector<Tensor> done_h, done_c;
        int64_t last = batch;
        for (int64_t t = 0; t < steps; ++t) {
          const int64_t n = bs[t];
          if (n < last) {
            done_h.push_back(rows(h, n, last - n));
            done_c.push_back(rows(c, n, last - n));
            h = rows(h, 0, n);
            c = rows(c, 0, n);
            last = n;
          }
          step(w, narrow(xw, 0, offset[t], n), h, c);
          outs[t] = h;
        }
        done_h.push_back(h);
        done_c.push_back(c);
        std::reverse(done_h.begin(), done_h.end());
        std::reverse(done_c.begin(), done_c.end());
        h_n.push_back(join(done_h));
        if (lstm) c_n.push_back(join(done_c));
      } else {
        // Backwards in time rows join the batch, starting from their initial state.
        int64_t last = bs[steps - 1];
        h = rows(h0, 0, last);
        c = rows(c0, 0, last);
        for (int64_t t = steps - 1; t >= 0; --t) {
          const int64_t n = bs[t];
          if (n > last) {
            h = cat({h, rows(h0, last, n - last)}, 0);
            if (lstm) c = cat({c, rows(c0, last, n - last)}, 0);
            last = n;
          }
          step(w, narrow(xw, 0, offset[t], n), h, c);
          outs[t] = h;
        }
        h_n.push_back(h);
        if (lstm) c_n.push_back(c);
      }
      dir_out.push_back(join(outs));
    }
    x = dirs == 2 ? cat(dir_out, 1) : dir_out[0];
    if (layer + 1 < options.num_layers && options.dropout > 0 && is_training()) x = dropout(x, options.dropout, true);
  }
  PackedResult r;
  r.output = PackedSequence{x, input.batch_sizes, input.sorted_indices, input.unsorted_indices};
  r.h_n = stack(h_n, 0);
  if (lstm) r.c_n = stack(c_n, 0);
  if (input.unsorted_indices.defined()) {
    r.h_n = index_select(r.h_n, 1, input.unsorted_indices);
    if (lstm) r.c_n = index_select(r.c_n, 1, input.unsorted_indices);
  }
  return r;
}

std::string Rnn::extra_repr() const {
  std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
  if (options.proj_size != 0) s += ", proj_size=" + std::to_string(options.proj_size);
  if (options.num_layers != 1) s += ", num_layers=" + std::to_string(options.num_layers);
  if (!options.bias) s += ", bias=False";
  if (options.batch_first) s += ", batch_first=True";
  if (options.dropout != 0) s += ", dropout=" + py_float(options.dropout);
  if (options.bidirectional) s += ", bidirectional=True";
  return s;
}

}  // namespace glia::nn
