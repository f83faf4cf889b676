#include "nn/module.h"

#include <algorithm>
#include <atomic>
#include <sstream>
#include <unordered_set>

#include "autograd/grad_mode.h"
#include "nn/repr.h"

namespace glia::nn {

namespace {

thread_local bool t_skip_init = false;
thread_local ReplicaTensors* t_replica = nullptr;  // Note [DataParallel replicas]; trivially destructible

// torch's _addindent: indents every line after the first.
std::string add_indent(const std::string& s, int spaces) {
  std::string out;
  std::string pad(static_cast<size_t>(spaces), ' ');
  for (char c : s) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

void check_name(const std::string& name, const char* kind) {
  GLIA_CHECK(name.find('.') == std::string::npos, InvalidArgument, kind, " name can't contain \".\"");
  GLIA_CHECK(!name.empty(), InvalidArgument, kind, " name can't be empty string \"\"");
}

template <class V>
auto find_named(V& v, const std::string& name) -> decltype(&v[0]) {
  for (auto& e : v)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace

bool skip_init_enabled() { return t_skip_init; }

ReplicaTensors::Entries& ReplicaTensors::of(const Module* m) { return entries_[m]; }
ReplicaTensors::Entries* ReplicaTensors::find(const Module* m) {
  auto it = entries_.find(m);
  return it == entries_.end() ? nullptr : &it->second;
}
ReplicaTensors* thread_replica() { return t_replica; }
ReplicaGuard::ReplicaGuard(ReplicaTensors* r) : prev_(t_replica) { t_replica = r; }
ReplicaGuard::~ReplicaGuard() { t_replica = prev_; }

namespace {
// The replica entries of `m` on this thread (null when the thread runs no replica of it).
ReplicaTensors::Entries* replica_of(const Module* m) { return t_replica ? t_replica->find(m) : nullptr; }
}  // namespace
SkipInitGuard::SkipInitGuard(bool enabled) : prev_(t_skip_init) { t_skip_init = enabled; }
SkipInitGuard::~SkipInitGuard() { t_skip_init = prev_; }

Module::Module(std::string type_name) : type_name_(std::move(type_name)) {}
Module::~Module() = default;

TensorList Module::forward(const TensorList&) {
  fail(Code::Unsupported, "Module [", type_name_, "] is missing the required \"forward\" function");
}

Tensor Module::get_extra_state() const {
  fail(Code::Unsupported,
       "Reached a code path in Module.get_extra_state() that should never be called. Please file an issue at "
       "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug.");
}
void Module::set_extra_state(const Tensor&) {
  fail(Code::Unsupported,
       "Reached a code path in Module.set_extra_state() that should never be called. Please file an issue at "
       "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug.");
}

Tensor Module::first(const TensorList& outs) {
  GLIA_CHECK(!outs.empty(), State, "module returned no outputs");
  return outs[0];
}

void Module::check_num_inputs(const TensorList& inputs, size_t expected) const {
  GLIA_CHECK(inputs.size() == expected, InvalidArgument, type_name_, ".forward() takes ", expected + 1,
             " positional argument", expected + 1 == 1 ? "" : "s", " but ", inputs.size() + 1,
             inputs.size() + 1 == 1 ? " was" : " were", " given");
}

void Module::check_tensor_inputs(const TensorList& inputs, size_t expected) const {
  check_num_inputs(inputs, expected);
  for (size_t i = 0; i < inputs.size(); ++i)
    GLIA_CHECK(inputs[i].defined(), InvalidArgument, type_name_, ".forward: input ", i + 1, " of ", inputs.size(),
               " is None, expected a Tensor");
}

// ---- tree ----------------------------------------------------------------------

void Module::register_parameter(const std::string& name, const Tensor& t) {
  check_name(name, "parameter");
  GLIA_CHECK(!find_buffer(name) && !find_child(name) && !find_tensor_attribute(name), InvalidArgument, "attribute '",
             name, "' already exists");
  if (t.defined()) {
    GLIA_CHECK(is_leaf(t), InvalidArgument, "Cannot assign non-leaf Tensor to parameter '", name,
               "'. Model parameters must be created explicitly. To express '", name,
               "' as a function of another Tensor, compute the value in the forward() method.");
    if (is_floating(t.dtype()) && !t.requires_grad()) set_requires_grad(t, true);
  }
  if (NamedTensor* e = find_named(params_, name))
    e->value = t;
  else
    params_.push_back({name, t});
}

void Module::register_buffer(const std::string& name, const Tensor& t, bool persistent) {
  check_name(name, "buffer");
  GLIA_CHECK(!find_parameter(name) && !find_child(name) && !find_tensor_attribute(name), InvalidArgument, "attribute '",
             name, "' already exists");
  if (NamedTensor* e = find_named(buffers_, name))
    e->value = t;
  else
    buffers_.push_back({name, t});
  auto it = std::find(non_persistent_.begin(), non_persistent_.end(), name);
  if (persistent && it != non_persistent_.end()) non_persistent_.erase(it);
  if (!persistent && it == non_persistent_.end()) non_persistent_.push_back(name);
}

void Module::register_module(const std::string& name, ModuleRef child) {
  GLIA_CHECK(name.find('.') == std::string::npos, InvalidArgument, "module name can't contain \".\", got: ", name);
  GLIA_CHECK(!name.empty(), InvalidArgument, "module name can't be empty string \"\"");
  GLIA_CHECK(!find_parameter(name) && !find_buffer(name) && !find_tensor_attribute(name), InvalidArgument,
             "attribute '", name, "' already exists");
  // A module tree has no cycles: state_dict, to_string, train and every other walk recurse over it.
  GLIA_CHECK(!child || !child->contains(this), InvalidArgument, "cannot add module '", name, "' to ", type_name_,
             ": the ", child.get() == this ? "module itself" : "module is an ancestor of it",
             " and a module tree can't contain a cycle");
  if (NamedModule* e = find_named(children_, name))
    e->module = std::move(child);
  else
    children_.push_back({name, std::move(child)});
}

bool Module::remove(const std::string& name) {
  auto erase = [&](auto& v) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it->name == name) {
        v.erase(it);
        return true;
      }
    return false;
  };
  if (erase(params_) || erase(children_) || erase(attrs_)) return true;
  if (!erase(buffers_)) return false;
  auto it = std::find(non_persistent_.begin(), non_persistent_.end(), name);
  if (it != non_persistent_.end()) non_persistent_.erase(it);
  return true;
}

void Module::renumber_children() {
  for (size_t i = 0; i < children_.size(); ++i) children_[i].name = std::to_string(i);
}

bool Module::is_persistent_buffer(const std::string& name) const {
  return std::find(non_persistent_.begin(), non_persistent_.end(), name) == non_persistent_.end();
}

Tensor* Module::find_parameter(const std::string& name) {
  NamedTensor* e = find_named(params_, name);
  return e ? &e->value : nullptr;
}
Tensor* Module::find_buffer(const std::string& name) {
  NamedTensor* e = find_named(buffers_, name);
  return e ? &e->value : nullptr;
}
ModuleRef* Module::find_child(const std::string& name) {
  NamedModule* e = find_named(children_, name);
  return e ? &e->module : nullptr;
}
// Note [Tensor attributes]: built-in forwards read their weights with param(); a
// weight that weight_norm, spectral_norm, prune or parametrize computes is a
// tensor attribute of the same name, found after the parameters, so the lookup
// of an ordinary parameter does the same work as before (no allocation).
const Tensor& Module::param(const std::string& name) const {
  if (ReplicaTensors::Entries* r = replica_of(this)) {
    if (NamedTensor* e = find_named(r->params, name)) return e->value;
    if (NamedTensor* e = find_named(r->attrs, name)) return e->value;
  }
  for (const auto& e : params_)
    if (e.name == name) return e.value;
  for (const auto& e : attrs_)
    if (e.name == name) return e.value;
  fail(Code::NotFound, type_name_, " has no parameter `", name, "`");
}
// A buffer parametrized in Python (parametrize, prune) is a tensor attribute too.
const Tensor& Module::buffer(const std::string& name) const {
  if (ReplicaTensors::Entries* r = replica_of(this)) {
    if (NamedTensor* e = find_named(r->buffers, name)) return e->value;
    if (NamedTensor* e = find_named(r->attrs, name)) return e->value;
  }
  for (const auto& e : buffers_)
    if (e.name == name) return e.value;
  for (const auto& e : attrs_)
    if (e.name == name) return e.value;
  fail(Code::NotFound, type_name_, " has no buffer `", name, "`");
}

void Module::set_tensor_attribute(const std::string& name, const Tensor& t) {
  check_name(name, "attribute");
  GLIA_CHECK(t.defined(), InvalidArgument, "tensor attribute '", name, "' must be a Tensor, got None");
  GLIA_CHECK(!find_parameter(name), InvalidArgument, "cannot assign '", torch_typename(t), "' as parameter '", name,
             "' (torch.nn.Parameter or None expected)");
  GLIA_CHECK(!find_buffer(name) && !find_child(name), InvalidArgument, "attribute '", name, "' already exists");
  if (ReplicaTensors::Entries* r = replica_of(this)) {  // the replica's attribute, not the module's
    if (NamedTensor* e = find_named(r->attrs, name))
      e->value = t;
    else
      r->attrs.push_back({name, t});
    return;
  }
  if (NamedTensor* e = find_named(attrs_, name))
    e->value = t;
  else
    attrs_.push_back({name, t});
}

const Tensor* Module::find_tensor_attribute(const std::string& name) const {
  if (ReplicaTensors::Entries* r = replica_of(this)) {
    const NamedTensor* e = find_named(r->attrs, name);
    return e ? &e->value : nullptr;
  }
  for (const auto& e : attrs_)
    if (e.name == name) return &e.value;
  return nullptr;
}

bool Module::remove_tensor_attribute(const std::string& name) {
  ReplicaTensors::Entries* r = replica_of(this);
  std::vector<NamedTensor>& attrs = r ? r->attrs : attrs_;
  for (auto it = attrs.begin(); it != attrs.end(); ++it)
    if (it->name == name) {
      attrs.erase(it);
      return true;
    }
  return false;
}

Tensor Module::swap_tensor(const std::string& name, const Tensor& t) {
  NamedTensor* e = find_named(params_, name);
  if (!e) e = find_named(buffers_, name);
  GLIA_CHECK(e, NotFound, "'", type_name_, "' object has no parameter or buffer '", name, "'");
  Tensor prev = e->value;
  e->value = t;
  return prev;
}

ModuleRef Module::get_submodule(const std::string& target) {
  ModuleRef mod = ModuleRef::share(this);
  if (target.empty()) return mod;
  size_t start = 0;
  while (true) {
    size_t dot = target.find('.', start);
    std::string item = target.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    ModuleRef* child = mod->find_child(item);
    if (!child) {
      GLIA_CHECK(!mod->find_parameter(item) && !mod->find_buffer(item), NotFound, "`", item, "` is not an nn.Module");
      fail(Code::NotFound, mod->type_name(), " has no attribute `", item, "`");
    }
    GLIA_CHECK(*child, NotFound, "`", item, "` is not an nn.Module");
    mod = *child;
    if (dot == std::string::npos) return mod;
    start = dot + 1;
  }
}

namespace {
std::pair<std::string, std::string> rpartition(const std::string& s) {
  size_t dot = s.rfind('.');
  if (dot == std::string::npos) return {"", s};
  return {s.substr(0, dot), s.substr(dot + 1)};
}
}  // namespace

Tensor Module::get_parameter(const std::string& target) {
  auto [path, name] = rpartition(target);
  ModuleRef mod = get_submodule(path);
  Tensor* p = mod->find_parameter(name);
  if (!p) {
    GLIA_CHECK(!mod->find_buffer(name) && !mod->find_child(name), NotFound, "`", name, "` is not an nn.Parameter");
    fail(Code::NotFound, mod->type_name(), " has no attribute `", name, "`");
  }
  GLIA_CHECK(p->defined(), NotFound, "`", name, "` is not an nn.Parameter");
  if (ReplicaTensors::Entries* r = replica_of(mod.get()))  // Note [DataParallel replicas]
    if (NamedTensor* e = find_named(r->params, name)) return e->value;
  return *p;
}

Tensor Module::get_buffer(const std::string& target) {
  auto [path, name] = rpartition(target);
  ModuleRef mod = get_submodule(path);
  Tensor* b = mod->find_buffer(name);
  if (!b) {
    GLIA_CHECK(!mod->find_parameter(name) && !mod->find_child(name), NotFound, "`", name, "` is not a buffer");
    fail(Code::NotFound, mod->type_name(), " has no attribute `", name, "`");
  }
  GLIA_CHECK(b->defined(), NotFound, "`", name, "` is not a buffer");
  if (ReplicaTensors::Entries* r = replica_of(mod.get()))
    if (NamedTensor* e = find_named(r->buffers, name)) return e->value;
  return *b;
}

bool Module::contains(const Module* m) const {
  // Iterative: the tree is acyclic (register_module keeps it so) but may be deep.
  std::vector<const Module*> stack{this};
  std::unordered_set<const Module*> seen;
  while (!stack.empty()) {
    const Module* cur = stack.back();
    stack.pop_back();
    if (cur == m) return true;
    if (!seen.insert(cur).second) continue;
    for (const auto& c : cur->children_)
      if (c.module) stack.push_back(c.module.get());
  }
  return false;
}

std::vector<NamedModule> Module::named_modules(const std::string& prefix, bool remove_duplicate) {
  std::vector<NamedModule> out;
  std::unordered_set<const Module*> memo;
  std::function<void(Module*, const std::string&)> visit = [&](Module* m, const std::string& pre) {
    if (remove_duplicate && !memo.insert(m).second) return;
    out.push_back({pre, ModuleRef::share(m)});
    for (const auto& c : m->children_) {
      if (!c.module) continue;
      visit(c.module.get(), pre.empty() ? c.name : pre + "." + c.name);
    }
  };
  visit(this, prefix);
  return out;
}

namespace {
std::vector<NamedTensor> named_members(Module& self, const std::string& prefix, bool recurse, bool remove_duplicate,
                                       bool buffers) {
  std::vector<NamedTensor> out;
  std::unordered_set<const TensorImpl*> memo;
  std::vector<NamedModule> mods;
  if (recurse)
    mods = self.named_modules(prefix, remove_duplicate);
  else
    mods.push_back({prefix, ModuleRef::share(&self)});
  for (const auto& [pre, m] : mods) {
    const auto& members = buffers ? m->local_buffers() : m->local_parameters();
    for (const auto& e : members) {
      if (!e.value.defined()) continue;
      if (remove_duplicate && !memo.insert(e.value.impl()).second) continue;
      out.push_back({pre.empty() ? e.name : pre + "." + e.name, e.value});
    }
  }
  return out;
}
}  // namespace

std::vector<NamedTensor> Module::named_parameters(const std::string& prefix, bool recurse,
                                                  bool remove_duplicate) const {
  return named_members(const_cast<Module&>(*this), prefix, recurse, remove_duplicate, false);
}
std::vector<NamedTensor> Module::named_buffers(const std::string& prefix, bool recurse, bool remove_duplicate) const {
  return named_members(const_cast<Module&>(*this), prefix, recurse, remove_duplicate, true);
}
std::vector<NamedModule> Module::named_children() const {
  std::vector<NamedModule> out;
  std::unordered_set<const Module*> memo;
  for (const auto& c : children_)
    if (c.module && memo.insert(c.module.get()).second) out.push_back(c);
  return out;
}
TensorList Module::parameters(bool recurse) const {
  TensorList out;
  for (auto& e : named_parameters("", recurse)) out.push_back(e.value);
  return out;
}
TensorList Module::buffers(bool recurse) const {
  TensorList out;
  for (auto& e : named_buffers("", recurse)) out.push_back(e.value);
  return out;
}

void Module::apply(const std::function<void(Module&)>& fn) {
  for (const auto& c : named_children()) c.module->apply(fn);
  fn(*this);
}

void Module::train(bool mode) {
  training_ = mode;
  for (const auto& c : children_)
    if (c.module) c.module->train(mode);
}

void Module::requires_grad_(bool flag) {
  for (const Tensor& p : parameters()) set_requires_grad(p, flag);
}

// ---- repr ------------------------------------------------------------------------

std::string Module::repr() const {
  std::vector<std::string> lines;
  std::string extra = extra_repr();
  size_t n_extra = 0;
  // Split by hand: a stream would swallow an out-of-memory and give a shorter repr.
  for (size_t start = 0; start < extra.size();) {
    size_t nl = extra.find('\n', start);
    if (nl == std::string::npos) nl = extra.size();
    lines.push_back(extra.substr(start, nl - start));
    ++n_extra;
    start = nl + 1;
  }
  size_t n_child = 0;
  // A copy holding a reference to each child: extra_repr callbacks may edit the tree or drop the
  // last outside reference to a module while we walk it.
  const std::vector<NamedModule> children = children_;
  for (const auto& c : children) {
    std::string s = c.module ? c.module->repr() : "None";
    lines.push_back("(" + c.name + "): " + add_indent(s, 2));
    ++n_child;
  }
  std::string out = type_name_ + "(";
  if (!lines.empty()) {
    if (n_extra == 1 && n_child == 0) {
      out += lines[0];
    } else {
      out += "\n  ";
      for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n  " : "") + lines[i];
      out += "\n";
    }
  }
  return out + ")";
}

// ---- state dicts -------------------------------------------------------------------

void Module::state_dict_into(TensorDict& dict, const std::string& prefix, bool keep_vars) {
  for (const auto& e : params_)
    if (e.value.defined()) dict.set(prefix + e.name, keep_vars ? e.value : detach(e.value));
  for (const auto& e : buffers_)
    if (e.value.defined() && is_persistent_buffer(e.name))
      dict.set(prefix + e.name, keep_vars ? e.value : detach(e.value));
  if (has_extra_state()) dict.set(prefix + "_extra_state", get_extra_state());
  for (const auto& c : children_)
    if (c.module) c.module->state_dict_into(dict, prefix + c.name + ".", keep_vars);
  decltype(state_dict_hooks_) hooks;  // a snapshot (Note [Hooks and concurrent forward])
  {
    std::lock_guard<std::mutex> lock(hooks_mu_);
    hooks = state_dict_hooks_;
  }
  for (const auto& h : hooks) h.fn(*this, dict, prefix);
}

Ref<TensorDict> Module::state_dict(bool keep_vars) {
  auto d = make_ref<TensorDict>();
  state_dict_into(*d, "", keep_vars);
  return d;
}

}  // namespace glia::nn
