// The backend-neutral half of process groups: argument checks, the worker thread, Work
// (Note [Process groups] in process_group.h).
#include "distributed/process_group.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/stream.h"
#include "ops/elementwise.h"
#include "ops/index.h"

namespace glia::dist {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "sum";
    case ReduceOp::Avg:
      return "avg";
    case ReduceOp::Product:
      return "product";
    case ReduceOp::Min:
      return "min";
    case ReduceOp::Max:
      return "max";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Work

bool Work::wait(Millis timeout) {
  std::unique_lock<std::mutex> g(mu_);
  if (timeout.count() < 0) {
    cv_.wait(g, [&] { return done_; });
  } else if (!cv_.wait_for(g, timeout, [&] { return done_; })) {
    return false;
  }
  // A fresh Error each time: the worker's exception object never crosses threads (Note [Work errors]).
  if (failed_) throw Error(error_code_, error_message_);
  return true;
}

bool Work::is_completed() {
  std::lock_guard<std::mutex> g(mu_);
  return done_;
}

bool Work::is_success() {
  std::lock_guard<std::mutex> g(mu_);
  return done_ && !failed_;
}

// Note [Work errors]
// The worker thread catches a collective's failure; the thread that waits reports it. Handing the
// exception object itself across (an exception_ptr rethrown by wait) would share one heap object
// between threads whose reference count libstdc++ changes with atomics that ThreadSanitizer
// cannot see, and every waiter would read the same message buffer. So finish copies the code and
// the message out, on the worker, and wait throws a new Error from the copy.
void Work::finish(std::exception_ptr error) {
  Code code = Code::Ok;
  std::string message;
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const Error& e) {
      code = e.code();
      message = e.message();
    } catch (const std::exception& e) {
      code = Code::Internal;
      message = e.what();
    } catch (...) {
      code = Code::Internal;
      message = "ProcessGroup: " + what_ + " failed with an unknown exception";
    }
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    failed_ = error != nullptr;
    error_code_ = code;
    error_message_ = std::move(message);
    done_ = true;
    keep_alive.clear();
    run = nullptr;
  }
  cv_.notify_all();
}

// ---------------------------------------------------------------------------------------------
// ProcessGroup

ProcessGroup::~ProcessGroup() { stop_worker(); }

void ProcessGroup::stop_worker() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProcessGroup::fail_collective(const char* what, const std::string& why) const {
  fail(Code::IO, "ProcessGroup", backend_name(), "::", what, " failed on rank ", rank_, " of ", size_, ": ", why);
}

Ref<Work> ProcessGroup::enqueue(const char* what, std::vector<Tensor> keep, std::function<void()> body) {
  Ref<Work> w = make_ref<Work>(what);
  w->keep_alive = std::move(keep);
  if (!device_.is_cpu()) {
    // The caller's current stream of the group's device becomes the worker's (Note [Process groups]).
    Ref<Stream> st = current_stream(device_, what);
    w->run = [st, b = std::move(body), what] {
      set_current_stream(*st, what);
      b();
    };
  } else {
    w->run = std::move(body);
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    GLIA_CHECK(!stop_, State, "ProcessGroup", backend_name(), "::", what, ": the process group is shut down");
    if (!thread_.joinable()) thread_ = std::thread([this] { worker(); });
    queue_.push_back(w);
  }
  cv_.notify_one();
  return w;
}

void ProcessGroup::worker() {
  // Note [SIGPIPE] (process_group.h): this thread writes to the peers; it never unblocks SIGPIPE.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  while (true) {
    Ref<Work> w;
    {
      std::unique_lock<std::mutex> g(mu_);
      cv_.wait(g, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      w = queue_.front();
      queue_.pop_front();
    }
    std::exception_ptr err;
    try {
      if (broken_) fail_collective(w->what().c_str(), "an earlier collective failed (" + broken_reason_ + ")");
      w->run();
    } catch (const Error& e) {
      if (!broken_) {
        broken_ = true;
        broken_reason_ = e.message();
      }
      err = std::current_exception();
    } catch (const std::exception& e) {
      // A backend error that escaped translation: name the collective anyway.
      try {
        fail_collective(w->what().c_str(), e.what());
      } catch (...) {
        err = std::current_exception();
      }
      broken_ = true;
      broken_reason_ = e.what();
    } catch (...) {
      err = std::current_exception();
      broken_ = true;
      broken_reason_ = "unknown error";
    }
    w->finish(err);
  }
}

namespace {

void check_tensor(const ProcessGroup& pg, const char* what, const Tensor& t, const char* arg) {
  GLIA_CHECK(t.defined(), InvalidArgument, "ProcessGroup", pg.backend_name(), "::", what, ": ", arg, " is undefined");
  pg.check_device(what, t, arg);
  DType d = t.dtype();
  // torch's ProcessGroupGloo types (GENERATE_ALL_TYPES: int8 but not int16), plus bfloat16 (which
  // torch 1.13's Gloo lacks and its bf16 compression hook needs). The 16-bit floats reduce in float.
  GLIA_CHECK(d == DType::Float32 || d == DType::Float64 || d == DType::Float16 || d == DType::BFloat16 ||
                 d == DType::Int32 || d == DType::Int64 || d == DType::Int8 || d == DType::UInt8,
             DType, "ProcessGroup", pg.backend_name(), "::", what, ": ", arg, " has dtype ", dtype_name(d),
             ", expected float32, float64, float16, bfloat16, int32, int64, int8 or uint8");
}

void check_root(const ProcessGroup& pg, const char* what, int root) {
  GLIA_CHECK(root >= 0 && root < pg.size(), InvalidArgument, "ProcessGroup", pg.backend_name(), "::", what,
             ": invalid root rank: ", root);
}

void check_op(const ProcessGroup& pg, const char* what, ReduceOp op, DType d) {
  int v = static_cast<int>(op);
  GLIA_CHECK(v >= 0 && v <= 4, InvalidArgument, "ProcessGroup", pg.backend_name(), "::", what, ": unknown reduce op ",
             v);
  GLIA_CHECK(
      op != ReduceOp::Avg || d == DType::Float32 || d == DType::Float64 || d == DType::Float16 || d == DType::BFloat16,
      DType, "ProcessGroup", pg.backend_name(), "::", what, ": ReduceOp avg needs a floating-point tensor, got ",
      dtype_name(d));
}

// A contiguous tensor to communicate through: `t` itself, or a copy (copied back by `finish`).
struct Staged {
  Tensor user, buf;
  explicit Staged(const Tensor& t) : user(t), buf(t.is_contiguous() ? t : empty(t.shape(), t.dtype(), t.device())) {
    if (!buf.is_same(user)) ops::copy_(buf, user);
  }
  void finish() const {
    if (!buf.is_same(user)) ops::copy_(user, buf);
  }
};

}  // namespace

Ref<Work> ProcessGroup::allreduce(const Tensor& tensor, ReduceOp op) {
  check_tensor(*this, "allreduce", tensor, "tensor");
  check_op(*this, "allreduce", op, tensor.dtype());
  Staged s(tensor);
  return enqueue("allreduce", {s.user, s.buf}, [this, s, op] {
    run_allreduce(s.buf, op);
    s.finish();
  });
}

Ref<Work> ProcessGroup::broadcast(const Tensor& tensor, int root) {
  check_tensor(*this, "broadcast", tensor, "tensor");
  check_root(*this, "broadcast", root);
  Staged s(tensor);
  return enqueue("broadcast", {s.user, s.buf}, [this, s, root] {
    run_broadcast(s.buf, root);
    s.finish();
  });
}

Ref<Work> ProcessGroup::reduce(const Tensor& tensor, int root, ReduceOp op) {
  check_tensor(*this, "reduce", tensor, "tensor");
  check_root(*this, "reduce", root);
  check_op(*this, "reduce", op, tensor.dtype());
  Staged s(tensor);
  int me = rank_;
  return enqueue("reduce", {s.user, s.buf}, [this, s, root, op, me] {
    run_reduce(s.buf, root, op);
    if (me == root) s.finish();
  });
}

Ref<Work> ProcessGroup::allgather(const std::vector<Tensor>& outputs, const Tensor& input) {
  check_tensor(*this, "allgather", input, "input");
  GLIA_CHECK(static_cast<int64_t>(outputs.size()) == size_, InvalidArgument, "ProcessGroup", backend_name(),
             "::allgather: invalid output tensor list at index 0 (expected length ", size_, ", got ", outputs.size(),
             ")");
  for (size_t i = 0; i < outputs.size(); ++i) {
    check_tensor(*this, "allgather", outputs[i], "an output tensor");
    GLIA_CHECK(outputs[i].dtype() == input.dtype(), DType, "ProcessGroup", backend_name(),
               "::allgather: invalid tensor type at index ", i, " (expected ", dtype_name(input.dtype()), ", got ",
               dtype_name(outputs[i].dtype()), ")");
    GLIA_CHECK(outputs[i].shape() == input.shape(), Shape, "ProcessGroup", backend_name(),
               "::allgather: invalid tensor size at index ", i, " (expected ", IntSpan(input.shape()), ", got ",
               IntSpan(outputs[i].shape()), ")");
  }
  Tensor in = input.is_contiguous() ? input : Staged(input).buf;
  Dims flat_shape = input.shape();
  flat_shape.insert(0, size_);
  Tensor flat = empty(flat_shape, input.dtype(), input.device());
  std::vector<Tensor> keep = outputs;
  keep.push_back(in);
  keep.push_back(flat);
  return enqueue("allgather", std::move(keep), [this, outputs, in, flat] {
    run_allgather(flat, in);
    for (size_t r = 0; r < outputs.size(); ++r) ops::copy_(outputs[r], ops::select(flat, 0, static_cast<int64_t>(r)));
  });
}

Ref<Work> ProcessGroup::reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op) {
  check_tensor(*this, "reduce_scatter", output, "output");
  check_op(*this, "reduce_scatter", op, output.dtype());
  GLIA_CHECK(static_cast<int64_t>(inputs.size()) == size_, InvalidArgument, "ProcessGroup", backend_name(),
             "::reduce_scatter: invalid input tensor list (expected length ", size_, ", got ", inputs.size(), ")");
  for (size_t i = 0; i < inputs.size(); ++i) {
    check_tensor(*this, "reduce_scatter", inputs[i], "an input tensor");
    GLIA_CHECK(inputs[i].dtype() == output.dtype(), DType, "ProcessGroup", backend_name(),
               "::reduce_scatter: invalid tensor type at index ", i, " (expected ", dtype_name(output.dtype()),
               ", got ", dtype_name(inputs[i].dtype()), ")");
    GLIA_CHECK(inputs[i].shape() == output.shape(), Shape, "ProcessGroup", backend_name(),
               "::reduce_scatter: invalid tensor size at index ", i, " (expected ", IntSpan(output.shape()), ", got ",
               IntSpan(inputs[i].shape()), ")");
  }
  // The inputs concatenated, on the calling thread (so in order with the caller's work on its stream).
  Dims flat_shape = output.shape();
  flat_shape.insert(0, size_);
  Tensor flat = empty(flat_shape, output.dtype(), output.device());
  for (size_t r = 0; r < inputs.size(); ++r) ops::copy_(ops::select(flat, 0, static_cast<int64_t>(r)), inputs[r]);
  Staged s(output);
  return enqueue("reduce_scatter", {s.user, s.buf, flat}, [this, s, flat, op] {
    run_reduce_scatter(s.buf, flat, op);
    s.finish();
  });
}

void ProcessGroup::check_device(const char* what, const Tensor& t, const char* arg) const {
  GLIA_CHECK(t.device().is_cpu(), Device, "ProcessGroup", backend_name(), "::", what, ": ", arg,
             " must be a CPU tensor for the ", backend_name(), " backend, got a tensor on ", t.device());
}

void ProcessGroup::run_reduce_scatter(const Tensor& output, const Tensor& flat_in, ReduceOp op) {
  run_allreduce(flat_in, op);
  ops::copy_(output, ops::select(flat_in, 0, rank_));
}

void check_rendezvous(Store& group, int rank, int size, const std::string& group_name, const char* who) {
  std::string sz = std::to_string(size);
  Bytes want(sz.begin(), sz.end());
  Bytes got = group.compare_set("init/world_size", {}, want);
  GLIA_CHECK(got == want, InvalidArgument, who, ": rank ", rank, " was given world size ", size,
             " but the store holds world size ", std::string(got.begin(), got.end()), " for group '", group_name,
             "' (a wrong world size, or a store left by an earlier run)");
  int64_t arrived = group.add("init/arrived", 1);
  GLIA_CHECK(arrived <= size, State, who, ": rank ", rank, " is arrival ", arrived, " at group '", group_name,
             "' of world size ", size,
             ": the store already holds the rendezvous of an earlier run (a stale FileStore file or a reused "
             "TCPStore server); use a fresh store");
}

Ref<Work> ProcessGroup::barrier() {
  return enqueue("barrier", {}, [this] { run_barrier(); });
}

}  // namespace glia::dist
