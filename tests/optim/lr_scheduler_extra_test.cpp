// The LR schedulers of issue 21 against torch 1.13 (tests/golden/gen_lr_scheduler_extra.py ->
// golden/optim/lr_scheduler_extra.json): lr and momentum trajectories, state dicts (torch's keys
// and values, glia's round trip, torch's state loaded into glia), torch's error messages, and the
// host callbacks (errors change nothing, user_data freed exactly once).
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

const json& golden() {
  static const json j = load_json("golden/optim/lr_scheduler_extra.json");
  return j;
}

// The generator's LAMBDAS and SCALES.
double lambda_named(const std::string& name, int64_t e) {
  if (name == "pow") return std::pow(0.95, static_cast<double>(e));
  if (name == "step4") {
    int64_t q = e / 4;
    if (e % 4 != 0 && e < 0) --q;
    return std::pow(0.5, static_cast<double>(q));
  }
  if (name == "warm") return std::min(1.0, static_cast<double>(e + 1) / 5);
  if (name == "const") return 0.9;
  if (name == "alt") return ((e % 3) + 3) % 3 == 0 ? 1.05 : 0.9;
  ADD_FAILURE() << "unknown lambda " << name;
  return 0;
}
double scale_named(const std::string& name, int64_t x) {
  if (name == "inv") return 1.0 / (1 + 0.1 * static_cast<double>(x));
  if (name == "cosish") return 0.5 * (1 + std::cos(static_cast<double>(x) * 0.3));
  ADD_FAILURE() << "unknown scale_fn " << name;
  return 0;
}

// user_data of the lambdas: the function's name for every group, or one per group.
struct Lambdas {
  std::vector<std::string> names;
};
glia_error* call_lambda(void* ud, int64_t group, int64_t epoch, double* out) {
  auto* l = static_cast<Lambdas*>(ud);
  const std::string& n = l->names.size() == 1 ? l->names[0] : l->names.at(static_cast<size_t>(group));
  *out = lambda_named(n, epoch);
  return nullptr;
}
void free_lambdas(void* ud) { delete static_cast<Lambdas*>(ud); }
glia_error* call_scale(void* ud, int64_t x, double* out) {
  *out = scale_named(*static_cast<std::string*>(ud), x);
  return nullptr;
}
void free_scale(void* ud) { delete static_cast<std::string*>(ud); }

// One value or a list of them (torch's "float or list") as a vector.
std::vector<double> list_of(const json& v) {
  if (v.is_array()) return v.get<std::vector<double>>();
  return {v.get<double>()};
}

// The generator's make_optimizer.
struct Opt {
  Handles h;
  OptHandle o;
  std::string kind;
};
void make_opt(Opt& opt, const std::string& kind) {
  opt.kind = kind;
  glia_tensor* p0 = make(opt.h, {0, 0}, {2});
  glia_tensor* p1 = make(opt.h, {0, 0}, {2});
  if (kind == "adam") {
    glia_adam_options a;
    glia_adam_options_init(&a);
    a.lr = 0.1;
    ok(glia_optim_adam(&p0, 1, &a, opt.o.out()), "adam");
    a.lr = 0.05;
    ok(glia_optimizer_add_param_group(opt.o, &p1, 1, &a), "add group");
    return;
  }
  glia_sgd_options s;
  glia_sgd_options_init(&s);
  s.lr = 0.1;
  s.momentum = kind == "sgd" ? 0.9 : 0;
  ok(glia_optim_sgd(&p0, 1, &s, opt.o.out()), "sgd");
  s.lr = 0.05;
  ok(glia_optimizer_add_param_group(opt.o, &p1, 1, &s), "add group");
}

glia_error* build(const json& spec, glia_optimizer* o, glia_lr_scheduler** out);

glia_error* build_subs(const json& specs, glia_optimizer* o, std::vector<SchedHandle>& subs) {
  subs = std::vector<SchedHandle>(specs.size());
  for (size_t i = 0; i < specs.size(); ++i)
    if (glia_error* e = build(specs[i], o, subs[i].out())) return e;
  return nullptr;
}

glia_error* build(const json& spec, glia_optimizer* o, glia_lr_scheduler** out) {
  const std::string kind = spec["kind"];
  const json& a = spec["args"];
  if (kind == "StepLR") return glia_lr_scheduler_step_lr(o, a["step_size"], a.value("gamma", 0.1), out);
  if (kind == "MultiStepLR") {
    std::vector<int64_t> ms = a["milestones"].get<std::vector<int64_t>>();
    return glia_lr_scheduler_multi_step_lr(o, ms.data(), static_cast<int64_t>(ms.size()), a.value("gamma", 0.1), out);
  }
  if (kind == "CosineAnnealingLR")
    return glia_lr_scheduler_cosine_annealing_lr(o, a["T_max"], a.value("eta_min", 0.0), out);
  if (kind == "LinearLR")
    return glia_lr_scheduler_linear_lr(o, a.value("start_factor", 1.0 / 3), a.value("end_factor", 1.0),
                                       a.value("total_iters", 5), out);
  if (kind == "ExponentialLR") return glia_lr_scheduler_exponential_lr(o, a["gamma"], out);
  if (kind == "PolynomialLR")
    return glia_lr_scheduler_polynomial_lr(o, a.value("total_iters", 5), a.value("power", 1.0), out);
  if (kind == "ConstantLR")
    return glia_lr_scheduler_constant_lr(o, a.value("factor", 1.0 / 3), a.value("total_iters", 5), out);
  if (kind == "LambdaLR" || kind == "MultiplicativeLR") {
    auto* l = new Lambdas;
    const json& f = a["lr_lambda"];
    if (f.is_array())
      l->names = f.get<std::vector<std::string>>();
    else
      l->names = {f.get<std::string>()};
    return (kind == "LambdaLR" ? glia_lr_scheduler_lambda_lr : glia_lr_scheduler_multiplicative_lr)(o, call_lambda, l,
                                                                                                    free_lambdas, out);
  }
  if (kind == "SequentialLR") {
    std::vector<SchedHandle> subs;
    if (glia_error* e = build_subs(a["schedulers"], o, subs)) return e;
    std::vector<glia_lr_scheduler*> hs;
    for (SchedHandle& s : subs) hs.push_back(s.get());
    std::vector<int64_t> ms = a["milestones"].get<std::vector<int64_t>>();
    return glia_lr_scheduler_sequential_lr(o, hs.data(), static_cast<int64_t>(hs.size()), ms.data(),
                                           static_cast<int64_t>(ms.size()), out);
  }
  if (kind == "ChainedScheduler") {
    std::vector<SchedHandle> subs;
    if (glia_error* e = build_subs(a["schedulers"], o, subs)) return e;
    std::vector<glia_lr_scheduler*> hs;
    for (SchedHandle& s : subs) hs.push_back(s.get());
    return glia_lr_scheduler_chained_scheduler(hs.data(), static_cast<int64_t>(hs.size()), out);
  }
  if (kind == "ReduceLROnPlateau") {
    glia_reduce_lr_on_plateau_options p;
    glia_reduce_lr_on_plateau_options_init(&p);
    if (a.contains("mode")) p.mode = a["mode"] == "max" ? GLIA_PLATEAU_MAX : GLIA_PLATEAU_MIN;
    p.factor = a.value("factor", p.factor);
    p.patience = a.value("patience", p.patience);
    p.threshold = a.value("threshold", p.threshold);
    if (a.contains("threshold_mode"))
      p.threshold_mode = a["threshold_mode"] == "abs" ? GLIA_THRESHOLD_ABS : GLIA_THRESHOLD_REL;
    p.cooldown = a.value("cooldown", p.cooldown);
    p.eps = a.value("eps", p.eps);
    std::vector<double> min_lrs;
    if (a.contains("min_lr")) {
      if (a["min_lr"].is_array()) {
        min_lrs = a["min_lr"].get<std::vector<double>>();
        p.min_lrs = min_lrs.data();
        p.n_min_lrs = static_cast<int64_t>(min_lrs.size());
      } else {
        p.min_lr = a["min_lr"];
      }
    }
    return glia_lr_scheduler_reduce_lr_on_plateau(o, &p, out);
  }
  if (kind == "CyclicLR") {
    glia_cyclic_lr_options c;
    glia_cyclic_lr_options_init(&c);
    std::vector<double> base = list_of(a["base_lr"]), max = list_of(a["max_lr"]);
    c.step_size_up = a.value("step_size_up", c.step_size_up);
    if (a.contains("step_size_down")) c.step_size_down = a["step_size_down"];
    if (a.contains("mode"))
      c.mode = a["mode"] == "triangular2" ? GLIA_CYCLIC_TRIANGULAR2
               : a["mode"] == "exp_range" ? GLIA_CYCLIC_EXP_RANGE
                                          : GLIA_CYCLIC_TRIANGULAR;
    c.gamma = a.value("gamma", c.gamma);
    if (a.contains("scale_fn")) {
      c.scale_fn = call_scale;
      c.scale_fn_user_data = new std::string(a["scale_fn"].get<std::string>());
      c.free_scale_fn_user_data = free_scale;
    }
    if (a.contains("scale_mode"))
      c.scale_mode = a["scale_mode"] == "iterations" ? GLIA_CYCLIC_SCALE_ITERATIONS : GLIA_CYCLIC_SCALE_CYCLE;
    c.cycle_momentum = a.value("cycle_momentum", true) ? 1 : 0;
    std::vector<double> bm, mm;
    if (a.contains("base_momentum") && a["base_momentum"].is_array()) {
      bm = list_of(a["base_momentum"]);
      mm = list_of(a.value("max_momentum", json(0.9)));
      mm.resize(bm.size(), mm[0]);
      c.base_momentums = bm.data();
      c.max_momentums = mm.data();
      c.n_momentums = static_cast<int64_t>(bm.size());
    }
    return glia_lr_scheduler_cyclic_lr(o, base.data(), static_cast<int64_t>(base.size()), max.data(),
                                       static_cast<int64_t>(max.size()), &c, out);
  }
  if (kind == "OneCycleLR") {
    glia_one_cycle_lr_options c;
    glia_one_cycle_lr_options_init(&c);
    std::vector<double> max = list_of(a["max_lr"]);
    int64_t total = 0, epochs = 0, spe = 0;
    if (a.contains("total_steps")) total = a["total_steps"], c.total_steps = &total;
    if (a.contains("epochs")) epochs = a["epochs"], c.epochs = &epochs;
    if (a.contains("steps_per_epoch")) spe = a["steps_per_epoch"], c.steps_per_epoch = &spe;
    c.pct_start = a.value("pct_start", c.pct_start);
    if (a.contains("anneal_strategy"))
      c.anneal_strategy = a["anneal_strategy"] == "linear" ? GLIA_ANNEAL_LINEAR : GLIA_ANNEAL_COS;
    c.cycle_momentum = a.value("cycle_momentum", true) ? 1 : 0;
    std::vector<double> bm, mm;
    if (a.contains("base_momentum") || a.contains("max_momentum")) {
      // Per-group arrays for both (a scalar repeated), as a caller mixing the two forms would pass them.
      bm = list_of(a.value("base_momentum", json(0.85)));
      mm = list_of(a.value("max_momentum", json(0.95)));
      bm.resize(2, bm[0]);
      mm.resize(2, mm[0]);
      c.base_momentums = bm.data();
      c.max_momentums = mm.data();
      c.n_momentums = 2;
    }
    c.div_factor = a.value("div_factor", c.div_factor);
    c.final_div_factor = a.value("final_div_factor", c.final_div_factor);
    c.three_phase = a.value("three_phase", false) ? 1 : 0;
    return glia_lr_scheduler_one_cycle_lr(o, max.data(), static_cast<int64_t>(max.size()), &c, out);
  }
  if (kind == "CosineAnnealingWarmRestarts")
    return glia_lr_scheduler_cosine_annealing_warm_restarts(o, a["T_0"], a.value("T_mult", 1), a.value("eta_min", 0.0),
                                                            out);
  ADD_FAILURE() << "unknown scheduler " << kind;
  return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "unknown scheduler");
}

bool is_plateau(const json& c) { return c["spec"]["kind"] == "ReduceLROnPlateau"; }

// One step of the case: null is step(); a number step(epoch) or, for ReduceLROnPlateau, step(metric).
glia_error* step(const json& c, glia_lr_scheduler* s, const json& st) {
  if (st.is_null()) return glia_lr_scheduler_step(s);
  if (is_plateau(c)) return glia_lr_scheduler_step_metric(s, st.get<double>());
  return glia_lr_scheduler_step_epoch(s, st.get<double>());
}

void near(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-15 + 1e-12 * std::fabs(want)) << what;
}

// get_last_lr (the optimizer's lrs for ReduceLROnPlateau before its first step) and momentum vs the golden row.
void expect_row(const json& c, Opt& opt, glia_lr_scheduler* s, size_t row) {
  const std::string at = "after step " + std::to_string(row);
  for (int64_t g = 0; g < 2; ++g) {
    double want = decode(c["lrs"][row][g]), got = 0, opt_lr = 0;
    ASSERT_EQ(glia_optimizer_get_lr(opt.o, g, &opt_lr), nullptr);
    if (is_plateau(c) && row == 0) {
      EXPECT_GLIA_ERR(glia_lr_scheduler_get_last_lr(s, g, &got), GLIA_ERR_INVALID_ARGUMENT);
      got = opt_lr;
    } else {
      glia_error* e = glia_lr_scheduler_get_last_lr(s, g, &got);
      ASSERT_EQ(e, nullptr) << glia_error_message(e);
      EXPECT_EQ(got, opt_lr) << at;
    }
    near(got, want, "lr " + at + " group " + std::to_string(g));
    if (c.contains("momentum")) {
      double m = 0;
      ASSERT_EQ(glia_optimizer_get_option(opt.o, g, opt.kind == "adam" ? "beta1" : "momentum", &m), nullptr);
      near(m, decode(c["momentum"][row][g]), "momentum " + at + " group " + std::to_string(g));
    }
  }
}

std::vector<double> dict_values(glia_tensor_dict* d, const std::string& key) {
  glia_tensor* t = nullptr;
  glia_error* e = glia_tensor_dict_get(d, key.c_str(), &t);
  if (e) {
    ADD_FAILURE() << "missing " << key << ": " << glia_error_message(e);
    glia_error_free(e);
    return {};
  }
  std::vector<double> v = values(t);
  glia_error_free(glia_tensor_release(t));
  return v;
}

std::vector<double> json_values(const json& v) {
  if (v.is_array()) return decode_all(v);
  return {decode(v)};
}

// glia's state dict has exactly torch's keys (flattened as the generator does), with torch's values.
void expect_state(glia_lr_scheduler* s, const json& want, const std::string& what) {
  DictHandle d;
  ASSERT_EQ(glia_lr_scheduler_state_dict(s, d.out()), nullptr);
  std::vector<std::string> got_keys = dict_keys(d);
  std::set<std::string> got(got_keys.begin(), got_keys.end()), wanted;
  for (auto it = want.begin(); it != want.end(); ++it) wanted.insert(it.key());
  EXPECT_EQ(got, wanted) << what;
  for (auto it = want.begin(); it != want.end(); ++it) {
    if (!got.count(it.key())) continue;
    std::vector<double> g = dict_values(d, it.key()), w = json_values(it.value());
    ASSERT_EQ(g.size(), w.size()) << what << " " << it.key();
    for (size_t i = 0; i < g.size(); ++i) {
      if (std::isinf(w[i]))
        EXPECT_EQ(g[i], w[i]) << what << " " << it.key();
      else
        near(g[i], w[i], what + " " + it.key());
    }
  }
}

// The optimizer's groups: torch's options (max_lr, min_lr, ... included) with torch's values.
void expect_groups(glia_optimizer* o, const json& want, const std::string& what) {
  DictHandle d;
  ASSERT_EQ(glia_optimizer_state_dict(o, d.out()), nullptr);
  for (auto it = want.begin(); it != want.end(); ++it) {
    std::vector<double> g = dict_values(d, it.key()), w = json_values(it.value());
    ASSERT_EQ(g.size(), w.size()) << what << " " << it.key();
    for (size_t i = 0; i < g.size(); ++i) near(g[i], w[i], what + " " + it.key());
  }
}

std::string case_name(const json& c) { return c["spec"].dump() + " on " + c["optimizer"].get<std::string>(); }

}  // namespace

TEST(LrSchedulerExtra, TrajectoriesAndStateDictsMatchTorch) {
  size_t n = 0;
  for (const json& c : golden()["cases"]) {
    SCOPED_TRACE(case_name(c));
    Opt opt;
    make_opt(opt, c["optimizer"]);
    SchedHandle s;
    GLIA_OK_(build(c["spec"], opt.o, s.out()));
    expect_row(c, opt, s, 0);
    const json& steps = c["steps"];
    for (size_t i = 0; i < steps.size(); ++i) {
      GLIA_OK_(glia_optimizer_step(opt.o));
      GLIA_OK_(step(c, s, steps[i]));
      expect_row(c, opt, s, i + 1);
      if (i + 1 == c["mid"].get<size_t>()) {
        expect_state(s, c["state_mid"], "state_dict at mid");
        expect_groups(opt.o, c["groups_mid"], "param_groups at mid");
      }
    }
    expect_state(s, c["state"], "final state_dict");
    expect_groups(opt.o, c["groups"], "final param_groups");
    ++n;
  }
  EXPECT_GE(n, 80u);
}

TEST(LrSchedulerExtra, StateDictRoundTripResumes) {
  for (const json& c : golden()["cases"]) {
    SCOPED_TRACE(case_name(c));
    const size_t mid = c["mid"];
    const json& steps = c["steps"];
    Opt a;
    make_opt(a, c["optimizer"]);
    SchedHandle sa;
    GLIA_OK_(build(c["spec"], a.o, sa.out()));
    for (size_t i = 0; i < mid; ++i) GLIA_OK_(step(c, sa, steps[i]));
    DictHandle so, ss;
    GLIA_OK_(glia_optimizer_state_dict(a.o, so.out()));
    GLIA_OK_(glia_lr_scheduler_state_dict(sa, ss.out()));
    // A fresh optimizer and scheduler resume from the two state dicts.
    Opt b;
    make_opt(b, c["optimizer"]);
    SchedHandle sb;
    GLIA_OK_(build(c["spec"], b.o, sb.out()));
    GLIA_OK_(glia_optimizer_load_state_dict(b.o, so));
    GLIA_OK_(glia_lr_scheduler_load_state_dict(sb, ss));
    if (!c["spec"]["kind"].get<std::string>().starts_with("Chained")) {
      int64_t ea = 0, eb = 0;
      GLIA_OK_(glia_lr_scheduler_get_last_epoch(sa, &ea));
      GLIA_OK_(glia_lr_scheduler_get_last_epoch(sb, &eb));
      EXPECT_EQ(ea, eb);
    }
    expect_row(c, b, sb, mid);
    for (size_t i = mid; i < steps.size(); ++i) {
      GLIA_OK_(step(c, sb, steps[i]));
      expect_row(c, b, sb, i + 1);
    }
    expect_state(sb, c["state"], "final state_dict after resuming");
  }
}

TEST(LrSchedulerExtra, TorchStateDictLoads) {
  // torch's state at `mid` (glia's layout) and torch's groups into a fresh glia optimizer and scheduler.
  for (const json& c : golden()["cases"]) {
    SCOPED_TRACE(case_name(c));
    Opt b;
    make_opt(b, c["optimizer"]);
    SchedHandle sb;
    GLIA_OK_(build(c["spec"], b.o, sb.out()));
    DictHandle d;
    GLIA_OK_(glia_tensor_dict_create(d.out()));
    Handles h;
    const json& st = c["state_mid"];
    for (auto it = st.begin(); it != st.end(); ++it) {
      std::vector<double> v = json_values(it.value());
      const std::string& k = it.key();
      bool ints = k.ends_with("milestones");
      std::vector<int64_t> shape;
      if (it.value().is_array()) shape.push_back(static_cast<int64_t>(v.size()));
      glia_tensor* t = make(h, v, shape, ints ? GLIA_INT64 : GLIA_FLOAT64);
      GLIA_OK_(glia_tensor_dict_set(d, k.c_str(), t));
    }
    GLIA_OK_(glia_lr_scheduler_load_state_dict(sb, d));
    const json& groups = c["groups_mid"];
    for (auto it = groups.begin(); it != groups.end(); ++it) {
      const std::string& k = it.key();  // param_groups.<g>.<name>
      const int64_t g = k[13] - '0';
      const std::string name = k.substr(15);
      if (name == "betas") {
        GLIA_OK_(glia_optimizer_set_option(b.o, g, "beta1", decode(it.value()[0])));
        GLIA_OK_(glia_optimizer_set_option(b.o, g, "beta2", decode(it.value()[1])));
      } else {
        GLIA_OK_(glia_optimizer_set_option(b.o, g, name.c_str(), decode(it.value())));
      }
    }
    const size_t mid = c["mid"];
    const json& steps = c["steps"];
    expect_row(c, b, sb, mid);
    for (size_t i = mid; i < steps.size(); ++i) {
      GLIA_OK_(step(c, sb, steps[i]));
      expect_row(c, b, sb, i + 1);
    }
  }
}

TEST(LrSchedulerExtra, ErrorsAreTorchs) {
  for (const json& e : golden()["errors"]) {
    SCOPED_TRACE(e["spec"].dump());
    Opt opt;
    make_opt(opt, e["optimizer"]);
    glia_lr_scheduler* s = nullptr;
    EXPECT_GLIA_MSG(build(e["spec"], opt.o, &s), GLIA_ERR_INVALID_ARGUMENT, e["message"].get<std::string>());
    EXPECT_EQ(s, nullptr);
    // Nothing changed: no initial_lr, the lrs and momentum as they were.
    double x = 0;
    if (e["spec"]["kind"] != "SequentialLR")  // (its sub-schedulers were made before)
      EXPECT_GLIA_ERR(glia_optimizer_get_option(opt.o, 0, "initial_lr", &x), GLIA_ERR_NOT_FOUND);
    GLIA_OK_(glia_optimizer_get_lr(opt.o, 1, &x));
    EXPECT_EQ(x, 0.05);
    if (e["optimizer"] == "sgd") {
      GLIA_OK_(glia_optimizer_get_option(opt.o, 0, "momentum", &x));
      EXPECT_EQ(x, 0.9);
    }
  }
  const json& other = golden()["other_errors"];
  Opt a, b;
  make_opt(a, "sgd");
  make_opt(b, "sgd");
  SchedHandle ea, eb, s;
  GLIA_OK_(glia_lr_scheduler_exponential_lr(a.o, 0.9, ea.out()));
  GLIA_OK_(glia_lr_scheduler_exponential_lr(b.o, 0.9, eb.out()));
  glia_lr_scheduler* two[2] = {ea.get(), eb.get()};
  int64_t ms[1] = {3};
  EXPECT_GLIA_MSG(glia_lr_scheduler_sequential_lr(a.o, two, 2, ms, 1, s.out()), GLIA_ERR_INVALID_ARGUMENT,
                  other["sequential_other_optimizer"].get<std::string>());
  EXPECT_GLIA_MSG(glia_lr_scheduler_chained_scheduler(two, 2, s.out()), GLIA_ERR_INVALID_ARGUMENT,
                  other["chained_other_optimizer"].get<std::string>());
  glia_reduce_lr_on_plateau_options p;
  glia_reduce_lr_on_plateau_options_init(&p);
  p.mode = static_cast<glia_plateau_mode>(7);
  EXPECT_GLIA_MSG(glia_lr_scheduler_reduce_lr_on_plateau(a.o, &p, s.out()), GLIA_ERR_INVALID_ARGUMENT,
                  "mode 7 is unknown!");
  glia_reduce_lr_on_plateau_options_init(&p);
  p.threshold_mode = static_cast<glia_threshold_mode>(9);
  EXPECT_GLIA_MSG(glia_lr_scheduler_reduce_lr_on_plateau(a.o, &p, s.out()), GLIA_ERR_INVALID_ARGUMENT,
                  "threshold mode 9 is unknown!");
  glia_cyclic_lr_options c;
  glia_cyclic_lr_options_init(&c);
  c.mode = static_cast<glia_cyclic_mode>(5);
  double lo = 0.1, hi = 1.0;
  EXPECT_GLIA_MSG(glia_lr_scheduler_cyclic_lr(a.o, &lo, 1, &hi, 1, &c, s.out()), GLIA_ERR_INVALID_ARGUMENT,
                  other["cyclic_mode"].get<std::string>());
  glia_one_cycle_lr_options oc;
  glia_one_cycle_lr_options_init(&oc);
  int64_t total = 10;
  oc.total_steps = &total;
  oc.anneal_strategy = static_cast<glia_anneal_strategy>(5);
  EXPECT_GLIA_MSG(glia_lr_scheduler_one_cycle_lr(a.o, &hi, 1, &oc, s.out()), GLIA_ERR_INVALID_ARGUMENT,
                  "anneal_strategy must by one of 'cos' or 'linear', instead got 5");
  EXPECT_EQ(s.get(), nullptr);

  // CosineAnnealingWarmRestarts.step(-1.5); OneCycleLR past its end (nothing changes).
  SchedHandle w;
  GLIA_OK_(glia_lr_scheduler_cosine_annealing_warm_restarts(a.o, 3, 1, 0.0, w.out()));
  EXPECT_GLIA_MSG(glia_lr_scheduler_step_epoch(w, -1.5), GLIA_ERR_INVALID_ARGUMENT,
                  other["warm_restarts_epoch"].get<std::string>());
  Opt o1;
  make_opt(o1, "sgd");
  SchedHandle one;
  oc.anneal_strategy = GLIA_ANNEAL_COS;
  GLIA_OK_(glia_lr_scheduler_one_cycle_lr(o1.o, &hi, 1, &oc, one.out()));
  for (int i = 0; i < 10; ++i) GLIA_OK_(glia_lr_scheduler_step(one));
  double lr = 0, m = 0, lr2 = 0, m2 = 0;
  int64_t epoch = 0;
  GLIA_OK_(glia_optimizer_get_lr(o1.o, 0, &lr));
  GLIA_OK_(glia_optimizer_get_option(o1.o, 0, "momentum", &m));
  EXPECT_GLIA_MSG(glia_lr_scheduler_step(one), GLIA_ERR_INVALID_ARGUMENT,
                  other["one_cycle_past_end"].get<std::string>());
  GLIA_OK_(glia_optimizer_get_lr(o1.o, 0, &lr2));
  GLIA_OK_(glia_optimizer_get_option(o1.o, 0, "momentum", &m2));
  GLIA_OK_(glia_lr_scheduler_get_last_epoch(one, &epoch));
  EXPECT_EQ(lr, lr2);
  EXPECT_EQ(m, m2);
  EXPECT_EQ(epoch, 10);

  // Steps of the wrong kind.
  SchedHandle pl;
  GLIA_OK_(glia_lr_scheduler_reduce_lr_on_plateau(b.o, nullptr, pl.out()));
  EXPECT_GLIA_MSG(glia_lr_scheduler_step(pl), GLIA_ERR_INVALID_ARGUMENT,
                  "step() missing 1 required positional argument: 'metrics'");
  EXPECT_GLIA_ERR(glia_lr_scheduler_step_metric(ea, 1.0), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_lr_scheduler_step_epoch(ea, 2.5), GLIA_ERR_INVALID_ARGUMENT);
  glia_lr_scheduler* one_sub[1] = {ea.get()};
  SchedHandle ch;
  GLIA_OK_(glia_lr_scheduler_chained_scheduler(one_sub, 1, ch.out()));
  EXPECT_GLIA_MSG(glia_lr_scheduler_get_last_epoch(ch, &epoch), GLIA_ERR_INVALID_ARGUMENT,
                  "'ChainedScheduler' object has no attribute 'last_epoch'");
  // A bad struct_size and NULL arrays.
  glia_cyclic_lr_options_init(&c);
  c.struct_size = 1;
  EXPECT_GLIA_ERR(glia_lr_scheduler_cyclic_lr(a.o, &lo, 1, &hi, 1, &c, s.out()), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_lr_scheduler_cyclic_lr(a.o, nullptr, 1, &hi, 1, nullptr, s.out()), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_lr_scheduler_one_cycle_lr(a.o, &hi, 0, &oc, s.out()), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_lr_scheduler_exponential_lr(nullptr, 0.9, s.out()), GLIA_ERR_INVALID_HANDLE);
  EXPECT_GLIA_ERR(glia_lr_scheduler_exponential_lr(a.o, 0.9, nullptr), GLIA_ERR_INVALID_ARGUMENT);
}

namespace {

// A lambda that fails at epoch `fail_at` (0.9^epoch otherwise) and counts its frees.
struct Flaky {
  int64_t fail_at = -1;
  int calls = 0;
  int* freed = nullptr;
};
glia_error* flaky(void* ud, int64_t, int64_t epoch, double* out) {
  auto* f = static_cast<Flaky*>(ud);
  ++f->calls;
  if (epoch == f->fail_at) return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "the host says no");
  *out = std::pow(0.9, static_cast<double>(epoch));
  return nullptr;
}
void free_flaky(void* ud) {
  auto* f = static_cast<Flaky*>(ud);
  ++*f->freed;
  delete f;
}
glia_error* flaky_scale(void* ud, int64_t x, double* out) {
  auto* f = static_cast<Flaky*>(ud);
  ++f->calls;
  if (f->calls > f->fail_at) return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "scale says no");
  *out = 1.0 / static_cast<double>(x);
  return nullptr;
}

}  // namespace

TEST(LrSchedulerExtra, HostCallbackErrorsChangeNothing) {
  int freed = 0;
  {
    Opt opt;
    make_opt(opt, "sgd");
    // A lambda failing in the initial step fails the constructor: user_data freed once, no initial_lr.
    auto* f = new Flaky{0, 0, &freed};
    glia_lr_scheduler* s = nullptr;
    EXPECT_GLIA_MSG(glia_lr_scheduler_lambda_lr(opt.o, flaky, f, free_flaky, &s), GLIA_ERR_CALLBACK,
                    "the host says no");
    EXPECT_EQ(s, nullptr);
    EXPECT_EQ(freed, 1);
    double x = 0;
    EXPECT_GLIA_ERR(glia_optimizer_get_option(opt.o, 0, "initial_lr", &x), GLIA_ERR_NOT_FOUND);
    // A NULL optimizer: freed right away too.
    f = new Flaky{-1, 0, &freed};
    EXPECT_GLIA_ERR(glia_lr_scheduler_multiplicative_lr(nullptr, flaky, f, free_flaky, &s), GLIA_ERR_INVALID_HANDLE);
    EXPECT_EQ(freed, 2);

    // Failing at epoch 3 inside a SequentialLR: the step fails, nothing changed, the next step after the
    // host recovers goes on as if the failed one never happened.
    f = new Flaky{3, 0, &freed};
    SchedHandle lam, ex, seq;
    GLIA_OK_(glia_lr_scheduler_lambda_lr(opt.o, flaky, f, free_flaky, lam.out()));
    GLIA_OK_(glia_lr_scheduler_exponential_lr(opt.o, 0.5, ex.out()));
    glia_lr_scheduler* subs[2] = {lam.get(), ex.get()};
    int64_t ms[1] = {5};
    GLIA_OK_(glia_lr_scheduler_sequential_lr(opt.o, subs, 2, ms, 1, seq.out()));
    GLIA_OK_(glia_lr_scheduler_step(seq));
    GLIA_OK_(glia_lr_scheduler_step(seq));
    double lr0 = 0, lr1 = 0;
    int64_t e0 = 0, e1 = 0, sub0 = 0, sub1 = 0;
    GLIA_OK_(glia_optimizer_get_lr(opt.o, 0, &lr0));
    GLIA_OK_(glia_lr_scheduler_get_last_epoch(seq, &e0));
    GLIA_OK_(glia_lr_scheduler_get_last_epoch(lam, &sub0));
    EXPECT_GLIA_MSG(glia_lr_scheduler_step(seq), GLIA_ERR_CALLBACK,
                    "LambdaLR: lr_lambda callback failed: the host says no");
    GLIA_OK_(glia_optimizer_get_lr(opt.o, 0, &lr1));
    GLIA_OK_(glia_lr_scheduler_get_last_epoch(seq, &e1));
    GLIA_OK_(glia_lr_scheduler_get_last_epoch(lam, &sub1));
    EXPECT_EQ(lr0, lr1);
    EXPECT_EQ(e0, e1);
    EXPECT_EQ(sub0, sub1);
    EXPECT_EQ(e0, 2);
    f->fail_at = -1;
    GLIA_OK_(glia_lr_scheduler_step(seq));
    GLIA_OK_(glia_optimizer_get_lr(opt.o, 0, &lr1));
    EXPECT_DOUBLE_EQ(lr1, 0.1 * std::pow(0.9, 3));
    EXPECT_EQ(freed, 2);
  }
  EXPECT_EQ(freed, 3);  // released with its scheduler, once

  // CyclicLR's scale_fn failing on the second group's momentum: neither lr nor momentum changed.
  {
    Opt opt;
    make_opt(opt, "sgd");
    auto* f = new Flaky{100, 0, &freed};
    glia_cyclic_lr_options c;
    glia_cyclic_lr_options_init(&c);
    c.step_size_up = 4;
    c.scale_fn = flaky_scale;
    c.scale_fn_user_data = f;
    c.free_scale_fn_user_data = free_flaky;
    double lo = 0.01, hi = 0.1;
    SchedHandle s;
    GLIA_OK_(glia_lr_scheduler_cyclic_lr(opt.o, &lo, 1, &hi, 1, &c, s.out()));
    GLIA_OK_(glia_lr_scheduler_step(s));
    double lr0 = 0, m0 = 0, n0 = 0, lr1 = 0, m1 = 0, n1 = 0;
    GLIA_OK_(glia_optimizer_get_lr(opt.o, 1, &lr0));
    GLIA_OK_(glia_optimizer_get_option(opt.o, 0, "momentum", &n0));
    GLIA_OK_(glia_optimizer_get_option(opt.o, 1, "momentum", &m0));
    f->fail_at = f->calls + 3;  // lr 0, lr 1, momentum 0 run; momentum 1 fails
    EXPECT_GLIA_MSG(glia_lr_scheduler_step(s), GLIA_ERR_CALLBACK, "CyclicLR: scale_fn callback failed: scale says no");
    GLIA_OK_(glia_optimizer_get_lr(opt.o, 1, &lr1));
    GLIA_OK_(glia_optimizer_get_option(opt.o, 0, "momentum", &n1));
    GLIA_OK_(glia_optimizer_get_option(opt.o, 1, "momentum", &m1));
    EXPECT_EQ(lr0, lr1);
    EXPECT_EQ(n0, n1);
    EXPECT_EQ(m0, m1);
    int64_t e = 0;
    GLIA_OK_(glia_lr_scheduler_get_last_epoch(s, &e));
    EXPECT_EQ(e, 1);
    EXPECT_EQ(freed, 3);
  }
  EXPECT_EQ(freed, 4);
}

TEST(LrSchedulerExtra, BadStateDictsChangeNothing) {
  Opt opt;
  make_opt(opt, "sgd");
  SchedHandle c, e, seq;
  GLIA_OK_(glia_lr_scheduler_constant_lr(opt.o, 0.5, 3, c.out()));
  GLIA_OK_(glia_lr_scheduler_exponential_lr(opt.o, 0.9, e.out()));
  glia_lr_scheduler* subs[2] = {c.get(), e.get()};
  int64_t ms[1] = {2};
  GLIA_OK_(glia_lr_scheduler_sequential_lr(opt.o, subs, 2, ms, 1, seq.out()));
  for (int i = 0; i < 4; ++i) GLIA_OK_(glia_lr_scheduler_step(seq));
  DictHandle good;
  GLIA_OK_(glia_lr_scheduler_state_dict(seq, good.out()));
  std::vector<std::string> keys = dict_keys(good);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "_milestones", "last_epoch", "_last_lr", "_schedulers.0.last_epoch", "_schedulers.0._step_count",
                      "_schedulers.0.base_lrs", "_schedulers.0._last_lr", "_schedulers.0.factor",
                      "_schedulers.0.total_iters", "_schedulers.1.last_epoch", "_schedulers.1._step_count",
                      "_schedulers.1.base_lrs", "_schedulers.1._last_lr", "_schedulers.1.gamma"}));
  // A second scheduler of the same shape, stepped differently: a bad dict leaves it (and its subs) as it was.
  Opt opt2;
  make_opt(opt2, "sgd");
  SchedHandle c2, e2, seq2;
  GLIA_OK_(glia_lr_scheduler_constant_lr(opt2.o, 0.25, 1, c2.out()));
  GLIA_OK_(glia_lr_scheduler_exponential_lr(opt2.o, 0.5, e2.out()));
  glia_lr_scheduler* subs2[2] = {c2.get(), e2.get()};
  GLIA_OK_(glia_lr_scheduler_sequential_lr(opt2.o, subs2, 2, ms, 1, seq2.out()));
  GLIA_OK_(glia_lr_scheduler_step(seq2));
  DictHandle before;
  GLIA_OK_(glia_lr_scheduler_state_dict(seq2, before.out()));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"_schedulers.1.gamma", "loaded scheduler state dict is missing \"gamma\""},
      {"_milestones", "loaded scheduler state dict is missing \"_milestones\""},
      {"_schedulers.0.factor", "loaded scheduler state dict is missing \"factor\""},
  };
  for (const auto& [drop, message] : bad) {
    SCOPED_TRACE(drop);
    DictHandle d;
    GLIA_OK_(glia_lr_scheduler_state_dict(seq, d.out()));
    GLIA_OK_(glia_tensor_dict_remove(d, drop.c_str()));
    EXPECT_GLIA_MSG(glia_lr_scheduler_load_state_dict(seq2, d), GLIA_ERR_INVALID_ARGUMENT, message);
    DictHandle after;
    GLIA_OK_(glia_lr_scheduler_state_dict(seq2, after.out()));
    ASSERT_EQ(dict_keys(after), dict_keys(before));
    for (const std::string& k : dict_keys(before)) EXPECT_EQ(dict_values(after, k), dict_values(before, k)) << k;
  }
  // An unexpected key; a state for a third scheduler.
  Handles h;
  for (const char* extra : {"gamma", "_schedulers.2.gamma"}) {
    DictHandle d;
    GLIA_OK_(glia_lr_scheduler_state_dict(seq, d.out()));
    GLIA_OK_(glia_tensor_dict_set(d, extra, make(h, {0.5}, {})));
    EXPECT_GLIA_ERR(glia_lr_scheduler_load_state_dict(seq2, d), GLIA_ERR_INVALID_ARGUMENT);
  }
  // The good dict loads (with its optimizer's): both continue alike.
  DictHandle od;
  GLIA_OK_(glia_optimizer_state_dict(opt.o, od.out()));
  GLIA_OK_(glia_optimizer_load_state_dict(opt2.o, od));
  GLIA_OK_(glia_lr_scheduler_load_state_dict(seq2, good));
  for (int i = 0; i < 3; ++i) {
    GLIA_OK_(glia_lr_scheduler_step(seq));
    GLIA_OK_(glia_lr_scheduler_step(seq2));
    double a = 0, b = 0;
    GLIA_OK_(glia_lr_scheduler_get_last_lr(seq, 0, &a));
    GLIA_OK_(glia_lr_scheduler_get_last_lr(seq2, 0, &b));
    EXPECT_EQ(a, b);
  }
}
