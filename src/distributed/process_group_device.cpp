// Process groups over a device backend's collectives: NCCL for CUDA tensors (Note [Device process groups]).
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/backend.h"
#include "core/error.h"
#include "core/stream.h"
#include "distributed/process_group.h"

namespace glia::dist {

// Note [Device process groups]
// torch's ProcessGroupNCCL, over glia_backend.collectives (include/glia/glia_backend.h) so that libglia
// never links NCCL: the CUDA backend implements them with NCCL (cuda/nccl.cpp, which loads libnccl.so.2
// at the first use), the test device with an in-process version for CI machines without a GPU.
// - Creation: the stale-rendezvous checks of the Gloo group (Note [Stale rendezvous]); rank 0 makes the
//   communicator's unique id and sets it in the store under "<group>/nccl/unique_id"; every rank reads it
//   (waiting up to the timeout), checks that its device is usable, and joins the communicator (which
//   fails after the timeout when a rank never joins). Creation is eager, so a missing device, driver or
//   NCCL is reported by glia_process_group_create on every rank, not by the first collective.
// - Collectives: the tensors must live on the group's device. Each collective is queued on the caller's
//   current stream (made current on the worker thread: Note [Process groups]) and the Work completes
//   when an event recorded after it has completed, so Work.wait() means "done on the device" (torch's
//   wait() only orders the caller's stream after it; ours is stronger and simpler to use from C).
// - Watchdog: while waiting, the worker polls the event, the communicator's asynchronous error (a peer
//   failed) and the group's timeout. A failure or a timeout aborts the communicator, so the collective's
//   kernels on the device stop instead of hanging, and fails the Work with the collective and the rank
//   named; the group is then unusable, as torch's is after its watchdog fires.
namespace {

class ProcessGroupDevice final : public ProcessGroup {
 public:
  ProcessGroupDevice(Ref<Store> store, int rank, int size, Device device, const glia_backend& b, void* comm,
                     Millis timeout)
      : ProcessGroup(rank, size, timeout), store_(std::move(store)), b_(b), coll_(*b.collectives), comm_(comm) {
    device_ = device;
    name_ = coll_.name ? coll_.name : b.name;
  }
  ~ProcessGroupDevice() override {
    stop_worker();
    coll_.comm_destroy(comm_, aborted_ ? 1 : 0);
  }
  const char* backend_name() const override { return name_.c_str(); }

  void check_device(const char* what, const Tensor& t, const char* arg) const override {
    GLIA_CHECK(t.device() == device_, Device, "ProcessGroup", name_, "::", what, ": ", arg, " must be a tensor on ",
               device_, " (the group's device) for the ", name_, " backend, got a tensor on ", t.device());
  }

 protected:
  void run_allreduce(const Tensor& t, ReduceOp op) override {
    launch("allreduce", [&](void* stream) {
      return coll_.all_reduce(comm_, ptr(t), ptr(t), count(t), dtype(t), static_cast<int32_t>(op), stream);
    });
  }
  void run_broadcast(const Tensor& t, int root) override {
    launch("broadcast",
           [&](void* stream) { return coll_.broadcast(comm_, ptr(t), ptr(t), count(t), dtype(t), root, stream); });
  }
  void run_allgather(const Tensor& flat_out, const Tensor& input) override {
    launch("allgather", [&](void* stream) {
      return coll_.all_gather(comm_, ptr(input), ptr(flat_out), count(input), dtype(input), stream);
    });
  }
  void run_reduce(const Tensor& t, int root, ReduceOp op) override {
    // Other ranks' tensors stay as they were (the base class copies back on root only): NCCL's reduce
    // writes recv on root only, so one buffer serves as send and receive.
    launch("reduce", [&](void* stream) {
      return coll_.reduce(comm_, ptr(t), ptr(t), count(t), dtype(t), static_cast<int32_t>(op), root, stream);
    });
  }
  void run_reduce_scatter(const Tensor& output, const Tensor& flat_in, ReduceOp op) override {
    launch("reduce_scatter", [&](void* stream) {
      return coll_.reduce_scatter(comm_, ptr(flat_in), ptr(output), count(output), dtype(output),
                                  static_cast<int32_t>(op), stream);
    });
  }
  void run_barrier() override {
    // torch's ProcessGroupNCCL::barrier: an all-reduce of one element on the device.
    const int64_t shape[1] = {1};
    Tensor one = zeros(shape, DType::Float32, device_);
    run_allreduce(one, ReduceOp::Sum);
  }

 private:
  static size_t count(const Tensor& t) { return static_cast<size_t>(t.numel()); }
  // The device address of a contiguous tensor's first element (never read here: Tensor::data() refuses).
  static void* ptr(const Tensor& t) { return t.numel() ? t.impl()->data() : nullptr; }
  static glia_dtype dtype(const Tensor& t) { return static_cast<glia_dtype>(t.dtype()); }

  // Queues one collective on the current stream, then waits for it under the watchdog.
  template <class F>
  void launch(const char* what, F queue) {
    void* stream = b_.current_stream(device_.index);
    if (glia_error* e = queue(stream)) fail_backend(what, e);
    if (!GLIA_BACKEND_HAS(b_, event_query)) {
      // A backend without queries: wait for the stream (no timeout possible here).
      BackendEvent ev(b_, device_.index, stream);
      if (glia_error* e = b_.event_synchronize(ev.handle())) fail_backend(what, e);
      return;
    }
    BackendEvent ev(b_, device_.index, stream);
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    auto nap = std::chrono::microseconds(20);
    while (true) {
      int32_t done = 0;
      if (glia_error* e = b_.event_query(ev.handle(), &done)) fail_backend(what, e);
      if (done) break;
      if (glia_error* e = coll_.comm_error(comm_)) fail_backend(what, e);
      if (std::chrono::steady_clock::now() >= deadline) {
        aborted_ = true;
        fail_collective(what, "timed out after " + std::to_string(timeout_.count()) +
                                  " ms (a rank did not join the collective, or the device hangs); the communicator "
                                  "was aborted");
      }
      std::this_thread::sleep_for(nap);
      if (nap < std::chrono::microseconds(1000)) nap *= 2;
    }
    if (glia_error* e = coll_.comm_error(comm_)) fail_backend(what, e);
  }

  [[noreturn]] void fail_backend(const char* what, glia_error* e) {
    aborted_ = true;
    std::string msg = glia_error_message(e);
    glia_error_free(e);
    fail_collective(what, msg);
  }

  Ref<Store> store_;  // kept, as the Gloo group keeps its store (the TCP store's server may live here)
  const glia_backend& b_;
  const glia_backend_collectives& coll_;
  void* comm_;
  std::string name_;
  bool aborted_ = false;  // the worker thread's: set when a collective failed
};

bool has_collectives(const glia_backend& b) {
  return GLIA_BACKEND_HAS(b, collectives) && b.collectives->struct_size >= sizeof(glia_backend_collectives) &&
         b.collectives->unique_id && b.collectives->comm_init && b.collectives->comm_destroy &&
         b.collectives->comm_error && b.collectives->all_reduce && b.collectives->broadcast && b.collectives->reduce &&
         b.collectives->all_gather && b.collectives->reduce_scatter && b.collectives->unique_id_size > 0 &&
         b.collectives->unique_id_size <= 4096;
}

std::string take_message(glia_error* e) {
  std::string m = glia_error_message(e);
  glia_error_free(e);
  return m;
}

}  // namespace

Ref<ProcessGroup> make_process_group_device(Ref<Store> store, int rank, int size, Device device,
                                            const ProcessGroupOptions& o) {
  const char* who = device.type == DeviceType::CUDA ? "ProcessGroupNCCL" : "ProcessGroupDevice";
  GLIA_CHECK(store, InvalidArgument, who, ": the store is null");
  GLIA_CHECK(size >= 1, InvalidArgument, who, ": world size must be positive, got ", size);
  GLIA_CHECK(rank >= 0 && rank < size, InvalidArgument, who, ": invalid rank ", rank, " for world size ", size);
  GLIA_CHECK(o.timeout.count() > 0, InvalidArgument, who, ": timeout must be positive, got ", o.timeout.count(), " ms");
  GLIA_CHECK(!device.is_cpu(), InvalidArgument, who, ": the device must not be the CPU (use the Gloo backend)");
  const glia_backend* b = backend_for(device.type);
  GLIA_CHECK(b, Device, who, ": rank ", rank, ": no backend for ", device_type_name(device.type), " devices (",
             backend_status(device.type), ")");
  GLIA_CHECK(has_collectives(*b), Unsupported, who, ": the ", b->name,
             " backend has no collectives (glia_backend.collectives), so no NCCL-style process group on its devices");
  const glia_backend_collectives& c = *b->collectives;

  Ref<Store> group = make_ref<PrefixStore>(o.group_name, store);
  group->set_timeout(o.timeout);
  check_rendezvous(*group, rank, size, o.group_name, who);

  // The communicator's id: made by rank 0, read by the others (waiting up to the timeout).
  Bytes id(c.unique_id_size);
  if (rank == 0) {
    if (glia_error* e = c.unique_id(id.data()))
      fail(Code::IO, who, ": rank 0 could not make the communicator's unique id: ", take_message(e));
    group->set("nccl/unique_id", id);
  } else {
    try {
      id = group->get("nccl/unique_id");
    } catch (const Error& e) {
      fail(e.code(), who, ": rank ", rank, " of ", size, " did not get rank 0's communicator id: ", e.message());
    }
    GLIA_CHECK(id.size() == c.unique_id_size, State, who, ": rank ", rank, ": the store's communicator id has ",
               id.size(), " bytes, expected ", c.unique_id_size);
  }

  // The device: -1 is LOCAL_RANK's, else rank % count (torch's guess without a set device).
  const int32_t count = backend_device_count(device.type);
  GLIA_CHECK(count > 0, Device, who, ": rank ", rank, " of ", size, " has no usable ", device_type_name(device.type),
             " device (", backend_status(device.type), ")");
  if (device.index < 0) {
    int64_t local = rank;
    if (const char* lr = std::getenv("LOCAL_RANK"); lr && *lr) {
      char* end = nullptr;
      local = std::strtoll(lr, &end, 10);
      GLIA_CHECK(*end == '\0' && local >= 0, InvalidArgument, who, ": LOCAL_RANK is '", lr,
                 "', not a non-negative integer");
    }
    device.index = static_cast<int32_t>(local % count);
  }
  GLIA_CHECK(device.index < count, Device, who, ": rank ", rank, ": device ", device, " does not exist (", count, " ",
             device_type_name(device.type), " device", count == 1 ? "" : "s", ")");

  void* comm = nullptr;
  if (glia_error* e = c.comm_init(id.data(), size, rank, device.index, o.timeout.count(), &comm))
    fail(Code::IO, who, ": rank ", rank, " of ", size, " could not join the communicator on ", device, ": ",
         take_message(e));
  return make_ref<ProcessGroupDevice>(store, rank, size, device, *b, comm, o.timeout);
}

}  // namespace glia::dist
