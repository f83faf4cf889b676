// glia_nn_*: the recurrent modules (nn/modules/rnn.h).
#include <cstring>

#include "capi/api.h"
#include "capi/options.h"
#include "nn/modules/rnn.h"

using namespace glia;
using namespace glia::capi;

namespace {

// "tanh" (or NULL) and "relu"; `unknown` is torch's text before the quoted name.
nn::RnnMode nonlinearity_arg(const char* s, const char* unknown, const char* quote) {
  if (!s || std::strcmp(s, "tanh") == 0) return nn::RnnMode::RnnTanh;
  GLIA_CHECK(std::strcmp(s, "relu") == 0, InvalidArgument, unknown, quote, s, quote);
  return nn::RnnMode::RnnRelu;
}

// RNNCell's nonlinearity is checked here, torch checks it at the first call.
glia_error* cell(nn::RnnMode mode, int64_t input_size, int64_t hidden_size, int32_t bias, const char* nonlinearity,
                 const glia_factory_options* factory, glia_module** out, const char* fn) {
  return module_entry(factory, out, fn, [&](const nn::Factory& f) -> nn::ModuleRef {
    if (mode == nn::RnnMode::RnnTanh) mode = nonlinearity_arg(nonlinearity, "Unknown nonlinearity: ", "");
    return make_ref<nn::RnnCell>(mode, input_size, hidden_size, bias != 0, f);
  });
}

glia_error* layer(nn::RnnMode mode, int64_t input_size, int64_t hidden_size, const glia_nn_rnn_options* options,
                  const glia_factory_options* factory, glia_module** out, const char* fn) {
  return module_entry(factory, out, fn, [&](const nn::Factory& f) -> nn::ModuleRef {
    nn::RnnOptions o;
    if (options) {
      check_struct_size(options, fn, "glia_nn_rnn_options_init");
      GLIA_READ(options, num_layers, o.num_layers);
      GLIA_READ_FLAG(options, bias, o.bias);
      GLIA_READ_FLAG(options, batch_first, o.batch_first);
      GLIA_READ(options, dropout, o.dropout);
      GLIA_READ_FLAG(options, bidirectional, o.bidirectional);
      GLIA_READ(options, proj_size, o.proj_size);
      if (GLIA_COVERS(options, nonlinearity) && options->nonlinearity) {
        GLIA_CHECK(mode != nn::RnnMode::Lstm && mode != nn::RnnMode::Gru, InvalidArgument, fn,
                   ": nonlinearity is only supported for RNN, not LSTM or GRU");
        mode = nonlinearity_arg(options->nonlinearity, "Unknown nonlinearity ", "'");
      }
    }
    return make_ref<nn::Rnn>(mode, input_size, hidden_size, o, f);
  });
}

}  // namespace

extern "C" {

glia_error* glia_nn_rnn_cell(int64_t input_size, int64_t hidden_size, int32_t bias, const char* nonlinearity,
                             const glia_factory_options* factory, glia_module** out) {
  return cell(nn::RnnMode::RnnTanh, input_size, hidden_size, bias, nonlinearity, factory, out, "glia_nn_rnn_cell");
}

glia_error* glia_nn_lstm_cell(int64_t input_size, int64_t hidden_size, int32_t bias,
                              const glia_factory_options* factory, glia_module** out) {
  return cell(nn::RnnMode::Lstm, input_size, hidden_size, bias, nullptr, factory, out, "glia_nn_lstm_cell");
}

glia_error* glia_nn_gru_cell(int64_t input_size, int64_t hidden_size, int32_t bias, const glia_factory_options* factory,
                             glia_module** out) {
  return cell(nn::RnnMode::Gru, input_size, hidden_size, bias, nullptr, factory, out, "glia_nn_gru_cell");
}

void glia_nn_rnn_options_init(glia_nn_rnn_options* o) {
  if (!o) return;
  *o = glia_nn_rnn_options{};
  o->struct_size = sizeof(*o);
  o->num_layers = 1;
  o->bias = 1;
}

glia_error* glia_nn_rnn(int64_t input_size, int64_t hidden_size, const glia_nn_rnn_options* options,
                        const glia_factory_options* factory, glia_module** out) {
  return layer(nn::RnnMode::RnnTanh, input_size, hidden_size, options, factory, out, "glia_nn_rnn");
}

glia_error* glia_nn_lstm(int64_t input_size, int64_t hidden_size, const glia_nn_rnn_options* options,
                         const glia_factory_options* factory, glia_module** out) {
  return layer(nn::RnnMode::Lstm, input_size, hidden_size, options, factory, out, "glia_nn_lstm");
}

glia_error* glia_nn_gru(int64_t input_size, int64_t hidden_size, const glia_nn_rnn_options* options,
                        const glia_factory_options* factory, glia_module** out) {
  return layer(nn::RnnMode::Gru, input_size, hidden_size, options, factory, out, "glia_nn_gru");
}

}  // extern "C"
