#include "optim/optimizer.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/error.h"
#include "nn/utils.h"

namespace glia::optim {

// ---- ParamGroup / ParamState ------------------------------------------------------

const Option* ParamGroup::find(const std::string& name) const {
  for (const Option& o : options)
    if (o.name == name) return &o;
  return nullptr;
}

double ParamGroup::get(const std::string& name) const { return get(name, 0); }

double ParamGroup::get(const std::string& name, size_t i) const {
  const Option* o = find(name);
  GLIA_CHECK(o && i < o->value.size(), Internal, "optimizer parameter group has no option '", name, "'");
  return o->value[i];
}

void ParamGroup::set(const std::string& name, double v) {
  for (Option& o : options)
    if (o.name == name) {
      o.value = {v};
      return;
    }
  options.push_back(Option{name, {v}});
}

Tensor* ParamState::find(const std::string& name) {
  for (auto& [k, v] : entries)
    if (k == name) return &v;
  return nullptr;
}

Tensor& ParamState::get_or_add(const std::string& name) {
  if (Tensor* t = find(name)) return *t;
  entries.emplace_back(name, Tensor());
  return entries.back().second;
}

bool is_scheduler_option(const std::string& name) {
  return name == "initial_lr" || name == "max_lr" || name == "min_lr" || name == "max_momentum" ||
         name == "base_momentum";
}

// ---- Optimizer -------------------------------------------------------------------

ParamGroup& Optimizer::group(size_t g) {
  GLIA_CHECK(g < groups_.size(), InvalidArgument, "parameter group index ", g, " is out of range (the optimizer has ",
             groups_.size(), " groups)");
  return groups_[g];
}

const ParamGroup& Optimizer::group(size_t g) const { return const_cast<Optimizer*>(this)->group(g); }

void Optimizer::set_lr(size_t g, double lr) {
  ParamGroup& pg = group(g);
  GLIA_CHECK(!std::isnan(lr), InvalidArgument, "Invalid learning rate: ", py_float(lr));
  pg.set("lr", lr);
}

namespace {

bool is_flag_option(const std::string& name) {
  return name == "nesterov" || name == "amsgrad" || name == "maximize" || name == "centered";
}

// (option name, value index) for a glia_optimizer_{get,set}_option name.
std::pair<std::string, size_t> option_slot(const std::string& name) {
  if (name == "beta1") return {"betas", 0};
  if (name == "beta2") return {"betas", 1};
  if (name == "etaminus") return {"etas", 0};
  if (name == "etaplus") return {"etas", 1};
  if (name == "step_size_min") return {"step_sizes", 0};
  if (name == "step_size_max") return {"step_sizes", 1};
  return {name, 0};
}

}  // namespace

double Optimizer::get_option(size_t g, const std::string& name) const {
  const ParamGroup& pg = group(g);
  auto [opt_name, i] = option_slot(name);
  const Option* o = pg.find(opt_name);
  if (!o || i >= o->value.size() || (o->value.size() == 2) != (name != opt_name)) {
    GLIA_CHECK(!is_scheduler_option(name), NotFound, "'", name, "'");
    fail(Code::InvalidArgument, type_name(), " has no option '", name, "'");
  }
  return o->value[i];
}

void Optimizer::set_option(size_t g, const std::string& name, double value) {
  ParamGroup& pg = group(g);
  if (is_scheduler_option(name)) {
    pg.set(name, value);
    return;
  }
  auto [opt_name, i] = option_slot(name);
  std::vector<Option> opts = pg.options;
  Option* o = nullptr;
  for (Option& x : opts)
    if (x.name == opt_name) o = &x;
  GLIA_CHECK(o && i < o->value.size() && (o->value.size() == 2) == (name != opt_name), InvalidArgument, type_name(),
             " has no option '", name, "'");
  GLIA_CHECK(!is_flag_option(opt_name) || value == 0.0 || value == 1.0, InvalidArgument, "option '", name,
             "' is a flag: expected 0 or 1, got ", py_float(value));
  o->value[i] = value;
  validate(opts);
  pg.options = std::move(opts);
}

int64_t Optimizer::num_params() const {
  int64_t n = 0;
  for (const ParamGroup& g : groups_) n += static_cast<int64_t>(g.params.size());
  return n;
}

ParamState& Optimizer::state_of(const Tensor& p) {
  auto it = state_index_.find(p.impl());
  if (it != state_index_.end()) return state_[it->second].second;
  // The state first, then its index: an index never names a state that is not there (out of memory
  // between the two would otherwise leave one pointing past the end, read by the next step).
  state_.emplace_back(p.ref(), ParamState{});
  try {
    state_index_.emplace(p.impl(), state_.size() - 1);
  } catch (...) {
    state_.pop_back();
    throw;
  }
  return state_.back().second;
}

ParamState* Optimizer::state_if(const Tensor& p) {
  auto it = state_index_.find(p.impl());
  return it == state_index_.end() ? nullptr : &state_[it->second].second;
}

void Optimizer::add_param_group(std::vector<Tensor> params, std::vector<Option> options) {
  // Missing options come from the defaults, in the defaults' order; options are
  // validated first, as torch's constructors do.
  std::vector<Option> merged;
  for (const Option& d : defaults_) {
    const Option* given = nullptr;
    for (const Option& o : options)
      if (o.name == d.name) given = &o;
    GLIA_CHECK(!given || given->value.size() == d.value.size(), InvalidArgument, "option '", d.name, "' expects ",
               d.value.size(), " value(s)");
    merged.push_back(given ? *given : d);
  }
  for (const Option& o : options) {
    bool known = false;
    for (const Option& d : defaults_) known = known || d.name == o.name;
    GLIA_CHECK(known || is_scheduler_option(o.name), InvalidArgument, type_name(), " has no option '", o.name, "'");
    if (!known) merged.push_back(o);
  }
  validate(merged);
  GLIA_CHECK(!params.empty(), InvalidArgument, "optimizer got an empty parameter list");
  std::unordered_set<const TensorImpl*> seen;
  for (const Tensor& p : params) {
    GLIA_CHECK(p.defined(), InvalidArgument, "optimizer can only optimize Tensors, but one of the params is None");
    GLIA_CHECK(is_leaf(p), InvalidArgument, "can't optimize a non-leaf Tensor");
    seen.insert(p.impl());
  }
  for (const ParamGroup& g : groups_)
    for (const Tensor& p : g.params)
      GLIA_CHECK(!seen.count(p.impl()), InvalidArgument, "some parameters appear in more than one parameter group");
  groups_.push_back(ParamGroup{std::move(params), std::move(merged)});
}

void Update::run() {
  if (step.defined()) fill(step, step_value);
  for (size_t i = 0; i < scalars.size(); ++i)
    if (scalars[i].defined()) fill(scalars[i], scalar_values[i]);
  const Tensor* in[1] = {fast ? &g : &gd};
  const Tensor* out[4];
  out[0] = fast ? &p : &pd;
  for (int32_t i = 0; i < n_states; ++i) out[i + 1] = fast ? &states[i] : &sd[i];
  const KernelArgs k{in, out, attrs.data(), 1, n_states + 1, n_attrs};
  const Device dev = p.device();
  if (__builtin_expect(dev.is_cpu(), 1))
    kCpuKernels[static_cast<uint32_t>(kernel)](k);
  else
    run_kernel_external(kernel, dev, k);
  if (!fast) {
    copy_into(p, pd);
    for (int32_t i = 0; i < n_states; ++i) copy_into(states[i], sd[i]);
  }
  bump_version(p);
}

void Optimizer::step() {
  GradModeGuard no_grad(false);
  // Note [All-or-nothing step]: what the prepare passes may change is recorded first (how many
  // states there are, each state's entry count and which entries are defined) and taken back if
  // one of them fails.
  const size_t n_states = state_.size();
  std::vector<uint32_t> n_entries(n_states);
  std::vector<bool> defined;
  for (size_t i = 0; i < n_states; ++i) {
    const auto& entries = state_[i].second.entries;
    n_entries[i] = static_cast<uint32_t>(entries.size());
    for (const auto& e : entries) defined.push_back(e.second.defined());
  }
  Commit commit;
  try {
    commit.reserve(static_cast<size_t>(num_params()));
    for (ParamGroup& g : groups_) prepare_group(g, commit);
  } catch (...) {
    for (size_t i = state_.size(); i > n_states; --i) state_index_.erase(state_[i - 1].first.get());
    state_.resize(n_states);
    size_t flag = 0;
    for (size_t i = 0; i < n_states; ++i) {
      auto& entries = state_[i].second.entries;
      entries.resize(n_entries[i]);
      for (auto& e : entries)
        if (!defined[flag++]) e.second = Tensor();
    }
    throw;
  }
  for (Update& u : commit) u.run();
}

double Optimizer::step_closure(const std::function<double()>& closure) {
  double loss;
  {
    GradModeGuard grad(true);
    loss = closure();
  }
  step();
  return loss;
}

void Optimizer::zero_grad(bool set_to_none) {
  for (ParamGroup& g : groups_)
    for (const Tensor& p : g.params) {
      AutogradMeta* m = autograd_meta_if(p);
      if (!m || !m->grad.defined()) continue;
      if (set_to_none) {
        m->grad = Tensor();
      } else {
        // torch: a grad with history is detached in place, a leaf grad stops requiring grad.
        if (AutogradMeta* gm = autograd_meta_if(m->grad)) gm->grad_fn = Ref<Node>();
        m->grad.impl()->requires_grad = false;
        fill(m->grad, 0.0);
        bump_version(m->grad);
      }
    }
}

namespace {

Tensor option_tensor(const Option& o) {
  if (o.value.size() == 1) return full({}, o.value[0], DType::Float64, Device{});
  const int64_t n = static_cast<int64_t>(o.value.size());
  Tensor t = empty(IntSpan(&n, 1), DType::Float64, Device{});
  for (size_t i = 0; i < o.value.size(); ++i) t.data_ptr<double>()[i] = o.value[i];
  return t;
}

// Flags torch keeps in its groups that mean nothing here; skipped on load.
bool ignored_torch_flag(const std::string& name) {
  return name == "foreach" || name == "differentiable" || name == "capturable" || name == "fused";
}

// Parses a non-negative decimal index ending at '.'; npos on failure.
size_t parse_index(const std::string& key, size_t pos, int64_t* out) {
  size_t dot = key.find('.', pos);
  if (dot == std::string::npos || dot == pos || dot - pos > 18) return std::string::npos;
  int64_t v = 0;
  for (size_t i = pos; i < dot; ++i) {
    if (key[i] < '0' || key[i] > '9') return std::string::npos;
    v = v * 10 + (key[i] - '0');
  }
  if (dot - pos > 1 && key[pos] == '0') return std::string::npos;
  *out = v;
  return dot + 1;
}

}  // namespace

Ref<nn::TensorDict> Optimizer::state_dict() const {
  auto d = make_ref<nn::TensorDict>();
  std::unordered_map<const TensorImpl*, int64_t> index;
  int64_t next = 0;
  for (const ParamGroup& g : groups_)
    for (const Tensor& p : g.params) index.emplace(p.impl(), next++);
  for (const auto& [p, st] : state_) {
    auto it = index.find(p.get());
    if (it == index.end()) continue;
    for (const auto& [name, t] : st.entries)
      if (t.defined()) d->set("state." + std::to_string(it->second) + "." + name, t);
  }
  next = 0;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    const ParamGroup& g = groups_[gi];
    std::string prefix = "param_groups." + std::to_string(gi) + ".";
    for (const Option& o : g.options) d->set(prefix + o.name, option_tensor(o));
    const int64_t n = static_cast<int64_t>(g.params.size());
    Tensor idx = empty(IntSpan(&n, 1), DType::Int64, Device{});
    for (size_t i = 0; i < g.params.size(); ++i) idx.data_ptr<int64_t>()[i] = next++;
    d->set(prefix + "params", idx);
  }
  return d;
}

void Optimizer::load_state_dict(const nn::TensorDict& dict) {
  // Split the keys.
  struct GroupIn {
    Tensor params;
    std::vector<std::pair<std::string, Tensor>> options;
  };
  std::vector<GroupIn> gin;
  std::vector<std::tuple<int64_t, std::string, Tensor>> sin;
  for (size_t i = 0; i < dict.size(); ++i) {
    const std::string& key = dict.key_at(i);
    const Tensor& v = dict.value_at(i);
    int64_t n = 0;
    size_t rest = std::string::npos;
    bool is_state = key.rfind("state.", 0) == 0;
    bool is_group = key.rfind("param_groups.", 0) == 0;
    if (is_state) rest = parse_index(key, 6, &n);
    if (is_group) rest = parse_index(key, 13, &n);
    GLIA_CHECK(rest != std::string::npos && rest < key.size(), InvalidArgument,
               "loaded state dict has an unexpected key \"", key,
               "\" (expected \"state.<index>.<name>\" or \"param_groups.<group>.<option>\")");
    GLIA_CHECK(v.defined(), InvalidArgument, "loaded state dict has no tensor for \"", key, "\"");
    std::string name = key.substr(rest);
    if (is_state) {
      sin.emplace_back(n, name, v);
    } else {
      GLIA_CHECK(n < 1000000, InvalidArgument, "loaded state dict has an unexpected key \"", key, "\"");
      if (static_cast<size_t>(n) >= gin.size()) gin.resize(static_cast<size_t>(n) + 1);
      if (name == "params")
        gin[static_cast<size_t>(n)].params = v;
      else
        gin[static_cast<size_t>(n)].options.emplace_back(name, v);
    }
  }
  GLIA_CHECK(gin.size() == groups_.size(), InvalidArgument,
             "loaded state dict has a different number of parameter groups");
  // Groups: sizes, the saved index -> parameter map, options.
  std::unordered_map<int64_t, Tensor> id_map;
  std::vector<std::vector<Option>> new_options(groups_.size());
  for (size_t g = 0; g < gin.size(); ++g) {
    const Tensor& idx = gin[g].params;
    GLIA_CHECK(idx.defined(), InvalidArgument, "loaded state dict is missing \"param_groups.", g, ".params\"");
    GLIA_CHECK(idx.dim() == 1 && !is_floating(idx.dtype()), InvalidArgument, "loaded state dict's \"param_groups.", g,
               ".params\" must be a 1-D integer tensor");
    GLIA_CHECK(idx.numel() == static_cast<int64_t>(groups_[g].params.size()), InvalidArgument,
               "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
    // Read on the host: a dict given on a device is copied first (an explicit device-to-host copy).
    Tensor idx64 = contiguous(to_dtype(to_device(idx, Device{}), DType::Int64));
    for (int64_t i = 0; i < idx64.numel(); ++i) id_map[idx64.data_ptr<int64_t>()[i]] = groups_[g].params[i];
    std::vector<Option> opts;
    for (const Option& d : defaults_) {
      const Tensor* found = nullptr;
      for (const auto& [name, t] : gin[g].options)
        if (name == d.name) found = &t;
      GLIA_CHECK(found, InvalidArgument, "loaded state dict is missing \"param_groups.", g, ".", d.name, "\"");
      GLIA_CHECK(found->numel() == static_cast<int64_t>(d.value.size()), InvalidArgument,
                 "loaded state dict's \"param_groups.", g, ".", d.name, "\" has ", found->numel(), " values, expected ",
                 d.value.size());
      Tensor c = contiguous(to_dtype(to_device(*found, Device{}), DType::Float64));
      Option o{d.name, {}};
      for (int64_t i = 0; i < c.numel(); ++i) o.value.push_back(c.data_ptr<double>()[i]);
      opts.push_back(std::move(o));
    }
    for (const auto& [name, t] : gin[g].options) {
      bool known = is_scheduler_option(name) || ignored_torch_flag(name);
      for (const Option& d : defaults_) known = known || d.name == name;
      GLIA_CHECK(known, InvalidArgument, "loaded state dict has an unexpected key \"param_groups.", g, ".", name,
                 "\" (", type_name(), " has no such option)");
      if (is_scheduler_option(name)) {
        GLIA_CHECK(t.numel() == 1, InvalidArgument, "loaded state dict's \"param_groups.", g, ".", name,
                   "\" must hold one value");
        opts.push_back(Option{name, {item_double(t)}});
      }
    }
    validate(opts);
    new_options[g] = std::move(opts);
  }
  // State: copies cast to the parameter's dtype and moved to its device ("step" kept as is, on its
  // device, as torch keeps it when neither capturable nor fused), torch's deepcopy.
  std::vector<std::pair<Ref<TensorImpl>, ParamState>> new_state;
  std::unordered_map<const TensorImpl*, size_t> new_index;
  for (auto& [i, name, v] : sin) {
    auto it = id_map.find(i);
    GLIA_CHECK(it != id_map.end(), InvalidArgument, "loaded state dict has state for parameter ", i,
               ", which is in none of its parameter groups");
    const Tensor& p = it->second;
    Tensor c;
    if (is_scalar_state(name)) {
      GLIA_CHECK(v.numel() == 1, Shape, "loaded state dict's \"state.", i, ".", name, "\" must hold one value");
      c = clone(v);
    } else if (is_free_state(name)) {
      c = empty(v.shape(), is_floating(p.dtype()) && is_floating(v.dtype()) ? p.dtype() : v.dtype(), p.device());
      copy_into(c, v);
    } else {
      GLIA_CHECK(v.shape() == p.shape(), Shape, "loaded state dict's \"state.", i, ".", name, "\" has shape ",
                 v.shape(), ", but the parameter has shape ", p.shape());
      c = empty(p.shape(), is_floating(p.dtype()) ? p.dtype() : v.dtype(), p.device());
      copy_into(c, v);
    }
    auto [pos, inserted] = new_index.emplace(p.impl(), new_state.size());
    if (inserted) new_state.emplace_back(p.ref(), ParamState{});
    ParamState& st = new_state[pos->second].second;
    GLIA_CHECK(st.find(name) == nullptr, InvalidArgument, "loaded state dict has state for parameter ", i,
               " twice (two saved indices map to the same parameter)");
    st.entries.emplace_back(name, c);
  }
  // Commit.
  for (size_t g = 0; g < groups_.size(); ++g) groups_[g].options = std::move(new_options[g]);
  state_ = std::move(new_state);
  state_index_ = std::move(new_index);
}

}  // namespace glia::optim
