/**
 * @file
 * glia backend ABI, version 2: how libglia and a device backend library
 * (libglia_cuda.so.0, the test device, an out-of-tree accelerator) meet.
 *
 * The two sides share C structs, never C++ symbols, so a backend built with
 * another compiler, another C++ standard library or its own copy of the CUDA
 * runtime loads into any process that has libglia. Each struct starts with
 * `struct_size`: fields are only ever appended, and a reader looks at a
 * field only when struct_size says the writer had it (the same rule as the
 * public glia.h option structs).
 *
 * The handshake: libglia dlopen()s the backend (RTLD_LOCAL, never
 * dlclose()d while libglia is loaded), looks up the one exported symbol
 * `glia_backend_v2` (glia_backend_entry_fn) and calls it once with its table
 * of services. The backend returns its own table: device queries, memory,
 * copies, streams and events, random state, and its kernels.
 *
 * Kernels. Every op in glia is a device-neutral meta part (torch's argument
 * checks, result shape, dtype and device, output allocation on that device)
 * followed by one kernel call for the device of its tensors. A kernel gets
 * its inputs and its already-allocated outputs as strided views in the
 * device's memory, plus the op's attributes in a fixed order, and runs on
 * the device's current stream. Kernel ids are the positions of
 * src/ops/kernels.def (append-only; renumbering bumps
 * GLIA_BACKEND_ABI_VERSION). A backend that returns NULL for a kernel id does
 * not support that op; calling it is a GLIA_ERR_UNSUPPORTED naming op and device.
 *
 * Errors cross the boundary as glia_error objects made with the services'
 * error_new (or glia_error_new): NULL is success.
 */
#ifndef GLIA_GLIA_BACKEND_H
#define GLIA_GLIA_BACKEND_H

#include "glia/glia_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @addtogroup backend
 * @{ */

/** The version of this ABI: glia_backend.abi_version and glia_backend_services.abi_version carry it. */
#define GLIA_BACKEND_ABI_VERSION 2u

/** One tensor argument of a kernel: a strided view (sizes and strides in elements). */
typedef struct glia_kernel_tensor {
  void *data;             /**< the first element (storage base + offset); may be NULL when numel is 0 */
  const int64_t *sizes;   /**< ndim sizes */
  const int64_t *strides; /**< ndim strides, in elements */
  int32_t ndim;           /**< number of dimensions (0 for a scalar) */
  glia_dtype dtype;       /**< element type */
  int32_t device_index;   /**< the index of the device that holds `data` */
  int32_t reserved;       /**< zero */
} glia_kernel_tensor;

/**
 * One attribute of a kernel, in the order of the op's entry in kernels.def.
 * Numbers carry both spellings (i and f) so that an integer Scalar keeps its
 * exact value; lists are (ints, n_ints); strings are NUL-terminated or NULL.
 */
typedef struct glia_kernel_attr {
  int64_t i;           /**< an integer, bool or enum attribute; also a Scalar's value as an integer */
  double f;            /**< a floating attribute; also a Scalar's value as a double */
  const int64_t *ints; /**< a list attribute (dims, sizes), or NULL */
  int64_t n_ints;      /**< the length of ints */
  const char *s;       /**< a string attribute, NUL-terminated, or NULL */
} glia_kernel_attr;

/** A kernel invocation. */
typedef struct glia_kernel_call {
  size_t struct_size;                /**< sizeof(glia_kernel_call) of the core that made the call */
  uint32_t kernel;                   /**< kernel id: position in src/ops/kernels.def */
  int32_t n_inputs;                  /**< number of inputs (at most 16 tensors in all) */
  int32_t n_outputs;                 /**< number of outputs, already allocated on the device */
  int32_t n_attrs;                   /**< number of attributes */
  const glia_kernel_tensor *inputs;  /**< n_inputs input views */
  const glia_kernel_tensor *outputs; /**< n_outputs output views, to be written */
  const glia_kernel_attr *attrs;     /**< n_attrs attributes, in the order of the op's kernels.def entry */
  void *stream;                      /**< the device's current stream (the backend's own handle) */
} glia_kernel_call;

/** A backend's kernel: runs `call` on the call's stream; NULL on success, else an error made with error_new. */
typedef glia_error *(*glia_kernel_fn)(const glia_kernel_call *call);

/** What libglia offers a backend. Valid for as long as the backend is loaded. */
typedef struct glia_backend_services {
  size_t struct_size;   /**< sizeof(glia_backend_services) of the core: read a field only when it covers it */
  uint32_t abi_version; /**< GLIA_BACKEND_ABI_VERSION of the core */
  /** Sends a message to glia's log callback (glia_set_log_callback). */
  void (*log)(enum glia_log_level level, const char *message);
  /** Makes an error object (as glia_error_new). */
  glia_error *(*error_new)(enum glia_error_code code, const char *message);
  /** The core's name of kernel id `kernel` ("add", "mul"...), NULL past the end. */
  const char *(*kernel_name)(uint32_t kernel);
  /**
   * Runs the core's CPU kernel for call->kernel on host memory: every data
   * pointer in `call` must be readable (and the outputs writable) host
   * memory. For backends whose memory the host can map (the test device), and
   * for reference checks.
   */
  glia_error *(*cpu_kernel)(const glia_kernel_call *call);
  /** Host memory through the embedder's allocator hooks (glia_set_allocator); NULL on failure. */
  void *(*host_alloc)(size_t nbytes);
  /** Frees a block of host_alloc; `nbytes` is the size that was asked for. */
  void (*host_free)(void *ptr, size_t nbytes);
  /* ---- appended in glia 0.2: read only when struct_size covers them */
  /**
   * The user's math switches now, as GLIA_BACKEND_MATH_* bits (glia_set_deterministic_algorithms,
   * glia_set_cudnn_deterministic, glia_set_allow_tf32). Cheap (one atomic load): a backend reads it at
   * each kernel call that has a choice to make (cuDNN's algorithms, TF32 math), so a change applies to
   * the next call. A core without this field: behave as with its defaults (GLIA_BACKEND_MATH_TF32_CUDNN).
   */
  uint32_t (*math_flags)(void);
} glia_backend_services;

/** glia_backend_services.math_flags: torch.use_deterministic_algorithms(True): only deterministic algorithms. */
#define GLIA_BACKEND_MATH_DETERMINISTIC 1u
/** glia_backend_services.math_flags: torch.backends.cudnn.deterministic = True (cuDNN convolutions only). */
#define GLIA_BACKEND_MATH_CUDNN_DETERMINISTIC 2u
/** glia_backend_services.math_flags: torch.backends.cuda.matmul.allow_tf32 = True (float32 GEMMs may use TF32). */
#define GLIA_BACKEND_MATH_TF32_MATMUL 4u
/** glia_backend_services.math_flags: torch.backends.cudnn.allow_tf32 = True (float32 convolutions may use TF32;
 * the default). */
#define GLIA_BACKEND_MATH_TF32_CUDNN 8u

/** Direction of a copy. */
typedef enum glia_copy_kind GLIA_ENUM_BASE {
  GLIA_COPY_HOST_TO_DEVICE = 0,  /**< src is host memory, dst device memory */
  GLIA_COPY_DEVICE_TO_HOST = 1,  /**< src is device memory, dst host memory */
  GLIA_COPY_DEVICE_TO_DEVICE = 2 /**< both are device memory, of the same or two devices */
} glia_copy_kind;

/** Per-device memory statistics a backend reports (bytes). */
typedef struct glia_backend_memory_stats {
  size_t struct_size;         /**< set by the core: write only the fields it covers */
  uint64_t bytes_in_use;      /**< held by live tensors */
  uint64_t peak_bytes_in_use; /**< maximum of bytes_in_use since start or reset_peak_memory_stats */
  uint64_t bytes_cached;      /**< freed by tensors, kept by the backend for reuse */
  uint64_t allocations;       /**< number of blocks handed out so far */
} glia_backend_memory_stats;

/**
 * Collective communication of a backend (NCCL for CUDA): communicators of
 * `size` processes (or threads), one device each, and collectives queued on a
 * stream of that device. Reached through glia_backend.collectives; the core's
 * process group (GLIA_DIST_BACKEND_NCCL) exchanges the unique id through its
 * store, orders the collectives on the callers' streams and watches their
 * completion with events, its timeout and comm_error (Note [Device process
 * groups] in src/distributed/process_group_device.cpp). Counts are elements
 * of `dtype`; `op` is a glia_reduce_op value (0 sum, 1 avg, 2 product, 3 min,
 * 4 max). Every function returns NULL on success, else an error made with
 * error_new.
 */
typedef struct glia_backend_collectives {
  size_t struct_size;    /**< sizeof(glia_backend_collectives) of the backend */
  const char *name;      /**< the library's name in messages: "NCCL" */
  size_t unique_id_size; /**< bytes of a communicator's unique id (NCCL: 128) */
  /** Fills `out` (unique_id_size bytes) with a new communicator id; called by rank 0 only. */
  glia_error *(*unique_id)(void *out);
  /** Joins communicator `id` as `rank` of `size` on `device`; fails after timeout_ms when the others do not
   * all join (blocking: returns once the communicator is ready). */
  glia_error *(*comm_init)(const void *id, int32_t size, int32_t rank, int32_t device, int64_t timeout_ms,
                           void **out_comm);
  /** Frees a communicator; abort = 1 first aborts its pending work (a failed or timed-out collective). */
  void (*comm_destroy)(void *comm, int32_t abort);
  /** NULL while the communicator is healthy, else the error it hit asynchronously (a peer died...). */
  glia_error *(*comm_error)(void *comm);
  /** recv = op over the ranks of send (send == recv: in place). */
  glia_error *(*all_reduce)(void *comm, const void *send, void *recv, size_t count, glia_dtype dtype, int32_t op,
                            void *stream);
  /** recv = root's send (on root, send == recv allowed). */
  glia_error *(*broadcast)(void *comm, const void *send, void *recv, size_t count, glia_dtype dtype, int32_t root,
                           void *stream);
  /** On root, recv = op over the ranks of send; recv is not written elsewhere. */
  glia_error *(*reduce)(void *comm, const void *send, void *recv, size_t count, glia_dtype dtype, int32_t op,
                        int32_t root, void *stream);
  /** recv (size * count elements) = every rank's send, in rank order. */
  glia_error *(*all_gather)(void *comm, const void *send, void *recv, size_t count, glia_dtype dtype, void *stream);
  /** recv (count elements) = op over the ranks of send's block `rank` (send has size * count elements). */
  glia_error *(*reduce_scatter)(void *comm, const void *send, void *recv, size_t count, glia_dtype dtype, int32_t op,
                                void *stream);
} glia_backend_collectives;

/** What a backend offers libglia. Lives as long as the backend library. */
typedef struct glia_backend {
  size_t struct_size;           /**< sizeof(glia_backend) of the backend: the core reads only the fields it covers */
  uint32_t abi_version;         /**< GLIA_BACKEND_ABI_VERSION the backend was built for */
  const char *name;             /**< "cuda", "testdevice": printed in device strings ("testdevice:1") */
  glia_device_type device_type; /**< the slot it takes: GLIA_CUDA or GLIA_PRIVATEUSE1 */

  /* ---- devices */
  /** Number of usable devices; 0 when unusable (then `unavailable_reason` says why). */
  int32_t (*device_count)(void);
  /** Why no device can be used ("no CUDA driver"...), NULL when devices are usable. */
  const char *(*unavailable_reason)(void);

  /* ---- memory: device pointers are opaque to the core, never dereferenced by it */
  /** Allocates `nbytes` of memory on `device` into *out_ptr (required). */
  glia_error *(*alloc)(int32_t device, size_t nbytes, void **out_ptr);
  /** Frees a block of alloc; `nbytes` is the size that was asked for (required). */
  void (*free)(int32_t device, void *ptr, size_t nbytes);
  /** Fills *out_stats for `device` (may be NULL: glia_device_memory_stats_get is then GLIA_ERR_UNSUPPORTED). */
  glia_error *(*memory_stats)(int32_t device, glia_backend_memory_stats *out_stats);
  /** Sets the device's peak_bytes_in_use to bytes_in_use (may be NULL: nothing to reset). */
  void (*reset_peak_memory_stats)(int32_t device);
  /** Returns the device's cached blocks to the device (may be NULL: nothing cached). */
  void (*empty_cache)(int32_t device);
  /** Page-locked host memory for fast asynchronous copies, aligned to at least 64 bytes (may be NULL:
   * the core then uses plain memory). The core frees it only once no copy from or to it is queued. */
  glia_error *(*host_alloc_pinned)(size_t nbytes, void **out_ptr);
  /** Frees a block of host_alloc_pinned (NULL exactly when host_alloc_pinned is). */
  void (*host_free_pinned)(void *ptr);

  /* ---- copies of nbytes contiguous bytes, ordered on `stream` (NULL: the device's current stream).
   * non_blocking 0: returns when the copy is complete. non_blocking 1 is allowed only from or to
   * pinned host memory or device to device; the caller synchronises before it reads the result. */
  /** Copies nbytes from src to dst as described above (required). */
  glia_error *(*copy)(glia_copy_kind kind, int32_t dst_device, void *dst, int32_t src_device, const void *src,
                      size_t nbytes, void *stream, int32_t non_blocking);

  /* ---- streams and events (work on a tensor is ordered on its device's current stream).
   * A stream or event is the backend's own handle, opaque to the core; the stream handle of a device's
   * default stream must differ from every stream stream_create returns for that device. The current
   * stream is per calling thread and per device (torch's current stream): set_current_stream on one
   * thread changes what current_stream returns on that thread only. The core never destroys the
   * streams it creates while the backend is loaded (a pool per device, as torch's), and passes
   * event_record a stream of the event's own device. */
  /** Waits until all work queued on every stream of `device` has finished (required). */
  glia_error *(*synchronize)(int32_t device);
  /** The calling thread's current stream of `device` (required). */
  void *(*current_stream)(int32_t device);
  /** Makes `stream` the calling thread's current stream of `device` (may be NULL: it cannot change). */
  glia_error *(*set_current_stream)(int32_t device, void *stream);
  /** A new stream of `device` (NULL: the backend has no streams; glia_stream_create is GLIA_ERR_UNSUPPORTED). */
  glia_error *(*stream_create)(int32_t device, void **out_stream);
  /** Destroys a stream of stream_create; called only when the core cannot keep a new stream (may be NULL). */
  glia_error *(*stream_destroy)(int32_t device, void *stream);
  /** A new event of `device`. Events need event_create, event_record, stream_wait_event and event_destroy. */
  glia_error *(*event_create)(int32_t device, void **out_event);
  /** Records `event` on `stream` (a stream of the event's device). */
  glia_error *(*event_record)(void *event, void *stream);
  /** Makes later work on `stream` wait until the work `event` recorded has finished (never blocks the host). */
  glia_error *(*stream_wait_event)(void *stream, void *event);
  /** Blocks the calling thread until the work `event` recorded has finished. */
  glia_error *(*event_synchronize)(void *event);
  /** Destroys an event of event_create (or event_create_with_flags). */
  glia_error *(*event_destroy)(void *event);

  /* ---- random state (counter-based: a seed and an offset per device) */
  /** Seeds the random state of `device` (offset back to 0); may be NULL. */
  glia_error *(*manual_seed)(int32_t device, uint64_t seed);

  /* ---- kernels */
  /** The backend's kernel for kernel id `kernel`, NULL when it does not support it. */
  glia_kernel_fn (*kernel)(uint32_t kernel);

  /* ---- appended to version 2 (glia 0.2): read only when struct_size covers them; each may be NULL,
   * and the core then does without (as each says), so a backend built before them loads unchanged. */
  /** *out_complete = 1 when all work queued on `stream` has finished, else 0 (never waits).
   * NULL: the core synchronises the stream and answers 1. */
  glia_error *(*stream_query)(void *stream, int32_t *out_complete);
  /** Waits until all work queued on `stream` has finished. NULL: the core records an event on it and
   * waits for that (or, without events, synchronises the device). */
  glia_error *(*stream_synchronize)(void *stream);
  /** stream_create with a priority: lower numbers are more urgent, 0 is the default; the backend clamps
   * it to what the device supports. The core asks for 0 or -1 (torch's high priority). NULL:
   * stream_create, every stream of normal priority. */
  glia_error *(*stream_create_with_priority)(int32_t device, int32_t priority, void **out_stream);
  /** The platform's own handle of `stream` (a cudaStream_t), for interop with other libraries; NULL
   * field: the backend's handle is the platform's. */
  void *(*stream_native)(void *stream);
  /** As stream_query, for an event (1 also for an event never recorded). NULL: the core waits for
   * the event and answers 1. */
  glia_error *(*event_query)(void *event, int32_t *out_complete);
  /** event_create with GLIA_BACKEND_EVENT_* flags. NULL: event_create; timing events are then
   * refused with GLIA_ERR_UNSUPPORTED and the blocking flag is ignored. */
  glia_error *(*event_create_with_flags)(int32_t device, uint32_t flags, void **out_event);
  /** Milliseconds from `start` to `end`, two timing events recorded on the same device; the core has
   * waited for both. */
  glia_error *(*event_elapsed_time)(void *start, void *end, float *out_ms);
  /** Collectives between processes on this backend's devices (NCCL for CUDA). NULL: the backend has none,
   * and GLIA_DIST_BACKEND_NCCL process groups on its devices are GLIA_ERR_UNSUPPORTED. */
  const glia_backend_collectives *collectives;
} glia_backend;

/** Flags of glia_backend.event_create_with_flags. */
#define GLIA_BACKEND_EVENT_TIMING 1u   /**< the event records a time (elapsed_time works) */
#define GLIA_BACKEND_EVENT_BLOCKING 2u /**< a host thread waiting for it blocks instead of spinning */

/** The one symbol a backend exports: `const glia_backend *glia_backend_v2(const glia_backend_services *)`. */
typedef const glia_backend *(*glia_backend_entry_fn)(const glia_backend_services *services);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* GLIA_GLIA_BACKEND_H */
