// Stores, process groups and work handles (glia.h "Distributed training").
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "capi/api.h"
#include "capi/host_callback.h"
#include "distributed/ddp.h"
#include "distributed/process_group.h"
#include "distributed/store.h"

using namespace glia;
using namespace glia::capi;
using namespace glia::dist;

namespace {

Store* store_raw(const glia_store* h, const char* fn) { return lookup<Store>(h, HandleType::Store, fn, "store"); }
ProcessGroup* group_raw(const glia_process_group* h, const char* fn) {
  return lookup<ProcessGroup>(h, HandleType::ProcessGroup, fn, "group");
}
glia_store* store_handle(const Ref<Store>& s) {
  return static_cast<glia_store*>(handle_for(s.get(), HandleType::Store));
}

void check_key(const char* key, const char* fn, const char* arg = "key") {
  GLIA_CHECK(key != nullptr, InvalidArgument, fn, ": argument '", arg, "' is NULL");
}

Millis timeout_arg(int64_t ms, const char* fn) {
  GLIA_CHECK(ms > 0, InvalidArgument, fn, ": argument 'timeout_ms' must be positive, got ", ms);
  return Millis(ms);
}

std::vector<std::string> keys_arg(const char* const* keys, int64_t n_keys, const char* fn) {
  GLIA_CHECK(n_keys >= 0, InvalidArgument, fn, ": argument 'n_keys' is negative (", n_keys, ")");
  GLIA_CHECK(n_keys == 0 || keys != nullptr, InvalidArgument, fn, ": argument 'keys' is NULL");
  std::vector<std::string> out;
  for (int64_t i = 0; i < n_keys; ++i) {
    GLIA_CHECK(keys[i] != nullptr, InvalidArgument, fn, ": keys[", i, "] is NULL");
    out.emplace_back(keys[i]);
  }
  return out;
}

Bytes bytes_arg(const void* p, size_t n, const char* fn, const char* arg) {
  GLIA_CHECK(n == 0 || p != nullptr, InvalidArgument, fn, ": argument '", arg, "' is NULL with ", n, " bytes");
  const uint8_t* b = static_cast<const uint8_t*>(p);
  return n ? Bytes(b, b + n) : Bytes{};
}

void write_bytes(const Bytes& v, void* buffer, size_t capacity, size_t* out_length, const char* fn) {
  check_out(out_length, fn, "out_length");
  GLIA_CHECK(capacity == 0 || buffer != nullptr, InvalidArgument, fn, ": argument 'buffer' is NULL with capacity ",
             capacity);
  if (capacity) std::memcpy(buffer, v.data(), std::min(capacity, v.size()));
  *out_length = v.size();
}

ReduceOp op_arg(int op, const char* fn) {
  GLIA_CHECK(op >= 0 && op <= 4, InvalidArgument, fn, ": argument 'op' is not a glia_reduce_op (", op, ")");
  return static_cast<ReduceOp>(op);
}

int root_arg(const ProcessGroup& g, int64_t root, const char* fn) {
  GLIA_CHECK(root >= 0 && root < g.size(), InvalidArgument, fn, ": argument 'root' is ", root,
             ", expected a rank in [0, ", g.size(), ")");
  return static_cast<int>(root);
}

std::vector<Tensor> tensors_arg(glia_tensor* const* ts, int64_t n, const char* fn, const char* arg) {
  GLIA_CHECK(n >= 0, InvalidArgument, fn, ": argument 'n_", arg, "' is negative (", n, ")");
  GLIA_CHECK(n == 0 || ts != nullptr, InvalidArgument, fn, ": argument '", arg, "' is NULL");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(tensor_arg(ts[i], fn, arg));
  return out;
}

// The C API's async_op: a NULL out waits for the collective, else hands out its Work.
void finish_collective(const Ref<Work>& w, glia_work** out) {
  if (out) {
    *out = static_cast<glia_work*>(handle_for(w.get(), HandleType::Work));
  } else {
    w->wait(Millis(-1));
  }
}

ProcessGroupOptions options_arg(const glia_process_group_options* o, const char* fn) {
  ProcessGroupOptions r;
  if (!o) return r;
  GLIA_CHECK(o->struct_size >= offsetof(glia_process_group_options, group_name) + sizeof(const char*), InvalidArgument,
             fn, ": options->struct_size is ", o->struct_size, ", expected at least ",
             sizeof(glia_process_group_options), " (use glia_process_group_options_init)");
  GLIA_CHECK(o->backend == GLIA_DIST_BACKEND_GLOO || o->backend == GLIA_DIST_BACKEND_NCCL, InvalidArgument, fn,
             ": options->backend is not a glia_dist_backend (", o->backend, ")");
  if (o->backend == GLIA_DIST_BACKEND_NCCL) {
    r.nccl = true;
    if (o->struct_size >= offsetof(glia_process_group_options, device) + sizeof(glia_device)) {
      GLIA_CHECK(o->device.type == GLIA_CUDA || o->device.type == GLIA_PRIVATEUSE1, InvalidArgument, fn,
                 ": options->device must be a CUDA or PrivateUse1 device for the NCCL backend, got device type ",
                 static_cast<int>(o->device.type));
      GLIA_CHECK(o->device.index >= -1, InvalidArgument, fn, ": options->device.index is ", o->device.index,
                 ", expected -1 (LOCAL_RANK) or a device index");
      r.device = Device{static_cast<DeviceType>(o->device.type), o->device.index};
    } else {
      r.device = Device{DeviceType::CUDA, -1};
    }
  }
  r.timeout = timeout_arg(o->timeout_ms, fn);
  if (o->hostname) r.hostname = o->hostname;
  if (o->iface) r.iface = o->iface;
  if (o->group_name) r.group_name = o->group_name;
  GLIA_CHECK(!r.group_name.empty(), InvalidArgument, fn, ": options->group_name is empty");
  return r;
}

Ref<ProcessGroup> make_group(Ref<Store> store, int rank, int size, const ProcessGroupOptions& o) {
  if (o.nccl) return make_process_group_device(std::move(store), rank, size, o.device, o);
  return make_process_group_gloo(std::move(store), rank, size, o);
}

int64_t env_int(const char* name, const char* fn) {
  const char* v = std::getenv(name);
  GLIA_CHECK(v && *v, InvalidArgument, fn, ": environment variable ", name, " expected, but not set");
  char* end = nullptr;
  long long x = std::strtoll(v, &end, 10);
  GLIA_CHECK(*end == '\0', InvalidArgument, fn, ": environment variable ", name, " is '", v, "', not an integer");
  return x;
}

}  // namespace

extern "C" {

glia_error* glia_dist_is_gloo_available(int32_t* out) {
  return guard([&] {
    check_out(out, "glia_dist_is_gloo_available", "out");
    *out = have_gloo() ? 1 : 0;
  });
}

// ---- stores ----

glia_error* glia_store_file_create(const char* path, int64_t num_workers, glia_store** out) {
  const char* fn = "glia_store_file_create";
  return guard([&] {
    check_key(path, fn, "path");
    check_out(out, fn, "out");
    *out = store_handle(make_ref<FileStore>(path, num_workers));
  });
}

glia_error* glia_store_tcp_create(const char* host, int32_t port, int32_t is_server, int64_t timeout_ms,
                                  glia_store** out) {
  const char* fn = "glia_store_tcp_create";
  return guard([&] {
    check_key(host, fn, "host");
    check_out(out, fn, "out");
    GLIA_CHECK(port >= 0 && port <= 65535, InvalidArgument, fn, ": argument 'port' must be in [0, 65535], got ", port);
    GLIA_CHECK(is_server || port > 0, InvalidArgument, fn, ": argument 'port' is 0 for a client (is_server = 0)");
    *out = store_handle(make_ref<TCPStore>(host, port, is_server != 0, timeout_arg(timeout_ms, fn)));
  });
}

glia_error* glia_store_redis_create(const char* host, int32_t port, int64_t timeout_ms, glia_store** out) {
  const char* fn = "glia_store_redis_create";
  return guard([&] {
    check_key(host, fn, "host");
    check_out(out, fn, "out");
    GLIA_CHECK(port > 0 && port <= 65535, InvalidArgument, fn, ": argument 'port' must be in [1, 65535], got ", port);
    *out = store_handle(make_redis_store(host, port, timeout_arg(timeout_ms, fn)));
  });
}

glia_error* glia_store_tcp_port(const glia_store* store, int32_t* out_port) {
  const char* fn = "glia_store_tcp_port";
  return guard([&] {
    Store* s = store_raw(store, fn);
    check_out(out_port, fn, "out_port");
    auto* t = dynamic_cast<TCPStore*>(s);
    GLIA_CHECK(t, InvalidArgument, fn, ": argument 'store' is not a TCP store");
    *out_port = t->port();
  });
}

glia_error* glia_store_prefix_create(const char* prefix, glia_store* store, glia_store** out) {
  const char* fn = "glia_store_prefix_create";
  return guard([&] {
    check_key(prefix, fn, "prefix");
    Store* s = store_raw(store, fn);
    check_out(out, fn, "out");
    *out = store_handle(make_ref<PrefixStore>(prefix, Ref<Store>::share(s)));
  });
}

glia_error* glia_store_set(glia_store* store, const char* key, const void* value, size_t nbytes) {
  const char* fn = "glia_store_set";
  return guard([&] {
    Store* s = store_raw(store, fn);
    check_key(key, fn);
    s->set(key, bytes_arg(value, nbytes, fn, "value"));
  });
}

glia_error* glia_store_get(glia_store* store, const char* key, void* buffer, size_t capacity, size_t* out_length) {
  const char* fn = "glia_store_get";
  return guard([&] {
    Store* s = store_raw(store, fn);
    check_key(key, fn);
    check_out(out_length, fn, "out_length");
    GLIA_CHECK(capacity == 0 || buffer != nullptr, InvalidArgument, fn, ": argument 'buffer' is NULL with capacity ",
               capacity);
    write_bytes(s->get(key), buffer, capacity, out_length, fn);
  });
}

glia_error* glia_store_add(glia_store* store, const char* key, int64_t amount, int64_t* out) {
  const char* fn = "glia_store_add";
  return guard([&] {
    Store* s = store_raw(store, fn);
    check_key(key, fn);
    check_out(out, fn, "out");
    *out = s->add(key, amount);
  });
}

glia_error* glia_store_compare_set(glia_store* store, const char* key, const void* expected, size_t n_expected,
                                   const void* desired, size_t n_desired, void* buffer, size_t capacity,
                                   size_t* out_length) {
  const char* fn = "glia_store_compare_set";
  return guard([&] {
    Store* s = store_raw(store, fn);
    check_key(key, fn);
    check_out(out_length, fn, "out_length");
    GLIA_CHECK(capacity == 0 || buffer != nullptr, InvalidArgument, fn, ": argument 'buffer' is NULL with capacity ",
               capacity);
    Bytes e = bytes_arg(expected, n_expected, fn, "expected");
    Bytes d = bytes_arg(desired, n_desired, fn, "desired");
    write_bytes(s->compare_set(key, e, d), buffer, capacity, out_length, fn);
  });
}

glia_error* glia_store_wait(glia_store* store, const char* const* keys, int64_t n_keys, int64_t timeout_ms) {
  const char* fn = "glia_store_wait";
  return guard([&] {
    Store* s = store_raw(store, fn);
    std::vector<std::string> ks = keys_arg(keys, n_keys, fn);
    s->wait(ks, Millis(timeout_ms < 0 ? -1 : timeout_ms));
  });
}

glia_error* glia_store_check(glia_store* store, const char* const* keys, int64_t n_keys, int32_t* out) {
  const char* fn = "glia_store_check";
  return guard([&] {
    Store* s = store_raw(store, fn);
    std::vector<std::string> ks = keys_arg(keys, n_keys, fn);
    check_out(out, fn, "out");
    *out = s->check(ks) ? 1 : 0;
  });
}

glia_error* glia_store_delete_key(glia_store* store, const char* key, int32_t* out) {
  const char* fn = "glia_store_delete_key";
  return guard([&] {
    Store* s = store_raw(store, fn);
    check_key(key, fn);
    check_out(out, fn, "out");
    *out = s->delete_key(key) ? 1 : 0;
  });
}

glia_error* glia_store_num_keys(glia_store* store, int64_t* out) {
  const char* fn = "glia_store_num_keys";
  return guard([&] {
    Store* s = store_raw(store, fn);
    check_out(out, fn, "out");
    *out = s->num_keys();
  });
}

glia_error* glia_store_set_timeout(glia_store* store, int64_t timeout_ms) {
  const char* fn = "glia_store_set_timeout";
  return guard([&] {
    Store* s = store_raw(store, fn);
    s->set_timeout(timeout_arg(timeout_ms, fn));
  });
}

glia_error* glia_store_retain(glia_store* store) {
  return guard([&] { handle_retain(store, HandleType::Store, "glia_store_retain"); });
}

glia_error* glia_store_release(glia_store* store) {
  if (!store) return nullptr;
  return guard([&] { handle_release(store, HandleType::Store, "glia_store_release"); });
}

// ---- process groups ----

void glia_process_group_options_init(glia_process_group_options* options) {
  if (!options) return;
  *options = glia_process_group_options{};
  options->device = glia_device{GLIA_CUDA, -1};
  options->struct_size = sizeof(glia_process_group_options);
  options->backend = GLIA_DIST_BACKEND_GLOO;
  options->timeout_ms = Store::kDefaultTimeout.count();
}

glia_error* glia_process_group_create(glia_store* store, int64_t rank, int64_t world_size,
                                      const glia_process_group_options* options, glia_process_group** out) {
  const char* fn = "glia_process_group_create";
  return guard([&] {
    Store* s = store_raw(store, fn);
    check_out(out, fn, "out");
    GLIA_CHECK(world_size >= 1 && world_size <= 65536, InvalidArgument, fn, ": argument 'world_size' is ", world_size,
               ", expected a positive size");
    GLIA_CHECK(rank >= 0 && rank < world_size, InvalidArgument, fn, ": argument 'rank' is ", rank,
               ", expected a rank in [0, ", world_size, ")");
    ProcessGroupOptions o = options_arg(options, fn);
    Ref<ProcessGroup> g = make_group(Ref<Store>::share(s), static_cast<int>(rank), static_cast<int>(world_size), o);
    *out = static_cast<glia_process_group*>(handle_for(g.get(), HandleType::ProcessGroup));
  });
}

glia_error* glia_process_group_create_from_env(const glia_process_group_options* options, glia_process_group** out) {
  const char* fn = "glia_process_group_create_from_env";
  return guard([&] {
    check_out(out, fn, "out");
    ProcessGroupOptions o = options_arg(options, fn);
    const char* addr = std::getenv("MASTER_ADDR");
    GLIA_CHECK(addr && *addr, InvalidArgument, fn, ": environment variable MASTER_ADDR expected, but not set");
    int64_t port = env_int("MASTER_PORT", fn);
    int64_t rank = env_int("RANK", fn);
    int64_t world = env_int("WORLD_SIZE", fn);
    GLIA_CHECK(port > 0 && port <= 65535, InvalidArgument, fn, ": MASTER_PORT is ", port, ", expected [1, 65535]");
    GLIA_CHECK(world >= 1 && world <= 65536, InvalidArgument, fn, ": WORLD_SIZE is ", world,
               ", expected a positive size");
    GLIA_CHECK(rank >= 0 && rank < world, InvalidArgument, fn, ": RANK is ", rank, ", expected [0, ", world, ")");
    Ref<Store> store = make_ref<TCPStore>(addr, static_cast<int>(port), rank == 0, o.timeout);
    Ref<ProcessGroup> g = make_group(store, static_cast<int>(rank), static_cast<int>(world), o);
    *out = static_cast<glia_process_group*>(handle_for(g.get(), HandleType::ProcessGroup));
  });
}

glia_error* glia_process_group_rank(const glia_process_group* group, int64_t* out) {
  const char* fn = "glia_process_group_rank";
  return guard([&] {
    ProcessGroup* g = group_raw(group, fn);
    check_out(out, fn, "out");
    *out = g->rank();
  });
}

glia_error* glia_process_group_size(const glia_process_group* group, int64_t* out) {
  const char* fn = "glia_process_group_size";
  return guard([&] {
    ProcessGroup* g = group_raw(group, fn);
    check_out(out, fn, "out");
    *out = g->size();
  });
}

glia_error* glia_process_group_all_reduce(glia_process_group* group, glia_tensor* tensor, glia_reduce_op op,
                                          glia_work** out) {
  const char* fn = "glia_process_group_all_reduce";
  return guard([&] {
    ProcessGroup* g = group_raw(group, fn);
    Tensor t = tensor_arg(tensor, fn, "tensor");
    finish_collective(g->allreduce(t, op_arg(op, fn)), out);
  });
}

glia_error* glia_process_group_broadcast(glia_process_group* group, glia_tensor* tensor, int64_t root,
                                         glia_work** out) {
  const char* fn = "glia_process_group_broadcast";
  return guard([&] {
    ProcessGroup* g = group_raw(group, fn);
    Tensor t = tensor_arg(tensor, fn, "tensor");
    finish_collective(g->broadcast(t, root_arg(*g, root, fn)), out);
  });
}

glia_error* glia_process_group_reduce(glia_process_group* group, glia_tensor* tensor, int64_t root, glia_reduce_op op,
                                      glia_work** out) {
  const char* fn = "glia_process_group_reduce";
  return guard([&] {
    ProcessGroup* g = group_raw(group, fn);
    Tensor t = tensor_arg(tensor, fn, "tensor");
    int r = root_arg(*g, root, fn);
    finish_collective(g->reduce(t, r, op_arg(op, fn)), out);
  });
}

glia_error* glia_process_group_all_gather(glia_process_group* group, glia_tensor* const* outputs, int64_t n_outputs,
                                          const glia_tensor* input, glia_work** out) {
  const char* fn = "glia_process_group_all_gather";
  return guard([&] {
    ProcessGroup* g = group_raw(group, fn);
    std::vector<Tensor> outs = tensors_arg(outputs, n_outputs, fn, "outputs");
    Tensor in = tensor_arg(input, fn, "input");
    finish_collective(g->allgather(outs, in), out);
  });
}

glia_error* glia_process_group_reduce_scatter(glia_process_group* group, glia_tensor* output,
                                              glia_tensor* const* inputs, int64_t n_inputs, glia_reduce_op op,
                                              glia_work** out) {
  const char* fn = "glia_process_group_reduce_scatter";
  return guard([&] {
    ProcessGroup* g = group_raw(group, fn);
    Tensor o = tensor_arg(output, fn, "output");
    std::vector<Tensor> ins = tensors_arg(inputs, n_inputs, fn, "inputs");
    finish_collective(g->reduce_scatter(o, ins, op_arg(op, fn)), out);
  });
}

glia_error* glia_process_group_barrier(glia_process_group* group, glia_work** out) {
  const char* fn = "glia_process_group_barrier";
  return guard([&] { finish_collective(group_raw(group, fn)->barrier(), out); });
}

glia_error* glia_process_group_retain(glia_process_group* group) {
  return guard([&] { handle_retain(group, HandleType::ProcessGroup, "glia_process_group_retain"); });
}

glia_error* glia_process_group_release(glia_process_group* group) {
  if (!group) return nullptr;
  return guard([&] { handle_release(group, HandleType::ProcessGroup, "glia_process_group_release"); });
}

// ---- work ----

glia_error* glia_work_wait(glia_work* work, int64_t timeout_ms) {
  const char* fn = "glia_work_wait";
  return guard([&] {
    Work* w = lookup<Work>(work, HandleType::Work, fn, "work");
    bool done = w->wait(Millis(timeout_ms < 0 ? -1 : timeout_ms));
    GLIA_CHECK(done, IO, fn, ": ", w->what(), " did not complete within ", timeout_ms, " ms");
  });
}

glia_error* glia_work_is_completed(const glia_work* work, int32_t* out) {
  const char* fn = "glia_work_is_completed";
  return guard([&] {
    Work* w = lookup<Work>(work, HandleType::Work, fn, "work");
    check_out(out, fn, "out");
    *out = w->is_completed() ? 1 : 0;
  });
}

glia_error* glia_work_retain(glia_work* work) {
  return guard([&] { handle_retain(work, HandleType::Work, "glia_work_retain"); });
}

glia_error* glia_work_release(glia_work* work) {
  if (!work) return nullptr;
  return guard([&] { handle_release(work, HandleType::Work, "glia_work_release"); });
}

// ---- DistributedDataParallel ----

void glia_ddp_options_init(glia_ddp_options* options) {
  if (!options) return;
  *options = glia_ddp_options{};
  options->struct_size = sizeof(glia_ddp_options);
  options->bucket_cap_mb = 25;
  options->find_unused_parameters = 0;
  options->broadcast_buffers = 1;
  options->gradient_as_bucket_view = 0;
  options->static_graph = 0;
}

glia_error* glia_nn_distributed_data_parallel(glia_module* module, glia_process_group* group,
                                              const glia_ddp_options* options, glia_module** out) {
  const char* fn = "glia_nn_distributed_data_parallel";
  return guard([&] {
    nn::ModuleRef m = module_arg(module, fn, "module");
    ProcessGroup* g = group_raw(group, fn);
    check_out(out, fn, "out");
    DDPOptions o;
    if (options) {
      GLIA_CHECK(options->struct_size >= offsetof(glia_ddp_options, broadcast_buffers) + sizeof(int32_t),
                 InvalidArgument, fn, ": options->struct_size is ", options->struct_size, ", expected at least ",
                 sizeof(glia_ddp_options), " (use glia_ddp_options_init)");
      o.bucket_cap_mb = options->bucket_cap_mb;
      o.find_unused_parameters = options->find_unused_parameters != 0;
      o.broadcast_buffers = options->broadcast_buffers != 0;
      if (options->struct_size >= offsetof(glia_ddp_options, gradient_as_bucket_view) + sizeof(int32_t))
        o.gradient_as_bucket_view = options->gradient_as_bucket_view != 0;
      if (options->struct_size >= offsetof(glia_ddp_options, static_graph) + sizeof(int32_t))
        o.static_graph = options->static_graph != 0;
    }
    nn::ModuleRef ddp = make_ref<DistributedDataParallel>(m, Ref<ProcessGroup>::share(g), o);
    *out = module_handle(ddp);
  });
}

glia_error* glia_ddp_require_backward_grad_sync(const glia_module* module, int32_t* out) {
  const char* fn = "glia_ddp_require_backward_grad_sync";
  return guard([&] {
    auto* d = dynamic_cast<DistributedDataParallel*>(module_raw(module, fn, "module"));
    GLIA_CHECK(d, InvalidArgument, fn, ": argument 'module' is not a DistributedDataParallel");
    check_out(out, fn, "out");
    *out = d->require_backward_grad_sync() ? 1 : 0;
  });
}

glia_error* glia_ddp_set_require_backward_grad_sync(glia_module* module, int32_t flag) {
  const char* fn = "glia_ddp_set_require_backward_grad_sync";
  return guard([&] {
    auto* d = dynamic_cast<DistributedDataParallel*>(module_raw(module, fn, "module"));
    GLIA_CHECK(d, InvalidArgument, fn, ": argument 'module' is not a DistributedDataParallel");
    d->set_require_backward_grad_sync(flag != 0);
  });
}

namespace {
DistributedDataParallel* ddp_arg(glia_module* module, const char* fn) {
  auto* d = dynamic_cast<DistributedDataParallel*>(module_raw(module, fn, "module"));
  GLIA_CHECK(d, InvalidArgument, fn, ": argument 'module' is not a DistributedDataParallel");
  return d;
}
}  // namespace

glia_error* glia_ddp_set_static_graph(glia_module* module) {
  const char* fn = "glia_ddp_set_static_graph";
  return guard([&] { ddp_arg(module, fn)->set_static_graph(); });
}

glia_error* glia_ddp_register_builtin_comm_hook(glia_module* module, glia_ddp_comm_hook hook) {
  const char* fn = "glia_ddp_register_builtin_comm_hook";
  return guard([&] {
    DistributedDataParallel* d = ddp_arg(module, fn);
    int k = static_cast<int>(hook);
    GLIA_CHECK(k >= GLIA_DDP_COMM_HOOK_ALLREDUCE && k <= GLIA_DDP_COMM_HOOK_BF16_COMPRESS, InvalidArgument, fn,
               ": argument 'hook' is ", k, ", expected GLIA_DDP_COMM_HOOK_ALLREDUCE, _FP16_COMPRESS or _BF16_COMPRESS");
    d->register_comm_hook(static_cast<CommHook>(k));
  });
}

glia_error* glia_ddp_register_comm_hook(glia_module* module, glia_ddp_comm_hook_fn hook, void* user_data,
                                        void (*free_user_data)(void*)) {
  auto owner = own<HostCallback<glia_ddp_comm_hook_fn>>(hook, user_data, free_user_data);
  if (!owner) return out_of_memory_error();
  const char* fn = "glia_ddp_register_comm_hook";
  return guard([&] {
    DistributedDataParallel* d = ddp_arg(module, fn);
    GLIA_CHECK(hook, InvalidArgument, fn, ": argument 'fn' is NULL");
    d->register_comm_hook(CommHook::Callback, [owner](const Tensor& bucket, size_t index, size_t count) {
      glia_tensor* h = tensor_handle(bucket);
      glia_error* e = owner->fn(owner->user_data, h, static_cast<int64_t>(index), static_cast<int64_t>(count));
      glia_tensor_release(h);
      callback_result(e, "DDP communication hook");
    });
  });
}

glia_error* glia_ddp_bucket_parameters(glia_module* module, int64_t bucket_index, int64_t* out_indices,
                                       int64_t capacity, int64_t* out_count, int64_t* out_bucket_count) {
  const char* fn = "glia_ddp_bucket_parameters";
  return guard([&] {
    DistributedDataParallel* d = ddp_arg(module, fn);
    check_out(out_count, fn, "out_count");
    GLIA_CHECK(capacity >= 0 && (capacity == 0 || out_indices), InvalidArgument, fn,
               ": out_indices is NULL with capacity ", capacity);
    std::vector<std::vector<size_t>> b = d->bucket_indices();
    GLIA_CHECK(bucket_index >= 0 && bucket_index < static_cast<int64_t>(b.size()), InvalidArgument, fn,
               ": bucket_index ", bucket_index, " is out of range for ", b.size(), " buckets");
    const std::vector<size_t>& idx = b[static_cast<size_t>(bucket_index)];
    for (size_t i = 0; i < idx.size() && static_cast<int64_t>(i) < capacity; ++i)
      out_indices[i] = static_cast<int64_t>(idx[i]);
    *out_count = static_cast<int64_t>(idx.size());
    if (out_bucket_count) *out_bucket_count = static_cast<int64_t>(b.size());
  });
}

}  // extern "C"
