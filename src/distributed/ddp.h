// DistributedDataParallel (Note [DDP]).
#pragma once

#include <cstdint>
#include <functional>
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
//   in registration order, one dtype per bucket, the first bucket closed at 1 MiB and the others at
//   bucket_cap_mb, and the bucket list reversed (the last layers, whose gradients come first in
//   backward, are reduced first);
// - a post-accumulate-grad hook per parameter copies its .grad into its bucket; a full bucket is
//   all-reduced (averaged) at once, in bucket order on every rank (a bucket waits for the ones
//   before it), so communication overlaps the rest of backward;
// - a callback queued at the end of backward launches what is left, waits for every bucket and
//   copies the averaged gradients back into .grad (in place);
// - a parameter that got no gradient is an error naming its index (torch's text), unless
//   find_unused_parameters: then its slot is zero and it receives the average of the others'.
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
// Not (yet) torch's: buckets are not rebuilt in gradient-arrival order after the first iteration,
// and with find_unused_parameters a parameter unused on every rank ends with a zero .grad where
// torch leaves it None.
struct DDPOptions {
  double bucket_cap_mb = 25;
  bool find_unused_parameters = false;
  bool broadcast_buffers = true;
  bool gradient_as_bucket_view = false;
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
  void on_grad_ready(size_t index);
  void launch_ready_buckets();
  void finalize();
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
  bool callback_queued_ = false;
  bool sync_ = true;
  bool hook_registered_ = false;
  CommHook hook_ = CommHook::Allreduce;
  CommHookFn hook_fn_;
};

}  // namespace glia::dist
