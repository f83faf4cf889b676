// torch.nn.Module in C++: parameters, buffers and children in registration
// order, hooks called as Module.__call__ calls them, state dicts, repr.
// Built-in modules (nn/modules/) derive from Module and override forward,
// extra_repr and reset_parameters. src/capi/ wraps a Module as glia_module.
//
// Note [Module semantics follow torch]: names, order, dedup rules, repr text,
// state-dict keys and error messages are torch's (torch/nn/modules/module.py
// of 2.x, where it differs from 1.13 the issue text decides). Each function
// below names the torch function it mirrors.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograd/node.h"
#include "nn/tensor_dict.h"

namespace glia::nn {

class Module;
using ModuleRef = Ref<Module>;

struct NamedTensor {
  std::string name;
  Tensor value;
};
struct NamedModule {
  std::string name;
  ModuleRef module;
};

// Hook signatures (torch's register_*_hook). Returning nullopt keeps the value;
// returning a list replaces it. A hook may throw glia::Error (Code::Callback for
// host callbacks); the call then fails with that error.
using ForwardPreHook = std::function<std::optional<TensorList>(Module& m, const TensorList& inputs)>;
// `outputs` is empty when forward failed (always_call hooks only).
using ForwardHook =
    std::function<std::optional<TensorList>(Module& m, const TensorList& inputs, const TensorList& outputs)>;
// Full backward pre-hook: may replace grad_output (same length).
using BackwardPreHook = std::function<std::optional<TensorList>(Module& m, const TensorList& grad_outputs)>;
// Full backward hook: grad_input has one entry per input (undefined where the
// input needs no grad); may replace grad_input (same length).
using BackwardHook =
    std::function<std::optional<TensorList>(Module& m, const TensorList& grad_inputs, const TensorList& grad_outputs)>;
// state_dict hook: called after the module (and its children) wrote their
// entries under `prefix`; may edit `dict`.
using StateDictHook = std::function<void(Module& m, TensorDict& dict, const std::string& prefix)>;
// load_state_dict post hook: may edit the report (e.g. clear handled keys)
// before strict checking.
using LoadStateDictPostHook = std::function<void(Module& m, LoadReport& report)>;

enum HookFlags : uint32_t {
  kHookPrepend = 1u << 0,     // GLIA_HOOK_PREPEND
  kHookAlwaysCall = 1u << 1,  // GLIA_HOOK_ALWAYS_CALL (forward hooks)
};

class Module : public RefCounted {
 public:
  explicit Module(std::string type_name);
  ~Module() override;

  // torch's self._get_name(): the class name ("Linear", or the host's type name).
  const std::string& type_name() const { return type_name_; }
  // torch's `module.__class__ = cls` (a lazy module becoming its ordinary class, nn/modules/lazy.h).
  void set_type_name(std::string name) { type_name_ = std::move(name); }

  // ---- what subclasses override --------------------------------------------
  // The computation. Default: torch's NotImplementedError text
  // 'Module [Name] is missing the required "forward" function'.
  virtual TensorList forward(const TensorList& inputs);
  // torch's extra_repr(): the text inside "Linear(...)".
  virtual std::string extra_repr() const { return {}; }
  // torch's get_extra_state/set_extra_state; has_extra_state() says whether
  // the module overrides them (then state dicts carry "<prefix>_extra_state").
  virtual bool has_extra_state() const { return false; }
  virtual Tensor get_extra_state() const;
  virtual void set_extra_state(const Tensor& state);
  // Re-runs the default initialisation of the module's own parameters and
  // buffers (torch's reset_parameters / reset_running_stats). Default: nothing.
  virtual void reset_parameters() {}
  // torch's __repr__ (containers override it: ModuleList compresses repeats).
  virtual std::string repr() const;

  // ---- calling -------------------------------------------------------------
  // Module.__call__: forward pre-hooks, backward-hook setup, forward, forward
  // hooks, output hook setup, with torch's replacement rules.
  TensorList call(const TensorList& inputs);
  TensorList operator()(const TensorList& inputs) { return call(inputs); }
  Tensor operator()(const Tensor& x) { return first(call({x})); }

  // ---- tree ------------------------------------------------------------------
  // torch's register_parameter / register_buffer / add_module: an undefined
  // tensor (null module) reserves the name and is left out of iteration and
  // state dicts; registering an existing name of the same kind replaces the
  // value in place (order kept). Errors (InvalidArgument, torch's text):
  // 'parameter name can't contain "."', 'parameter name can't be empty string ""',
  // "attribute 'x' already exists" (name taken by another kind), and for
  // parameters "Cannot assign non-leaf Tensor to parameter 'x'. ...".
  // A floating parameter is made to require grad (nn.Parameter's default).
  void register_parameter(const std::string& name, const Tensor& t);
  void register_buffer(const std::string& name, const Tensor& t, bool persistent = true);
  // Refuses a child that is this module or contains it (no cycles in a module tree).
  void register_module(const std::string& name, ModuleRef child);
  // True when `m` is this module or one of its descendants.
  bool contains(const Module* m) const;
  // torch's __delattr__ for a parameter, buffer or child (`del m.x`): removes
  // the entry (reserved ones too); the rest keep their order. False when no
  // entry of any kind has the name.
  bool remove(const std::string& name);
  // Renames the children "0", "1", ... in order (Sequential/ModuleList
  // __delitem__'s renumbering).
  void renumber_children();

  // This module's own entries, in registration order, including reserved
  // (undefined / null) ones.
  const std::vector<NamedTensor>& local_parameters() const { return params_; }
  const std::vector<NamedTensor>& local_buffers() const { return buffers_; }
  const std::vector<NamedModule>& local_children() const { return children_; }
  bool is_persistent_buffer(const std::string& name) const;
  // Direct lookups of own entries (null when the name is not registered).
  Tensor* find_parameter(const std::string& name);
  Tensor* find_buffer(const std::string& name);
  ModuleRef* find_child(const std::string& name);
  // The value of an own parameter (undefined when reserved), else of a tensor
  // attribute of that name (below), so built-in forwards read a weight that
  // weight_norm, spectral_norm, prune or parametrize compute; throws NotFound.
  // buffer(): an own buffer's value, else a tensor attribute's (a buffer that
  // parametrize or prune compute); throws NotFound.
  const Tensor& param(const std::string& name) const;
  const Tensor& buffer(const std::string& name) const;

  // ---- tensor attributes -------------------------------------------------------
  // torch's plain tensor attributes (`module.weight = tensor` for a name that is
  // no parameter, buffer or child): any tensor, a non-leaf one included; not
  // part of iteration, state dicts or to(). Note [Tensor attributes]: param()
  // reads them after the parameters, so an ordinary parameter's lookup is
  // unchanged. Setting one whose name is a parameter fails with torch's
  // TypeError text ("cannot assign 'torch.FloatTensor' as parameter 'weight'
  // (torch.nn.Parameter or None expected)"), a buffer's or child's with
  // "attribute 'x' already exists"; registering a parameter, buffer or child
  // whose name is a tensor attribute fails the same way.
  void set_tensor_attribute(const std::string& name, const Tensor& t);
  const Tensor* find_tensor_attribute(const std::string& name) const;
  // False when there is no tensor attribute of that name.
  bool remove_tensor_attribute(const std::string& name);
  const std::vector<NamedTensor>& local_tensor_attributes() const { return attrs_; }
  // Replaces the value of the parameter or buffer `name` in place, without
  // register_parameter's checks (any tensor, a non-leaf one included), and
  // returns the previous value: torch.nn.utils.stateless.functional_call's
  // substitution for one call. NotFound when no parameter or buffer has the name.
  Tensor swap_tensor(const std::string& name, const Tensor& t);

  // get_submodule / get_parameter / get_buffer by dotted path; "" is the module
  // itself for get_submodule. Errors (NotFound): "Linear has no attribute `x`",
  // "`x` is not an nn.Module", "`x` is not an nn.Parameter", "`x` is not a buffer".
  ModuleRef get_submodule(const std::string& target);
  Tensor get_parameter(const std::string& target);
  Tensor get_buffer(const std::string& target);

  // named_parameters / named_buffers (recurse over named_modules, skipping
  // undefined entries; remove_duplicate drops a tensor already seen, and a
  // module already visited); named_children (each child once);
  // named_modules (pre-order, self first under `prefix`).
  std::vector<NamedTensor> named_parameters(const std::string& prefix = "", bool recurse = true,
                                            bool remove_duplicate = true) const;
  std::vector<NamedTensor> named_buffers(const std::string& prefix = "", bool recurse = true,
                                         bool remove_duplicate = true) const;
  std::vector<NamedModule> named_children() const;
  std::vector<NamedModule> named_modules(const std::string& prefix = "", bool remove_duplicate = true);
  TensorList parameters(bool recurse = true) const;
  TensorList buffers(bool recurse = true) const;
  // apply(fn): children first (each module once), then self.
  void apply(const std::function<void(Module&)>& fn);

  // ---- state -----------------------------------------------------------------
  void train(bool mode = true);  // recursive
  void eval() { train(false); }
  bool is_training() const { return training_; }
  // `m.training = mode`: this module only (children keep theirs).
  void set_training(bool mode) { training_ = mode; }
  void requires_grad_(bool flag);
  void zero_grad(bool set_to_none = true);
  // to(device, dtype): dtype applies to floating parameters and buffers only;
  // parameters keep their identity (torch's `param.data = ...`): the same
  // TensorImpl gets the converted data, and its grad is converted too.
  void to(std::optional<Device> device, std::optional<DType> dtype);
  // to_empty(device): uninitialised storage of the same shapes on `device`.
  void to_empty(Device device);

  // ---- state dicts -----------------------------------------------------------
  // state_dict: parameters, then persistent buffers, then _extra_state, then
  // children, recursively; values are detached aliases unless keep_vars.
  void state_dict_into(TensorDict& dict, const std::string& prefix = "", bool keep_vars = false);
  Ref<TensorDict> state_dict(bool keep_vars = false);
  // load_state_dict(strict, assign): all-or-nothing (any error leaves the
  // module unchanged); throws Error(InvalidArgument) with torch's text
  // ("Error(s) in loading state_dict for Linear:\n\t...") on size mismatch or,
  // when strict, missing/unexpected keys. Returns the report.
  Ref<LoadReport> load_state_dict(const TensorDict& dict, bool strict = true, bool assign = false);

  // ---- hooks -------------------------------------------------------------------
  // Each returns a process-wide unique id; flags are HookFlags. Hooks may be added and removed
  // while other threads call the module: a call runs the hooks it found when it started
  // (Note [Hooks and concurrent forward] in module_hooks.cpp).
  uint64_t add_forward_pre_hook(ForwardPreHook hook, uint32_t flags = 0);
  uint64_t add_forward_hook(ForwardHook hook, uint32_t flags = 0);
  uint64_t add_backward_pre_hook(BackwardPreHook hook, uint32_t flags = 0);
  uint64_t add_backward_hook(BackwardHook hook, uint32_t flags = 0);
  uint64_t add_state_dict_hook(StateDictHook hook);
  uint64_t add_load_state_dict_post_hook(LoadStateDictPostHook hook);
  // False when no hook of this module has the id.
  bool remove_hook(uint64_t id);
  // A copy of the forward pre-hooks with their ids, in call order (torch's
  // module._forward_pre_hooks, which weight_norm / spectral_norm search).
  std::vector<std::pair<uint64_t, ForwardPreHook>> forward_pre_hooks() const;

 protected:
  static Tensor first(const TensorList& outs);
  // For built-ins: checks the number of inputs of forward (torch's TypeError
  // text for a wrong count: "forward() takes 2 positional arguments but 3 were given").
  void check_num_inputs(const TensorList& inputs, size_t expected) const;
  // check_num_inputs, and every input must be a tensor: inputs may hold NULL entries (undefined
  // tensors, also from a pre-hook's replacement), which a built-in that computes on them refuses
  // with "Linear.forward: input 1 of 1 is None, expected a Tensor" (InvalidArgument).
  void check_tensor_inputs(const TensorList& inputs, size_t expected) const;

  bool training_ = true;

 private:
  template <class H>
  struct Hooked {
    uint64_t id;
    H fn;
    uint32_t flags;
  };

  std::string type_name_;
  std::vector<NamedTensor> params_;
  std::vector<NamedTensor> buffers_;
  std::vector<std::string> non_persistent_;
  std::vector<NamedModule> children_;
  std::vector<NamedTensor> attrs_;  // tensor attributes

  // Note [Hooks and concurrent forward] (module_hooks.cpp): the hook lists change and are
  // copied under hooks_mu_; call_hooks_ says whether call() has any of the first four to run.
  mutable std::mutex hooks_mu_;
  std::atomic<bool> call_hooks_{false};
  std::vector<Hooked<ForwardPreHook>> forward_pre_hooks_;
  std::vector<Hooked<ForwardHook>> forward_hooks_;
  std::vector<Hooked<BackwardPreHook>> backward_pre_hooks_;
  std::vector<Hooked<BackwardHook>> backward_hooks_;
  std::vector<Hooked<StateDictHook>> state_dict_hooks_;
  std::vector<Hooked<LoadStateDictPostHook>> load_post_hooks_;
  // Under hooks_mu_: sets call_hooks_ from the four lists call() runs.
  void note_call_hooks();

  friend class ModuleAccess;  // module.cpp internals (load_state_dict, hooks)
};

// Note [DataParallel replicas]: torch's DataParallel copies the module tree for
// every device (nn.parallel.replicate) and gives each copy that device's
// copies of the parameters and buffers. glia runs the one module tree on one
// thread per device instead, each thread bound to a ReplicaTensors: for every
// module of the tree, the values its parameters, buffers and tensor attributes
// have on that replica's device. While a thread is bound, param(), buffer(),
// find_tensor_attribute(), get_parameter() and get_buffer() read the binding,
// and set_tensor_attribute() / remove_tensor_attribute() change it, not the
// module (a weight that a pre-hook computes stays with its replica, as on
// torch's replica objects). Replica 0's buffers are the module's own tensors,
// so in-place updates there (BatchNorm's running statistics) are kept, as
// torch keeps them. Everything else about the module (hooks, training flag,
// children) is shared. A thread that is not bound pays one thread-local load
// per lookup. nn/modules/data_parallel.cpp makes and binds the replicas.
class ReplicaTensors {
 public:
  struct Entries {
    std::vector<NamedTensor> params, buffers, attrs;
  };
  // The entries of `m`, made empty on first use.
  Entries& of(const Module* m);
  // Null when `m` has no entries (a module outside the replicated tree).
  Entries* find(const Module* m);

 private:
  std::unordered_map<const Module*, Entries> entries_;
};
// The calling thread's binding (null when it runs no replica).
ReplicaTensors* thread_replica();
// Binds the calling thread to `r` (may be null) for the guard's lifetime.
class ReplicaGuard {
 public:
  explicit ReplicaGuard(ReplicaTensors* r);
  ~ReplicaGuard();
  ReplicaGuard(const ReplicaGuard&) = delete;
  ReplicaGuard& operator=(const ReplicaGuard&) = delete;

 private:
  ReplicaTensors* prev_;
};

// A module built with its parameters left uninitialised (torch.nn.utils.skip_init):
// while a SkipInitGuard is alive on this thread, built-in constructors do not
// call reset_parameters.
bool skip_init_enabled();
class SkipInitGuard {
 public:
  explicit SkipInitGuard(bool enabled);
  ~SkipInitGuard();
  SkipInitGuard(const SkipInitGuard&) = delete;
  SkipInitGuard& operator=(const SkipInitGuard&) = delete;

 private:
  bool prev_;
};

// What a freshly constructed built-in does at the end of its constructor.
inline void maybe_reset(Module& m) {
  if (!skip_init_enabled()) m.reset_parameters();
}

// Factory options of built-in constructors (torch's device=, dtype=).
struct Factory {
  DType dtype = DType::Float32;
  Device device{};
};

}  // namespace glia::nn
