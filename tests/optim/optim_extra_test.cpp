// torch 1.13's other optimizers (Adadelta, Adagrad, Adamax, ASGD, NAdam,
// RAdam, Rprop) against torch (tests/golden/gen_optim_extra.py ->
// golden/optim/optim_extra.json): trajectories over 20 steps for every option
// combination, state dicts (glia's round trip and torch's layout loaded and
// resumed), parameter groups, torch's error messages, the kernels' fast and
// generic paths.
#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

const json& golden() {
  static const json j = load_json("golden/optim/optim_extra.json");
  return j;
}

double num(const json& o, const char* k, double def) { return o.contains(k) ? o[k].get<double>() : def; }
int32_t flag(const json& o, const char* k, int32_t def) { return o.contains(k) ? o[k].get<bool>() : def; }
void pair(const json& o, const char* k, double* dst) {
  if (!o.contains(k)) return;
  dst[0] = o[k][0].get<double>();
  dst[1] = o[k][1].get<double>();
}

// The options struct of optimizer `kind` from torch's keyword options `o` (absent: the
// glia_<kind>_options_init defaults, which are torch's), handed to `use` with its constructor.
glia_error* with_options(const std::string& kind, const json& o,
                         const std::function<glia_error*(const void*, const std::string&)>& use) {
  if (kind == "adadelta") {
    glia_adadelta_options s;
    glia_adadelta_options_init(&s);
    s.lr = num(o, "lr", s.lr);
    s.rho = num(o, "rho", s.rho);
    s.eps = num(o, "eps", s.eps);
    s.weight_decay = num(o, "weight_decay", s.weight_decay);
    s.maximize = flag(o, "maximize", s.maximize);
    return use(&s, kind);
  }
  if (kind == "adagrad") {
    glia_adagrad_options s;
    glia_adagrad_options_init(&s);
    s.lr = num(o, "lr", s.lr);
    s.lr_decay = num(o, "lr_decay", s.lr_decay);
    s.weight_decay = num(o, "weight_decay", s.weight_decay);
    s.initial_accumulator_value = num(o, "initial_accumulator_value", s.initial_accumulator_value);
    s.eps = num(o, "eps", s.eps);
    s.maximize = flag(o, "maximize", s.maximize);
    return use(&s, kind);
  }
  if (kind == "adamax") {
    glia_adamax_options s;
    glia_adamax_options_init(&s);
    s.lr = num(o, "lr", s.lr);
    pair(o, "betas", s.betas);
    s.eps = num(o, "eps", s.eps);
    s.weight_decay = num(o, "weight_decay", s.weight_decay);
    s.maximize = flag(o, "maximize", s.maximize);
    return use(&s, kind);
  }
  if (kind == "asgd") {
    glia_asgd_options s;
    glia_asgd_options_init(&s);
    s.lr = num(o, "lr", s.lr);
    s.lambd = num(o, "lambd", s.lambd);
    s.alpha = num(o, "alpha", s.alpha);
    s.t0 = num(o, "t0", s.t0);
    s.weight_decay = num(o, "weight_decay", s.weight_decay);
    s.maximize = flag(o, "maximize", s.maximize);
    return use(&s, kind);
  }
  if (kind == "nadam") {
    glia_nadam_options s;
    glia_nadam_options_init(&s);
    s.lr = num(o, "lr", s.lr);
    pair(o, "betas", s.betas);
    s.eps = num(o, "eps", s.eps);
    s.weight_decay = num(o, "weight_decay", s.weight_decay);
    s.momentum_decay = num(o, "momentum_decay", s.momentum_decay);
    return use(&s, kind);
  }
  if (kind == "radam") {
    glia_radam_options s;
    glia_radam_options_init(&s);
    s.lr = num(o, "lr", s.lr);
    pair(o, "betas", s.betas);
    s.eps = num(o, "eps", s.eps);
    s.weight_decay = num(o, "weight_decay", s.weight_decay);
    return use(&s, kind);
  }
  EXPECT_EQ(kind, "rprop");
  glia_rprop_options s;
  glia_rprop_options_init(&s);
  s.lr = num(o, "lr", s.lr);
  pair(o, "etas", s.etas);
  pair(o, "step_sizes", s.step_sizes);
  s.maximize = flag(o, "maximize", s.maximize);
  return use(&s, kind);
}

// glia_optim_<kind>(params, options).
glia_error* create(const std::string& kind, const void* s, glia_tensor* const* ps, int64_t n, glia_optimizer** out) {
  if (kind == "adadelta") return glia_optim_adadelta(ps, n, static_cast<const glia_adadelta_options*>(s), out);
  if (kind == "adagrad") return glia_optim_adagrad(ps, n, static_cast<const glia_adagrad_options*>(s), out);
  if (kind == "adamax") return glia_optim_adamax(ps, n, static_cast<const glia_adamax_options*>(s), out);
  if (kind == "asgd") return glia_optim_asgd(ps, n, static_cast<const glia_asgd_options*>(s), out);
  if (kind == "nadam") return glia_optim_nadam(ps, n, static_cast<const glia_nadam_options*>(s), out);
  if (kind == "radam") return glia_optim_radam(ps, n, static_cast<const glia_radam_options*>(s), out);
  return glia_optim_rprop(ps, n, static_cast<const glia_rprop_options*>(s), out);
}

glia_error* make_optimizer(const std::string& kind, const json& o, std::vector<glia_tensor*>& ps,
                           glia_optimizer** out) {
  return with_options(kind, o, [&](const void* s, const std::string& k) {
    return create(k, s, ps.data(), static_cast<int64_t>(ps.size()), out);
  });
}

const char* kKinds[] = {"adadelta", "adagrad", "adamax", "asgd", "nadam", "radam", "rprop"};

glia_tensor* to_dtype(Handles& h, const json& t, glia_dtype d) {
  return make(h, decode_all(t["values"]), t["shape"].get<std::vector<int64_t>>(), d);
}

// The three parameters of the golden cases (p2 never gets a grad), requiring grad.
std::vector<glia_tensor*> make_params(Handles& h, glia_dtype d) {
  std::vector<glia_tensor*> ps;
  for (const json& t : golden()["initial"]) {
    glia_tensor* p = to_dtype(h, t, d);
    ok(glia_tensor_set_requires_grad(p, 1), "set_requires_grad");
    ps.push_back(p);
  }
  return ps;
}

// Feeds the fixture's grads of step s (0-based) to p0 and p1.
void feed_grads(Handles& h, std::vector<glia_tensor*>& ps, int s, glia_dtype d) {
  const json& gs = golden()["grads"][s];
  for (size_t i = 0; i < 2; ++i) ok(glia_tensor_set_grad(ps[i], to_dtype(h, gs[i], d)), "set_grad");
}

// Overwrites the parameters' values (no autograd record) with the encoded ones.
void set_params(Handles& h, std::vector<glia_tensor*>& ps, const json& vals, glia_dtype d) {
  glia_grad_mode_set(0);
  for (size_t i = 0; i < ps.size(); ++i) ok(glia_copy_(ps[i], to_dtype(h, vals[i], d)), "copy_");
  glia_grad_mode_set(1);
}

double tol_for(glia_dtype d) { return d == GLIA_FLOAT64 ? 1e-9 : 1e-5; }
glia_dtype case_dtype(const json& c) { return c["dtype"] == "float32" ? GLIA_FLOAT32 : GLIA_FLOAT64; }

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
    EXPECT_EQ(dtype(t), dtype_named(kv[1]["dtype"].get<std::string>())) << k;
    expect_tensor(t, kv[1], tol, k);
    glia_tensor_release(t);
  }
}

// torch's state_dict (flattened by the generator) as a glia dict.
void dict_from_json(Handles& h, const json& flat, glia_tensor_dict* d) {
  for (const json& kv : flat) {
    const json& t = kv[1];
    glia_tensor* v = to_dtype(h, t, dtype_named(t["dtype"].get<std::string>()));
    ok(glia_tensor_dict_set(d, kv[0].get<std::string>().c_str(), v), "dict_set");
  }
}

}  // namespace

// Every option combination: parameters after steps 1, 5, 10, 20 and the state after 20.
TEST(OptimExtraTrajectory, EveryCaseMatchesTorch) {
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

// torch's own state_dict after 10 steps, loaded into an optimizer made with the defaults (the
// options come from the dict), resumes to torch's parameters and state after 20.
TEST(OptimExtraStateDict, TorchsStateDictLoadsAndResumes) {
  int n = 0;
  for (const json& c : golden()["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    glia_dtype d = case_dtype(c);
    Handles h;
    std::vector<glia_tensor*> ps = make_params(h, d);
    set_params(h, ps, c["checkpoints"]["10"], d);
    OptHandle o;
    GLIA_OK_(make_optimizer(c["optimizer"], json::object(), ps, o.out()));
    DictHandle sd;
    GLIA_OK_(glia_tensor_dict_create(sd.out()));
    dict_from_json(h, c["state10"], sd.get());
    GLIA_OK_(glia_optimizer_load_state_dict(o.get(), sd.get()));
    expect_state_dict(o.get(), c["state10"], 0);
    for (int s = 10; s < 20; ++s) {
      feed_grads(h, ps, s, d);
      GLIA_OK_(glia_optimizer_step(o.get()));
    }
    for (size_t i = 0; i < 3; ++i) expect_tensor(ps[i], c["checkpoints"]["20"][i], tol_for(d), "p" + std::to_string(i));
    expect_state_dict(o.get(), c["state"], tol_for(d));
    ++n;
  }
  EXPECT_GE(n, 50);
}

// glia's own state_dict after 10 steps, loaded into a fresh optimizer, gives the uninterrupted run;
// the loaded state is a copy (stepping the first optimizer does not disturb the second).
TEST(OptimExtraStateDict, RoundTripResumes) {
  for (const json& c : golden()["cases"]) {
    if (case_dtype(c) != GLIA_FLOAT64) continue;
    SCOPED_TRACE(c["name"].get<std::string>());
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
    feed_grads(h, ps, 19, GLIA_FLOAT64);
    GLIA_OK_(glia_optimizer_step(a.get()));
    set_params(h, ps, c["checkpoints"]["10"], GLIA_FLOAT64);
    for (int s = 10; s < 20; ++s) {
      feed_grads(h, ps, s, GLIA_FLOAT64);
      GLIA_OK_(glia_optimizer_step(b.get()));
    }
    for (size_t i = 0; i < 3; ++i) expect_tensor(ps[i], c["checkpoints"]["20"][i], 1e-9, "p" + std::to_string(i));
  }
}

// Two parameter groups with their own options (add_param_group with an options struct).
TEST(OptimExtraGroups, GroupsKeepTheirOwnOptions) {
  int n = 0;
  for (const json& c : golden()["groups"]) {
    std::string kind = c["optimizer"];
    SCOPED_TRACE(kind);
    Handles h;
    std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
    std::vector<glia_tensor*> g0{ps[0]}, g1{ps[1]};
    OptHandle o;
    GLIA_OK_(make_optimizer(kind, c["group0"], g0, o.out()));
    GLIA_OK_(with_options(kind, c["group1"], [&](const void* s, const std::string&) {
      return glia_optimizer_add_param_group(o.get(), g1.data(), 1, s);
    }));
    double lr1 = 0;
    GLIA_OK_(glia_optimizer_get_lr(o.get(), 1, &lr1));
    EXPECT_EQ(lr1, c["group1"]["lr"].get<double>());
    for (int s = 0; s < c["steps"].get<int>(); ++s) {
      GLIA_OK_(glia_optimizer_zero_grad(o.get(), 1));
      feed_grads(h, ps, s, GLIA_FLOAT64);
      GLIA_OK_(glia_optimizer_step(o.get()));
    }
    for (size_t i = 0; i < 2; ++i) expect_tensor(ps[i], c["params"][i], 1e-9, "p" + std::to_string(i));
    expect_state_dict(o.get(), c["state"], 1e-9);
    ++n;
  }
  EXPECT_EQ(n, 6);
}

// Adagrad creates every parameter's state at construction (torch); a parameter of a later group
// gets it on its first step, filled with that group's initial_accumulator_value.
TEST(OptimExtraGroups, AdagradStateAtConstructionAndLater) {
  Handles h;
  std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
  glia_adagrad_options a;
  glia_adagrad_options_init(&a);
  a.initial_accumulator_value = 0.5;
  OptHandle o;
  GLIA_OK_(glia_optim_adagrad(ps.data(), 2, &a, o.out()));
  a.initial_accumulator_value = 2;
  a.lr = 0.1;
  GLIA_OK_(glia_optimizer_add_param_group(o.get(), ps.data() + 2, 1, &a));
  DictHandle d;
  GLIA_OK_(glia_optimizer_state_dict(o.get(), d.out()));
  std::vector<std::string> keys = dict_keys(d.get());
  ASSERT_GE(keys.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + 4),
            (std::vector<std::string>{"state.0.step", "state.0.sum", "state.1.step", "state.1.sum"}));
  glia_tensor* sum1 = nullptr;
  GLIA_OK_(glia_tensor_dict_get(d.get(), "state.1.sum", &sum1));
  h.add(sum1);
  EXPECT_EQ(values(sum1), std::vector<double>(5, 0.5));
  // p2 (group 1) gets a grad of ones: sum = 2 + 1, p2 -= 0.1 * 1 / (sqrt(3) + 1e-10).
  std::vector<double> p2 = values(ps[2]);
  GLIA_OK_(glia_tensor_set_grad(ps[2], make(h, {1, 1, 1, 1}, {2, 2})));
  GLIA_OK_(glia_optimizer_step(o.get()));
  std::vector<double> want;
  for (double v : p2) want.push_back(v + -0.1 * (1 / (std::sqrt(3.0) + 1e-10)));
  expect_values(values(ps[2]), want, 1e-15, "p2");
  DictHandle d2;
  GLIA_OK_(glia_optimizer_state_dict(o.get(), d2.out()));
  glia_tensor* sum2 = nullptr;
  GLIA_OK_(glia_tensor_dict_get(d2.get(), "state.2.sum", &sum2));
  h.add(sum2);
  EXPECT_EQ(values(sum2), std::vector<double>(4, 3.0));
}

TEST(OptimExtraErrors, OptionErrorsAreTorchs) {
  int n = 0;
  for (const json& e : golden()["option_errors"]) {
    SCOPED_TRACE(e["message"].get<std::string>());
    Handles h;
    std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
    glia_optimizer* o = nullptr;
    EXPECT_GLIA_MSG(make_optimizer(e["optimizer"], e["options"], ps, &o), GLIA_ERR_INVALID_ARGUMENT,
                    e["message"].get<std::string>());
    EXPECT_EQ(o, nullptr);
    // The same value through set_option on a valid optimizer: the same message, nothing changed.
    OptHandle good;
    GLIA_OK_(make_optimizer(e["optimizer"], json::object(), ps, good.out()));
    for (const auto& [name, v] : e["options"].items()) {
      if (v.is_array()) {
        const char* names[2] = {"beta1", "beta2"};
        if (name == "etas") names[0] = "etaminus", names[1] = "etaplus";
        // Set the first value, then the second: one of them fails with torch's message.
        glia_error* err = glia_optimizer_set_option(good.get(), 0, names[0], v[0].get<double>());
        if (!err) err = glia_optimizer_set_option(good.get(), 0, names[1], v[1].get<double>());
        EXPECT_GLIA_MSG(err, GLIA_ERR_INVALID_ARGUMENT, e["message"].get<std::string>());
      } else {
        EXPECT_GLIA_MSG(glia_optimizer_set_option(good.get(), 0, name.c_str(), v.get<double>()),
                        GLIA_ERR_INVALID_ARGUMENT, e["message"].get<std::string>());
      }
    }
    ++n;
  }
  EXPECT_EQ(n, 30);
}

TEST(OptimExtraErrors, ParameterAndStructErrors) {
  Handles h;
  std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
  for (const char* kind : kKinds) {
    SCOPED_TRACE(kind);
    glia_optimizer* o = nullptr;
    EXPECT_GLIA_MSG(create(kind, nullptr, ps.data(), 0, &o), GLIA_ERR_INVALID_ARGUMENT,
                    "optimizer got an empty parameter list");
    EXPECT_GLIA_MSG(create(kind, nullptr, ps.data(), 1, nullptr), GLIA_ERR_INVALID_ARGUMENT, "'out' is NULL");
    // A struct_size the library does not know (not set by the init function).
    glia_rprop_options zero{};
    zero.struct_size = 3;
    EXPECT_GLIA_MSG(create(kind, &zero, ps.data(), 1, &o), GLIA_ERR_INVALID_ARGUMENT, "struct_size");
    EXPECT_EQ(o, nullptr);
    // NULL options: torch's defaults.
    OptHandle def;
    GLIA_OK_(create(kind, nullptr, ps.data(), 2, def.out()));
    // A parameter in two groups.
    EXPECT_GLIA_MSG(glia_optimizer_add_param_group(def.get(), ps.data() + 1, 2, nullptr), GLIA_ERR_INVALID_ARGUMENT,
                    "some parameters appear in more than one parameter group");
  }
  // A non-leaf tensor.
  glia_tensor* y = nullptr;
  GLIA_OK_(glia_mul(ps[0], ps[0], &y));
  h.add(y);
  glia_optimizer* o = nullptr;
  EXPECT_GLIA_MSG(glia_optim_rprop(&y, 1, nullptr, &o), GLIA_ERR_INVALID_ARGUMENT, "can't optimize a non-leaf Tensor");
}

// Defaults (glia_<x>_options_init and NULL options) are torch's; pairs are read and written by
// their slot names; set_option changes the next step.
TEST(OptimExtraOptions, DefaultsAndPairNames) {
  Handles h;
  std::vector<glia_tensor*> ps = make_params(h, GLIA_FLOAT64);
  struct Want {
    const char* kind;
    std::vector<std::pair<const char*, double>> opts;
  };
  const std::vector<Want> wants = {
      {"adadelta", {{"lr", 1.0}, {"rho", 0.9}, {"eps", 1e-6}, {"weight_decay", 0}, {"maximize", 0}}},
      {"adagrad",
       {{"lr", 1e-2}, {"lr_decay", 0}, {"eps", 1e-10}, {"weight_decay", 0}, {"initial_accumulator_value", 0}}},
      {"adamax", {{"lr", 2e-3}, {"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}, {"maximize", 0}}},
      {"asgd", {{"lr", 1e-2}, {"lambd", 1e-4}, {"alpha", 0.75}, {"t0", 1e6}, {"weight_decay", 0}}},
      {"nadam", {{"lr", 2e-3}, {"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}, {"momentum_decay", 4e-3}}},
      {"radam", {{"lr", 1e-3}, {"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}, {"weight_decay", 0}}},
      {"rprop", {{"lr", 1e-2}, {"etaminus", 0.5}, {"etaplus", 1.2}, {"step_size_min", 1e-6}, {"step_size_max", 50}}},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(w.kind);
    OptHandle o;
    GLIA_OK_(create(w.kind, nullptr, ps.data(), 1, o.out()));
    for (const auto& [name, v] : w.opts) {
      double got = -1;
      GLIA_OK_(glia_optimizer_get_option(o.get(), 0, name, &got));
      EXPECT_EQ(got, v) << name;
    }
  }
  OptHandle rp;
  GLIA_OK_(glia_optim_rprop(ps.data(), 1, nullptr, rp.out()));
  double v = 0;
  EXPECT_GLIA_MSG(glia_optimizer_get_option(rp.get(), 0, "etas", &v), GLIA_ERR_INVALID_ARGUMENT,
                  "Rprop has no option 'etas'");
  EXPECT_GLIA_MSG(glia_optimizer_set_option(rp.get(), 0, "step_sizes", 1), GLIA_ERR_INVALID_ARGUMENT,
                  "Rprop has no option 'step_sizes'");
  EXPECT_GLIA_MSG(glia_optimizer_get_option(rp.get(), 0, "beta1", &v), GLIA_ERR_INVALID_ARGUMENT,
                  "Rprop has no option 'beta1'");
  EXPECT_GLIA_MSG(glia_optimizer_set_option(rp.get(), 0, "maximize", 2), GLIA_ERR_INVALID_ARGUMENT,
                  "option 'maximize' is a flag: expected 0 or 1, got 2.0");
  OptHandle na;
  GLIA_OK_(glia_optim_nadam(ps.data(), 1, nullptr, na.out()));
  EXPECT_GLIA_MSG(glia_optimizer_get_option(na.get(), 0, "maximize", &v), GLIA_ERR_INVALID_ARGUMENT,
                  "NAdam has no option 'maximize'");
  // Rprop's step sizes bound every step: a largest step of 0.25 after setting it.
  GLIA_OK_(glia_optimizer_set_option(rp.get(), 0, "step_size_max", 0.25));
  GLIA_OK_(glia_optimizer_set_option(rp.get(), 0, "etaplus", 100));
  GLIA_OK_(glia_optimizer_get_option(rp.get(), 0, "step_size_max", &v));
  EXPECT_EQ(v, 0.25);
  std::vector<double> p0 = values(ps[0]);
  for (int s = 0; s < 3; ++s) {
    GLIA_OK_(glia_tensor_set_grad(ps[0], make(h, std::vector<double>(12, 1.0), {3, 4})));
    GLIA_OK_(glia_optimizer_step(rp.get()));
  }
  // Steps: 0.01 (lr), then min(0.01 * 100, 0.25) = 0.25 twice.
  std::vector<double> want;
  for (double x : p0) want.push_back(x - 0.01 - 0.25 - 0.25);
  expect_values(values(ps[0]), want, 1e-15, "rprop");
}

// Large float32 and float64 parameters go through the parallel fast path, equal to one-element
// runs; a transposed (non-contiguous) parameter through the generic float64 path, equal to a
// contiguous one.
TEST(OptimExtraKernels, LargeAndStridedParametersMatchSmallOnes) {
  for (const char* kind : kKinds) {
    SCOPED_TRACE(kind);
    for (glia_dtype d : {GLIA_FLOAT32, GLIA_FLOAT64}) {
      Handles h;
      const int64_t n = 100000;
      std::vector<double> pv(n), gv(n);
      for (int64_t i = 0; i < n; ++i) {
        pv[i] = std::sin(0.001 * static_cast<double>(i));
        gv[i] = std::cos(0.0007 * static_cast<double>(i));
      }
      glia_tensor* big = make(h, pv, {n}, d);
      GLIA_OK_(glia_tensor_set_requires_grad(big, 1));
      json opts = {{"weight_decay", 0.01}};
      OptHandle o;
      std::vector<glia_tensor*> bigs{big};
      GLIA_OK_(make_optimizer(kind, opts, bigs, o.out()));
      for (int s = 0; s < 3; ++s) {
        GLIA_OK_(glia_tensor_set_grad(big, make(h, gv, {n}, d)));
        GLIA_OK_(glia_optimizer_step(o.get()));
      }
      std::vector<double> got = values(big);
      for (int64_t i : {int64_t{0}, int64_t{1}, int64_t{77777}, n - 1}) {
        std::vector<glia_tensor*> small{make(h, {pv[i]}, {1}, d)};
        GLIA_OK_(glia_tensor_set_requires_grad(small[0], 1));
        OptHandle os;
        GLIA_OK_(make_optimizer(kind, opts, small, os.out()));
        for (int s = 0; s < 3; ++s) {
          GLIA_OK_(glia_tensor_set_grad(small[0], make(h, {gv[i]}, {1}, d)));
          GLIA_OK_(glia_optimizer_step(os.get()));
        }
        EXPECT_EQ(values(small[0])[0], got[i]) << i;
      }
    }
    // Transposed against contiguous, float64.
    Handles h;
    std::vector<double> pv{1, 2, 3, 4, 5, 6}, gv{0.5, -1, 2, 0.25, -0.5, 1};
    glia_tensor* base = make(h, pv, {2, 3});
    glia_tensor* pt = nullptr;
    GLIA_OK_(glia_transpose(base, 0, 1, &pt));
    h.add(pt);
    GLIA_OK_(glia_tensor_set_requires_grad(pt, 1));
    glia_tensor* pc = nullptr;
    GLIA_OK_(glia_tensor_contiguous(pt, &pc));
    h.add(pc);
    glia_tensor* pcl = make(h, values(pc), shape(pc));
    GLIA_OK_(glia_tensor_set_requires_grad(pcl, 1));
    std::vector<glia_tensor*> t{pt}, c{pcl};
    OptHandle ot, oc;
    GLIA_OK_(make_optimizer(kind, json::object(), t, ot.out()));
    GLIA_OK_(make_optimizer(kind, json::object(), c, oc.out()));
    for (int s = 0; s < 3; ++s) {
      glia_tensor* gt = nullptr;
      GLIA_OK_(glia_transpose(make(h, gv, {2, 3}), 0, 1, &gt));
      h.add(gt);
      GLIA_OK_(glia_tensor_set_grad(pt, gt));
      glia_tensor* gc = nullptr;
      GLIA_OK_(glia_tensor_contiguous(gt, &gc));
      h.add(gc);
      GLIA_OK_(glia_tensor_set_grad(pcl, gc));
      GLIA_OK_(glia_optimizer_step(ot.get()));
      GLIA_OK_(glia_optimizer_step(oc.get()));
    }
    EXPECT_EQ(values(pt), values(pcl));
    EXPECT_NE(values(pt), values(pc));
  }
}

// ---- LBFGS ------------------------------------------------------------------------------------

namespace {

// The generator's f(x, y) = sum(WX x^2) + 0.05 sum(x^4) + sum(WY (y - B)^2) + 0.01 (sum(x) sum(y))^2,
// as torch evaluates it, and the closure that zeroes the grads, evaluates it and runs backward.
struct Problem {
  Handles h;
  glia_dtype d = GLIA_FLOAT64;
  std::vector<glia_tensor*> ps;
  glia_tensor *wx = nullptr, *wy = nullptr, *b = nullptr;
  glia_optimizer* opt = nullptr;
  int calls = 0;
  bool fail_at_call = false;
  int fail_call = 0;

  explicit Problem(glia_dtype dt) : d(dt) {
    const json& data = golden()["lbfgs_data"];
    wx = to_dtype(h, data["wx"], d);
    wy = to_dtype(h, data["wy"], d);
    b = to_dtype(h, data["b"], d);
    for (int i = 0; i < 2; ++i) {
      glia_tensor* p = to_dtype(h, golden()["initial"][i], d);
      ok(glia_tensor_set_requires_grad(p, 1), "requires_grad");
      ps.push_back(p);
    }
  }
  glia_tensor* keep(glia_error* e, glia_tensor* const& t) {
    ok(e, "loss op");
    return h.add(t);
  }
  glia_tensor* mul(glia_tensor* a, glia_tensor* c) {
    glia_tensor* t = nullptr;
    return keep(glia_mul(a, c, &t), t);
  }
  glia_tensor* sum(glia_tensor* a) {
    glia_tensor* t = nullptr;
    return keep(glia_sum(a, nullptr, 0, 0, &t), t);
  }
  glia_tensor* add(glia_tensor* a, glia_tensor* c) {
    glia_tensor* t = nullptr;
    return keep(glia_add(a, c, 1, &t), t);
  }
  glia_tensor* scale(glia_tensor* a, double s) {
    glia_tensor* t = nullptr;
    return keep(glia_mul_scalar(a, glia_scalar{GLIA_SCALAR_FLOAT, 0, s, 0}, &t), t);
  }
  glia_error* eval(double* loss) {
    ++calls;
    if (fail_at_call && calls == fail_call) return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "host closure failed");
    glia_error* e = glia_optimizer_zero_grad(opt, 1);
    if (e) return e;
    glia_tensor *x = ps[0], *y = ps[1];
    glia_tensor* ymb = nullptr;
    ok(glia_sub(y, b, 1, &ymb), "sub");
    h.add(ymb);
    glia_tensor* f =
        add(add(add(sum(mul(mul(wx, x), x)), scale(sum(mul(mul(mul(x, x), x), x)), 0.05)), sum(mul(mul(wy, ymb), ymb))),
            scale(mul(mul(sum(x), sum(y)), mul(sum(x), sum(y))), 0.01));
    e = glia_tensor_backward(f, nullptr, 0);
    if (e) return e;
    return glia_tensor_item_double(f, loss);
  }
  static glia_error* closure(void* self, double* loss) { return static_cast<Problem*>(self)->eval(loss); }
};

glia_lbfgs_options lbfgs_options(const json& o) {
  glia_lbfgs_options s;
  glia_lbfgs_options_init(&s);
  s.lr = num(o, "lr", s.lr);
  s.max_iter = static_cast<int64_t>(num(o, "max_iter", 20));
  if (o.contains("max_eval")) s.max_eval = o["max_eval"].get<int64_t>();
  s.tolerance_grad = num(o, "tolerance_grad", s.tolerance_grad);
  s.tolerance_change = num(o, "tolerance_change", s.tolerance_change);
  s.history_size = static_cast<int64_t>(num(o, "history_size", 100));
  s.line_search_fn = o.contains("line_search_fn") && o["line_search_fn"].is_string() ? 1 : 0;
  return s;
}

glia_tensor* dict_get(Handles& h, glia_tensor_dict* d, const std::string& k) {
  glia_tensor* t = nullptr;
  glia_error* e = glia_tensor_dict_get(d, k.c_str(), &t);
  if (e) {
    ADD_FAILURE() << "missing " << k << ": " << glia_error_message(e);
    glia_error_free(e);
    return nullptr;
  }
  return h.add(t);
}

// float32 runs agree with torch's to float32 rounding, amplified by the iterations.
double lbfgs_tol(glia_dtype d) { return d == GLIA_FLOAT64 ? 1e-10 : 1e-5; }

}  // namespace

// Three step(closure) calls: the returned losses, the parameters, the counters and the final state
// (torch's lists stacked) against torch, with and without the strong-Wolfe line search.
TEST(OptimExtraLBFGS, StepsMatchTorch) {
  int n = 0;
  for (const json& c : golden()["lbfgs"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    Problem pb(case_dtype(c));
    const double tol = lbfgs_tol(pb.d);
    glia_lbfgs_options lo = lbfgs_options(c["options"]);
    OptHandle o;
    GLIA_OK_(glia_optim_lbfgs(pb.ps.data(), 2, &lo, o.out()));
    pb.opt = o.get();
    for (const json& s : c["steps"]) {
      double loss = NAN;
      GLIA_OK_(glia_optimizer_step_closure(o.get(), Problem::closure, &pb, &loss));
      expect_values({loss}, {s["loss"].get<double>()}, tol, "loss");
      for (size_t i = 0; i < 2; ++i) expect_tensor(pb.ps[i], s["params"][i], tol, "p" + std::to_string(i));
      DictHandle d;
      GLIA_OK_(glia_optimizer_state_dict(o.get(), d.out()));
      for (const char* k : {"func_evals", "n_iter"}) {
        glia_tensor* t = dict_get(pb.h, d.get(), std::string("state.0.") + k);
        if (!t) continue;
        EXPECT_EQ(dtype(t), GLIA_INT64);
        EXPECT_EQ(values(t), std::vector<double>{s[k].get<double>()}) << k;
      }
    }
    DictHandle d;
    GLIA_OK_(glia_optimizer_state_dict(o.get(), d.out()));
    std::vector<std::string> want_keys;
    for (const json& k : c["keys"])
      if (k != "al") want_keys.push_back("state.0." + k.get<std::string>());
    for (const char* k : {"lr", "max_iter", "max_eval", "tolerance_grad", "tolerance_change", "history_size",
                          "line_search_fn", "params"})
      want_keys.push_back(std::string("param_groups.0.") + k);
    EXPECT_EQ(dict_keys(d.get()), want_keys);
    const json& st = c["state"];
    for (const char* k : {"d", "prev_flat_grad"}) {
      glia_tensor* t = dict_get(pb.h, d.get(), std::string("state.0.") + k);
      if (t) expect_tensor(t, st[k], tol, k);
    }
    for (const char* k : {"old_dirs", "old_stps"}) {
      glia_tensor* t = dict_get(pb.h, d.get(), std::string("state.0.") + k);
      if (!t) continue;
      std::vector<double> want;
      for (const json& v : st[k])
        for (double x : decode_all(v["values"])) want.push_back(x);
      EXPECT_EQ(shape(t), (std::vector<int64_t>{static_cast<int64_t>(st[k].size()), 17})) << k;
      expect_values(values(t), want, tol, k);
    }
    std::vector<double> ro;
    for (const json& v : st["ro"]) ro.push_back(v.get<double>());
    if (glia_tensor* t = dict_get(pb.h, d.get(), "state.0.ro")) expect_values(values(t), ro, tol, "ro");
    for (const char* k : {"t", "H_diag", "prev_loss"})
      if (glia_tensor* t = dict_get(pb.h, d.get(), std::string("state.0.") + k))
        expect_values(values(t), {st[k].get<double>()}, tol, k);
    glia_tensor* mev = dict_get(pb.h, d.get(), "param_groups.0.max_eval");
    if (mev) EXPECT_EQ(values(mev)[0], static_cast<double>(lo.max_eval < 0 ? lo.max_iter * 5 / 4 : lo.max_eval));
    ++n;
  }
  EXPECT_EQ(n, 12);
}

// glia's state dict after two steps, loaded into a fresh LBFGS, gives torch's third step.
TEST(OptimExtraLBFGS, StateDictResumes) {
  for (const json& c : golden()["lbfgs"]) {
    if (case_dtype(c) != GLIA_FLOAT64) continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    Problem pb(GLIA_FLOAT64);
    glia_lbfgs_options lo = lbfgs_options(c["options"]);
    OptHandle a;
    GLIA_OK_(glia_optim_lbfgs(pb.ps.data(), 2, &lo, a.out()));
    pb.opt = a.get();
    for (int s = 0; s < 2; ++s) GLIA_OK_(glia_optimizer_step_closure(a.get(), Problem::closure, &pb, nullptr));
    DictHandle d;
    GLIA_OK_(glia_optimizer_state_dict(a.get(), d.out()));
    OptHandle b;
    GLIA_OK_(glia_optim_lbfgs(pb.ps.data(), 2, nullptr, b.out()));
    GLIA_OK_(glia_optimizer_load_state_dict(b.get(), d.get()));
    pb.opt = b.get();
    double loss = NAN;
    GLIA_OK_(glia_optimizer_step_closure(b.get(), Problem::closure, &pb, &loss));
    expect_values({loss}, {c["steps"][2]["loss"].get<double>()}, 1e-8, "loss");
    for (size_t i = 0; i < 2; ++i) expect_tensor(pb.ps[i], c["steps"][2]["params"][i], 1e-8, "p" + std::to_string(i));
  }
}

TEST(OptimExtraLBFGS, Errors) {
  Problem pb(GLIA_FLOAT64);
  OptHandle o;
  GLIA_OK_(glia_optim_lbfgs(pb.ps.data(), 1, nullptr, o.out()));
  pb.opt = o.get();
  EXPECT_GLIA_MSG(glia_optimizer_step(o.get()), GLIA_ERR_INVALID_ARGUMENT,
                  "step() missing 1 required positional argument: 'closure'");
  EXPECT_GLIA_MSG(glia_optimizer_step_closure(o.get(), nullptr, &pb, nullptr), GLIA_ERR_INVALID_ARGUMENT,
                  "argument 'closure' is NULL");
  EXPECT_GLIA_MSG(glia_optimizer_set_option(o.get(), 0, "line_search_fn", 2), GLIA_ERR_INVALID_ARGUMENT,
                  "only 'strong_wolfe' is supported");
  glia_lbfgs_options lo;
  glia_lbfgs_options_init(&lo);
  lo.line_search_fn = 3;
  glia_optimizer* bad = nullptr;
  EXPECT_GLIA_MSG(glia_optim_lbfgs(pb.ps.data(), 1, &lo, &bad), GLIA_ERR_INVALID_ARGUMENT,
                  "only 'strong_wolfe' is supported");
  // A failing closure: its message is carried (GLIA_ERR_CALLBACK).
  pb.fail_at_call = true;
  pb.fail_call = 3;
  EXPECT_GLIA_MSG(glia_optimizer_step_closure(o.get(), Problem::closure, &pb, nullptr), GLIA_ERR_CALLBACK,
                  "host closure failed");
  // A second group: torch's message at the step.
  GLIA_OK_(glia_optimizer_add_param_group(o.get(), pb.ps.data() + 1, 1, nullptr));
  pb.fail_at_call = false;
  EXPECT_GLIA_MSG(glia_optimizer_step_closure(o.get(), Problem::closure, &pb, nullptr), GLIA_ERR_INVALID_ARGUMENT,
                  "LBFGS doesn't support per-parameter options (parameter groups)");
}

// Other optimizers take a closure too: it runs once (grad mode on), then the step.
TEST(OptimExtraLBFGS, ClosureStepsOtherOptimizers) {
  Problem pb(GLIA_FLOAT64);
  Problem ref(GLIA_FLOAT64);
  OptHandle o, r;
  GLIA_OK_(glia_optim_radam(pb.ps.data(), 2, nullptr, o.out()));
  GLIA_OK_(glia_optim_radam(ref.ps.data(), 2, nullptr, r.out()));
  pb.opt = o.get();
  ref.opt = r.get();
  glia_grad_mode_set(0);
  double loss = NAN, ref_loss = NAN;
  GLIA_OK_(glia_optimizer_step_closure(o.get(), Problem::closure, &pb, &loss));
  glia_grad_mode_set(1);
  GLIA_OK_(ref.eval(&ref_loss));
  GLIA_OK_(glia_optimizer_step(r.get()));
  EXPECT_EQ(loss, ref_loss);
  EXPECT_EQ(pb.calls, 1);
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(values(pb.ps[i]), values(ref.ps[i]));
}
