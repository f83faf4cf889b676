// DistributedDataParallel (Note [DDP]).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "distributed/process_group.h"
#include "nn/module.h"

namespace glia::dist {

// Note [DDP]
// torch's DistributedDataParallel over a glia module, a Module itself (its child is "module", so
// its state-dict keys are torch's "module.<name>"):
// - construction checks that every rank has the same parameters (count and shapes, torch's
//   message), then broadcasts parameters and buffers from rank 0;
// - the parameters that require grad are bucketed as torch's compute_bucket_assignment_by_size:
//   in registration order, one dtype per bucket, the bucket list reversed (the last layers, whose
//   gradients come first in backward, are reduced first). As torch 1.13 does, when the buckets will
//   be rebuilt (static_graph or not find_unused_parameters) the first iteration has one bucket per
//   dtype; otherwise the first bucket closes at 1 MiB (kFirstBucketBytes) and the others at
//   bucket_cap_mb;
// - bucket rebuild (torch's Reducer::rebuild_buckets): the first synchronised backward records the
//   order in which the gradients became ready (with static_graph the second, as torch: the first
//   one only counts hooks), and the next forward with grad mode on rebuilds the buckets once over
//   the parameters in that order (first bucket 1 MiB, then bucket_cap_mb, one dtype per bucket, no
//   sort), rank 0's assignment broadcast to every rank (torch's sync_bucket_indices). Gradients
//   that are views of the old buckets (gradient_as_bucket_view) are copied into the new ones and
//   redirected, so what no_sync accumulated is kept. Only when static_graph or not
//   find_unused_parameters (torch's should_rebuild_buckets);
// - a post-accumulate-grad hook per parameter copies its .grad into its bucket; a full bucket is
//   all-reduced (averaged) at once, in bucket order on every rank (a bucket waits for the ones
//   before it), so communication overlaps the rest of backward;
// - a callback queued at the end of backward launches what is left, waits for every bucket and
//   copies the averaged gradients back into .grad (in place);
// - a parameter that got no gradient is an error naming its index (torch's text), unless
//   find_unused_parameters: then its slot holds its .grad as it is (zeros when None) and it receives
//   the average, as torch's mark_variable_ready does.
// - require_backward_grad_sync = false (torch's no_sync()): backward accumulates locally only; the
//   next synchronised backward averages the accumulated gradients.
// - gradient_as_bucket_view: a parameter's .grad becomes its slice of the bucket when its gradient
//   is first copied there, so later backwards accumulate straight into the bucket and the reduced
//   values need no copy back (torch's option; zero_grad(set_to_none) drops the view, the next
//   backward makes it again).
// - a communication hook replaces the bucket's all-reduce (torch's register_comm_hook and
//   register_builtin_comm_hook, at most one): FP16_COMPRESS and BF16_COMPRESS (torch's
//   default_hooks.fp16_compress_hook / bf16_compress_hook: the bucket cast to the 16-bit type,
//   divided by the world size there, summed over the group, and cast back), or a host callback
//   that must leave the bucket's average in the bucket (it runs on backward's thread when the
//   bucket is ready, buckets in the same order on every rank).
// - static_graph (torch's static_graph=True / _set_static_graph()): the first synchronised backward
//   only counts how many times each parameter's hook fires and reduces everything at its end (torch's
//   delay_all_reduce); the parameters whose hook never fired are the unused ones. Later backwards
//   treat a parameter as ready after that many hook calls (a parameter whose gradient arrives in
//   several reentrant backwards, e.g. checkpointed twice, is reduced once, after its last
//   contribution) and mark the unused ones ready (their .grad, zero when none) at the first hook; a hook
//   of a parameter unused in the first iteration is torch's "Your training graph has changed" error.
// - a parameter unused on every rank (find_unused_parameters, static_graph) keeps its .grad as it was,
//   None staying None (Note [Globally unused parameters] in ddp.cpp).
// - the end-of-backward callback belongs to the outermost backward, even when the first gradient
//   arrives inside a reentrant (nested) one, e.g. the last layer under a reentrant checkpoint: forward
//   passes each output that has a grad_fn through a sink node of its own (torch's _DDPSink; the
//   output aliases the module's, no copy), whose backward runs in the outer backward before any
//   parameter's and queues the callback there. The callback does nothing when no hook fired in that backward
//   (torch.autograd.grad of the outputs, e.g. a gradient penalty, accumulates nothing). A hook that
//   fires with no callback queued (a gradient reached without the sink: an output DDP did not
//   return) queues it itself.
// Not torch's: torch 1.13 puts _DDPSink on the outputs only with find_unused_parameters or in a
// static graph's first iteration (where its callback is delay_all_reduce), and otherwise queues
// finalize_backward from the first hook, on whichever backward runs it; glia always does the former,
// and with one sink per output, not one for all (the engine fills a node's missing output gradients
// with zeros, which would make the parameters behind an output the loss does not use used).
struct DDPOptions {
  double bucket_cap_mb = 25;
  bool find_unused_parameters = false;
  bool broadcast_buffers = true;
  bool gradient_as_bucket_view = false;
  bool static_graph = false;
};

enum class CommHook { Allreduce = 0, Fp16Compress = 1, Bf16Compress = 2, Callback = 3 };
// A host hook: `bucket` is the flat gradient buffer of bucket `index` (of `count`), to be replaced in
// place by its average over the group.
using CommHookFn = std::function<void(const Tensor& bucket, size_t index, size_t count)>;

class DistributedDataParallel final : public nn::Module {
 public:
  static constexpr int64_t kFirstBucketBytes = 1024 * 1024;  // torch's _DEFAULT_FIRST_BUCKET_BYTES

  DistributedDataParallel(nn::ModuleRef module, Ref<ProcessGroup> group, const DDPOptions& options);
  ~DistributedDataParallel() override;
  TensorList forward(const TensorList& inputs) override;

  void set_require_backward_grad_sync(bool flag) { sync_ = flag; }
  bool require_backward_grad_sync() const { return sync_; }
  // Parameter indices per bucket (for tests and docs).
  std::vector<std::vector<size_t>> bucket_indices() const;
  // torch's register_comm_hook / register_builtin_comm_hook (kind Callback needs `fn`). Once only:
  // "register_comm_hook or register_builtin_comm_hook can only be called once." (State).
  void register_comm_hook(CommHook kind, CommHookFn fn = {});
  // torch's _set_static_graph(): before the first iteration only ("set_static_graph() should be called
  // before training loop starts and after DistributedDataParallel is constructed.", State).
  void set_static_graph();
  bool static_graph() const { return options_.static_graph; }

 private:
  struct Bucket {
    Tensor flat;                 // the bucket's contiguous buffer
    Tensor compressed;           // its 16-bit copy under a compression hook
    std::vector<size_t> params;  // indices into params_
    std::vector<Tensor> views;   // params' slices of flat, with their shapes
    size_t pending = 0;          // gradients still to come this backward
    Ref<Work> work;
  };
  void verify_same_model();
  std::vector<std::vector<size_t>> assign_buckets(const std::vector<size_t>& order, int64_t first_limit,
                                                  int64_t limit) const;
  void install_buckets(const std::vector<std::vector<size_t>>& assignment);
  bool should_rebuild() const { return (options_.static_graph || !options_.find_unused_parameters) && !rebuilt_; }
  void rebuild_buckets();
  TensorList sink(const TensorList& outputs);
  void queue_finalize();
  void on_grad_ready(size_t index);
  void mark_ready(size_t index);
  void launch_ready_buckets();
  void finalize();
  void find_globally_unused(const std::vector<char>& used);
  void reset_iteration();

  nn::ModuleRef module_;
  Ref<ProcessGroup> group_;
  DDPOptions options_;
  std::vector<Tensor> params_;
  std::vector<uint64_t> hook_ids_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_, slot_of_;
  std::vector<char> ready_;
  size_t next_bucket_ = 0;
  int64_t iterations_ = 0;             // synchronised forwards with grad mode on (torch's num_iterations_)
  std::vector<size_t> arrival_;        // gradient-arrival order of the iteration being recorded
  bool rebuild_ready_ = false;         // arrival_ holds every parameter: the next forward rebuilds
  bool rebuilt_ = false;               // once only
  std::vector<int64_t> hook_counts_;   // static_graph: hook calls per parameter in the first iteration
  std::vector<int64_t> hooks_left_;    // ... still expected in this iteration
  std::vector<size_t> static_unused_;  // static_graph: the parameters unused in the first iteration
  bool marked_unused_ = false;
  std::vector<char> global_unused_;   // Note [Globally unused parameters] (ddp.cpp); empty: none
  bool global_unused_known_ = false;  // static_graph: reduced once, after the first iteration
  bool callback_queued_ = false;
  bool hook_fired_ = false;  // a synchronised hook ran since the callback was queued
  // The sink nodes' way back here: cleared by the destructor, so that a graph that outlives this
  // module (forward, release, backward) finds nothing to call.
  std::shared_ptr<DistributedDataParallel*> self_;
  bool sync_ = true;
  bool hook_registered_ = false;
  CommHook hook_ = CommHook::Allreduce;
  CommHookFn hook_fn_;
};

}  // namespace glia::dist
