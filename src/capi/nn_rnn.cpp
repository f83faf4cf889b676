// glia_nn_*: the recurrent modules (nn/modules/rnn.h) and torch.nn.utils.rnn (nn/rnn_utils.h).
#include <cstring>
#include <optional>

#include "capi/api.h"
#include "capi/options.h"
#include "nn/modules/rnn.h"
#include "nn/rnn_utils.h"

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

// ---- torch.nn.utils.rnn ----------------------------------------------------------------

namespace {

nn::PackedSequence packed_arg(const glia_packed_sequence* s, const char* fn, const char* arg) {
  GLIA_CHECK(s != nullptr, InvalidArgument, fn, ": argument '", arg, "' is NULL");
  nn::PackedSequence p;
  p.data = tensor_arg(s->data, fn, "data");
  p.batch_sizes = tensor_arg(s->batch_sizes, fn, "batch_sizes");
  p.sorted_indices = tensor_opt(s->sorted_indices, fn, "sorted_indices");
  p.unsorted_indices = tensor_opt(s->unsorted_indices, fn, "unsorted_indices");
  GLIA_CHECK(p.sorted_indices.defined() == p.unsorted_indices.defined(), InvalidArgument, fn, ": argument '", arg,
             "' has only one of sorted_indices and unsorted_indices");
  return p;
}

glia_tensor* handle_or_null(const Tensor& t) { return t.defined() ? tensor_handle(t) : nullptr; }

void write_packed(const nn::PackedSequence& p, glia_packed_sequence* out) {
  glia_packed_sequence r{handle_or_null(p.data), handle_or_null(p.batch_sizes), handle_or_null(p.sorted_indices),
                         handle_or_null(p.unsorted_indices)};
  *out = r;
}

}  // namespace

extern "C" {

glia_error* glia_packed_sequence_release(glia_packed_sequence* sequence) {
  return guard([&] {
    if (!sequence) return;
    glia_tensor* hs[4] = {sequence->data, sequence->batch_sizes, sequence->sorted_indices, sequence->unsorted_indices};
    *sequence = glia_packed_sequence{};
    release_handles(hs, 4);
  });
}

glia_error* glia_nn_utils_rnn_pack_padded_sequence(const glia_tensor* input, const int64_t* lengths, int64_t n_lengths,
                                                   int32_t batch_first, int32_t enforce_sorted,
                                                   glia_packed_sequence* out) {
  const char* fn = "glia_nn_utils_rnn_pack_padded_sequence";
  return guard([&] {
    Tensor x = tensor_arg(input, fn, "input");
    GLIA_CHECK(n_lengths >= 0 && (lengths || n_lengths == 0), InvalidArgument, fn,
               ": argument 'lengths' is NULL with n_lengths ", n_lengths);
    check_out(out, fn, "out");
    write_packed(nn::pack_padded_sequence(x, IntSpan(lengths, static_cast<size_t>(n_lengths)), batch_first != 0,
                                          enforce_sorted != 0),
                 out);
  });
}

glia_error* glia_nn_utils_rnn_pad_packed_sequence(const glia_packed_sequence* sequence, int32_t batch_first,
                                                  double padding_value, const int64_t* total_length, glia_tensor** out,
                                                  glia_tensor** out_lengths) {
  const char* fn = "glia_nn_utils_rnn_pad_packed_sequence";
  return guard([&] {
    nn::PackedSequence p = packed_arg(sequence, fn, "sequence");
    check_out(out, fn, "out");
    std::optional<int64_t> total;
    if (total_length) total = *total_length;
    auto [padded, lengths] = nn::pad_packed_sequence(p, batch_first != 0, padding_value, total);
    *out = tensor_handle(padded);
    if (out_lengths) *out_lengths = tensor_handle(lengths);
  });
}

glia_error* glia_nn_utils_rnn_pad_sequence(glia_tensor* const* sequences, int64_t n_sequences, int32_t batch_first,
                                           double padding_value, glia_tensor** out) {
  const char* fn = "glia_nn_utils_rnn_pad_sequence";
  return guard([&] {
    std::vector<Tensor> seqs =
        tensors_arg(const_cast<const glia_tensor* const*>(sequences), n_sequences, fn, "sequences");
    check_out(out, fn, "out");
    *out = tensor_handle(nn::pad_sequence(seqs, batch_first != 0, padding_value));
  });
}

glia_error* glia_nn_rnn_forward_packed(glia_module* module, const glia_packed_sequence* input, const glia_tensor* h_0,
                                       const glia_tensor* c_0, glia_packed_sequence* out, glia_tensor** out_h_n,
                                       glia_tensor** out_c_n) {
  const char* fn = "glia_nn_rnn_forward_packed";
  return guard([&] {
    nn::Module* m = module_raw(module, fn, "module");
    auto* rnn = dynamic_cast<nn::Rnn*>(m);
    GLIA_CHECK(rnn != nullptr, InvalidArgument, fn, ": argument 'module' is a ", m->type_name(),
               ", expected an RNN, LSTM or GRU");
    nn::PackedSequence p = packed_arg(input, fn, "input");
    Tensor h = tensor_opt(h_0, fn, "h_0"), c = tensor_opt(c_0, fn, "c_0");
    check_out(out, fn, "out");
    check_out(out_h_n, fn, "out_h_n");
    nn::ModuleRef keep = nn::ModuleRef::share(m);
    nn::Rnn::PackedResult r = rnn->forward_packed(p, h, c);
    write_packed(r.output, out);
    *out_h_n = tensor_handle(r.h_n);
    if (out_c_n) *out_c_n = handle_or_null(r.c_n);
  });
}

}  // extern "C"
