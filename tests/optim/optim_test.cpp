// Optimizers, LR schedulers and clip_grad_* against torch 1.13
// (tests/golden/gen_optim.py -> golden/optim/optim.json).
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

const json& golden() {
  static const json j = load_json("golden/optim/optim.json");
  return j;
}

double opt_num(const json& o, const char* k, double def) { return o.contains(k) ? o[k].get<double>() : def; }
bool opt_flag(const json& o, const char* k) { return o.contains(k) && o[k].get<bool>(); }

// torch's optimizer options `o` (keyword names; absent: torch's defaults) as glia options structs.
glia_sgd_options sgd_options(const json& o) {
  glia_sgd_options s;
  glia_sgd_options_init(&s);
  s.lr = opt_num(o, "lr", s.lr);
  s.momentum = opt_num(o, "momentum", 0);
  s.dampening = opt_num(o, "dampening", 0);
  s.weight_decay = opt_num(o, "weight_decay", 0);
  s.nesterov = opt_flag(o, "nesterov");
  s.maximize = opt_flag(o, "maximize");
  return s;
}
glia_adam_options adam_options(const std::string& kind, const json& o) {
  glia_adam_options a;
  if (kind == "adam")
    glia_adam_options_init(&a);
  else
    glia_adamw_options_init(&a);
  a.lr = opt_num(o, "lr", a.lr);
  if (o.contains("betas")) {
    a.betas[0] = o["betas"][0].get<double>();
    a.betas[1] = o["betas"][1].get<double>();
  }
  a.eps = opt_num(o, "eps", a.eps);
  a.weight_decay = opt_num(o, "weight_decay", a.weight_decay);
  a.amsgrad = opt_flag(o, "amsgrad");
  a.maximize = opt_flag(o, "maximize");
  return a;
}
glia_rmsprop_options rmsprop_options(const json& o) {
  glia_rmsprop_options r;
  glia_rmsprop_options_init(&r);
  r.lr = opt_num(o, "lr", r.lr);
  r.alpha = opt_num(o, "alpha", r.alpha);
  r.eps = opt_num(o, "eps", r.eps);
  r.weight_decay = opt_num(o, "weight_decay", 0);
  r.momentum = opt_num(o, "momentum", 0);
  r.centered = opt_flag(o, "centered");
  r.maximize = opt_flag(o, "maximize");
  return r;
}

// Builds torch's optimizer `kind` with options `o` (torch keyword names) over params.
glia_error* make_optimizer(const std::string& kind, const json& o, std::vector<glia_tensor*>& params,
                           glia_optimizer** out) {
  const int64_t n = static_cast<int64_t>(params.size());
  if (kind == "sgd") {
    glia_sgd_options s = sgd_options(o);
    return glia_optim_sgd(params.data(), n, &s, out);
  }
  if (kind == "adam" || kind == "adamw") {
    glia_adam_options a = adam_options(kind, o);
    return (kind == "adam" ? glia_optim_adam : glia_optim_adamw)(params.data(), n, &a, out);
  }
  glia_rmsprop_options r = rmsprop_options(o);
  return glia_optim_rmsprop(params.data(), n, &r, out);
}

glia_tensor* to_dtype(Handles& h, const json& t, glia_dtype d) {
  std::vector<int64_t> shp = t["shape"].get<std::vector<int64_t>>();
  return make(h, decode_all(t["values"]), shp, d);
}

// The three parameters of the golden cases (p2 never gets a grad), requiring grad.
std::vector<glia_tensor*> make_params(Handles& h, glia_dtype d) {
  std::vector<glia_tensor*> ps;
  for (const json& t : golden()["initial"]) {
    glia_tensor* p = to_dtype(h, t, d);
    glia_tensor* c = nullptr;
    ok(glia_tensor_clone(p, &c), "clone");
    h.add(c);
    ok(glia_tensor_set_requires_grad(c, 1), "set_requires_grad");
    ps.push_back(c);
  }
  return ps;
}

// Feeds the fixture's grads of step s (0-based) to p0 and p1.
void feed_grads(Handles& h, std::vector<glia_tensor*>& ps, int s, glia_dtype d) {
  const json& gs = golden()["grads"][s];
  for (size_t i = 0; i < 2; ++i) ok(glia_tensor_set_grad(ps[i], to_dtype(h, gs[i], d)), "set_grad");
}

double tol_for(glia_dtype d) { return d == GLIA_FLOAT64 ? 1e-9 : 1e-5; }

// The optimizer's state_dict against torch's flattened one: same keys in the same order, same values.
void expect_state_dict(glia_optimizer* o, const json& want, double tol) {
  DictHandle d;
  GLIA_OK_(glia_optimizer_state_dict(o, d.out()));
  std::vector<std::string> keys = dict_keys(d.get()), want_keys;
  for (const json& kv : want) want_keys.push_back(kv[0].get<std::string>());
  EXPECT_EQ(keys, want_keys);
  for (const json& kv : want) {
    std::string k = kv[0].get<std::string>();
    glia_tensor* t = nullptr;
    glia_error* e = glia_tensor_dict_get(d.get(), k.c_str(), &t);
    if (e) {
      ADD_FAILURE() << "missing " << k << ": " << glia_error_message(e);
      glia_error_free(e);
      continue;
    }
    const json& wt = kv[1];
    // "step": torch's RMSprop (1.13) keeps a Python int; glia stores float32 like Adam's.
    if (k.size() > 5 && k.compare(k.size() - 5, 5, ".step") == 0) {
      EXPECT_EQ(dtype(t), GLIA_FLOAT32) << k;
      EXPECT_EQ(values(t), decode_all(wt["values"])) << k;
    } else {
      EXPECT_EQ(dtype(t), dtype_named(wt["dtype"].get<std::string>())) << k;
      expect_tensor(t, wt, tol, k);
    }
    glia_tensor_release(t);
  }
}

glia_dtype case_dtype(const json& c) { return c["dtype"] == "float32" ? GLIA_FLOAT32 : GLIA_FLOAT64; }

}  // namespace

// Every option combination: parameters after steps 1, 5, 10, 20 and the state after 20.
TEST(OptimTrajectory, EveryCaseMatchesTorch) {
  int n = 0;
  for (const json& c : golden()["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    glia_dtype d = case_dtype(c);
    Handles h;
    std::vector<glia_tensor*> ps = make_params(h, d);
    std::vector<double> p2_before = values(ps[2]);
    OptHandle o;
    GLIA_OK_(make_optimizer(c["optimizer"], c["options"], ps, o.out()));
    for (int s = 1; s <= 20; ++s) {
      GLIA_OK_(glia_optimizer_zero_grad(o.get(), 1));
      feed_grads(h, ps, s - 1, d);
      GLIA_OK_(glia_optimizer_step(o.get()));
      std::string key = std::to_string(s);
      if (c["checkpoints"].contains(key))
        for (size_t i = 0; i < 3; ++i)
          expect_tensor(ps[i], c["checkpoints"][key][i], tol_for(d), "step " + key + " p" + std::to_string(i));
    }
    EXPECT_EQ(values(ps[2]), p2_before) << "a parameter without grad must not change";
    expect_state_dict(o.get(), c["state"], tol_for(d));
    ++n;
  }
  EXPECT_GE(n, 50);
}

// Two parameter groups with their own options (add_param_group with an options struct).
TEST(OptimGroups, GroupsKeepTheirOwnOptions) {
  for (const json& c : golden()["groups"]) {
    std::string kind = c["optimizer"];
    SCOPED_TRACE(kind);
    Handles h;
    std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
    std::vector<glia_tensor*> g0{ps[0]}, g1{ps[1]};
    OptHandle o;
    GLIA_OK_(make_optimizer(kind, c["group0"], g0, o.out()));
    // The second group's options struct, built the same way.
    const json& o1 = c["group1"];
    if (kind == "sgd") {
      glia_sgd_options s = sgd_options(o1);
      GLIA_OK_(glia_optimizer_add_param_group(o.get(), g1.data(), 1, &s));
    } else if (kind == "adam") {
      glia_adam_options a = adam_options(kind, o1);
      GLIA_OK_(glia_optimizer_add_param_group(o.get(), g1.data(), 1, &a));
    } else {
      glia_rmsprop_options r = rmsprop_options(o1);
      GLIA_OK_(glia_optimizer_add_param_group(o.get(), g1.data(), 1, &r));
    }
    int64_t ng = 0;
    GLIA_OK_(glia_optimizer_num_param_groups(o.get(), &ng));
    EXPECT_EQ(ng, 2);
    double lr1 = 0;
    GLIA_OK_(glia_optimizer_get_lr(o.get(), 1, &lr1));
    EXPECT_EQ(lr1, o1["lr"].get<double>());
    for (int s = 0; s < c["steps"].get<int>(); ++s) {
      GLIA_OK_(glia_optimizer_zero_grad(o.get(), 1));
      feed_grads(h, ps, s, GLIA_FLOAT64);
      GLIA_OK_(glia_optimizer_step(o.get()));
    }
    for (size_t i = 0; i < 2; ++i) expect_tensor(ps[i], c["params"][i], 1e-9, "p" + std::to_string(i));
    expect_state_dict(o.get(), c["state"], 1e-9);
  }
}

// NULL options in add_param_group take the optimizer's defaults (its constructor options).
TEST(OptimGroups, NullOptionsTakeTheOptimizersDefaults) {
  Handles h;
  std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
  glia_sgd_options s;
  glia_sgd_options_init(&s);
  s.lr = 0.3;
  s.momentum = 0.7;
  OptHandle o;
  GLIA_OK_(glia_optim_sgd(ps.data(), 1, &s, o.out()));
  GLIA_OK_(glia_optimizer_add_param_group(o.get(), ps.data() + 1, 2, nullptr));
  DictHandle d;
  GLIA_OK_(glia_optimizer_state_dict(o.get(), d.out()));
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_dict_get(d.get(), "param_groups.1.momentum", &t));
  EXPECT_EQ(values(t), std::vector<double>{0.7});
  glia_tensor_release(t);
  GLIA_OK_(glia_tensor_dict_get(d.get(), "param_groups.1.params", &t));
  EXPECT_EQ(dtype(t), GLIA_INT64);
  EXPECT_EQ(values(t), (std::vector<double>{1, 2}));
  glia_tensor_release(t);
  // set_lr / get_lr per group.
  GLIA_OK_(glia_optimizer_set_lr(o.get(), 1, 0.125));
  double lr = 0;
  GLIA_OK_(glia_optimizer_get_lr(o.get(), 1, &lr));
  EXPECT_EQ(lr, 0.125);
  GLIA_OK_(glia_optimizer_get_lr(o.get(), 0, &lr));
  EXPECT_EQ(lr, 0.3);
  EXPECT_GLIA_MSG(glia_optimizer_get_lr(o.get(), 2, &lr), GLIA_ERR_INVALID_ARGUMENT, "out of range");
  EXPECT_GLIA_MSG(glia_optimizer_set_lr(o.get(), 0, -1.0), GLIA_ERR_INVALID_ARGUMENT, "Invalid learning rate: -1.0");
}

// state_dict after 10 steps, loaded into a fresh optimizer (other options), then 10 more steps
// gives the uninterrupted run's parameters after 20.
TEST(OptimStateDict, ResumeMatchesUninterruptedRun) {
  int n = 0;
  for (const json& c : golden()["cases"]) {
    std::string name = c["name"];
    if (case_dtype(c) != GLIA_FLOAT64) continue;
    SCOPED_TRACE(name);
    Handles h;
    std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
    OptHandle a;
    GLIA_OK_(make_optimizer(c["optimizer"], c["options"], ps, a.out()));
    for (int s = 0; s < 10; ++s) {
      feed_grads(h, ps, s, GLIA_FLOAT64);
      GLIA_OK_(glia_optimizer_step(a.get()));
    }
    DictHandle d;
    GLIA_OK_(glia_optimizer_state_dict(a.get(), d.out()));
    OptHandle b;
    GLIA_OK_(make_optimizer(c["optimizer"], json::object(), ps, b.out()));
    GLIA_OK_(glia_optimizer_load_state_dict(b.get(), d.get()));
    // The loaded state is a copy: stepping `a` must not disturb `b`.
    feed_grads(h, ps, 19, GLIA_FLOAT64);
    std::vector<std::vector<double>> saved;
    for (glia_tensor* p : ps) saved.push_back(values(p));
    GLIA_OK_(glia_optimizer_step(a.get()));
    for (size_t i = 0; i < 3; ++i) {
      std::vector<double>& v = saved[i];
      glia_tensor* r = make(h, v, shape(ps[i]));
      glia_grad_mode_set(0);
      GLIA_OK_(glia_copy_(ps[i], r));
      glia_grad_mode_set(1);
    }
    for (int s = 10; s < 20; ++s) {
      feed_grads(h, ps, s, GLIA_FLOAT64);
      GLIA_OK_(glia_optimizer_step(b.get()));
    }
    for (size_t i = 0; i < 3; ++i) expect_tensor(ps[i], c["checkpoints"]["20"][i], 1e-9, "p" + std::to_string(i));
    ++n;
  }
  EXPECT_GE(n, 40);
}

TEST(OptimStateDict, LoadErrorsAreTorchsAndLeaveTheOptimizerUnchanged) {
  const json& errs = golden()["errors"];
  Handles h;
  std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
  glia_adam_options a;
  glia_adam_options_init(&a);
  a.amsgrad = 1;
  OptHandle o;
  GLIA_OK_(glia_optim_adam(ps.data(), 2, &a, o.out()));
  feed_grads(h, ps, 0, GLIA_FLOAT64);
  GLIA_OK_(glia_optimizer_step(o.get()));
  DictHandle good;
  GLIA_OK_(glia_optimizer_state_dict(o.get(), good.out()));

  // Different number of groups.
  {
    OptHandle two;
    GLIA_OK_(glia_optim_adam(ps.data(), 1, nullptr, two.out()));
    GLIA_OK_(glia_optimizer_add_param_group(two.get(), ps.data() + 1, 1, nullptr));
    DictHandle d;
    GLIA_OK_(glia_optimizer_state_dict(two.get(), d.out()));
    EXPECT_GLIA_MSG(glia_optimizer_load_state_dict(o.get(), d.get()), GLIA_ERR_INVALID_ARGUMENT,
                    errs["groups_count"].get<std::string>());
  }
  // A group of another size.
  {
    OptHandle three;
    GLIA_OK_(glia_optim_adam(ps.data(), 3, nullptr, three.out()));
    DictHandle d;
    GLIA_OK_(glia_optimizer_state_dict(three.get(), d.out()));
    EXPECT_GLIA_MSG(glia_optimizer_load_state_dict(o.get(), d.get()), GLIA_ERR_INVALID_ARGUMENT,
                    errs["group_size"].get<std::string>());
  }
  // A state tensor of the wrong shape, after valid entries: nothing is applied.
  {
    DictHandle d;
    GLIA_OK_(glia_tensor_dict_create(d.out()));
    int64_t n = 0;
    GLIA_OK_(glia_tensor_dict_size(good.get(), &n));
    for (int64_t i = 0; i < n; ++i) {
      char k[128];
      size_t len;
      GLIA_OK_(glia_tensor_dict_key_at(good.get(), i, k, sizeof(k), &len));
      glia_tensor* v = nullptr;
      GLIA_OK_(glia_tensor_dict_value_at(good.get(), i, &v));
      h.add(v);
      std::string key(k);
      if (key == "param_groups.0.lr") v = make(h, {0.5}, {});
      if (key == "state.1.exp_avg") v = make(h, {1, 2, 3}, {3});
      GLIA_OK_(glia_tensor_dict_set(d.get(), key.c_str(), v));
    }
    EXPECT_GLIA_MSG(glia_optimizer_load_state_dict(o.get(), d.get()), GLIA_ERR_SHAPE, "state.1.exp_avg");
    double lr = 0;
    GLIA_OK_(glia_optimizer_get_lr(o.get(), 0, &lr));
    EXPECT_EQ(lr, 1e-3) << "a failed load must change nothing";
    // Unknown keys and missing options.
    GLIA_OK_(glia_tensor_dict_set(d.get(), "state.1.exp_avg", make(h, {0, 0, 0, 0, 0}, {5})));
    GLIA_OK_(glia_optimizer_load_state_dict(o.get(), d.get()));
    GLIA_OK_(glia_optimizer_get_lr(o.get(), 0, &lr));
    EXPECT_EQ(lr, 0.5);
    GLIA_OK_(glia_tensor_dict_set(d.get(), "param_groups.0.foreach", make(h, {0}, {})));
    GLIA_OK_(glia_optimizer_load_state_dict(o.get(), d.get()));  // torch's flags are ignored
    GLIA_OK_(glia_tensor_dict_set(d.get(), "param_groups.0.bogus", make(h, {0}, {})));
    EXPECT_GLIA_MSG(glia_optimizer_load_state_dict(o.get(), d.get()), GLIA_ERR_INVALID_ARGUMENT, "bogus");
    GLIA_OK_(glia_tensor_dict_remove(d.get(), "param_groups.0.bogus"));
    GLIA_OK_(glia_tensor_dict_remove(d.get(), "param_groups.0.eps"));
    EXPECT_GLIA_MSG(glia_optimizer_load_state_dict(o.get(), d.get()), GLIA_ERR_INVALID_ARGUMENT, "param_groups.0.eps");
    GLIA_OK_(glia_tensor_dict_set(d.get(), "nonsense", make(h, {0}, {})));
    EXPECT_GLIA_MSG(glia_optimizer_load_state_dict(o.get(), d.get()), GLIA_ERR_INVALID_ARGUMENT, "nonsense");
  }
}

TEST(OptimErrors, OptionErrorsAreTorchs) {
  for (const json& e : golden()["option_errors"]) {
    SCOPED_TRACE(e["message"].get<std::string>());
    Handles h;
    std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
    glia_optimizer* o = nullptr;
    EXPECT_GLIA_MSG(make_optimizer(e["optimizer"], e["options"], ps, &o), GLIA_ERR_INVALID_ARGUMENT,
                    e["message"].get<std::string>());
    EXPECT_EQ(o, nullptr);
  }
}

TEST(OptimErrors, ParameterErrorsAreTorchs) {
  const json& errs = golden()["errors"];
  Handles h;
  std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
  glia_optimizer* o = nullptr;
  EXPECT_GLIA_MSG(glia_optim_sgd(ps.data(), 0, nullptr, &o), GLIA_ERR_INVALID_ARGUMENT,
                  errs["empty"].get<std::string>());
  OptHandle sgd;
  GLIA_OK_(glia_optim_sgd(ps.data(), 2, nullptr, sgd.out()));
  EXPECT_GLIA_MSG(glia_optimizer_add_param_group(sgd.get(), ps.data() + 1, 2, nullptr), GLIA_ERR_INVALID_ARGUMENT,
                  errs["duplicate_group"].get<std::string>());
  int64_t ng = 0;
  GLIA_OK_(glia_optimizer_num_param_groups(sgd.get(), &ng));
  EXPECT_EQ(ng, 1);
  // A non-leaf tensor.
  glia_tensor* y = nullptr;
  GLIA_OK_(glia_mul(ps[0], ps[0], &y));
  h.add(y);
  EXPECT_GLIA_MSG(glia_optim_adam(&y, 1, nullptr, &o), GLIA_ERR_INVALID_ARGUMENT, "can't optimize a non-leaf Tensor");
  // Bad handles and struct sizes.
  EXPECT_GLIA_ERR(glia_optimizer_step(nullptr), GLIA_ERR_INVALID_HANDLE);
  glia_sgd_options bad;
  glia_sgd_options_init(&bad);
  bad.struct_size = 0;
  EXPECT_GLIA_MSG(glia_optim_sgd(ps.data(), 1, &bad, &o), GLIA_ERR_INVALID_ARGUMENT, "struct_size");
  // A shorter struct (an older caller): the fields it covers are read, the rest are defaults.
  glia_sgd_options old;
  glia_sgd_options_init(&old);
  old.lr = 0.25;
  old.momentum = -5;  // not covered: ignored
  old.struct_size = offsetof(glia_sgd_options, momentum);
  OptHandle o2;
  GLIA_OK_(glia_optim_sgd(ps.data(), 1, &old, o2.out()));
  double lr = 0;
  GLIA_OK_(glia_optimizer_get_lr(o2.get(), 0, &lr));
  EXPECT_EQ(lr, 0.25);
}

TEST(OptimZeroGrad, SetToNoneOrZeroes) {
  Handles h;
  std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
  OptHandle o;
  GLIA_OK_(glia_optim_sgd(ps.data(), 3, nullptr, o.out()));
  feed_grads(h, ps, 0, GLIA_FLOAT64);
  GLIA_OK_(glia_optimizer_zero_grad(o.get(), 0));
  glia_tensor* g = nullptr;
  GLIA_OK_(glia_tensor_grad(ps[0], &g));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(values(g), std::vector<double>(12, 0.0));
  glia_tensor_release(g);
  GLIA_OK_(glia_optimizer_zero_grad(o.get(), 1));
  GLIA_OK_(glia_tensor_grad(ps[0], &g));
  EXPECT_EQ(g, nullptr);
  // step with no grads at all changes nothing.
  std::vector<double> before = values(ps[0]);
  GLIA_OK_(glia_optimizer_step(o.get()));
  EXPECT_EQ(values(ps[0]), before);
}

// Large float32 and float64 parameters go through the parallel fast path; a
// non-contiguous parameter through the generic one; both equal the serial math.
TEST(OptimKernels, LargeAndStridedParametersMatchSmallOnes) {
  for (glia_dtype d : {GLIA_FLOAT32, GLIA_FLOAT64}) {
    Handles h;
    const int64_t n = 200000;
    std::vector<double> pv(n), gv(n);
    for (int64_t i = 0; i < n; ++i) {
      pv[i] = std::sin(0.001 * static_cast<double>(i));
      gv[i] = std::cos(0.0007 * static_cast<double>(i));
    }
    glia_tensor* big = make(h, pv, {n}, d);
    GLIA_OK_(glia_tensor_set_requires_grad(big, 1));
    // The same values as 1000 small tensors' worth checked at a few points through a tiny optimizer.
    glia_adam_options a;
    glia_adamw_options_init(&a);
    OptHandle o;
    GLIA_OK_(glia_optim_adamw(&big, 1, &a, o.out()));
    GLIA_OK_(glia_tensor_set_grad(big, make(h, gv, {n}, d)));
    GLIA_OK_(glia_optimizer_step(o.get()));
    GLIA_OK_(glia_optimizer_step(o.get()));
    std::vector<double> got = values(big);
    for (int64_t i : {int64_t{0}, int64_t{1}, int64_t{77777}, n - 1}) {
      glia_tensor* s = make(h, {pv[i]}, {1}, d);
      GLIA_OK_(glia_tensor_set_requires_grad(s, 1));
      OptHandle os;
      GLIA_OK_(glia_optim_adamw(&s, 1, &a, os.out()));
      GLIA_OK_(glia_tensor_set_grad(s, make(h, {gv[i]}, {1}, d)));
      GLIA_OK_(glia_optimizer_step(os.get()));
      GLIA_OK_(glia_optimizer_step(os.get()));
      EXPECT_EQ(values(s)[0], got[i]) << i;
    }
  }
  // A transposed (non-contiguous) parameter: the generic path.
  Handles h;
  std::vector<double> pv{1, 2, 3, 4, 5, 6}, gv{0.5, -1, 2, 0.25, -0.5, 1};
  glia_tensor* base = make(h, pv, {2, 3});
  glia_tensor* pt = nullptr;
  GLIA_OK_(glia_transpose(base, 0, 1, &pt));
  h.add(pt);
  GLIA_OK_(glia_tensor_set_requires_grad(pt, 1));
  glia_tensor* gt = nullptr;
  GLIA_OK_(glia_transpose(make(h, gv, {2, 3}), 0, 1, &gt));
  h.add(gt);
  GLIA_OK_(glia_tensor_set_grad(pt, gt));
  glia_sgd_options s;
  glia_sgd_options_init(&s);
  s.lr = 0.5;
  s.momentum = 0.9;
  OptHandle o;
  GLIA_OK_(glia_optim_sgd(&pt, 1, &s, o.out()));
  GLIA_OK_(glia_optimizer_step(o.get()));
  GLIA_OK_(glia_optimizer_step(o.get()));
  // Two steps: p - lr * g - lr * (0.9 g + g) = p - 1.45 g (in base's row-major order).
  std::vector<double> got = values(base), want;
  for (size_t i = 0; i < 6; ++i) want.push_back(pv[i] - 1.45 * gv[i]);
  expect_values(got, want, 1e-12, "transposed parameter");
}

TEST(OptimSchedulers, LrSequencesMatchTorch) {
  for (const json& c : golden()["schedulers"]) {
    std::string kind = c["scheduler"];
    const json& args = c["args"];
    SCOPED_TRACE(kind + " " + args.dump());
    Handles h;
    glia_tensor* p0 = make(h, {0, 0}, {2});
    glia_tensor* p1 = make(h, {0, 0}, {2});
    glia_sgd_options s;
    glia_sgd_options_init(&s);
    s.lr = 0.1;
    OptHandle o;
    GLIA_OK_(glia_optim_sgd(&p0, 1, &s, o.out()));
    s.lr = 0.05;
    GLIA_OK_(glia_optimizer_add_param_group(o.get(), &p1, 1, &s));
    SchedHandle sc;
    if (kind == "step_lr") {
      GLIA_OK_(glia_lr_scheduler_step_lr(o.get(), args["step_size"], args.value("gamma", 0.1), sc.out()));
    } else if (kind == "multi_step_lr") {
      std::vector<int64_t> ms = args["milestones"].get<std::vector<int64_t>>();
      GLIA_OK_(glia_lr_scheduler_multi_step_lr(o.get(), ms.data(), static_cast<int64_t>(ms.size()),
                                               args.value("gamma", 0.1), sc.out()));
    } else if (kind == "cosine_annealing_lr") {
      GLIA_OK_(glia_lr_scheduler_cosine_annealing_lr(o.get(), args["T_max"], args.value("eta_min", 0.0), sc.out()));
    } else {
      GLIA_OK_(glia_lr_scheduler_linear_lr(o.get(), args.value("start_factor", 1.0 / 3), args.value("end_factor", 1.0),
                                           args.value("total_iters", 5), sc.out()));
    }
    const json& lrs = c["lrs"];
    for (size_t step = 0; step < lrs.size(); ++step) {
      if (step > 0) {
        GLIA_OK_(glia_optimizer_step(o.get()));
        GLIA_OK_(glia_lr_scheduler_step(sc.get()));
      }
      for (int64_t g = 0; g < 2; ++g) {
        double want = lrs[step][g].get<double>(), got = 0, opt_lr = 0;
        GLIA_OK_(glia_lr_scheduler_get_last_lr(sc.get(), g, &got));
        GLIA_OK_(glia_optimizer_get_lr(o.get(), g, &opt_lr));
        EXPECT_NEAR(got, want, 1e-15 + 1e-13 * std::fabs(want)) << "step " << step << " group " << g;
        EXPECT_EQ(got, opt_lr);
      }
    }
    double x = 0;
    EXPECT_GLIA_ERR(glia_lr_scheduler_get_last_lr(sc.get(), 2, &x), GLIA_ERR_INVALID_ARGUMENT);
    // The scheduler recorded initial_lr in the groups (torch's setdefault).
    DictHandle d;
    GLIA_OK_(glia_optimizer_state_dict(o.get(), d.out()));
    glia_tensor* t = nullptr;
    GLIA_OK_(glia_tensor_dict_get(d.get(), "param_groups.1.initial_lr", &t));
    EXPECT_EQ(values(t), std::vector<double>{0.05});
    glia_tensor_release(t);
  }
}

TEST(OptimSchedulers, ErrorsAndOwnership) {
  const json& errs = golden()["errors"];
  Handles h;
  glia_tensor* p = make(h, {0, 0}, {2});
  glia_optimizer* o = nullptr;
  GLIA_OK_(glia_optim_sgd(&p, 1, nullptr, &o));
  glia_lr_scheduler* s = nullptr;
  EXPECT_GLIA_MSG(glia_lr_scheduler_linear_lr(o, 1.5, 1.0, 5, &s), GLIA_ERR_INVALID_ARGUMENT,
                  errs["linear_start"].get<std::string>());
  EXPECT_GLIA_MSG(glia_lr_scheduler_linear_lr(o, 0.5, -0.5, 5, &s), GLIA_ERR_INVALID_ARGUMENT,
                  errs["linear_end"].get<std::string>());
  EXPECT_GLIA_ERR(glia_lr_scheduler_step_lr(o, 0, 0.1, &s), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_lr_scheduler_cosine_annealing_lr(o, 0, 0.0, &s), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_lr_scheduler_step_lr(nullptr, 1, 0.1, &s), GLIA_ERR_INVALID_HANDLE);
  EXPECT_EQ(s, nullptr);
  // The scheduler keeps the optimizer alive.
  GLIA_OK_(glia_lr_scheduler_step_lr(o, 2, 0.5, &s));
  GLIA_OK_(glia_optimizer_release(o));
  GLIA_OK_(glia_lr_scheduler_step(s));
  GLIA_OK_(glia_lr_scheduler_step(s));
  double lr = 0;
  GLIA_OK_(glia_lr_scheduler_get_last_lr(s, 0, &lr));
  EXPECT_DOUBLE_EQ(lr, 0.0005);
  GLIA_OK_(glia_lr_scheduler_retain(s));
  GLIA_OK_(glia_lr_scheduler_release(s));
  GLIA_OK_(glia_lr_scheduler_release(s));
  EXPECT_GLIA_ERR(glia_lr_scheduler_step(s), GLIA_ERR_INVALID_HANDLE);
}

TEST(NnUtilsClip, ClipGradNormMatchesTorch) {
  for (const json& c : golden()["clip_grad_norm"]) {
    double norm_type = decode(c["norm_type"]);
    SCOPED_TRACE("norm_type " + std::to_string(norm_type));
    Handles h;
    std::vector<glia_tensor*> ps{make(h, std::vector<double>(12, 0.0), {3, 4}),
                                 make(h, std::vector<double>(5, 0.0), {5}), make(h, {0, 0}, {2})};
    for (glia_tensor* p : ps) GLIA_OK_(glia_tensor_set_requires_grad(p, 1));
    for (size_t i = 0; i < 2; ++i) GLIA_OK_(glia_tensor_set_grad(ps[i], tensor_from_json(h, c["grads"][i])));
    double total = -1;
    GLIA_OK_(glia_nn_utils_clip_grad_norm_(ps.data(), 3, c["max_norm"].get<double>(), norm_type, 0, &total));
    EXPECT_NEAR(total, c["total"].get<double>(), 1e-12 * (1 + std::fabs(total)));
    for (size_t i = 0; i < 2; ++i) {
      glia_tensor* g = nullptr;
      GLIA_OK_(glia_tensor_grad(ps[i], &g));
      h.add(g);
      expect_tensor(g, c["clipped"][i], 1e-12, "grad " + std::to_string(i));
    }
  }
  // Non-finite totals.
  Handles h;
  glia_tensor* p = make(h, {0, 0}, {2});
  GLIA_OK_(glia_tensor_set_requires_grad(p, 1));
  GLIA_OK_(glia_tensor_set_grad(p, make(h, {INFINITY, 1.0}, {2})));
  double total = 0;
  EXPECT_GLIA_MSG(glia_nn_utils_clip_grad_norm_(&p, 1, 1.0, 2.0, 1, &total), GLIA_ERR_INVALID_ARGUMENT,
                  golden()["errors"]["nonfinite"].get<std::string>());
  glia_tensor* g = nullptr;
  GLIA_OK_(glia_tensor_grad(p, &g));
  h.add(g);
  EXPECT_EQ(values(g)[1], 1.0) << "an error leaves the grads alone";
  // No grads at all: total 0.
  glia_tensor* q = make(h, {1, 2}, {2});
  GLIA_OK_(glia_nn_utils_clip_grad_norm_(&q, 1, 1.0, 2.0, 0, &total));
  EXPECT_EQ(total, 0.0);
}

TEST(NnUtilsClip, ClipGradValueMatchesTorch) {
  const json& c = golden()["clip_grad_value"];
  Handles h;
  glia_tensor* p = make(h, std::vector<double>(12, 0.0), {3, 4});
  GLIA_OK_(glia_tensor_set_requires_grad(p, 1));
  GLIA_OK_(glia_tensor_set_grad(p, tensor_from_json(h, c["grad"])));
  GLIA_OK_(glia_nn_utils_clip_grad_value_(&p, 1, c["clip_value"].get<double>()));
  glia_tensor* g = nullptr;
  GLIA_OK_(glia_tensor_grad(p, &g));
  h.add(g);
  expect_tensor(g, c["clipped"], 0, "clipped");
}
