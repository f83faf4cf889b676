// Process groups over a device backend's collectives (GLIA_DIST_BACKEND_NCCL; Note [Device process groups] in
// src/distributed/process_group_device.cpp), on the test device, whose collectives run the ranks as threads
// of this process (Note [Test device collectives] in tests/testdevice/testdevice.cpp): every collective's
// results, the device checks, timeouts and aborts. On a machine without a GPU, the CUDA backend's NCCL path is
// checked as far as it goes there: the unique id made by rank 0 and exchanged through the store, then a clear
// error on every rank.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCpu{GLIA_CPU, 0};

class DeviceCollectives : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
  void SetUp() override {
    char tmpl[] = "/tmp/glia_devcoll_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  // A file store shared by the ranks of one test.
  glia_store* store() {
    glia_store* s = nullptr;
    EXPECT_EQ(glia_store_file_create((dir_ + "/store").c_str(), 0, &s), nullptr);
    return s;
  }

  // Runs body(rank) on `size` threads, each with its own store handle.
  static void ranks(int size, const std::function<void(int)>& body) {
    std::vector<std::thread> ts;
    for (int r = 0; r < size; ++r) ts.emplace_back(body, r);
    for (auto& t : ts) t.join();
  }

  // The group of `rank` on testdevice:`device` (NCCL backend over the test device's collectives).
  static glia_error* group(glia_store* s, int rank, int size, int32_t device, int64_t timeout_ms,
                           glia_process_group** out) {
    glia_process_group_options o;
    glia_process_group_options_init(&o);
    o.backend = GLIA_DIST_BACKEND_NCCL;
    o.device = glia_device{GLIA_PRIVATEUSE1, device};
    o.timeout_ms = timeout_ms;
    return glia_process_group_create(s, rank, size, &o, out);
  }

  static glia_tensor* on_device(const std::vector<float>& v, int32_t device) {
    int64_t n = static_cast<int64_t>(v.size());
    glia_tensor *h = nullptr, *d = nullptr;
    EXPECT_EQ(glia_tensor_from_data(v.data(), v.size() * sizeof(float), &n, 1, GLIA_FLOAT32, &h), nullptr);
    const glia_device dev{GLIA_PRIVATEUSE1, device};
    EXPECT_EQ(glia_tensor_to(h, &dev, nullptr, &d), nullptr);
    glia_tensor_release(h);
    return d;
  }

  static std::vector<float> host(const glia_tensor* t) {
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    std::vector<float> v(static_cast<size_t>(n));
    EXPECT_EQ(glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(float)), nullptr);
    return v;
  }

  std::string dir_;
};

TEST_F(DeviceCollectives, EveryCollectiveOnThreeRanks) {
  constexpr int kSize = 3;
  std::vector<std::string> failures(kSize);
  ranks(kSize, [&](int rank) {
    auto expect = [&](bool ok, const std::string& what) {
      if (!ok) failures[static_cast<size_t>(rank)] += what + "; ";
    };
    glia_store* s = store();
    glia_process_group* g = nullptr;
    // Ranks 0 and 2 share testdevice:0, rank 1 is on testdevice:1.
    glia_error* e = group(s, rank, kSize, rank % 2, 10000, &g);
    expect(e == nullptr, std::string("create: ") + (e ? glia_error_message(e) : ""));
    glia_error_free(e);
    if (!g) {
      glia_store_release(s);
      return;
    }
    const float r = static_cast<float>(rank);
    // all_reduce: sum, avg, min, max of [r + 1, 10 r].
    const glia_reduce_op ops[] = {GLIA_REDUCE_SUM, GLIA_REDUCE_AVG, GLIA_REDUCE_MIN, GLIA_REDUCE_MAX};
    const std::vector<std::vector<float>> want = {{6, 30}, {2, 10}, {1, 0}, {3, 20}};
    for (int k = 0; k < 4; ++k) {
      glia_tensor* t = on_device({r + 1, 10 * r}, rank % 2);
      e = glia_process_group_all_reduce(g, t, ops[k], nullptr);
      expect(e == nullptr, "all_reduce");
      glia_error_free(e);
      expect(host(t) == want[static_cast<size_t>(k)], "all_reduce op " + std::to_string(k));
      glia_tensor_release(t);
    }
    // broadcast from rank 1.
    glia_tensor* b = on_device({r, r, r}, rank % 2);
    glia_error_free(glia_process_group_broadcast(g, b, 1, nullptr));
    expect(host(b) == std::vector<float>{1, 1, 1}, "broadcast");
    glia_tensor_release(b);
    // reduce to rank 2: rank 2 gets the sum, the others keep their values.
    glia_tensor* rd = on_device({r + 1}, rank % 2);
    glia_error_free(glia_process_group_reduce(g, rd, 2, GLIA_REDUCE_SUM, nullptr));
    expect(host(rd) == std::vector<float>{rank == 2 ? 6.0f : r + 1}, "reduce");
    glia_tensor_release(rd);
    // all_gather: outputs[k] = rank k's [k, -k].
    std::vector<glia_tensor*> outs;
    for (int k = 0; k < kSize; ++k) outs.push_back(on_device({0, 0}, rank % 2));
    glia_tensor* in = on_device({r, -r}, rank % 2);
    e = glia_process_group_all_gather(g, outs.data(), kSize, in, nullptr);
    expect(e == nullptr, std::string("all_gather: ") + (e ? glia_error_message(e) : ""));
    glia_error_free(e);
    for (int k = 0; k < kSize; ++k) {
      expect(host(outs[static_cast<size_t>(k)]) == std::vector<float>{static_cast<float>(k), -static_cast<float>(k)},
             "all_gather output " + std::to_string(k));
      glia_tensor_release(outs[static_cast<size_t>(k)]);
    }
    glia_tensor_release(in);
    // reduce_scatter: inputs[k] = [10 rank + k]; output = sum over ranks of inputs[rank] = 30 + 3 rank... per rank.
    std::vector<glia_tensor*> ins;
    for (int k = 0; k < kSize; ++k) ins.push_back(on_device({10 * r + static_cast<float>(k)}, rank % 2));
    glia_tensor* out = on_device({-1}, rank % 2);
    e = glia_process_group_reduce_scatter(g, out, ins.data(), kSize, GLIA_REDUCE_SUM, nullptr);
    expect(e == nullptr, std::string("reduce_scatter: ") + (e ? glia_error_message(e) : ""));
    glia_error_free(e);
    expect(host(out) == std::vector<float>{30 + 3 * r}, "reduce_scatter");
    for (glia_tensor* t : ins) glia_tensor_release(t);
    glia_tensor_release(out);
    // An asynchronous all_reduce of a non-contiguous view (the base class stages it), then a barrier.
    glia_tensor* m = on_device({1, 2, 3, 4}, rank % 2);
    glia_tensor *m2 = nullptr, *mt = nullptr;
    const int64_t shape[] = {2, 2};
    glia_error_free(glia_reshape(m, shape, 2, &m2));
    glia_error_free(glia_transpose(m2, 0, 1, &mt));
    glia_work* w = nullptr;
    e = glia_process_group_all_reduce(g, mt, GLIA_REDUCE_SUM, &w);
    expect(e == nullptr && w != nullptr, "async all_reduce");
    glia_error_free(e);
    if (w) {
      e = glia_work_wait(w, -1);
      expect(e == nullptr, "work wait");
      glia_error_free(e);
      glia_work_release(w);
    }
    expect(host(m) == std::vector<float>{3, 6, 9, 12}, "all_reduce of a transposed view");
    glia_tensor_release(mt);
    glia_tensor_release(m2);
    glia_tensor_release(m);
    e = glia_process_group_barrier(g, nullptr);
    expect(e == nullptr, "barrier");
    glia_error_free(e);
    glia_process_group_release(g);
    glia_store_release(s);
  });
  for (int r = 0; r < kSize; ++r) EXPECT_EQ(failures[static_cast<size_t>(r)], "") << "rank " << r;
}

TEST_F(DeviceCollectives, TensorsMustBeOnTheGroupsDevice) {
  std::vector<std::string> msgs(2);
  ranks(2, [&](int rank) {
    glia_store* s = store();
    glia_process_group* g = nullptr;
    glia_error* e = group(s, rank, 2, 0, 10000, &g);
    if (e) {
      msgs[static_cast<size_t>(rank)] = std::string("create failed: ") + glia_error_message(e);
      glia_error_free(e);
      glia_store_release(s);
      return;
    }
    const int64_t n = 2;
    glia_tensor* cpu = nullptr;
    glia_error_free(glia_tensor_zeros(&n, 1, nullptr, &cpu));
    e = glia_process_group_all_reduce(g, cpu, GLIA_REDUCE_SUM, nullptr);
    msgs[static_cast<size_t>(rank)] = e ? std::to_string(glia_error_code(e)) + " " + glia_error_message(e) : "no error";
    glia_error_free(e);
    glia_tensor_release(cpu);
    // The group still works afterwards: a bad argument fails before anything is queued.
    glia_tensor* t = on_device({1}, 0);
    e = glia_process_group_all_reduce(g, t, GLIA_REDUCE_SUM, nullptr);
    if (e) msgs[static_cast<size_t>(rank)] += std::string(" / then: ") + glia_error_message(e);
    glia_error_free(e);
    glia_tensor_release(t);
    glia_process_group_release(g);
    glia_store_release(s);
  });
  for (const std::string& m : msgs)
    EXPECT_EQ(m, std::to_string(GLIA_ERR_DEVICE) +
                     " ProcessGroupTestDevice::allreduce: tensor must be a tensor on testdevice:0 (the group's device) "
                     "for the TestDevice backend, got a tensor on cpu");
}

TEST_F(DeviceCollectives, DefaultDeviceIsRankModuloTheDeviceCount) {
  // Two test devices; device index -1 and no LOCAL_RANK: rank r uses testdevice:(r % 2). Rank 1's tensor on
  // testdevice:1 is accepted, one on testdevice:0 is not.
  ASSERT_EQ(std::getenv("LOCAL_RANK"), nullptr) << "the test assumes LOCAL_RANK is not set";
  std::vector<std::string> got(2);
  ranks(2, [&](int rank) {
    glia_store* s = store();
    glia_process_group* g = nullptr;
    glia_error* e = group(s, rank, 2, -1, 10000, &g);
    if (e) {
      got[static_cast<size_t>(rank)] = glia_error_message(e);
      glia_error_free(e);
      glia_store_release(s);
      return;
    }
    glia_tensor* right = on_device({static_cast<float>(rank)}, rank % 2);
    e = glia_process_group_all_reduce(g, right, GLIA_REDUCE_SUM, nullptr);
    got[static_cast<size_t>(rank)] = e ? glia_error_message(e) : std::to_string(host(right)[0]);
    glia_error_free(e);
    glia_tensor_release(right);
    glia_process_group_release(g);
    glia_store_release(s);
  });
  EXPECT_EQ(got[0], "1.000000");
  EXPECT_EQ(got[1], "1.000000");
}

TEST_F(DeviceCollectives, ARankThatSkipsACollectiveTimesOutTheOthers) {
  std::string msg0, later0, rank1;
  ranks(2, [&](int rank) {
    glia_store* s = store();
    glia_process_group* g = nullptr;
    glia_error* e = group(s, rank, 2, rank, 300, &g);
    if (e) {
      (rank ? rank1 : msg0) = std::string("create failed: ") + glia_error_message(e);
      glia_error_free(e);
      glia_store_release(s);
      return;
    }
    if (rank == 0) {
      glia_tensor* t = on_device({1}, 0);
      e = glia_process_group_all_reduce(g, t, GLIA_REDUCE_SUM, nullptr);
      msg0 = e ? std::to_string(glia_error_code(e)) + " " + glia_error_message(e) : "no error";
      glia_error_free(e);
      // The group is broken now: later collectives fail at once, saying why.
      e = glia_process_group_barrier(g, nullptr);
      later0 = e ? glia_error_message(e) : "no error";
      glia_error_free(e);
      glia_tensor_release(t);
    }
    glia_process_group_release(g);
    glia_store_release(s);
  });
  EXPECT_EQ(rank1, "");
  EXPECT_EQ(msg0, std::to_string(GLIA_ERR_IO) +
                      " ProcessGroupTestDevice::allreduce failed on rank 0 of 2: testdevice: collectives: all_reduce "
                      "timed out after 300 ms waiting for rank(s) 1");
  EXPECT_NE(later0.find("ProcessGroupTestDevice::barrier failed on rank 0 of 2: an earlier collective failed"),
            std::string::npos)
      << later0;
}

TEST_F(DeviceCollectives, ARankThatNeverJoinsFailsCreationWithinTheTimeout) {
  glia_store* s = store();
  glia_process_group* g = nullptr;
  EXPECT_GLIA_MSG(group(s, 0, 2, 0, 200, &g), GLIA_ERR_IO,
                  "ProcessGroupDevice: rank 0 of 2 could not join the communicator on testdevice:0: testdevice: "
                  "comm_init timed out after 200 ms: 1 of 2 ranks joined");
  EXPECT_EQ(g, nullptr);
  glia_store_release(s);
}

TEST_F(DeviceCollectives, OptionsAreChecked) {
  glia_store* s = store();
  glia_process_group_options o;
  glia_process_group_options_init(&o);
  EXPECT_EQ(o.device.type, GLIA_CUDA);
  EXPECT_EQ(o.device.index, -1);
  o.backend = GLIA_DIST_BACKEND_NCCL;
  o.device = kCpu;
  glia_process_group* g = nullptr;
  EXPECT_GLIA_MSG(glia_process_group_create(s, 0, 1, &o, &g), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_process_group_create: options->device must be a CUDA or PrivateUse1 device for the NCCL "
                  "backend, got device type 0");
  o.device = glia_device{GLIA_PRIVATEUSE1, -2};
  EXPECT_GLIA_MSG(glia_process_group_create(s, 0, 1, &o, &g), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_process_group_create: options->device.index is -2, expected -1 (LOCAL_RANK) or a device index");
  o.device = glia_device{GLIA_PRIVATEUSE1, 5};
  EXPECT_GLIA_MSG(glia_process_group_create(s, 0, 1, &o, &g), GLIA_ERR_DEVICE,
                  "ProcessGroupDevice: rank 0: device testdevice:5 does not exist (2 testdevice devices)");
  EXPECT_EQ(g, nullptr);
  glia_store_release(s);
}

TEST_F(DeviceCollectives, NcclWithoutAGpuExchangesTheIdThenSaysWhy) {
  if (glia_cuda_device_count() > 0) GTEST_SKIP() << "skipped: a CUDA device is present (the GPU check covers NCCL)";
  int32_t count = 0;
  char why[512] = "";
  size_t len = 0;
  glia_error_free(glia_backend_status(GLIA_CUDA, &count, why, sizeof why, &len));
  std::vector<std::string> msgs(2);
  ranks(2, [&](int rank) {
    glia_store* s = store();
    glia_process_group_options o;
    glia_process_group_options_init(&o);
    o.backend = GLIA_DIST_BACKEND_NCCL;
    o.timeout_ms = 10000;
    glia_process_group* g = nullptr;
    glia_error* e = glia_process_group_create(s, rank, 2, &o, &g);
    msgs[static_cast<size_t>(rank)] = e ? std::to_string(glia_error_code(e)) + " " + glia_error_message(e) : "created";
    glia_error_free(e);
    glia_process_group_release(g);
    glia_store_release(s);
  });
  const std::string status = why;
  if (status.rfind("cannot load libglia_cuda.so.0", 0) == 0) {
    // No CUDA backend in this build or on this machine: the group says so before any rendezvous.
    for (int r = 0; r < 2; ++r)
      EXPECT_EQ(msgs[static_cast<size_t>(r)], std::to_string(GLIA_ERR_DEVICE) + " ProcessGroupNCCL: rank " +
                                                  std::to_string(r) + ": no backend for cuda devices (" + status + ")");
    return;
  }
  // The CUDA backend loads (no driver or no device): rank 0 made NCCL's unique id and the store holds it for
  // rank 1; then each rank fails, naming the missing device.
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(msgs[static_cast<size_t>(r)], std::to_string(GLIA_ERR_DEVICE) + " ProcessGroupNCCL: rank " +
                                                std::to_string(r) + " of 2 has no usable cuda device (" + status + ")");
  glia_store* s = store();
  ASSERT_EQ(glia_store_set_timeout(s, 1000), nullptr);
  size_t id_len = 0;
  glia_error* e = glia_store_get(s, "default/nccl/unique_id", nullptr, 0, &id_len);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  EXPECT_EQ(id_len, 128u) << "NCCL's ncclUniqueId is 128 bytes";
  glia_store_release(s);
}

}  // namespace

namespace {

// DistributedDataParallel over device tensors: two ranks (threads) on testdevice:0 and :1, each training on half
// of a batch, must end where one CPU model trained on the whole batch ends (DDP averages the two half-batch
// gradients, which is the whole batch's mean-loss gradient).
glia_module* small_model() {
  glia_module *a = nullptr, *r = nullptr, *b = nullptr, *seq = nullptr;
  EXPECT_EQ(glia_nn_linear(4, 3, 1, nullptr, &a), nullptr);
  EXPECT_EQ(glia_nn_relu(nullptr, &r), nullptr);
  EXPECT_EQ(glia_nn_linear(3, 2, 1, nullptr, &b), nullptr);
  glia_module* mods[] = {a, r, b};
  EXPECT_EQ(glia_nn_sequential(mods, 3, &seq), nullptr);
  for (glia_module* m : mods) glia_module_release(m);
  return seq;
}

std::vector<float> flat_parameters(glia_module* m) {
  glia_tensor_dict* d = nullptr;
  EXPECT_EQ(glia_module_named_parameters(m, nullptr, 1, 1, &d), nullptr);
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_dict_size(d, &n), nullptr);
  std::vector<float> out;
  const glia_device cpu{GLIA_CPU, 0};
  for (int64_t i = 0; i < n; ++i) {
    glia_tensor *p = nullptr, *h = nullptr;
    EXPECT_EQ(glia_tensor_dict_value_at(d, i, &p), nullptr);
    EXPECT_EQ(glia_tensor_to(p, &cpu, nullptr, &h), nullptr);
    int64_t k = 0;
    EXPECT_EQ(glia_tensor_numel(h, &k), nullptr);
    std::vector<float> v(static_cast<size_t>(k));
    EXPECT_EQ(glia_tensor_copy_to_host(h, v.data(), v.size() * sizeof(float)), nullptr);
    out.insert(out.end(), v.begin(), v.end());
    glia_tensor_release(h);
    glia_tensor_release(p);
  }
  glia_tensor_dict_release(d);
  return out;
}

// `steps` SGD steps (lr 0.1) of mse(model(x), y) with model, x and y on `dev`.
std::string train(glia_module* model, glia_module* params_of, const std::vector<float>& x, const std::vector<float>& y,
                  int64_t rows, glia_device dev, int steps) {
  std::string err;
  auto ok = [&](glia_error* e) {
    if (e && err.empty()) err = glia_error_message(e);
    glia_error_free(e);
  };
  const int64_t xs[] = {rows, 4}, ys[] = {rows, 2};
  glia_tensor *hx = nullptr, *hy = nullptr, *dx = nullptr, *dy = nullptr;
  ok(glia_tensor_from_data(x.data(), x.size() * sizeof(float), xs, 2, GLIA_FLOAT32, &hx));
  ok(glia_tensor_from_data(y.data(), y.size() * sizeof(float), ys, 2, GLIA_FLOAT32, &hy));
  ok(glia_tensor_to(hx, &dev, nullptr, &dx));
  ok(glia_tensor_to(hy, &dev, nullptr, &dy));
  glia_tensor_dict* d = nullptr;
  ok(glia_module_named_parameters(params_of, nullptr, 1, 1, &d));
  int64_t n = 0;
  ok(glia_tensor_dict_size(d, &n));
  std::vector<glia_tensor*> ps(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ok(glia_tensor_dict_value_at(d, i, &ps[static_cast<size_t>(i)]));
  glia_tensor_dict_release(d);
  glia_sgd_options so;
  glia_sgd_options_init(&so);
  so.lr = 0.1;
  glia_optimizer* opt = nullptr;
  ok(glia_optim_sgd(ps.data(), n, &so, &opt));
  glia_module* loss_fn = nullptr;
  ok(glia_nn_mse_loss(GLIA_REDUCTION_MEAN, nullptr, &loss_fn));
  for (int s = 0; s < steps && err.empty(); ++s) {
    glia_tensor *out = nullptr, *loss = nullptr;
    int64_t k = 0;
    ok(glia_module_forward(model, &dx, 1, &out, 1, &k));
    const glia_tensor* in[] = {out, dy};
    ok(glia_module_forward(loss_fn, in, 2, &loss, 1, &k));
    ok(glia_optimizer_zero_grad(opt, 1));
    ok(glia_tensor_backward(loss, nullptr, 0));
    ok(glia_optimizer_step(opt));
    glia_tensor_release(out);
    glia_tensor_release(loss);
  }
  for (glia_tensor* p : ps) glia_tensor_release(p);
  glia_optimizer_release(opt);
  glia_module_release(loss_fn);
  for (glia_tensor* t : {hx, hy, dx, dy}) glia_tensor_release(t);
  return err;
}

TEST_F(DeviceCollectives, DdpOverDeviceTensorsMatchesOneProcessOnTheWholeBatch) {
  constexpr int kSteps = 4;
  std::vector<float> x(8 * 4), y(8 * 2);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37 % 17)) / 8.0f - 1.0f;
  for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>((i * 11 % 7)) / 4.0f - 0.5f;
  // The reference: one CPU model, the whole batch.
  glia_manual_seed(7);
  glia_module* ref = small_model();
  ASSERT_EQ(train(ref, ref, x, y, 8, kCpu, kSteps), "");
  const std::vector<float> want = flat_parameters(ref);
  glia_module_release(ref);
  // The ranks: the same initial weights, rank r on testdevice:r with rows [4r, 4r + 4).
  glia_module* models[2];
  for (int r = 0; r < 2; ++r) {
    glia_manual_seed(7);
    models[r] = small_model();
    const glia_device dev{GLIA_PRIVATEUSE1, r};
    ASSERT_EQ(glia_module_to(models[r], &dev, nullptr), nullptr);
  }
  std::vector<std::string> errs(2);
  std::vector<std::vector<float>> got(2);
  ranks(2, [&](int rank) {
    glia_store* s = store();
    glia_process_group* g = nullptr;
    glia_error* e = group(s, rank, 2, rank, 10000, &g);
    if (e) {
      errs[static_cast<size_t>(rank)] = glia_error_message(e);
      glia_error_free(e);
      glia_store_release(s);
      return;
    }
    glia_ddp_options o;
    glia_ddp_options_init(&o);
    o.bucket_cap_mb = 0.00001;  // several buckets
    glia_module* ddp = nullptr;
    e = glia_nn_distributed_data_parallel(models[rank], g, &o, &ddp);
    if (e) {
      errs[static_cast<size_t>(rank)] = glia_error_message(e);
      glia_error_free(e);
    } else {
      std::vector<float> xr(x.begin() + rank * 16, x.begin() + rank * 16 + 16);
      std::vector<float> yr(y.begin() + rank * 8, y.begin() + rank * 8 + 8);
      errs[static_cast<size_t>(rank)] =
          train(ddp, models[rank], xr, yr, 4, glia_device{GLIA_PRIVATEUSE1, rank}, kSteps);
      got[static_cast<size_t>(rank)] = flat_parameters(models[rank]);
      glia_module_release(ddp);
    }
    glia_process_group_release(g);
    glia_store_release(s);
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(errs[static_cast<size_t>(r)], "") << "rank " << r;
    ASSERT_EQ(got[static_cast<size_t>(r)].size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[static_cast<size_t>(r)][i], want[i], 1e-6) << "rank " << r << ", parameter value " << i;
    glia_module_release(models[r]);
  }
  // Both ranks hold the same parameters, bit for bit.
  EXPECT_EQ(got[0], got[1]);
}

// SyncBatchNorm over a device process group: two ranks (threads) on testdevice:0 and :1, the module moved to
// the rank's device, each with 3 of 6 rows (also 2 and 4, and 6 and none: the ranks' counts weigh); outputs, input
// gradients, the weight and bias gradients summed over the ranks and the running statistics after two steps equal
// (float64: 1e-9) to BatchNorm1d on the whole batch on the CPU, as tests/distributed/sync_batch_norm_test.cpp checks
// over Gloo.
constexpr int64_t kSbnRows = 6, kSbnC = 4, kSbnL = 5;  // the whole batch's rows

// `v` as a tensor of `dtype` on `dev` (NULL: the CPU).
glia_tensor* f64(const std::vector<double>& v, std::vector<int64_t> shape, const glia_device* dev = nullptr,
                 glia_dtype dtype = GLIA_FLOAT64) {
  glia_tensor *h = nullptr, *d = nullptr;
  EXPECT_EQ(glia_tensor_from_data(v.data(), v.size() * sizeof(double), shape.data(), static_cast<int64_t>(shape.size()),
                                  GLIA_FLOAT64, &h),
            nullptr);
  if (!dev && dtype == GLIA_FLOAT64) return h;
  EXPECT_EQ(glia_tensor_to(h, dev, &dtype, &d), nullptr);
  glia_tensor_release(h);
  return d;
}

std::vector<double> host64(const glia_tensor* t) {
  const glia_device cpu{GLIA_CPU, 0};
  const glia_dtype f64 = GLIA_FLOAT64;
  glia_tensor* h = nullptr;
  EXPECT_EQ(glia_tensor_to(t, &cpu, &f64, &h), nullptr);
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_numel(h, &n), nullptr);
  std::vector<double> v(static_cast<size_t>(n));
  EXPECT_EQ(glia_tensor_copy_to_host(h, v.data(), v.size() * sizeof(double)), nullptr);
  glia_tensor_release(h);
  return v;
}

// "" when a and b agree within tol (relative to 1 + |b|), else where they first differ.
std::string differ(const std::vector<double>& a, const std::vector<double>& b, double tol, const std::string& what) {
  if (a.size() != b.size())
    return what + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " values";
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - b[i]) <= tol * (1 + std::abs(b[i]))))
      return what + "[" + std::to_string(i) + "]: " + std::to_string(a[i]) + " vs " + std::to_string(b[i]);
  return "";
}

// One SyncBatchNorm rank on testdevice:`rank`; "" when everything matches the CPU reference.
std::string sync_batch_norm_rank(int rank, glia_process_group* g, glia_dtype dtype = GLIA_FLOAT64, double offset = 0,
                                 double tol = 1e-9, int64_t rows0 = kSbnRows / 2) {
  std::string err;
  auto ok = [&](glia_error* e) {
    if (e && err.empty()) err = glia_error_message(e);
    glia_error_free(e);
    return err.empty();
  };
  auto check = [&](const std::string& d) {
    if (!d.empty() && err.empty()) err = d;
  };
  const glia_device dev{GLIA_PRIVATEUSE1, rank};
  const int64_t rows = kSbnRows, per = kSbnC * kSbnL;
  std::vector<double> xs(static_cast<size_t>(rows * per)), ws(xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = offset + 2 * std::sin(0.37 * static_cast<double>(i) + 0.1),
    ws[i] = std::sin(0.11 * static_cast<double>(i) + 2);
  glia_batch_norm_options o;
  glia_batch_norm_options_init(&o);
  o.momentum = 0.3;
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = dtype;
  glia_module *ref = nullptr, *sbn = nullptr;
  if (!ok(glia_nn_batch_norm1d(kSbnC, &o, &f, &ref)) || !ok(glia_nn_sync_batch_norm(kSbnC, &o, g, &f, &sbn)))
    return err;
  std::vector<double> wv(kSbnC), bv(kSbnC);
  for (int64_t c = 0; c < kSbnC; ++c) wv[c] = 0.5 + std::sin(1.3 * c + 0.2), bv[c] = std::sin(0.7 * c + 1.0);
  glia_grad_mode_set(0);
  for (glia_module* m : {ref, sbn})
    for (const char* name : {"weight", "bias"}) {
      glia_tensor *p = nullptr, *v = f64(name[0] == 'w' ? wv : bv, {kSbnC}, nullptr, dtype);
      ok(glia_module_get_parameter(m, name, &p));
      ok(glia_copy_(p, v));
      glia_tensor_release(p);
      glia_tensor_release(v);
    }
  glia_grad_mode_set(1);
  ok(glia_module_to(sbn, &dev, nullptr));
  const int64_t mine = rank == 0 ? rows0 : rows - rows0;
  const size_t lo = static_cast<size_t>(rank == 0 ? 0 : rows0 * per), hi = lo + static_cast<size_t>(mine * per);
  glia_tensor* x_full = f64(xs, {rows, kSbnC, kSbnL}, nullptr, dtype);
  glia_tensor* w_full = f64(ws, {rows, kSbnC, kSbnL}, nullptr, dtype);
  glia_tensor* x = f64(std::vector<double>(xs.begin() + lo, xs.begin() + hi), {mine, kSbnC, kSbnL}, &dev, dtype);
  glia_tensor* w = f64(std::vector<double>(ws.begin() + lo, ws.begin() + hi), {mine, kSbnC, kSbnL}, &dev, dtype);
  ok(glia_tensor_set_requires_grad(x_full, 1));
  ok(glia_tensor_set_requires_grad(x, 1));
  // forward, loss = sum(y * w), backward; y as host values.
  auto step = [&](glia_module* m, glia_tensor* in, glia_tensor* wt, std::vector<double>* y_out) {
    glia_tensor *y = nullptr, *prod = nullptr, *loss = nullptr;
    int64_t n = 0;
    if (ok(glia_module_forward(m, &in, 1, &y, 1, &n)) && ok(glia_mul(y, wt, &prod)) &&
        ok(glia_sum(prod, nullptr, 0, 0, &loss)) && ok(glia_tensor_backward(loss, nullptr, 0)))
      *y_out = host64(y);
    for (glia_tensor* t : {y, prod, loss}) glia_tensor_release(t);
    return err.empty();
  };
  std::vector<double> y_ref, y;
  if (step(ref, x_full, w_full, &y_ref) && step(sbn, x, w, &y)) {
    check(differ(y, std::vector<double>(y_ref.begin() + lo, y_ref.begin() + hi), tol, "output"));
    glia_tensor *gx = nullptr, *gx_full = nullptr;
    ok(glia_tensor_grad(x, &gx));
    ok(glia_tensor_grad(x_full, &gx_full));
    if (gx && gx_full) {
      std::vector<double> full = host64(gx_full);
      check(differ(host64(gx), std::vector<double>(full.begin() + lo, full.begin() + hi), tol, "input gradient"));
    } else {
      check("no input gradient");
    }
    glia_tensor_release(gx);
    glia_tensor_release(gx_full);
    for (const char* name : {"weight", "bias"}) {
      glia_tensor *p = nullptr, *gp = nullptr, *g64 = nullptr, *pr = nullptr, *gpr = nullptr;
      const glia_dtype wide = GLIA_FLOAT64;  // the test device's collectives take no 16-bit floats
      if (ok(glia_module_get_parameter(sbn, name, &p)) && ok(glia_tensor_grad(p, &gp)) &&
          ok(glia_tensor_to(gp, nullptr, &wide, &g64)) &&
          ok(glia_process_group_all_reduce(g, g64, GLIA_REDUCE_SUM, nullptr)) &&  // this rank's share, summed
          ok(glia_module_get_parameter(ref, name, &pr)) && ok(glia_tensor_grad(pr, &gpr)))
        check(differ(host64(g64), host64(gpr), tol, std::string(name) + " gradient"));
      for (glia_tensor* t : {p, gp, g64, pr, gpr}) glia_tensor_release(t);
    }
  }
  // A second step, then the running statistics.
  if (err.empty() && step(ref, x_full, w_full, &y_ref) && step(sbn, x, w, &y)) {
    for (const char* name : {"running_mean", "running_var"}) {
      glia_tensor *a = nullptr, *b = nullptr;
      if (ok(glia_module_get_buffer(sbn, name, &a)) && ok(glia_module_get_buffer(ref, name, &b)))
        check(differ(host64(a), host64(b), tol, name));
      glia_tensor_release(a);
      glia_tensor_release(b);
    }
    glia_tensor *nbt = nullptr, *h = nullptr;
    const glia_device cpu{GLIA_CPU, 0};
    int64_t steps = 0;
    if (ok(glia_module_get_buffer(sbn, "num_batches_tracked", &nbt)) && ok(glia_tensor_to(nbt, &cpu, nullptr, &h)) &&
        ok(glia_tensor_copy_to_host(h, &steps, sizeof(steps))) && steps != 2)
      check("num_batches_tracked is " + std::to_string(steps) + ", expected 2");
    glia_tensor_release(nbt);
    glia_tensor_release(h);
  }
  for (glia_tensor* t : {x_full, w_full, x, w}) glia_tensor_release(t);
  glia_module_release(ref);
  glia_module_release(sbn);
  return err;
}

// float64 to 1e-9; float32, float16 and bfloat16 to their precision, also for data far from zero (a mean of
// 1000 in float32, 60 in the 16-bit types, whose sums of squares over the batch pass float16's largest value):
// the statistics are a mean and squared deviations per rank, in float for 16-bit inputs.
TEST_F(DeviceCollectives, SyncBatchNormMatchesBatchNormOnTheWholeBatch) {
  struct Case {
    const char* name;
    glia_dtype dtype;
    double offset, tol;
    int64_t rows0 = kSbnRows / 2;  // rank 0's rows; rank 1 has the others
  };
  const Case cases[] = {{"float64", GLIA_FLOAT64, 0, 1e-9},
                        {"float64, 2 and 4 rows", GLIA_FLOAT64, 0, 1e-9, 2},
                        {"float64, rank 1 without rows", GLIA_FLOAT64, 0, 1e-9, kSbnRows},
                        {"float32", GLIA_FLOAT32, 0, 1e-5},
                        {"float32 + 1000", GLIA_FLOAT32, 1000, 2e-4},
                        {"float16", GLIA_FLOAT16, 0, 2e-2},
                        {"float16 + 60", GLIA_FLOAT16, 60, 2e-2},
                        {"bfloat16 + 60", GLIA_BFLOAT16, 60, 5e-2}};
  std::vector<std::string> errs(2);
  ranks(2, [&](int rank) {
    glia_store* s = store();
    glia_process_group* g = nullptr;
    glia_error* e = group(s, rank, 2, rank, 10000, &g);
    if (e) {
      errs[static_cast<size_t>(rank)] = glia_error_message(e);
      glia_error_free(e);
    } else {
      for (const Case& c : cases) {
        std::string err = sync_batch_norm_rank(rank, g, c.dtype, c.offset, c.tol, c.rows0);
        if (!err.empty()) errs[static_cast<size_t>(rank)] += std::string(c.name) + ": " + err + "; ";
      }
      glia_process_group_release(g);
    }
    glia_store_release(s);
  });
  for (int r = 0; r < 2; ++r) EXPECT_EQ(errs[static_cast<size_t>(r)], "") << "rank " << r;
}

}  // namespace
