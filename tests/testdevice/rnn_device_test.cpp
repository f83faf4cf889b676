// The recurrent modules on the test device: built from one seed and moved to
// testdevice:0, an LSTM (2 layers, bidirectional, proj_size, dropout between
// layers in training, a given state), a GRU (batch_first) and the cells give the
// CPU's outputs and gradients exactly, their outputs stay on the device, and
// Adam steps keep the device parameters equal to the CPU's.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/test_support.h"

// GLIA_OK_ for helpers that return a value (ASSERT_* needs a void function).
#define EXPECT_OK_(call)                                                         \
  do {                                                                           \
    glia_error* glia_e_ = (call);                                                \
    EXPECT_EQ(glia_e_, nullptr) << #call << ": " << glia_error_message(glia_e_); \
    glia_error_free(glia_e_);                                                    \
  } while (0)

namespace {

constexpr glia_device kCpu{GLIA_CPU, 0};
constexpr glia_device kDev0{GLIA_PRIVATEUSE1, 0};

class RnnDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
  void TearDown() override {
    for (glia_optimizer* o : opts_) glia_optimizer_release(o);
    for (glia_module* m : modules_) glia_module_release(m);
    for (glia_tensor* t : owned_) glia_tensor_release(t);
  }
  glia_tensor* keep(glia_tensor* t) {
    if (t) owned_.push_back(t);
    return t;
  }
  // Deterministic values in [-1, 1) on `dev`.
  glia_tensor* ramp(std::vector<int64_t> shape, float phase, glia_device dev, bool requires_grad = true) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.7f * static_cast<float>(i) + phase);
    glia_tensor* t = nullptr;
    EXPECT_OK_(glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(),
                                     static_cast<int64_t>(shape.size()), GLIA_FLOAT32, &t));
    keep(t);
    glia_tensor* moved = nullptr;
    EXPECT_OK_(glia_tensor_to(t, &dev, nullptr, &moved));
    keep(moved);
    if (requires_grad) EXPECT_OK_(glia_tensor_set_requires_grad(moved, 1));
    return moved;
  }
  static std::vector<float> floats(const glia_tensor* t) {
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    std::vector<float> v(static_cast<size_t>(n));
    glia_error* e = glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(float));
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    glia_error_free(e);
    return v;
  }
  static glia_device_type device_type(const glia_tensor* t) {
    glia_device d{};
    EXPECT_EQ(glia_tensor_device(t, &d), nullptr);
    return d.type;
  }
  std::vector<glia_tensor*> params(glia_module* m) {
    glia_tensor_dict* d = nullptr;
    EXPECT_OK_(glia_module_named_parameters(m, nullptr, 1, 1, &d));
    int64_t n = 0;
    EXPECT_OK_(glia_tensor_dict_size(d, &n));
    std::vector<glia_tensor*> ps;
    for (int64_t i = 0; i < n; ++i) {
      glia_tensor* t = nullptr;
      EXPECT_OK_(glia_tensor_dict_value_at(d, i, &t));
      ps.push_back(keep(t));
    }
    glia_tensor_dict_release(d);
    return ps;
  }
  glia_module* on(glia_module* m, glia_device dev) {
    modules_.push_back(m);
    EXPECT_OK_(glia_module_to(m, &dev, nullptr));
    return m;
  }

  // What one device computes: outputs, then the gradients of the inputs and parameters.
  struct Run {
    std::vector<std::vector<float>> values;
  };
  Run run(glia_module* m, const std::vector<glia_tensor*>& xs, glia_device_type want, uint64_t dropout_seed) {
    Run r;
    glia_manual_seed(dropout_seed);
    glia_tensor* outs[4] = {};
    int64_t n = 0;
    EXPECT_OK_(glia_module_forward(m, const_cast<const glia_tensor* const*>(xs.data()), static_cast<int64_t>(xs.size()),
                                   outs, 4, &n));
    std::vector<glia_tensor*> ys(outs, outs + n), ws;
    glia_device dev{want, 0};
    for (glia_tensor* y : ys) {
      keep(y);
      EXPECT_EQ(device_type(y), want);
      r.values.push_back(floats(y));
      int64_t nd = 0;
      EXPECT_OK_(glia_tensor_ndim(y, &nd));
      std::vector<int64_t> shape(static_cast<size_t>(nd));
      EXPECT_OK_(glia_tensor_shape(y, nd, shape.data()));
      ws.push_back(ramp(shape, 0.9f + static_cast<float>(ws.size()), dev, false));
    }
    // d/dx sum_k <ys[k], ws[k]>
    EXPECT_OK_(glia_autograd_backward(ys.data(), n, ws.data(), 0, 0));
    for (glia_tensor* x : xs) {
      glia_tensor* g = nullptr;
      EXPECT_OK_(glia_tensor_grad(x, &g));
      r.values.push_back(floats(keep(g)));
    }
    for (glia_tensor* p : params(m)) {
      glia_tensor* g = nullptr;
      EXPECT_OK_(glia_tensor_grad(p, &g));
      r.values.push_back(floats(keep(g)));
    }
    return r;
  }

  std::vector<glia_tensor*> owned_;
  std::vector<glia_module*> modules_;
  std::vector<glia_optimizer*> opts_;
};

glia_module* lstm(uint64_t seed) {
  glia_manual_seed(seed);
  glia_nn_rnn_options o;
  glia_nn_rnn_options_init(&o);
  o.num_layers = 2;
  o.bidirectional = 1;
  o.proj_size = 2;
  o.dropout = 0.3;
  glia_module* m = nullptr;
  EXPECT_OK_(glia_nn_lstm(3, 5, &o, nullptr, &m));
  return m;
}

glia_module* gru(uint64_t seed) {
  glia_manual_seed(seed);
  glia_nn_rnn_options o;
  glia_nn_rnn_options_init(&o);
  o.batch_first = 1;
  glia_module* m = nullptr;
  EXPECT_OK_(glia_nn_gru(3, 4, &o, nullptr, &m));
  return m;
}

}  // namespace

TEST_F(RnnDevice, LstmWithStateDropoutAndProjectionGivesTheCpusValues) {
  glia_module* cpu = on(lstm(11), kCpu);
  glia_module* dev = on(lstm(11), kDev0);
  Run a =
      run(cpu, {ramp({4, 2, 3}, 0.1f, kCpu), ramp({4, 2, 2}, 0.2f, kCpu), ramp({4, 2, 5}, 0.3f, kCpu)}, GLIA_CPU, 99);
  Run b = run(dev, {ramp({4, 2, 3}, 0.1f, kDev0), ramp({4, 2, 2}, 0.2f, kDev0), ramp({4, 2, 5}, 0.3f, kDev0)},
              GLIA_PRIVATEUSE1, 99);
  ASSERT_EQ(a.values.size(), 3u + 3u + 20u);
  EXPECT_EQ(a.values, b.values);
}

TEST_F(RnnDevice, GruAndCellsGiveTheCpusValues) {
  EXPECT_EQ(run(on(gru(12), kCpu), {ramp({2, 5, 3}, 0.4f, kCpu)}, GLIA_CPU, 1).values,
            run(on(gru(12), kDev0), {ramp({2, 5, 3}, 0.4f, kDev0)}, GLIA_PRIVATEUSE1, 1).values);
  auto cell = [&](glia_device d) {
    glia_manual_seed(13);
    glia_module* m = nullptr;
    EXPECT_OK_(glia_nn_lstm_cell(3, 4, 1, nullptr, &m));
    return on(m, d);
  };
  EXPECT_EQ(run(cell(kCpu), {ramp({3}, 0.5f, kCpu)}, GLIA_CPU, 1).values,
            run(cell(kDev0), {ramp({3}, 0.5f, kDev0)}, GLIA_PRIVATEUSE1, 1).values);
}

TEST_F(RnnDevice, AdamTrainsTheDeviceLstmAsTheCpus) {
  glia_module* m[2] = {on(lstm(14), kCpu), on(lstm(14), kDev0)};
  glia_device devs[2] = {kCpu, kDev0};
  std::vector<glia_tensor*> ps[2];
  glia_optimizer* opt[2] = {};
  for (int i = 0; i < 2; ++i) {
    ps[i] = params(m[i]);
    EXPECT_OK_(glia_optim_adam(ps[i].data(), static_cast<int64_t>(ps[i].size()), nullptr, &opt[i]));
    opts_.push_back(opt[i]);
  }
  for (int step = 0; step < 3; ++step) {
    for (int i = 0; i < 2; ++i) {
      EXPECT_OK_(glia_optimizer_zero_grad(opt[i], 1));
      run(m[i], {ramp({4, 2, 3}, 0.1f * static_cast<float>(step), devs[i])}, i == 0 ? GLIA_CPU : GLIA_PRIVATEUSE1,
          40 + static_cast<uint64_t>(step));
      EXPECT_OK_(glia_optimizer_step(opt[i]));
    }
    for (size_t k = 0; k < ps[0].size(); ++k) EXPECT_EQ(floats(ps[0][k]), floats(ps[1][k])) << step << " " << k;
  }
}

// pack_padded_sequence (unsorted, so the indices live on the device), a bidirectional LSTM on the packed
// sequence and pad_packed_sequence: the CPU's values and gradients.
TEST_F(RnnDevice, PackedSequencesGiveTheCpusValues) {
  auto packed_run = [&](glia_device dev) {
    glia_manual_seed(15);
    glia_nn_rnn_options o;
    glia_nn_rnn_options_init(&o);
    o.bidirectional = 1;
    glia_module* m = nullptr;
    EXPECT_OK_(glia_nn_lstm(3, 4, &o, nullptr, &m));
    on(m, dev);
    glia_tensor* x = ramp({4, 3, 3}, 0.6f, dev);
    const int64_t lengths[] = {2, 4, 3};
    glia_packed_sequence in{}, out{};
    EXPECT_OK_(glia_nn_utils_rnn_pack_padded_sequence(x, lengths, 3, 0, 0, &in));
    EXPECT_EQ(device_type(in.data), dev.type);
    EXPECT_EQ(device_type(in.sorted_indices), dev.type);
    EXPECT_EQ(device_type(in.batch_sizes), GLIA_CPU);
    glia_tensor *h_n = nullptr, *c_n = nullptr, *padded = nullptr;
    EXPECT_OK_(glia_nn_rnn_forward_packed(m, &in, nullptr, nullptr, &out, &h_n, &c_n));
    EXPECT_OK_(glia_nn_utils_rnn_pad_packed_sequence(&out, 0, 0.0, nullptr, &padded, nullptr));
    keep(h_n);
    keep(c_n);
    keep(padded);
    std::vector<std::vector<float>> r{floats(padded), floats(h_n), floats(c_n)};
    glia_tensor* ys[] = {padded, h_n, c_n};
    glia_tensor* ws[] = {ramp({4, 3, 8}, 1.1f, dev, false), ramp({2, 3, 4}, 1.2f, dev, false),
                         ramp({2, 3, 4}, 1.3f, dev, false)};
    EXPECT_OK_(glia_autograd_backward(ys, 3, ws, 0, 0));
    glia_tensor* g = nullptr;
    EXPECT_OK_(glia_tensor_grad(x, &g));
    r.push_back(floats(keep(g)));
    for (glia_tensor* p : params(m)) {
      EXPECT_OK_(glia_tensor_grad(p, &g));
      r.push_back(floats(keep(g)));
    }
    EXPECT_OK_(glia_packed_sequence_release(&in));
    EXPECT_OK_(glia_packed_sequence_release(&out));
    return r;
  };
  std::vector<std::vector<float>> cpu = packed_run(kCpu);
  ASSERT_EQ(cpu.size(), 4u + 8u);
  EXPECT_EQ(cpu, packed_run(kDev0));
}
