#include "autograd/node.h"

#include <atomic>

#include "autograd/functions.h"
#include "autograd/grad_mode.h"

namespace glia {

namespace {
std::atomic<uint64_t> g_sequence{0};
std::atomic<uint64_t> g_hook_id{0};
}  // namespace

SavedTensor::SavedTensor(const Tensor& t) : was_defined_(t.defined()) {
  if (!t.defined()) return;
  TensorImpl* impl = t.impl();
  GLIA_CHECK(!impl->is_inference, State,
             "Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal "
             "tensor and use it in autograd.");
  version_ = impl->storage()->version.load(std::memory_order_relaxed);
  AutogradMeta* m = autograd_meta_if(t);
  // Note [Saving inputs]: only a leaf that requires grad (the graph holds it anyway, through its
  // AccumulateGrad; it points back weakly) and an op's own wrapped number are kept as they are.
  if ((impl->requires_grad && !(m && m->grad_fn)) || impl->wrapped_number) {
    t_ = t;
    return;
  }
  t_ = detach(t);
  if (m && m->grad_fn) {
    grad_fn_ = m->grad_fn;
    output_nr_ = m->output_nr;
  }
}

SavedTensor SavedTensor::output(const Tensor& out, uint32_t output_nr) {
  SavedTensor s;
  s.was_defined_ = out.defined();
  if (!out.defined()) return s;
  s.t_ = detach(out);
  s.version_ = out.impl()->storage()->version.load(std::memory_order_relaxed);
  s.output_nr_ = output_nr;
  s.is_output_ = true;
  return s;
}

Tensor SavedTensor::unpack(const char* node_name, Node* owner, bool with_history) const {
  if (!was_defined_) return Tensor();
  GLIA_CHECK(t_.defined(), State,
             "Trying to backward through the graph a second time (or directly access saved tensors after they have "
             "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
             "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
             "if you need to access saved tensors after calling backward.");
  uint32_t now = t_.impl()->storage()->version.load(std::memory_order_relaxed);
  GLIA_CHECK(now == version_, State,
             "one of the variables needed for gradient computation has been modified by an inplace operation: [",
             dtype_name(t_.dtype()), " ", t_.shape(), "], which is output of ", node_name, ", is at version ", now,
             "; expected version ", version_, " instead.");
  if (!is_output_ && !grad_fn_) return t_;
  GLIA_CHECK(!is_output_ || owner, Internal, node_name, ": a saved output was unpacked without its node");
  if (!with_history && !grad_mode_enabled()) return is_output_ ? detach(t_) : t_;
  // A fresh alias carrying the saved history: the owner's output k, or the input's grad_fn.
  Tensor v = detach(t_);
  v.impl()->requires_grad = true;
  AutogradMeta& m = autograd_meta(v);
  m.grad_fn = is_output_ ? Ref<Node>::share(owner) : grad_fn_;
  m.output_nr = output_nr_;
  return v;
}

Node::Node() : sequence_nr(g_sequence.fetch_add(1, std::memory_order_relaxed)) {}
Node::~Node() = default;

AccumulateGrad::AccumulateGrad(Ref<TensorImpl> l) : leaf(std::move(l)) {
  sequence_nr = UINT64_MAX;  // leaves accumulate as soon as they are ready, as in torch
  is_accumulate_grad = true;
}

AccumulateGrad::~AccumulateGrad() {
  if (auto* m = static_cast<AutogradMeta*>(leaf->autograd.get()); m && m->accumulator == this) m->accumulator = nullptr;
}

TensorList AccumulateGrad::apply(TensorList&& grads) {
  Tensor leaf_t(leaf);
  AutogradMeta& m = autograd_meta(leaf_t);
  Tensor g = std::move(grads[0]);
  for (auto& [id, hook] : m.hooks) {
    Tensor r = hook(g);
    if (r.defined()) g = r;
  }
  if (!m.grad.defined()) {
    // A fresh gradient is stored as is when nothing else can see it (torch steals it too) and
    // it owns its elements (a broadcast view would be accumulated into in place later);
    // under create_graph it keeps its graph.
    bool stealable = g.ref()->use_count() == 1 && !g.requires_grad() && g.is_contiguous();
    m.grad = grad_mode_enabled() ? g : (stealable ? g : clone(g));
  } else if (grad_mode_enabled()) {
    m.grad = add(m.grad, g, 1.0);
  } else {
    add_(m.grad, g, 1.0);
  }
  if (__builtin_expect(!m.post_accumulate_hooks.empty(), 0)) {
    auto hooks = m.post_accumulate_hooks;  // a hook may remove itself
    for (auto& [id, hook] : hooks) hook(leaf_t);
  }
  return {};
}

AutogradMeta& autograd_meta(const Tensor& t) {
  TensorImpl* impl = t.impl();
  if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
  return *static_cast<AutogradMeta*>(impl->autograd.get());
}

AutogradMeta* autograd_meta_if(const Tensor& t) { return static_cast<AutogradMeta*>(t.impl()->autograd.get()); }

Tensor detach(const Tensor& t) { return make_view(t, t.shape(), t.strides(), t.offset()); }

bool is_leaf(const Tensor& t) {
  AutogradMeta* m = autograd_meta_if(t);
  return !m || !m->grad_fn;
}

Ref<Node> grad_fn(const Tensor& t) {
  AutogradMeta* m = autograd_meta_if(t);
  return m ? m->grad_fn : Ref<Node>();
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined() || !t.requires_grad()) return Edge{};
  AutogradMeta& m = autograd_meta(t);
  if (m.grad_fn) return Edge{m.grad_fn, m.output_nr};
  if (m.accumulator) return Edge{Ref<Node>::share(m.accumulator), 0};
  auto acc = make_ref<AccumulateGrad>(t.ref());
  m.accumulator = acc.get();
  acc->output_shapes.push_back(t.shape());
  acc->output_dtypes.push_back(t.dtype());
  acc->output_device = t.device();
  return Edge{Ref<Node>(std::move(acc)), 0};
}

void set_requires_grad(const Tensor& t, bool flag) {
  if (!flag) {
    GLIA_CHECK(is_leaf(t), State,
               "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
               "subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  } else {
    GLIA_CHECK(is_floating(t.dtype()), DType, "only Tensors of floating point dtype can require gradients, got ",
               dtype_name(t.dtype()));
    GLIA_CHECK(!t.impl()->is_inference || inference_mode(), State,
               "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  }
  t.impl()->requires_grad = flag;
}

uint64_t add_tensor_hook(const Tensor& t, GradHook hook) {
  GLIA_CHECK(t.requires_grad(), State, "cannot register a hook on a tensor that doesn't require gradient");
  uint64_t id = g_hook_id.fetch_add(1, std::memory_order_relaxed) + 1;
  AutogradMeta& m = autograd_meta(t);
  if (m.grad_fn)
    m.grad_fn->pre_hooks.push_back({m.output_nr, {id, std::move(hook)}});
  else
    m.hooks.push_back({id, std::move(hook)});
  return id;
}

bool remove_tensor_hook(const Tensor& t, uint64_t id) {
  AutogradMeta* m = autograd_meta_if(t);
  if (!m) return false;
  if (m->grad_fn) {
    auto& v = m->grad_fn->pre_hooks;
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it->second.first == id) {
        v.erase(it);
        return true;
      }
    return false;
  }
  for (auto it = m->hooks.begin(); it != m->hooks.end(); ++it)
    if (it->first == id) {
      m->hooks.erase(it);
      return true;
    }
  for (auto it = m->post_accumulate_hooks.begin(); it != m->post_accumulate_hooks.end(); ++it)
    if (it->first == id) {
      m->post_accumulate_hooks.erase(it);
      return true;
    }
  return false;
}

uint64_t add_post_accumulate_grad_hook(const Tensor& t, PostAccumulateGradHook hook) {
  GLIA_CHECK(t.requires_grad(), State, "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = autograd_meta(t);
  GLIA_CHECK(!m.grad_fn, State, "post accumulate grad hooks cannot be registered on non-leaf tensors");
  uint64_t id = g_hook_id.fetch_add(1, std::memory_order_relaxed) + 1;
  m.post_accumulate_hooks.push_back({id, std::move(hook)});
  return id;
}

void retain_grad(const Tensor& t) {
  GLIA_CHECK(t.requires_grad(), State, "can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = autograd_meta(t);
  if (!m.grad_fn || m.retains_grad) return;  // leaves always keep their grad
  m.retains_grad = true;
  m.grad_fn->retained.push_back({m.output_nr, t.impl()});
}

bool any_requires_grad(std::initializer_list<const Tensor*> ts) {
  if (!grad_mode_enabled()) return false;
  for (const Tensor* t : ts)
    if (t && t->defined() && t->requires_grad()) return true;
  return false;
}

bool any_requires_grad(const TensorList& ts) {
  if (!grad_mode_enabled()) return false;
  for (const Tensor& t : ts)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

namespace {
template <class In, class Out>
void set_history_impl(Node* node, const In& inputs, const Out& outputs) {
  node->next_edges.clear();
  node->next_edges.reserve(inputs.size());
  node->output_shapes.reserve(outputs.size());
  for (const auto& in : inputs) {
    const Tensor& t = *in;
    node->next_edges.push_back(gradient_edge(t));
  }
  node->num_outputs = 0;
  for (const auto& out : outputs) {
    const Tensor& t = *out;
    uint32_t k = node->num_outputs++;
    node->output_shapes.push_back(t.shape());
    node->output_dtypes.push_back(t.dtype());
    node->output_device = t.device();
    if (!t.defined()) continue;
    t.impl()->requires_grad = true;
    AutogradMeta& m = autograd_meta(t);
    m.grad_fn = Ref<Node>::share(node);
    m.output_nr = k;
  }
}
}  // namespace

void set_history(Node* node, std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs) {
  set_history_impl(node, inputs, outputs);
}

void set_history(Node* node, const TensorList& inputs, const TensorList& outputs) {
  std::vector<const Tensor*> in, out;
  for (const Tensor& t : inputs) in.push_back(&t);
  for (const Tensor& t : outputs) out.push_back(&t);
  set_history_impl(node, in, out);
}

}  // namespace glia
