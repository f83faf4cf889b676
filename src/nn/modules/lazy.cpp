// torch's LazyModuleMixin for the built-ins (Note [Lazy modules] in lazy.h).
#include "nn/modules/lazy.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "autograd/grad_mode.h"
#include "nn/modules/convnd.h"
#include "nn/modules/layers.h"
#include "nn/modules/misc_nd.h"
#include "nn/modules/norm.h"

namespace glia::nn {

namespace {

// torch's LazyModuleMixin state of one module.
struct LazyState {
  LazyKind kind;
  int spatial_dims = 0;  // convolutions and norms
  std::string become;    // the ordinary class name ("Linear")
  // Names of the entries not yet materialised. An entry is a placeholder while it is listed and
  // holds a [0] tensor: Module::to may replace a buffer (its replacement stays a placeholder, as
  // torch's .to() of an UninitializedBuffer does), and registering another tensor ends it.
  std::vector<std::string> params, buffers;
  uint64_t init_hook = 0;  // the forward pre-hook that infers the sizes
};

// The lazy modules' states. An entry leaves with the inferring hook: at the first forward, or when
// the module (and so its hook, which holds an Unregister) is destroyed, before its address is reused.
struct Registry {
  std::mutex mu;
  std::unordered_map<const Module*, std::shared_ptr<LazyState>> states;
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: modules may outlive static destruction
  return *r;
}

std::shared_ptr<LazyState> find_state(const Module& m) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.states.find(&m);
  return it == r.states.end() ? nullptr : it->second;
}

void drop_state(const Module* m, const LazyState* s) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.states.find(m);
  if (it != r.states.end() && it->second.get() == s) r.states.erase(it);
}

struct Unregister {
  const Module* module;
  const LazyState* state;
  ~Unregister() { drop_state(module, state); }
};

LazyState& state_of(Module& m, std::shared_ptr<LazyState>& keep) {
  keep = find_state(m);
  GLIA_CHECK(keep, Unsupported, "initialize_parameters is not implemented for ", m.type_name());
  return *keep;
}

// A placeholder in the entry `name` (parameter or buffer) when the entry holds a tensor.
void replace_by_placeholder(Module& m, LazyState& s, const std::string& name, bool is_param) {
  Tensor* slot = is_param ? m.find_parameter(name) : m.find_buffer(name);
  if (!slot || !slot->defined()) return;
  Tensor p = empty(Dims{0}, slot->dtype(), slot->device());
  if (is_param)
    m.register_parameter(name, p);
  else
    m.register_buffer(name, p, m.is_persistent_buffer(name));
  (is_param ? s.params : s.buffers).push_back(name);
}

bool is_placeholder_shape(const Tensor& t) { return t.defined() && t.dim() == 1 && t.size(0) == 0; }

// The listed entry of `m` that holds `t` (null when none): its name and kind.
const std::string* listed_entry(const Module& m, const LazyState& s, const Tensor& t, bool* is_param) {
  for (int kind = 0; kind < 2; ++kind) {
    const auto& entries = kind == 0 ? m.local_parameters() : m.local_buffers();
    const auto& names = kind == 0 ? s.params : s.buffers;
    for (const auto& e : entries) {
      if (!e.value.is_same(t)) continue;
      for (const std::string& n : names)
        if (n == e.name) {
          if (is_param) *is_param = kind == 0;
          return &n;
        }
    }
  }
  return nullptr;
}

// The own entry `name` when it is a placeholder.
void materialize_entry(Module& m, const std::string& name, bool is_param, IntSpan shape) {
  Tensor* slot = is_param ? m.find_parameter(name) : m.find_buffer(name);
  if (slot && slot->defined() && is_uninitialized(m, *slot)) materialize(m, *slot, shape);
}

std::string shape_text(const Tensor& x) {
  std::ostringstream os;
  os << "torch.Size(" << IntSpan(x.shape()) << ")";
  return os.str();
}

void init_linear(Linear& l, const Tensor& x) {
  GLIA_CHECK(x.dim() >= 1, InvalidArgument, "tuple index out of range");
  l.in_features = x.size(-1);
  materialize_entry(l, "weight", true, Dims{l.out_features, l.in_features});
  materialize_entry(l, "bias", true, Dims{l.out_features});
}

// _LazyConvXdMixin.initialize_parameters for the three conv classes (their fields differ in type only).
template <class M>
void init_conv(M& c, const Tensor& x, int nd, bool transposed, int64_t groups, const int64_t* kernel) {
  const int64_t unbatched = nd + 1;
  GLIA_CHECK(x.dim() == unbatched || x.dim() == unbatched + 1, InvalidArgument, "Expected ", unbatched,
             "D (unbatched) or ", unbatched + 1, "D (batched) input to ", c.type_name(),
             ", but got input of size: ", shape_text(x));
  const int64_t in = x.dim() == unbatched + 1 ? x.size(1) : x.size(0);
  GLIA_CHECK(in % groups == 0, InvalidArgument, "in_channels must be divisible by groups");
  c.in_channels = in;
  Dims w = transposed ? Dims{in, c.out_channels / groups} : Dims{c.out_channels, in / groups};
  for (int i = 0; i < nd; ++i) w.push_back(kernel[i]);
  materialize_entry(c, "weight", true, w);
  materialize_entry(c, "bias", true, Dims{c.out_channels});
}

// _LazyNormBase.initialize_parameters: num_features = input.shape[1] (for BatchNorm and
// InstanceNorm alike, unbatched inputs included, as in torch).
template <class M>
void init_norm(M& n, const Tensor& x) {
  GLIA_CHECK(x.dim() >= 2, InvalidArgument, "tuple index out of range");
  const int64_t c = x.size(1);
  n.set_num_features(c);
  for (const char* name : {"weight", "bias"}) materialize_entry(n, name, true, Dims{c});
  for (const char* name : {"running_mean", "running_var"}) materialize_entry(n, name, false, Dims{c});
}

template <class M>
M& as(Module& m) {
  M* p = dynamic_cast<M*>(&m);
  GLIA_CHECK(p, Internal, "lazy module ", m.type_name(), " is not of its recorded kind");
  return *p;
}

// torch's _infer_parameters: the first forward pre-hook of a lazy module.
std::optional<TensorList> infer_parameters(Module& m, const TensorList& inputs) {
  initialize_parameters(m, inputs);
  GLIA_CHECK(!has_uninitialized_params(m), State, "module ", m.type_name(), " has not been fully initialized");
  std::shared_ptr<LazyState> keep;
  LazyState& s = state_of(m, keep);
  m.remove_hook(s.init_hook);
  drop_state(&m, &s);
  m.set_type_name(s.become);
  return std::nullopt;
}

}  // namespace

void make_lazy(Module& m, LazyKind kind, int spatial_dims) {
  auto s = std::make_shared<LazyState>();
  s->kind = kind;
  s->spatial_dims = spatial_dims;
  s->become = m.type_name();
  const bool norm = kind == LazyKind::BatchNorm || kind == LazyKind::InstanceNorm;
  replace_by_placeholder(m, *s, "weight", true);
  replace_by_placeholder(m, *s, "bias", true);
  if (norm) {
    replace_by_placeholder(m, *s, "running_mean", false);
    replace_by_placeholder(m, *s, "running_var", false);
  }
  auto token = std::make_shared<Unregister>(Unregister{&m, s.get()});
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.states[&m] = s;
  }
  s->init_hook =
      m.add_forward_pre_hook([token](Module& mod, const TensorList& inputs) { return infer_parameters(mod, inputs); });
  m.set_type_name("Lazy" + m.type_name());
}

bool is_uninitialized(const Module& m, const Tensor& t) {
  if (!is_placeholder_shape(t)) return false;
  std::shared_ptr<LazyState> s = find_state(m);
  return s && listed_entry(m, *s, t, nullptr);
}

bool has_uninitialized_params(const Module& m) {
  if (!find_state(m)) return false;
  for (const auto& e : m.local_parameters())
    if (is_uninitialized(m, e.value)) return true;
  for (const auto& e : m.local_buffers())
    if (is_uninitialized(m, e.value)) return true;
  return false;
}

void initialize_parameters(Module& m, const TensorList& inputs) {
  std::shared_ptr<LazyState> keep;
  LazyState& s = state_of(m, keep);
  if (!has_uninitialized_params(m)) return;
  GLIA_CHECK(inputs.size() == 1, InvalidArgument, m.type_name(),
             ".initialize_parameters() takes 2 positional arguments but ", inputs.size() + 1, " were given");
  GLIA_CHECK(inputs[0].defined(), InvalidArgument, m.type_name(),
             ".initialize_parameters: input is None, expected a Tensor");
  const Tensor& x = inputs[0];
  GradModeGuard no_grad(false);
  switch (s.kind) {
    case LazyKind::Linear:
      init_linear(as<Linear>(m), x);
      break;
    case LazyKind::Conv:
    case LazyKind::ConvTranspose: {
      const bool tr = s.kind == LazyKind::ConvTranspose;
      if (s.spatial_dims == 2 && !tr) {
        Conv2d& c = as<Conv2d>(m);
        init_conv(c, x, 2, false, c.args.groups, c.args.kernel_size);
      } else if (s.spatial_dims == 2) {
        ConvTranspose2d& c = as<ConvTranspose2d>(m);
        init_conv(c, x, 2, true, c.args.groups, c.args.kernel_size);
      } else {
        ConvNd& c = as<ConvNd>(m);
        init_conv(c, x, s.spatial_dims, tr, c.args.groups, c.args.kernel_size);
      }
      break;
    }
    case LazyKind::BatchNorm:
      init_norm(as<BatchNorm>(m), x);
      break;
    case LazyKind::InstanceNorm:
      init_norm(as<InstanceNorm>(m), x);
      break;
  }
  m.reset_parameters();
}

void materialize(Module& m, const Tensor& t, IntSpan shape) {
  std::shared_ptr<LazyState> s = find_state(m);
  GLIA_CHECK(s && is_uninitialized(m, t), State, "materialize: the tensor is not a placeholder of ", m.type_name());
  check_param_shape(shape);
  bool is_param = false;
  std::string name = *listed_entry(m, *s, t, &is_param);
  Tensor data = empty(shape, t.dtype(), t.device());
  t.impl()->set_data(*data.impl());
  auto& names = is_param ? s->params : s->buffers;
  names.erase(std::remove(names.begin(), names.end(), name), names.end());
}

void unmaterialize(Module& m, const Tensor& t) {
  std::shared_ptr<LazyState> s = find_state(m);
  GLIA_CHECK(s, State, "unmaterialize: ", m.type_name(), " is not lazy");
  for (int kind = 0; kind < 2; ++kind)
    for (const auto& e : kind == 0 ? m.local_parameters() : m.local_buffers())
      if (e.value.is_same(t)) {
        Tensor data = empty(Dims{0}, t.dtype(), t.device());
        t.impl()->set_data(*data.impl());
        (kind == 0 ? s->params : s->buffers).push_back(e.name);
        return;
      }
}

}  // namespace glia::nn
