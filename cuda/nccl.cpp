// glia_backend.collectives of the CUDA backend: NCCL (Note [NCCL in the CUDA backend]).
#include <dlfcn.h>
#include <nccl.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "common.h"

namespace glia::cuda {

// Note [NCCL in the CUDA backend]
// libnccl.so.2 is opened with dlopen at the first use of a collective (the first NCCL process group), not
// linked: a machine without NCCL still loads the CUDA backend and runs everything else, and the backend's
// dependencies stay those of tests/cuda/check_backend_library.py. The loader finds it as it finds cuBLAS
// (next to libglia_cuda.so.0, LD_LIBRARY_PATH, the system's paths: the toolkit's lib64 or torch's
// nvidia/nccl/lib). Communicators are created non-blocking (ncclConfig_t.blocking = 0) so that joining one
// can time out: comm_init polls ncclCommGetAsyncError until the communicator is ready, fails, or the
// timeout passes (then ncclCommAbort). A collective that NCCL answers with ncclInProgress is polled the same
// way until it is queued. Every NCCL status becomes an error naming the call, NCCL's text and its last
// error message: "nccl: ncclAllReduce (1024 float32 on cuda:0) failed: unhandled cuda error (...)".
namespace {

struct Nccl {
  bool loaded = false;
  std::string why;  // when not loaded
  ncclResult_t (*get_unique_id)(ncclUniqueId*) = nullptr;
  ncclResult_t (*comm_init_rank_config)(ncclComm_t*, int, ncclUniqueId, int, ncclConfig_t*) = nullptr;
  ncclResult_t (*comm_get_async_error)(ncclComm_t, ncclResult_t*) = nullptr;
  ncclResult_t (*comm_destroy)(ncclComm_t) = nullptr;
  ncclResult_t (*comm_abort)(ncclComm_t) = nullptr;
  const char* (*get_error_string)(ncclResult_t) = nullptr;
  const char* (*get_last_error)(ncclComm_t) = nullptr;
  ncclResult_t (*all_reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                             cudaStream_t) = nullptr;
  ncclResult_t (*broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t,
                         cudaStream_t) = nullptr;
  ncclResult_t (*all_gather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) = nullptr;
  ncclResult_t (*reduce_scatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                 cudaStream_t) = nullptr;
};

template <class F>
bool sym(void* h, const char* name, F* out, std::string* why) {
  *out = reinterpret_cast<F>(dlsym(h, name));
  if (!*out) *why = std::string("libnccl.so.2 has no ") + name;
  return *out != nullptr;
}

const Nccl& nccl() {
  static Nccl n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      n.why = std::string("cannot load NCCL: ") + (e ? e : "libnccl.so.2 not found");
      return;
    }
    n.loaded = sym(h, "ncclGetUniqueId", &n.get_unique_id, &n.why) &&
               sym(h, "ncclCommInitRankConfig", &n.comm_init_rank_config, &n.why) &&
               sym(h, "ncclCommGetAsyncError", &n.comm_get_async_error, &n.why) &&
               sym(h, "ncclCommDestroy", &n.comm_destroy, &n.why) && sym(h, "ncclCommAbort", &n.comm_abort, &n.why) &&
               sym(h, "ncclGetErrorString", &n.get_error_string, &n.why) &&
               sym(h, "ncclGetLastError", &n.get_last_error, &n.why) &&
               sym(h, "ncclAllReduce", &n.all_reduce, &n.why) && sym(h, "ncclBroadcast", &n.broadcast, &n.why) &&
               sym(h, "ncclReduce", &n.reduce, &n.why) && sym(h, "ncclAllGather", &n.all_gather, &n.why) &&
               sym(h, "ncclReduceScatter", &n.reduce_scatter, &n.why);
  });
  return n;
}

glia_error* not_loaded() { return make_error(GLIA_ERR_UNSUPPORTED, "nccl: " + nccl().why); }

glia_error* nccl_error(ncclResult_t r, const char* call, const std::string& detail, ncclComm_t comm) {
  const Nccl& n = nccl();
  std::string msg = std::string("nccl: ") + call + " (" + detail + ") failed: " + n.get_error_string(r);
  const char* last = n.get_last_error ? n.get_last_error(comm) : nullptr;
  if (last && *last) msg += std::string(" (") + last + ")";
  return make_error(r == ncclInvalidArgument || r == ncclInvalidUsage ? GLIA_ERR_INVALID_ARGUMENT : GLIA_ERR_IO, msg);
}

struct Comm {
  ncclComm_t comm = nullptr;
  int32_t device = 0;
};

// Waits while the communicator reports ncclInProgress (a non-blocking call being set up).
ncclResult_t settle(ncclComm_t comm, ncclResult_t r, std::chrono::steady_clock::time_point deadline, bool* timed_out) {
  const Nccl& n = nccl();
  *timed_out = false;
  while (r == ncclInProgress) {
    if (std::chrono::steady_clock::now() >= deadline) {
      *timed_out = true;
      return r;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    ncclResult_t s = ncclSuccess;
    if (ncclResult_t q = n.comm_get_async_error(comm, &s); q != ncclSuccess) return q;
    r = s;
  }
  return r;
}

bool nccl_dtype(glia_dtype d, ncclDataType_t* out) {
  switch (d) {
    case GLIA_FLOAT32:
      *out = ncclFloat32;
      return true;
    case GLIA_FLOAT64:
      *out = ncclFloat64;
      return true;
    case GLIA_FLOAT16:
      *out = ncclFloat16;
      return true;
    case GLIA_BFLOAT16:
      *out = ncclBfloat16;
      return true;
    case GLIA_INT64:
      *out = ncclInt64;
      return true;
    case GLIA_INT32:
      *out = ncclInt32;
      return true;
    case GLIA_UINT8:
      *out = ncclUint8;
      return true;
    case GLIA_INT8:
      *out = ncclInt8;
      return true;
    default:
      return false;
  }
}

bool nccl_op(int32_t op, ncclRedOp_t* out) {
  switch (op) {
    case 0:
      *out = ncclSum;
      return true;
    case 1:
      *out = ncclAvg;
      return true;
    case 2:
      *out = ncclProd;
      return true;
    case 3:
      *out = ncclMin;
      return true;
    case 4:
      *out = ncclMax;
      return true;
    default:
      return false;
  }
}

glia_error* unique_id(void* out) {
  const Nccl& n = nccl();
  if (!n.loaded) return not_loaded();
  ncclUniqueId id;
  if (ncclResult_t r = n.get_unique_id(&id); r != ncclSuccess)
    return nccl_error(r, "ncclGetUniqueId", "rank 0", nullptr);
  std::memcpy(out, &id, sizeof id);
  return nullptr;
}

glia_error* comm_init(const void* id, int32_t size, int32_t rank, int32_t device, int64_t timeout_ms, void** out) {
  const Nccl& n = nccl();
  if (!n.loaded) return not_loaded();
  if (cudaError_t st = cudaSetDevice(device); st != cudaSuccess)
    return cuda_error(st, "cudaSetDevice", "device " + std::to_string(device));
  ncclUniqueId uid;
  std::memcpy(&uid, id, sizeof uid);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  const std::string what =
      "rank " + std::to_string(rank) + " of " + std::to_string(size) + " on cuda:" + std::to_string(device);
  ncclResult_t r = n.comm_init_rank_config(&comm, size, uid, rank, &config);
  bool timed_out = false;
  if (r == ncclInProgress)
    r = settle(comm, r, std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms), &timed_out);
  if (timed_out) {
    n.comm_abort(comm);
    return make_error(GLIA_ERR_IO, "nccl: ncclCommInitRankConfig (" + what + ") timed out after " +
                                       std::to_string(timeout_ms) + " ms: not every rank joined");
  }
  if (r != ncclSuccess) {
    glia_error* e = nccl_error(r, "ncclCommInitRankConfig", what, comm);
    if (comm) n.comm_abort(comm);
    return e;
  }
  *out = new Comm{comm, device};
  return nullptr;
}

void comm_destroy(void* c, int32_t abort) {
  auto* comm = static_cast<Comm*>(c);
  if (!comm) return;
  const Nccl& n = nccl();
  if (n.loaded && comm->comm) {
    cudaSetDevice(comm->device);
    if (abort) {
      n.comm_abort(comm->comm);
    } else {
      n.comm_destroy(comm->comm);
    }
  }
  delete comm;
}

glia_error* comm_error(void* c) {
  auto* comm = static_cast<Comm*>(c);
  const Nccl& n = nccl();
  ncclResult_t s = ncclSuccess;
  if (ncclResult_t r = n.comm_get_async_error(comm->comm, &s); r != ncclSuccess)
    return nccl_error(r, "ncclCommGetAsyncError", "cuda:" + std::to_string(comm->device), comm->comm);
  if (s != ncclSuccess && s != ncclInProgress)
    return nccl_error(s, "the communicator", "cuda:" + std::to_string(comm->device), comm->comm);
  return nullptr;
}

// Runs one NCCL call on `stream` (the backend's handle) with the communicator's device current.
template <class F>
glia_error* run(void* c, const char* call, size_t count, glia_dtype dtype, int32_t op, void* stream, F f) {
  auto* comm = static_cast<Comm*>(c);
  const std::string what = std::to_string(count) + " " + dtype_name(dtype) + " on cuda:" + std::to_string(comm->device);
  ncclDataType_t dt;
  if (!nccl_dtype(dtype, &dt))
    return make_error(GLIA_ERR_DTYPE, std::string("nccl: ") + call + ": NCCL has no " + dtype_name(dtype));
  ncclRedOp_t rop = ncclSum;
  if (op >= 0 && !nccl_op(op, &rop))
    return make_error(GLIA_ERR_INVALID_ARGUMENT,
                      std::string("nccl: ") + call + ": unknown reduce op " + std::to_string(op));
  if (cudaError_t st = cudaSetDevice(comm->device); st != cudaSuccess)
    return cuda_error(st, "cudaSetDevice", "device " + std::to_string(comm->device));
  cudaStream_t s = stream ? static_cast<CudaStream*>(stream)->stream : nullptr;
  ncclResult_t r = f(dt, rop, s, comm->comm);
  bool timed_out = false;
  // Queuing a non-blocking communicator's call: it settles quickly, or the communicator reports why not.
  if (r == ncclInProgress)
    r = settle(comm->comm, r, std::chrono::steady_clock::now() + std::chrono::seconds(60), &timed_out);
  if (timed_out) return make_error(GLIA_ERR_IO, std::string("nccl: ") + call + " (" + what + ") could not be queued");
  if (r != ncclSuccess) return nccl_error(r, call, what, comm->comm);
  return nullptr;
}

glia_error* all_reduce(void* c, const void* send, void* recv, size_t count, glia_dtype dtype, int32_t op,
                       void* stream) {
  if (!nccl().loaded) return not_loaded();
  return run(c, "ncclAllReduce", count, dtype, op, stream,
             [&](ncclDataType_t dt, ncclRedOp_t rop, cudaStream_t s, ncclComm_t comm) {
               return nccl().all_reduce(send, recv, count, dt, rop, comm, s);
             });
}

glia_error* broadcast(void* c, const void* send, void* recv, size_t count, glia_dtype dtype, int32_t root,
                      void* stream) {
  if (!nccl().loaded) return not_loaded();
  return run(c, "ncclBroadcast", count, dtype, -1, stream,
             [&](ncclDataType_t dt, ncclRedOp_t, cudaStream_t s, ncclComm_t comm) {
               return nccl().broadcast(send, recv, count, dt, root, comm, s);
             });
}

glia_error* reduce(void* c, const void* send, void* recv, size_t count, glia_dtype dtype, int32_t op, int32_t root,
                   void* stream) {
  if (!nccl().loaded) return not_loaded();
  return run(c, "ncclReduce", count, dtype, op, stream,
             [&](ncclDataType_t dt, ncclRedOp_t rop, cudaStream_t s, ncclComm_t comm) {
               return nccl().reduce(send, recv, count, dt, rop, root, comm, s);
             });
}

glia_error* all_gather(void* c, const void* send, void* recv, size_t count, glia_dtype dtype, void* stream) {
  if (!nccl().loaded) return not_loaded();
  return run(c, "ncclAllGather", count, dtype, -1, stream,
             [&](ncclDataType_t dt, ncclRedOp_t, cudaStream_t s, ncclComm_t comm) {
               return nccl().all_gather(send, recv, count, dt, comm, s);
             });
}

glia_error* reduce_scatter(void* c, const void* send, void* recv, size_t count, glia_dtype dtype, int32_t op,
                           void* stream) {
  if (!nccl().loaded) return not_loaded();
  return run(c, "ncclReduceScatter", count, dtype, op, stream,
             [&](ncclDataType_t dt, ncclRedOp_t rop, cudaStream_t s, ncclComm_t comm) {
               return nccl().reduce_scatter(send, recv, count, dt, rop, comm, s);
             });
}

const glia_backend_collectives kCollectives{sizeof(glia_backend_collectives),
                                            "NCCL",
                                            sizeof(ncclUniqueId),
                                            &unique_id,
                                            &comm_init,
                                            &comm_destroy,
                                            &comm_error,
                                            &all_reduce,
                                            &broadcast,
                                            &reduce,
                                            &all_gather,
                                            &reduce_scatter};

}  // namespace

const glia_backend_collectives* nccl_collectives() { return &kCollectives; }

}  // namespace glia::cuda
