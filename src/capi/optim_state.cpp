// Per-group optimizer options by name and LR scheduler state dicts.
#include "capi/api.h"
#include "optim/optimizer.h"

using namespace glia;
using namespace glia::capi;

namespace {

optim::Optimizer* optimizer_of(const glia_optimizer* h, const char* fn) {
  return lookup<optim::Optimizer>(h, HandleType::Optimizer, fn, "optimizer");
}
optim::LRScheduler* scheduler_of(const glia_lr_scheduler* h, const char* fn) {
  return lookup<optim::LRScheduler>(h, HandleType::Scheduler, fn, "scheduler");
}
size_t group_index(const optim::Optimizer& o, int64_t g, const char* fn) {
  GLIA_CHECK(g >= 0 && static_cast<size_t>(g) < o.num_groups(), InvalidArgument, fn, ": group index ", g,
             " is out of range (the optimizer has ", o.num_groups(), " parameter groups)");
  return static_cast<size_t>(g);
}

}  // namespace

extern "C" {

glia_error* glia_optimizer_get_option(const glia_optimizer* optimizer, int64_t group, const char* name, double* out) {
  const char* fn = "glia_optimizer_get_option";
  return guard([&] {
    optim::Optimizer* o = optimizer_of(optimizer, fn);
    size_t g = group_index(*o, group, fn);
    std::string n = str_arg(name, fn, "name");
    check_out(out, fn, "out");
    *out = o->get_option(g, n);
  });
}

glia_error* glia_optimizer_set_option(glia_optimizer* optimizer, int64_t group, const char* name, double value) {
  const char* fn = "glia_optimizer_set_option";
  return guard([&] {
    optim::Optimizer* o = optimizer_of(optimizer, fn);
    size_t g = group_index(*o, group, fn);
    o->set_option(g, str_arg(name, fn, "name"), value);
  });
}

glia_error* glia_lr_scheduler_get_last_epoch(const glia_lr_scheduler* scheduler, int64_t* out) {
  const char* fn = "glia_lr_scheduler_get_last_epoch";
  return guard([&] {
    optim::LRScheduler* s = scheduler_of(scheduler, fn);
    check_out(out, fn, "out");
    GLIA_CHECK(s->has_last_epoch(), InvalidArgument, fn, ": '", s->type_name(),
               "' object has no attribute 'last_epoch'");
    *out = s->last_epoch();
  });
}

glia_error* glia_lr_scheduler_state_dict(const glia_lr_scheduler* scheduler, glia_tensor_dict** out) {
  const char* fn = "glia_lr_scheduler_state_dict";
  return guard([&] {
    optim::LRScheduler* s = scheduler_of(scheduler, fn);
    check_out(out, fn, "out");
    Ref<nn::TensorDict> d = s->state_dict();
    *out = dict_handle(d.get());
  });
}

glia_error* glia_lr_scheduler_load_state_dict(glia_lr_scheduler* scheduler, const glia_tensor_dict* dict) {
  const char* fn = "glia_lr_scheduler_load_state_dict";
  return guard([&] {
    optim::LRScheduler* s = scheduler_of(scheduler, fn);
    s->load_state_dict(*dict_raw(dict, fn, "dict"));
  });
}

}  // extern "C"
