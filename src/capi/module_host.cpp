// Host modules (glia_module_create: a torch.nn.Module subclass written in the
// host language), module hooks from the host, and glia_module_apply.
//
// Note [Host callback ownership]
// Each callback's user_data is owned by a shared HostData whose destructor
// calls free_user_data, so it runs exactly once: when the module (host
// module) or the hook is dropped, or right away when a registration fails. A
// recorded autograd graph holds the backward hooks it captured (torch keeps
// them too), so for those the last owner may be a graph that is freed later.
// The `self`/`module` handle passed to a callback is made for the call and
// released after it (borrowed from the callee's point of view); the module
// never stores a handle to itself, so there is no module -> handle cycle.
#include <cstring>
#include <memory>

#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

namespace {

struct HostData {
  void* user_data = nullptr;
  void (*free_user_data)(void*) = nullptr;
  HostData(void* u, void (*f)(void*)) : user_data(u), free_user_data(f) {}
  HostData(const HostData&) = delete;
  HostData& operator=(const HostData&) = delete;
  ~HostData() {
    if (free_user_data) free_user_data(user_data);
  }
};

// Takes ownership of (user_data, free_user_data) at once; frees it right away
// when even that allocation fails (the caller then returns out-of-memory).
std::shared_ptr<HostData> own(void* user_data, void (*free_user_data)(void*)) {
  try {
    return std::make_shared<HostData>(user_data, free_user_data);
  } catch (...) {
    if (free_user_data) free_user_data(user_data);
    return nullptr;
  }
}

// A borrowed module handle for the duration of a callback.
struct SelfHandle {
  glia_module* h;
  explicit SelfHandle(nn::Module& m) : h(module_handle(nn::ModuleRef::share(&m))) {}
  ~SelfHandle() { glia_error_free(glia_module_release(h)); }
  SelfHandle(const SelfHandle&) = delete;
  SelfHandle& operator=(const SelfHandle&) = delete;
};

// Runs a callback that writes up to GLIA_MODULE_MAX_OUTPUTS new references and
// their count (-1: keep, when `keep_allowed`). Returns nullopt for "keep".
template <class F>
std::optional<TensorList> run_writer(const std::string& who, const char* what, bool keep_allowed, F call) {
  constexpr int64_t cap = GLIA_MODULE_MAX_OUTPUTS;
  std::vector<glia_tensor*> out(cap, nullptr);
  int64_t n = -1;
  glia_error* e = call(out.data(), cap, &n);
  if (e) {
    release_handles(out.data(), out.size());
    rethrow_callback(e, who, what);
  }
  if (n == -1 && keep_allowed) {
    release_handles(out.data(), out.size());
    return std::nullopt;
  }
  if (n < 0 || n > cap) {
    release_handles(out.data(), out.size());
    fail(Code::Callback, who, ": ", what, " callback reported ", n, " tensors (expected ", keep_allowed ? "-1 or " : "",
         "0 to ", cap, ")");
  }
  return adopt_handles(out.data(), out.size(), static_cast<size_t>(n), who.c_str(), what);
}

// ---- host modules ---------------------------------------------------------------

class HostModule final : public nn::Module {
 public:
  HostModule(std::string name, const glia_module_def& def, std::shared_ptr<HostData> data)
      : nn::Module(std::move(name)), def_(def), data_(std::move(data)) {}

  TensorList forward(const TensorList& inputs) override {
    if (!def_.forward) return nn::Module::forward(inputs);
    SelfHandle self(*this);
    HandleList in(inputs);
    std::optional<TensorList> r =
        run_writer(type_name(), "forward", false, [&](glia_tensor** out, int64_t cap, int64_t* n) {
          return def_.forward(data_->user_data, self.h, in.data(), in.size(), out, cap, n);
        });
    return std::move(*r);
  }

  std::string extra_repr() const override {
    if (!def_.extra_repr) return {};
    auto* me = const_cast<HostModule*>(this);
    SelfHandle self(*me);
    std::string buf(256, '\0');
    for (int attempt = 0; attempt < 2; ++attempt) {
      size_t len = 0;
      glia_error* e = def_.extra_repr(data_->user_data, self.h, buf.data(), buf.size(), &len);
      if (e) rethrow_callback(e, type_name(), "extra_repr");
      if (len < buf.size()) {
        buf.resize(len);
        return buf;
      }
      buf.assign(len + 1, '\0');
    }
    fail(Code::Callback, type_name(), ": extra_repr callback did not fit the buffer it asked for");
  }

  bool has_extra_state() const override { return def_.get_extra_state && def_.set_extra_state; }

  Tensor get_extra_state() const override {
    if (!has_extra_state()) return nn::Module::get_extra_state();
    SelfHandle self(*const_cast<HostModule*>(this));
    glia_tensor* t = nullptr;
    glia_error* e = def_.get_extra_state(data_->user_data, self.h, &t);
    if (e) {
      glia_error_free(glia_tensor_release(t));
      rethrow_callback(e, type_name(), "get_extra_state");
    }
    GLIA_CHECK(t, Callback, type_name(), ": get_extra_state callback returned no tensor");
    Tensor r;
    try {
      r = tensor_arg(t, type_name().c_str(), "extra state");
    } catch (...) {
      glia_error_free(glia_tensor_release(t));
      throw;
    }
    glia_error_free(glia_tensor_release(t));
    return r;
  }

  void set_extra_state(const Tensor& state) override {
    if (!has_extra_state()) return nn::Module::set_extra_state(state);
    SelfHandle self(*this);
    HandleList s({state});
    glia_error* e = def_.set_extra_state(data_->user_data, self.h, s.hs[0]);
    if (e) rethrow_callback(e, type_name(), "set_extra_state");
  }

 private:
  glia_module_def def_;
  std::shared_ptr<HostData> data_;
};

// ---- hook registration ------------------------------------------------------------

// The body of every glia_module_add_*_hook: owns user_data from the first
// line (Note [Host callback ownership]); `add` registers the hook.
template <class Fn, class Add>
glia_error* hook_entry(glia_module* module, Fn fn, void* user_data, void (*free_user_data)(void*),
                       uint64_t* out_hook_id, const char* api, Add add) {
  std::shared_ptr<HostData> data = own(user_data, free_user_data);
  if (!data) return out_of_memory_error();
  return guard([&] {
    nn::ModuleRef m = module_arg(module, api, "module");
    GLIA_CHECK(fn != nullptr, InvalidArgument, api, ": argument 'fn' is NULL");
    check_out(out_hook_id, api, "out_hook_id");
    *out_hook_id = add(*m, std::move(data));
  });
}

}  // namespace

extern "C" {

void glia_module_def_init(glia_module_def* def) {
  if (!def) return;
  std::memset(def, 0, sizeof(*def));
  def->struct_size = sizeof(*def);
}

glia_error* glia_module_create(const char* type_name, const glia_module_def* def, glia_module** out) {
  const char* api = "glia_module_create";
  constexpr size_t kMin = offsetof(glia_module_def, free_user_data) + sizeof(def->free_user_data);
  std::shared_ptr<HostData> data;
  if (def && def->struct_size >= kMin) {
    data = own(def->user_data, def->free_user_data);
    if (!data) return out_of_memory_error();
  }
  return guard([&] {
    GLIA_CHECK(def, InvalidArgument, api, ": argument 'def' is NULL");
    GLIA_CHECK(data, InvalidArgument, api, ": def->struct_size is ", def->struct_size, ", expected at least ",
               sizeof(glia_module_def), " (call glia_module_def_init)");
    GLIA_CHECK(type_name && *type_name, InvalidArgument, api, ": argument 'type_name' is ",
               type_name ? "empty" : "NULL");
    GLIA_CHECK((def->get_extra_state == nullptr) == (def->set_extra_state == nullptr), InvalidArgument, api,
               ": def->get_extra_state and def->set_extra_state must be given together");
    check_out(out, api, "out");
    glia_module_def copy{};
    std::memcpy(&copy, def, std::min(sizeof(copy), def->struct_size));
    nn::ModuleRef m = make_ref<HostModule>(type_name, copy, std::move(data));
    *out = module_handle(m);
  });
}

glia_error* glia_module_add_forward_pre_hook(glia_module* module, glia_forward_pre_hook_fn fn, void* user_data,
                                             void (*free_user_data)(void*), uint32_t flags, uint64_t* out_hook_id) {
  return hook_entry(module, fn, user_data, free_user_data, out_hook_id, "glia_module_add_forward_pre_hook",
                    [&](nn::Module& m, std::shared_ptr<HostData> d) {
                      return m.add_forward_pre_hook(
                          [fn, d](nn::Module& self, const TensorList& inputs) {
                            SelfHandle h(self);
                            HandleList in(inputs);
                            return run_writer(self.type_name(), "forward pre-hook", true,
                                              [&](glia_tensor** out, int64_t cap, int64_t* n) {
                                                return fn(d->user_data, h.h, in.data(), in.size(), out, cap, n);
                                              });
                          },
                          flags);
                    });
}

glia_error* glia_module_add_forward_hook(glia_module* module, glia_forward_hook_fn fn, void* user_data,
                                         void (*free_user_data)(void*), uint32_t flags, uint64_t* out_hook_id) {
  return hook_entry(module, fn, user_data, free_user_data, out_hook_id, "glia_module_add_forward_hook",
                    [&](nn::Module& m, std::shared_ptr<HostData> d) {
                      return m.add_forward_hook(
                          [fn, d](nn::Module& self, const TensorList& inputs, const TensorList& outputs) {
                            SelfHandle h(self);
                            HandleList in(inputs), outs(outputs);
                            return run_writer(self.type_name(), "forward hook", true,
                                              [&](glia_tensor** out, int64_t cap, int64_t* n) {
                                                return fn(d->user_data, h.h, in.data(), in.size(), outs.data(),
                                                          outs.size(), out, cap, n);
                                              });
                          },
                          flags);
                    });
}

glia_error* glia_module_add_backward_pre_hook(glia_module* module, glia_backward_pre_hook_fn fn, void* user_data,
                                              void (*free_user_data)(void*), uint32_t flags, uint64_t* out_hook_id) {
  return hook_entry(module, fn, user_data, free_user_data, out_hook_id, "glia_module_add_backward_pre_hook",
                    [&](nn::Module& m, std::shared_ptr<HostData> d) {
                      return m.add_backward_pre_hook(
                          [fn, d](nn::Module& self, const TensorList& grad_outputs) {
                            SelfHandle h(self);
                            HandleList go(grad_outputs);
                            return run_writer(self.type_name(), "backward pre-hook", true,
                                              [&](glia_tensor** out, int64_t cap, int64_t* n) {
                                                return fn(d->user_data, h.h, go.data(), go.size(), out, cap, n);
                                              });
                          },
                          flags);
                    });
}

glia_error* glia_module_add_backward_hook(glia_module* module, glia_backward_hook_fn fn, void* user_data,
                                          void (*free_user_data)(void*), uint32_t flags, uint64_t* out_hook_id) {
  return hook_entry(module, fn, user_data, free_user_data, out_hook_id, "glia_module_add_backward_hook",
                    [&](nn::Module& m, std::shared_ptr<HostData> d) {
                      return m.add_backward_hook(
                          [fn, d](nn::Module& self, const TensorList& grad_inputs, const TensorList& grad_outputs) {
                            SelfHandle h(self);
                            HandleList gi(grad_inputs), go(grad_outputs);
                            return run_writer(self.type_name(), "backward hook", true,
                                              [&](glia_tensor** out, int64_t cap, int64_t* n) {
                                                return fn(d->user_data, h.h, gi.data(), gi.size(), go.data(), go.size(),
                                                          out, cap, n);
                                              });
                          },
                          flags);
                    });
}

glia_error* glia_module_add_state_dict_hook(glia_module* module, glia_state_dict_hook_fn fn, void* user_data,
                                            void (*free_user_data)(void*), uint64_t* out_hook_id) {
  return hook_entry(
      module, fn, user_data, free_user_data, out_hook_id, "glia_module_add_state_dict_hook",
      [&](nn::Module& m, std::shared_ptr<HostData> d) {
        return m.add_state_dict_hook([fn, d](nn::Module& self, nn::TensorDict& dict, const std::string& prefix) {
          SelfHandle h(self);
          glia_tensor_dict* dh = dict_handle(&dict);
          glia_error* e = fn(d->user_data, h.h, dh, prefix.c_str());
          glia_error_free(glia_tensor_dict_release(dh));
          if (e) rethrow_callback(e, self.type_name(), "state_dict hook");
        });
      });
}

glia_error* glia_module_add_load_state_dict_post_hook(glia_module* module, glia_load_state_dict_post_hook_fn fn,
                                                      void* user_data, void (*free_user_data)(void*),
                                                      uint64_t* out_hook_id) {
  return hook_entry(module, fn, user_data, free_user_data, out_hook_id, "glia_module_add_load_state_dict_post_hook",
                    [&](nn::Module& m, std::shared_ptr<HostData> d) {
                      return m.add_load_state_dict_post_hook([fn, d](nn::Module& self, nn::LoadReport& report) {
                        SelfHandle h(self);
                        auto* rh = static_cast<glia_load_report*>(handle_for(&report, HandleType::LoadReport));
                        glia_error* e = fn(d->user_data, h.h, rh);
                        glia_error_free(glia_load_report_release(rh));
                        if (e) rethrow_callback(e, self.type_name(), "load_state_dict post hook");
                      });
                    });
}

glia_error* glia_module_remove_hook(glia_module* module, uint64_t hook_id) {
  const char* api = "glia_module_remove_hook";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, api, "module");
    GLIA_CHECK(m->remove_hook(hook_id), NotFound, api, ": the module has no hook with id ", hook_id);
  });
}

glia_error* glia_module_apply(glia_module* module, glia_module_apply_fn fn, void* user_data) {
  const char* api = "glia_module_apply";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, api, "module");
    GLIA_CHECK(fn != nullptr, InvalidArgument, api, ": argument 'fn' is NULL");
    m->apply([&](nn::Module& each) {
      SelfHandle h(each);
      glia_error* e = fn(user_data, h.h);
      if (e) rethrow_callback(e, api, "apply");
    });
  });
}

}  // extern "C"
