#include "autograd/engine.h"

#include <queue>
#include <string>
#include <unordered_map>

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

// Note [Engine]: one walk serves backward() (accumulate into leaves) and
// grad() (capture at the inputs' edges; AccumulateGrad nodes do not run).
void run(const std::vector<Edge>& roots, TensorList root_grads, bool keep_graph, bool create_graph,
         const std::vector<Capture>& captures, TensorList* captured) {
  std::unordered_map<Node*, Task> tasks;
  // Dependencies: count the edges that reach each node from the roots.
  std::vector<Node*> stack;
  for (const Edge& e : roots)
    if (e.fn && tasks.emplace(e.fn.get(), Task{}).second) stack.push_back(e.fn.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      if (!e.fn) continue;
      auto [it, fresh] = tasks.emplace(e.fn.get(), Task{});
      it->second.deps++;
      if (fresh) stack.push_back(e.fn.get());
    }
  }
  for (size_t i = 0; i < roots.size(); ++i) {
    if (!roots[i].fn) continue;
    Task& t = tasks[roots[i].fn.get()];
    if (t.inputs.empty()) t.inputs.resize(roots[i].fn->num_outputs);
    accumulate(t.inputs, roots[i].input_nr, std::move(root_grads[i]));
  }
  std::priority_queue<Node*, std::vector<Node*>, Later> ready;
  for (const Edge& e : roots)
    if (e.fn && tasks[e.fn.get()].deps == 0) ready.push(e.fn.get());
  bool grad_only = captured != nullptr;

  GradModeGuard mode(create_graph);
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
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
    bool is_acc = dynamic_cast<AccumulateGrad*>(node) != nullptr;
    if (is_acc && grad_only) continue;
    bool any = false;
    for (uint32_t k = 0; k < node->num_outputs; ++k) {
      if (grads[k].defined()) {
        any = true;
      } else {
        grads[k] = zeros(node->output_shapes[k], node->output_dtypes[k]);
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
        if (nt.inputs.empty()) nt.inputs.resize(e.fn->num_outputs);
        accumulate(nt.inputs, e.input_nr, std::move(outs[i]));
      }
      if (--nt.deps == 0) ready.push(e.fn.get());
    }
  }
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
      g = ones(r.shape(), r.dtype());
    } else {
      GLIA_CHECK(g.shape() == r.shape(), Shape, "Mismatch in shape: grad_output[", i, "] has a shape of ", g.shape(),
                 " and output[", i, "] has a shape of ", r.shape(), ".");
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
