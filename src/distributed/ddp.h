// DistributedDataParallel (Note [DDP]).
#pragma once

#include <cstdint>
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
// Not (yet) torch's: buckets are not rebuilt in gradient-arrival order after the first iteration,
// gradient_as_bucket_view and communication hooks are absent, and with find_unused_parameters a
// parameter unused on every rank ends with a zero .grad where torch leaves it None.
struct DDPOptions {
  double bucket_cap_mb = 25;
  bool find_unused_parameters = false;
  bool broadcast_buffers = true;
};

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

 private:
  struct Bucket {
    Tensor flat;                 // the bucket's contiguous buffer
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
};

}  // namespace glia::dist
