// Tests of the distributed wrappers of include/glia/glia.hpp (glia::dist, nn::DistributedDataParallel,
// nn::SyncBatchNorm, nn::DataParallel): world size 2 as two threads of this process, each with its
// own store and process group (Gloo runs several ranks in one process), on 127.0.0.1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "glia/glia.hpp"

namespace {

using glia::Tensor;
using glia::dist::ProcessGroup;
using glia::dist::ReduceOp;
using glia::dist::Store;

#define REQUIRE_GLOO() \
  if (!glia::dist::is_gloo_available()) GTEST_SKIP() << "glia was built without Gloo (libgloo-dev): not tested"

// A fresh directory under $TMPDIR, removed with its files by the destructor.
struct TempDir {
  std::string path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string t = std::string(base && *base ? base : "/tmp") + "/glia-cpp-dist-XXXXXX";
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data())) path = buf.data();
  }
  ~TempDir() {
    if (!path.empty()) std::system(("rm -rf '" + path + "'").c_str());
  }
  std::string file(const std::string& name) const { return path + "/" + name; }
};

// Runs body(rank) on two threads; an exception in one fails the test with its message.
void run_two(const std::function<void(int)>& body) {
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      try {
        body(r);
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(r)] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < 2; ++r) EXPECT_EQ(errors[static_cast<size_t>(r)], "") << "rank " << r;
}

// Each rank's group over a file store in `dir`.
ProcessGroup group_of(const TempDir& dir, int rank) {
  Store store = Store::file(dir.file("store"), 2);
  glia::dist::ProcessGroupOptions o;
  o.hostname = "127.0.0.1";
  o.timeout_ms = 60000;
  return ProcessGroup::create(store, rank, 2, o);
}

TEST(Dist, CollectivesOfTwoRanks) {
  REQUIRE_GLOO();
  TempDir dir;
  run_two([&](int rank) {
    ProcessGroup g = group_of(dir, rank);
    EXPECT_EQ(g.rank(), rank);
    EXPECT_EQ(g.size(), 2);
    const float r = static_cast<float>(rank);

    Tensor t = Tensor::from_vector<float>({r + 1, 10 * (r + 1), -r});
    g.all_reduce(t);
    EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{3, 30, -1}));
    t = Tensor::from_vector<float>({r + 1, 10 * (r + 1), -r});
    g.all_reduce(t, ReduceOp::AVG);
    EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1.5f, 15, -0.5f}));
    t = Tensor::from_vector<float>({r + 1, 10 * (r + 1), -r});
    g.all_reduce(t, ReduceOp::MAX);
    EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{2, 20, 0}));
    Tensor i = Tensor::from_vector<int64_t>({rank + 2, rank + 3});
    g.all_reduce(i, ReduceOp::PRODUCT);
    EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{6, 12}));

    Tensor b = Tensor::full({2}, 7 + r);
    g.broadcast(b, 1);
    EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{8, 8}));

    Tensor red = Tensor::from_vector<float>({r, r + 1});
    g.reduce(red, 0, ReduceOp::SUM);
    EXPECT_EQ(red.to_vector<float>(), rank == 0 ? (std::vector<float>{1, 3}) : (std::vector<float>{1, 2}));

    std::vector<Tensor> gathered{Tensor::zeros({2}), Tensor::zeros({2})};
    g.all_gather(gathered, Tensor::from_vector<float>({r, r + 0.5f}));
    EXPECT_EQ(gathered[0].to_vector<float>(), (std::vector<float>{0, 0.5f}));
    EXPECT_EQ(gathered[1].to_vector<float>(), (std::vector<float>{1, 1.5f}));

    Tensor out = Tensor::zeros({2});
    g.reduce_scatter(out, {Tensor::full({2}, 1 + r), Tensor::full({2}, 10 * (1 + r))});
    EXPECT_EQ(out.to_vector<float>(), rank == 0 ? (std::vector<float>{3, 3}) : (std::vector<float>{30, 30}));

    g.barrier();

    // async_op=True: a Work to wait on
    Tensor a = Tensor::from_vector<float>({r, 2 * r});
    glia::dist::Work w = g.all_reduce_async(a, ReduceOp::SUM);
    w.wait(30000);
    EXPECT_TRUE(w.is_completed());
    EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2}));
    glia::dist::Work bw = g.barrier_async();
    bw.wait();
    EXPECT_TRUE(bw.is_completed());

    // argument errors are thrown at once and change nothing
    Tensor wrong = Tensor::zeros({3});
    try {
      g.all_gather({Tensor::zeros({2}), Tensor::zeros({2})}, wrong);
      ADD_FAILURE() << "all_gather with a wrong shape did not throw";
    } catch (const glia::Error& e) {
      EXPECT_EQ(e.code(), GLIA_ERR_SHAPE);
      EXPECT_EQ(e.message(), "ProcessGroupGloo::allgather: invalid tensor size at index 0 (expected [3], got [2])");
    }
    g.barrier();
  });
}

TEST(Dist, StoresTcpOnPortZeroFileAndPrefix) {
  Store server = Store::tcp("127.0.0.1", 0, true, 20000);
  const int32_t port = server.port();
  EXPECT_GT(port, 0);
  Store client = Store::tcp("127.0.0.1", port, false, 20000);
  EXPECT_EQ(client.port(), port);

  server.set("k", std::string("v\0w", 3));
  EXPECT_EQ(client.get("k"), std::string("v\0w", 3));
  EXPECT_EQ(client.add("n", 2), 2);
  EXPECT_EQ(server.add("n", 3), 5);
  EXPECT_EQ(client.get("n"), "5");
  EXPECT_EQ(client.compare_set("n", "4", "9"), "5");  // not the expected value: unchanged
  EXPECT_EQ(client.compare_set("n", "5", "9"), "9");
  EXPECT_EQ(client.compare_set("fresh", "", "x"), "x");
  const std::string big(1000, 'b');  // longer than the first read's buffer
  client.set("big", big);
  EXPECT_EQ(server.get("big"), big);
  EXPECT_TRUE(server.check({"k", "n"}));
  EXPECT_FALSE(server.check({"k", "absent"}));
  EXPECT_EQ(server.num_keys(), 4);
  EXPECT_TRUE(client.delete_key("big"));
  EXPECT_FALSE(client.delete_key("big"));
  EXPECT_EQ(server.num_keys(), 3);

  Store prefixed = Store::prefix("run1", client);
  prefixed.set("a", "1");
  EXPECT_EQ(server.get("run1/a"), "1");
  EXPECT_EQ(prefixed.get("a"), "1");
  prefixed.wait({"a"}, 1000);

  // wait and get time out with GLIA_ERR_IO naming the keys
  try {
    client.wait({"k", "never"}, 100);
    ADD_FAILURE() << "wait did not time out";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_IO);
    EXPECT_EQ(e.message(), "TCPStore: timed out after 100 ms waiting for keys [never] (server 127.0.0.1:" +
                               std::to_string(port) + ")");
  }
  client.set_timeout(100);
  try {
    client.get("never");
    ADD_FAILURE() << "get did not time out";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_IO);
    EXPECT_EQ(e.message(), "TCPStore: timed out after 100 ms waiting for keys [never] (server 127.0.0.1:" +
                               std::to_string(port) + ")");
  }
  try {
    client.add("k", 1);
    ADD_FAILURE() << "add on a value that is not an integer did not throw";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_INVALID_ARGUMENT);
  }

  TempDir dir;
  Store file = Store::file(dir.file("fs"), 1);
  file.set("x", "y");
  EXPECT_EQ(file.get("x"), "y");
  try {
    file.wait({"z"}, 50);
    ADD_FAILURE() << "wait did not time out";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_IO);
    EXPECT_EQ(e.message(), "FileStore: timed out after 50 ms waiting for keys [z] in '" + dir.file("fs") + "'");
  }
  try {
    file.port();
    ADD_FAILURE() << "port() of a file store did not throw";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_INVALID_ARGUMENT);
  }
  try {
    Store::tcp("127.0.0.1", 0, false, 1000);
    ADD_FAILURE() << "a client on port 0 did not throw";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_INVALID_ARGUMENT);
  }
}

TEST(Dist, ProcessGroupOverTcpStoreWithQueriedPort) {
  REQUIRE_GLOO();
  Store server = Store::tcp("127.0.0.1", 0, true, 20000);
  const int32_t port = server.port();
  run_two([&](int rank) {
    Store s = rank == 0 ? server : Store::tcp("127.0.0.1", port, false, 20000);
    glia::dist::ProcessGroupOptions o;
    o.hostname = "127.0.0.1";
    o.group_name = "tcp_group";
    ProcessGroup g = ProcessGroup::create(s, rank, 2, o);
    Tensor t = Tensor::full({3}, rank + 1.0);
    g.all_reduce(t, ReduceOp::MIN);
    EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 1, 1}));
  });
}

TEST(Dist, ProcessGroupFromEnv) {
  REQUIRE_GLOO();
  if (std::getenv("MASTER_ADDR")) GTEST_SKIP() << "MASTER_ADDR is set: env:// not tested";
  try {
    ProcessGroup::from_env();
    ADD_FAILURE() << "from_env without MASTER_ADDR did not throw";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(e.message(),
              "glia_process_group_create_from_env: environment variable MASTER_ADDR expected, but not set");
  }
  int32_t port = 0;
  {
    Store probe = Store::tcp("127.0.0.1", 0, true, 5000);  // a free port, released at once
    port = probe.port();
  }
  ::setenv("MASTER_ADDR", "127.0.0.1", 1);
  ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
  ::setenv("RANK", "0", 1);
  ::setenv("WORLD_SIZE", "1", 1);
  glia::dist::ProcessGroupOptions o;
  o.hostname = "127.0.0.1";
  try {
    ProcessGroup g = ProcessGroup::from_env(o);
    EXPECT_EQ(g.rank(), 0);
    EXPECT_EQ(g.size(), 1);
    Tensor t = Tensor::from_vector<float>({1, 2});
    g.all_reduce(t);
    EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 2}));
  } catch (const glia::Error& e) {
    ADD_FAILURE() << e.what();
  }
  for (const char* v : {"MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"}) ::unsetenv(v);
}

// A Linear(3, 2) with fixed parameters, the same on every rank.
glia::Module fixed_linear() {
  glia::Module m = glia::nn::Linear(3, 2);
  glia::NoGradGuard no_grad;
  m.parameter("weight").copy_(Tensor::from_vector<float>({0.1f, -0.2f, 0.3f, 0.4f, 0.5f, -0.6f}, {2, 3}));
  m.parameter("bias").copy_(Tensor::from_vector<float>({0.05f, -0.05f}));
  return m;
}

// 8 rows of input and target; rank r's shard is rows [4r, 4r + 4).
const std::vector<float> kX = {0.1f, 0.2f,  0.3f, -1,   0.5f, 2,    0.7f,  0.8f, -0.9f, 1,    1.1f, 1.2f,
                               1.3f, -1.4f, 1.5f, 1.6f, 1.7f, 1.8f, -1.9f, 2,    2.1f,  2.2f, 2.3f, -2.4f};
const std::vector<float> kY = {1, 0, 0, 1, 1, 1, -1, 0, 0.5f, 0.5f, 2, -1, 0, 0, 1, -2};

Tensor rows(const std::vector<float>& v, int64_t width, int64_t start, int64_t n) {
  std::vector<float> part(v.begin() + start * width, v.begin() + (start + n) * width);
  return Tensor::from_vector(part, {n, width});
}

void sgd_steps(glia::Module& model, const Tensor& x, const Tensor& y, int steps) {
  glia::Optimizer opt = glia::optim::SGD(model.parameters(), 0.1);
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    Tensor loss = glia::F::mse_loss(model(x), y);
    loss.backward();
    opt.step();
  }
}

TEST(Dist, DistributedDataParallelMatchesOneProcessOnTheWholeBatch) {
  REQUIRE_GLOO();
  glia::Module reference = fixed_linear();
  sgd_steps(reference, rows(kX, 3, 0, 8), rows(kY, 2, 0, 8), 3);
  const std::vector<float> ref_w = reference.parameter("weight").to_vector<float>();
  const std::vector<float> ref_b = reference.parameter("bias").to_vector<float>();

  TempDir dir;
  std::vector<std::vector<float>> weights(2), biases(2);
  run_two([&](int rank) {
    ProcessGroup g = group_of(dir, rank);
    glia::Module model = fixed_linear();
    if (rank == 1) {  // DDP broadcasts rank 0's parameters
      glia::NoGradGuard no_grad;
      model.parameter("weight").fill_(5);
    }
    glia::nn::DDPOptions o;
    o.bucket_cap_mb = 1;
    glia::nn::DistributedDataParallel ddp(model, g, o);
    EXPECT_EQ(ddp.type_name(), "DistributedDataParallel");
    EXPECT_EQ(ddp.parameter("module.weight").to_vector<float>(), model.parameter("weight").to_vector<float>());
    EXPECT_EQ(ddp.bucket_count(), 1);
    EXPECT_EQ(ddp.bucket_parameters(0), (std::vector<int64_t>{0, 1}));
    try {
      ddp.bucket_parameters(1);
      ADD_FAILURE() << "bucket 1 of 1 did not throw";
    } catch (const glia::Error& e) {
      EXPECT_EQ(e.code(), GLIA_ERR_INVALID_ARGUMENT);
      EXPECT_EQ(e.message(), "glia_ddp_bucket_parameters: bucket_index 1 is out of range for 1 buckets");
    }
    glia::Module as_module = ddp;
    sgd_steps(as_module, rows(kX, 3, 4 * rank, 4), rows(kY, 2, 4 * rank, 4), 3);
    weights[static_cast<size_t>(rank)] = model.parameter("weight").to_vector<float>();
    biases[static_cast<size_t>(rank)] = model.parameter("bias").to_vector<float>();

    // no_sync(): local gradients only, different on the two ranks; synchronised again after the guard
    Tensor x = rows(kX, 3, 4 * rank, 4), y = rows(kY, 2, 4 * rank, 4);
    auto gathered_grads = [&] {
      std::vector<Tensor> all{Tensor::zeros({2, 3}), Tensor::zeros({2, 3})};
      g.all_gather(all, model.parameter("weight").grad());
      return std::make_pair(all[0].to_vector<float>(), all[1].to_vector<float>());
    };
    ddp.zero_grad();
    EXPECT_TRUE(ddp.require_backward_grad_sync());
    {
      auto guard = ddp.no_sync();
      {
        auto nested = ddp.no_sync();  // torch's no_sync restores the flag it found: off here
      }
      EXPECT_FALSE(ddp.require_backward_grad_sync());
      glia::F::mse_loss(ddp(x), y).backward();
    }
    EXPECT_TRUE(ddp.require_backward_grad_sync());
    auto local = gathered_grads();
    EXPECT_NE(local.first, local.second);
    ddp.zero_grad();
    glia::F::mse_loss(ddp(x), y).backward();
    auto synced = gathered_grads();
    EXPECT_EQ(synced.first, synced.second);

    try {
      ddp.register_builtin_comm_hook(glia::nn::BuiltinCommHook::FP16_COMPRESS);
      ddp.register_builtin_comm_hook(glia::nn::BuiltinCommHook::ALLREDUCE);
      ADD_FAILURE() << "a second comm hook did not throw";
    } catch (const glia::Error& e) {
      EXPECT_EQ(e.code(), GLIA_ERR_STATE);
      EXPECT_EQ(e.message(), "register_comm_hook or register_builtin_comm_hook can only be called once.");
    }
  });
  EXPECT_EQ(weights[0], weights[1]);
  EXPECT_EQ(biases[0], biases[1]);
  ASSERT_EQ(weights[0].size(), ref_w.size());
  for (size_t i = 0; i < ref_w.size(); ++i) EXPECT_NEAR(weights[0][i], ref_w[i], 1e-5) << i;
  for (size_t i = 0; i < ref_b.size(); ++i) EXPECT_NEAR(biases[0][i], ref_b[i], 1e-5) << i;
}

TEST(Dist, DistributedDataParallelWithAHostCommHook) {
  REQUIRE_GLOO();
  glia::Module reference = fixed_linear();
  sgd_steps(reference, rows(kX, 3, 0, 8), rows(kY, 2, 0, 8), 3);
  const std::vector<float> ref_w = reference.parameter("weight").to_vector<float>();

  TempDir dir;
  std::vector<std::vector<float>> weights(2);
  std::vector<int> calls(2);
  run_two([&](int rank) {
    ProcessGroup g = group_of(dir, rank);
    glia::Module model = fixed_linear();
    glia::nn::DistributedDataParallel ddp(model, g);
    int& n = calls[static_cast<size_t>(rank)];
    ddp.register_comm_hook([g, &n](const Tensor& bucket, int64_t index, int64_t count) mutable {
      EXPECT_EQ(index, 0);
      EXPECT_EQ(count, 1);
      ++n;
      g.all_reduce(bucket, ReduceOp::AVG);
    });
    glia::Module as_module = ddp;
    sgd_steps(as_module, rows(kX, 3, 4 * rank, 4), rows(kY, 2, 4 * rank, 4), 3);
    weights[static_cast<size_t>(rank)] = model.parameter("weight").to_vector<float>();
  });
  EXPECT_EQ(calls, (std::vector<int>{3, 3}));
  EXPECT_EQ(weights[0], weights[1]);
  for (size_t i = 0; i < ref_w.size(); ++i) EXPECT_NEAR(weights[0][i], ref_w[i], 1e-5) << i;
}

TEST(Dist, CommHookExceptionFailsTheBackward) {
  REQUIRE_GLOO();
  TempDir dir;
  run_two([&](int rank) {
    ProcessGroup g = group_of(dir, rank);
    glia::nn::DistributedDataParallel ddp(fixed_linear(), g);
    ddp.register_comm_hook([](const Tensor&, int64_t, int64_t) { throw std::runtime_error("hook says no"); });
    try {
      ddp(rows(kX, 3, 0, 4)).sum().backward();
      ADD_FAILURE() << "backward did not throw";
    } catch (const glia::Error& e) {
      EXPECT_EQ(e.code(), GLIA_ERR_CALLBACK);
      EXPECT_NE(e.message().find("hook says no"), std::string::npos) << e.message();
    }
  });
}

TEST(Dist, SyncBatchNormUsesTheStatisticsOfBothRanks) {
  REQUIRE_GLOO();
  TempDir dir;
  run_two([&](int rank) {
    ProcessGroup g = group_of(dir, rank);
    glia::Module bn = glia::nn::SyncBatchNorm(1, g);
    EXPECT_EQ(bn.type_name(), "SyncBatchNorm");
    // rank 0: [0, 2], rank 1: [4, 6]; the mean of all four is 3, their biased variance 5
    const float r = static_cast<float>(rank);
    Tensor y = bn(Tensor::from_vector<float>({4 * r, 4 * r + 2}, {2, 1}));
    const double s = std::sqrt(5.0 + 1e-5);
    std::vector<float> got = y.to_vector<float>();
    EXPECT_NEAR(got[0], (4 * r - 3) / s, 1e-6);
    EXPECT_NEAR(got[1], (4 * r - 1) / s, 1e-6);
    // without a group it is BatchNorm of this rank's batch
    glia::nn::set_sync_batch_norm_process_group(bn, ProcessGroup());
    got = bn(Tensor::from_vector<float>({4 * r, 4 * r + 2}, {2, 1})).to_vector<float>();
    EXPECT_NEAR(got[0], -1 / std::sqrt(1.0 + 1e-5), 1e-6);
    EXPECT_NEAR(got[1], 1 / std::sqrt(1.0 + 1e-5), 1e-6);
  });
}

TEST(Dist, DataParallelConstruction) {
  glia::Module lin = fixed_linear();
  // no devices: forward is the module's own
  glia::Module dp = glia::nn::DataParallel(lin);
  EXPECT_EQ(dp.type_name(), "DataParallel");
  Tensor x = rows(kX, 3, 0, 4);
  EXPECT_EQ(dp(x).to_vector<float>(), lin(x).to_vector<float>());
  EXPECT_EQ(dp.parameter("module.weight").to_vector<float>(), lin.parameter("weight").to_vector<float>());
  try {
    glia::nn::DataParallel(lin, {glia_device{GLIA_CPU, 0}});
    ADD_FAILURE() << "DataParallel on the CPU did not throw";
  } catch (const glia::Error& e) {
    EXPECT_EQ(e.code(), GLIA_ERR_DEVICE);
    EXPECT_EQ(e.message(),
              "DataParallel: device_ids[0] is the CPU; DataParallel replicates over the devices of a backend (cuda "
              "or another loaded one), pass no device_ids to run on the CPU");
  }
}

}  // namespace
