#include "autograd/engine.h"

#include <algorithm>
#include <queue>
#include <string>

#include "autograd/functions.h"
#include "autograd/grad_mode.h"

namespace glia {

namespace {

struct Task {
  TensorList inputs;  // gradient arriving at each output of the node
  int32_t deps = 0;
  bool ran = false;  // a root reachable from another root is pushed twice
};

struct Capture {
  Node* node;
  uint32_t slot;
  size_t index;  // into the result list
};

struct Later {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

void accumulate(TensorList& slots, uint32_t k, Tensor g) {
  if (!slots[k].defined())
    slots[k] = std::move(g);
  else
    slots[k] = add(slots[k], g, 1.0);
}

// What a gradient computed by a node without a differentiable backward carries
// under create_graph: differentiating it again fails with the node's name.
struct NotDifferentiableBackward : Node {
  std::string what;
  const char* name() const override { return "NotImplemented"; }
  TensorList apply(TensorList&&) override {
    GLIA_CHECK(false, Unsupported, "the derivative of ", what,
               " is not implemented (its backward is not differentiable, so create_graph cannot go through it)");
    return {};
  }
};

void mark_not_differentiable(Node* node, const TensorList& grads_in, TensorList& outs) {
  auto n = make_ref<NotDifferentiableBackward>();
  n->what = node->name();
  TensorList defined;
  for (Tensor& o : outs)
    if (o.defined() && is_floating(o.dtype())) {
      o = detach(o);
      defined.push_back(o);
    }
  if (defined.empty()) return;
  set_history(n.get(), grads_in, defined);
}

// The tasks of one walk by node: open addressing over a power-of-two table
// kept inline for small graphs; tasks live in one vector. A Task reference is
// valid until the next emplace of a new node (the walk creates every task in
// its first phase and only looks them up afterwards).
class TaskMap {
 public:
  TaskMap() : keys_(32, nullptr), idx_(32, 0) { tasks_.reserve(16); }
  // The task of n, and whether it was just created.
  std::pair<Task*, bool> emplace(Node* n) {
    size_t mask = keys_.size() - 1;
    for (size_t i = hash(n) & mask;; i = (i + 1) & mask) {
      if (keys_[i] == n) return {&tasks_[idx_[i]], false};
      if (!keys_[i]) {
        keys_[i] = n;
        idx_[i] = static_cast<uint32_t>(tasks_.size());
        tasks_.emplace_back();
        if (tasks_.size() * 2 > keys_.size()) grow();
        return {&tasks_.back(), true};
      }
    }
  }
  Task& operator[](Node* n) { return *emplace(n).first; }

 private:
  static size_t hash(Node* n) { return (reinterpret_cast<uintptr_t>(n) >> 4) * 0x9E3779B97F4A7C15ull; }
  void grow() {
    SmallVector<Node*, 32> old = keys_;
    SmallVector<uint32_t, 32> old_idx = idx_;
    keys_.assign(old.size() * 2, nullptr);
    idx_.assign(old.size() * 2, 0);
    size_t mask = keys_.size() - 1;
    for (size_t j = 0; j < old.size(); ++j) {
      if (!old[j]) continue;
      size_t i = hash(old[j]) & mask;
      while (keys_[i]) i = (i + 1) & mask;
      keys_[i] = old[j];
      idx_[i] = old_idx[j];
    }
  }
  SmallVector<Node*, 32> keys_;
  SmallVector<uint32_t, 32> idx_;
  std::vector<Task> tasks_;
};

// The callbacks queued during the innermost backward running on this thread (a hook may run a
// backward of its own: that one has its own list).
thread_local std::vector<std::function<void()>>* t_final_callbacks = nullptr;

struct CallbackFrame {
  std::vector<std::function<void()>> callbacks;
  std::vector<std::function<void()>>* prev;
  CallbackFrame() : prev(t_final_callbacks) { t_final_callbacks = &callbacks; }
  ~CallbackFrame() { t_final_callbacks = prev; }
  // Index loop: a callback may queue another, which then runs too.
  void run() {
    for (size_t i = 0; i < callbacks.size(); ++i) {
      std::function<void()> cb = std::move(callbacks[i]);
      cb();
    }
  }
};

// Note [Engine]: one walk serves backward() (accumulate into leaves) and
// grad() (capture at the inputs' edges; AccumulateGrad nodes do not run).
void run(const std::vector<Edge>& roots, TensorList root_grads, bool keep_graph, bool create_graph,
         const std::vector<Capture>& captures, TensorList* captured) {
  TaskMap tasks;
  // Dependencies: count the edges that reach each node from the roots.
  SmallVector<Node*, 32> stack;
  for (const Edge& e : roots)
    if (e.fn && tasks.emplace(e.fn.get()).second) stack.push_back(e.fn.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      if (!e.fn) continue;
      auto [task, fresh] = tasks.emplace(e.fn.get());
      task->deps++;
      if (fresh) stack.push_back(e.fn.get());
    }
  }
  for (size_t i = 0; i < roots.size(); ++i) {
    if (!roots[i].fn) continue;
    Task& t = tasks[roots[i].fn.get()];
    if (t.inputs.empty()) t.inputs.resize(roots[i].fn->num_outputs);
    accumulate(t.inputs, roots[i].input_nr, std::move(root_grads[i]));
  }
  // A max-heap on sequence_nr: the most recently created node runs first.
  SmallVector<Node*, 32> ready;
  auto push_ready = [&](Node* n) {
    ready.push_back(n);
    std::push_heap(ready.begin(), ready.end(), Later());
  };
  for (const Edge& e : roots)
    if (e.fn && tasks[e.fn.get()].deps == 0) push_ready(e.fn.get());
  bool grad_only = captured != nullptr;

  GradModeGuard mode(create_graph);
  CallbackFrame final_callbacks;
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), Later());
    Node* node = ready.back();
    ready.pop_back();
    Task& task = tasks[node];
    if (task.ran) continue;
    task.ran = true;
    TensorList grads = std::move(task.inputs);
    grads.resize(node->num_outputs);
    for (auto& [k, hook] : node->pre_hooks) {
      if (!grads[k].defined()) continue;
      Tensor r = hook.second(grads[k]);
      if (r.defined()) grads[k] = r;
    }
    for (auto& [k, impl] : node->retained) {
      if (!grads[k].defined()) continue;
      Tensor owner(Ref<TensorImpl>::share(impl));
      AutogradMeta& m = autograd_meta(owner);
      if (!m.grad.defined())
        m.grad = create_graph ? grads[k] : clone(grads[k]);
      else
        m.grad = add(m.grad, grads[k], 1.0);
    }
    for (const Capture& c : captures)
      if (c.node == node && grads[c.slot].defined()) (*captured)[c.index] = grads[c.slot];
    bool is_acc = node->is_accumulate_grad;
    if (is_acc && grad_only) continue;
    bool any = false;
    for (uint32_t k = 0; k < node->num_outputs; ++k) {
      if (grads[k].defined()) {
        any = true;
      } else {
        grads[k] = zeros(node->output_shapes[k], node->output_dtypes[k], node->output_device);
      }
    }
    if (!any) continue;
    GLIA_CHECK(!node->released, State,
               "Trying to backward through the graph a second time (or directly access saved tensors after they have "
               "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
               "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
               "if you need to access saved tensors after calling backward.");
    TensorList grads_in;
    const bool mark = create_graph && !node->backward_is_differentiable();
    if (mark) grads_in = grads;
    TensorList outs = node->apply(std::move(grads));
    if (mark) mark_not_differentiable(node, grads_in, outs);
    if (!keep_graph && !is_acc) {
      node->release_variables();
      node->released = true;
    }
    for (size_t i = 0; i < node->next_edges.size(); ++i) {
      const Edge& e = node->next_edges[i];
      if (!e.fn) continue;
      Task& nt = tasks[e.fn.get()];
      if (i < outs.size() && outs[i].defined()) {
        // torch's validate_outputs: a 0-dim gradient on another device than the tensor it stands for
        // (a CPU scalar that took part in a device op) goes back to that tensor's device.
        if (__builtin_expect(outs[i].device() != e.fn->output_device, 0) && outs[i].dim() == 0)
          outs[i] = to_with_grad(outs[i], e.fn->output_device, outs[i].dtype());
        if (nt.inputs.empty()) nt.inputs.resize(e.fn->num_outputs);
        accumulate(nt.inputs, e.input_nr, std::move(outs[i]));
      }
      if (--nt.deps == 0) push_ready(e.fn.get());
    }
  }
  final_callbacks.run();
}

std::vector<Edge> root_edges(const TensorList& roots, const TensorList& grad_roots, TensorList* out_grads,
                             const char* what) {
  GLIA_CHECK(grad_roots.empty() || grad_roots.size() == roots.size(), InvalidArgument, what, ": got ",
             grad_roots.size(), " gradients for ", roots.size(), " tensors");
  std::vector<Edge> edges;
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    GLIA_CHECK(r.defined() && r.requires_grad(), State, "element ", i,
               " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_roots.empty() ? Tensor() : grad_roots[i];
    if (!g.defined()) {
      GLIA_CHECK(r.numel() == 1, State, "grad can be implicitly created only for scalar outputs");
      g = ones(r.shape(), r.dtype(), r.device());
    } else {
      GLIA_CHECK(g.shape() == r.shape(), Shape, "Mismatch in shape: grad_output[", i, "] has a shape of ", g.shape(),
                 " and output[", i, "] has a shape of ", r.shape(), ".");
      GLIA_CHECK(g.device() == r.device(), Device, "invalid gradient at index ", i, " - expected device ", r.device(),
                 " but got ", g.device());
    }
    out_grads->push_back(g);
    edges.push_back(gradient_edge(r));
  }
  return edges;
}

}  // namespace

void backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph, bool create_graph) {
  TensorList grads;
  std::vector<Edge> edges = root_edges(roots, grad_roots, &grads, "backward");
  run(edges, std::move(grads), retain_graph || create_graph, create_graph, {}, nullptr);
}

void queue_backward_callback(std::function<void()> cb) {
  GLIA_CHECK(t_final_callbacks != nullptr, State, "Final callbacks can only be installed during backward pass.");
  t_final_callbacks->push_back(std::move(cb));
}

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs, bool retain_graph,
                bool create_graph, bool allow_unused) {
  TensorList grads;
  std::vector<Edge> edges = root_edges(outputs, grad_outputs, &grads, "grad");
  std::vector<Capture> caps;
  std::vector<Ref<Node>> keep;  // a fresh AccumulateGrad must outlive the walk
  for (size_t i = 0; i < inputs.size(); ++i) {
    GLIA_CHECK(inputs[i].defined() && inputs[i].requires_grad(), State,
               "One of the differentiated Tensors does not require grad");
    Edge e = gradient_edge(inputs[i]);
    caps.push_back(Capture{e.fn.get(), e.input_nr, i});
    keep.push_back(std::move(e.fn));
  }
  TensorList result(inputs.size());
  run(edges, std::move(grads), retain_graph || create_graph, create_graph, caps, &result);
  for (size_t i = 0; i < result.size(); ++i) {
    GLIA_CHECK(result[i].defined() || allow_unused, State,
               "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True "
               "if this is the desired behavior.");
  }
  return result;
}

}  // namespace glia
