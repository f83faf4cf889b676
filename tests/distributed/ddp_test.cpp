// DistributedDataParallel: N forked ranks each train a small MLP on their shard of a fixed batch;
// afterwards every rank's parameters are bitwise identical and equal (1e-5 relative) to one
// process training on the whole batch from rank 0's initial weights.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <fstream>
#include <nlohmann/json.hpp>

#include "distributed/dist_support.h"

using namespace dist_test;
using namespace std::chrono_literals;

namespace {

bool gloo_available() {
  int32_t v = 0;
  glia_error_free(glia_dist_is_gloo_available(&v));
  return v == 1;
}

#define REQUIRE_GLOO() \
  if (!gloo_available()) GTEST_SKIP() << "glia was built without Gloo (libgloo-dev): DDP not tested"

constexpr int64_t kRows = 12, kIn = 4, kOut = 3;
constexpr int kSteps = 20;

// The fixed batch: x = sin(0.37 i), y = cos(0.23 i).
struct Batch {
  std::vector<float> x, y;
  Batch() {
    for (int64_t i = 0; i < kRows * kIn; ++i) x.push_back(static_cast<float>(std::sin(0.37 * i)));
    for (int64_t i = 0; i < kRows * kOut; ++i) y.push_back(static_cast<float>(std::cos(0.23 * i)));
  }
};

glia_tensor* rows(const std::vector<float>& v, int64_t cols, int64_t start, int64_t count) {
  int64_t shape[2] = {count, cols};
  glia_tensor* t = nullptr;
  glia_error* e =
      glia_tensor_from_data(v.data() + start * cols, count * cols * sizeof(float), shape, 2, GLIA_FLOAT32, &t);
  if (e) std::abort();
  return t;
}

struct Model {
  glia_module* seq = nullptr;
  ~Model() { glia_error_free(glia_module_release(seq)); }
};

// Linear(4, hidden), ReLU, Linear(hidden, 3) initialised from `seed`; `extra` registers a parameter
// on the Sequential that forward never uses.
int build(uint64_t seed, Model& m, int64_t hidden = 8, bool extra = false) {
  glia_manual_seed(seed);
  glia_module *l1 = nullptr, *act = nullptr, *l2 = nullptr;
  DOK(glia_nn_linear(kIn, hidden, 1, nullptr, &l1));
  DOK(glia_nn_relu(nullptr, &act));
  DOK(glia_nn_linear(hidden, kOut, 1, nullptr, &l2));
  glia_module* mods[3] = {l1, act, l2};
  DOK(glia_nn_sequential(mods, 3, &m.seq));
  for (auto* x : mods) DOK(glia_module_release(x));
  if (extra) {
    std::vector<float> z(5, 0.5f);
    int64_t n = 5;
    glia_tensor* p = nullptr;
    DOK(glia_tensor_from_data(z.data(), z.size() * sizeof(float), &n, 1, GLIA_FLOAT32, &p));
    DOK(glia_module_register_parameter(m.seq, "unused", p));
    DOK(glia_tensor_release(p));
  }
  return 0;
}

// ---- Models whose forward is not registration order (bucket rebuild, static_graph) --------------
// The models of tests/golden/gen_ddp_rebuild.py, as host modules.
enum ModelKind { kMlp = 0, kReordered, kBig, kSwapped, kTwice, kLastCheckpointed, kTwoHeads };

struct HostModelDef {
  int kind = kMlp;
  int rank = 0;
};

glia_error* child_forward(glia_module* self, const char* name, const glia_tensor* x, glia_tensor** out) {
  glia_module* c = nullptr;
  glia_error* e = glia_module_get_submodule(self, name, &c);
  if (e) return e;
  int64_t n = 0;
  e = glia_module_forward(c, &x, 1, out, 1, &n);
  glia_error_free(glia_module_release(c));
  return e;
}

// A reentrant checkpoint of one layer (torch.utils.checkpoint with use_reentrant=True): forward without a
// graph, backward recomputes with one and runs a nested backward, so the layer's parameters get their
// gradient inside it.
glia_error* ckpt_forward(void* ud, glia_autograd_ctx* ctx, const glia_tensor* const* in, int64_t, glia_tensor** outs,
                         int64_t) {
  glia_error* e = glia_autograd_ctx_save_for_backward(ctx, in, 1);
  if (e) return e;
  int64_t n = 0;
  return glia_module_forward(static_cast<glia_module*>(ud), in, 1, outs, 1, &n);
}
glia_error* ckpt_backward(void* ud, glia_autograd_ctx* ctx, const glia_tensor* const* grad_out, int64_t,
                          glia_tensor** grad_in, int64_t) {
  glia_tensor* saved = nullptr;
  int64_t count = 0;
  glia_error* e = glia_autograd_ctx_saved_tensors(ctx, &saved, 1, &count);
  if (e) return e;
  glia_tensor *h = nullptr, *out = nullptr;
  e = glia_tensor_detach(saved, &h);
  glia_error_free(glia_tensor_release(saved));
  if (!e) e = glia_tensor_set_requires_grad(h, 1);
  int32_t mode = glia_grad_mode_enabled();
  glia_grad_mode_set(1);
  int64_t n = 0;
  if (!e) e = glia_module_forward(static_cast<glia_module*>(ud), &h, 1, &out, 1, &n);
  glia_grad_mode_set(mode);
  if (!e) e = glia_tensor_backward(out, grad_out[0], 0);
  if (!e) e = glia_tensor_grad(h, &grad_in[0]);
  glia_error_free(glia_tensor_release(out));
  glia_error_free(glia_tensor_release(h));
  return e;
}
glia_error* checkpointed(glia_module* layer, const glia_tensor* x, glia_tensor** out) {
  glia_autograd_function_def def;
  glia_autograd_function_def_init(&def);
  def.name = "CheckpointFunction";
  def.forward = ckpt_forward;
  def.backward = ckpt_backward;
  def.user_data = layer;
  def.free_user_data = [](void* ud) { glia_error_free(glia_module_release(static_cast<glia_module*>(ud))); };
  glia_error* e = glia_module_retain(layer);  // the node keeps the layer for backward
  return e ? e : glia_autograd_function_apply(&def, &x, 1, out, 1);
}

// Reordered / big: registered a, b, c, applied a(relu(c(relu(b(x))))). Swapped: a(x) + b(x) on rank 0,
// b(x) + a(x) elsewhere. Twice: l2(relu(ckpt(l1, relu(ckpt(l1, l0(x)))))). Last checkpointed:
// ckpt(l1, relu(l0(x))), so the first gradients of a backward arrive inside the nested one.
glia_error* host_forward(void* ud, glia_module* self, const glia_tensor* const* in, int64_t, glia_tensor** outs,
                         int64_t, int64_t* out_count) {
  const HostModelDef* d = static_cast<const HostModelDef*>(ud);
  std::vector<glia_tensor*> tmp;
  auto keep = [&](glia_tensor* t) {
    tmp.push_back(t);
    return t;
  };
  glia_error* e = nullptr;
  glia_tensor *t = nullptr, *u = nullptr, *r = nullptr;
  if (d->kind == kReordered || d->kind == kBig) {
    if (!(e = child_forward(self, "b", in[0], &t)) && !(e = glia_relu(keep(t), &r)) &&
        !(e = child_forward(self, "c", keep(r), &u)) && !(e = glia_relu(keep(u), &r)))
      e = child_forward(self, "a", keep(r), &outs[0]);
  } else if (d->kind == kSwapped) {
    const char* first = d->rank == 0 ? "a" : "b";
    const char* second = d->rank == 0 ? "b" : "a";
    if (!(e = child_forward(self, first, in[0], &t)) && !(e = child_forward(self, second, in[0], &u))) {
      keep(t);
      keep(u);
      e = glia_add(t, u, 1.0, &outs[0]);
    }
  } else if (d->kind == kTwoHeads) {
    if (!(e = child_forward(self, "a", in[0], &outs[0])) && (e = child_forward(self, "b", in[0], &outs[1]))) {
      glia_error_free(glia_tensor_release(outs[0]));
      outs[0] = nullptr;
    }
    if (!e) *out_count = 2;
    return e;
  } else if (d->kind == kLastCheckpointed) {
    glia_module* l1 = nullptr;
    if (!(e = glia_module_get_submodule(self, "l1", &l1))) {
      if (!(e = child_forward(self, "l0", in[0], &t)) && !(e = glia_relu(keep(t), &r)))
        e = checkpointed(l1, keep(r), &outs[0]);
      glia_error_free(glia_module_release(l1));
    }
  } else {
    glia_module* l1 = nullptr;
    if (!(e = glia_module_get_submodule(self, "l1", &l1))) {
      if (!(e = child_forward(self, "l0", in[0], &t)) && !(e = checkpointed(l1, keep(t), &u)) &&
          !(e = glia_relu(keep(u), &r)) && !(e = checkpointed(l1, keep(r), &t)) && !(e = glia_relu(keep(t), &r)))
        e = child_forward(self, "l2", keep(r), &outs[0]);
      glia_error_free(glia_module_release(l1));
    }
  }
  for (auto* x : tmp) glia_error_free(glia_tensor_release(x));
  if (!e) *out_count = 1;
  return e;
}

void free_host_model(void* ud) { delete static_cast<HostModelDef*>(ud); }

// The model of `kind` (kMlp: build()), its parameters initialised from `seed`.
int build_kind(int kind, int rank, uint64_t seed, Model& m, bool extra = false) {
  if (kind == kMlp) return build(seed, m, 8, extra);
  glia_manual_seed(seed);
  glia_module_def def;
  glia_module_def_init(&def);
  def.forward = host_forward;
  def.user_data = new HostModelDef{kind, rank};
  def.free_user_data = free_host_model;
  DOK(glia_module_create("Model", &def, &m.seq));
  struct Layer {
    const char* name;
    int64_t in, out;
  };
  std::vector<Layer> layers;
  if (kind == kReordered) layers = {{"a", 8, kOut}, {"b", kIn, 8}, {"c", 8, 8}};
  if (kind == kBig) layers = {{"a", 600, kOut}, {"b", kIn, 512}, {"c", 512, 600}};  // c.weight: over 1 MiB
  if (kind == kSwapped) layers = {{"a", kIn, kOut}, {"b", kIn, kOut}};
  if (kind == kTwice) layers = {{"l0", kIn, 4}, {"l1", 4, 4}, {"l2", 4, kOut}};
  if (kind == kTwoHeads) layers = {{"a", kIn, kOut}, {"b", kIn, kOut}};
  if (kind == kLastCheckpointed) layers = {{"l0", kIn, 8}, {"l1", 8, kOut}};
  for (const Layer& l : layers) {
    glia_module* lin = nullptr;
    DOK(glia_nn_linear(l.in, l.out, 1, nullptr, &lin));
    DOK(glia_module_add_module(m.seq, l.name, lin));
    DOK(glia_module_release(lin));
  }
  if (extra) {
    std::vector<float> z(5, 0.5f);
    int64_t n = 5;
    glia_tensor* p = nullptr;
    DOK(glia_tensor_from_data(z.data(), z.size() * sizeof(float), &n, 1, GLIA_FLOAT32, &p));
    DOK(glia_module_register_parameter(m.seq, "unused", p));
    DOK(glia_tensor_release(p));
  }
  return 0;
}

std::vector<glia_tensor*> parameters(glia_module* m) {
  glia_tensor_dict* d = nullptr;
  if (glia_module_named_parameters(m, nullptr, 1, 1, &d)) std::abort();
  int64_t n = 0;
  if (glia_tensor_dict_size(d, &n)) std::abort();
  std::vector<glia_tensor*> out(n);
  for (int64_t i = 0; i < n; ++i)
    if (glia_tensor_dict_value_at(d, i, &out[i])) std::abort();
  glia_error_free(glia_tensor_dict_release(d));
  return out;
}

std::vector<float> values(glia_tensor* t) {
  int64_t n = 0;
  if (glia_tensor_numel(t, &n)) std::abort();
  std::vector<float> v(n);
  if (glia_tensor_copy_to_host(t, v.data(), n * sizeof(float))) std::abort();
  return v;
}

// Forward, mean-squared-error loss (times scale), backward.
int step_backward(glia_module* model, glia_tensor* x, glia_tensor* y, double scale) {
  glia_tensor *out = nullptr, *loss = nullptr, *scaled = nullptr;
  int64_t count = 0;
  DOK(glia_module_forward(model, &x, 1, &out, 1, &count));
  DOK(glia_mse_loss(out, y, GLIA_REDUCTION_MEAN, &loss));
  DOK(glia_mul_scalar(loss, glia_scalar_float(scale), &scaled));
  glia_error* e = glia_tensor_backward(scaled, nullptr, 0);
  glia_error_free(glia_tensor_release(scaled));
  glia_error_free(glia_tensor_release(loss));
  glia_error_free(glia_tensor_release(out));
  DOK(e);
  return 0;
}

struct RunConfig {
  int n;
  bool tcp;
  double bucket_cap_mb = 25;
  int micro = 1;  // micro-batches per step; all but the last under no_sync
  bool unused = false;
  int hook = -1;             // a glia_ddp_comm_hook, or kHostHook; -1: none registered
  bool as_view = false;      // gradient_as_bucket_view
  double tol = 1e-5;         // relative distance to the single-process run
  bool must_differ = false;  // some value must differ from it (the compression hooks round)
  int model = kMlp;          // a ModelKind
  bool static_graph = false;
};
constexpr int kHostHook = 100;

// A host communication hook: sum over the group, then times 1 / world size; records the bucket
// indices it saw.
struct HostHookState {
  glia_process_group* g = nullptr;
  int world = 1;
  std::vector<int64_t> seen, counts;
};
glia_error* average_hook(void* ud, glia_tensor* bucket, int64_t index, int64_t count) {
  auto* st = static_cast<HostHookState*>(ud);
  st->seen.push_back(index);
  st->counts.push_back(count);
  glia_error* e = glia_process_group_all_reduce(st->g, bucket, GLIA_REDUCE_SUM, nullptr);
  if (e) return e;
  return glia_mul_scalar_(bucket, glia_scalar_float(1.0 / st->world));
}

// With gradient_as_bucket_view the gradients of one bucket lie one after the other in its buffer.
int check_grads_are_bucket_views(glia_module* ddp, const std::vector<glia_tensor*>& ps) {
  int64_t nb = 0, cnt = 0;
  DOK(glia_ddp_bucket_parameters(ddp, 0, nullptr, 0, &cnt, &nb));
  for (int64_t bi = 0; bi < nb; ++bi) {
    DOK(glia_ddp_bucket_parameters(ddp, bi, nullptr, 0, &cnt, nullptr));
    std::vector<int64_t> idx(static_cast<size_t>(cnt));
    DOK(glia_ddp_bucket_parameters(ddp, bi, idx.data(), cnt, &cnt, nullptr));
    char* expect = nullptr;
    for (int64_t i : idx) {
      glia_tensor* gr = nullptr;
      DOK(glia_tensor_grad(ps[static_cast<size_t>(i)], &gr));
      DCHECK(gr != nullptr);
      void* data = nullptr;
      int64_t numel = 0;
      DOK(glia_tensor_data(gr, &data));
      DOK(glia_tensor_numel(gr, &numel));
      if (expect) DCHECK(static_cast<char*>(data) == expect);
      expect = static_cast<char*>(data) + numel * static_cast<int64_t>(sizeof(float));
      DOK(glia_tensor_release(gr));
    }
  }
  return 0;
}

// One rank of a DDP run, then the single-process reference, compared.
int ddp_rank(const RunConfig& su, int rank, glia_process_group* g) {
  Batch b;
  const int64_t shard = kRows / su.n, mb = shard / su.micro;
  Model m;
  // Every rank starts elsewhere: DDP broadcasts rank 0's.
  if (build_kind(su.model, rank, 100 + rank, m, su.unused)) return 1;
  glia_ddp_options o;
  glia_ddp_options_init(&o);
  o.bucket_cap_mb = su.bucket_cap_mb;
  o.find_unused_parameters = su.unused ? 1 : 0;
  o.gradient_as_bucket_view = su.as_view ? 1 : 0;
  o.static_graph = su.static_graph ? 1 : 0;
  glia_module* ddp = nullptr;
  DOK(glia_nn_distributed_data_parallel(m.seq, g, &o, &ddp));
  HostHookState host;
  host.g = g;
  host.world = su.n;
  if (su.hook == kHostHook) {
    DOK(glia_ddp_register_comm_hook(ddp, average_hook, &host, nullptr));
  } else if (su.hook >= 0) {
    DOK(glia_ddp_register_builtin_comm_hook(ddp, static_cast<glia_ddp_comm_hook>(su.hook)));
  }
  std::vector<glia_tensor*> ps = parameters(m.seq);
  glia_sgd_options so;
  glia_sgd_options_init(&so);
  so.lr = 0.1;
  glia_optimizer* opt = nullptr;
  DOK(glia_optim_sgd(ps.data(), ps.size(), &so, &opt));
  for (int s = 0; s < kSteps; ++s) {
    DOK(glia_optimizer_zero_grad(opt, 1));
    for (int k = 0; k < su.micro; ++k) {
      DOK(glia_ddp_set_require_backward_grad_sync(ddp, k == su.micro - 1 ? 1 : 0));
      glia_tensor* x = rows(b.x, kIn, rank * shard + k * mb, mb);
      glia_tensor* y = rows(b.y, kOut, rank * shard + k * mb, mb);
      int rc = step_backward(ddp, x, y, 1.0);
      glia_error_free(glia_tensor_release(x));
      glia_error_free(glia_tensor_release(y));
      if (rc) return rc;
    }
    DOK(glia_optimizer_step(opt));
  }
  if (su.hook == kHostHook) {
    // Every bucket once per synchronised backward, in order (the count changes when the buckets are rebuilt).
    int iterations = 0;
    for (size_t k = 0; k < host.seen.size(); ++k) {
      bool starts = k == 0 || host.seen[k - 1] == host.counts[k - 1] - 1;
      DCHECK(host.seen[k] == (starts ? 0 : host.seen[k - 1] + 1) && host.seen[k] < host.counts[k]);
      iterations += starts;
    }
    DCHECK(iterations == kSteps && host.seen.back() == host.counts.back() - 1);
  }
  if (su.as_view && check_grads_are_bucket_views(ddp, ps)) return 1;
  // The reference: rank 0's initial weights, the whole batch, the same micro-batches summed and
  // divided by the world size (what averaging the ranks' accumulated gradients computes).
  Model ref;
  if (build_kind(su.model, 0, 100, ref, su.unused)) return 1;
  std::vector<glia_tensor*> rps = parameters(ref.seq);
  glia_optimizer* ropt = nullptr;
  DOK(glia_optim_sgd(rps.data(), rps.size(), &so, &ropt));
  for (int s = 0; s < kSteps; ++s) {
    DOK(glia_optimizer_zero_grad(ropt, 1));
    for (int r = 0; r < su.n; ++r)
      for (int k = 0; k < su.micro; ++k) {
        glia_tensor* x = rows(b.x, kIn, r * shard + k * mb, mb);
        glia_tensor* y = rows(b.y, kOut, r * shard + k * mb, mb);
        int rc = step_backward(ref.seq, x, y, 1.0 / su.n);
        glia_error_free(glia_tensor_release(x));
        glia_error_free(glia_tensor_release(y));
        if (rc) return rc;
      }
    DOK(glia_optimizer_step(ropt));
  }
  DCHECK(ps.size() == rps.size());
  bool differs = false;
  for (size_t i = 0; i < ps.size(); ++i) {
    std::vector<float> a = values(ps[i]), w = values(rps[i]);
    for (size_t j = 0; j < a.size(); ++j) {
      differs = differs || std::fabs(a[j] - w[j]) > 1e-6 * std::max(1.0f, std::fabs(w[j]));
      if (std::fabs(a[j] - w[j]) > su.tol * std::max(1.0f, std::fabs(w[j]))) {
        std::fprintf(stderr, "rank %d: parameter %zu[%zu] is %.9g, the single process has %.9g\n", rank, i, j, a[j],
                     w[j]);
        return 1;
      }
    }
    // Bitwise the same on every rank.
    int64_t numel = static_cast<int64_t>(a.size());
    glia_tensor* flat = nullptr;
    DOK(glia_tensor_from_data(a.data(), a.size() * sizeof(float), &numel, 1, GLIA_FLOAT32, &flat));
    std::vector<glia_tensor*> all;
    for (int r = 0; r < su.n; ++r) {
      glia_tensor* t = nullptr;
      DOK(glia_tensor_from_data(a.data(), a.size() * sizeof(float), &numel, 1, GLIA_FLOAT32, &t));
      all.push_back(t);
    }
    DOK(glia_process_group_all_gather(g, all.data(), su.n, flat, nullptr));
    for (int r = 0; r < su.n; ++r) {
      DCHECK(values(all[r]) == a);
      DOK(glia_tensor_release(all[r]));
    }
    DOK(glia_tensor_release(flat));
  }
  if (su.must_differ && !differs) {
    std::fprintf(stderr, "rank %d: the hook changed nothing (no value differs from the float32 run)\n", rank);
    return 1;
  }
  for (auto* p : ps) DOK(glia_tensor_release(p));
  for (auto* p : rps) DOK(glia_tensor_release(p));
  DOK(glia_optimizer_release(opt));
  DOK(glia_optimizer_release(ropt));
  DOK(glia_module_release(ddp));
  return 0;
}

// Rendezvous: FileStore in a temp dir, or a TCPStore served by rank 0 on port 0.
int with_group(int n, bool tcp, const std::function<int(int, glia_process_group*)>& body) {
  TempDir dir;
  int fds[2];
  if (::pipe(fds) != 0) return 1;
  Result r = run_ranks(n, 120s, [&](int rank) {
    glia_store* s = nullptr;
    if (!tcp) {
      DOK(glia_store_file_create(dir.file("store").c_str(), n, &s));
    } else if (rank == 0) {
      int32_t port = 0;
      DOK(glia_store_tcp_create("127.0.0.1", 0, 1, 20000, &s));
      DOK(glia_store_tcp_port(s, &port));
      for (int i = 1; i < n; ++i) DCHECK(::write(fds[1], &port, 4) == 4);
    } else {
      int32_t port = 0;
      DCHECK(::read(fds[0], &port, 4) == 4);
      DOK(glia_store_tcp_create("127.0.0.1", port, 0, 20000, &s));
    }
    glia_process_group_options o;
    glia_process_group_options_init(&o);
    o.timeout_ms = 20000;
    o.hostname = "127.0.0.1";
    glia_process_group* g = nullptr;
    DOK(glia_process_group_create(s, rank, n, &o, &g));
    int rc = body(rank, g);
    if (rc == 0) DOK(glia_process_group_barrier(g, nullptr));  // the TCP server outlives the clients
    DOK(glia_process_group_release(g));
    DOK(glia_store_release(s));
    return rc;
  });
  ::close(fds[0]);
  ::close(fds[1]);
  EXPECT_FALSE(r.timed_out) << "a rank hung";
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(r.status[i], 0) << "rank " << i;
    bad += r.status[i] != 0;
  }
  return bad;
}

void run_setup(const RunConfig& su) {
  with_group(su.n, su.tcp, [&](int rank, glia_process_group* g) { return ddp_rank(su, rank, g); });
}

TEST(DistributedDataParallel, TwoRanksFileStore) {
  REQUIRE_GLOO();
  run_setup({2, false});
}
TEST(DistributedDataParallel, ThreeRanksTCPStore) {
  REQUIRE_GLOO();
  run_setup({3, true});
}
// A cap below one parameter's size: every parameter is a bucket of its own (many collectives in flight).
TEST(DistributedDataParallel, TinyBuckets) {
  REQUIRE_GLOO();
  run_setup({2, true, 1e-6});
  run_setup({3, false, 1e-6});
}
// no_sync over the first micro-batch: the accumulated gradient of two micro-batches is averaged once.
TEST(DistributedDataParallel, NoSyncAccumulates) {
  REQUIRE_GLOO();
  run_setup({2, false, 25, 2});
  run_setup({3, true, 1e-6, 2});
}
TEST(DistributedDataParallel, FindUnusedParameters) {
  REQUIRE_GLOO();
  RunConfig su{2, false};
  su.unused = true;
  run_setup(su);
}

// Without find_unused_parameters a parameter that got no gradient fails the backward, naming it.
TEST(DistributedDataParallel, UnusedParameterIsAnError) {
  REQUIRE_GLOO();
  with_group(2, false, [](int rank, glia_process_group* g) {
    Batch b;
    Model m;
    if (build(7, m, 8, true)) return 1;
    glia_module* ddp = nullptr;
    DOK(glia_nn_distributed_data_parallel(m.seq, g, nullptr, &ddp));
    glia_tensor* x = rows(b.x, kIn, 0, 6);
    glia_tensor* y = rows(b.y, kOut, 0, 6);
    glia_tensor *out = nullptr, *loss = nullptr;
    int64_t count = 0;
    DOK(glia_module_forward(ddp, &x, 1, &out, 1, &count));
    DOK(glia_mse_loss(out, y, GLIA_REDUCTION_MEAN, &loss));
    // "unused" is the Sequential's own parameter: index 0 in named_parameters order.
    DERR(glia_tensor_backward(loss, nullptr, 0), GLIA_ERR_STATE,
         "Parameter indices which did not receive grad for rank " + std::to_string(rank) + ": 0");
    DERR(glia_tensor_backward(loss, nullptr, 0), GLIA_ERR_STATE, "Trying to backward through the graph a second time");
    // The next iteration works again (the unused parameter's error left no state behind).
    glia_tensor* loss2 = nullptr;
    glia_tensor* out2 = nullptr;
    DOK(glia_module_forward(ddp, &x, 1, &out2, 1, &count));
    DOK(glia_mse_loss(out2, y, GLIA_REDUCTION_MEAN, &loss2));
    DERR(glia_tensor_backward(loss2, nullptr, 0), GLIA_ERR_STATE, "Expected to have finished reduction");
    for (auto* t : {x, y, out, loss, out2, loss2}) DOK(glia_tensor_release(t));
    DOK(glia_module_release(ddp));
    return 0;
  });
}

glia_error* fail_once(void* ud, const glia_tensor*, glia_tensor**) {
  int* calls = static_cast<int*>(ud);
  if ((*calls)++ == 0) return glia_error_new(GLIA_ERR_IO, "first backward fails");
  return nullptr;
}

// A backward that fails midway (here a tensor hook on the first layer's weight) leaves no DDP state
// behind: the next iteration averages as usual.
TEST(DistributedDataParallel, FailedBackwardThenNextIteration) {
  REQUIRE_GLOO();
  with_group(2, false, [](int rank, glia_process_group* g) {
    Batch b;
    Model m;
    if (build(3, m)) return 1;
    glia_ddp_options o;
    glia_ddp_options_init(&o);
    o.bucket_cap_mb = 1e-6;  // a bucket per parameter: the last layer's go out before the failure
    glia_module* ddp = nullptr;
    DOK(glia_nn_distributed_data_parallel(m.seq, g, &o, &ddp));
    std::vector<glia_tensor*> ps = parameters(m.seq);
    int calls = 0;
    uint64_t id = 0;
    DOK(glia_tensor_register_hook(ps[0], fail_once, &calls, nullptr, &id));
    glia_tensor* x = rows(b.x, kIn, rank * 6, 6);
    glia_tensor* y = rows(b.y, kOut, rank * 6, 6);
    glia_tensor *out = nullptr, *loss = nullptr;
    int64_t count = 0;
    DOK(glia_module_forward(ddp, &x, 1, &out, 1, &count));
    DOK(glia_mse_loss(out, y, GLIA_REDUCTION_MEAN, &loss));
    DERR(glia_tensor_backward(loss, nullptr, 0), GLIA_ERR_CALLBACK, "first backward fails");
    for (auto* p : ps) DOK(glia_tensor_set_grad(p, nullptr));
    if (step_backward(ddp, x, y, 1.0)) return 1;
    // Every rank holds the same averaged gradients.
    for (auto* p : ps) {
      glia_tensor* gr = nullptr;
      DOK(glia_tensor_grad(p, &gr));
      DCHECK(gr != nullptr);
      std::vector<float> mine = values(gr);
      std::vector<glia_tensor*> all;
      for (int r = 0; r < 2; ++r) {
        int64_t n = static_cast<int64_t>(mine.size());
        glia_tensor* t = nullptr;
        DOK(glia_tensor_from_data(mine.data(), mine.size() * sizeof(float), &n, 1, GLIA_FLOAT32, &t));
        all.push_back(t);
      }
      glia_tensor* flat = nullptr;
      DOK(glia_flatten(gr, 0, -1, &flat));
      DOK(glia_process_group_all_gather(g, all.data(), 2, flat, nullptr));
      DCHECK(values(all[0]) == values(all[1]));
      for (auto* t : all) DOK(glia_tensor_release(t));
      DOK(glia_tensor_release(flat));
      DOK(glia_tensor_release(gr));
    }
    for (auto* p : ps) DOK(glia_tensor_release(p));
    for (auto* t : {x, y, out, loss}) DOK(glia_tensor_release(t));
    DOK(glia_module_release(ddp));
    return 0;
  });
}

// Ranks with different models fail at construction with torch's message.
TEST(DistributedDataParallel, DifferentModelsAcrossRanks) {
  REQUIRE_GLOO();
  with_group(2, false, [](int rank, glia_process_group* g) {
    Model m;
    if (build(1, m, 8, rank == 1)) return 1;  // rank 1 has one parameter more
    glia_module* ddp = nullptr;
    if (rank == 0) {
      DERR(glia_nn_distributed_data_parallel(m.seq, g, nullptr, &ddp), GLIA_ERR_INVALID_ARGUMENT,
           "DDP expects same model across all ranks, but Rank 0 has 4 params, while rank 1 has inconsistent 5 params.");
    } else {
      DERR(glia_nn_distributed_data_parallel(m.seq, g, nullptr, &ddp), GLIA_ERR_INVALID_ARGUMENT,
           "DDP expects same model across all ranks, but Rank 1 has 5 params, while rank 0 has inconsistent 4 params.");
    }
    Model other;
    if (build(1, other, rank == 0 ? 8 : 9)) return 1;  // same count, other shapes
    DERR(glia_nn_distributed_data_parallel(other.seq, g, nullptr, &ddp), GLIA_ERR_SHAPE,
         "DDP expects same model across all ranks, but Rank " + std::to_string(rank) + " has parameter 0 of shape [" +
             (rank == 0 ? "8" : "9") + ", 4], while rank " + std::to_string(1 - rank) + " has inconsistent shape [" +
             (rank == 0 ? "9" : "8") + ", 4].");
    // Not a DDP module; no parameter to train.
    DERR(glia_ddp_set_require_backward_grad_sync(other.seq, 0), GLIA_ERR_INVALID_ARGUMENT,
         "argument 'module' is not a DistributedDataParallel");
    return 0;
  });
}

// Buffers come from rank 0 at construction.
TEST(DistributedDataParallel, BuffersBroadcast) {
  REQUIRE_GLOO();
  with_group(3, true, [](int rank, glia_process_group* g) {
    Model m;
    if (build(1, m)) return 1;
    float v[2] = {float(rank) + 1.5f, -float(rank)};
    int64_t n = 2;
    glia_tensor* buf = nullptr;
    DOK(glia_tensor_from_data(v, sizeof v, &n, 1, GLIA_FLOAT32, &buf));
    DOK(glia_module_register_buffer(m.seq, "stat", buf, 1));
    glia_module* ddp = nullptr;
    DOK(glia_nn_distributed_data_parallel(m.seq, g, nullptr, &ddp));
    std::vector<float> got = values(buf);
    DCHECK(got[0] == 1.5f && got[1] == 0.f);
    DOK(glia_tensor_release(buf));
    DOK(glia_module_release(ddp));
    return 0;
  });
}

// Communication hooks. fp16/bf16 compression: the 16-bit type's rounding, so close to the float32
// run but not equal to it; still bitwise the same on every rank.
TEST(DistributedDataParallel, Fp16CompressHook) {
  REQUIRE_GLOO();
  RunConfig su{2, false};
  su.hook = GLIA_DDP_COMM_HOOK_FP16_COMPRESS;
  su.tol = 2e-3;
  su.must_differ = true;
  run_setup(su);
  su = RunConfig{3, true, 1e-6};  // a bucket per parameter
  su.hook = GLIA_DDP_COMM_HOOK_FP16_COMPRESS;
  su.tol = 2e-3;
  su.must_differ = true;
  run_setup(su);
}
TEST(DistributedDataParallel, Bf16CompressHook) {
  REQUIRE_GLOO();
  RunConfig su{2, true};
  su.hook = GLIA_DDP_COMM_HOOK_BF16_COMPRESS;
  su.tol = 2e-2;
  su.must_differ = true;
  run_setup(su);
}
// The built-in ALLREDUCE hook is the default average.
TEST(DistributedDataParallel, AllreduceHookIsTheDefault) {
  REQUIRE_GLOO();
  RunConfig su{2, false};
  su.hook = GLIA_DDP_COMM_HOOK_ALLREDUCE;
  run_setup(su);
}
// A host hook sees every bucket once per synchronised backward, in order, and its result is used.
TEST(DistributedDataParallel, HostCommHook) {
  REQUIRE_GLOO();
  RunConfig su{2, false, 1e-6, 2};  // four buckets, no_sync micro-batches: the hook runs on the last only
  su.hook = kHostHook;
  run_setup(su);
  su = RunConfig{3, true};
  su.hook = kHostHook;
  run_setup(su);
}
TEST(DistributedDataParallel, GradientAsBucketView) {
  REQUIRE_GLOO();
  RunConfig su{2, false};
  su.as_view = true;
  run_setup(su);
  su = RunConfig{3, true, 1e-6, 2};
  su.as_view = true;
  su.hook = GLIA_DDP_COMM_HOOK_FP16_COMPRESS;
  su.tol = 2e-3;
  run_setup(su);
}

glia_error* failing_hook(void* ud, glia_tensor*, int64_t, int64_t) {
  ++*static_cast<int*>(ud);
  return glia_error_new(GLIA_ERR_IO, "the hook's network is down");
}
void count_free(void* ud) { ++*static_cast<int*>(ud); }

// Registration errors; a hook's error fails the backward with its message.
TEST(DistributedDataParallel, CommHookErrors) {
  REQUIRE_GLOO();
  with_group(2, false, [](int rank, glia_process_group* g) {
    Batch b;
    Model m;
    if (build(5, m)) return 1;
    glia_module* ddp = nullptr;
    DOK(glia_nn_distributed_data_parallel(m.seq, g, nullptr, &ddp));
    DERR(glia_ddp_register_builtin_comm_hook(ddp, static_cast<glia_ddp_comm_hook>(7)), GLIA_ERR_INVALID_ARGUMENT,
         "glia_ddp_register_builtin_comm_hook: argument 'hook' is 7");
    DERR(glia_ddp_register_builtin_comm_hook(m.seq, GLIA_DDP_COMM_HOOK_FP16_COMPRESS), GLIA_ERR_INVALID_ARGUMENT,
         "argument 'module' is not a DistributedDataParallel");
    int freed = 0;
    DERR(glia_ddp_register_comm_hook(ddp, nullptr, &freed, count_free), GLIA_ERR_INVALID_ARGUMENT,
         "argument 'fn' is NULL");
    DCHECK(freed == 1);  // user_data freed when the registration fails
    int calls = 0;
    DOK(glia_ddp_register_comm_hook(ddp, failing_hook, &calls, count_free));
    DERR(glia_ddp_register_builtin_comm_hook(ddp, GLIA_DDP_COMM_HOOK_FP16_COMPRESS), GLIA_ERR_STATE,
         "register_comm_hook or register_builtin_comm_hook can only be called once.");
    glia_tensor* x = rows(b.x, kIn, rank * 6, 6);
    glia_tensor* y = rows(b.y, kOut, rank * 6, 6);
    glia_tensor *out = nullptr, *loss = nullptr;
    int64_t count = 0;
    DOK(glia_module_forward(ddp, &x, 1, &out, 1, &count));
    DOK(glia_mse_loss(out, y, GLIA_REDUCTION_MEAN, &loss));
    DERR(glia_tensor_backward(loss, nullptr, 0), GLIA_ERR_CALLBACK,
         "DDP communication hook failed: the hook's network is down");
    DCHECK(calls == 1);
    int64_t cnt = 0, nb = 0;
    DERR(glia_ddp_bucket_parameters(ddp, 5, nullptr, 0, &cnt, &nb), GLIA_ERR_INVALID_ARGUMENT,
         "bucket_index 5 is out of range for 1 buckets");
    DOK(glia_ddp_bucket_parameters(ddp, 0, nullptr, 0, &cnt, &nb));
    DCHECK(cnt == 4 && nb == 1);
    for (auto* t : {x, y, out, loss}) DOK(glia_tensor_release(t));
    DOK(glia_module_release(ddp));
    DCHECK(calls == 2);  // the hook's user_data freed (count_free) when the DDP module dies
    return 0;
  });
}

// ---- Bucket rebuild (torch's Reducer::rebuild_buckets) and static_graph ---------------------------

// The buckets a hook sees, as glia_ddp_bucket_parameters lists them.
struct RecordState {
  glia_module* ddp = nullptr;
  glia_process_group* g = nullptr;
  int world = 2;
  std::vector<std::vector<int64_t>> buckets;
};
glia_error* recording_hook(void* ud, glia_tensor* bucket, int64_t index, int64_t) {
  auto* st = static_cast<RecordState*>(ud);
  int64_t n = 0;
  glia_error* e = glia_ddp_bucket_parameters(st->ddp, index, nullptr, 0, &n, nullptr);
  if (e) return e;
  std::vector<int64_t> idx(static_cast<size_t>(n));
  if ((e = glia_ddp_bucket_parameters(st->ddp, index, idx.data(), n, &n, nullptr))) return e;
  st->buckets.push_back(idx);
  if ((e = glia_process_group_all_reduce(st->g, bucket, GLIA_REDUCE_SUM, nullptr))) return e;
  return glia_mul_scalar_(bucket, glia_scalar_float(1.0 / st->world));
}

std::string text(const std::vector<std::vector<int64_t>>& b) {
  std::string out;
  for (const auto& v : b) {
    out += "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
    out += "]";
  }
  return out;
}

// One case of tests/golden/distributed/ddp_rebuild.json: three iterations of forward, sum, backward on
// x = linspace(-1, 1, 24) as [6, 4]; the buckets reduced in each (or the error) are torch's.
int golden_case(const nlohmann::json& c, int rank, glia_process_group* g) {
  const std::string kind = c["model"];
  int k = kind == "reordered" ? kReordered : kind == "big" ? kBig : kind == "swapped" ? kSwapped : kTwice;
  Model m;
  if (build_kind(k, rank, 1, m)) return 1;
  glia_ddp_options o;
  glia_ddp_options_init(&o);
  o.bucket_cap_mb = c["bucket_cap_mb"];
  o.static_graph = c["static_graph"].get<bool>() ? 1 : 0;
  o.find_unused_parameters = c["find_unused_parameters"].get<bool>() ? 1 : 0;
  glia_module* ddp = nullptr;
  DOK(glia_nn_distributed_data_parallel(m.seq, g, &o, &ddp));
  RecordState st;
  st.ddp = ddp;
  st.g = g;
  DOK(glia_ddp_register_comm_hook(ddp, recording_hook, &st, nullptr));
  std::vector<float> xv;
  for (int i = 0; i < 24; ++i) xv.push_back(static_cast<float>(-1.0 + 2.0 * i / 23.0));
  glia_tensor* x = rows(xv, kIn, 0, 6);
  const nlohmann::json& want = c["ranks"][rank];
  const size_t iterations = want["iterations"].size();
  for (size_t it = 0; it < 3; ++it) {
    st.buckets.clear();
    glia_tensor *out = nullptr, *loss = nullptr;
    int64_t count = 0;
    DOK(glia_module_forward(ddp, &x, 1, &out, 1, &count));
    DOK(glia_sum(out, nullptr, 0, 0, &loss));
    glia_error* e = glia_tensor_backward(loss, nullptr, 0);
    DOK(glia_tensor_release(out));
    DOK(glia_tensor_release(loss));
    if (it == iterations) {  // torch failed here (raised in the checkpoint's backward: GLIA_ERR_CALLBACK)
      DERR(e, GLIA_ERR_CALLBACK, want["error"].get<std::string>());
      break;
    }
    DOK(e);
    std::vector<std::vector<int64_t>> expect = want["iterations"][it];
    if (st.buckets != expect) {
      std::fprintf(stderr, "rank %d: %s, iteration %zu: buckets %s, torch's %s\n", rank,
                   c["name"].get<std::string>().c_str(), it, text(st.buckets).c_str(), text(expect).c_str());
      return 1;
    }
  }
  DOK(glia_tensor_release(x));
  DOK(glia_module_release(ddp));
  return 0;
}

// The bucket assignment in each iteration, and the marked-twice error, as torch 1.13's
// (tests/golden/gen_ddp_rebuild.py): one bucket in the first iteration, rebuilt in gradient-arrival
// order for the second (with static_graph, the third), rank 0's order on every rank.
TEST(DistributedDataParallel, RebuiltBucketsAsTorch) {
  REQUIRE_GLOO();
  std::ifstream f(std::string(GLIA_TEST_DATA_DIR) + "/golden/distributed/ddp_rebuild.json");
  ASSERT_TRUE(f.good());
  nlohmann::json cases = nlohmann::json::parse(f);
  ASSERT_EQ(cases.size(), 10u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c["name"].get<std::string>());
    with_group(2, false, [&](int rank, glia_process_group* g) { return golden_case(c, rank, g); });
  }
}

// Training through the rebuild still equals one process.
TEST(DistributedDataParallel, RebuiltBucketsTrainAsOneProcess) {
  REQUIRE_GLOO();
  RunConfig su{2, false};
  su.model = kReordered;
  run_setup(su);
  su = RunConfig{3, true, 1e-6};  // three buckets after the rebuild, many in flight
  su.model = kBig;
  su.hook = kHostHook;
  run_setup(su);
  su = RunConfig{2, false, 1e-6, 2};  // no_sync micro-batches, gradients as views of the new buckets
  su.model = kBig;
  su.as_view = true;
  run_setup(su);
  su = RunConfig{3, false, 1e-6};  // rank 0's order on the ranks whose order differs
  su.model = kSwapped;
  run_setup(su);
}

// Gradients that are views of the old buckets move into the new ones with their values.
TEST(DistributedDataParallel, RebuildKeepsGradientViews) {
  REQUIRE_GLOO();
  with_group(2, false, [](int rank, glia_process_group* g) {
    Batch b;
    Model m;
    if (build_kind(kBig, rank, 3, m)) return 1;
    glia_ddp_options o;
    glia_ddp_options_init(&o);
    o.bucket_cap_mb = 1e-6;
    o.gradient_as_bucket_view = 1;
    glia_module* ddp = nullptr;
    DOK(glia_nn_distributed_data_parallel(m.seq, g, &o, &ddp));
    std::vector<glia_tensor*> ps = parameters(m.seq);
    glia_tensor* x = rows(b.x, kIn, rank * 6, 6);
    glia_tensor* y = rows(b.y, kOut, rank * 6, 6);
    if (step_backward(ddp, x, y, 1.0)) return 1;
    int64_t nb = 0, cnt = 0;
    DOK(glia_ddp_bucket_parameters(ddp, 0, nullptr, 0, &cnt, &nb));
    DCHECK(nb == 1 && cnt == 6);
    std::vector<std::vector<float>> before;
    for (auto* p : ps) {
      glia_tensor* gr = nullptr;
      DOK(glia_tensor_grad(p, &gr));
      before.push_back(values(gr));
      DOK(glia_tensor_release(gr));
    }
    // The next forward rebuilds (under no_sync too, as torch's): three buckets, same gradients.
    DOK(glia_ddp_set_require_backward_grad_sync(ddp, 0));
    glia_tensor* out = nullptr;
    int64_t count = 0;
    DOK(glia_module_forward(ddp, &x, 1, &out, 1, &count));
    DOK(glia_tensor_release(out));
    DOK(glia_ddp_bucket_parameters(ddp, 0, nullptr, 0, &cnt, &nb));
    DCHECK(nb == 3 && cnt == 4);
    for (size_t i = 0; i < ps.size(); ++i) {
      glia_tensor* gr = nullptr;
      DOK(glia_tensor_grad(ps[i], &gr));
      DCHECK(values(gr) == before[i]);
      DOK(glia_tensor_release(gr));
    }
    if (check_grads_are_bucket_views(ddp, ps)) return 1;
    for (auto* p : ps) DOK(glia_tensor_release(p));
    for (auto* t : {x, y}) DOK(glia_tensor_release(t));
    DOK(glia_module_release(ddp));
    return 0;
  });
}

// static_graph: a layer whose gradient arrives in two reentrant backwards (checkpointed twice) is
// reduced once, after its last contribution; without static_graph that is torch's marked-twice error
// (RebuiltBucketsAsTorch).
TEST(DistributedDataParallel, StaticGraphLayerUsedTwice) {
  REQUIRE_GLOO();
  RunConfig su{2, false};
  su.model = kTwice;
  su.static_graph = true;
  run_setup(su);
  su = RunConfig{3, true, 1e-6, 2};
  su.model = kTwice;
  su.static_graph = true;
  su.as_view = true;
  run_setup(su);
}

// The last layer checkpointed (reentrant): its gradients, the first of every backward, arrive inside
// the nested backward, yet the reduction waits for the outer one (the DDP sink queues it there), in
// every mode: buckets rebuilt, find_unused_parameters, static_graph, gradients as bucket views.
TEST(DistributedDataParallel, FirstGradientInReentrantBackward) {
  REQUIRE_GLOO();
  RunConfig su{2, false};
  su.model = kLastCheckpointed;
  run_setup(su);
  su.unused = true;     // find_unused_parameters
  su.hook = kHostHook;  // every bucket reduced once per backward
  run_setup(su);
  su = RunConfig{2, true, 1e-6, 2};  // tiny buckets, two micro-batches (no_sync)
  su.model = kLastCheckpointed;
  su.static_graph = true;
  su.as_view = true;
  run_setup(su);
}

// Two heads, the loss over the first only (find_unused_parameters): the second head's parameters
// keep .grad None (the sink lets no zero gradient into the head the loss does not use). In both
// modes torch.autograd.grad through DDP's outputs (a gradient penalty) before the backward reduces
// nothing and fails nothing (without find_unused_parameters a reduction would find every parameter
// unused and fail).
TEST(DistributedDataParallel, SinkLeavesUnusedOutputsAndGradAlone) {
  REQUIRE_GLOO();
  for (int both = 0; both < 2; ++both) {
    SCOPED_TRACE(both ? "the loss over both heads" : "find_unused_parameters, the loss over the first head");
    with_group(2, false, [both](int rank, glia_process_group* g) {
      Batch b;
      Model m;
      if (build_kind(kTwoHeads, rank, 5, m)) return 1;
      glia_ddp_options o;
      glia_ddp_options_init(&o);
      o.find_unused_parameters = both ? 0 : 1;
      glia_module* ddp = nullptr;
      DOK(glia_nn_distributed_data_parallel(m.seq, g, &o, &ddp));
      std::vector<glia_tensor*> ps = parameters(m.seq);  // a.weight, a.bias, b.weight, b.bias
      glia_tensor* x = rows(b.x, kIn, rank * 6, 6);
      glia_tensor* y = rows(b.y, kOut, rank * 6, 6);
      DOK(glia_tensor_set_requires_grad(x, 1));
      auto has_grad = [&](size_t i) {
        glia_tensor* gr = nullptr;
        if (glia_tensor_grad(ps[i], &gr)) std::abort();
        glia_error_free(glia_tensor_release(gr));
        return gr != nullptr;
      };
      for (int it = 0; it < 2; ++it) {
        glia_tensor *outs[2] = {nullptr, nullptr}, *loss = nullptr, *gx = nullptr;
        int64_t count = 0;
        DOK(glia_module_forward(ddp, &x, 1, outs, 2, &count));
        DCHECK(count == 2);
        DOK(glia_mse_loss(outs[0], y, GLIA_REDUCTION_MEAN, &loss));
        if (both) {
          glia_tensor *l1 = nullptr, *sum = nullptr;
          DOK(glia_mse_loss(outs[1], y, GLIA_REDUCTION_MEAN, &l1));
          DOK(glia_add(loss, l1, 1.0, &sum));
          DOK(glia_tensor_release(l1));
          DOK(glia_tensor_release(loss));
          loss = sum;
        }
        DOK(glia_autograd_grad(&loss, 1, &x, 1, nullptr, 1, 0, 0, &gx));
        for (size_t i = 0; i < ps.size(); ++i) DCHECK(it > 0 || !has_grad(i));
        DOK(glia_tensor_backward(loss, nullptr, 0));
        DCHECK(has_grad(0) && has_grad(1) && has_grad(2) == (both == 1) && has_grad(3) == (both == 1));
        for (auto* t : {outs[0], outs[1], loss, gx}) DOK(glia_tensor_release(t));
      }
      // The first head's gradients are the average over the ranks: the same everywhere.
      for (size_t i = 0; i < 2; ++i) {
        glia_tensor* gr = nullptr;
        DOK(glia_tensor_grad(ps[i], &gr));
        std::vector<float> a = values(gr);
        int64_t numel = static_cast<int64_t>(a.size());
        std::vector<glia_tensor*> all;
        for (int r = 0; r < 2; ++r) {
          glia_tensor* t = nullptr;
          DOK(glia_tensor_from_data(a.data(), a.size() * sizeof(float), &numel, 1, GLIA_FLOAT32, &t));
          all.push_back(t);
        }
        glia_tensor* flat = nullptr;
        DOK(glia_tensor_from_data(a.data(), a.size() * sizeof(float), &numel, 1, GLIA_FLOAT32, &flat));
        DOK(glia_process_group_all_gather(g, all.data(), 2, flat, nullptr));
        DCHECK(values(all[0]) == values(all[1]));
        for (auto* t : {all[0], all[1], flat, gr}) DOK(glia_tensor_release(t));
      }
      for (auto* t : {x, y}) DOK(glia_tensor_release(t));
      for (auto* p : ps) DOK(glia_tensor_release(p));
      DOK(glia_module_release(ddp));
      return 0;
    });
  }
}

// static_graph: a parameter unused in the first iteration is ready at once afterwards (no error, and
// the same training as find_unused_parameters).
TEST(DistributedDataParallel, StaticGraphUnusedParameter) {
  REQUIRE_GLOO();
  RunConfig su{2, false};
  su.unused = true;
  su.static_graph = true;
  run_setup(su);
  su = RunConfig{3, true, 1e-6};
  su.unused = true;
  su.static_graph = true;
  su.model = kBig;
  su.hook = kHostHook;
  run_setup(su);
}

// torch's _set_static_graph(): before the first iteration only.
TEST(DistributedDataParallel, SetStaticGraph) {
  REQUIRE_GLOO();
  with_group(2, false, [](int rank, glia_process_group* g) {
    Batch b;
    Model m;
    if (build_kind(kTwice, rank, 4, m)) return 1;
    glia_tensor* x = rows(b.x, kIn, rank * 6, 6);
    glia_tensor* y = rows(b.y, kOut, rank * 6, 6);
    // A caller built before static_graph existed: its struct_size ends before it, so it is not read.
    glia_ddp_options o;
    glia_ddp_options_init(&o);
    o.struct_size = offsetof(glia_ddp_options, static_graph);
    o.static_graph = 1;
    glia_module* ddp = nullptr;
    DOK(glia_nn_distributed_data_parallel(m.seq, g, &o, &ddp));
    {
      glia_tensor *out = nullptr, *loss = nullptr;
      int64_t count = 0;
      DOK(glia_module_forward(ddp, &x, 1, &out, 1, &count));
      DOK(glia_mse_loss(out, y, GLIA_REDUCTION_MEAN, &loss));
      DERR(glia_tensor_backward(loss, nullptr, 0), GLIA_ERR_CALLBACK, "has been marked as ready twice");
      DOK(glia_tensor_release(out));
      DOK(glia_tensor_release(loss));
    }
    DOK(glia_module_release(ddp));
    DOK(glia_nn_distributed_data_parallel(m.seq, g, nullptr, &ddp));
    DERR(glia_ddp_set_static_graph(m.seq), GLIA_ERR_INVALID_ARGUMENT,
         "argument 'module' is not a DistributedDataParallel");
    DOK(glia_ddp_set_static_graph(ddp));
    for (int it = 0; it < 3; ++it)
      if (step_backward(ddp, x, y, 1.0)) return 1;  // the layer used twice is no error
    DERR(glia_ddp_set_static_graph(ddp), GLIA_ERR_STATE,
         "set_static_graph() should be called before training loop starts and after DistributedDataParallel is "
         "constructed.");
    for (auto* t : {x, y}) DOK(glia_tensor_release(t));
    DOK(glia_module_release(ddp));
    return 0;
  });
}

// static_graph: a parameter unused in the first iteration that gets a gradient later is torch's error.
TEST(DistributedDataParallel, StaticGraphChangedGraph) {
  REQUIRE_GLOO();
  with_group(2, false, [](int rank, glia_process_group* g) {
    Batch b;
    Model m;
    if (build(6, m, 8, true)) return 1;
    glia_ddp_options o;
    glia_ddp_options_init(&o);
    o.static_graph = 1;
    glia_module* ddp = nullptr;
    DOK(glia_nn_distributed_data_parallel(m.seq, g, &o, &ddp));
    std::vector<glia_tensor*> ps = parameters(m.seq);  // ps[0]: "unused"
    glia_tensor* x = rows(b.x, kIn, rank * 6, 6);
    glia_tensor* y = rows(b.y, kOut, rank * 6, 6);
    for (int it = 0; it < 2; ++it) {
      if (step_backward(ddp, x, y, 1.0)) return 1;
      glia_tensor* gr = nullptr;
      DOK(glia_tensor_grad(ps[0], &gr));
      DCHECK(gr == nullptr);  // unused on every rank: None stays None, as torch leaves it
    }
    glia_tensor *out = nullptr, *loss = nullptr, *extra = nullptr, *total = nullptr;
    int64_t count = 0;
    DOK(glia_module_forward(ddp, &x, 1, &out, 1, &count));
    DOK(glia_mse_loss(out, y, GLIA_REDUCTION_MEAN, &loss));
    DOK(glia_sum(ps[0], nullptr, 0, 0, &extra));
    DOK(glia_add(loss, extra, 1.0, &total));
    DERR(glia_tensor_backward(total, nullptr, 0), GLIA_ERR_STATE,
         "Your training graph has changed in this iteration, e.g., one parameter is unused in first iteration, but "
         "then got used in the second iteration. this is not compatible with static_graph set to True.");
    for (auto* t : {x, y, out, loss, extra, total}) DOK(glia_tensor_release(t));
    for (auto* p : ps) DOK(glia_tensor_release(p));
    DOK(glia_module_release(ddp));
    return 0;
  });
}

// A parameter no rank uses keeps its .grad as it was (None stays None, an old gradient stays), and a
// parameter only some ranks use is averaged with the others' old .grad as it stands (zeros when None):
// torch 1.13's Reducer, checked against it (2 Gloo ranks, find_unused_parameters=True, Linear heads:
// rank 0 with grad 4, rank 1 unused with an old grad of 7 gives 5.5 on both). Every mode that tracks
// unused parameters: find_unused_parameters, gradient_as_bucket_view, static_graph.
TEST(DistributedDataParallel, GloballyUnusedParameterKeepsItsGrad) {
  REQUIRE_GLOO();
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE(mode == 0 ? "find_unused_parameters" : mode == 1 ? "gradient_as_bucket_view" : "static_graph");
    with_group(2, false, [mode](int rank, glia_process_group* g) {
      Batch b;
      Model m;
      if (build(6, m, 8, true)) return 1;
      glia_ddp_options o;
      glia_ddp_options_init(&o);
      o.find_unused_parameters = mode < 2;
      o.gradient_as_bucket_view = mode == 1;
      o.static_graph = mode == 2;
      glia_module* ddp = nullptr;
      DOK(glia_nn_distributed_data_parallel(m.seq, g, &o, &ddp));
      std::vector<glia_tensor*> ps = parameters(m.seq);  // ps[0]: "unused"
      glia_tensor* x = rows(b.x, kIn, rank * 6, 6);
      glia_tensor* y = rows(b.y, kOut, rank * 6, 6);
      auto grad_of_unused = [&]() -> std::vector<float> {
        glia_tensor* gr = nullptr;
        if (glia_tensor_grad(ps[0], &gr)) std::abort();
        if (!gr) return {};
        std::vector<float> v = values(gr);
        glia_error_free(glia_tensor_release(gr));
        return v;
      };
      for (int it = 0; it < 2; ++it) {
        if (step_backward(ddp, x, y, 1.0)) return 1;
        DCHECK(grad_of_unused().empty());
      }
      // An old gradient of a parameter nobody uses is left alone.
      std::vector<float> seven(5, 7.f);
      int64_t n = 5;
      glia_tensor* old = nullptr;
      DOK(glia_tensor_from_data(seven.data(), seven.size() * sizeof(float), &n, 1, GLIA_FLOAT32, &old));
      DOK(glia_tensor_set_grad(ps[0], old));
      DOK(glia_tensor_release(old));
      if (step_backward(ddp, x, y, 1.0)) return 1;
      DCHECK(grad_of_unused() == seven);
      if (mode < 2) {
        // Used on rank 0 only (d sum / d p = 1 there), an old 7 on rank 1: both get (1 + 7) / 2.
        std::vector<float> other(5, rank == 0 ? 0.f : 7.f);
        DOK(glia_tensor_from_data(other.data(), other.size() * sizeof(float), &n, 1, GLIA_FLOAT32, &old));
        DOK(glia_tensor_set_grad(ps[0], rank == 0 ? nullptr : old));
        DOK(glia_tensor_release(old));
        glia_tensor *out = nullptr, *loss = nullptr, *extra = nullptr, *total = nullptr;
        int64_t count = 0;
        DOK(glia_module_forward(ddp, &x, 1, &out, 1, &count));
        DOK(glia_mse_loss(out, y, GLIA_REDUCTION_MEAN, &loss));
        DOK(glia_sum(ps[0], nullptr, 0, 0, &extra));
        DOK(glia_add(loss, rank == 0 ? extra : loss, rank == 0 ? 1.0 : 0.0, &total));
        DOK(glia_tensor_backward(total, nullptr, 0));
        DCHECK(grad_of_unused() == std::vector<float>(5, 4.f));
        for (auto* t : {out, loss, extra, total}) DOK(glia_tensor_release(t));
      }
      for (auto* t : {x, y}) DOK(glia_tensor_release(t));
      for (auto* p : ps) DOK(glia_tensor_release(p));
      DOK(glia_module_release(ddp));
      return 0;
    });
  }
}

}  // namespace
