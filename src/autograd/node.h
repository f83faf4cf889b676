// The autograd graph: nodes (one per differentiable op application), edges to
// the nodes that produced each input, saved tensors with version checks, and
// the metadata a tensor carries (grad, grad_fn, hooks).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace glia {

class Node;

struct Edge {
  Ref<Node> fn;           // null: the input needs no gradient
  uint32_t input_nr = 0;  // which input slot of fn receives the gradient
  bool valid() const { return static_cast<bool>(fn); }
};

using TensorList = std::vector<Tensor>;

// A hook on a tensor's gradient: returns an undefined Tensor to keep the
// gradient, or a replacement.
using GradHook = std::function<Tensor(const Tensor& grad)>;
// torch's register_post_accumulate_grad_hook: called with the leaf after its .grad was accumulated.
using PostAccumulateGradHook = std::function<void(const Tensor& leaf)>;

// Note [Saved tensors]: a node keeps what its backward needs together with the
// storage version at save time; backward refuses to run on a tensor that was
// modified in place since (torch's message), and a released node (after a
// backward without retain_graph) refuses to run again.
//
// Note [Saving outputs]: a node that saves one of its own outputs (exp saves
// its result) must not hold the output strongly: the output's grad_fn is the
// node, a reference cycle that would leak every graph never backpropagated.
// SavedTensor::output(out, k) keeps only the data (a detached alias); unpack
// with the owning node re-attaches the history (grad_fn = owner, output k),
// so double backward still flows through the saved result.
//
// Note [Saving inputs]: an input is not held strongly either, unless it is a
// leaf that requires grad (or a wrapped number). Its TensorImpl owns its
// grad_fn, and an in-place op rebases that later: after z = x * y (MulBackward
// saves x) and x.add_(z), x's grad_fn is AddBackward, whose edge leads to
// MulBackward, which would hold x: a cycle that no release frees. The same
// happens to a tensor that did not require grad when it was saved (y.add_(z)).
// So SavedTensor(t) keeps a detached alias (same storage and version counter)
// and, for a non-leaf, the grad_fn and output_nr t had when it was saved: a
// node created before this one, never one that can reach it. unpack
// re-attaches that history when a graph is being built (create_graph), as the
// original would have had it (its history can only have changed through an
// in-place op, which the version check refuses). torch keeps the original
// input here and leaks in this case (1.13 too).
class SavedTensor {
 public:
  SavedTensor() = default;
  explicit SavedTensor(const Tensor& t);
  // Saves output `output_nr` of the node that will own this SavedTensor.
  static SavedTensor output(const Tensor& out, uint32_t output_nr = 0);
  // `owner` is required for saved outputs (the node whose output it is). The saved history is
  // re-attached when grad mode is on, or always with `with_history` (ctx.saved_tensors).
  Tensor unpack(const char* node_name, Node* owner = nullptr, bool with_history = false) const;
  void release() {
    t_ = Tensor();
    grad_fn_ = Ref<Node>();
  }
  bool defined() const { return was_defined_; }

 private:
  Tensor t_;
  Ref<Node> grad_fn_;  // a saved non-leaf input's grad_fn at save time (Note [Saving inputs])
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_defined_ = false;
  bool is_output_ = false;
  friend class Node;
};

class Node : public RefCounted {
 public:
  Node();
  ~Node() override;
  virtual const char* name() const = 0;
  // Gradients of the inputs (one per next edge; undefined where not needed)
  // from the gradients of the outputs (undefined where none flowed).
  virtual TensorList apply(TensorList&& grads) = 0;
  // Drops saved tensors (backward without retain_graph).
  virtual void release_variables() {}
  // False when apply() computes with kernels that record no graph: with
  // create_graph the engine then marks the gradients it returns so that
  // differentiating them again is an error naming this node, never a silent zero.
  virtual bool backward_is_differentiable() const { return true; }

  std::vector<Edge> next_edges;
  uint64_t sequence_nr;
  uint32_t num_outputs = 1;
  // Shapes/dtypes of the outputs, so a missing output gradient can be zeros.
  std::vector<Dims> output_shapes;
  SmallVector<DType, 4> output_dtypes;
  // Where zero-filled gradients of unused outputs go: an op runs on one device, so all its
  // outputs are there (one field, not one per output: a node is allocated per recorded op).
  Device output_device;
  bool is_accumulate_grad = false;  // AccumulateGrad (saves a dynamic_cast per node in the engine)
  // Hooks on the gradient of output k (tensor hooks of non-leaf outputs), in order.
  std::vector<std::pair<uint32_t, std::pair<uint64_t, GradHook>>> pre_hooks;
  // Non-leaf tensors that asked to retain their grad: (output index, tensor impl, weak).
  std::vector<std::pair<uint32_t, TensorImpl*>> retained;
  bool released = false;
};

// What a leaf's gradient flows into.
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(Ref<TensorImpl> leaf);
  ~AccumulateGrad() override;
  const char* name() const override { return "AccumulateGrad"; }
  TensorList apply(TensorList&& grads) override;
  // The leaf is held by the graph; the leaf points back only weakly (AutogradMeta::accumulator).
  Ref<TensorImpl> leaf;
};

struct AutogradMeta : AutogradMetaBase {
  Tensor grad;
  Ref<Node> grad_fn;
  uint32_t output_nr = 0;
  AccumulateGrad* accumulator = nullptr;  // weak; cleared by the node's destructor
  bool retains_grad = false;
  std::vector<std::pair<uint64_t, GradHook>> hooks;  // leaf hooks (non-leaf hooks live on grad_fn)
  std::vector<std::pair<uint64_t, PostAccumulateGradHook>> post_accumulate_hooks;  // leaves only
  std::string grad_fn_name_cache;
};

// The AutogradMeta of t, created on first use.
AutogradMeta& autograd_meta(const Tensor& t);
// Null when the tensor never had autograd state.
AutogradMeta* autograd_meta_if(const Tensor& t);

bool is_leaf(const Tensor& t);
// A view of t's data with no autograd history (torch's detach).
Tensor detach(const Tensor& t);
Ref<Node> grad_fn(const Tensor& t);
// The edge a gradient for `t` flows along (leaf: its AccumulateGrad; else grad_fn/output_nr).
Edge gradient_edge(const Tensor& t);
void set_requires_grad(const Tensor& t, bool flag);
uint64_t add_tensor_hook(const Tensor& t, GradHook hook);
// Removes a hook of either kind (ids are unique across both).
bool remove_tensor_hook(const Tensor& t, uint64_t id);
// Error(State) unless t is a leaf that requires grad (torch's messages).
uint64_t add_post_accumulate_grad_hook(const Tensor& t, PostAccumulateGradHook hook);
void retain_grad(const Tensor& t);

// Version counter of the tensor's storage (bumped by in-place ops).
inline void bump_version(const Tensor& t) { t.impl()->storage()->version.fetch_add(1, std::memory_order_relaxed); }

// True when grad mode is on and any of the tensors requires grad.
bool any_requires_grad(std::initializer_list<const Tensor*> ts);
bool any_requires_grad(const TensorList& ts);

// Connects outputs to `node`: sets next edges from `inputs` and the outputs' grad_fn.
void set_history(Node* node, std::initializer_list<const Tensor*> inputs, std::initializer_list<const Tensor*> outputs);
void set_history(Node* node, const TensorList& inputs, const TensorList& outputs);

}  // namespace glia
