// Tests of include/glia/glia.hpp, the header-only C++17 wrapper over the C API.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "glia/glia.hpp"

// The wrapper's classes are glia::cxx::* (an inline namespace), so their symbols never meet the
// library's internal glia:: classes when libglia is linked statically.
static_assert(std::is_same_v<glia::Tensor, glia::cxx::Tensor>);
static_assert(std::is_same_v<glia::Module, glia::cxx::Module>);

namespace {

uint64_t bytes_in_use() { return glia::memory_stats().bytes_in_use; }

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/glia_cpp_test_" + std::to_string(::getpid()) + "_" + name;
}

// The C error a C call returns, as (code, message); the call must fail.
std::pair<glia::ErrorCode, std::string> c_error(glia_error* e) {
  EXPECT_NE(e, nullptr);
  std::pair<glia::ErrorCode, std::string> r{glia_error_code(e), glia_error_message(e)};
  glia_error_free(e);
  return r;
}

TEST(Raii, TensorCopiesMovesAndDestructorsReleaseExactlyOnce) {
  const uint64_t before = bytes_in_use();
  glia_tensor* raw = nullptr;
  {
    glia::Tensor a = glia::Tensor::zeros({64, 64});
    raw = a.get();
    ASSERT_EQ(glia_tensor_retain(raw), nullptr);  // our own reference, outliving every wrapper
    glia::Tensor b = a;                           // retain
    glia::Tensor c = std::move(b);                // steal: b is empty
    EXPECT_FALSE(b);
    EXPECT_EQ(c.get(), raw);
    glia::Tensor d;
    d = c;  // copy-assign: retain
    glia::Tensor& alias = d;
    d = std::move(alias);  // self-move leaves it intact
    EXPECT_EQ(d.get(), raw);
    std::vector<glia::Tensor> many(10, a);  // ten retains
    EXPECT_GE(bytes_in_use(), before + 64 * 64 * 4);
  }
  // Every wrapper released its reference exactly once: ours is the last one...
  EXPECT_GE(bytes_in_use(), before + 64 * 64 * 4);
  EXPECT_EQ(glia_tensor_release(raw), nullptr);
  EXPECT_EQ(bytes_in_use(), before);
  // ...so one more release is a double release.
  EXPECT_EQ(c_error(glia_tensor_release(raw)).first, GLIA_ERR_INVALID_HANDLE);
}

TEST(Raii, ModuleDictOptimizerReleaseExactlyOnce) {
  glia_module* raw_module = nullptr;
  glia_tensor_dict* raw_dict = nullptr;
  glia_optimizer* raw_opt = nullptr;
  {
    glia::Module m = glia::nn::Linear(4, 3);
    raw_module = m.get();
    ASSERT_EQ(glia_module_retain(raw_module), nullptr);
    glia::TensorDict d = m.state_dict();
    raw_dict = d.get();
    ASSERT_EQ(glia_tensor_dict_retain(raw_dict), nullptr);
    glia::Optimizer o = glia::optim::SGD(m.parameters(), 0.1);
    raw_opt = o.get();
    ASSERT_EQ(glia_optimizer_retain(raw_opt), nullptr);
    glia::Module m2 = m;
    glia::TensorDict d2 = std::move(d);
    glia::Optimizer o2 = o;
    glia::Optimizer o3 = std::move(o2);
  }
  EXPECT_EQ(glia_optimizer_release(raw_opt), nullptr);
  EXPECT_EQ(c_error(glia_optimizer_release(raw_opt)).first, GLIA_ERR_INVALID_HANDLE);
  EXPECT_EQ(glia_tensor_dict_release(raw_dict), nullptr);
  EXPECT_EQ(c_error(glia_tensor_dict_release(raw_dict)).first, GLIA_ERR_INVALID_HANDLE);
  EXPECT_EQ(glia_module_release(raw_module), nullptr);
  EXPECT_EQ(c_error(glia_module_release(raw_module)).first, GLIA_ERR_INVALID_HANDLE);
}

TEST(Raii, CallbackUserDataIsFreedExactlyOnce) {
  auto token = std::make_shared<int>(7);
  {
    glia::Module m = glia::Module::custom("Tok", [token](const glia::Tensor& x) { return x; });
    glia::Module copy = m;
    EXPECT_EQ(token.use_count(), 2);  // the std::function glia holds
    glia::Tensor x = glia::Tensor::ones({2}).requires_grad_();
    glia::HookHandle h = x.register_hook([token](const glia::Tensor&) { return glia::Tensor(); });
    EXPECT_EQ(token.use_count(), 3);
    h.remove();
    EXPECT_EQ(token.use_count(), 2);
    h.remove();  // a second remove is a no-op
  }
  EXPECT_EQ(token.use_count(), 1);
}

TEST(Errors, CarryTheCodeAndMessageOfTheCError) {
  glia::Tensor a = glia::Tensor::ones({2, 3});
  glia::Tensor b = glia::Tensor::ones({4});
  glia_tensor* out = nullptr;
  const auto expected = c_error(glia_add(a.get(), b.get(), 1.0, &out));
  ASSERT_EQ(expected.first, GLIA_ERR_SHAPE);
  try {
    glia::Tensor c = a + b;
    FAIL() << "no exception";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_SHAPE);
    EXPECT_EQ(e.message(), expected.second);
    EXPECT_STREQ(e.what(), expected.second.c_str());
    EXPECT_STREQ(e.code_name(), "GLIA_ERR_SHAPE");
  }
  // glia::Error is a std::runtime_error.
  EXPECT_THROW(glia::Tensor::ones({2}).item(), std::runtime_error);
  try {
    glia::Tensor::from_vector<float>({1, 2, 3}, {2, 2});
    FAIL() << "no exception";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(e.message(), "glia_tensor_from_data: argument 'nbytes' is 12 but shape [2, 2] of float32 needs 16 bytes");
  }
}

TEST(Tensor, FactoriesShapeItemAndPrinting) {
  glia::Tensor t = glia::Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(t.shape(), (glia::Shape{2, 2}));
  EXPECT_EQ(t.dtype(), GLIA_FLOAT32);
  EXPECT_EQ(t.to_string(), "tensor([[1., 2.],\n        [3., 4.]])");
  std::ostringstream os;
  os << t;
  EXPECT_EQ(os.str(), t.to_string());
  glia::Tensor p = t.matmul(t) + 1.0;
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{8, 11, 16, 23}));
  EXPECT_DOUBLE_EQ((t * t - t / 2.0).sum().item(), 30 - 5);
  EXPECT_EQ(glia::Tensor::arange(5, GLIA_INT64).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(glia::Tensor::full({3}, 2.5).to_vector<float>(), (std::vector<float>{2.5f, 2.5f, 2.5f}));
  EXPECT_EQ(glia::Tensor::zeros({2, 3}, GLIA_FLOAT64).dtype(), GLIA_FLOAT64);
  EXPECT_EQ(glia::Tensor::randn({3, 4}).numel(), 12);
  EXPECT_EQ((-t).relu().sum().item(), 0.0);
  EXPECT_EQ(t.reshape({4}).argmax().item<int64_t>(), 3);
}

TEST(Tensor, Int8AndInt16) {
  glia::Tensor a = glia::Tensor::from_vector<int8_t>({-128, 127, 5});
  EXPECT_EQ(a.dtype(), GLIA_INT8);
  EXPECT_EQ(a.to_vector<int8_t>(), (std::vector<int8_t>{-128, 127, 5}));
  glia::Tensor b = glia::Tensor::from_vector<int16_t>({1000, -2, 3});
  EXPECT_EQ(b.dtype(), GLIA_INT16);
  glia::Tensor s = a + b;  // torch: int8 + int16 -> int16
  EXPECT_EQ(s.dtype(), GLIA_INT16);
  EXPECT_EQ(s.to_vector<int16_t>(), (std::vector<int16_t>{872, 125, 8}));
  EXPECT_EQ(a.to_string(), "tensor([-128,  127,    5], dtype=torch.int8)");
}

TEST(Autograd, LambdaHookModifiesTheGradient) {
  glia::Tensor x = glia::Tensor::from_vector<float>({1, 2, 3}).requires_grad_();
  int calls = 0;
  glia::HookHandle h = x.register_hook([&calls](const glia::Tensor& g) {
    ++calls;
    return g * 10.0;
  });
  (x * 3.0).sum().backward();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{30, 30, 30}));
  // Removed: the gradient flows unchanged.
  h.remove();
  x.set_grad(glia::Tensor());
  (x * 3.0).sum().backward();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{3, 3, 3}));
}

TEST(Autograd, NoGradGuardRestoresTheMode) {
  glia::Tensor x = glia::Tensor::ones({2}).requires_grad_();
  ASSERT_TRUE(glia_grad_mode_enabled());
  {
    glia::NoGradGuard no_grad;
    EXPECT_FALSE(glia_grad_mode_enabled());
    EXPECT_FALSE((x * 2.0).requires_grad());
  }
  EXPECT_TRUE(glia_grad_mode_enabled());
  EXPECT_TRUE((x * 2.0).requires_grad());
}

TEST(Module, LambdaForwardOfACustomModule) {
  glia::Tensor scale = glia::Tensor::from_vector<float>({2, 3});
  glia::Module m = glia::Module::custom("Scale", [](glia::Module& self, const std::vector<glia::Tensor>& in) {
    return std::vector<glia::Tensor>{in.at(0) * self.parameter("scale")};
  });
  m.register_parameter("scale", scale);
  EXPECT_EQ(m.type_name(), "Scale");
  glia::Tensor x = glia::Tensor::from_vector<float>({1, 1, 2, 2}, {2, 2});
  glia::Tensor y = m(x);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2, 3, 4, 6}));
  // Autograd flows through the lambda to the registered parameter.
  y.sum().backward();
  EXPECT_EQ(scale.grad().to_vector<float>(), (std::vector<float>{3, 3}));
  EXPECT_EQ(m.state_dict().keys(), (std::vector<std::string>{"scale"}));
  // Inside a Sequential.
  glia::Module seq = glia::nn::Sequential({m, glia::nn::ReLU()});
  EXPECT_EQ((seq(-x)).sum().item(), 0.0);
}

TEST(Module, ExceptionInALambdaForwardArrivesAsCallbackError) {
  glia::Module m = glia::Module::custom(
      "Thrower", [](const glia::Tensor&) -> glia::Tensor { throw std::runtime_error("the lambda refused"); });
  try {
    m(glia::Tensor::ones({1}));
    FAIL() << "no exception";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_CALLBACK);
    // glia's message for a failed forward callback: "<type>: forward callback failed: <what()>".
    EXPECT_EQ(e.message(), "Thrower: forward callback failed: the lambda refused");
  }
  // A glia::Error inside the lambda (a failed op) arrives the same way, with its message.
  glia::Module bad = glia::Module::custom("Bad", [](const glia::Tensor& x) { return x + glia::Tensor::ones({5}); });
  glia::Tensor x = glia::Tensor::ones({2, 3});
  glia_tensor* out = nullptr;
  const auto inner = c_error(glia_add(x.get(), glia::Tensor::ones({5}).get(), 1.0, &out));
  try {
    bad(x);
    FAIL() << "no exception";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_CALLBACK);
    EXPECT_EQ(e.message(), "Bad: forward callback failed: " + inner.second);
  }
}

TEST(Module, ForwardHookReplacesTheOutputAndCanBeRemoved) {
  glia::Module relu = glia::nn::ReLU();
  glia::HookHandle h =
      relu.register_forward_hook([](glia::Module& self, const std::vector<glia::Tensor>&,
                                    const std::vector<glia::Tensor>& out) -> std::optional<std::vector<glia::Tensor>> {
        EXPECT_EQ(self.type_name(), "ReLU");
        return std::vector<glia::Tensor>{out.at(0) + 1.0};
      });
  glia::Tensor x = glia::Tensor::from_vector<float>({-1, 2});
  EXPECT_EQ(relu(x).to_vector<float>(), (std::vector<float>{1, 3}));
  h.remove();
  EXPECT_EQ(relu(x).to_vector<float>(), (std::vector<float>{0, 2}));
  // A hook that keeps the value and one that throws.
  relu.register_forward_pre_hook([](glia::Module&, const std::vector<glia::Tensor>&) { return std::nullopt; });
  EXPECT_EQ(relu(x).to_vector<float>(), (std::vector<float>{0, 2}));
  relu.register_forward_hook([](glia::Module&, const std::vector<glia::Tensor>&,
                                const std::vector<glia::Tensor>&) -> std::optional<std::vector<glia::Tensor>> {
    throw std::logic_error("hook says no");
  });
  try {
    relu(x);
    FAIL() << "no exception";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_CALLBACK);
    EXPECT_EQ(e.message(), "ReLU: forward hook callback failed: hook says no");
  }
}

TEST(Module, BackwardHookSeesTheGradients) {
  glia::Module lin = glia::nn::Linear(3, 2);
  std::vector<glia::Shape> seen;
  lin.register_full_backward_hook(
      [&seen](glia::Module&, const std::vector<glia::Tensor>& gi,
              const std::vector<glia::Tensor>& go) -> std::optional<std::vector<glia::Tensor>> {
        seen.push_back(gi.at(0).shape());
        seen.push_back(go.at(0).shape());
        return std::nullopt;
      });
  glia::Tensor x = glia::Tensor::randn({4, 3}).requires_grad_();
  lin(x).sum().backward();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (glia::Shape{4, 3}));
  EXPECT_EQ(seen[1], (glia::Shape{4, 2}));
}

TEST(Training, LossFallsWithAdam) {
  glia::manual_seed(0);
  // Two Gaussian blobs, classes 0 and 1.
  glia::Tensor x0 = glia::Tensor::randn({32, 2}) - 2.0;
  glia::Tensor x1 = glia::Tensor::randn({32, 2}) + 2.0;
  glia::Tensor x = glia::cat({x0, x1});
  std::vector<int64_t> labels(64, 0);
  for (size_t i = 32; i < 64; ++i) labels[i] = 1;
  glia::Tensor y = glia::Tensor::from_vector(labels);
  glia::Module model = glia::nn::Sequential({glia::nn::Linear(2, 8), glia::nn::ReLU(), glia::nn::Linear(8, 2)});
  glia::Module loss_fn = glia::nn::CrossEntropyLoss();
  glia::Optimizer opt = glia::optim::Adam(model.parameters(), glia::optim::AdamOptions(0.05));
  double first = 0, last = 0;
  for (int step = 0; step < 60; ++step) {
    opt.zero_grad();
    glia::Tensor loss = loss_fn(model(x), y);
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item();
  }
  EXPECT_LT(last, first * 0.2) << "first " << first << " last " << last;
  glia::NoGradGuard no_grad;
  const double accuracy = model(x).argmax(1).eq(y).to(GLIA_FLOAT32).mean().item();
  EXPECT_GT(accuracy, 0.95);
}

TEST(Checkpoint, StateDictSaveLoadRoundTrip) {
  glia::manual_seed(1);
  glia::Module a = glia::nn::Sequential({glia::nn::Linear(3, 4), glia::nn::Tanh(), glia::nn::Linear(4, 2)});
  glia::Module b = glia::nn::Sequential({glia::nn::Linear(3, 4), glia::nn::Tanh(), glia::nn::Linear(4, 2)});
  glia::Tensor x = glia::Tensor::randn({5, 3});
  const std::vector<float> want = a(x).to_vector<float>();
  ASSERT_NE(b(x).to_vector<float>(), want);

  const std::string path = temp_path("model.safetensors");
  a.save(path);
  glia::LoadResult r = b.load(path);
  EXPECT_TRUE(r.missing_keys.empty());
  EXPECT_TRUE(r.unexpected_keys.empty());
  EXPECT_EQ(b(x).to_vector<float>(), want);

  // TensorDict save/load (torch format), then load_state_dict with a missing key, non-strict.
  const std::string pt = temp_path("model.pt");
  glia::TensorDict sd = a.state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  sd.save(pt, GLIA_FORMAT_TORCH);
  glia::TensorDict back = glia::TensorDict::load(pt);
  EXPECT_EQ(back.keys(), sd.keys());
  EXPECT_EQ(back["2.bias"].to_vector<float>(), sd["2.bias"].to_vector<float>());
  back.remove("2.bias");
  back.set("extra", glia::Tensor::ones({1}));
  glia::Module c = glia::nn::Sequential({glia::nn::Linear(3, 4), glia::nn::Tanh(), glia::nn::Linear(4, 2)});
  glia::LoadResult rc = c.load_state_dict(back, /*strict=*/false);
  EXPECT_EQ(rc.missing_keys, (std::vector<std::string>{"2.bias"}));
  EXPECT_EQ(rc.unexpected_keys, (std::vector<std::string>{"extra"}));
  EXPECT_THROW(c.load_state_dict(back), glia::Error);
  std::remove(path.c_str());
  std::remove(pt.c_str());

  // In-memory round trip with metadata.
  glia::TensorDict d = glia::TensorDict::create();
  d.set("w", glia::Tensor::arange(6).reshape({2, 3}));
  d.set_metadata("format", "pt");
  std::vector<uint8_t> bytes = d.save_buffer();
  glia::TensorDict e = glia::TensorDict::load_buffer(bytes.data(), bytes.size());
  EXPECT_EQ(e.metadata("format"), "pt");
  EXPECT_EQ(e["w"].shape(), (glia::Shape{2, 3}));
}

// Embedding: a host allocator must get back, in free(), the size it was asked for, also for blocks
// that sat in glia's cache (glia_empty_cache). Sizes above 1 KiB exercise the size classes.
struct SizeCheckingHeap {
  std::map<void*, size_t> live;
  int mismatches = 0;
};

TEST(Embedding, HostAllocatorGetsBackTheSizeItGaveForCachedBlocks) {
  SizeCheckingHeap heap;
  glia_allocator a;
  glia_allocator_init(&a);
  a.user_data = &heap;
  a.alloc = [](void* user, size_t size, size_t alignment) -> void* {
    void* p = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
    static_cast<SizeCheckingHeap*>(user)->live[p] = size;
    return p;
  };
  a.free = [](void* user, void* p, size_t size) {
    auto* h = static_cast<SizeCheckingHeap*>(user);
    auto it = h->live.find(p);
    if (it == h->live.end() || it->second != size) ++h->mismatches;
    if (it != h->live.end()) h->live.erase(it);
    std::free(p);
  };
  ASSERT_EQ(glia_set_allocator(&a), nullptr);
  for (int64_t n : {10, 300, 1000, 1500, 3000, 70000}) glia::Tensor::ones({n});  // freed into the cache
  glia_empty_cache();
  EXPECT_EQ(heap.mismatches, 0);
  EXPECT_TRUE(heap.live.empty());
  ASSERT_EQ(glia_set_allocator(nullptr), nullptr);
}

}  // namespace

namespace {

// The device API on the CPU, which has one synchronous stream (torch.cpu's): the same calls as on a
// GPU, trivially complete. The test device's and CUDA's streams are tested through the C API
// (tests/testdevice/streams_test.cpp, tests/cuda).
TEST(Devices, StreamsEventsAndMemoryStatsOnTheCpu) {
  const glia_device cpu{GLIA_CPU, 0};
  glia::Tensor keep = glia::Tensor::ones({256});
  EXPECT_EQ(glia::memory_stats(cpu).bytes_in_use, glia::memory_stats().bytes_in_use);
  glia::reset_peak_memory_stats(cpu);
  EXPECT_EQ(glia::memory_stats(cpu).peak_bytes_in_use, glia::memory_stats(cpu).bytes_in_use);
  glia::empty_cache(cpu);
  glia::synchronize(cpu);

  glia::Stream s = glia::Stream::current(cpu);
  ASSERT_TRUE(s.defined());
  EXPECT_EQ(glia::Stream::create(cpu), s);  // the CPU's only stream
  EXPECT_EQ(s.device().type, GLIA_CPU);
  EXPECT_TRUE(s.query());
  {
    glia::StreamGuard guard(s);
    EXPECT_EQ(glia::Stream::current(cpu), s);
  }
  glia::Event start = glia::Event::create(cpu, /*enable_timing=*/true);
  glia::Event end = glia::Event::create(cpu, true);
  start.record(s);
  glia::Tensor y = keep.add(keep);
  end.record();  // the current stream
  end.synchronize();
  EXPECT_TRUE(end.query());
  s.wait(end);
  s.wait(s);
  EXPECT_GE(start.elapsed_ms(end), 0.0);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(256, 2.0f));

  // pin_memory needs the backend of a device type (pinned copies are tested on the test device in
  // tests/testdevice/streams_test.cpp); here its errors come through as glia::Error.
  EXPECT_FALSE(keep.is_pinned());
  for (auto [type, text] : {std::pair{GLIA_CPU,
                                      "glia_tensor_pin_memory: pinned memory comes from the backend of a "
                                      "device type (cuda or privateuse1), not from cpu"},
                            std::pair{GLIA_PRIVATEUSE1,
                                      "glia_tensor_pin_memory: no privateuseone device is available "
                                      "(no backend is loaded for device type privateuse1 "
                                      "(glia_backend_load))"}}) {
    try {
      (void)keep.pin_memory(type);
      ADD_FAILURE() << "pin_memory succeeded for device type " << type;
    } catch (const glia::Error& e) {
      EXPECT_STREQ(e.what(), text);
    }
  }
  EXPECT_EQ(keep.to_non_blocking(cpu).to_vector<float>(), keep.to_vector<float>());
  // An untimed event cannot be timed: the C error comes through as glia::Error.
  glia::Event plain = glia::Event::create(cpu);
  plain.record();
  try {
    (void)plain.elapsed_ms(end);
    ADD_FAILURE() << "elapsed_ms of an event without timing succeeded";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(e.what(), "glia_event_elapsed_time: both events must be created with enable_timing = 1");
  }
}

}  // namespace

TEST(Recurrent, LayersAndCellsReturnTorchsTuples) {
  glia::manual_seed(2);
  glia::nn::RNNOptions o;
  o.num_layers = 2;
  o.bidirectional = true;
  o.proj_size = 2;
  glia::Module lstm = glia::nn::LSTM(3, 5, o);
  EXPECT_EQ(lstm.to_string(), "LSTM(3, 5, proj_size=2, num_layers=2, bidirectional=True)");
  glia::Tensor x = glia::Tensor::randn({4, 2, 3}).requires_grad_();
  std::vector<glia::Tensor> out = lstm.forward({x});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].shape(), (glia::Shape{4, 2, 4}));
  EXPECT_EQ(out[1].shape(), (glia::Shape{4, 2, 2}));
  EXPECT_EQ(out[2].shape(), (glia::Shape{4, 2, 5}));
  out[0].sum().backward();
  EXPECT_EQ(x.grad().shape(), x.shape());

  glia::nn::RNNOptions g;
  g.batch_first = true;
  glia::Module gru = glia::nn::GRU(3, 4, g);
  std::vector<glia::Tensor> go = gru.forward({glia::Tensor::randn({2, 5, 3}), glia::Tensor::zeros({1, 2, 4})});
  ASSERT_EQ(go.size(), 2u);
  EXPECT_EQ(go[0].shape(), (glia::Shape{2, 5, 4}));
  EXPECT_EQ(go[1].shape(), (glia::Shape{1, 2, 4}));

  EXPECT_EQ(glia::nn::RNNCell(3, 4, true, "relu").to_string(), "RNNCell(3, 4, nonlinearity=relu)");
  EXPECT_EQ(glia::nn::GRUCell(3, 4)(glia::Tensor::randn({3})).shape(), (glia::Shape{4}));
  EXPECT_EQ(glia::nn::LSTMCell(3, 4).forward({glia::Tensor::randn({2, 3})}).size(), 2u);
  try {
    glia::nn::RNN(3, 4, [] {
      glia::nn::RNNOptions r;
      r.dropout = 2;
      return r;
    }());
    FAIL() << "expected an error";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_INVALID_ARGUMENT);
  }
}
