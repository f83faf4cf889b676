// torch.nn.DataParallel (Note [DataParallel] in data_parallel.h).
#include "nn/modules/data_parallel.h"

#include <algorithm>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "autograd/fn/index.h"
#include "autograd/fn/shape.h"
#include "autograd/grad_mode.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/log.h"
#include "core/stream.h"
#include "nn/modules/lazy.h"

namespace glia::nn {

namespace {

// One replica's copy of `t` on `device`: differentiable when grad mode is on and `t` requires grad
// (torch's Broadcast), else a plain copy (torch's broadcast_coalesced with detach); `t` itself when it
// is on `device` already.
Tensor replicate_tensor(const Tensor& t, Device device) {
  if (!t.defined()) return t;
  if (grad_mode_enabled() && t.requires_grad()) return to_with_grad(t, device, t.dtype());
  return to_device(t, device);
}

// Every module of the tree (each once) with its tensors on `device`.
void fill_replica(Module& root, Device device, ReplicaTensors& out) {
  for (const NamedModule& nm : root.named_modules()) {
    const Module* m = nm.module.get();
    ReplicaTensors::Entries& e = out.of(m);
    for (const NamedTensor& p : m->local_parameters()) e.params.push_back({p.name, replicate_tensor(p.value, device)});
    for (const NamedTensor& b : m->local_buffers()) e.buffers.push_back({b.name, replicate_tensor(b.value, device)});
    for (const NamedTensor& a : m->local_tensor_attributes())
      e.attrs.push_back({a.name, replicate_tensor(a.value, device)});
  }
}

// What a replica's thread inherits from the caller (torch's parallel_apply sets grad mode and the
// device's current stream in each thread); the stream is the caller's current one of the replica's device.
struct ThreadState {
  bool grad = true;
  bool inference = false;
};

// `d`'s index names one of its backend's devices ("device_ids[1]", "output_device" in the message).
void check_index(Device d, const std::string& what) {
  int32_t count = backend_device_count(d.type);
  GLIA_CHECK(d.index >= 0 && d.index < count, Device, "DataParallel: ", what, " is ", device_type_name(d.type), ":",
             d.index, ", but ", device_type_name(d.type), " has ", count, " device", count == 1 ? "" : "s");
}

// Joins the replicas' threads on every way out (a joinable std::thread's destructor terminates).
struct JoinAll {
  std::vector<std::thread>& threads;
  ~JoinAll() {
    for (std::thread& t : threads)
      if (t.joinable()) t.join();
  }
};

struct ReplicaResult {
  TensorList outputs;
  bool failed = false;
  Code code = Code::Internal;
  std::string message;
};

void run_replica(Module& m, ReplicaTensors& tensors, const TensorList& inputs, const ThreadState& st,
                 const Stream& stream, ReplicaResult& r) {
  try {
    set_inference_mode(st.inference);
    set_grad_mode(st.grad);
    set_current_stream(stream, "DataParallel");
    ReplicaGuard bind(&tensors);
    r.outputs = m.call(inputs);
  } catch (const Error& e) {
    r.failed = true;
    r.code = e.code();
    r.message = e.what();
  } catch (const std::bad_alloc&) {
    r.failed = true;
    r.code = Code::OutOfMemory;
    r.message = "out of memory";
  } catch (const std::exception& e) {
    r.failed = true;
    r.message = e.what();
  }
}

}  // namespace

DataParallel::DataParallel(ModuleRef module, std::vector<Device> device_ids, std::optional<Device> output_device,
                           int64_t dim)
    : Module("DataParallel"), module_(std::move(module)), device_ids_(std::move(device_ids)), dim_(dim) {
  GLIA_CHECK(module_, InvalidArgument, "DataParallel: module is null");
  for (size_t i = 0; i < device_ids_.size(); ++i) {
    Device d = device_ids_[i];
    GLIA_CHECK(!d.is_cpu(), Device, "DataParallel: device_ids[", i,
               "] is the CPU; DataParallel replicates over the devices of a backend (cuda or another loaded "
               "one), pass no device_ids to run on the CPU");
    GLIA_CHECK(d.type == device_ids_[0].type, Device, "DataParallel: device_ids[", i, "] is ", d,
               ", expected a device of the type of device_ids[0] (", device_type_name(device_ids_[0].type), ")");
    check_index(d, "device_ids[" + std::to_string(i) + "]");
    for (size_t j = 0; j < i; ++j)
      GLIA_CHECK(!(device_ids_[j] == d), InvalidArgument, "DataParallel: device_ids[", i, "] repeats device_ids[", j,
                 "] (", d, ")");
  }
  if (output_device) {
    if (!output_device->is_cpu()) check_index(*output_device, "output_device");
    output_device_ = *output_device;
  } else if (!device_ids_.empty()) {
    output_device_ = device_ids_[0];
  }
  register_module("module", module_);
  // torch moves the module when there is one device.
  if (device_ids_.size() == 1) module_->to(device_ids_[0], std::nullopt);
}

TensorList DataParallel::forward(const TensorList& inputs) {
  if (device_ids_.empty()) return module_->call(inputs);
  const Device src = device_ids_[0];
  for (const TensorList& ts : {module_->parameters(), module_->buffers()})
    for (const Tensor& t : ts)
      GLIA_CHECK(t.device() == src, Device, "module must have its parameters and buffers on device ", src,
                 " (device_ids[0]) but found one of them on device: ", t.device());
  for (const NamedModule& nm : module_->named_modules())
    GLIA_CHECK(!has_uninitialized_params(*nm.module), State,
               "Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy forward pass "
               "to correctly initialize the modules");

  // Scatter: torch.chunk along dim, as many replicas as the input with the fewest chunks has.
  for (size_t k = 0; k < inputs.size(); ++k)
    GLIA_CHECK(inputs[k].defined(), InvalidArgument, "DataParallel.forward: input ", k + 1, " of ", inputs.size(),
               " is None, expected a Tensor");
  size_t replicas = device_ids_.size();
  std::vector<std::vector<Tensor>> chunks(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    chunks[k] = chunk(inputs[k], static_cast<int64_t>(device_ids_.size()), dim_);
    replicas = std::min(replicas, chunks[k].size());
  }
  if (inputs.empty()) replicas = 1;  // torch: no inputs, one replica
  std::vector<TensorList> shards(replicas);
  for (size_t i = 0; i < replicas; ++i)
    for (size_t k = 0; k < inputs.size(); ++k)
      shards[i].push_back(to_with_grad(chunks[k][i], device_ids_[i], chunks[k][i].dtype()));
  if (device_ids_.size() == 1) return module_->call(shards[0]);

  std::vector<ReplicaTensors> tensors(replicas);
  for (size_t i = 0; i < replicas; ++i) fill_replica(*module_, device_ids_[i], tensors[i]);
  const ThreadState state{grad_mode_enabled(), inference_mode()};
  std::vector<Ref<Stream>> streams(replicas);
  for (size_t i = 0; i < replicas; ++i) streams[i] = current_stream(device_ids_[i], "DataParallel");

  // Replica 0 on this thread (whose modes and stream are already the ones it needs), the others on
  // threads of their own (torch's parallel_apply).
  std::vector<ReplicaResult> results(replicas);
  std::vector<std::thread> threads;
  threads.reserve(replicas - 1);
  {
    JoinAll join{threads};
    for (size_t i = 1; i < replicas; ++i) {
      try {
        threads.emplace_back(run_replica, std::ref(*module_), std::ref(tensors[i]), std::cref(shards[i]),
                             std::cref(state), std::cref(*streams[i]), std::ref(results[i]));
      } catch (const std::system_error& e) {
        results[i].failed = true;
        results[i].code = Code::OutOfMemory;
        results[i].message = std::string("could not start its thread: ") + e.what();
      }
    }
    run_replica(*module_, tensors[0], shards[0], state, *streams[0], results[0]);
  }
  for (size_t i = 0; i < replicas; ++i)
    if (results[i].failed)
      fail(results[i].code, "DataParallel: caught an error in replica ", i, " on device ", device_ids_[i], ": ",
           results[i].message);

  // Gather: output j of every replica, concatenated along dim on output_device.
  const size_t n_out = results[0].outputs.size();
  for (size_t i = 1; i < replicas; ++i)
    GLIA_CHECK(results[i].outputs.size() == n_out, InvalidArgument, "DataParallel: replica ", i, " returned ",
               results[i].outputs.size(), " outputs, replica 0 returned ", n_out);
  TensorList out;
  out.reserve(n_out);
  for (size_t j = 0; j < n_out; ++j) {
    std::vector<Tensor> parts;
    parts.reserve(replicas);
    bool all_scalars = true;
    for (size_t i = 0; i < replicas; ++i) {
      const Tensor& o = results[i].outputs[j];
      GLIA_CHECK(o.defined(), InvalidArgument, "DataParallel: output ", j, " of replica ", i,
                 " is None; DataParallel gathers tensors");
      all_scalars = all_scalars && o.dim() == 0;
      parts.push_back(to_with_grad(o, output_device_, o.dtype()));
    }
    if (all_scalars && dim_ == 0) {
      log(LogLevel::Warning,
          "Was asked to gather along dimension 0, but all input tensors were scalars; will instead unsqueeze and "
          "return a vector.");
      for (Tensor& p : parts) p = unsqueeze(p, 0);
    }
    out.push_back(cat(parts, dim_));
  }
  return out;
}

}  // namespace glia::nn
