// Process groups and their work handles (Note [Process groups]).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/refcount.h"
#include "core/tensor.h"
#include "distributed/store.h"

namespace glia::dist {

// Note [Process groups]
// A ProcessGroup is torch's c10d::ProcessGroup: `size` processes that run the same collectives in
// the same order. Each collective checks its arguments on the calling thread (errors there change
// nothing), then is queued to the group's worker thread and returns a Work; the caller waits on it
// (torch's async_op=True) or the C API waits for it at once. The tensors stay referenced by the
// Work until it completes. A collective that fails (a peer died, the timeout passed) fails its
// Work with Error(IO) naming the collective and the rank; the group is then unusable (Gloo's
// pairs are closed), as torch's is. A backend implements run_*: ProcessGroupGloo on CPU tensors, and
// ProcessGroupDevice (NCCL) on tensors of one device, through the backend's collectives. Every
// collective's body runs on the worker thread with the caller's current stream of the group's
// device made current there, so the copies and the collective are ordered after the caller's work.
enum class ReduceOp : int32_t { Sum = 0, Avg = 1, Product = 2, Min = 3, Max = 4 };
const char* reduce_op_name(ReduceOp op);

class Work : public RefCounted {
 public:
  explicit Work(std::string what) : what_(std::move(what)) {}
  // Waits up to timeout (negative: no limit beyond the collective's own); rethrows a failure.
  // Returns false when the timeout passed first.
  bool wait(Millis timeout);
  bool is_completed();
  bool is_success();
  const std::string& what() const { return what_; }

  // For the backends.
  void finish(std::exception_ptr error);
  std::vector<Tensor> keep_alive;
  std::function<void()> run;

 private:
  std::string what_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  bool failed_ = false;  // Note [Work errors] (process_group.cpp)
  Code error_code_ = Code::Ok;
  std::string error_message_;
};

struct ProcessGroupOptions {
  Millis timeout{Store::kDefaultTimeout};
  std::string hostname;  // address the group's sockets bind to (default: this host's name, else loopback)
  std::string iface;     // or a network interface (GLOO_SOCKET_IFNAME's role)
  std::string group_name = "default";
  bool nccl = false;  // the device backend's collectives (make_process_group_device) instead of Gloo
  Device device{DeviceType::CUDA, -1};
};

class ProcessGroup : public RefCounted {
 public:
  ProcessGroup(int rank, int size, Millis timeout) : rank_(rank), size_(size), timeout_(timeout) {}
  ~ProcessGroup() override;
  int rank() const { return rank_; }
  int size() const { return size_; }
  Millis timeout() const { return timeout_; }
  virtual const char* backend_name() const = 0;

  // In place, as torch's: every rank's `tensor` ends up with the reduction.
  Ref<Work> allreduce(const Tensor& tensor, ReduceOp op);
  Ref<Work> broadcast(const Tensor& tensor, int root);
  // outputs[r] receives rank r's input (torch's all_gather(tensor_list, tensor)).
  Ref<Work> allgather(const std::vector<Tensor>& outputs, const Tensor& input);
  // Only `root`'s tensor receives the reduction (torch leaves the others' unspecified; ours unchanged).
  Ref<Work> reduce(const Tensor& tensor, int root, ReduceOp op);
  // output receives the reduction of every rank's inputs[rank] (torch's reduce_scatter).
  Ref<Work> reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op);
  Ref<Work> barrier();

  // The device of the group's tensors: the CPU for Gloo, one device for a device backend (NCCL).
  Device device() const { return device_; }
  // Throws Error(Device) unless `t` lives where this backend communicates (`arg` names it).
  virtual void check_device(const char* what, const Tensor& t, const char* arg) const;

 protected:
  // Backends: the collectives on checked, contiguous CPU tensors, run on the worker thread.
  virtual void run_allreduce(const Tensor& t, ReduceOp op) = 0;
  virtual void run_broadcast(const Tensor& t, int root) = 0;
  virtual void run_allgather(const Tensor& flat_out, const Tensor& input) = 0;
  virtual void run_reduce(const Tensor& t, int root, ReduceOp op) = 0;
  virtual void run_barrier() = 0;
  // output = the reduction of every rank's block `rank` of flat_in ([size, *output.shape], contiguous).
  // Default: all-reduce flat_in and keep this rank's block (size times the traffic of a ring reduce-scatter).
  virtual void run_reduce_scatter(const Tensor& output, const Tensor& flat_in, ReduceOp op);
  // The Work for `what`, queued; `body` runs on the worker thread.
  Ref<Work> enqueue(const char* what, std::vector<Tensor> keep, std::function<void()> body);
  void stop_worker();
  [[noreturn]] void fail_collective(const char* what, const std::string& why) const;

  int rank_;
  int size_;
  Millis timeout_;
  Device device_{};  // set by device backends' constructors

 private:
  void worker();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Ref<Work>> queue_;
  bool stop_ = false;
  bool broken_ = false;  // a collective failed: later ones fail at once
  std::string broken_reason_;
  std::thread thread_;
};

// Creates the Gloo process group: rendezvous through `store` (under "<group_name>/"), TCP pairs
// between all ranks. Error(Unsupported) when glia was built without Gloo.
Ref<ProcessGroup> make_process_group_gloo(Ref<Store> store, int rank, int size, const ProcessGroupOptions& options);
bool have_gloo();

// Creates a process group over the collectives of `device`'s backend (NCCL for CUDA; Note [Device
// process groups] in process_group_device.cpp): rank 0's communicator id goes through `store` (under
// "<group_name>/"), then every rank joins the communicator on `device`. An index of -1 picks
// LOCAL_RANK when set, else rank % the device count.
Ref<ProcessGroup> make_process_group_device(Ref<Store> store, int rank, int size, Device device,
                                            const ProcessGroupOptions& options);
// Throws unless the rendezvous under `group` is fresh and every rank gives world size `size`
// (Note [Stale rendezvous] in process_group_gloo.cpp); `who` names the backend in messages.
void check_rendezvous(Store& group, int rank, int size, const std::string& group_name, const char* who);

}  // namespace glia::dist
