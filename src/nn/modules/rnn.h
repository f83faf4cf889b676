// torch.nn's recurrent family: RNNCell, LSTMCell, GRUCell and the layers RNN,
// LSTM, GRU (num_layers, bias, batch_first, dropout between layers,
// bidirectional, LSTM's proj_size). Parameter names, shapes, order, init,
// repr and error texts are torch 1.13's; the computation is made of
// differentiable ops (linear, sigmoid, tanh, mul, add, narrow, stack, cat), so
// autograd, the optimizers and every device work without kernels of their own.
//
// Note [Recurrent modules through glia_module_forward]: torch's forward takes
// (input, hx) with hx a tensor, an (h, c) pair or None, and returns a tensor
// or (output, h_n) / (output, (h_n, c_n)). Through the C ABI the tuples are
// flattened in order: inputs [input, h] or [input, h, c] (NULL entries are
// None: zeros), outputs [h'] (RNNCell, GRUCell), [h', c'] (LSTMCell),
// [output, h_n] (RNN, GRU) or [output, h_n, c_n] (LSTM).
#pragma once

#include <string>
#include <vector>

#include "nn/module.h"
#include "nn/rnn_utils.h"

namespace glia::nn {

enum class RnnMode { RnnTanh, RnnRelu, Lstm, Gru };

// torch's gate count: 4 for LSTM (i, f, g, o), 3 for GRU (r, z, n), 1 for RNN.
int64_t rnn_gate_chunks(RnnMode mode);

// torch's RNNCellBase: weight_ih [chunks * hidden, input], weight_hh
// [chunks * hidden, hidden], bias_ih and bias_hh [chunks * hidden] (None
// without bias), all uniform in +-1/sqrt(hidden_size).
class RnnCell : public Module {
 public:
  RnnCell(RnnMode mode, int64_t input_size, int64_t hidden_size, bool bias, const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  RnnMode mode;
  int64_t input_size, hidden_size;
  bool bias;
};

struct RnnOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0.0;
  bool bidirectional = false;
  int64_t proj_size = 0;  // LSTM only
};

// torch's RNNBase: per layer and direction weight_ih_l{k}{_reverse},
// weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k} (with bias) and weight_hr_l{k}
// (LSTM with proj_size > 0), all uniform in +-1/sqrt(hidden_size).
class Rnn : public Module {
 public:
  Rnn(RnnMode mode, int64_t input_size, int64_t hidden_size, const RnnOptions& o, const Factory& f);
  TensorList forward(const TensorList& inputs) override;
  std::string extra_repr() const override;
  void reset_parameters() override;
  // torch's forward on a PackedSequence: the output PackedSequence (input's
  // batch_sizes and indices), h_n and (LSTM) c_n in the original batch order.
  // hx (and cx) are in the original batch order too; undefined is zeros.
  struct PackedResult {
    PackedSequence output;
    Tensor h_n, c_n;
  };
  PackedResult forward_packed(const PackedSequence& input, Tensor hx, Tensor cx);
  RnnMode mode;
  int64_t input_size, hidden_size;
  RnnOptions options;

 private:
  // The parameters of one layer and direction, in torch's order (undefined where absent).
  struct Weights {
    Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
  };
  Weights weights(int64_t layer, int64_t direction) const;
  // Per layer and direction the names weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k},
  // weight_hr_l{k} (suffixed), made once so that forward builds no strings.
  std::vector<std::string> names_;
  // One time step of one layer and direction: gi = x W_ih^T + b_ih of this step's rows.
  void step(const Weights& w, const Tensor& gi, Tensor& h, Tensor& c) const;
  // torch's check_input and check_hidden_size for `batch` sequences (input_dim 3, or 2 when packed).
  void check_forward_args(const Tensor& input, int64_t input_dim, const Tensor& hx, const Tensor& cx,
                          int64_t batch) const;
};

}  // namespace glia::nn
