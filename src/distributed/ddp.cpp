// DistributedDataParallel (Note [DDP] in ddp.h).
#include "distributed/ddp.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "ops/elementwise.h"

namespace glia::dist {

namespace {

std::string shape_text(const int64_t* d, int64_t n) {
  std::ostringstream os;
  os << '[';
  for (int64_t i = 0; i < n; ++i) os << (i ? ", " : "") << d[i];
  os << ']';
  return os.str();
}

Tensor zeros1(int64_t n, DType dt, Device device = Device{}) {
  int64_t shape[1] = {n};
  return zeros(shape, dt, device);
}

// A CPU tensor where the group communicates (the group's device: NCCL takes no CPU tensors), and back.
Tensor to_group(const Tensor& cpu, const ProcessGroup& g) {
  return g.device().is_cpu() ? cpu : to_device(cpu, g.device());
}
Tensor to_host(const Tensor& t) { return t.device().is_cpu() ? t : to_device(t, Device{}); }

// torch's _DDPSink: the identity on DDP's outputs, whose backward queues the end-of-backward
// callback on the backward that runs it, the outer one (Note [DDP] in ddp.h). Gradients that did not
// flow stay undefined (torch's set_materialize_grads(False)).
struct DDPSinkNode final : Node {
  std::shared_ptr<DistributedDataParallel*> ddp;
  std::function<void()> on_backward;
  const char* name() const override { return "_DDPSinkBackward"; }
  TensorList apply(TensorList&& grads) override {
    if (*ddp) on_backward();
    return std::move(grads);
  }
};

}  // namespace

DistributedDataParallel::DistributedDataParallel(nn::ModuleRef module, Ref<ProcessGroup> group,
                                                 const DDPOptions& options)
    : Module("DistributedDataParallel"), module_(module), group_(std::move(group)), options_(options) {
  GLIA_CHECK(module_, InvalidArgument, "DistributedDataParallel: module is null");
  GLIA_CHECK(group_, InvalidArgument, "DistributedDataParallel: process group is null");
  GLIA_CHECK(options.bucket_cap_mb > 0, InvalidArgument,
             "DistributedDataParallel: bucket_cap_mb must be positive, got ", options.bucket_cap_mb);
  register_module("module", module_);
  GradModeGuard no_grad(false);
  for (const Tensor& p : module_->parameters()) {
    if (!p.requires_grad()) continue;
    GLIA_CHECK(p.device() == group_->device(), Device, "DistributedDataParallel: the ", group_->backend_name(),
               " process group takes parameters on ", group_->device(), ", got one on ", p.device());
    params_.push_back(p);
  }
  GLIA_CHECK(!params_.empty(), InvalidArgument,
             "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
             "gradient.");
  verify_same_model();
  // Parameters and buffers from rank 0 (torch's _sync_module_states).
  for (const Tensor& p : module_->parameters()) group_->broadcast(p, 0)->wait(Millis(-1));
  for (const Tensor& b : module_->buffers()) group_->broadcast(b, 0)->wait(Millis(-1));

  // torch 1.13's DDP._ddp_init_helper: one bucket per dtype (sys.maxsize) when the buckets will be
  // rebuilt after the first iteration, else 1 MiB then bucket_cap_mb; the list reversed.
  const int64_t cap = static_cast<int64_t>(options.bucket_cap_mb * 1024 * 1024);
  std::vector<size_t> order(params_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const bool rebuilds = options.static_graph || !options.find_unused_parameters;
  const int64_t unlimited = std::numeric_limits<int64_t>::max();
  std::vector<std::vector<size_t>> assignment =
      assign_buckets(order, rebuilds ? unlimited : kFirstBucketBytes, rebuilds ? unlimited : cap);
  // Buckets in order of their first parameter (torch sorts by min index), then reversed.
  std::sort(assignment.begin(), assignment.end(), [](const auto& x, const auto& y) { return x[0] < y[0]; });
  std::reverse(assignment.begin(), assignment.end());
  bucket_of_.assign(params_.size(), 0);
  slot_of_.assign(params_.size(), 0);
  ready_.assign(params_.size(), 0);
  hook_counts_.assign(params_.size(), 0);
  hooks_left_.assign(params_.size(), 0);
  install_buckets(assignment);
  self_ = std::make_shared<DistributedDataParallel*>(this);
  for (size_t i = 0; i < params_.size(); ++i)
    hook_ids_.push_back(add_post_accumulate_grad_hook(params_[i], [this, i](const Tensor&) { on_grad_ready(i); }));
}

DistributedDataParallel::~DistributedDataParallel() {
  if (self_) *self_ = nullptr;
  for (size_t i = 0; i < hook_ids_.size(); ++i) remove_tensor_hook(params_[i], hook_ids_[i]);
}

void DistributedDataParallel::register_comm_hook(CommHook kind, CommHookFn fn) {
  GLIA_CHECK(!hook_registered_, State, "register_comm_hook or register_builtin_comm_hook can only be called once.");
  int k = static_cast<int>(kind);
  GLIA_CHECK(k >= 0 && k <= 3, InvalidArgument, "register_builtin_comm_hook: unknown communication hook ", k);
  GLIA_CHECK(kind != CommHook::Callback || fn, InvalidArgument, "register_comm_hook: the hook is null");
  hook_registered_ = true;
  hook_ = kind;
  hook_fn_ = std::move(fn);
}

// torch's compute_bucket_assignment_by_size over the parameters in `order`: one open bucket per dtype,
// closed once it holds `first_limit` bytes (its dtype's first bucket) or `limit` (the others); the
// buckets in the order they closed, then the open ones.
std::vector<std::vector<size_t>> DistributedDataParallel::assign_buckets(const std::vector<size_t>& order,
                                                                         int64_t first_limit, int64_t limit) const {
  struct Open {
    std::vector<size_t> params;
    int64_t bytes = 0;
    int closed = 0;
  };
  std::map<int, Open> open;
  std::vector<std::vector<size_t>> assignment;
  for (size_t i : order) {
    Open& b = open[static_cast<int>(params_[i].dtype())];
    b.params.push_back(i);
    b.bytes += params_[i].numel() * static_cast<int64_t>(params_[i].impl()->itemsize());
    if (b.bytes >= (b.closed == 0 ? first_limit : limit)) {
      assignment.push_back(std::move(b.params));
      b.params.clear();
      b.bytes = 0;
      b.closed++;
    }
  }
  for (auto& [dt, b] : open)
    if (!b.params.empty()) assignment.push_back(std::move(b.params));
  return assignment;
}

// New buckets; a gradient that is a bucket view (gradient_as_bucket_view) moves into its new slot.
void DistributedDataParallel::install_buckets(const std::vector<std::vector<size_t>>& assignment) {
  std::vector<Bucket> buckets;
  for (const auto& idx : assignment) {
    Bucket b;
    int64_t total = 0;
    for (size_t i : idx) total += params_[i].numel();
    b.flat = zeros1(total, params_[idx[0]].dtype(), group_->device());
    int64_t offset = 0;
    for (size_t i : idx) {
      const Tensor& p = params_[i];
      bucket_of_[i] = buckets.size();
      slot_of_[i] = b.views.size();
      b.views.push_back(make_view(b.flat, p.shape(), contiguous_strides(p.shape()), b.flat.offset() + offset));
      offset += p.numel();
    }
    b.params = idx;
    b.pending = idx.size();
    buckets.push_back(std::move(b));
  }
  if (options_.gradient_as_bucket_view) {
    GradModeGuard no_grad(false);
    for (size_t i = 0; i < params_.size(); ++i) {
      Tensor& g = autograd_meta(params_[i]).grad;
      if (!g.defined()) continue;
      const Tensor& view = buckets[bucket_of_[i]].views[slot_of_[i]];
      ops::copy_(view, g);
      g = view;
    }
  }
  buckets_ = std::move(buckets);
}

// torch's Reducer::rebuild_buckets and sync_bucket_indices: the buckets over the parameters in
// gradient-arrival order, rank 0's assignment on every rank.
void DistributedDataParallel::rebuild_buckets() {
  const int64_t cap = static_cast<int64_t>(options_.bucket_cap_mb * 1024 * 1024);
  std::vector<std::vector<size_t>> assignment = assign_buckets(arrival_, kFirstBucketBytes, cap);
  const size_t n = params_.size();
  // [bucket count, bucket sizes..., parameter indices...]: at most 1 + 2n entries.
  Tensor msg = zeros1(static_cast<int64_t>(1 + 2 * n), DType::Int64);
  int64_t* m = msg.data_ptr<int64_t>();
  m[0] = static_cast<int64_t>(assignment.size());
  size_t at = 1 + assignment.size();
  for (size_t k = 0; k < assignment.size(); ++k) {
    m[1 + k] = static_cast<int64_t>(assignment[k].size());
    for (size_t i : assignment[k]) m[at++] = static_cast<int64_t>(i);
  }
  Tensor sent = to_group(msg, *group_);
  group_->broadcast(sent, 0)->wait(Millis(-1));
  msg = to_host(sent);
  m = msg.data_ptr<int64_t>();
  assignment.assign(static_cast<size_t>(m[0]), {});
  at = 1 + assignment.size();
  for (size_t k = 0; k < assignment.size(); ++k)
    for (int64_t j = 0; j < m[1 + k]; ++j) assignment[k].push_back(static_cast<size_t>(m[at++]));
  install_buckets(assignment);
  rebuilt_ = true;
  rebuild_ready_ = false;
  arrival_.clear();
}

void DistributedDataParallel::set_static_graph() {
  GLIA_CHECK(iterations_ == 0, State,
             "set_static_graph() should be called before training loop starts and after DistributedDataParallel is "
             "constructed.");
  options_.static_graph = true;
}

std::vector<std::vector<size_t>> DistributedDataParallel::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const auto& b : buckets_) out.push_back(b.params);
  return out;
}

// torch's _verify_param_shape_across_processes: the same number of parameters with the same shapes.
void DistributedDataParallel::verify_same_model() {
  const int n = group_->size();
  std::vector<int64_t> meta{static_cast<int64_t>(params_.size())};
  for (const Tensor& p : params_) {
    meta.push_back(p.dim());
    for (int64_t d : p.shape()) meta.push_back(d);
  }
  const Device dev = group_->device();
  Tensor len = zeros1(1, DType::Int64);
  len.data_ptr<int64_t>()[0] = static_cast<int64_t>(meta.size());
  std::vector<Tensor> lens;
  for (int r = 0; r < n; ++r) lens.push_back(zeros1(1, DType::Int64, dev));
  group_->allgather(lens, to_group(len, *group_))->wait(Millis(-1));
  int64_t longest = 0;
  for (const Tensor& l : lens) longest = std::max(longest, to_host(l).data_ptr<int64_t>()[0]);
  Tensor mine = zeros1(longest, DType::Int64);
  std::memcpy(mine.data(), meta.data(), meta.size() * sizeof(int64_t));
  std::vector<Tensor> all;
  for (int r = 0; r < n; ++r) all.push_back(zeros1(longest, DType::Int64, dev));
  group_->allgather(all, to_group(mine, *group_))->wait(Millis(-1));
  for (Tensor& a : all) a = to_host(a);
  const int me = group_->rank();
  for (int r = 0; r < n; ++r) {
    const int64_t* o = all[r].data_ptr<int64_t>();
    GLIA_CHECK(o[0] == meta[0], InvalidArgument, "DDP expects same model across all ranks, but Rank ", me, " has ",
               meta[0], " params, while rank ", r, " has inconsistent ", o[0], " params.");
    size_t at = 1;
    for (size_t i = 0; i < params_.size(); ++i) {
      int64_t nd = meta[at];
      bool same = o[at] == nd && std::equal(meta.begin() + at + 1, meta.begin() + at + 1 + nd, o + at + 1);
      GLIA_CHECK(same, Shape, "DDP expects same model across all ranks, but Rank ", me, " has parameter ", i,
                 " of shape ", shape_text(meta.data() + at + 1, nd), ", while rank ", r, " has inconsistent shape ",
                 shape_text(o + at + 1, std::max<int64_t>(0, std::min<int64_t>(o[at], 64))), ".");
      at += 1 + nd;
    }
  }
}

TensorList DistributedDataParallel::forward(const TensorList& inputs) {
  if (grad_mode_enabled()) {
    if (sync_) ++iterations_;
    // torch calls _rebuild_buckets in every forward with grad mode on; it acts once.
    if (rebuild_ready_ && should_rebuild()) rebuild_buckets();
  }
  if (options_.broadcast_buffers && sync_ && group_->size() > 1) {
    GradModeGuard no_grad(false);
    for (const Tensor& b : module_->buffers()) group_->broadcast(b, 0)->wait(Millis(-1));
  }
  TensorList out = module_->call(inputs);
  return grad_mode_enabled() ? sink(out) : out;
}

// Every output that has a grad_fn through a DDPSinkNode of its own; the others as they are (torch
// leaves alone what has no grad_fn). One node per output, not torch's one for all: the engine fills
// a node's missing output gradients with zeros, which would reach the parameters behind an output
// the loss does not use, and they must stay unused (find_unused_parameters: .grad untouched).
TensorList DistributedDataParallel::sink(const TensorList& outputs) {
  TensorList out = outputs;
  DistributedDataParallel* self = this;
  for (Tensor& t : out) {
    if (!t.defined() || !t.requires_grad() || !grad_fn(t)) continue;
    Tensor alias = detach(t);  // shares storage and version counter: in-place checks still see it
    auto node = make_ref<DDPSinkNode>();
    node->ddp = self_;
    node->on_backward = [self] {
      if (self->sync_ && !self->callback_queued_) self->queue_finalize();
    };
    set_history(node.get(), {&t}, {&alias});
    t = alias;
  }
  return out;
}

// The end-of-backward callback on the backward running now (torch's queue_callback).
void DistributedDataParallel::queue_finalize() {
  // A backward that fails after this drops the callback: the iteration's state is then reset
  // when the callback is destroyed unrun, so that the next backward starts clean.
  struct Pending {
    DistributedDataParallel* self = nullptr;
    bool ran = false;
    ~Pending() {
      if (self && !ran) self->reset_iteration();
    }
  };
  auto pending = std::make_shared<Pending>();
  pending->self = this;
  queue_backward_callback([pending] {
    pending->ran = true;
    DistributedDataParallel* self = pending->self;
    if (!self->hook_fired_) {  // no gradient reached a parameter (autograd.grad): nothing to reduce
      self->callback_queued_ = false;
      return;
    }
    self->finalize();
  });
  callback_queued_ = true;
  hook_fired_ = false;
}

void DistributedDataParallel::on_grad_ready(size_t i) {
  if (!sync_) return;
  if (!callback_queued_) queue_finalize();  // no sink ran in this backward (Note [DDP])
  hook_fired_ = true;
  if (options_.static_graph) {
    if (iterations_ <= 1) {  // the first iteration counts; finalize reduces everything (delay_all_reduce)
      ++hook_counts_[i];
      return;
    }
    if (!marked_unused_) {  // the parameters unused in the first iteration are ready at once
      marked_unused_ = true;
      for (size_t u : static_unused_) mark_ready(u);
    }
    GLIA_CHECK(hooks_left_[i] > 0, State,
               "Your training graph has changed in this iteration, e.g., one parameter is unused in first iteration, "
               "but then got used in the second iteration. this is not compatible with static_graph set to True.");
    if (--hooks_left_[i] > 0) return;
  }
  GLIA_CHECK(!ready_[i], State,
             "Expected to mark a variable ready only once. This error is caused by one of the following reasons: 1) "
             "Use of a module parameter outside the `forward` function. Please make sure model parameters are not "
             "shared across multiple concurrent forward-backward passes. or try to use _set_static_graph() as a "
             "workaround if this module graph does not change during training loop.2) Reused parameters in multiple "
             "reentrant backward passes. For example, if you use multiple `checkpoint` functions to wrap the same "
             "part of your model, it would result in the same set of parameters been used by different reentrant "
             "backward passes multiple times, and hence marking a variable ready multiple times. DDP does not "
             "support such use cases in default. You can try to use _set_static_graph() as a workaround if your "
             "module graph does not change over iterations.\nParameter at index ",
             i,
             " has been marked as ready twice. This means that multiple autograd engine  hooks have fired for this "
             "particular parameter during this iteration. You can set the environment variable "
             "TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print parameter names for further debugging.");
  if (should_rebuild() && !rebuild_ready_) arrival_.push_back(i);
  mark_ready(i);
}

// The parameter's gradient (zeros when it has none) into its bucket slot; a full bucket goes out.
void DistributedDataParallel::mark_ready(size_t i) {
  ready_[i] = 1;
  Bucket& b = buckets_[bucket_of_[i]];
  Tensor& g = autograd_meta(params_[i]).grad;
  const Tensor& view = b.views[slot_of_[i]];
  if (!g.defined()) {
    ops::fill_(view, Scalar::from_int(0));
  } else if (!(options_.gradient_as_bucket_view && g.impl() == view.impl())) {
    GradModeGuard no_grad(false);
    ops::copy_(view, g);
    if (options_.gradient_as_bucket_view) g = view;  // later backwards accumulate into the bucket
  }
  if (--b.pending == 0) launch_ready_buckets();
}

// Buckets go out in order on every rank: Gloo pairs collectives by their order.
void DistributedDataParallel::launch_ready_buckets() {
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
    const size_t index = next_bucket_++;
    Bucket& b = buckets_[index];
    switch (hook_) {
      case CommHook::Allreduce:
        b.work = group_->allreduce(b.flat, ReduceOp::Avg);
        break;
      case CommHook::Fp16Compress:
      case CommHook::Bf16Compress: {
        // torch's fp16_compress_hook: buffer.to(float16).div_(world_size), all-reduced (sum), cast back.
        GradModeGuard no_grad(false);
        DType dt = hook_ == CommHook::Fp16Compress ? DType::Float16 : DType::BFloat16;
        if (!b.compressed.defined()) b.compressed = empty(b.flat.shape(), dt, b.flat.device());
        ops::copy_(b.compressed, b.flat);
        Tensor n = zeros(Dims{}, dt, b.flat.device());
        ops::fill_(n, Scalar::from_int(group_->size()));
        ops::div_(b.compressed, n);
        b.work = group_->allreduce(b.compressed, ReduceOp::Sum);
        break;
      }
      case CommHook::Callback: {
        GradModeGuard no_grad(false);
        hook_fn_(b.flat, index, buckets_.size());
        b.work = Ref<Work>();
        break;
      }
    }
  }
}

void DistributedDataParallel::reset_iteration() {
  for (auto& b : buckets_) {
    // A bucket still in flight (its backward failed) finishes before its buffer is reused.
    if (b.work) {
      try {
        b.work->wait(Millis(-1));
      } catch (...) {
      }
    }
    b.pending = b.params.size();
    b.work = Ref<Work>();
  }
  std::fill(ready_.begin(), ready_.end(), 0);
  hooks_left_ = hook_counts_;
  marked_unused_ = false;
  if (!rebuild_ready_) arrival_.clear();  // an iteration that failed records nothing
  next_bucket_ = 0;
  callback_queued_ = false;
  hook_fired_ = false;
}

// Note [Globally unused parameters]
// A parameter that no rank used in this iteration keeps its .grad as it was (None stays None), as
// torch's Reducer leaves it: find_unused_parameters and static_graph all-reduce a map of which
// parameters each rank used (torch's local_used_map), the parameters' gradients in the buckets are
// reduced as usual, and only the copy back into .grad skips the globally unused. A static graph's
// map cannot change after its first iteration, so it is reduced once (torch reduces it then too).
void DistributedDataParallel::find_globally_unused(const std::vector<char>& used) {
  if (options_.static_graph && global_unused_known_) return;
  const int64_t n = static_cast<int64_t>(params_.size());
  Tensor map = zeros1(n, DType::Int32);
  int32_t* m = map.data_ptr<int32_t>();
  for (int64_t i = 0; i < n; ++i) m[i] = used[static_cast<size_t>(i)] ? 1 : 0;
  Tensor sent = to_group(map, *group_);
  group_->allreduce(sent, ReduceOp::Max)->wait(Millis(-1));
  map = to_host(sent);
  m = map.data_ptr<int32_t>();
  global_unused_.assign(params_.size(), 0);
  for (int64_t i = 0; i < n; ++i) global_unused_[static_cast<size_t>(i)] = m[i] == 0;
  global_unused_known_ = true;
}

void DistributedDataParallel::finalize() {
  if (options_.static_graph && iterations_ <= 1) {
    // torch's delay_all_reduce: every gradient into its bucket now; the unused are remembered.
    static_unused_.clear();
    for (size_t i = 0; i < params_.size(); ++i) {
      if (hook_counts_[i] == 0) static_unused_.push_back(i);
      mark_ready(i);
    }
  } else if (options_.static_graph && should_rebuild() && !rebuild_ready_) {
    for (size_t u : static_unused_) arrival_.push_back(u);  // torch pushes them at the end
  }
  std::vector<size_t> unused;
  for (size_t i = 0; i < params_.size(); ++i)
    if (!ready_[i]) unused.push_back(i);
  if (!unused.empty() && !options_.find_unused_parameters) {
    // The buckets already launched still complete (the other ranks launched them too).
    for (auto& b : buckets_)
      if (b.work) b.work->wait(Millis(-1));
    reset_iteration();
    std::ostringstream idx;
    for (size_t k = 0; k < unused.size(); ++k) idx << (k ? " " : "") << unused[k];
    fail(Code::State,
         "Expected to have finished reduction in the prior iteration before starting a new one. This error "
         "indicates that your module has parameters that were not used in producing loss. You can enable unused "
         "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
         "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs "
         "participate in calculating loss. \nParameter indices which did not receive grad for rank ",
         group_->rank(), ": ", idx.str());
  }
  // torch's mark_variable_ready for the unused: a .grad left from an earlier backward goes into the
  // bucket as it is (zeros when there is none), so it counts in the others' average.
  for (size_t i : unused) mark_ready(i);
  launch_ready_buckets();
  if (options_.find_unused_parameters || options_.static_graph) {
    std::vector<char> used(params_.size(), 1);
    if (options_.static_graph) {
      for (size_t i = 0; i < params_.size(); ++i) used[i] = hook_counts_[i] > 0;
    } else {
      for (size_t i : unused) used[i] = 0;
    }
    find_globally_unused(used);
  }
  std::exception_ptr err;
  for (auto& b : buckets_) {
    try {
      if (b.work) b.work->wait(Millis(-1));
    } catch (...) {
      if (!err) err = std::current_exception();
    }
  }
  if (err) {
    reset_iteration();
    std::rethrow_exception(err);
  }
  GradModeGuard no_grad(false);
  for (auto& b : buckets_) {
    if (hook_ == CommHook::Fp16Compress || hook_ == CommHook::Bf16Compress) ops::copy_(b.flat, b.compressed);
    for (size_t s = 0; s < b.params.size(); ++s) {
      if (!global_unused_.empty() && global_unused_[b.params[s]]) continue;  // Note [Globally unused parameters]
      AutogradMeta& m = autograd_meta(params_[b.params[s]]);
      if (options_.gradient_as_bucket_view) {
        if (m.grad.impl() != b.views[s].impl()) m.grad = b.views[s];
      } else if (m.grad.defined()) {
        ops::copy_(m.grad, b.views[s]);
      } else {
        m.grad = clone(b.views[s]);
      }
    }
  }
  if (should_rebuild() && arrival_.size() == params_.size()) rebuild_ready_ = true;
  reset_iteration();
}

}  // namespace glia::dist
