// Module.__call__ (torch 2.x _call_impl) and the module hooks: forward
// pre-hooks, forward hooks (always_call, prepend), and the full backward
// (pre-)hooks wired into autograd the way torch.utils.hooks.BackwardHook does.
//
// Note [Module backward hooks]
// When the module has full backward hooks or backward pre-hooks and grad mode
// is on, call() wraps the tensor inputs that require grad in an identity node
// ("BackwardHookFunctionBackward") and, after forward and the forward hooks,
// the tensor outputs in a second one. In backward the output node runs first:
// it packs grad_output (undefined where no gradient reached an output), runs
// the backward pre-hooks (which may replace it) and remembers it; the input
// node then runs the full backward hooks with grad_input (undefined for inputs
// that need no grad) and that grad_output, and they may replace grad_input.
// When no input requires grad there is no input node: the output node calls
// the full backward hooks itself with an all-undefined grad_input. The hook
// lists are captured at call time (removing a hook later does not change a
// recorded graph), as torch does.
#include <atomic>
#include <memory>

#include "autograd/grad_mode.h"
#include "core/log.h"
#include "nn/module.h"

namespace glia::nn {

namespace {

std::atomic<uint64_t> g_next_hook_id{1};

template <class V, class H>
uint64_t add_hook(V& v, H&& fn, uint32_t flags) {
  GLIA_CHECK(fn, InvalidArgument, "hook is empty");
  uint64_t id = g_next_hook_id.fetch_add(1, std::memory_order_relaxed);
  typename V::value_type e{id, std::forward<H>(fn), flags};
  if (flags & kHookPrepend)
    v.insert(v.begin(), std::move(e));
  else
    v.push_back(std::move(e));
  return id;
}

// Moves the hook with `id` out of `v` into `doomed`, whose owner destroys it once the lock is
// dropped: its destructor may run host code (free_user_data) that calls back into the module.
template <class V, class H>
bool remove_from(V& v, uint64_t id, H& doomed) {
  for (auto it = v.begin(); it != v.end(); ++it)
    if (it->id == id) {
      doomed = std::move(it->fn);
      v.erase(it);
      return true;
    }
  return false;
}

void check_flags(uint32_t flags, uint32_t allowed, const char* what) {
  GLIA_CHECK((flags & ~allowed) == 0, InvalidArgument, what, ": unknown hook flags ", flags & ~allowed);
}

struct BackwardHookState {
  ModuleRef module;
  std::vector<BackwardHook> hooks;
  std::vector<BackwardPreHook> pre_hooks;
  std::optional<TensorList> grad_outputs;  // set by the output node, consumed by the input node
  size_t n_inputs = 0, n_outputs = 0;
  std::optional<std::vector<size_t>> input_idx, output_idx;  // positions of the wrapped tensors
};

void check_grad(const Tensor& g, const Node& node, size_t k, const char* what) {
  if (!g.defined()) return;
  GLIA_CHECK(g.shape() == node.output_shapes[k], Shape, "backward hook returned a ", what, " of shape ", g.shape(),
             " for a tensor of shape ", node.output_shapes[k]);
}

class BackwardHookNode : public Node {
 public:
  BackwardHookNode(std::shared_ptr<BackwardHookState> s, bool is_output) : state_(std::move(s)), output_(is_output) {}
  const char* name() const override { return "BackwardHookFunctionBackward"; }
  std::vector<char> received;  // output side: which grads the engine delivered (before zero filling)

  TensorList apply(TensorList&& grads) override { return output_ ? apply_output(grads) : apply_input(grads); }

 private:
  TensorList apply_input(TensorList& grads) {
    BackwardHookState& s = *state_;
    TensorList res = std::move(grads);
    res.resize(num_outputs);
    for (size_t k = 0; k < res.size(); ++k)
      if (!next_edges[k].valid()) res[k] = Tensor();
    if (!s.grad_outputs) return res;  // no gradient reached the outputs through the output node
    const std::vector<size_t>& idx = *s.input_idx;
    TensorList packed(s.n_inputs);
    for (size_t k = 0; k < idx.size(); ++k) packed[idx[k]] = res[k];
    for (const BackwardHook& h : s.hooks) {
      std::optional<TensorList> out = h(*s.module, packed, *s.grad_outputs);
      if (!out) continue;
      GLIA_CHECK(out->size() == packed.size(), State, "Backward hook returned an invalid number of grad_input, got ",
                 out->size(), ", but expected ", packed.size());
      packed = std::move(*out);
    }
    s.grad_outputs.reset();
    for (size_t k = 0; k < idx.size(); ++k) {
      res[k] = next_edges[k].valid() ? packed[idx[k]] : Tensor();
      check_grad(res[k], *this, k, "grad_input");
    }
    return res;
  }

  TensorList apply_output(TensorList& grads) {
    BackwardHookState& s = *state_;
    const std::vector<size_t>& idx = *s.output_idx;
    TensorList go(s.n_outputs);
    for (size_t k = 0; k < idx.size() && k < grads.size(); ++k)
      if (received[k]) go[idx[k]] = grads[k];
    std::fill(received.begin(), received.end(), 0);
    for (const BackwardPreHook& h : s.pre_hooks) {
      std::optional<TensorList> r = h(*s.module, go);
      if (!r) continue;
      GLIA_CHECK(r->size() == go.size(), State, "Backward pre hook returned an invalid number of grad_output, got ",
                 r->size(), ", but expected ", go.size());
      go = std::move(*r);
    }
    s.grad_outputs = go;
    if (!s.input_idx) {
      TensorList gi(s.n_inputs);
      for (const BackwardHook& h : s.hooks) {
        std::optional<TensorList> r = h(*s.module, gi, go);
        if (!r) continue;
        for (const Tensor& t : *r)
          GLIA_CHECK(!t.defined(), State,
                     "Backward hook for Modules where no input requires gradient should always return None or None "
                     "for all gradients.");
      }
      s.grad_outputs.reset();
    }
    TensorList res(idx.size());
    for (size_t k = 0; k < idx.size(); ++k) {
      res[k] = go[idx[k]];
      check_grad(res[k], *this, k, "grad_output");
    }
    return res;
  }

  std::shared_ptr<BackwardHookState> state_;
  bool output_;
};

// BackwardHook._apply_on_tensors: wraps the defined tensors of `args` in an
// identity node when any requires grad (and grad mode is on); returns the
// positions of the wrapped tensors, or nullopt when nothing was wrapped.
std::optional<std::vector<size_t>> wrap_tensors(const std::shared_ptr<BackwardHookState>& s, TensorList& args,
                                                bool is_output) {
  std::vector<size_t> idx;
  bool requires_grad = false;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].defined()) {
      idx.push_back(i);
      requires_grad |= args[i].requires_grad();
    }
  if (!(requires_grad && grad_mode_enabled())) return std::nullopt;
  auto node = make_ref<BackwardHookNode>(s, is_output);
  node->num_outputs = static_cast<uint32_t>(idx.size());
  for (size_t k = 0; k < idx.size(); ++k) {
    const Tensor& t = args[idx[k]];
    node->next_edges.push_back(t.requires_grad() ? gradient_edge(t) : Edge{});
    node->output_shapes.push_back(t.shape());
    node->output_dtypes.push_back(t.dtype());
  }
  // Where the engine zero-fills an output that got no gradient (an input the forward left unused):
  // one device per node, as set_history takes it; the first tensor that requires grad (the
  // others' fills are dropped, their edges being invalid).
  for (size_t i : idx)
    if (args[i].requires_grad()) {
      node->output_device = args[i].device();
      break;
    }
  for (size_t k = 0; k < idx.size(); ++k) {
    Tensor& t = args[idx[k]];
    if (!t.requires_grad()) continue;  // non-differentiable: passed through as is
    Tensor alias = detach(t);
    alias.impl()->requires_grad = true;
    AutogradMeta& m = autograd_meta(alias);
    m.grad_fn = node;
    m.output_nr = static_cast<uint32_t>(k);
    t = alias;
  }
  if (is_output) {
    node->received.assign(idx.size(), 0);
    BackwardHookNode* raw = node.get();  // the node owns its hooks: no cycle
    for (size_t k = 0; k < idx.size(); ++k)
      node->pre_hooks.push_back({static_cast<uint32_t>(k), {0, [raw, k](const Tensor&) {
                                                              raw->received[k] = 1;
                                                              return Tensor();
                                                            }}});
  }
  return idx;
}

}  // namespace

// Note [Hooks and concurrent forward]
// docs/c-api.md lets several threads run forward on one module (inference) and lets hooks be
// added or removed meanwhile, from another thread or from a hook. call() takes a snapshot of
// the hook lists under hooks_mu_ and runs the hooks without the lock (a hook may call back into
// the module, register hooks included); a call in flight keeps the hooks it started with, and
// a removed hook's free_user_data may run on that thread when its snapshot ends. Without hooks,
// call() only reads the atomic call_hooks_, so the hook-free path takes no lock.
void Module::note_call_hooks() {
  call_hooks_.store(
      !(forward_pre_hooks_.empty() && forward_hooks_.empty() && backward_pre_hooks_.empty() && backward_hooks_.empty()),
      std::memory_order_release);
}

TensorList Module::call(const TensorList& inputs) {
  if (!call_hooks_.load(std::memory_order_acquire)) return forward(inputs);
  ModuleRef self = ModuleRef::share(this);  // hooks may drop the last other reference
  // Snapshots: a hook may add or remove hooks while they run, and so may other threads.
  std::vector<Hooked<ForwardPreHook>> pre_hooks;
  std::vector<Hooked<ForwardHook>> fwd_hooks;
  std::vector<BackwardHook> bw_hooks;
  std::vector<BackwardPreHook> bw_pre_hooks;
  {
    std::lock_guard<std::mutex> lock(hooks_mu_);
    pre_hooks = forward_pre_hooks_;
    fwd_hooks = forward_hooks_;
    for (const auto& h : backward_hooks_) bw_hooks.push_back(h.fn);
    for (const auto& h : backward_pre_hooks_) bw_pre_hooks.push_back(h.fn);
  }
  std::vector<char> called(fwd_hooks.size(), 0);
  TensorList args = inputs;
  TensorList result;
  try {
    for (const auto& h : pre_hooks) {
      std::optional<TensorList> r = h.fn(*this, args);
      if (r) args = std::move(*r);
    }
    std::shared_ptr<BackwardHookState> bw;
    if (!bw_hooks.empty() || !bw_pre_hooks.empty()) {
      bw = std::make_shared<BackwardHookState>();
      bw->module = self;
      bw->hooks = std::move(bw_hooks);
      bw->pre_hooks = std::move(bw_pre_hooks);
      bw->input_idx = wrap_tensors(bw, args, false);
      bw->n_inputs = args.size();
    }
    result = forward(args);
    for (size_t i = 0; i < fwd_hooks.size(); ++i) {
      if (fwd_hooks[i].flags & kHookAlwaysCall) called[i] = 1;
      std::optional<TensorList> r = fwd_hooks[i].fn(*this, args, result);
      if (r) result = std::move(*r);
    }
    if (bw) {
      bw->output_idx = wrap_tensors(bw, result, true);
      bw->n_outputs = result.size();
    }
    return result;
  } catch (...) {
    for (size_t i = 0; i < fwd_hooks.size(); ++i) {
      if (!(fwd_hooks[i].flags & kHookAlwaysCall) || called[i]) continue;
      try {
        std::optional<TensorList> r = fwd_hooks[i].fn(*this, args, result);
        if (r) result = std::move(*r);
      } catch (const std::exception& e) {
        log(LogLevel::Warning,
            std::string("forward hook with ``always_call=True`` raised an exception that was silenced as another "
                        "error was raised in forward: ") +
                e.what());
      }
    }
    throw;
  }
}

uint64_t Module::add_forward_pre_hook(ForwardPreHook hook, uint32_t flags) {
  check_flags(flags, kHookPrepend, "register_forward_pre_hook");
  std::lock_guard<std::mutex> lock(hooks_mu_);
  uint64_t id = add_hook(forward_pre_hooks_, std::move(hook), flags);
  note_call_hooks();
  return id;
}
uint64_t Module::add_forward_hook(ForwardHook hook, uint32_t flags) {
  check_flags(flags, kHookPrepend | kHookAlwaysCall, "register_forward_hook");
  std::lock_guard<std::mutex> lock(hooks_mu_);
  uint64_t id = add_hook(forward_hooks_, std::move(hook), flags);
  note_call_hooks();
  return id;
}
uint64_t Module::add_backward_pre_hook(BackwardPreHook hook, uint32_t flags) {
  check_flags(flags, kHookPrepend, "register_full_backward_pre_hook");
  std::lock_guard<std::mutex> lock(hooks_mu_);
  uint64_t id = add_hook(backward_pre_hooks_, std::move(hook), flags);
  note_call_hooks();
  return id;
}
uint64_t Module::add_backward_hook(BackwardHook hook, uint32_t flags) {
  check_flags(flags, kHookPrepend, "register_full_backward_hook");
  std::lock_guard<std::mutex> lock(hooks_mu_);
  uint64_t id = add_hook(backward_hooks_, std::move(hook), flags);
  note_call_hooks();
  return id;
}
uint64_t Module::add_state_dict_hook(StateDictHook hook) {
  std::lock_guard<std::mutex> lock(hooks_mu_);
  return add_hook(state_dict_hooks_, std::move(hook), 0);
}
uint64_t Module::add_load_state_dict_post_hook(LoadStateDictPostHook hook) {
  std::lock_guard<std::mutex> lock(hooks_mu_);
  return add_hook(load_post_hooks_, std::move(hook), 0);
}

std::vector<std::pair<uint64_t, ForwardPreHook>> Module::forward_pre_hooks() const {
  std::lock_guard<std::mutex> lock(hooks_mu_);
  std::vector<std::pair<uint64_t, ForwardPreHook>> out;
  out.reserve(forward_pre_hooks_.size());
  for (const auto& h : forward_pre_hooks_) out.emplace_back(h.id, h.fn);
  return out;
}

bool Module::remove_hook(uint64_t id) {
  // Declared before the lock, so destroyed after it is dropped (see remove_from).
  ForwardPreHook pre;
  ForwardHook fwd;
  BackwardPreHook bw_pre;
  BackwardHook bw;
  StateDictHook sd;
  LoadStateDictPostHook post;
  std::lock_guard<std::mutex> lock(hooks_mu_);
  bool found = remove_from(forward_pre_hooks_, id, pre) || remove_from(forward_hooks_, id, fwd) ||
               remove_from(backward_pre_hooks_, id, bw_pre) || remove_from(backward_hooks_, id, bw) ||
               remove_from(state_dict_hooks_, id, sd) || remove_from(load_post_hooks_, id, post);
  note_call_hooks();
  return found;
}

}  // namespace glia::nn
