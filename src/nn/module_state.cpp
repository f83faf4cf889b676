// Module state: load_state_dict (torch 2.x semantics, all-or-nothing),
// zero_grad, to, to_empty.
#include <sstream>
#include <unordered_set>

#include "autograd/grad_mode.h"
#include "core/backend.h"
#include "nn/module.h"
#include "nn/modules/lazy.h"

namespace glia::nn {

namespace {

constexpr const char* kExtraState = "_extra_state";

// One planned change of load_state_dict.
struct LoadAction {
  enum Kind { Copy, Assign, Extra, Materialize } kind;
  ModuleRef module;
  std::string name;  // parameter or buffer name (Copy/Assign)
  bool is_param = false;
  Tensor src;
  Tensor backup;  // the previous value (only when post hooks may force a rollback)
};

Tensor* slot_of(Module& m, const LoadAction& a) {
  Tensor* t = a.is_param ? m.find_parameter(a.name) : m.find_buffer(a.name);
  GLIA_CHECK(t, State, "load_state_dict: ", a.name, " was unregistered during loading");
  return t;
}

std::string quoted_list(const std::vector<std::string>& keys) {
  std::string s;
  for (size_t i = 0; i < keys.size(); ++i) s += (i ? ", \"" : "\"") + keys[i] + "\"";
  return s;
}

[[noreturn]] void throw_load_error(const std::string& type_name, std::vector<std::string> msgs, const LoadReport& r,
                                   bool strict) {
  if (strict) {
    if (!r.unexpected_keys.empty())
      msgs.insert(msgs.begin(), "Unexpected key(s) in state_dict: " + quoted_list(r.unexpected_keys) + ". ");
    if (!r.missing_keys.empty())
      msgs.insert(msgs.begin(), "Missing key(s) in state_dict: " + quoted_list(r.missing_keys) + ". ");
  }
  std::string text = "Error(s) in loading state_dict for " + type_name + ":\n\t";
  for (size_t i = 0; i < msgs.size(); ++i) text += (i ? "\n\t" : "") + msgs[i];
  throw Error(Code::InvalidArgument, text);
}

bool fails_strict(const LoadReport& r) { return !r.missing_keys.empty() || !r.unexpected_keys.empty(); }

std::string shape_str(const Dims& d) {
  std::ostringstream os;
  os.exceptions(std::ios::badbit);  // out of memory is thrown, not swallowed into a shorter text
  os << d;
  return os.str();
}

void apply_action(LoadAction& a, bool keep_backup) {
  Module& m = *a.module;
  GradModeGuard no_grad(false);
  if (a.kind == LoadAction::Extra) {
    if (keep_backup) a.backup = m.get_extra_state();
    m.set_extra_state(a.src);
    return;
  }
  Tensor* slot = slot_of(m, a);
  if (a.kind == LoadAction::Materialize) {
    materialize(m, *slot, a.src.shape());
    copy_into(*slot, a.src);
    bump_version(*slot);
    return;
  }
  if (a.kind == LoadAction::Copy) {
    if (keep_backup) a.backup = clone(*slot);
    copy_into(*slot, a.src);
    bump_version(*slot);
    return;
  }
  if (keep_backup) a.backup = *slot;
  if (a.is_param) {
    // nn.Parameter(input_param, requires_grad=param.requires_grad): a new leaf sharing the checkpoint's data.
    Tensor p = detach(a.src);
    p.impl()->requires_grad = slot->requires_grad() && is_floating(p.dtype());
    *slot = p;
  } else {
    *slot = a.src;
  }
}

void undo_action(LoadAction& a) {
  Module& m = *a.module;
  GradModeGuard no_grad(false);
  if (a.kind == LoadAction::Extra) {
    m.set_extra_state(a.backup);
    return;
  }
  Tensor* slot = slot_of(m, a);
  if (a.kind == LoadAction::Materialize) {
    unmaterialize(m, *slot);
  } else if (a.kind == LoadAction::Copy) {
    copy_into(*slot, a.backup);
    bump_version(*slot);
  } else {
    *slot = a.backup;
  }
}

}  // namespace

Ref<LoadReport> Module::load_state_dict(const TensorDict& dict, bool strict, bool assign) {
  auto report = make_ref<LoadReport>();
  std::vector<std::string> errors;
  std::vector<LoadAction> actions;
  std::vector<ModuleRef> hooked;  // modules with post hooks, in torch's order (children first)

  // Module._load_from_state_dict for every module of the tree (torch's load()),
  // recording the changes instead of making them.
  std::function<void(Module&, const std::string&)> load = [&](Module& m, const std::string& prefix) {
    std::vector<const NamedTensor*> local;
    for (const auto& e : m.params_)
      if (e.value.defined()) local.push_back(&e);
    size_t n_params = local.size();
    for (const auto& e : m.buffers_)
      if (e.value.defined() && m.is_persistent_buffer(e.name)) local.push_back(&e);
    for (size_t i = 0; i < local.size(); ++i) {
      const NamedTensor& e = *local[i];
      std::string key = prefix + e.name;
      const Tensor* found = dict.find(key);
      if (!found) {
        report->missing_keys.push_back(key);
        continue;
      }
      Tensor input = *found;
      const Tensor& param = e.value;
      if (is_uninitialized(m, param)) {
        // torch's _lazy_load_hook (Note [Lazy modules]): a checkpoint's placeholder ([0]) leaves
        // ours alone; any other tensor gives it its shape.
        if (!(input.dim() == 1 && input.size(0) == 0))
          actions.push_back({LoadAction::Materialize, ModuleRef::share(&m), e.name, i < n_params, input, Tensor()});
        continue;
      }
      // Backward compatibility (torch): a 1-d checkpoint entry loads into a 0-d tensor.
      if (param.dim() == 0 && input.dim() == 1 && input.size(0) >= 1) input = make_view(input, {}, {}, input.offset());
      if (input.shape() != param.shape()) {
        errors.push_back("size mismatch for " + key + ": copying a param with shape " + shape_str(input.shape()) +
                         " from checkpoint, the shape in current model is " + shape_str(param.shape()) + ".");
        continue;
      }
      // torch's param.copy_(input_param): a checkpoint on the CPU loads into a module on a device
      // (and back), copied through the backends.
      actions.push_back({assign ? LoadAction::Assign : LoadAction::Copy, ModuleRef::share(&m), e.name, i < n_params,
                         input, Tensor()});
    }
    std::string extra_key = prefix + kExtraState;
    if (m.has_extra_state()) {
      if (const Tensor* t = dict.find(extra_key))
        actions.push_back({LoadAction::Extra, ModuleRef::share(&m), kExtraState, false, *t, Tensor()});
      else
        report->missing_keys.push_back(extra_key);
    } else if (dict.contains(extra_key)) {
      report->unexpected_keys.push_back(extra_key);
    }
    for (size_t k = 0; k < dict.size(); ++k) {
      const std::string& key = dict.key_at(k);
      if (key.compare(0, prefix.size(), prefix) != 0 || key == extra_key) continue;
      std::string name = key.substr(prefix.size());
      name = name.substr(0, name.find('.'));
      bool known = m.find_child(name) != nullptr;
      for (const NamedTensor* e : local) known = known || e->name == name;
      if (!known) report->unexpected_keys.push_back(key);
    }
    for (const auto& c : m.children_)
      if (c.module) load(*c.module, prefix + c.name + ".");
    bool has_post_hooks;
    {
      std::lock_guard<std::mutex> lock(m.hooks_mu_);
      has_post_hooks = !m.load_post_hooks_.empty();
    }
    if (has_post_hooks) hooked.push_back(ModuleRef::share(&m));
  };
  load(*this, "");

  // Nothing has changed yet: fail here when the outcome is already certain.
  if (!errors.empty() || (strict && hooked.empty() && fails_strict(*report)))
    throw_load_error(type_name_, errors, *report, strict);

  // Post hooks and set_extra_state are callbacks that may fail (and hooks may leave strict keys
  // behind): then every change made so far is undone. Plain copies and assignments cannot fail.
  bool may_roll_back = !hooked.empty();
  for (const LoadAction& a : actions) may_roll_back = may_roll_back || a.kind == LoadAction::Extra;
  size_t done = 0;
  try {
    for (; done < actions.size(); ++done) apply_action(actions[done], may_roll_back);
    for (const ModuleRef& m : hooked) {
      decltype(m->load_post_hooks_) hooks;  // a snapshot (Note [Hooks and concurrent forward])
      {
        std::lock_guard<std::mutex> lock(m->hooks_mu_);
        hooks = m->load_post_hooks_;
      }
      for (const auto& h : hooks) h.fn(*m, *report);
    }
    if (strict && fails_strict(*report)) throw_load_error(type_name_, {}, *report, strict);
  } catch (...) {
    if (may_roll_back)
      while (done > 0) undo_action(actions[--done]);
    throw;
  }
  return report;
}

void Module::zero_grad(bool set_to_none) {
  for (const Tensor& p : parameters()) {
    AutogradMeta* m = autograd_meta_if(p);
    if (!m || !m->grad.defined()) continue;
    if (set_to_none) {
      m->grad = Tensor();
      continue;
    }
    Tensor& g = m->grad;
    if (AutogradMeta* gm = autograd_meta_if(g)) gm->grad_fn = Ref<Node>();  // detach_()
    g.impl()->requires_grad = false;
    fill(g, 0.0);
    bump_version(g);
  }
}

namespace {

// Module._apply(fn) made all-or-nothing: computes every new tensor first, then
// swaps them in. Parameters (and their grads) keep their TensorImpl; buffers
// are replaced.
void apply_to_tensors(Module& root, const std::function<Tensor(const Tensor&)>& fn) {
  std::vector<std::pair<TensorImpl*, Tensor>> set_data;  // impl <- new data
  std::vector<std::pair<Tensor*, Tensor>> replace;       // buffer slot <- new tensor
  std::unordered_set<const TensorImpl*> seen;
  auto plan_data = [&](const Tensor& t) {
    if (!t.defined() || !seen.insert(t.impl()).second) return;
    Tensor n = fn(t);
    if (!n.is_same(t)) set_data.emplace_back(t.impl(), n);
  };
  for (const NamedModule& nm : root.named_modules()) {
    Module& m = *nm.module;
    for (const auto& e : m.local_parameters()) {
      plan_data(e.value);
      if (!e.value.defined()) continue;
      if (AutogradMeta* meta = autograd_meta_if(e.value)) plan_data(meta->grad);
    }
    for (const auto& e : m.local_buffers()) {
      if (!e.value.defined()) continue;
      Tensor n = fn(e.value);
      if (!n.is_same(e.value)) replace.emplace_back(m.find_buffer(e.name), n);
    }
  }
  for (auto& [impl, n] : set_data) impl->set_data(*n.impl());
  for (auto& [slot, n] : replace) *slot = n;
}

// A device that cannot hold tensors fails here, before any tensor moves.
void check_device(Device d) {
  if (!d.is_cpu()) backend_of(d, "Module.to");
}

}  // namespace

void Module::to(std::optional<Device> device, std::optional<DType> dtype) {
  if (dtype)
    GLIA_CHECK(is_floating(*dtype), DType,
               "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.",
               dtype_name(*dtype));
  if (device) check_device(*device);
  if (!dtype && !device) return;
  GradModeGuard no_grad(false);
  // All new tensors are made before any is swapped in (apply_to_tensors), so a failure
  // (out of memory on the device) leaves the module as it was.
  apply_to_tensors(*this, [&](const Tensor& t) {
    Tensor n = device ? to_device(t, *device) : t;
    return dtype && is_floating(t.dtype()) ? to_dtype(n, *dtype) : n;
  });
}

void Module::to_empty(Device device) {
  check_device(device);
  GradModeGuard no_grad(false);
  apply_to_tensors(*this, [&](const Tensor& t) { return empty(t.shape(), t.dtype(), device); });
}

}  // namespace glia::nn
