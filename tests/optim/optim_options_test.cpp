// glia_optimizer_get_option / set_option (torch: param_groups[g][name] = v
// between steps) and LR scheduler state dicts (resume), against values printed
// by torch 1.13.
#include <cmath>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

glia_tensor* param(Handles& h, const std::vector<double>& v, glia_dtype dt) {
  glia_tensor* t = make(h, v, {static_cast<int64_t>(v.size())}, dt);
  ok(glia_tensor_set_requires_grad(t, 1), "requires_grad");
  return t;
}

// loss = sum(p * p): grad 2p.
void step(Handles& h, glia_optimizer* o, glia_tensor* p) {
  ok(glia_optimizer_zero_grad(o, 1), "zero_grad");
  glia_tensor *sq = nullptr, *loss = nullptr;
  ok(glia_mul(p, p, &sq), "mul");
  h.add(sq);
  ok(glia_sum(sq, nullptr, 0, 0, &loss), "sum");
  h.add(loss);
  ok(glia_tensor_backward(loss, nullptr, 0), "backward");
  ok(glia_optimizer_step(o), "step");
}

double option(glia_optimizer* o, const char* name, int64_t g = 0) {
  double v = NAN;
  ok(glia_optimizer_get_option(o, g, name, &v), name);
  return v;
}

TEST(OptimizerOptions, SgdChangesTakeEffect) {
  Handles h;
  glia_tensor* p = param(h, {1, -2}, GLIA_FLOAT64);
  glia_sgd_options so;
  glia_sgd_options_init(&so);
  so.lr = 0.1;
  OptHandle o;
  ok(glia_optim_sgd(&p, 1, &so, o.out()), "sgd");
  EXPECT_EQ(option(o, "momentum"), 0.0);
  EXPECT_EQ(option(o, "nesterov"), 0.0);
  EXPECT_EQ(option(o, "lr"), 0.1);
  step(h, o, p);
  ok(glia_optimizer_set_option(o, 0, "momentum", 0.9), "momentum");
  step(h, o, p);
  step(h, o, p);
  ok(glia_optimizer_set_option(o, 0, "nesterov", 1), "nesterov");
  step(h, o, p);
  // torch 1.13: [0.007839999999999937, -0.015679999999999875]
  expect_values(values(p), {0.007839999999999937, -0.015679999999999875}, 1e-15, "sgd");
  EXPECT_EQ(option(o, "momentum"), 0.9);
  EXPECT_EQ(option(o, "nesterov"), 1.0);
}

TEST(OptimizerOptions, AdamBetasAndEps) {
  Handles h;
  glia_tensor* p = param(h, {1, -2}, GLIA_FLOAT64);
  glia_adam_options ao;
  glia_adam_options_init(&ao);
  ao.lr = 0.1;
  OptHandle o;
  ok(glia_optim_adam(&p, 1, &ao, o.out()), "adam");
  EXPECT_EQ(option(o, "beta1"), 0.9);
  EXPECT_EQ(option(o, "beta2"), 0.999);
  step(h, o, p);
  ok(glia_optimizer_set_option(o, 0, "beta1", 0.5), "beta1");
  ok(glia_optimizer_set_option(o, 0, "beta2", 0.6), "beta2");
  ok(glia_optimizer_set_option(o, 0, "eps", 1e-3), "eps");
  step(h, o, p);
  // torch 1.13: [0.8064551967319404, -1.8069043486709946]
  expect_values(values(p), {0.8064551967319404, -1.8069043486709946}, 1e-14, "adam");
  DictHandle sd;
  ok(glia_optimizer_state_dict(o, sd.out()), "state_dict");
  glia_tensor* betas = nullptr;
  ok(glia_tensor_dict_get(sd, "param_groups.0.betas", &betas), "betas");
  h.add(betas);
  EXPECT_EQ(values(betas), (std::vector<double>{0.5, 0.6}));
}

TEST(OptimizerOptions, Errors) {
  Handles h;
  glia_tensor* p = param(h, {1, -2}, GLIA_FLOAT32);
  OptHandle sgd, adam, rms;
  ok(glia_optim_sgd(&p, 1, nullptr, sgd.out()), "sgd");
  glia_tensor* q = param(h, {1}, GLIA_FLOAT32);
  ok(glia_optim_adam(&q, 1, nullptr, adam.out()), "adam");
  glia_tensor* r = param(h, {1}, GLIA_FLOAT32);
  ok(glia_optim_rmsprop(&r, 1, nullptr, rms.out()), "rmsprop");
  enum glia_error_code code = GLIA_OK;
  auto expect = [&](glia_error* e, const std::string& text, enum glia_error_code want) {
    EXPECT_EQ(error_text(e, &code), text);
    EXPECT_EQ(code, want);
  };
  expect(glia_optimizer_set_option(sgd, 0, "lr", -1), "Invalid learning rate: -1.0", GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(sgd, 0, "momentum", -0.5), "Invalid momentum value: -0.5",
         GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(sgd, 0, "weight_decay", NAN), "Invalid weight_decay value: nan",
         GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(sgd, 0, "nesterov", 1), "Nesterov momentum requires a momentum and zero dampening",
         GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(sgd, 0, "nesterov", 2), "option 'nesterov' is a flag: expected 0 or 1, got 2.0",
         GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(sgd, 0, "betas", 0.5), "SGD has no option 'betas'", GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(sgd, 0, "beta1", 0.5), "SGD has no option 'beta1'", GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(adam, 0, "betas", 0.5), "Adam has no option 'betas'", GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(adam, 0, "beta2", 1.0), "Invalid beta parameter at index 1: 1.0",
         GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(adam, 0, "eps", -1e-8), "Invalid epsilon value: -1e-08", GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(rms, 0, "alpha", -0.1), "Invalid alpha value: -0.1", GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_set_option(sgd, 1, "lr", 0.1),
         "glia_optimizer_set_option: group index 1 is out of range (the optimizer has 1 parameter groups)",
         GLIA_ERR_INVALID_ARGUMENT);
  double v = 0;
  expect(glia_optimizer_get_option(sgd, 0, "initial_lr", &v), "'initial_lr'", GLIA_ERR_NOT_FOUND);
  expect(glia_optimizer_get_option(sgd, 0, "foo", &v), "SGD has no option 'foo'", GLIA_ERR_INVALID_ARGUMENT);
  expect(glia_optimizer_get_option(sgd, 0, nullptr, &v), "glia_optimizer_get_option: argument 'name' is NULL",
         GLIA_ERR_INVALID_ARGUMENT);
  // Failed sets changed nothing.
  EXPECT_EQ(option(sgd, "lr"), 0.001);
  EXPECT_EQ(option(sgd, "momentum"), 0.0);
  EXPECT_EQ(option(adam, "beta2"), 0.999);
  EXPECT_EQ(option(rms, "centered"), 0.0);
  ok(glia_optimizer_set_option(sgd, 0, "initial_lr", 0.5), "initial_lr");
  EXPECT_EQ(option(sgd, "initial_lr"), 0.5);
  ok(glia_optimizer_set_option(rms, 0, "centered", 1), "centered");
  EXPECT_EQ(option(rms, "centered"), 1.0);
}

std::vector<double> scheduler_values(glia_lr_scheduler* s, Handles& h, const char* key) {
  DictHandle d;
  ok(glia_lr_scheduler_state_dict(s, d.out()), "state_dict");
  glia_tensor* t = nullptr;
  ok(glia_tensor_dict_get(d, key, &t), key);
  h.add(t);
  return values(t);
}

TEST(SchedulerState, StepLRStateDictAndResume) {
  Handles h;
  glia_tensor* p = param(h, {1}, GLIA_FLOAT32);
  glia_sgd_options so;
  glia_sgd_options_init(&so);
  so.lr = 1.0;
  OptHandle o;
  ok(glia_optim_sgd(&p, 1, &so, o.out()), "sgd");
  SchedHandle s;
  ok(glia_lr_scheduler_step_lr(o, 2, 0.5, s.out()), "step_lr");
  for (int i = 0; i < 3; ++i) ok(glia_lr_scheduler_step(s), "step");
  // torch 1.13: {'step_size': 2, 'gamma': 0.5, 'base_lrs': [1.0], 'last_epoch': 3, 'verbose': False,
  // '_step_count': 4, '_get_lr_called_within_step': False, '_last_lr': [0.5]}
  DictHandle sd;
  ok(glia_lr_scheduler_state_dict(s, sd.out()), "state_dict");
  EXPECT_EQ(dict_keys(sd),
            (std::vector<std::string>{"last_epoch", "_step_count", "base_lrs", "_last_lr", "step_size", "gamma"}));
  EXPECT_EQ(scheduler_values(s, h, "last_epoch"), std::vector<double>{3});
  EXPECT_EQ(scheduler_values(s, h, "_step_count"), std::vector<double>{4});
  EXPECT_EQ(scheduler_values(s, h, "base_lrs"), std::vector<double>{1.0});
  EXPECT_EQ(scheduler_values(s, h, "_last_lr"), std::vector<double>{0.5});
  EXPECT_EQ(scheduler_values(s, h, "step_size"), std::vector<double>{2});
  int64_t epoch = -1;
  ok(glia_lr_scheduler_get_last_epoch(s, &epoch), "last_epoch");
  EXPECT_EQ(epoch, 3);
  DictHandle osd;
  ok(glia_optimizer_state_dict(o, osd.out()), "opt state");

  // A fresh optimizer and scheduler (other settings) resume from both state dicts.
  glia_tensor* p2 = param(h, {1}, GLIA_FLOAT32);
  OptHandle o2;
  ok(glia_optim_sgd(&p2, 1, &so, o2.out()), "sgd");
  SchedHandle s2;
  ok(glia_lr_scheduler_step_lr(o2, 7, 0.9, s2.out()), "step_lr");
  ok(glia_optimizer_load_state_dict(o2, osd), "load opt");
  ok(glia_lr_scheduler_load_state_dict(s2, sd), "load sched");
  ok(glia_lr_scheduler_get_last_epoch(s2, &epoch), "last_epoch");
  EXPECT_EQ(epoch, 3);
  double lr = 0;
  ok(glia_lr_scheduler_get_last_lr(s2, 0, &lr), "last_lr");
  EXPECT_EQ(lr, 0.5);
  // torch 1.13 continues with [0.25] and [0.25].
  for (glia_lr_scheduler* x : {s.get(), s2.get()}) {
    ok(glia_lr_scheduler_step(x), "step");
    ok(glia_lr_scheduler_get_last_lr(x, 0, &lr), "last_lr");
    EXPECT_EQ(lr, 0.25);
    ok(glia_lr_scheduler_step(x), "step");
    ok(glia_lr_scheduler_get_last_lr(x, 0, &lr), "last_lr");
    EXPECT_EQ(lr, 0.25);
  }
}

TEST(SchedulerState, OtherSchedulersRoundTripAndErrors) {
  Handles h;
  glia_tensor* p = param(h, {1}, GLIA_FLOAT32);
  glia_sgd_options so;
  glia_sgd_options_init(&so);
  so.lr = 1.0;
  OptHandle o;
  ok(glia_optim_sgd(&p, 1, &so, o.out()), "sgd");
  SchedHandle ms, cos, lin;
  int64_t milestones[] = {3, 1, 3};
  ok(glia_lr_scheduler_multi_step_lr(o, milestones, 3, 0.5, ms.out()), "multistep");
  // torch: Counter({3: 2, 1: 1}); glia writes the sorted list with repeats.
  EXPECT_EQ(scheduler_values(ms, h, "milestones"), (std::vector<double>{1, 3, 3}));
  ok(glia_lr_scheduler_cosine_annealing_lr(o, 10, 0.01, cos.out()), "cos");
  EXPECT_EQ(scheduler_values(cos, h, "T_max"), std::vector<double>{10});
  EXPECT_EQ(scheduler_values(cos, h, "eta_min"), std::vector<double>{0.01});
  ok(glia_lr_scheduler_linear_lr(o, 1.0 / 3, 1.0, 5, lin.out()), "linear");
  EXPECT_EQ(scheduler_values(lin, h, "total_iters"), std::vector<double>{5});

  // Cosine: 3 steps, save, 3 more; a scheduler loaded from the save gives the same lrs.
  glia_tensor* q = param(h, {1}, GLIA_FLOAT32);
  OptHandle oa, ob;
  ok(glia_optim_sgd(&q, 1, &so, oa.out()), "sgd");
  glia_tensor* q2 = param(h, {1}, GLIA_FLOAT32);
  ok(glia_optim_sgd(&q2, 1, &so, ob.out()), "sgd");
  SchedHandle a, b;
  ok(glia_lr_scheduler_cosine_annealing_lr(oa, 4, 0.1, a.out()), "cos");
  ok(glia_lr_scheduler_cosine_annealing_lr(ob, 9, 0.0, b.out()), "cos");
  for (int i = 0; i < 3; ++i) ok(glia_lr_scheduler_step(a), "step");
  DictHandle sa, oas;
  ok(glia_lr_scheduler_state_dict(a, sa.out()), "sd");
  ok(glia_optimizer_state_dict(oa, oas.out()), "osd");
  ok(glia_optimizer_load_state_dict(ob, oas), "load");
  ok(glia_lr_scheduler_load_state_dict(b, sa), "load");
  for (int i = 0; i < 3; ++i) {
    ok(glia_lr_scheduler_step(a), "step");
    ok(glia_lr_scheduler_step(b), "step");
    double la = 0, lb = 1;
    ok(glia_lr_scheduler_get_last_lr(a, 0, &la), "lr");
    ok(glia_lr_scheduler_get_last_lr(b, 0, &lb), "lr");
    EXPECT_EQ(la, lb);
  }

  // Errors leave the scheduler unchanged.
  enum glia_error_code code = GLIA_OK;
  DictHandle bad;
  ok(glia_lr_scheduler_state_dict(lin, bad.out()), "sd");
  ok(glia_tensor_dict_remove(bad, "end_factor"), "remove");
  EXPECT_EQ(error_text(glia_lr_scheduler_load_state_dict(lin, bad), &code),
            "loaded scheduler state dict is missing \"end_factor\"");
  EXPECT_EQ(code, GLIA_ERR_INVALID_ARGUMENT);
  DictHandle bad2;
  ok(glia_lr_scheduler_state_dict(a, bad2.out()), "sd");
  ok(glia_tensor_dict_set(bad2, "foo", make(h, {1}, {}, GLIA_FLOAT64)), "set");
  EXPECT_EQ(error_text(glia_lr_scheduler_load_state_dict(a, bad2), &code),
            "loaded scheduler state dict has an unexpected key \"foo\"");
  DictHandle bad3;
  ok(glia_lr_scheduler_state_dict(a, bad3.out()), "sd");
  ok(glia_tensor_dict_set(bad3, "T_max", make(h, {0}, {}, GLIA_FLOAT64)), "set");
  EXPECT_EQ(error_text(glia_lr_scheduler_load_state_dict(a, bad3), &code),
            "CosineAnnealingLR: T_max must be a positive integer, got 0");
  ok(glia_tensor_dict_set(bad3, "T_max", make(h, {4}, {}, GLIA_FLOAT64)), "set");
  ok(glia_tensor_dict_set(bad3, "base_lrs", make(h, {1, 1}, {2}, GLIA_FLOAT64)), "set");
  EXPECT_EQ(error_text(glia_lr_scheduler_load_state_dict(a, bad3), &code),
            "loaded scheduler state dict has 2 base_lrs, expected 1");
  int64_t epoch = 0;
  ok(glia_lr_scheduler_get_last_epoch(a, &epoch), "epoch");
  EXPECT_EQ(epoch, 6);
  ok(glia_lr_scheduler_get_last_epoch(lin, &epoch), "epoch");
  EXPECT_EQ(epoch, 0);
}

}  // namespace
