/**
 * @file
 * glia: an embeddable neural-network engine. This header (with
 * glia/glia_base.h, which it includes) is the whole public contract of
 * libglia (C99 and C++). Read docs/c-api.md first for the rules
 * that every function below follows; each doc block only adds what is
 * particular to its function.
 *
 * The rules in one paragraph: every fallible function returns `glia_error *`,
 * NULL on success, else an error object the caller owns and frees with
 * glia_error_free(). Out-parameters come last, are named out_*, and are not
 * written on failure. Objects are opaque reference-counted handles; every
 * handle returned through an out-parameter is a new reference owned by the
 * caller, released with glia_<type>_release() (which accepts NULL and may be
 * called from any thread). A NULL, wrong-type, released or double-released
 * handle is reported as GLIA_ERR_INVALID_HANDLE, never undefined behaviour.
 * Distinct handles may be used concurrently from any number of threads; a call
 * that mutates an object needs the caller's serialization.
 */
#ifndef GLIA_GLIA_H
#define GLIA_GLIA_H

#include <stddef.h>
#include <stdint.h>

#include "glia/glia_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Runtime                                                                    */
/* ------------------------------------------------------------------------ */
/** @addtogroup runtime
 * @{ */

/** GLIA_VERSION_NUMBER of the library loaded at run time. @since 0.1 */
GLIA_API uint32_t glia_version(void);

/** "MAJOR.MINOR.PATCH" of the library loaded at run time (static string). @since 0.1 */
GLIA_API const char *glia_version_string(void);

/**
 * Sets the number of threads glia's kernels may use (>= 1). glia's own pool
 * starts its n - 1 worker threads lazily, on the first parallel kernel. With
 * a host job system installed (glia_set_parallel_for) this sets how many
 * chunks a kernel is split into. Kernels running on other threads meanwhile
 * keep the split they started with.
 * Errors: GLIA_ERR_INVALID_ARGUMENT when n_threads < 1 or n_threads > 1024;
 * GLIA_ERR_STATE when called inside a parallel region (from a task).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_set_num_threads(int32_t n_threads);

/** The number of threads set by glia_set_num_threads (default: the number of cores). @since 0.1 */
GLIA_API int32_t glia_get_num_threads(void);

/** A unit of work glia hands to a host job system. Never fails. */
typedef void (*glia_parallel_task_fn)(void *task_context, int64_t task_index);

/**
 * A host job system: runs task(task_context, i) for every i in [0, n_tasks),
 * on any threads, and returns when all have finished. A returned error
 * (made with glia_error_new) fails the glia call that needed the work.
 */
typedef glia_error *(*glia_parallel_for_fn)(void *user_data, int64_t n_tasks, glia_parallel_task_fn task,
                                            void *task_context);

/**
 * Hands glia the host's job system (game engines own their threads). From now
 * on glia runs no threads of its own: its pool is joined before this returns.
 * Pass fn = NULL to go back to glia's pool. `free_user_data` (may be NULL) is
 * called exactly once with `user_data` when the registration ends: when it is
 * replaced, at glia_shutdown(), or right away if this call fails.
 * Errors: GLIA_ERR_STATE when a glia kernel is running in the registered job
 * system on another thread (the registration in place is kept), or when
 * called inside a parallel region.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_set_parallel_for(glia_parallel_for_fn fn, void *user_data,
                                                          void (*free_user_data)(void *));

/**
 * Joins glia's threads, ends a host job-system registration, empties the
 * allocator cache and unloads backends, so that the library can be dlclose()d.
 * Handles stay valid; a later call that needs threads starts them again.
 * Must not run concurrently with any other glia call.
 * @since 0.1
 */
GLIA_API void glia_shutdown(void);

/**
 * Seeds the random generators. Each thread has its own generator; this
 * re-seeds every thread's generator with `seed`: the calling thread's at
 * once, any other thread's at its next draw. A thread that never saw a seed
 * starts from the default seed 67280421310721 (torch's). Sequences are
 * therefore reproducible per thread.
 * @since 0.1
 */
GLIA_API void glia_manual_seed(uint64_t seed);

/** Host memory hooks for embedders. Initialise with glia_allocator_init(). */
typedef struct glia_allocator {
  /** sizeof(glia_allocator), set by glia_allocator_init(). */
  size_t struct_size;
  /** Returns `size` bytes aligned to `alignment` (a power of two >= 64), or NULL. */
  void *(*alloc)(void *user_data, size_t size, size_t alignment);
  /** Frees a block from `alloc`; `size` is the size that was asked for. */
  void (*free)(void *user_data, void *ptr, size_t size);
  /** Passed first to alloc, free and free_user_data. */
  void *user_data;
  /** Called once with user_data when no block from this allocator remains and it was replaced. May be NULL. */
  void (*free_user_data)(void *user_data);
} glia_allocator;

/** Sets `*allocator` to an empty (default) description with struct_size filled in. @since 0.1 */
GLIA_API void glia_allocator_init(glia_allocator *allocator);

/**
 * Routes every later CPU tensor allocation through `allocator` (NULL: back to
 * the built-in aligned allocator). The cache of the previous allocator is
 * emptied; blocks still in use go back to the allocator that made them.
 * Errors: GLIA_ERR_INVALID_ARGUMENT for a struct_size that is too small or a
 * missing alloc/free function (free_user_data is then still called).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_set_allocator(const glia_allocator *allocator);

/** Memory statistics (bytes of tensor storage): the CPU's, or one device's (glia_device_memory_stats_get). */
typedef struct glia_memory_stats {
  /** sizeof(glia_memory_stats), set by the caller; glia writes only the fields it covers. */
  size_t struct_size;
  uint64_t bytes_in_use;      /**< held by live tensors */
  uint64_t peak_bytes_in_use; /**< maximum of bytes_in_use since start or glia_reset_peak_memory_stats */
  uint64_t bytes_cached;      /**< freed by tensors, kept for reuse */
  uint64_t allocations;       /**< number of blocks handed to tensors so far */
} glia_memory_stats;

/**
 * Fills `out_stats` (set out_stats->struct_size first; fields past it are not written).
 * Errors: GLIA_ERR_INVALID_ARGUMENT for NULL or a struct_size too small.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_memory_stats_get(glia_memory_stats *out_stats);

/** Sets peak_bytes_in_use to bytes_in_use. @since 0.1 */
GLIA_API void glia_reset_peak_memory_stats(void);

/** Returns every cached block to its allocator. @since 0.1 */
GLIA_API void glia_empty_cache(void);

/** Receives glia's log messages (may be called from any thread). */
typedef void (*glia_log_fn)(void *user_data, enum glia_log_level level, const char *message);

/**
 * Sends log messages of at least `min_level` to `fn` (NULL: silence, the
 * default). free_user_data as for glia_set_parallel_for.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_set_log_callback(glia_log_fn fn, enum glia_log_level min_level,
                                                          void *user_data, void (*free_user_data)(void *));

/* ---- Determinism and TF32 (torch.use_deterministic_algorithms, torch.backends.*.allow_tf32) */

/**
 * torch.use_deterministic_algorithms(enabled): with 1, ops that have a choice
 * of algorithm choose only deterministic ones (two runs with the same inputs
 * give the same bits). Today that concerns the CUDA backend's convolutions
 * (cuDNN algorithms reported deterministic); glia's CPU kernels are
 * deterministic anyway. Process-wide, as torch's; takes effect at the next
 * kernel call. Default 0.
 * Errors: GLIA_ERR_INVALID_ARGUMENT when `enabled` is not 0 or 1 (nothing changes).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_set_deterministic_algorithms(int32_t enabled);

/** torch.are_deterministic_algorithms_enabled(): the flag of glia_set_deterministic_algorithms (0 or 1). @since 0.2 */
GLIA_API int32_t glia_get_deterministic_algorithms(void);

/**
 * torch.backends.cudnn.deterministic = enabled: with 1, cuDNN convolutions use
 * only deterministic algorithms (as with glia_set_deterministic_algorithms,
 * but for cuDNN alone). Process-wide. Default 0.
 * Errors: GLIA_ERR_INVALID_ARGUMENT when `enabled` is not 0 or 1 (nothing changes).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_set_cudnn_deterministic(int32_t enabled);

/** torch.backends.cudnn.deterministic: the flag of glia_set_cudnn_deterministic (0 or 1). @since 0.2 */
GLIA_API int32_t glia_get_cudnn_deterministic(void);

/** Which float32 computations glia_set_allow_tf32 concerns. */
typedef enum glia_tf32_scope GLIA_ENUM_BASE {
  GLIA_TF32_MATMUL = 0, /**< matrix products (mm, bmm, addmm, matmul, linear) through cuBLAS:
                             torch.backends.cuda.matmul.allow_tf32, default 0 */
  GLIA_TF32_CUDNN = 1   /**< convolutions through cuDNN: torch.backends.cudnn.allow_tf32, default 1 */
} glia_tf32_scope;

/**
 * Lets float32 computations of `scope` on CUDA devices use TF32 tensor cores
 * (10-bit mantissa products, float32 accumulation) when `allow` is 1:
 * torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32,
 * with torch's defaults (0 for matrix products, 1 for convolutions).
 * Process-wide; takes effect at the next kernel call. CPU kernels never use TF32.
 * Errors: GLIA_ERR_INVALID_ARGUMENT for a scope that is not a glia_tf32_scope
 * or an `allow` that is not 0 or 1 (nothing changes).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_set_allow_tf32(glia_tf32_scope scope, int32_t allow);

/**
 * The flag of glia_set_allow_tf32 for `scope` (0 or 1) in *out.
 * Errors: GLIA_ERR_INVALID_ARGUMENT for a scope that is not a glia_tf32_scope.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_get_allow_tf32(glia_tf32_scope scope, int32_t *out);

/** @} */
/** @addtogroup devices
 * @{ */

/**
 * Loads a backend library by name ("cuda") or path. The CUDA backend
 * (libglia_cuda.so.0) is looked up next to libglia first, then by the system
 * loader. Loading twice is a no-op.
 * Errors: GLIA_ERR_NOT_FOUND when the library cannot be loaded (the message
 * carries dlerror()), GLIA_ERR_UNSUPPORTED for an unknown name or a library
 * that is not a glia backend or was built for another ABI.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_backend_load(const char *name);

/** 1 when the CUDA backend loads and sees at least one device, else 0. Never fails. @since 0.1 */
GLIA_API int32_t glia_cuda_is_available(void);

/** The number of CUDA devices the backend sees (0 without backend or device). @since 0.1 */
GLIA_API int32_t glia_cuda_device_count(void);

/** @} */
/** @addtogroup devices
 * @{ */

/** A device: its type and index (0 for the CPU; -1 for CUDA means the current device). */
typedef struct glia_device {
  /** GLIA_CPU, GLIA_CUDA or GLIA_PRIVATEUSE1. */
  glia_device_type type;
  /** The device's index within its type: 0 for the CPU, -1 for the current CUDA device. */
  int32_t index;
} glia_device;

/**
 * Whether devices of `type` can be used, and why not. `*out_device_count`
 * (may be NULL) gets the number of usable devices; the buffer gets "" when
 * there is at least one, else the reason: the dlopen() error of the backend
 * library, "no CUDA driver", or that no backend is loaded for the type.
 * (buffer, capacity, out_length) as for glia_tensor_to_string. Loads the
 * CUDA backend on first use, as glia_cuda_is_available does.
 * Errors: GLIA_ERR_INVALID_ARGUMENT for an unknown type or a NULL buffer with capacity > 0.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_backend_status(glia_device_type type, int32_t *out_device_count, char *buffer,
                                                        size_t capacity, size_t *out_length);

/**
 * Waits until all work queued on `device` has finished (a no-op for the CPU).
 * Work on a tensor is ordered on its device's current stream; copies to the
 * host wait for it before they return, so most programs never call this.
 * Errors: GLIA_ERR_DEVICE for a device that is not available.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_device_synchronize(glia_device device);

/**
 * Memory statistics of one device (torch.cuda.memory_stats(device)): for the
 * CPU the same as glia_memory_stats_get, for a backend's device what its
 * allocator reports. `out_stats` as for glia_memory_stats_get.
 * Errors: GLIA_ERR_DEVICE for a device that is not available,
 * GLIA_ERR_UNSUPPORTED for a backend that keeps no statistics.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_device_memory_stats_get(glia_device device, glia_memory_stats *out_stats);
/** glia_reset_peak_memory_stats for one device. Errors: GLIA_ERR_DEVICE. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_device_reset_peak_memory_stats(glia_device device);
/** glia_empty_cache for one device (torch.cuda.empty_cache). Errors: GLIA_ERR_DEVICE. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_device_empty_cache(glia_device device);

/* ------------------------------------------------------------------------ */
/* Streams and events                                                         */
/* ------------------------------------------------------------------------ */

/*
 * torch.cuda.Stream and torch.cuda.Event (docs/c-api.md, "Streams, events and
 * non-blocking copies"). Work on a tensor (its ops, copies to and from it) is
 * queued on its device's current stream, which is per thread and per device:
 * each device starts with its default stream current on every thread. Streams
 * come from a pool of 32 per device and priority, handed out round-robin as
 * torch's getStreamFromPool does (the 33rd glia_stream_create of a device
 * gives the stream of the first again, as the same handle while that one is
 * alive); they live as long as libglia, so releasing a handle never destroys
 * a stream that some thread still has current. The CPU has one stream, its
 * default, on which everything runs synchronously: every call below works for
 * the CPU and completes at once (CPU events record the host's clock), so code
 * written for a GPU runs unchanged on the CPU.
 * Errors of every function here: GLIA_ERR_DEVICE for a device that is not
 * available (the message names it and says why), GLIA_ERR_UNSUPPORTED for a
 * backend without streams or events, a backend's own GLIA_ERR_DEVICE for a
 * failure of the device.
 */

/** A stream of one device: an ordered queue of work. Opaque, reference counted. */
typedef struct glia_stream glia_stream;
/** An event: a marker recorded on a stream, to wait for or to time. Opaque, reference counted. */
typedef struct glia_event glia_event;

/** Options of glia_stream_create. Initialise with glia_stream_options_init(). */
typedef struct glia_stream_options {
  /** sizeof(glia_stream_options), set by glia_stream_options_init(). */
  size_t struct_size;
  /**
   * torch's priority (1.13): 0, the default, or negative for a stream of high
   * priority (-1), whose work the device prefers. Positive values are 0. A
   * backend without priorities gives normal streams.
   */
  int32_t priority;
} glia_stream_options;

/** Sets `*options` to the defaults (priority 0) with struct_size filled in. @since 0.2 */
GLIA_API void glia_stream_options_init(glia_stream_options *options);

/**
 * torch.cuda.Stream(device, priority): a stream of `device` from its pool (see
 * above); `options` may be NULL. On the CPU, the CPU's one stream.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_stream_create(glia_device device, const glia_stream_options *options,
                                                       glia_stream **out);
/** Adds a reference. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_stream_retain(glia_stream *stream);
/** Drops a reference (never destroys the stream itself, see above). Accepts NULL. Any thread. @since 0.2 */
GLIA_API glia_error *glia_stream_release(glia_stream *stream);

/**
 * torch.cuda.current_stream(device): the calling thread's current stream of
 * `device`, its default stream unless glia_device_set_current_stream chose
 * another. The same handle as every other live handle of that stream.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_device_current_stream(glia_device device, glia_stream **out);

/**
 * torch.cuda.set_stream(stream): makes `stream` the calling thread's current
 * stream of its device; other threads and devices keep theirs. torch's
 * `with torch.cuda.stream(s):` is glia_device_current_stream, this call, the
 * work, and this call with the stream saved. A no-op for the CPU's stream.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_device_set_current_stream(const glia_stream *stream);

/** The device of `stream`. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_stream_device(const glia_stream *stream, glia_device *out_device);

/** Waits until all work queued on `stream` has finished (stream.synchronize()). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_stream_synchronize(const glia_stream *stream);

/**
 * stream.query(): 1 in *out_complete when all work queued on `stream` has
 * finished, else 0. Never waits, except on a backend that cannot tell (it then
 * synchronises and answers 1).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_stream_query(const glia_stream *stream, int32_t *out_complete);

/**
 * stream.wait_event(event): work queued on `stream` after this call starts
 * only after the work `event` recorded has finished; the host does not wait.
 * `stream` NULL is the current stream of the event's device. An event never
 * recorded, or recorded on the CPU, has nothing to wait for. Between devices
 * of one backend the device waits; for the CPU's stream, or a stream of
 * another backend, the calling thread waits for the event instead.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_stream_wait_event(const glia_stream *stream, const glia_event *event);

/** stream.wait_stream(other): later work on `stream` waits for the work queued on `other` so far. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_stream_wait_stream(const glia_stream *stream, const glia_stream *other);

/**
 * The platform's handle of `stream` (torch's stream.cuda_stream): a
 * cudaStream_t for CUDA (NULL is CUDA's legacy default stream, the default
 * stream of every CUDA device), the backend's own handle for another backend,
 * NULL for the CPU. For handing the stream to other libraries; it lives as
 * long as libglia.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_stream_native(const glia_stream *stream, void **out_native);

/** Options of glia_event_create. Initialise with glia_event_options_init(). */
typedef struct glia_event_options {
  /** sizeof(glia_event_options), set by glia_event_options_init(). */
  size_t struct_size;
  int32_t enable_timing; /**< 1: the event records a time, for glia_event_elapsed_time (default 0) */
  int32_t blocking;      /**< 1: a thread waiting for the event sleeps instead of spinning (default 0) */
} glia_event_options;

/** Sets `*options` to the defaults (no timing, not blocking) with struct_size filled in. @since 0.2 */
GLIA_API void glia_event_options_init(glia_event_options *options);

/**
 * torch.cuda.Event(enable_timing, blocking), on `device`; `options` may be
 * NULL. Errors: GLIA_ERR_UNSUPPORTED for enable_timing on a backend that
 * cannot time events.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_event_create(glia_device device, const glia_event_options *options,
                                                      glia_event **out);
/** Adds a reference. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_event_retain(glia_event *event);
/** Drops a reference; the last one destroys the event. Accepts NULL. Any thread. @since 0.2 */
GLIA_API glia_error *glia_event_release(glia_event *event);

/**
 * event.record(stream): marks the work queued on `stream` so far (NULL: the
 * current stream of the event's device). Recording again moves the mark.
 * Errors: GLIA_ERR_DEVICE for a stream of another device than the event's
 * (torch's "Event device cuda:0 does not match recording stream's device
 * cuda:1"); the event is then unchanged.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_event_record(glia_event *event, const glia_stream *stream);

/** Waits until the work the event recorded has finished (returns at once for an event never recorded). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_event_synchronize(const glia_event *event);

/**
 * event.query(): 1 in *out_complete when the work the event recorded has
 * finished (or it was never recorded), else 0. Never waits, as glia_stream_query.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_event_query(const glia_event *event, int32_t *out_complete);

/**
 * start.elapsed_time(end): milliseconds from `start` to `end`, after waiting
 * for both. Errors: GLIA_ERR_INVALID_ARGUMENT unless both were created with
 * enable_timing, GLIA_ERR_DEVICE for events of two devices, GLIA_ERR_STATE
 * unless both were recorded.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_event_elapsed_time(const glia_event *start, const glia_event *end,
                                                            double *out_ms);

/** The device of `event`. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_event_device(const glia_event *event, glia_device *out_device);

/** @} */
/* ------------------------------------------------------------------------ */
/* Tensors                                                                    */
/* ------------------------------------------------------------------------ */
/** @addtogroup tensors
 * @{ */

/** A tensor: a strided view of a storage. Opaque, reference counted. */
typedef struct glia_tensor glia_tensor;

/** Adds a reference. Errors: GLIA_ERR_INVALID_HANDLE. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_retain(glia_tensor *tensor);

/**
 * Drops a reference; the last one frees the tensor (its storage lives on while
 * views of it do). Accepts NULL (returns NULL). Any thread.
 * Errors: GLIA_ERR_INVALID_HANDLE for a released (double release) or foreign handle.
 * @since 0.1
 */
GLIA_API glia_error *glia_tensor_release(glia_tensor *tensor);

/** Options of the factory functions. Initialise with glia_tensor_options_init(). */
typedef struct glia_tensor_options {
  /** sizeof(glia_tensor_options), set by glia_tensor_options_init(). */
  size_t struct_size;
  glia_dtype dtype;   /**< default GLIA_FLOAT32 */
  glia_device device; /**< default CPU */
} glia_tensor_options;

/** Sets `*options` to the defaults (float32, CPU) with struct_size filled in. @since 0.1 */
GLIA_API void glia_tensor_options_init(glia_tensor_options *options);

/*
 * Factories. `shape` holds `ndim` sizes (each >= 0; ndim 0 is a scalar and
 * shape may then be NULL); `options` may be NULL for the defaults.
 * Errors: GLIA_ERR_INVALID_ARGUMENT (negative size, ndim < 0 or > 64, NULL
 * out), GLIA_ERR_SHAPE (the element count, the byte size or the product of
 * the nonzero sizes overflows int64: torch's "Storage size calculation
 * overflowed with sizes=[...]"), GLIA_ERR_DTYPE (unknown dtype),
 * GLIA_ERR_DEVICE (device not available), GLIA_ERR_OUT_OF_MEMORY (also for
 * sizes no allocator can satisfy).
 */

/** Uninitialised memory. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_empty(const int64_t *shape, int64_t ndim,
                                                      const glia_tensor_options *options, glia_tensor **out);
/** Zeros. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_zeros(const int64_t *shape, int64_t ndim,
                                                      const glia_tensor_options *options, glia_tensor **out);
/** Ones. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_ones(const int64_t *shape, int64_t ndim,
                                                     const glia_tensor_options *options, glia_tensor **out);
/**
 * Every element `value`, converted as torch converts a Python scalar: a value
 * the dtype cannot hold (NaN or inf in an integer dtype, 300 in uint8, 1e300
 * in float32) is GLIA_ERR_INVALID_ARGUMENT with torch's text ("value cannot
 * be converted to type int64_t without overflow"). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_full(const int64_t *shape, int64_t ndim, double value,
                                                     const glia_tensor_options *options, glia_tensor **out);
/**
 * start, start + step, ... while < end (> end for a negative step), torch's
 * length rule ceil((end - start) / step). With `options` NULL the dtype is
 * int64 when start, end and step are whole numbers, else float32 (torch's
 * rule for Python numbers). Errors: GLIA_ERR_INVALID_ARGUMENT for step 0, a
 * step whose sign disagrees with end - start, or a non-finite bound.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_arange(double start, double end, double step,
                                                       const glia_tensor_options *options, glia_tensor **out);
/** Uniform on [0, 1) from the calling thread's generator (floating dtypes only, else GLIA_ERR_DTYPE). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_rand(const int64_t *shape, int64_t ndim,
                                                     const glia_tensor_options *options, glia_tensor **out);
/** Standard normal from the calling thread's generator (floating dtypes only). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_randn(const int64_t *shape, int64_t ndim,
                                                      const glia_tensor_options *options, glia_tensor **out);

/* ---- more factories (torch.eye, linspace, logspace, randint, *_like) ------ */

/**
 * torch.eye(n, m): a [rows, cols] tensor with ones on the main diagonal, zeros elsewhere (cols = rows
 * for torch.eye(n); any dtype but bfloat16, which torch 1.13 lacks). Errors: GLIA_ERR_INVALID_ARGUMENT
 * for a negative rows or cols (torch's "n must be greater or equal to 0, got -1"), and as the factories.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_eye(int64_t rows, int64_t cols, const glia_tensor_options *options,
                                                    glia_tensor **out);
/**
 * torch.linspace: `steps` values evenly spaced from start to end (both included; torch's formula, the
 * first half counted from start and the second from end). Integer dtypes truncate; bool is
 * GLIA_ERR_DTYPE. Errors: GLIA_ERR_INVALID_ARGUMENT for steps < 0, and as the factories.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_linspace(double start, double end, int64_t steps,
                                                         const glia_tensor_options *options, glia_tensor **out);
/** torch.logspace: base ** glia_tensor_linspace(start, end, steps); errors as glia_tensor_linspace. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_logspace(double start, double end, int64_t steps, double base,
                                                         const glia_tensor_options *options, glia_tensor **out);
/**
 * torch.randint(low, high, shape): integers uniform in [low, high) from the calling thread's generator.
 * `options` NULL: int64 on the CPU (torch's default). Errors: GLIA_ERR_INVALID_ARGUMENT when low >= high
 * or a bound does not fit the dtype (torch's "random_ expects 'from' to be less than 'to', ...", "to - 1
 * is out of bounds for unsigned char"), and as the factories.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_randint(int64_t low, int64_t high, const int64_t *shape, int64_t ndim,
                                                        const glia_tensor_options *options, glia_tensor **out);
/*
 * The *_like factories: a tensor of a's shape. `options` NULL: a's dtype and device; otherwise both
 * come from options. Strides are a's when a is dense and non-overlapping (torch's
 * memory_format=torch.preserve_format), else contiguous. Errors: as the factories, plus
 * GLIA_ERR_INVALID_HANDLE for a.
 */
/** torch.empty_like: uninitialised memory. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_empty_like(const glia_tensor *a, const glia_tensor_options *options,
                                                           glia_tensor **out);
/** torch.zeros_like. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_zeros_like(const glia_tensor *a, const glia_tensor_options *options,
                                                           glia_tensor **out);
/** torch.ones_like. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_ones_like(const glia_tensor *a, const glia_tensor_options *options,
                                                          glia_tensor **out);
/** torch.full_like: every element `value`, converted as glia_tensor_full converts it. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_full_like(const glia_tensor *a, double value,
                                                          const glia_tensor_options *options, glia_tensor **out);
/** torch.rand_like: uniform on [0, 1) (floating dtypes only, else GLIA_ERR_DTYPE). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_rand_like(const glia_tensor *a, const glia_tensor_options *options,
                                                          glia_tensor **out);
/** torch.randn_like: standard normal (floating dtypes only, else GLIA_ERR_DTYPE). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_randn_like(const glia_tensor *a, const glia_tensor_options *options,
                                                           glia_tensor **out);

/**
 * A new contiguous CPU tensor holding a copy of `data` (row-major, `nbytes`
 * must equal numel * glia_dtype_size(dtype)).
 * Errors: as the factories, plus GLIA_ERR_INVALID_ARGUMENT when nbytes
 * disagrees (the message gives both) or data is NULL with nbytes > 0.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_from_data(const void *data, size_t nbytes, const int64_t *shape,
                                                          int64_t ndim, glia_dtype dtype, glia_tensor **out);

/** Frees a blob handed to glia_tensor_from_blob. */
typedef void (*glia_blob_deleter)(void *deleter_context, void *data);

/**
 * A tensor over memory the caller owns, without copying. `strides` (in
 * elements, may be NULL for row-major) has `ndim` entries. `deleter` (may be
 * NULL) is called exactly once with (deleter_context, data): when the last
 * tensor or view over the blob is released, or before this function returns
 * if it fails. The memory must stay valid and must not move until then.
 * Errors: as the factories; GLIA_ERR_INVALID_ARGUMENT for NULL data with
 * numel > 0, negative strides, `data` not aligned to the dtype's element size
 * (copy such memory with glia_tensor_from_data), or strides that make the
 * tensor span more than 2^57 bytes; GLIA_ERR_SHAPE when the span overflows;
 * GLIA_ERR_DEVICE for a device other than CPU without a loaded backend.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_from_blob(void *data, const int64_t *shape, const int64_t *strides,
                                                          int64_t ndim, glia_dtype dtype, glia_device device,
                                                          glia_blob_deleter deleter, void *deleter_context,
                                                          glia_tensor **out);

struct DLManagedTensor;

/**
 * Imports a DLPack tensor without copying (DLPack 0.6+ `DLManagedTensor`,
 * dlpack/dlpack.h). On success glia owns `managed` and calls its deleter
 * exactly once when the last view is released; on failure the caller keeps
 * ownership and glia does not call the deleter.
 * Errors: GLIA_ERR_DTYPE for a type glia lacks (the message names code, bits,
 * lanes), GLIA_ERR_DEVICE for a device glia cannot use,
 * GLIA_ERR_INVALID_ARGUMENT for NULL or a misaligned byte_offset.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_from_dlpack(struct DLManagedTensor *managed, glia_tensor **out);

/**
 * Exports `tensor` as a DLPack tensor without copying. The caller owns
 * `*out_managed` and must call its deleter once (which releases glia's
 * reference). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_to_dlpack(glia_tensor *tensor, struct DLManagedTensor **out_managed);

/** Number of dimensions. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_ndim(const glia_tensor *tensor, int64_t *out_ndim);
/**
 * Copies the sizes into out_shape[0..ndim). Errors: GLIA_ERR_INVALID_ARGUMENT
 * when capacity < ndim (nothing written). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_shape(const glia_tensor *tensor, int64_t capacity, int64_t *out_shape);
/** Copies the strides (in elements), as glia_tensor_shape. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_strides(const glia_tensor *tensor, int64_t capacity,
                                                        int64_t *out_strides);
/** Offset of the first element in its storage, in elements. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_storage_offset(const glia_tensor *tensor, int64_t *out_offset);
/** Element type. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dtype(const glia_tensor *tensor, glia_dtype *out_dtype);
/** Device. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_device(const glia_tensor *tensor, glia_device *out_device);
/** Number of elements. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_numel(const glia_tensor *tensor, int64_t *out_numel);
/** 1 when the tensor is contiguous in row-major order, else 0. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_is_contiguous(const glia_tensor *tensor, int32_t *out_contiguous);

/**
 * Address of the first element (storage data + offset) of a CPU tensor,
 * valid while the tensor lives. Writes through it are seen by every view.
 * Errors: GLIA_ERR_DEVICE for a non-CPU tensor. @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_data(glia_tensor *tensor, void **out_data);

/**
 * Copies the elements, in row-major order and in the tensor's own dtype, to
 * host memory `dst` of `nbytes` bytes (which must equal numel * element size).
 * Works for any strides and device. @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_copy_to_host(const glia_tensor *tensor, void *dst, size_t nbytes);

/** The single element as a double (torch's .item()). Errors: GLIA_ERR_SHAPE when numel != 1. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_item_double(const glia_tensor *tensor, double *out_value);
/** The single element as int64 (floating values are truncated toward zero). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_item_int64(const glia_tensor *tensor, int64_t *out_value);

/**
 * torch's .to(device, dtype): a tensor on `*device` with `*dtype`, either
 * NULL to keep the tensor's own (as glia_module_to); a new reference to
 * `tensor` itself when both already match. Differentiable across devices.
 * Conversions follow torch: round to nearest even for float16/bfloat16,
 * truncation toward zero for float to integer, nonzero is true for bool.
 * Copies to the host wait for the device's stream before they return.
 * @since 0.1 (pointer arguments since 0.2)
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_to(const glia_tensor *tensor, const glia_device *device,
                                                   const glia_dtype *dtype, glia_tensor **out);
/**
 * torch's .to(device, dtype, non_blocking=True): glia_tensor_to, except that a
 * copy between the host and a device may return before it completes. A copy
 * from a device to the CPU then lands in pinned memory of the device's backend
 * (glia_tensor_is_pinned gives 1; on a backend without pinned memory it is
 * ordinary memory and the copy blocks) and must not be read before the device's
 * current stream is waited for (glia_stream_synchronize, an event, or
 * glia_device_synchronize); a copy from pinned host memory to a device reads
 * its source until then. Copies from or to ordinary host memory, and copies
 * that convert the dtype on the host, block as glia_tensor_to does.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_to_non_blocking(const glia_tensor *tensor, const glia_device *device,
                                                                const glia_dtype *dtype, glia_tensor **out);

/**
 * torch's Tensor.pin_memory(): a copy of the CPU tensor `tensor` (contiguous)
 * in page-locked memory of the backend of `device_type` (GLIA_CUDA or
 * GLIA_PRIVATEUSE1), from which non-blocking copies to that backend's devices
 * run asynchronously; `tensor` itself (a new reference) when it is pinned
 * already. On a backend that offers no pinned memory the copy is in ordinary
 * memory (glia_tensor_is_pinned then gives 0). Differentiable
 * (PinMemoryBackward0).
 * Errors: GLIA_ERR_DEVICE for a tensor not on the CPU, for GLIA_CPU, or when
 * no device of that type is available (the message says why).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_pin_memory(const glia_tensor *tensor, glia_device_type device_type,
                                                           glia_tensor **out);
/** torch's Tensor.is_pinned(): 1 when the tensor's storage is pinned host memory of any backend, else 0. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_is_pinned(const glia_tensor *tensor, int32_t *out_pinned);
/** A contiguous tensor with the same values: `tensor` itself (new reference) when already contiguous. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_contiguous(const glia_tensor *tensor, glia_tensor **out);
/** A copy with its own contiguous storage. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_clone(const glia_tensor *tensor, glia_tensor **out);
/** A view sharing storage, outside any autograd graph. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_detach(const glia_tensor *tensor, glia_tensor **out);

/**
 * torch's repr of the tensor, e.g. "tensor([[1., 2.],\n        [3., 4.]])",
 * with torch's default print options (precision 4, summarising with "..."
 * above 1000 elements, dtype suffix for non-default dtypes). Writes at most
 * capacity - 1 bytes and a NUL to `buffer` (which may be NULL when capacity
 * is 0) and the full length without NUL to `*out_length`, snprintf style:
 * call once with capacity 0 to size the buffer.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_to_string(const glia_tensor *tensor, char *buffer, size_t capacity,
                                                          size_t *out_length);

/** @} */
/* ------------------------------------------------------------------------ */
/* Autograd                                                                   */
/* ------------------------------------------------------------------------ */
/** @addtogroup autograd
 * @{ */

/** 1 when gradients are recorded for `tensor` (a leaf that requires grad, or an op result in a graph). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_requires_grad(const glia_tensor *tensor, int32_t *out_requires_grad);

/**
 * torch's requires_grad_(). Errors: GLIA_ERR_DTYPE for a non-floating tensor
 * when flag is 1; GLIA_ERR_STATE when clearing the flag of a non-leaf.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_set_requires_grad(glia_tensor *tensor, int32_t flag);

/** 1 when `tensor` has no grad_fn (it was not made by a recorded op). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_is_leaf(const glia_tensor *tensor, int32_t *out_is_leaf);

/** The accumulated gradient (.grad) as a new reference, or NULL in *out_grad when there is none. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_grad(const glia_tensor *tensor, glia_tensor **out_grad);

/**
 * Sets .grad (NULL clears it). Errors: GLIA_ERR_SHAPE / GLIA_ERR_DTYPE /
 * GLIA_ERR_DEVICE when `grad` does not match the tensor's shape, dtype or
 * device (torch's .grad setter), GLIA_ERR_INVALID_ARGUMENT "can't assign
 * Variable as its own grad" when `grad` is `tensor` itself (since 0.2); the
 * tensor's grad is then unchanged.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_set_grad(glia_tensor *tensor, glia_tensor *grad);

/** torch's retain_grad(): a non-leaf keeps its .grad after backward. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_retain_grad(glia_tensor *tensor);

/**
 * The name of the tensor's grad_fn ("AddBackward0", ...) snprintf style as in
 * glia_tensor_to_string; "" for a leaf.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_grad_fn_name(const glia_tensor *tensor, char *buffer, size_t capacity,
                                                             size_t *out_length);

/**
 * tensor.backward(gradient, retain_graph): `grad` may be NULL for a
 * one-element tensor. Errors: GLIA_ERR_STATE when the tensor does not require
 * grad, when a non-scalar has no `grad`, when the graph was already freed by
 * an earlier backward without retain_graph, or when a saved tensor was
 * modified in place (torch's messages).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_backward(glia_tensor *tensor, const glia_tensor *grad,
                                                         int32_t retain_graph);

/**
 * torch.autograd.backward over several roots with create_graph: `grads` may
 * be NULL (all implicit) or hold NULL entries.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_autograd_backward(glia_tensor *const *tensors, int64_t n_tensors,
                                                           glia_tensor *const *grads, int32_t retain_graph,
                                                           int32_t create_graph);

/**
 * torch.autograd.grad: writes n_inputs new references (or NULL for unused
 * inputs when allow_unused) to out_grads. `grad_outputs` may be NULL. Leaves'
 * .grad are not touched. On failure nothing is written. n_inputs 0 is
 * GLIA_ERR_INVALID_ARGUMENT "grad requires non-empty inputs." (since 0.2).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_autograd_grad(glia_tensor *const *outputs, int64_t n_outputs,
                                                       glia_tensor *const *inputs, int64_t n_inputs,
                                                       glia_tensor *const *grad_outputs, int32_t retain_graph,
                                                       int32_t create_graph, int32_t allow_unused,
                                                       glia_tensor **out_grads);

/** 1 when the calling thread records graphs (grad mode is thread-local, on by default). @since 0.1 */
GLIA_API int32_t glia_grad_mode_enabled(void);

/** Turns the calling thread's grad mode on or off (torch.no_grad / enable_grad). @since 0.1 */
GLIA_API void glia_grad_mode_set(int32_t enabled);

/**
 * Turns the calling thread's inference mode on or off (torch.inference_mode).
 * While it is on, grad mode is off and every tensor created is an inference
 * tensor. An inference tensor never takes part in autograd: outside inference
 * mode, saving one for backward, updating one in place or setting
 * requires_grad on one is GLIA_ERR_STATE (torch's messages); clone it to get a
 * normal tensor. glia_grad_mode_set inside inference mode does not turn
 * recording back on.
 * @since 0.1
 */
GLIA_API void glia_inference_mode_set(int32_t enabled);

/** 1 when the calling thread is in inference mode. @since 0.1 */
GLIA_API int32_t glia_inference_mode_enabled(void);

/** torch.Tensor.is_inference. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_is_inference(const glia_tensor *tensor, int32_t *out);

/**
 * A tensor hook: called with the gradient flowing into the tensor during
 * backward. Set *out_replacement to a new gradient (a new reference glia takes
 * over) or leave it NULL to keep the gradient. A returned error aborts the
 * backward with GLIA_ERR_CALLBACK carrying its message.
 */
typedef glia_error *(*glia_tensor_hook_fn)(void *user_data, const glia_tensor *grad, glia_tensor **out_replacement);

/**
 * torch's register_hook. free_user_data (may be NULL) runs exactly once: on
 * removal, when the tensor's graph dies, or right away if this call fails.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_register_hook(glia_tensor *tensor, glia_tensor_hook_fn fn,
                                                              void *user_data, void (*free_user_data)(void *),
                                                              uint64_t *out_hook_id);

/** Removes a hook. Errors: GLIA_ERR_NOT_FOUND for an unknown id. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_remove_hook(glia_tensor *tensor, uint64_t hook_id);

/**
 * A post-accumulate-grad hook: called with the leaf tensor itself once its
 * .grad has been accumulated during backward (read it with glia_tensor_grad).
 * A returned error aborts the backward with GLIA_ERR_CALLBACK carrying its message.
 * @since 0.2
 */
typedef glia_error *(*glia_post_accumulate_grad_hook_fn)(void *user_data, glia_tensor *tensor);

/**
 * torch's Tensor.register_post_accumulate_grad_hook. Hooks run in the order
 * registered, after the tensor hooks; glia_tensor_remove_hook removes one.
 * free_user_data (may be NULL) runs exactly once: on removal, when the tensor
 * dies, or right away if this call fails. Errors: GLIA_ERR_STATE "post
 * accumulate grad hooks cannot be registered on non-leaf tensors", "cannot
 * register a hook on a tensor that doesn't require gradient".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_register_post_accumulate_grad_hook(glia_tensor *tensor,
                                                                                   glia_post_accumulate_grad_hook_fn fn,
                                                                                   void *user_data,
                                                                                   void (*free_user_data)(void *),
                                                                                   uint64_t *out_hook_id);

/** A callback queued with glia_autograd_queue_callback. @since 0.2 */
typedef glia_error *(*glia_backward_callback_fn)(void *user_data);

/**
 * torch's Variable._execution_engine.queue_callback: from inside a backward
 * (a hook, a custom function's backward), queues `fn` to run once the
 * backward has gone through the whole graph, on the same thread, in the
 * order queued (a callback may queue more). A callback's error fails the
 * backward with GLIA_ERR_CALLBACK; a backward that fails drops its queued
 * callbacks. free_user_data (may be NULL) runs exactly once, after the
 * callback ran or was dropped, or right away if this call fails.
 * Errors: GLIA_ERR_STATE "Final callbacks can only be installed during backward pass."
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_autograd_queue_callback(glia_backward_callback_fn fn, void *user_data,
                                                                 void (*free_user_data)(void *));

/* ---- custom autograd functions (torch.autograd.Function) ------------------ */

/**
 * The context of one application of a custom function: valid only during its
 * forward and backward callbacks.
 */
typedef struct glia_autograd_ctx glia_autograd_ctx;

/**
 * Forward: computes n_outputs tensors from n_inputs (it runs with grad mode
 * off, as torch's Function.forward does) and writes a new reference to each
 * outputs[k] (glia takes them over). It may call
 * glia_autograd_ctx_save_for_backward. Return NULL, or an error made with
 * glia_error_new: glia_autograd_function_apply then fails with
 * GLIA_ERR_CALLBACK carrying its message.
 */
typedef glia_error *(*glia_autograd_forward_fn)(void *user_data, glia_autograd_ctx *ctx,
                                                const glia_tensor *const *inputs, int64_t n_inputs, glia_tensor **outs,
                                                int64_t n_outs);
/**
 * Backward: receives one gradient per output (zeros for outputs no gradient
 * reached) and writes a new reference (or leaves NULL: no gradient) to each
 * grad_inputs[i]; a gradient must have its input's shape (or one that sums to
 * it by broadcasting). Grad mode is on during backward exactly when the
 * backward was asked to create a graph (create_graph), so gradients computed
 * with glia's ops are themselves differentiable.
 */
typedef glia_error *(*glia_autograd_backward_fn)(void *user_data, glia_autograd_ctx *ctx,
                                                 const glia_tensor *const *grad_outputs, int64_t n_outputs,
                                                 glia_tensor **grad_inputs, int64_t n_inputs);

/**
 * A custom autograd function (torch.autograd.Function): its name and its
 * forward and backward callbacks. Initialise with
 * glia_autograd_function_def_init(), then apply with
 * glia_autograd_function_apply().
 */
typedef struct glia_autograd_function_def {
  size_t struct_size;                 /**< sizeof(glia_autograd_function_def) */
  const char *name;                   /**< e.g. "MyExp": grad_fn is named "MyExpBackward" (copied) */
  glia_autograd_forward_fn forward;   /**< required */
  glia_autograd_backward_fn backward; /**< required */
  void *user_data;                    /**< passed to both callbacks */
  /** Called exactly once with user_data when this application is done with it:
   * when its graph node dies, right after forward when no graph was recorded,
   * or when glia_autograd_function_apply fails. May be NULL. */
  void (*free_user_data)(void *user_data);
} glia_autograd_function_def;

/** Sets struct_size and clears the rest. @since 0.1 */
GLIA_API void glia_autograd_function_def_init(glia_autograd_function_def *def);

/**
 * Applies a custom function (torch.autograd.Function.apply): runs forward,
 * and when grad mode is on and an input requires grad, records a node whose
 * backward is the callback. Writes n_outs new references to `outs`;
 * on failure nothing is written.
 * Errors: GLIA_ERR_CALLBACK (a callback failed; its message is carried),
 * GLIA_ERR_INVALID_ARGUMENT (bad def, NULL arrays, an output left NULL).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_autograd_function_apply(const glia_autograd_function_def *def,
                                                                 const glia_tensor *const *inputs, int64_t n_inputs,
                                                                 glia_tensor **outs, int64_t n_outs);

/**
 * ctx.save_for_backward during forward: inputs, outputs or other tensors
 * (NULL entries allowed). Modifying a saved tensor in place before backward
 * makes the backward fail. Errors: GLIA_ERR_STATE outside forward.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_autograd_ctx_save_for_backward(glia_autograd_ctx *ctx,
                                                                        const glia_tensor *const *tensors,
                                                                        int64_t n_tensors);
/**
 * ctx.saved_tensors during backward: writes new references (NULL for saved
 * NULLs) to outs; outs NULL with capacity 0 only reports the count.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_autograd_ctx_saved_tensors(glia_autograd_ctx *ctx, glia_tensor **outs,
                                                                    int64_t capacity, int64_t *out_count);
/** ctx.needs_input_grad[index]. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_autograd_ctx_needs_input_grad(const glia_autograd_ctx *ctx, int64_t index,
                                                                       int32_t *out);

/** @} */
/* ------------------------------------------------------------------------ */
/* Operators (torch names; broadcasting and type promotion as in torch)       */
/* ------------------------------------------------------------------------ */
/** @addtogroup ops
 * @{ */
/** @defgroup ops_arithmetic Scalar operands and arithmetic
 * @ingroup ops
 * @{ */

/**
 * A scalar operand (torch's Scalar). Its type takes part in type promotion as
 * a Python number does: an int scalar keeps an integer tensor integral, a
 * float scalar makes it float32 (the default dtype); a scalar never widens a
 * floating tensor. Make one with glia_scalar_float / _int / _bool (or fill
 * the struct: type, then f for GLIA_SCALAR_FLOAT, i otherwise).
 */
typedef enum glia_scalar_type GLIA_ENUM_BASE {
  /** A Python float: the value is in f. */
  GLIA_SCALAR_FLOAT = 0,
  /** A Python int: the value is in i. */
  GLIA_SCALAR_INT = 1,
  /** A Python bool: i is 0 or 1. */
  GLIA_SCALAR_BOOL = 2
} glia_scalar_type;

/** A scalar operand: its type and value (see glia_scalar_type). */
typedef struct glia_scalar {
  glia_scalar_type type; /**< which of f and i holds the value */
  int32_t reserved_;     /**< zero */
  double f;              /**< GLIA_SCALAR_FLOAT */
  int64_t i;             /**< GLIA_SCALAR_INT, GLIA_SCALAR_BOOL (0 or 1) */
} glia_scalar;

/** A float scalar holding `v` (a Python float). */
static inline glia_scalar glia_scalar_float(double v) {
  glia_scalar s;
  s.type = GLIA_SCALAR_FLOAT;
  s.reserved_ = 0;
  s.f = v;
  s.i = 0;
  return s;
}
/** An int scalar holding `v` (a Python int). */
static inline glia_scalar glia_scalar_int(int64_t v) {
  glia_scalar s;
  s.type = GLIA_SCALAR_INT;
  s.reserved_ = 0;
  s.f = 0;
  s.i = v;
  return s;
}
/** A bool scalar: True for any non-zero `v`. */
static inline glia_scalar glia_scalar_bool(int v) {
  glia_scalar s;
  s.type = GLIA_SCALAR_BOOL;
  s.reserved_ = 0;
  s.f = 0;
  s.i = v ? 1 : 0;
  return s;
}

/** a + alpha * b. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_add(const glia_tensor *a, const glia_tensor *b, double alpha,
                                             glia_tensor **out);
/** a - alpha * b. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_sub(const glia_tensor *a, const glia_tensor *b, double alpha,
                                             glia_tensor **out);
/** a * b. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_mul(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a / b; rounding_mode NULL (true division), "trunc" or "floor". @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_div(const glia_tensor *a, const glia_tensor *b, const char *rounding_mode,
                                             glia_tensor **out);
/** -a. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_neg(const glia_tensor *a, glia_tensor **out);
/** Sum over `dims` (n_dims entries; NULL and 0 for all dims). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_sum(const glia_tensor *a, const int64_t *dims, int64_t n_dims, int32_t keepdim,
                                             glia_tensor **out);
/** self += alpha * other, in place. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_add_(glia_tensor *self, const glia_tensor *other, double alpha);
/** self *= other, in place. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_mul_(glia_tensor *self, const glia_tensor *other);

/** @} */
/* ---- operators: elementwise (scalar operands, math, comparisons, logic) -- */
/** @defgroup ops_elementwise Elementwise (scalar operands, math, comparisons, logic)
 * @ingroup ops
 * @{ */

/** a + alpha * s (torch.add with a Python number: an int scalar keeps an integer tensor integral). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_add_scalar(const glia_tensor *a, glia_scalar s, double alpha,
                                                    glia_tensor **out);
/** a - alpha * s. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_sub_scalar(const glia_tensor *a, glia_scalar s, double alpha,
                                                    glia_tensor **out);
/** s - alpha * a (torch.rsub). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_rsub_scalar(const glia_tensor *a, glia_scalar s, double alpha,
                                                     glia_tensor **out);
/** a * s. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_mul_scalar(const glia_tensor *a, glia_scalar s, glia_tensor **out);
/** a / s; rounding_mode NULL (true division), "trunc" or "floor" as in glia_div. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_div_scalar(const glia_tensor *a, glia_scalar s, const char *rounding_mode,
                                                    glia_tensor **out);
/** |a| (integers stay integral; bool is an error, as in torch). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_abs(const glia_tensor *a, glia_tensor **out);
/** -1, 0 or 1 by the sign of a (0 for NaN), in a's dtype. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_sign(const glia_tensor *a, glia_tensor **out);
/** e^a; integer and bool inputs give float32 (so do log, log1p, expm1, sqrt, rsqrt). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_exp(const glia_tensor *a, glia_tensor **out);
/** Natural logarithm. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_log(const glia_tensor *a, glia_tensor **out);
/** log(1 + a). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_log1p(const glia_tensor *a, glia_tensor **out);
/** e^a - 1. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_expm1(const glia_tensor *a, glia_tensor **out);
/** Square root. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_sqrt(const glia_tensor *a, glia_tensor **out);
/** 1 / sqrt(a). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_rsqrt(const glia_tensor *a, glia_tensor **out);
/** a ** b, broadcast, torch's promotion (integer powers stay integral). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_pow(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a ** exponent (torch.pow(tensor, number)). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_pow_scalar(const glia_tensor *a, glia_scalar exponent, glia_tensor **out);
/** base ** exponent (torch.pow(number, tensor)). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_scalar_pow(glia_scalar base, const glia_tensor *exponent, glia_tensor **out);
/** Clamps a to [min, max]; either bound may be NULL (None), not both. NaN propagates. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_clamp(const glia_tensor *a, const glia_scalar *min, const glia_scalar *max,
                                               glia_tensor **out);
/** Clamps a to tensor bounds (broadcast); either may be NULL, not both. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_clamp_tensor(const glia_tensor *a, const glia_tensor *min,
                                                      const glia_tensor *max, glia_tensor **out);
/** Elementwise maximum (NaN if either is NaN). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_maximum(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** Elementwise minimum (NaN if either is NaN). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_minimum(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** condition ? a : b, broadcast over all three; condition is bool. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_where(const glia_tensor *condition, const glia_tensor *a, const glia_tensor *b,
                                               glia_tensor **out);
/** a == b (bool result; compared in the promoted dtype). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_eq(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a != b. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_ne(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a < b. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_lt(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a <= b. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_le(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a > b. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_gt(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a >= b. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_ge(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a == other (a number). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_eq_scalar(const glia_tensor *a, glia_scalar other, glia_tensor **out);
/** a != other. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_ne_scalar(const glia_tensor *a, glia_scalar other, glia_tensor **out);
/** a < other. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_lt_scalar(const glia_tensor *a, glia_scalar other, glia_tensor **out);
/** a <= other. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_le_scalar(const glia_tensor *a, glia_scalar other, glia_tensor **out);
/** a > other. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_gt_scalar(const glia_tensor *a, glia_scalar other, glia_tensor **out);
/** a >= other. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_ge_scalar(const glia_tensor *a, glia_scalar other, glia_tensor **out);
/** a && b elementwise (nonzero is true); bool result. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_logical_and(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a || b. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_logical_or(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a xor b. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_logical_xor(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** !a. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_logical_not(const glia_tensor *a, glia_tensor **out);

/** @} */
/* ---- operators: activations ---------------------------------------------- */
/** @defgroup ops_activations Activations
 * @ingroup ops
 * @{ */

/** max(a, 0). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_relu(const glia_tensor *a, glia_tensor **out);
/** a > 0 ? a : a * negative_slope (torch's default slope: 0.01). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_leaky_relu(const glia_tensor *a, double negative_slope, glia_tensor **out);
/** a > 0 ? scale * a : scale * alpha * (exp(a * input_scale) - 1); F.elu(a, alpha) is scale = input_scale = 1. @since
 * 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_elu(const glia_tensor *a, double alpha, double scale, double input_scale,
                                             glia_tensor **out);
/** GELU; approximate "none" (or NULL) or "tanh". @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_gelu(const glia_tensor *a, const char *approximate, glia_tensor **out);
/** a * sigmoid(a). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_silu(const glia_tensor *a, glia_tensor **out);
/** 1 / (1 + exp(-a)); integer inputs give float32. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_sigmoid(const glia_tensor *a, glia_tensor **out);
/** tanh(a); integer inputs give float32. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tanh(const glia_tensor *a, glia_tensor **out);
/** log(1 + exp(beta * a)) / beta, linear where beta * a > threshold (torch: beta 1, threshold 20). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_softplus(const glia_tensor *a, double beta, double threshold,
                                                  glia_tensor **out);
/** a * relu6(a + 3) / 6 (torch.nn.functional.hardswish); floating inputs only. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_hardswish(const glia_tensor *a, glia_tensor **out);
/** Clamps a to [min_val, max_val] in a's dtype (torch: -1, 1). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_hardtanh(const glia_tensor *a, double min_val, double max_val,
                                                  glia_tensor **out);
/**
 * torch.nn.functional.prelu: a > 0 ? a : weight * a, with weight a scalar or a
 * 1-D tensor of one element or of a's channel count (dim 1; 1 for a 0-dim or
 * 1-D a), of a's dtype. Errors: GLIA_ERR_INVALID_ARGUMENT "Mismatch of
 * parameter numbers and input channel size. Found parameter numbers = 3 and
 * channel size = 4.", GLIA_ERR_DTYPE "Found dtype Float but expected Double".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_prelu(const glia_tensor *a, const glia_tensor *weight, glia_tensor **out);
/**
 * torch.nn.functional.rrelu (torch: lower 1/8, upper 1/3): training != 0 gives
 * a <= 0 ? a * r : a with r drawn from U(lower, upper) per element (glia's
 * generator, glia_manual_seed); training == 0 is leaky_relu with slope
 * (lower + upper) / 2. Errors: GLIA_ERR_INVALID_ARGUMENT "Lower bound should
 * be less than or equal to the upper bound".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_rrelu(const glia_tensor *a, double lower, double upper, int32_t training,
                                               glia_tensor **out);
/** first half * sigmoid(second half) of a along dim (torch.nn.functional.glu; torch's dim -1); size along dim even.
 * @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_glu(const glia_tensor *a, int64_t dim, glia_tensor **out);
/** max(0, a) + min(0, alpha * (exp(a / alpha) - 1)) (torch.nn.functional.celu; alpha 1, not 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_celu(const glia_tensor *a, double alpha, glia_tensor **out);
/** scale * elu(a, alpha) with torch's SELU constants (torch.nn.functional.selu). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_selu(const glia_tensor *a, glia_tensor **out);
/** softmax(-a, dim) (torch.nn.functional.softmin). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_softmin(const glia_tensor *a, int64_t dim, glia_tensor **out);
/** a - lambd above lambd, a + lambd below -lambd, else 0 (torch: lambd 0.5, >= 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_softshrink(const glia_tensor *a, double lambd, glia_tensor **out);
/** a outside [-lambd, lambd], else 0 (torch.nn.functional.hardshrink; torch: lambd 0.5). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_hardshrink(const glia_tensor *a, double lambd, glia_tensor **out);
/** a - tanh(a) (torch.nn.functional.tanhshrink). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tanhshrink(const glia_tensor *a, glia_tensor **out);
/** a <= threshold ? value : a in a's dtype (torch.nn.functional.threshold; any dtype but bool). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_threshold(const glia_tensor *a, double threshold, double value,
                                                   glia_tensor **out);
/** min(max(a, 0), 6) in a's dtype (torch.nn.functional.relu6, hardtanh(a, 0, 6)). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_relu6(const glia_tensor *a, glia_tensor **out);
/** relu6(a + 3) / 6 (torch.nn.functional.hardsigmoid); floating inputs only. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_hardsigmoid(const glia_tensor *a, glia_tensor **out);
/** a * tanh(softplus(a)) (torch.nn.functional.mish); floating inputs only. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_mish(const glia_tensor *a, glia_tensor **out);
/** log(sigmoid(a)) (torch.nn.functional.logsigmoid); floating inputs only. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_logsigmoid(const glia_tensor *a, glia_tensor **out);

/** @} */
/* ---- operators: in place --------------------------------------------------- */
/** @defgroup ops_inplace In place
 * @ingroup ops
 * Each bumps self's version counter, fails on a leaf that requires grad (in grad mode) and records
 * autograd history; the result must be castable to self's dtype.
 * @{ */

/** self -= alpha * other. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_sub_(glia_tensor *self, const glia_tensor *other, double alpha);
/** self /= other (true division: self must be floating). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_div_(glia_tensor *self, const glia_tensor *other);
/** self += alpha * s. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_add_scalar_(glia_tensor *self, glia_scalar s, double alpha);
/** self *= s. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_mul_scalar_(glia_tensor *self, glia_scalar s);
/** self += value * tensor1 * tensor2. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_addcmul_(glia_tensor *self, const glia_tensor *tensor1,
                                                  const glia_tensor *tensor2, glia_scalar value);
/** self += value * tensor1 / tensor2. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_addcdiv_(glia_tensor *self, const glia_tensor *tensor1,
                                                  const glia_tensor *tensor2, glia_scalar value);
/** self = 0. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_zero_(glia_tensor *self);
/** self = value. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_fill_(glia_tensor *self, glia_scalar value);
/** self = src, broadcast to self's shape and converted to self's dtype. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_copy_(glia_tensor *self, const glia_tensor *src);
/**
 * torch's self.copy_(src, non_blocking=True): glia_copy_, except that a copy
 * between pinned host memory and a device may return before it completes
 * (see glia_tensor_to_non_blocking); otherwise as glia_copy_.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_copy_non_blocking_(glia_tensor *self, const glia_tensor *src);
/** Clamps self in place; either bound may be NULL, not both. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_clamp_(glia_tensor *self, const glia_scalar *min, const glia_scalar *max);
/** self = max(self, 0). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_relu_(glia_tensor *self);
/*
 * ---- out= arguments and generic in-place writes (issue 20) ----
 * What bindings need for torch's out= variants and for in-place variants computed
 * out of place.
 */
/**
 * torch's out= rule: writes `result` into `out` (converted to out's dtype). out is
 * resized to result's shape (contiguous) when its shape differs; when it had
 * elements, *out_resized (may be NULL) is set to 1 and torch's deprecation
 * warning ("An output with one or more elements was resized since it had shape
 * [3], which does not match the required output shape [2]. ...") is logged at
 * GLIA_LOG_WARNING. Errors, nothing written: GLIA_ERR_STATE when grad mode is on
 * and result or out requires grad ("<op>(): functions with out=... arguments
 * don't support automatic differentiation, but one of the arguments requires
 * grad."); GLIA_ERR_DTYPE when result's dtype cannot be cast to out's ("result
 * type Float can't be cast to the desired output type Long"); GLIA_ERR_DEVICE
 * when their devices differ; GLIA_ERR_INVALID_ARGUMENT when out has internal
 * overlap or partially overlaps one of inputs[0, n_inputs) (torch's
 * "unsupported operation: ..."). Bumps out's version counter. op names the
 * function in messages ("add").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_write_out(glia_tensor *out, const glia_tensor *result,
                                                          const glia_tensor *const *inputs, int64_t n_inputs,
                                                          const char *op, int32_t *out_resized);
/**
 * Generic in-place write: self = result (a result computed out of place from
 * self, e.g. exp(self) for exp_), with torch's in-place rules: the leaf and
 * inference checks ("a leaf Variable that requires grad is being used in an
 * in-place operation."), result's dtype castable to self's (GLIA_ERR_DTYPE,
 * "result type Float can't be cast to the desired output type Long"), result's
 * shape equal to self's (GLIA_ERR_SHAPE). Bumps self's version counter. In grad
 * mode self's history becomes result's (self.grad_fn is result's node); a
 * result without gradient leaves self a zero-gradient node named after op
 * ("eq_": EqBackward0). Compute result from a clone of self when self requires
 * grad, so that what result's node saved is not overwritten.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_assign_(glia_tensor *self, const glia_tensor *result, const char *op);
/**
 * Metadata in place (torch's t_, transpose_, squeeze_, unsqueeze_): self takes
 * the shape, strides and offset of `view`, a view of self's storage with self's
 * dtype (GLIA_ERR_INVALID_ARGUMENT otherwise), and its history. Leaf check and
 * version bump as glia_tensor_assign_.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_set_geometry_(glia_tensor *self, const glia_tensor *view,
                                                              const char *op);
/** torch's Tensor._version: the version counter of a's storage (bumped by every in-place write). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_version(const glia_tensor *a, int64_t *out);
/*
 * The in-place activations (torch.nn.functional's inplace=True and *_ forms):
 * each follows the rules above and, as torch, saves the result for
 * leaky_relu_, elu_, celu_, selu_ and rrelu_ (their nodes are torch's
 * *Backward1; leaky_relu_ and elu_ with a negative slope or alpha then fail in
 * backward with torch's message) and a copy of self for the others
 * (threshold_'s node is ThresholdBackward1).
 */
/** self = glia_leaky_relu(self, negative_slope). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_leaky_relu_(glia_tensor *self, double negative_slope);
/** self = glia_elu(self, alpha, scale, input_scale). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_elu_(glia_tensor *self, double alpha, double scale, double input_scale);
/** self = glia_celu(self, alpha). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_celu_(glia_tensor *self, double alpha);
/** self = glia_selu(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_selu_(glia_tensor *self);
/** self = glia_hardtanh(self, min_val, max_val) (relu6_ is min 0, max 6). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_hardtanh_(glia_tensor *self, double min_val, double max_val);
/** self = glia_threshold(self, threshold, value). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_threshold_(glia_tensor *self, double threshold, double value);
/** self = glia_rrelu(self, lower, upper, training). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_rrelu_(glia_tensor *self, double lower, double upper, int32_t training);
/** self = glia_hardsigmoid(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_hardsigmoid_(glia_tensor *self);
/** self = glia_hardswish(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_hardswish_(glia_tensor *self);
/** self = glia_mish(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_mish_(glia_tensor *self);
/** self = glia_silu(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_silu_(glia_tensor *self);

/** @} */
/** @defgroup ops_unary Unary floating math and rounding (torch.sin ... torch.round)
 * @ingroup ops
 * The math functions give float32 for integer and bool inputs (torch's default
 * dtype); trunc, floor, ceil and round keep integer dtypes (a copy) and refuse
 * bool. Each has an in-place form glia_<op>_(self), which follows torch's
 * rules: the result dtype must be castable to self's ("result type Float can't
 * be cast to the desired output type Long"), the version counter moves, and a
 * leaf that requires grad is refused in grad mode.
 * @{ */
/** sin(a), radians. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_sin(const glia_tensor *a, glia_tensor **out);
/** In place: self = sin(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_sin_(glia_tensor *self);
/** cos(a), radians. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_cos(const glia_tensor *a, glia_tensor **out);
/** In place: self = cos(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_cos_(glia_tensor *self);
/** tan(a), radians. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tan(const glia_tensor *a, glia_tensor **out);
/** In place: self = tan(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tan_(glia_tensor *self);
/** arcsin(a) (NaN outside [-1, 1]). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_asin(const glia_tensor *a, glia_tensor **out);
/** In place: self = asin(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_asin_(glia_tensor *self);
/** arccos(a) (NaN outside [-1, 1]). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_acos(const glia_tensor *a, glia_tensor **out);
/** In place: self = acos(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_acos_(glia_tensor *self);
/** arctan(a). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_atan(const glia_tensor *a, glia_tensor **out);
/** In place: self = atan(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_atan_(glia_tensor *self);
/** sinh(a). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_sinh(const glia_tensor *a, glia_tensor **out);
/** In place: self = sinh(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_sinh_(glia_tensor *self);
/** cosh(a). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_cosh(const glia_tensor *a, glia_tensor **out);
/** In place: self = cosh(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_cosh_(glia_tensor *self);
/** arsinh(a). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_asinh(const glia_tensor *a, glia_tensor **out);
/** In place: self = asinh(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_asinh_(glia_tensor *self);
/** arcosh(a) (NaN below 1). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_acosh(const glia_tensor *a, glia_tensor **out);
/** In place: self = acosh(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_acosh_(glia_tensor *self);
/** artanh(a) (NaN outside [-1, 1], +-inf at +-1). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_atanh(const glia_tensor *a, glia_tensor **out);
/** In place: self = atanh(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_atanh_(glia_tensor *self);
/** 2^a. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_exp2(const glia_tensor *a, glia_tensor **out);
/** In place: self = exp2(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_exp2_(glia_tensor *self);
/** log2(a). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_log2(const glia_tensor *a, glia_tensor **out);
/** In place: self = log2(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_log2_(glia_tensor *self);
/** log10(a). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_log10(const glia_tensor *a, glia_tensor **out);
/** In place: self = log10(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_log10_(glia_tensor *self);
/** The error function erf(a). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_erf(const glia_tensor *a, glia_tensor **out);
/** In place: self = erf(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_erf_(glia_tensor *self);
/** 1 - erf(a), accurate for large a. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_erfc(const glia_tensor *a, glia_tensor **out);
/** In place: self = erfc(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_erfc_(glia_tensor *self);
/** The inverse error function (NaN outside [-1, 1]). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_erfinv(const glia_tensor *a, glia_tensor **out);
/** In place: self = erfinv(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_erfinv_(glia_tensor *self);
/** log|Gamma(a)|. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_lgamma(const glia_tensor *a, glia_tensor **out);
/** In place: self = lgamma(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_lgamma_(glia_tensor *self);
/** Gamma'(a) / Gamma(a) (-inf at 0, NaN at negative integers); its backward (trigamma) is not itself differentiable.
 * @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_digamma(const glia_tensor *a, glia_tensor **out);
/** In place: self = digamma(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_digamma_(glia_tensor *self);
/** a rounded toward zero. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_trunc(const glia_tensor *a, glia_tensor **out);
/** In place: self = trunc(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_trunc_(glia_tensor *self);
/** a - trunc(a) (floating inputs only). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_frac(const glia_tensor *a, glia_tensor **out);
/** In place: self = frac(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_frac_(glia_tensor *self);
/** a rounded down. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_floor(const glia_tensor *a, glia_tensor **out);
/** In place: self = floor(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_floor_(glia_tensor *self);
/** a rounded up. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_ceil(const glia_tensor *a, glia_tensor **out);
/** In place: self = ceil(self). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_ceil_(glia_tensor *self);
/**
 * torch.round(a, decimals=decimals): half to even at `decimals` decimal places
 * (negative: to tens, hundreds...). decimals != 0 refuses integer inputs.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_round(const glia_tensor *a, int64_t decimals, glia_tensor **out);
/** In place: self = round(self, decimals). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_round_(glia_tensor *self, int64_t decimals);
/**
 * torch.logit(a, eps): log(z / (1 - z)) with z = a clamped to [eps, 1 - eps];
 * a negative eps (e.g. -1) is torch's eps=None: no clamping (NaN outside
 * [0, 1], +-inf at the ends).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_logit(const glia_tensor *a, double eps, glia_tensor **out);
/** In place: self = logit(self, eps). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_logit_(glia_tensor *self, double eps);

/** @} */
/** @defgroup ops_binary Binary math, bitwise ops and predicates
 * @ingroup ops
 * Operands broadcast and promote as torch's; "float" ops give float32 for integer operands.
 * @{ */
/** atan2(a, b), the angle of (b, a) in radians; float. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_atan2(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** sqrt(a^2 + b^2) without overflow; floating operands only. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_hypot(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** |a| with the sign of b (signed zeros and NaNs count); float. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_copysign(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a * log(b), 0 where a == 0 unless b is NaN; float. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_xlogy(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/**
 * The remainder of a / b with a's sign (C's fmod); any dtype but bool.
 * Integer division by zero is GLIA_ERR_INVALID_ARGUMENT ("ZeroDivisionError").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_fmod(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** The remainder of a / b with b's sign (Python's %); otherwise as glia_fmod. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_remainder(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** The larger of a and b, ignoring a NaN operand (NaN only when both are). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_fmax(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** The smaller of a and b, ignoring a NaN operand. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_fmin(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a & b; integer and bool dtypes. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bitwise_and(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a | b; integer and bool dtypes. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bitwise_or(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** a ^ b; integer and bool dtypes. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bitwise_xor(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/**
 * a << b; integer dtypes. A negative count or one of the type's width or more
 * gives 0 (torch 1.13 leaves those to the hardware).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_bitwise_left_shift(const glia_tensor *a, const glia_tensor *b,
                                                            glia_tensor **out);
/** a >> b (arithmetic for signed types; past the width: 0 or -1); integer dtypes. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bitwise_right_shift(const glia_tensor *a, const glia_tensor *b,
                                                             glia_tensor **out);
/** ~a (not for bool); integer and bool dtypes. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bitwise_not(const glia_tensor *a, glia_tensor **out);
/** a != a, as bool (false for integer and bool inputs). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_isnan(const glia_tensor *a, glia_tensor **out);
/** |a| == inf, as bool. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_isinf(const glia_tensor *a, glia_tensor **out);
/** Neither NaN nor infinite, as bool (true for integer and bool inputs). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_isfinite(const glia_tensor *a, glia_tensor **out);
/** a == +inf, as bool. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_isposinf(const glia_tensor *a, glia_tensor **out);
/** a == -inf, as bool. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_isneginf(const glia_tensor *a, glia_tensor **out);
/**
 * torch.isclose: |a - b| <= atol + rtol * |b| (and finite), or a == b, or
 * both NaN when equal_nan != 0; bool. a and b must share a dtype; rtol and
 * atol must be >= 0 (torch's defaults: 1e-05, 1e-08).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_isclose(const glia_tensor *a, const glia_tensor *b, double rtol, double atol,
                                                 int32_t equal_nan, glia_tensor **out);
/**
 * torch.nan_to_num: NaN -> nan, +inf -> *posinf, -inf -> *neginf; a NULL
 * posinf/neginf means the dtype's largest/lowest finite value. Integer inputs
 * are copied.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nan_to_num(const glia_tensor *a, double nan, const double *posinf,
                                                    const double *neginf, glia_tensor **out);
/**
 * torch.lerp(start, end, weight): start + weight * (end - start), computed from
 * the nearer end. start, end and weight broadcast and must share one floating
 * dtype (torch's "expected dtype float for `end` but got dtype double").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lerp(const glia_tensor *start, const glia_tensor *end,
                                              const glia_tensor *weight, glia_tensor **out);
/** torch.lerp with a number as the weight. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_lerp_scalar(const glia_tensor *start, const glia_tensor *end, double weight,
                                                     glia_tensor **out);

/* ---- operators: elementwise and special functions (issue 20) --------------- */
/**
 * torch.logaddexp: log(exp(a) + exp(b)) without overflow; a and b broadcast,
 * floating dtypes only (torch's "logaddexp_cpu" not implemented for 'Long').
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_logaddexp(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** torch.logaddexp2: log2(2^a + 2^b); as glia_logaddexp. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_logaddexp2(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/**
 * torch.heaviside(a, values): 0 where a < 0, values where a == 0, 1 where
 * a > 0; a and values must have one dtype (GLIA_ERR_DTYPE otherwise, torch's
 * message). Not differentiable. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_heaviside(const glia_tensor *a, const glia_tensor *values, glia_tensor **out);
/** torch.nextafter: the next floating value after a towards b (floating dtypes only). Not differentiable. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nextafter(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/**
 * torch.igamma(a, x): the regularised lower incomplete gamma function P(a, x)
 * (floating dtypes only, broadcast). Differentiable with respect to x only:
 * a gradient for a is GLIA_ERR_UNSUPPORTED, as torch. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_igamma(const glia_tensor *a, const glia_tensor *x, glia_tensor **out);
/** torch.igammac(a, x): the regularised upper incomplete gamma function Q(a, x) = 1 - P(a, x); as glia_igamma. @since
 * 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_igammac(const glia_tensor *a, const glia_tensor *x, glia_tensor **out);
/** torch.ldexp: a * 2^b (torch's composition; integer operands give float32). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_ldexp(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** torch.float_power: a ** b computed in float64 (the result is always float64). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_float_power(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** torch.dist(a, b, p): the p-norm of a - b (broadcast), a 0-dim tensor; floating dtypes only. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_dist(const glia_tensor *a, const glia_tensor *b, double p, glia_tensor **out);
/**
 * torch.frexp: a = mantissa * 2^exponent with |mantissa| in [0.5, 1) (0 for
 * 0); the mantissa has a's dtype, the exponent is int32. Floating dtypes only
 * (torch's "torch.frexp() only supports floating-point dtypes"). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_frexp(const glia_tensor *a, glia_tensor **out_mantissa,
                                               glia_tensor **out_exponent);
/**
 * torch.polygamma(n, a): the order-th (torch's n) derivative of digamma (order >= 0, else
 * GLIA_ERR_INVALID_ARGUMENT with torch's message). Integer inputs give float32. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_polygamma(int64_t order, const glia_tensor *a, glia_tensor **out);
/**
 * torch.mvlgamma(a, p): the log of the multivariate gamma function of
 * dimension p >= 1 (GLIA_ERR_INVALID_ARGUMENT otherwise; a bool input is
 * GLIA_ERR_DTYPE, torch's messages). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_mvlgamma(const glia_tensor *a, int64_t p, glia_tensor **out);
/** torch.i0: the modified Bessel function of the first kind, order 0. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_i0(const glia_tensor *a, glia_tensor **out);
/** torch.special.i1: the modified Bessel function of the first kind, order 1 (i0's derivative). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_special_i1(const glia_tensor *a, glia_tensor **out);
/** torch.sinc: sin(pi a) / (pi a), 1 at 0. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_sinc(const glia_tensor *a, glia_tensor **out);
/**
 * torch.renorm(a, p, dim, maxnorm): each slice a.select(dim, i) whose p-norm
 * exceeds maxnorm scaled by maxnorm / (norm + 1e-7). p > 0, maxnorm >= 0 and
 * at least 2 dimensions (torch's messages). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_renorm(const glia_tensor *a, double p, int64_t dim, double maxnorm,
                                                glia_tensor **out);

/** @} */
/* ---- operators: reductions, softmax --------------------------------------- */
/** @defgroup ops_reductions Reductions, softmax
 * @ingroup ops
 * @{ */

/*
 * Reductions take `dims` (n_dims entries; NULL and 0 reduce every dim) and
 * keepdim (nonzero keeps reduced dims as size 1), as torch's; a dim listed
 * twice or out of range is GLIA_ERR_INVALID_ARGUMENT, and reducing an empty
 * dim where the op has no identity (amax, max, argmax, inf-norm...) is too.
 */
/** torch.mean (floating inputs only; GLIA_ERR_DTYPE otherwise; an empty reduction gives nan). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_mean(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                              int32_t keepdim, glia_tensor **out);
/** torch.prod over dims (integral and bool inputs give int64; an empty product is 1). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_prod(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                              int32_t keepdim, glia_tensor **out);
/** torch.amax: the maximum over dims (NaN propagates; the gradient is split among ties). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_amax(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                              int32_t keepdim, glia_tensor **out);
/** torch.amin: the minimum over dims (NaN propagates; the gradient is split among ties). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_amin(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                              int32_t keepdim, glia_tensor **out);
/**
 * torch.max(a, dim, keepdim): the maxima (a's dtype) and their int64 indices
 * (the first occurrence; a NaN wins). Both outputs or none are written; the
 * gradient flows to the index. @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_max(const glia_tensor *a, int64_t dim, int32_t keepdim,
                                             glia_tensor **out_values, glia_tensor **out_indices);
/** torch.min(a, dim, keepdim): see glia_max. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_min(const glia_tensor *a, int64_t dim, int32_t keepdim,
                                             glia_tensor **out_values, glia_tensor **out_indices);
/**
 * torch.argmax: int64 index of the first maximum along *dim_or_null, or in the
 * flattened input when dim_or_null is NULL. @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_argmax(const glia_tensor *a, const int64_t *dim_or_null, int32_t keepdim,
                                                glia_tensor **out);
/** torch.argmin: see glia_argmax. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_argmin(const glia_tensor *a, const int64_t *dim_or_null, int32_t keepdim,
                                                glia_tensor **out);
/**
 * torch.var(a, dims, correction=correction, keepdim): the sum of squared
 * deviations divided by max(0, N - correction) (1: unbiased, torch's default). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_var(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                             double correction, int32_t keepdim, glia_tensor **out);
/** torch.std: the square root of glia_var. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_std(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                             double correction, int32_t keepdim, glia_tensor **out);
/** torch.logsumexp, computed stably (max-shifted); integral inputs give float32. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_logsumexp(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                                   int32_t keepdim, glia_tensor **out);
/**
 * torch.linalg.vector_norm(a, ord=p, dim=dims, keepdim): p may be INFINITY
 * (max |x|), -INFINITY (min |x|), 0 (count of nonzeros) or any other value
 * (sum |x|^p)^(1/p). Floating inputs only. @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_norm(const glia_tensor *a, double p, const int64_t *dims, int64_t n_dims,
                                              int32_t keepdim, glia_tensor **out);
/** torch.softmax(a, dim) (float32, float64, bfloat16). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_softmax(const glia_tensor *a, int64_t dim, glia_tensor **out);
/** torch.log_softmax(a, dim) (float32, float64, bfloat16). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_log_softmax(const glia_tensor *a, int64_t dim, glia_tensor **out);

/** @} */
/* ---- operators: more reductions, scans, sorting --------------------------- */
/** @defgroup ops_scans More reductions, scans, sorting
 * @ingroup ops
 * @{ */

/*
 * As torch's. The ops with a `dim` wrap a negative one and take a 0-dim input
 * with dim 0 or -1. Ops with values and indices write int64 indices into
 * the dim; a NaN counts as larger than every number. Backward through the
 * values sends the gradient to the selected elements (torch's SortBackward0,
 * TopkBackward0, ...).
 */
/**
 * torch.all(a) / torch.all(a, dim, keepdim) over `dims` (n_dims entries;
 * NULL and 0 for all): whether every element is nonzero (NaN is nonzero).
 * The result is bool, or uint8 for a uint8 input (torch 1.13). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_all(const glia_tensor *a, const int64_t *dims, int64_t n_dims, int32_t keepdim,
                                             glia_tensor **out);
/** torch.any: whether some element is nonzero; as glia_all. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_any(const glia_tensor *a, const int64_t *dims, int64_t n_dims, int32_t keepdim,
                                             glia_tensor **out);
/** torch.count_nonzero(a, dims): the number of nonzero elements (int64). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_count_nonzero(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                                       glia_tensor **out);
/**
 * torch.aminmax(a, dim=*dim_or_null, keepdim): the min and the max (NULL
 * dim_or_null: over all elements; a 0-dim `a` with a dim and keepdim gives
 * shape [1], as torch 1.13). Not differentiable (as in torch, backward
 * through them is GLIA_ERR_UNSUPPORTED). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_aminmax(const glia_tensor *a, const int64_t *dim_or_null, int32_t keepdim,
                                                 glia_tensor **out_min, glia_tensor **out_max);
/** torch.nansum: sum with NaN taken as zero (integral and bool inputs give int64). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nansum(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                                int32_t keepdim, glia_tensor **out);
/** torch.nanmean: the mean of the non-NaN elements (floating inputs only). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nanmean(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                                 int32_t keepdim, glia_tensor **out);
/** torch.var_mean(a, dims, correction=correction, keepdim): glia_var and glia_mean in one call. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_var_mean(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                                  double correction, int32_t keepdim, glia_tensor **out_var,
                                                  glia_tensor **out_mean);
/** torch.std_mean: glia_std and glia_mean in one call. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_std_mean(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                                  double correction, int32_t keepdim, glia_tensor **out_std,
                                                  glia_tensor **out_mean);
/**
 * torch.cumsum(a, dim, dtype=*dtype_or_null): integral and bool inputs give
 * int64 unless a dtype is given (the input is converted to it first). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_cumsum(const glia_tensor *a, int64_t dim, const glia_dtype *dtype_or_null,
                                                glia_tensor **out);
/** torch.cumprod(a, dim, dtype=*dtype_or_null), as glia_cumsum; the gradient handles zeros as torch's. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_cumprod(const glia_tensor *a, int64_t dim, const glia_dtype *dtype_or_null,
                                                 glia_tensor **out);
/** torch.cummax(a, dim): running max and the index of its last occurrence (a NaN sticks). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_cummax(const glia_tensor *a, int64_t dim, glia_tensor **out_values,
                                                glia_tensor **out_indices);
/** torch.cummin(a, dim), as glia_cummax. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_cummin(const glia_tensor *a, int64_t dim, glia_tensor **out_values,
                                                glia_tensor **out_indices);
/** torch.logcumsumexp(a, dim): log of the running sum of exp, computed stably (floating only). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_logcumsumexp(const glia_tensor *a, int64_t dim, glia_tensor **out);
/**
 * torch.sort(a, dim, descending, stable): sorted values and their int64
 * indices (NaN last ascending, first descending). stable != 0 keeps equal
 * elements in their order; with stable == 0 their order is unspecified. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_sort(const glia_tensor *a, int64_t dim, int32_t descending, int32_t stable,
                                              glia_tensor **out_values, glia_tensor **out_indices);
/** torch.argsort(a, dim, descending, stable): the indices of glia_sort. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_argsort(const glia_tensor *a, int64_t dim, int32_t descending, int32_t stable,
                                                 glia_tensor **out);
/** torch.msort(a): glia_sort's values along dim 0. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_msort(const glia_tensor *a, glia_tensor **out);
/**
 * torch.topk(a, k, dim, largest, sorted): the k largest (smallest when
 * largest == 0) elements along dim and their indices, in order; 0 <= k <=
 * the dim's size. Equal elements come lowest index first. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_topk(const glia_tensor *a, int64_t k, int64_t dim, int32_t largest,
                                              int32_t sorted, glia_tensor **out_values, glia_tensor **out_indices);
/** torch.kthvalue(a, k, dim, keepdim): the k-th smallest element (1 <= k <= the dim's size) and its index. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_kthvalue(const glia_tensor *a, int64_t k, int64_t dim, int32_t keepdim,
                                                  glia_tensor **out_values, glia_tensor **out_indices);
/** torch.median(a): the lower median of all elements (NaN when one is NaN; an empty input gives NaN). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_median(const glia_tensor *a, glia_tensor **out);
/** torch.median(a, dim, keepdim): the lower median along dim and its index. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_median_dim(const glia_tensor *a, int64_t dim, int32_t keepdim,
                                                    glia_tensor **out_values, glia_tensor **out_indices);
/** torch.nanmedian(a): glia_median ignoring NaN elements. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nanmedian(const glia_tensor *a, glia_tensor **out);
/** torch.nanmedian(a, dim, keepdim): glia_median_dim ignoring NaN elements. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nanmedian_dim(const glia_tensor *a, int64_t dim, int32_t keepdim,
                                                       glia_tensor **out_values, glia_tensor **out_indices);
/** torch.mode(a, dim, keepdim): the smallest most frequent value along dim and the last index holding it. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_mode(const glia_tensor *a, int64_t dim, int32_t keepdim,
                                              glia_tensor **out_values, glia_tensor **out_indices);

/** torch.quantile's interpolation between the two nearest sorted values (torch's strings). */
typedef enum glia_quantile_interpolation GLIA_ENUM_BASE {
  GLIA_QUANTILE_LINEAR = 0,   /**< "linear": below + (above - below) * fraction (torch's default) */
  GLIA_QUANTILE_LOWER = 1,    /**< "lower" */
  GLIA_QUANTILE_HIGHER = 2,   /**< "higher" */
  GLIA_QUANTILE_MIDPOINT = 3, /**< "midpoint": (below + above) / 2 */
  GLIA_QUANTILE_NEAREST = 4   /**< "nearest" (a fraction of one half rounds to the even rank) */
} glia_quantile_interpolation;
/**
 * torch.quantile(a, q, dim=*dim_or_null, keepdim, interpolation): q is a
 * 0-dim or 1-D tensor of a's dtype (float32 or float64) with values in
 * [0, 1] (they are copied to the host to be checked, as torch does); a 1-D
 * q's dim comes first in the result. NULL dim_or_null: over all elements. A
 * row holding a NaN gives NaN. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_quantile(const glia_tensor *a, const glia_tensor *q,
                                                  const int64_t *dim_or_null, int32_t keepdim,
                                                  glia_quantile_interpolation interpolation, glia_tensor **out);
/** torch.nanquantile: glia_quantile ignoring NaN elements (a row of NaNs gives NaN). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nanquantile(const glia_tensor *a, const glia_tensor *q,
                                                     const int64_t *dim_or_null, int32_t keepdim,
                                                     glia_quantile_interpolation interpolation, glia_tensor **out);

/* ---- searching, set membership, unique values, histograms (none differentiable) */
/**
 * torch.searchsorted(sorted_sequence, values, out_int32, right, side, sorter):
 * for each value, the index in its row of sorted_sequence (1-D, or the
 * values' leading dims then the row) where it would be inserted to keep the
 * order: the first such index, the last with right != 0 or side "right".
 * side_or_null: "left", "right" or NULL (not given); sorter_or_null: int64
 * indices that sort each row (torch's argsort), or NULL. Both tensors are
 * converted to their common dtype. int64 result, int32 with out_int32 != 0. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_searchsorted(const glia_tensor *sorted_sequence, const glia_tensor *values,
                                                      int32_t out_int32, int32_t right, const char *side_or_null,
                                                      const glia_tensor *sorter_or_null, glia_tensor **out);
/** torch.bucketize(input, boundaries, out_int32, right): glia_searchsorted with 1-D boundaries. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bucketize(const glia_tensor *input, const glia_tensor *boundaries,
                                                   int32_t out_int32, int32_t right, glia_tensor **out);
/**
 * torch.isin(elements, test_elements, assume_unique, invert): bool tensor of
 * elements' shape, whether each element equals one of test_elements (NaN
 * never does), negated with invert != 0. assume_unique only allows a faster
 * path in torch; the result is the same. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_isin(const glia_tensor *elements, const glia_tensor *test_elements,
                                              int32_t assume_unique, int32_t invert, glia_tensor **out);
/**
 * torch.unique(input, sorted, return_inverse, return_counts, dim=None): the
 * distinct values of input, ascending (NaNs are each distinct, last), as a
 * 1-D tensor; out_inverse_or_null receives, for each element of input (its
 * shape), the index of its value in out; out_counts_or_null the number of
 * times each value occurs (int64). glia always sorts: torch's order with
 * sorted == 0 is its hash set's. dim_or_null must be NULL
 * (GLIA_ERR_UNSUPPORTED otherwise: unique slices are not implemented). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_unique(const glia_tensor *input, int32_t sorted, const int64_t *dim_or_null,
                                                glia_tensor **out, glia_tensor **out_inverse_or_null,
                                                glia_tensor **out_counts_or_null);
/**
 * torch.unique_consecutive(input, return_inverse, return_counts, dim=None):
 * the first value of each run of equal consecutive elements of the
 * flattened input, with inverse and counts as glia_unique's. dim_or_null
 * must be NULL. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_unique_consecutive(const glia_tensor *input, const int64_t *dim_or_null,
                                                            glia_tensor **out, glia_tensor **out_inverse_or_null,
                                                            glia_tensor **out_counts_or_null);
/**
 * torch.histc(input, bins, min, max): counts of input's elements in bins
 * equal bins over [min, max] (min == max: the data's range; the last bin
 * includes max; elements outside and NaN are not counted), of input's dtype
 * (float32 or float64). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_histc(const glia_tensor *input, int64_t bins, double min, double max,
                                               glia_tensor **out);

/* ---- differences, products and statistics composed of differentiable ops (torch's names and rules) */
/**
 * torch.diff(input, n=order, dim, prepend, append): the order-th forward
 * difference along dim (logical xor for bool), after concatenating
 * prepend_or_null and append_or_null (same number of dims as input) along
 * dim; order <= 0 differences nothing (torch 1.13). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_diff(const glia_tensor *input, int64_t order, int64_t dim,
                                              const glia_tensor *prepend_or_null, const glia_tensor *append_or_null,
                                              glia_tensor **out);
/**
 * torch.cross(input, other, dim): the cross product of 3-vectors along dim
 * (the batch dims broadcast). dim_or_null NULL: torch 1.13's default, the
 * first dim of size 3. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_cross(const glia_tensor *input, const glia_tensor *other,
                                               const int64_t *dim_or_null, glia_tensor **out);
/**
 * torch.tensordot(a, b, dims=(dims_a, dims_b)): sums the products over the
 * paired dims (n_dims_a == n_dims_b; a size-1 dim pairs with any size); the
 * result's dims are a's others then b's others. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensordot(const glia_tensor *a, const glia_tensor *b, const int64_t *dims_a,
                                                   int64_t n_dims_a, const int64_t *dims_b, int64_t n_dims_b,
                                                   glia_tensor **out);
/** torch.kron(a, b): the Kronecker product (the shorter shape padded with leading 1s). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_kron(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/**
 * torch.block_diag(*tensors): the block-diagonal matrix of n_tensors
 * tensors of at most 2 dims (0-dim: 1x1, 1-D: one row), in their promoted
 * dtype. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_block_diag(const glia_tensor *const *tensors, int64_t n_tensors,
                                                    glia_tensor **out);
/** torch.diagflat(input, offset): the square matrix with the flattened input on diagonal offset. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_diagflat(const glia_tensor *input, int64_t offset, glia_tensor **out);
/**
 * torch.cov(input, correction, fweights, aweights): the covariance matrix of
 * the variables in input's rows (observations in columns; 1-D: one
 * variable), with integer frequency weights and floating observation
 * weights (each NULL or 1-D with one entry per observation). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_cov(const glia_tensor *input, int64_t correction,
                                             const glia_tensor *fweights_or_null, const glia_tensor *aweights_or_null,
                                             glia_tensor **out);
/** torch.corrcoef(input): Pearson correlation coefficients of input's rows, clipped to [-1, 1]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_corrcoef(const glia_tensor *input, glia_tensor **out);
/**
 * torch.trapezoid(y, x, dim) and torch.trapezoid(y, dx=dx, dim): the
 * trapezoidal rule along dim, with sample points x_or_null (1-D of y's size
 * along dim, or broadcastable to y) or, when it is NULL, spacing dx. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_trapezoid(const glia_tensor *y, const glia_tensor *x_or_null, double dx,
                                                   int64_t dim, glia_tensor **out);
/** torch.cumulative_trapezoid(y, x, dx, dim): the running trapezoidal sums, as glia_trapezoid. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_cumulative_trapezoid(const glia_tensor *y, const glia_tensor *x_or_null,
                                                              double dx, int64_t dim, glia_tensor **out);
/**
 * torch.cdist(x1, x2, p) with the default compute mode: the p-norm distances
 * between the rows of x1 [..., R1, M] and x2 [..., R2, M] (batch dims
 * broadcast), [..., R1, R2]; p >= 0 (INFINITY: the largest difference). For
 * p == 2 with more than 25 rows on a side, torch's matrix-product form.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_cdist(const glia_tensor *x1, const glia_tensor *x2, double p,
                                               glia_tensor **out);
/**
 * torch.constant_pad_nd(input, pad, value): pads (negative: crops) the last
 * n_pad / 2 dims, pairs (before, after) from the last dim, with value. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_constant_pad_nd(const glia_tensor *input, const int64_t *pad, int64_t n_pad,
                                                         double value, glia_tensor **out);
/**
 * torch.combinations(input, r, with_replacement): the r-element combinations
 * of the 1-D input's elements in lexicographic order of their indices, as
 * rows of [count, r] (r == 0: an empty 1-D tensor). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_combinations(const glia_tensor *input, int64_t r, int32_t with_replacement,
                                                      glia_tensor **out);
/**
 * torch.einsum(equation, *operands): the sum of products that equation
 * ("ij,jk->ik", with "..." for broadcast dims; no "->": the letters seen once,
 * sorted) describes, over n_operands operands. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_einsum(const char *equation, const glia_tensor *const *operands,
                                                int64_t n_operands, glia_tensor **out);

/** @} */
/* ---- operators: losses ----------------------------------------------------- */
/** @defgroup ops_losses Losses
 * @ingroup ops
 * @{ */

/** How a loss reduces its elementwise values (torch's reduction='none'/'mean'/'sum'). */
typedef enum glia_reduction GLIA_ENUM_BASE {
  GLIA_REDUCTION_NONE = 0, /**< one loss per element (per sample for the class losses) */
  GLIA_REDUCTION_MEAN = 1, /**< the mean (torch's default; weighted mean for nll_loss/cross_entropy) */
  GLIA_REDUCTION_SUM = 2,  /**< the sum */
  /** the sum divided by the batch size input.size(0) (torch's 'batchmean'); glia_kl_div and
      glia_nn_kl_div_loss only, GLIA_ERR_INVALID_ARGUMENT elsewhere. @since 0.2 */
  GLIA_REDUCTION_BATCHMEAN = 3
} glia_reduction;

/** torch.nn.functional.mse_loss: (input - target)^2 (broadcast). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_mse_loss(const glia_tensor *input, const glia_tensor *target,
                                                  glia_reduction reduction, glia_tensor **out);
/** torch.nn.functional.l1_loss: |input - target| (broadcast). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_l1_loss(const glia_tensor *input, const glia_tensor *target,
                                                 glia_reduction reduction, glia_tensor **out);
/** torch.nn.functional.smooth_l1_loss with `beta` (>= 0; torch's default 1). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_smooth_l1_loss(const glia_tensor *input, const glia_tensor *target,
                                                        glia_reduction reduction, double beta, glia_tensor **out);
/** torch.nn.functional.huber_loss with `delta` (> 0; torch's default 1). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_huber_loss(const glia_tensor *input, const glia_tensor *target,
                                                    glia_reduction reduction, double delta, glia_tensor **out);
/**
 * torch.nn.functional.binary_cross_entropy: input (probabilities in [0, 1])
 * and target of one shape; optional `weight_or_null` broadcasts. The logs are
 * clamped to >= -100 as in torch. @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_binary_cross_entropy(const glia_tensor *input, const glia_tensor *target,
                                                              const glia_tensor *weight_or_null,
                                                              glia_reduction reduction, glia_tensor **out);
/**
 * torch.nn.functional.binary_cross_entropy_with_logits (computed stably from
 * the logits); optional weight and pos_weight (weight of positive examples,
 * broadcast along the last dim). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_binary_cross_entropy_with_logits(const glia_tensor *input,
                                                                          const glia_tensor *target,
                                                                          const glia_tensor *weight_or_null,
                                                                          const glia_tensor *pos_weight_or_null,
                                                                          glia_reduction reduction, glia_tensor **out);

/** Options of glia_nll_loss. Initialise with glia_nll_loss_options_init(). */
typedef struct glia_nll_loss_options {
  /** sizeof(glia_nll_loss_options), set by glia_nll_loss_options_init(). */
  size_t struct_size;
  const glia_tensor *weight; /**< per-class weights [C], or NULL (default) */
  int64_t ignore_index;      /**< targets equal to it add nothing (default -100) */
  glia_reduction reduction;  /**< default GLIA_REDUCTION_MEAN */
} glia_nll_loss_options;
/** Sets struct_size and torch's defaults. @since 0.1 */
GLIA_API void glia_nll_loss_options_init(glia_nll_loss_options *options);
/**
 * torch.nn.functional.nll_loss: input of log-probabilities [N, C],
 * [N, C, d1, ..., dK] or [C]; target int64 class indices [N], [N, d1, ..., dK]
 * or 0-dim. The mean divides by the summed weights of the non-ignored
 * targets. options may be NULL (defaults). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nll_loss(const glia_tensor *input, const glia_tensor *target,
                                                  const glia_nll_loss_options *options, glia_tensor **out);

/** Options of glia_cross_entropy. Initialise with glia_cross_entropy_options_init(). */
typedef struct glia_cross_entropy_options {
  /** sizeof(glia_cross_entropy_options), set by glia_cross_entropy_options_init(). */
  size_t struct_size;
  const glia_tensor *weight; /**< per-class weights [C], or NULL (default) */
  int64_t ignore_index;      /**< class-index targets equal to it add nothing (default -100) */
  glia_reduction reduction;  /**< default GLIA_REDUCTION_MEAN */
  double label_smoothing;    /**< in [0, 1] (default 0) */
} glia_cross_entropy_options;
/** Sets struct_size and torch's defaults. @since 0.1 */
GLIA_API void glia_cross_entropy_options_init(glia_cross_entropy_options *options);
/**
 * torch.nn.functional.cross_entropy (log_softmax over the class dim and
 * nll_loss, fused): target holds int64 class indices (shapes as glia_nll_loss)
 * or, when it has the input's shape, class probabilities (floating). options
 * may be NULL (defaults). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_cross_entropy(const glia_tensor *input, const glia_tensor *target,
                                                       const glia_cross_entropy_options *options, glia_tensor **out);

/*
 * More losses (torch.nn.functional's, composed of differentiable ops as torch
 * 1.13 composes most of them). Booleans are int32_t (0 or not); label targets
 * (+1/-1) are floating tensors; class-index targets are int64.
 */
/**
 * torch.nn.functional.kl_div: target * (log(target) - input) (0 where target
 * is 0), or exp(target) * (target - input) when log_target; input holds
 * log-probabilities. reduction may be GLIA_REDUCTION_BATCHMEAN. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_kl_div(const glia_tensor *input, const glia_tensor *target,
                                                glia_reduction reduction, int32_t log_target, glia_tensor **out);
/**
 * torch.nn.functional.poisson_nll_loss: exp(input) - target * input when
 * log_input, else input - target * log(input + eps); full adds Stirling's
 * term where target > 1 (torch's defaults: log_input 1, full 0, eps 1e-8). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_poisson_nll_loss(const glia_tensor *input, const glia_tensor *target,
                                                          int32_t log_input, int32_t full, double eps,
                                                          glia_reduction reduction, glia_tensor **out);
/**
 * torch.nn.functional.gaussian_nll_loss: 0.5 * (log(var) + (input - target)^2
 * / var) (+ 0.5 * log(2 pi) when full), var clamped to >= eps (default 1e-6).
 * var has the input's shape, or that without the last dim, or with a last dim
 * of 1; otherwise GLIA_ERR_INVALID_ARGUMENT "var is of incorrect size", and a
 * negative entry gives "var has negative entry/entries". @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_gaussian_nll_loss(const glia_tensor *input, const glia_tensor *target,
                                                           const glia_tensor *var, int32_t full, double eps,
                                                           glia_reduction reduction, glia_tensor **out);
/** torch.nn.functional.margin_ranking_loss: max(0, -target * (input1 - input2) + margin). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_margin_ranking_loss(const glia_tensor *input1, const glia_tensor *input2,
                                                             const glia_tensor *target, double margin,
                                                             glia_reduction reduction, glia_tensor **out);
/**
 * torch.nn.functional.hinge_embedding_loss: input where target is 1,
 * max(0, margin - input) where target is -1 (torch's default margin 1). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_hinge_embedding_loss(const glia_tensor *input, const glia_tensor *target,
                                                              double margin, glia_reduction reduction,
                                                              glia_tensor **out);
/** torch.nn.functional.soft_margin_loss: log(1 + exp(-target * input)); target is not differentiated. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_soft_margin_loss(const glia_tensor *input, const glia_tensor *target,
                                                          glia_reduction reduction, glia_tensor **out);
/**
 * torch.nn.functional.multilabel_soft_margin_loss: the mean over the last dim
 * of -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input)), times
 * weight_or_null (broadcast) when given. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_multilabel_soft_margin_loss(const glia_tensor *input,
                                                                     const glia_tensor *target,
                                                                     const glia_tensor *weight_or_null,
                                                                     glia_reduction reduction, glia_tensor **out);
/**
 * torch.nn.functional.cosine_embedding_loss: 1 - cos(input1, input2) where
 * target is 1, max(0, cos - margin) where it is -1; inputs [N, D] with target
 * [N], or [D] with a 0-dim target. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_cosine_embedding_loss(const glia_tensor *input1, const glia_tensor *input2,
                                                               const glia_tensor *target, double margin,
                                                               glia_reduction reduction, glia_tensor **out);
/**
 * torch.nn.functional.multi_margin_loss: input [N, C], [C] or 0-dim, target
 * int64 class indices [N]; per sample the sum over i != y of weight[y] *
 * max(0, margin - x[y] + x[i])^p, divided by C. p is 1 or 2 (torch's defaults
 * p 1, margin 1); weight_or_null [C] is not differentiated. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_multi_margin_loss(const glia_tensor *input, const glia_tensor *target,
                                                           int64_t p, double margin, const glia_tensor *weight_or_null,
                                                           glia_reduction reduction, glia_tensor **out);
/**
 * torch.nn.functional.multilabel_margin_loss: input [N, C] or [C], target int64
 * of the same shape listing each sample's classes, ended by the first -1; the
 * sum of max(0, 1 - (x[j] - x[i])) over listed j and unlisted i, divided by C. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_multilabel_margin_loss(const glia_tensor *input, const glia_tensor *target,
                                                                glia_reduction reduction, glia_tensor **out);
/**
 * torch.nn.functional.triplet_margin_loss: max(0, margin + d(anchor, positive)
 * - d(anchor, negative)) with d the pairwise p-norm distance over the last
 * dim (||x1 - x2 + eps||_p); swap takes min(d(a, n), d(p, n)) (torch's
 * defaults: margin 1, p 2, eps 1e-6, swap 0). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_triplet_margin_loss(const glia_tensor *anchor, const glia_tensor *positive,
                                                             const glia_tensor *negative, double margin, double p,
                                                             double eps, int32_t swap, glia_reduction reduction,
                                                             glia_tensor **out);
/**
 * A distance function for glia_triplet_margin_with_distance_loss: write the
 * distances of x1 and x2 (a new reference glia takes over; it should carry the
 * gradient of x1 and x2) to *out. A returned error becomes GLIA_ERR_CALLBACK.
 */
typedef glia_error *(*glia_distance_fn)(void *user_data, const glia_tensor *x1, const glia_tensor *x2,
                                        glia_tensor **out);
/**
 * torch.nn.functional.triplet_margin_with_distance_loss: max(0,
 * distance(anchor, positive) - distance(anchor, negative) + margin), with
 * swap as glia_triplet_margin_loss; distance_or_null NULL is torch's default,
 * pairwise_distance (p 2, eps 1e-6). The callback runs on this thread during
 * the call. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_triplet_margin_with_distance_loss(const glia_tensor *anchor,
                                                                           const glia_tensor *positive,
                                                                           const glia_tensor *negative,
                                                                           glia_distance_fn distance_or_null,
                                                                           void *user_data, double margin, int32_t swap,
                                                                           glia_reduction reduction, glia_tensor **out);

/** @} */
/* ---- operators: linear algebra --------------------------------------------- */
/** @defgroup ops_linalg Linear algebra
 * @ingroup ops
 * @{ */

/**
 * torch.matmul: the dot product of two 1-D tensors, matrix-vector and
 * matrix-matrix products, and batched products whose batch dims broadcast (a
 * 1-D operand takes part as a row or column that is removed afterwards).
 * float32/float64 go through OpenBLAS, bfloat16 computes in float32, integer
 * types multiply exactly (wrapping); float16 and bool fail as in torch.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_matmul(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** Matrix product of 2-D a [n, k] and b [k, m] (torch.mm). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_mm(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** Batched matrix product of 3-D a [B, n, k] and b [B, k, m] (torch.bmm). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_bmm(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/**
 * beta * bias + alpha * (a @ b) for 2-D a and b; bias broadcasts to the
 * result's shape (torch.addmm). With beta == 0 bias is not read (NaN in it
 * does not propagate). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_addmm(const glia_tensor *bias, const glia_tensor *a, const glia_tensor *b,
                                               double beta, double alpha, glia_tensor **out);
/**
 * torch.nn.functional.linear: x @ weight^T + bias for x [*, in], weight
 * [out, in] and bias [out] (or NULL). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_linear(const glia_tensor *x, const glia_tensor *weight,
                                                const glia_tensor *bias, glia_tensor **out);

/* Products composed from the ones above (torch's checks and messages). In the
 * beta/alpha forms beta == 0 means input is not read (NaN in it does not
 * propagate) but must still broadcast to the result. */
/** input + value * tensor1 * tensor2, broadcast (torch.addcmul). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_addcmul(const glia_tensor *input, const glia_tensor *tensor1,
                                                 const glia_tensor *tensor2, glia_scalar value, glia_tensor **out);
/** input + value * tensor1 / tensor2, broadcast; integer tensor1 and tensor2 fail (torch.addcdiv). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_addcdiv(const glia_tensor *input, const glia_tensor *tensor1,
                                                 const glia_tensor *tensor2, glia_scalar value, glia_tensor **out);
/** Dot product of two 1-D tensors of one dtype and length, 0-dim result (torch.dot). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_dot(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** torch.vdot for real tensors (the dot product). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_vdot(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/**
 * torch.inner: sums over the last dims of a and b (result a.shape[:-1] +
 * b.shape[:-1]); a 0-dim operand multiplies. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_inner(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** Outer product a[i] * b[j] of 1-D a and b, dtypes promoted (torch.outer). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_outer(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** torch.ger, the alias of torch.outer. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_ger(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** Matrix-vector product of mat [n, m] and vec [m] (torch.mv). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_mv(const glia_tensor *mat, const glia_tensor *vec, glia_tensor **out);
/** beta * input + alpha * (mat @ vec); input has n or 1 elements (torch.addmv). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_addmv(const glia_tensor *input, const glia_tensor *mat, const glia_tensor *vec,
                                               double beta, double alpha, glia_tensor **out);
/** beta * input + alpha * outer(vec1, vec2), input broadcast to [n, m] (torch.addr). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_addr(const glia_tensor *input, const glia_tensor *vec1,
                                              const glia_tensor *vec2, double beta, double alpha, glia_tensor **out);
/** beta * input + alpha * bmm(batch1, batch2), input broadcast (torch.baddbmm). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_baddbmm(const glia_tensor *input, const glia_tensor *batch1,
                                                 const glia_tensor *batch2, double beta, double alpha,
                                                 glia_tensor **out);
/** beta * input + alpha * sum over b of batch1[b] @ batch2[b] (torch.addbmm). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_addbmm(const glia_tensor *input, const glia_tensor *batch1,
                                                const glia_tensor *batch2, double beta, double alpha,
                                                glia_tensor **out);

/** @} */
/* ---- operators: shape and indexing ---------------------------------------- */
/** @defgroup ops_shape Shape and indexing
 * @ingroup ops
 * @{ */

/**
 * A view of `a` with `shape` (ndim entries, one of them may be -1). Fails
 * (GLIA_ERR_SHAPE) where torch's view fails: the strides of `a` must allow it.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_view(const glia_tensor *a, const int64_t *shape, int64_t ndim,
                                              glia_tensor **out);
/** torch.reshape: a view where the strides allow it, else a copy. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_reshape(const glia_tensor *a, const int64_t *shape, int64_t ndim,
                                                 glia_tensor **out);
/** torch.flatten(a, start_dim, end_dim) (0 and -1 flatten everything). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_flatten(const glia_tensor *a, int64_t start_dim, int64_t end_dim,
                                                 glia_tensor **out);
/** Removes the listed dims where their size is 1 (NULL and 0: every size-1 dim). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_squeeze(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                                 glia_tensor **out);
/** Inserts a dim of size 1 at `dim` (in [-ndim-1, ndim]). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_unsqueeze(const glia_tensor *a, int64_t dim, glia_tensor **out);
/** A view with dims reordered: dim i of the result is dim dims[i] of a. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_permute(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                                 glia_tensor **out);
/** A view with dims dim0 and dim1 swapped. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_transpose(const glia_tensor *a, int64_t dim0, int64_t dim1, glia_tensor **out);
/** torch.Tensor.expand: size-1 dims broadcast to `shape` (-1 keeps a size) without a copy. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_expand(const glia_tensor *a, const int64_t *shape, int64_t ndim,
                                                glia_tensor **out);

/** torch.unflatten: dim `dim` of `a` split into `sizes` (n_sizes entries, one may be -1); a view. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_unflatten(const glia_tensor *a, int64_t dim, const int64_t *sizes,
                                                   int64_t n_sizes, glia_tensor **out);
/** torch.narrow: a view of `length` entries of dim `dim` from `start` (negative: from the end). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_narrow(const glia_tensor *a, int64_t dim, int64_t start, int64_t length,
                                                glia_tensor **out);
/**
 * a[..., start:end:step, ...] along `dim` (a view): negative start/end count from the end, both are clamped to
 * [0, size] as in Python slicing (INT64_MAX as end means "to the end"); step must be positive.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_slice(const glia_tensor *a, int64_t dim, int64_t start, int64_t end,
                                               int64_t step, glia_tensor **out);
/** torch.select: the view a[..., index, ...] along `dim`, without that dim (negative: from the end). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_select(const glia_tensor *a, int64_t dim, int64_t index, glia_tensor **out);
/** torch.index_select: entries `index` (1-D or 0-dim, int64 or int32) of dim `dim`; a copy. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_index_select(const glia_tensor *a, int64_t dim, const glia_tensor *index,
                                                      glia_tensor **out);
/**
 * torch.gather: out[i][j] = a[index[i][j]][j] (dim 0; int64 index of a's ndim;
 * an empty index may have any dtype, as torch's). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_gather(const glia_tensor *a, int64_t dim, const glia_tensor *index,
                                                glia_tensor **out);
/** torch.scatter (out of place): a copy of `a` with a[index[i][j]][j] = src[i][j] (dim 0). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_scatter(const glia_tensor *a, int64_t dim, const glia_tensor *index,
                                                 const glia_tensor *src, glia_tensor **out);
/** torch.scatter_add (out of place): like glia_scatter, but src is added. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_scatter_add(const glia_tensor *a, int64_t dim, const glia_tensor *index,
                                                     const glia_tensor *src, glia_tensor **out);
/** torch.scatter(a, dim, index, value) (out of place): `value`, converted to a's dtype, written at index. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_scatter_value(const glia_tensor *a, int64_t dim, const glia_tensor *index,
                                                       glia_scalar value, glia_tensor **out);
/** torch.masked_select: the 1-D tensor of a's entries where `mask` (bool, broadcast with a) is true. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_masked_select(const glia_tensor *a, const glia_tensor *mask,
                                                       glia_tensor **out);
/** torch.cat of n_tensors tensors along dim (types promoted; 1-D empty tensors are skipped as torch does). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_cat(const glia_tensor *const *tensors, int64_t n_tensors, int64_t dim,
                                             glia_tensor **out);
/** torch.stack of n_tensors tensors of equal shape along a new dim `dim`. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_stack(const glia_tensor *const *tensors, int64_t n_tensors, int64_t dim,
                                               glia_tensor **out);
/**
 * torch.split(a, split_size, dim): views of split_size entries (the last may be smaller). The results go to
 * outs[0..*out_count); outs NULL with capacity 0 only stores the count in *out_count.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_split(const glia_tensor *a, int64_t split_size, int64_t dim,
                                               glia_tensor **outs, int64_t capacity, int64_t *out_count);
/** torch.split(a, sizes, dim) with sizes summing to a's size along dim; outputs as glia_split. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_split_with_sizes(const glia_tensor *a, const int64_t *sizes, int64_t n_sizes,
                                                          int64_t dim, glia_tensor **outs, int64_t capacity,
                                                          int64_t *out_count);
/** torch.chunk: at most `chunks` views of ceil(size / chunks) entries; outputs as glia_split. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_chunk(const glia_tensor *a, int64_t chunks, int64_t dim, glia_tensor **outs,
                                               int64_t capacity, int64_t *out_count);

/** @} */
/* ---- triangles, diagonals, flips, rolls (torch.tril, diag, flip, roll, ...) */
/** @defgroup ops_triangles Triangles, diagonals, flips, rolls (torch.tril, diag, flip, roll, ...)
 * @ingroup ops
 * @{ */

/**
 * torch.tril: a copy of `a` (at least 2-D, batched over the leading dims) with the elements above
 * diagonal `diagonal` of its last two dims zeroed (j - i > diagonal). Any dtype.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tril(const glia_tensor *a, int64_t diagonal, glia_tensor **out);
/** torch.triu: as glia_tril, keeping the elements with j - i >= diagonal. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_triu(const glia_tensor *a, int64_t diagonal, glia_tensor **out);
/**
 * torch.tril_indices(row, col, offset): the [2, N] row and column indices of the elements of a
 * row x col matrix that glia_tril(offset) keeps, in row-major order. `options` NULL: int64 on the CPU
 * (int64 and int32 only, else GLIA_ERR_DTYPE); negative row or col: GLIA_ERR_INVALID_ARGUMENT.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_tril_indices(int64_t row, int64_t col, int64_t offset,
                                                             const glia_tensor_options *options, glia_tensor **out);
/** torch.triu_indices: as glia_tensor_tril_indices for glia_triu's elements. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_triu_indices(int64_t row, int64_t col, int64_t offset,
                                                             const glia_tensor_options *options, glia_tensor **out);
/**
 * torch.diagonal: a view (sharing a's storage) of the diagonal `offset` (> 0 above, < 0 below the
 * main one) of dims dim1 and dim2, which are removed and the diagonal appended as the last dim.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_diagonal(const glia_tensor *a, int64_t offset, int64_t dim1, int64_t dim2,
                                                  glia_tensor **out);
/**
 * torch.diag: for a 1-D `a` the square matrix with a on its diagonal `diagonal`; for a 2-D `a` a copy
 * of its diagonal `diagonal`. Other dims: GLIA_ERR_INVALID_ARGUMENT ("matrix or a vector expected").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_diag(const glia_tensor *a, int64_t diagonal, glia_tensor **out);
/** torch.diag_embed: a's last dim written onto the diagonal `offset` of new dims dim1, dim2 (zeros elsewhere). @since
 * 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_diag_embed(const glia_tensor *a, int64_t offset, int64_t dim1, int64_t dim2,
                                                    glia_tensor **out);
/** torch.trace: the 0-dim sum of a 2-D a's main diagonal (integer inputs give int64; bool: GLIA_ERR_DTYPE). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_trace(const glia_tensor *a, glia_tensor **out);
/** torch.flip: a copy of `a` with the order of elements reversed along each of dims (distinct). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_flip(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                              glia_tensor **out);
/** torch.fliplr: glia_flip along dim 1 (a at least 2-D). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_fliplr(const glia_tensor *a, glia_tensor **out);
/** torch.flipud: glia_flip along dim 0 (a at least 1-D). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_flipud(const glia_tensor *a, glia_tensor **out);
/**
 * torch.roll: a copy of `a` shifted circularly by shifts[i] along dims[i] (n_shifts == n_dims);
 * with n_dims 0 and one shift, over the flattened tensor, in a's shape.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_roll(const glia_tensor *a, const int64_t *shifts, int64_t n_shifts,
                                              const int64_t *dims, int64_t n_dims, glia_tensor **out);

/** torch.movedim: a view with dims source[i] moved to destination[i], the others in their order. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_movedim(const glia_tensor *a, const int64_t *source, int64_t n_source,
                                                 const int64_t *destination, int64_t n_destination, glia_tensor **out);
/**
 * Tensor.unfold(dimension, size, step): a view (sharing a's storage) of the windows of `size` elements
 * taken every `step` along `dimension`, which becomes the number of windows; the window is the new
 * last dim. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_unfold(const glia_tensor *a, int64_t dimension, int64_t size, int64_t step,
                                                glia_tensor **out);
/** torch.rot90: a rotated by 90 degrees k times in the plane of dims[0], dims[1] (n_dims must be 2). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_rot90(const glia_tensor *a, int64_t k, const int64_t *dims, int64_t n_dims,
                                               glia_tensor **out);
/** Tensor.repeat: a copy of `a` tiled repeats[i] times along dim i (n_repeats >= a's dims; new leading dims). @since
 * 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_repeat(const glia_tensor *a, const int64_t *repeats, int64_t n_repeats,
                                                glia_tensor **out);
/** torch.tile: glia_repeat with `dims` padded with leading 1s to a's number of dims. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tile(const glia_tensor *a, const int64_t *dims, int64_t n_dims,
                                              glia_tensor **out);
/**
 * torch.repeat_interleave(a, repeats, dim): each element (slice along *dim_or_null) repeated `repeats`
 * times; dim_or_null NULL: over the flattened a. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_repeat_interleave(const glia_tensor *a, int64_t repeats,
                                                           const int64_t *dim_or_null, glia_tensor **out);
/**
 * torch.repeat_interleave with a tensor of repeats (int64 or int32, 0-dim or one per element along the
 * dim); the counts are read on the host (a synchronisation for device tensors, as in torch). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_repeat_interleave_tensor(const glia_tensor *a, const glia_tensor *repeats,
                                                                  const int64_t *dim_or_null, glia_tensor **out);
/**
 * torch.tensor_split(a, sections, dim): `sections` views along dim, the first size % sections of them
 * one longer; outputs as glia_split. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_split(const glia_tensor *a, int64_t sections, int64_t dim,
                                                      glia_tensor **outs, int64_t capacity, int64_t *out_count);
/** torch.tensor_split(a, indices, dim): n_indices + 1 views split at the indices; outputs as glia_split. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_split_indices(const glia_tensor *a, const int64_t *indices,
                                                              int64_t n_indices, int64_t dim, glia_tensor **outs,
                                                              int64_t capacity, int64_t *out_count);

/**
 * torch.take: the elements of the flattened `a` at `index` (int64, any shape; negative indices count
 * from the end), in index's shape. Out-of-range indices: GLIA_ERR_INVALID_ARGUMENT. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_take(const glia_tensor *a, const glia_tensor *index, glia_tensor **out);
/**
 * torch.take_along_dim: glia_gather along *dim_or_null of a and `indices` (int64, as many dims as a)
 * broadcast against each other off that dim; dim_or_null NULL: over the flattened tensors. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_take_along_dim(const glia_tensor *a, const glia_tensor *indices,
                                                        const int64_t *dim_or_null, glia_tensor **out);

/* ---- index and scatter family (issue 20) ------------------------------------------------------------ */
/**
 * torch.index_add (out of place): a copy of `a` with alpha * source[.., i, ..] added at a[.., index[i], ..] along
 * `dim`; index 1-D or 0-dim (int64 or int32), source of a's dtype and of a's shape apart from dim. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_index_add(const glia_tensor *a, int64_t dim, const glia_tensor *index,
                                                   const glia_tensor *source, glia_scalar alpha, glia_tensor **out);
/** torch.index_copy (out of place): a copy of `a` with source[.., i, ..] written at a[.., index[i], ..]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_index_copy(const glia_tensor *a, int64_t dim, const glia_tensor *index,
                                                    const glia_tensor *source, glia_tensor **out);
/**
 * torch.index_fill (out of place): a copy of `a` with `value` in every a[.., index[i], ..] along dim (int64 index,
 * negative entries count from the end). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_index_fill(const glia_tensor *a, int64_t dim, const glia_tensor *index,
                                                    glia_scalar value, glia_tensor **out);
/**
 * torch.scatter_reduce (out of place): src reduced into a copy of `a` at index along dim; reduce is "sum",
 * "prod", "mean", "amax" or "amin"; include_self 0 leaves a's values at the scattered positions out. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_scatter_reduce(const glia_tensor *a, int64_t dim, const glia_tensor *index,
                                                        const glia_tensor *src, const char *reduce,
                                                        int32_t include_self, glia_tensor **out);
/**
 * torch.index_reduce (out of place): source[.., i, ..] reduced into a copy of `a` at a[.., index[i], ..] along dim;
 * reduce is "prod", "mean", "amax" or "amin"; include_self 0 leaves a's values at the indexed positions out.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_index_reduce(const glia_tensor *a, int64_t dim, const glia_tensor *index,
                                                      const glia_tensor *source, const char *reduce,
                                                      int32_t include_self, glia_tensor **out);
/**
 * torch.masked_scatter (out of place): a and mask (bool) broadcast together; source's elements, in order,
 * written where mask is true. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_masked_scatter(const glia_tensor *a, const glia_tensor *mask,
                                                        const glia_tensor *source, glia_tensor **out);
/**
 * torch.put (out of place): source written (accumulate nonzero: added) at the flat positions `index` (int64,
 * negatives count from the end) of a copy of `a`. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_put(const glia_tensor *a, const glia_tensor *index, const glia_tensor *source,
                                             int32_t accumulate, glia_tensor **out);
/**
 * torch.index_put (out of place): a[indices] = values (accumulate nonzero: +=) for n_indices index tensors
 * (integer, or bool masks) over a's leading dims, broadcast together; values broadcast to the result. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_index_put(const glia_tensor *a, const glia_tensor *const *indices,
                                                   int64_t n_indices, const glia_tensor *values, int32_t accumulate,
                                                   glia_tensor **out);
/** torch.nonzero: int64 [n, a's ndim], the coordinates of a's nonzero elements in row-major order. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nonzero(const glia_tensor *a, glia_tensor **out);
/** torch.diagonal_scatter: a copy of `a` with src written on glia_diagonal(a, offset, dim1, dim2). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_diagonal_scatter(const glia_tensor *a, const glia_tensor *src, int64_t offset,
                                                          int64_t dim1, int64_t dim2, glia_tensor **out);
/** torch.select_scatter: a copy of `a` with src written on glia_select(a, dim, index). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_select_scatter(const glia_tensor *a, const glia_tensor *src, int64_t dim,
                                                        int64_t index, glia_tensor **out);
/** torch.slice_scatter: a copy of `a` with src written on glia_slice(a, dim, start, end, step). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_slice_scatter(const glia_tensor *a, const glia_tensor *src, int64_t dim,
                                                       int64_t start, int64_t end, int64_t step, glia_tensor **out);

/** Padding modes of glia_pad (torch.nn.functional.pad's mode strings). @since 0.1 */
typedef enum glia_pad_mode GLIA_ENUM_BASE {
  GLIA_PAD_CONSTANT = 0,  /**< "constant": pads with a value */
  GLIA_PAD_REFLECT = 1,   /**< "reflect": mirrors the input without repeating the edge */
  GLIA_PAD_REPLICATE = 2, /**< "replicate": repeats the edge */
  GLIA_PAD_CIRCULAR = 3   /**< "circular": wraps around */
} glia_pad_mode;

/**
 * torch.nn.functional.pad: pad[0], pad[1] pad the last dim (left, right), pad[2], pad[3] the one before, ...
 * (n_pad even, at most 2 * ndim). Constant mode fills with `value` and negative pads crop; reflect and replicate
 * pad the last 1-3 dims of 2-D to 5-D float inputs; circular needs batch and channel dims. `value` must be 0
 * except in constant mode.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_pad(const glia_tensor *a, const int64_t *pad, int64_t n_pad,
                                             glia_pad_mode mode, double value, glia_tensor **out);

/** The modes of glia_interpolate (torch.nn.functional.interpolate's mode strings). @since 0.2 */
typedef enum glia_interpolate_mode GLIA_ENUM_BASE {
  GLIA_INTERPOLATE_NEAREST = 0,      /**< "nearest": input index floor(i / scale) */
  GLIA_INTERPOLATE_LINEAR = 1,       /**< "linear": 3-D inputs */
  GLIA_INTERPOLATE_BILINEAR = 2,     /**< "bilinear": 4-D inputs */
  GLIA_INTERPOLATE_BICUBIC = 3,      /**< "bicubic": 4-D inputs, Keys' kernel with A = -0.75 */
  GLIA_INTERPOLATE_TRILINEAR = 4,    /**< "trilinear": 5-D inputs */
  GLIA_INTERPOLATE_AREA = 5,         /**< "area": adaptive average pooling (4-D inputs only in glia) */
  GLIA_INTERPOLATE_NEAREST_EXACT = 6 /**< "nearest-exact": input index floor((i + 0.5) / scale) */
} glia_interpolate_mode;

/**
 * torch.nn.functional.interpolate(a, size, scale_factor, mode, align_corners, recompute_scale_factor) on an
 * [N, C, *spatial] float32 / float64 input with 1 to 3 spatial dims. size: NULL (n_size 0) for None, one value
 * for torch's int (every spatial dim) or one per spatial dim; scale_factor likewise. align_corners and
 * recompute_scale_factor: -1 for None, else 0 / 1. The output size is size, or floor(input size * scale
 * factor); the source positions use 1 / scale_factor when a scale factor was given and not recomputed, and
 * in / out otherwise (align_corners: (in - 1) / (out - 1)), as torch's. Differentiable (torch's node names,
 * UpsampleBilinear2DBackward1 ...). Errors with torch's messages: GLIA_ERR_INVALID_ARGUMENT ("only one of
 * size or scale_factor should be defined", spatial-dims mismatches, align_corners with a non-interpolating
 * mode), GLIA_ERR_UNSUPPORTED (a mode for another number of dims: "Got 3D input, but bilinear mode needs 4D
 * input"), GLIA_ERR_SHAPE ("Input and output sizes should be greater than 0, ..."), GLIA_ERR_DTYPE.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_interpolate(const glia_tensor *a, const int64_t *size, int64_t n_size,
                                                     const double *scale_factor, int64_t n_scale_factor,
                                                     glia_interpolate_mode mode, int32_t align_corners,
                                                     int32_t recompute_scale_factor, glia_tensor **out);

/**
 * torch.nn.functional.pixel_shuffle(a, upscale_factor): [*, C * r * r, H, W] -> [*, C, H * r, W * r], any dtype
 * (at least 3 dims). Differentiable (PixelShuffleBackward0, itself differentiable). Errors with torch's
 * messages: GLIA_ERR_SHAPE ("pixel_shuffle expects input to have at least 3 dimensions, ...", the channels not
 * divisible by r * r), GLIA_ERR_INVALID_ARGUMENT ("pixel_shuffle expects a positive upscale_factor, ...").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_pixel_shuffle(const glia_tensor *a, int64_t upscale_factor, glia_tensor **out);
/**
 * torch.nn.functional.pixel_unshuffle(a, downscale_factor): [*, C, H * r, W * r] -> [*, C * r * r, H, W], the
 * inverse of glia_pixel_shuffle (PixelUnshuffleBackward0). Errors as glia_pixel_shuffle's, and height or width
 * not divisible by r (GLIA_ERR_SHAPE).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_pixel_unshuffle(const glia_tensor *a, int64_t downscale_factor,
                                                         glia_tensor **out);
/**
 * torch.nn.functional.channel_shuffle(a, groups): [N, C, *] with C = g * k: channel i * k + j moves to
 * j * g + i. As in torch 1.13 it has no derivative: an input that requires grad gives an output whose
 * backward fails with "derivative for channel_shuffle is not implemented". Errors with torch's messages:
 * GLIA_ERR_SHAPE (fewer than 3 dims, channels not divisible by groups), GLIA_ERR_INVALID_ARGUMENT (groups <= 0).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_channel_shuffle(const glia_tensor *a, int64_t groups, glia_tensor **out);

/** @} */
/* ---- operators: neural-network functions ---------------------------------- */
/** @defgroup ops_nn Neural-network functions
 * @ingroup ops
 * @{ */

/* Convolution and pooling (NCHW; an unbatched [C, H, W] input gives an unbatched result). */

/**
 * torch's padding= of a convolution: explicit sizes, "valid" (none) or "same"
 * (output size = input size). Not torch's padding_mode (glia_pad_mode).
 */
typedef enum glia_padding_kind GLIA_ENUM_BASE {
  GLIA_PADDING_EXPLICIT = 0, /**< the options' padding sizes */
  GLIA_PADDING_VALID = 1,    /**< padding="valid": no padding */
  GLIA_PADDING_SAME = 2      /**< padding="same": the output has the input's size (stride 1) */
} glia_padding_kind;

/** Options of glia_conv2d. Initialise with glia_conv2d_options_init(). Pairs are (height, width). */
typedef struct glia_conv2d_options {
  /** sizeof(glia_conv2d_options), set by glia_conv2d_options_init(). */
  size_t struct_size;
  int64_t stride[2];              /**< default {1, 1} */
  int64_t padding[2];             /**< default {0, 0}; used with GLIA_PADDING_EXPLICIT */
  int64_t dilation[2];            /**< default {1, 1} */
  int64_t groups;                 /**< default 1 */
  glia_padding_kind padding_kind; /**< default GLIA_PADDING_EXPLICIT */
} glia_conv2d_options;
/** Sets torch's defaults and struct_size. @since 0.1 */
GLIA_API void glia_conv2d_options_init(glia_conv2d_options *options);

/**
 * torch.nn.functional.conv2d: x [N, C, H, W] or [C, H, W], weight
 * [O, C / groups, kH, kW], bias [O] or NULL; options NULL for the defaults.
 * float32, float64, bfloat16 (computed in float32) and int64; on CUDA also
 * float16 (cuDNN; docs/cuda.md, Kernels).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_conv2d(const glia_tensor *x, const glia_tensor *weight,
                                                const glia_tensor *bias, const glia_conv2d_options *options,
                                                glia_tensor **out);

/** Options of glia_conv_transpose2d. Initialise with glia_conv_transpose2d_options_init(). */
typedef struct glia_conv_transpose2d_options {
  /** sizeof(glia_conv_transpose2d_options), set by glia_conv_transpose2d_options_init(). */
  size_t struct_size;
  int64_t stride[2];         /**< default {1, 1} */
  int64_t padding[2];        /**< default {0, 0} */
  int64_t output_padding[2]; /**< default {0, 0} */
  int64_t groups;            /**< default 1 */
  int64_t dilation[2];       /**< default {1, 1} */
} glia_conv_transpose2d_options;
/** Sets torch's defaults and struct_size. @since 0.1 */
GLIA_API void glia_conv_transpose2d_options_init(glia_conv_transpose2d_options *options);

/**
 * torch.nn.functional.conv_transpose2d: x [N, C, H, W] or [C, H, W], weight
 * [C, O / groups, kH, kW], bias [O] or NULL; options NULL for the defaults.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_conv_transpose2d(const glia_tensor *x, const glia_tensor *weight,
                                                          const glia_tensor *bias,
                                                          const glia_conv_transpose2d_options *options,
                                                          glia_tensor **out);

/* Convolutions 1d/3d and fold/unfold (@since 0.2). 1-D functions read element 0 of each array,
 * 3-D ones (depth, height, width). */

/** Options of glia_conv1d and glia_conv3d. Initialise with glia_convnd_options_init(). @since 0.2 */
typedef struct glia_convnd_options {
  /** sizeof(glia_convnd_options), set by glia_convnd_options_init(). */
  size_t struct_size;
  int64_t stride[3];              /**< default {1, 1, 1} */
  int64_t padding[3];             /**< default {0, 0, 0}; used with GLIA_PADDING_EXPLICIT */
  int64_t dilation[3];            /**< default {1, 1, 1} */
  int64_t groups;                 /**< default 1 */
  glia_padding_kind padding_kind; /**< default GLIA_PADDING_EXPLICIT */
} glia_convnd_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_convnd_options_init(glia_convnd_options *options);

/**
 * torch.nn.functional.conv1d: x [N, C, L] or [C, L], weight [O, C / groups, k],
 * bias [O] or NULL; options NULL for the defaults. conv2d's dtypes and messages
 * (torch's, with 1-D sizes). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_conv1d(const glia_tensor *x, const glia_tensor *weight,
                                                const glia_tensor *bias, const glia_convnd_options *options,
                                                glia_tensor **out);
/**
 * torch.nn.functional.conv3d: x [N, C, D, H, W] or [C, D, H, W], weight
 * [O, C / groups, kD, kH, kW], bias [O] or NULL. float32, float64, bfloat16
 * and int64. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_conv3d(const glia_tensor *x, const glia_tensor *weight,
                                                const glia_tensor *bias, const glia_convnd_options *options,
                                                glia_tensor **out);

/** Options of glia_conv_transpose1d and glia_conv_transpose3d. Initialise with the init function. @since 0.2 */
typedef struct glia_conv_transposend_options {
  /** sizeof(glia_conv_transposend_options), set by glia_conv_transposend_options_init(). */
  size_t struct_size;
  int64_t stride[3];         /**< default {1, 1, 1} */
  int64_t padding[3];        /**< default {0, 0, 0} */
  int64_t output_padding[3]; /**< default {0, 0, 0} */
  int64_t groups;            /**< default 1 */
  int64_t dilation[3];       /**< default {1, 1, 1} */
} glia_conv_transposend_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_conv_transposend_options_init(glia_conv_transposend_options *options);

/**
 * torch.nn.functional.conv_transpose1d: x [N, C, L] or [C, L], weight
 * [C, O / groups, k], bias [O] or NULL. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_conv_transpose1d(const glia_tensor *x, const glia_tensor *weight,
                                                          const glia_tensor *bias,
                                                          const glia_conv_transposend_options *options,
                                                          glia_tensor **out);
/**
 * torch.nn.functional.conv_transpose3d: x [N, C, D, H, W] or [C, D, H, W],
 * weight [C, O / groups, kD, kH, kW], bias [O] or NULL. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_conv_transpose3d(const glia_tensor *x, const glia_tensor *weight,
                                                          const glia_tensor *bias,
                                                          const glia_conv_transposend_options *options,
                                                          glia_tensor **out);

/** Options of glia_im2col and glia_col2im (pairs are (height, width)). Initialise with glia_fold_options_init(). */
typedef struct glia_fold_options {
  /** sizeof(glia_fold_options), set by glia_fold_options_init(). */
  size_t struct_size;
  int64_t kernel_size[2]; /**< default {1, 1}: set it */
  int64_t dilation[2];    /**< default {1, 1} */
  int64_t padding[2];     /**< default {0, 0} */
  int64_t stride[2];      /**< default {1, 1} */
} glia_fold_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_fold_options_init(glia_fold_options *options);

/**
 * torch.nn.functional.unfold (torch's im2col; glia_unfold is Tensor.unfold): x [N, C, H, W] or [C, H, W] ->
 * [N, C * kH * kW, L] (or [C * kH * kW, L]), L the number of window positions.
 * Floating dtypes. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_im2col(const glia_tensor *x, const glia_fold_options *options,
                                                glia_tensor **out);
/**
 * torch.nn.functional.fold (torch's col2im, the adjoint of glia_im2col): x [N, C * kH * kW, L]
 * or [C * kH * kW, L] -> [N, C, out_h, out_w] (or [C, out_h, out_w]), overlapping
 * values summed. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_col2im(const glia_tensor *x, int64_t out_h, int64_t out_w,
                                                const glia_fold_options *options, glia_tensor **out);

/** Options of glia_max_pool2d. Initialise with glia_max_pool2d_options_init() and set kernel_size. */
typedef struct glia_max_pool2d_options {
  /** sizeof(glia_max_pool2d_options), set by glia_max_pool2d_options_init(). */
  size_t struct_size;
  int64_t kernel_size[2]; /**< default {1, 1}: set it */
  int64_t stride[2];      /**< default {0, 0}: kernel_size */
  int64_t padding[2];     /**< default {0, 0}; at most half the kernel */
  int64_t dilation[2];    /**< default {1, 1} */
  int32_t ceil_mode;      /**< default 0 */
} glia_max_pool2d_options;
/** Sets torch's defaults and struct_size. @since 0.1 */
GLIA_API void glia_max_pool2d_options_init(glia_max_pool2d_options *options);

/**
 * torch.nn.functional.max_pool2d; with out_indices non-NULL also the indices
 * (int64, flat positions in each input plane: return_indices=True). NaN wins.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_max_pool2d(const glia_tensor *x, const glia_max_pool2d_options *options,
                                                    glia_tensor **out, glia_tensor **out_indices);

/** Options of glia_avg_pool2d. Initialise with glia_avg_pool2d_options_init() and set kernel_size. */
typedef struct glia_avg_pool2d_options {
  /** sizeof(glia_avg_pool2d_options), set by glia_avg_pool2d_options_init(). */
  size_t struct_size;
  int64_t kernel_size[2];    /**< default {1, 1}: set it */
  int64_t stride[2];         /**< default {0, 0}: kernel_size */
  int64_t padding[2];        /**< default {0, 0}; at most half the kernel */
  int32_t ceil_mode;         /**< default 0 */
  int32_t count_include_pad; /**< default 1 */
  int64_t divisor_override;  /**< default 0: none */
} glia_avg_pool2d_options;
/** Sets torch's defaults and struct_size. @since 0.1 */
GLIA_API void glia_avg_pool2d_options_init(glia_avg_pool2d_options *options);

/** torch.nn.functional.avg_pool2d. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_avg_pool2d(const glia_tensor *x, const glia_avg_pool2d_options *options,
                                                    glia_tensor **out);

/** torch.nn.functional.adaptive_avg_pool2d to [out_h, out_w]. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_adaptive_avg_pool2d(const glia_tensor *x, int64_t out_h, int64_t out_w,
                                                             glia_tensor **out);

/* ---- 1-D and 3-D pooling (torch.nn.functional's max_pool1d/3d, avg_pool1d/3d, adaptive_avg_pool1d/3d).
 * An unbatched input ([C, L], [C, T, H, W]) gives an unbatched result. */

/** Options of glia_max_pool1d. Initialise with glia_max_pool1d_options_init() and set kernel_size. */
typedef struct glia_max_pool1d_options {
  /** sizeof(glia_max_pool1d_options), set by glia_max_pool1d_options_init(). */
  size_t struct_size;
  int64_t kernel_size; /**< default 1: set it */
  int64_t stride;      /**< default 0: kernel_size */
  int64_t padding;     /**< default 0; at most half the kernel */
  int64_t dilation;    /**< default 1 */
  int32_t ceil_mode;   /**< default 0 */
} glia_max_pool1d_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_max_pool1d_options_init(glia_max_pool1d_options *options);

/**
 * torch.nn.functional.max_pool1d on x [N, C, L] or [C, L]; with out_indices
 * non-NULL also the indices (int64 positions along L: return_indices=True).
 * NaN wins. The gradient is max_pool2d's on x.unsqueeze(-2) (torch's
 * SqueezeBackward1 on top).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_max_pool1d(const glia_tensor *x, const glia_max_pool1d_options *options,
                                                    glia_tensor **out, glia_tensor **out_indices);

/** Options of glia_avg_pool1d. Initialise with glia_avg_pool1d_options_init() and set kernel_size. */
typedef struct glia_avg_pool1d_options {
  /** sizeof(glia_avg_pool1d_options), set by glia_avg_pool1d_options_init(). */
  size_t struct_size;
  int64_t kernel_size;       /**< default 1: set it */
  int64_t stride;            /**< default 0: kernel_size */
  int64_t padding;           /**< default 0; at most half the kernel */
  int32_t ceil_mode;         /**< default 0 */
  int32_t count_include_pad; /**< default 1 */
} glia_avg_pool1d_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_avg_pool1d_options_init(glia_avg_pool1d_options *options);

/** torch.nn.functional.avg_pool1d on x [N, C, L] or [C, L]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_avg_pool1d(const glia_tensor *x, const glia_avg_pool1d_options *options,
                                                    glia_tensor **out);

/** Options of glia_max_pool3d (sizes in the order T, H, W). Initialise with glia_max_pool3d_options_init(). */
typedef struct glia_max_pool3d_options {
  /** sizeof(glia_max_pool3d_options), set by glia_max_pool3d_options_init(). */
  size_t struct_size;
  int64_t kernel_size[3]; /**< default {1, 1, 1}: set it */
  int64_t stride[3];      /**< default {0, 0, 0}: kernel_size */
  int64_t padding[3];     /**< default {0, 0, 0}; at most half the kernel */
  int64_t dilation[3];    /**< default {1, 1, 1} */
  int32_t ceil_mode;      /**< default 0 */
} glia_max_pool3d_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_max_pool3d_options_init(glia_max_pool3d_options *options);

/**
 * torch.nn.functional.max_pool3d on x [N, C, T, H, W] or [C, T, H, W]; with
 * out_indices non-NULL also the indices (int64, flat positions in each
 * T * H * W volume: return_indices=True). NaN wins.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_max_pool3d(const glia_tensor *x, const glia_max_pool3d_options *options,
                                                    glia_tensor **out, glia_tensor **out_indices);

/** Options of glia_avg_pool3d (sizes in the order T, H, W). Initialise with glia_avg_pool3d_options_init(). */
typedef struct glia_avg_pool3d_options {
  /** sizeof(glia_avg_pool3d_options), set by glia_avg_pool3d_options_init(). */
  size_t struct_size;
  int64_t kernel_size[3];    /**< default {1, 1, 1}: set it */
  int64_t stride[3];         /**< default {0, 0, 0}: kernel_size */
  int64_t padding[3];        /**< default {0, 0, 0}; at most half the kernel */
  int32_t ceil_mode;         /**< default 0 */
  int32_t count_include_pad; /**< default 1 */
  int64_t divisor_override;  /**< default 0: none */
} glia_avg_pool3d_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_avg_pool3d_options_init(glia_avg_pool3d_options *options);

/** torch.nn.functional.avg_pool3d on x [N, C, T, H, W] or [C, T, H, W]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_avg_pool3d(const glia_tensor *x, const glia_avg_pool3d_options *options,
                                                    glia_tensor **out);

/** torch.nn.functional.adaptive_avg_pool1d to length out_l, x [N, C, L] or [C, L]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_adaptive_avg_pool1d(const glia_tensor *x, int64_t out_l, glia_tensor **out);

/** torch.nn.functional.adaptive_avg_pool3d to [out_t, out_h, out_w]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_adaptive_avg_pool3d(const glia_tensor *x, int64_t out_t, int64_t out_h,
                                                             int64_t out_w, glia_tensor **out);

/**
 * torch.nn.functional.adaptive_max_pool1d to length out_l, x [N, C, L] or
 * [C, L]; with out_indices non-NULL also the indices (int64 positions along
 * L: return_indices=True). NaN wins.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_adaptive_max_pool1d(const glia_tensor *x, int64_t out_l, glia_tensor **out,
                                                             glia_tensor **out_indices);
/**
 * torch.nn.functional.adaptive_max_pool2d to [out_h, out_w], x [N, C, H, W] or
 * [C, H, W]; out_indices (may be NULL): int64 flat positions in each plane.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_adaptive_max_pool2d(const glia_tensor *x, int64_t out_h, int64_t out_w,
                                                             glia_tensor **out, glia_tensor **out_indices);
/**
 * torch.nn.functional.adaptive_max_pool3d to [out_t, out_h, out_w]; out_indices
 * (may be NULL): int64 flat positions in each T * H * W volume.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_adaptive_max_pool3d(const glia_tensor *x, int64_t out_t, int64_t out_h,
                                                             int64_t out_w, glia_tensor **out,
                                                             glia_tensor **out_indices);

/**
 * Options of glia_max_unpool1d/2d/3d (the first 1, 2 or 3 entries of each
 * array are read). Initialise with glia_max_unpool_options_init() and set
 * kernel_size.
 */
typedef struct glia_max_unpool_options {
  /** sizeof(glia_max_unpool_options), set by glia_max_unpool_options_init(). */
  size_t struct_size;
  int64_t kernel_size[3]; /**< default {1, 1, 1}: set it */
  int64_t stride[3];      /**< default {0, 0, 0}: kernel_size */
  int64_t padding[3];     /**< default {0, 0, 0} */
  /** default {-1, -1, -1}: torch's output_size=None, (in - 1) * stride + kernel - 2 * padding */
  int64_t output_size[3];
} glia_max_unpool_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_max_unpool_options_init(glia_max_unpool_options *options);

/**
 * torch.nn.functional.max_unpool1d: x [N, C, L] or [C, L] and the int64
 * indices of max_pool1d(return_indices) (same shape) -> zeros of the output
 * size with x's values at the indices. An index outside the output is an error.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_max_unpool1d(const glia_tensor *x, const glia_tensor *indices,
                                                      const glia_max_unpool_options *options, glia_tensor **out);
/** torch.nn.functional.max_unpool2d (see glia_max_unpool1d): x [N, C, H, W] or [C, H, W]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_max_unpool2d(const glia_tensor *x, const glia_tensor *indices,
                                                      const glia_max_unpool_options *options, glia_tensor **out);
/** torch.nn.functional.max_unpool3d (see glia_max_unpool1d): x [N, C, T, H, W] or [C, T, H, W]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_max_unpool3d(const glia_tensor *x, const glia_tensor *indices,
                                                      const glia_max_unpool_options *options, glia_tensor **out);

/**
 * torch.nn.functional.lp_pool1d(x, norm_type, kernel_size, stride, ceil_mode)
 * on x [N, C, L] or [C, L]; stride 0 is torch's stride=None (kernel_size).
 * Composed as torch does: (sign(a) * relu(|a|) * kernel_size)^(1/norm_type),
 * a = avg_pool1d(x^norm_type).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lp_pool1d(const glia_tensor *x, double norm_type, int64_t kernel_size,
                                                   int64_t stride, int32_t ceil_mode, glia_tensor **out);
/**
 * torch.nn.functional.lp_pool2d on x [N, C, H, W] or [C, H, W]; kernel_size
 * {kH, kW}; stride NULL or {0, 0} is torch's stride=None.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lp_pool2d(const glia_tensor *x, double norm_type, const int64_t kernel_size[2],
                                                   const int64_t *stride, int32_t ceil_mode, glia_tensor **out);

/**
 * torch.nn.functional.batch_norm on x of shape [N, C, *] (any number of
 * trailing dims, none included). weight, bias, running_mean and running_var
 * are optional (NULL) and hold C elements each, all of one floating dtype: x's,
 * or float32 for a bfloat16/float16 x.
 * training != 0: normalises with the batch statistics (biased variance) and,
 * where the running statistics are given, updates them IN PLACE:
 * running = (1 - momentum) * running + momentum * batch, with the unbiased
 * batch variance for running_var (torch's default momentum is 0.1). For torch's
 * momentum=None (cumulative moving average) pass momentum = 1 / k at the k-th
 * call (k = 1, 2, ...), as nn.BatchNorm does with num_batches_tracked.
 * training == 0: normalises with running_mean / running_var (both required).
 * The running statistics take no part in autograd and are left untouched when
 * the call fails. eps: torch's default 1e-5. Gradients flow to x, weight, bias.
 * An x without elements skips every check (torch's): the result is a copy of x,
 * times weight[0] and plus bias[0] where given (from 0.2).
 * Errors: GLIA_ERR_INVALID_ARGUMENT (training with one value per channel,
 * missing running statistics in eval, x with fewer than 2 dims), GLIA_ERR_SHAPE
 * (a parameter without C elements), GLIA_ERR_DTYPE (integer x, mixed dtypes).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_batch_norm(const glia_tensor *x, glia_tensor *running_mean,
                                                    glia_tensor *running_var, const glia_tensor *weight,
                                                    const glia_tensor *bias, int32_t training, double momentum,
                                                    double eps, glia_tensor **out);
/**
 * torch.nn.functional.layer_norm: normalises over the last n dims of x, which
 * must equal normalized_shape (normalized_ndim >= 1 entries); weight and bias (optional, NULL)
 * have shape normalized_shape and x's dtype. eps: torch's default 1e-5.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_layer_norm(const glia_tensor *x, const int64_t *normalized_shape,
                                                    int64_t normalized_ndim, const glia_tensor *weight,
                                                    const glia_tensor *bias, double eps, glia_tensor **out);
/**
 * torch.nn.functional.group_norm on x of shape [N, C, *]: C must be divisible
 * by num_groups (> 0); weight and bias (optional, NULL) are vectors of C
 * elements of x's dtype. eps: torch's default 1e-5.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_group_norm(const glia_tensor *x, int64_t num_groups, const glia_tensor *weight,
                                                    const glia_tensor *bias, double eps, glia_tensor **out);
/**
 * torch.nn.functional.embedding(indices, weight, padding_idx, max_norm,
 * norm_type): the rows of weight ([num, dim], any dtype) picked by indices
 * (int64 or int32, any shape), giving indices.shape + [dim].
 * padding_idx: NULL for none, else in [-num, num) (negative counts from the
 * end); that row receives no gradient. max_norm: NULL for none; else the rows
 * referenced by indices whose norm_type-norm exceeds *max_norm are scaled IN
 * PLACE (weight's data changes, not recorded by autograd) by
 * max_norm / (norm + 1e-7) before the lookup, as torch does (floating weight
 * only). norm_type: torch's default 2. Gradients flow to weight.
 * Errors: GLIA_ERR_INVALID_ARGUMENT ("index out of range in self", bad
 * padding_idx), GLIA_ERR_SHAPE (weight not 2-D), GLIA_ERR_DTYPE (indices not
 * int64/int32).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_embedding(glia_tensor *weight, const glia_tensor *indices,
                                                   const int64_t *padding_idx, const double *max_norm, double norm_type,
                                                   glia_tensor **out);
/**
 * glia_embedding with torch's scale_grad_by_freq: when nonzero, each row's
 * gradient is divided by the number of times its index occurs in indices
 * (torch.nn.functional.embedding(..., scale_grad_by_freq=True)). Arguments
 * and errors otherwise as glia_embedding's.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_embedding_ex(glia_tensor *weight, const glia_tensor *indices,
                                                      const int64_t *padding_idx, const double *max_norm,
                                                      double norm_type, int32_t scale_grad_by_freq, glia_tensor **out);
/**
 * torch.nn.functional.embedding_bag(input, weight, offsets, max_norm,
 * norm_type, scale_grad_by_freq, mode, sparse=False, per_sample_weights,
 * include_last_offset, padding_idx): per bag, the sum, mean or max of the
 * rows of weight ([num, dim]; float16, float32 or float64) picked by input
 * (int64 or int32), giving [bags, dim]. input is 1-D with offsets (1-D, the
 * start of each bag; with include_last_offset the last entry ends the last
 * bag) or 2-D [bags, n] with offsets NULL. mode: "sum", "mean" or "max"
 * (NULL: torch's default "mean"). An empty bag gives zeros. padding_idx (NULL:
 * none; negative counts from the end): those entries are left out of the
 * bags (and of a mean's count). per_sample_weights (NULL, or input's shape and
 * weight's dtype; mode "sum" only) scales each row. max_norm (NULL: none)
 * renormalises the looked-up rows of weight IN PLACE first, as
 * glia_embedding. scale_grad_by_freq divides each row's gradient by its
 * index's count. Gradients flow to weight and per_sample_weights
 * (EmbeddingBagBackward0). Errors (torch's messages):
 * GLIA_ERR_INVALID_ARGUMENT (bad mode, offsets, index out of range, padding_idx,
 * input not 1-D or 2-D), GLIA_ERR_UNSUPPORTED (per_sample_weights with mode
 * "mean" or "max"), GLIA_ERR_DTYPE, GLIA_ERR_SHAPE (weight not 2-D).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_embedding_bag(glia_tensor *weight, const glia_tensor *input,
                                                       const glia_tensor *offsets, const double *max_norm,
                                                       double norm_type, int32_t scale_grad_by_freq, const char *mode,
                                                       const glia_tensor *per_sample_weights,
                                                       int32_t include_last_offset, const int64_t *padding_idx,
                                                       glia_tensor **out);
/**
 * torch.nn.functional.ctc_loss(log_probs, targets, input_lengths,
 * target_lengths, blank, reduction, zero_infinity): the connectionist temporal
 * classification loss, torch's CPU algorithm. log_probs [T, N, C] (or
 * unbatched [T, C]), float32 or float64, normally a log_softmax over C;
 * targets [sum(target_lengths)] (concatenated) or [N, S] (padded), integral
 * or floating (converted to int64); one input and one target length per batch
 * element. reduction GLIA_REDUCTION_MEAN divides each loss by its target
 * length (at least 1) and averages; zero_infinity replaces infinite losses
 * and their gradients by 0. The gradient (CtcLossBackward0) is torch's, which
 * assumes log_probs came out of a log_softmax. Errors (torch's messages):
 * GLIA_ERR_INVALID_ARGUMENT ("blank must be in label range", lengths),
 * GLIA_ERR_SHAPE (dimensions, targets' sizes), GLIA_ERR_DTYPE.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_ctc_loss(const glia_tensor *log_probs, const glia_tensor *targets,
                                                  const int64_t *input_lengths, int64_t n_input_lengths,
                                                  const int64_t *target_lengths, int64_t n_target_lengths,
                                                  int64_t blank, glia_reduction reduction, int32_t zero_infinity,
                                                  glia_tensor **out);
/**
 * torch.nn.functional.dropout: with training != 0 each element is zeroed with
 * probability p (drawn from glia's generator: glia_manual_seed makes it
 * reproducible) and the others are scaled by 1 / (1 - p); p = 1 gives x * 0.
 * With training == 0, p == 0 or an empty x the result is x itself (the same
 * tensor). p must lie in [0, 1] (GLIA_ERR_INVALID_ARGUMENT).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_dropout(const glia_tensor *x, double p, int32_t training, glia_tensor **out);
/**
 * torchvision.transforms.functional.normalize on a floating x of shape
 * [..., C, H, W]: (x - mean[c]) / std[c], with mean and std (n_mean / n_std
 * values, each count 1 or C) converted to x's dtype first. A result, not in
 * place. Errors: GLIA_ERR_INVALID_ARGUMENT (fewer than 3 dims, a std that is
 * zero in x's dtype), GLIA_ERR_DTYPE (integer x), GLIA_ERR_SHAPE (counts).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_normalize(const glia_tensor *x, const double *mean, int64_t n_mean,
                                                   const double *std, int64_t n_std, glia_tensor **out);

/* ---- norms, dropouts and distances (torch.nn.functional, issue 21) ---------- */
/**
 * torch.nn.functional.instance_norm on x of shape [N, C, *]: batch_norm of x
 * viewed as [1, N * C, *], so each sample and channel is normalised with its
 * own statistics when use_input_stats != 0 (torch's default), with
 * running_mean / running_var (both required) otherwise. running_mean and
 * running_var (optional, NULL; C elements) are updated IN PLACE with the mean
 * over the batch of the per-sample updates (momentum: torch's 0.1); weight and
 * bias (optional, C elements) are the affine parameters. eps: torch's 1e-5.
 * Gradients flow to x, weight and bias. Errors: GLIA_ERR_INVALID_ARGUMENT
 * ("Expected more than 1 spatial element when training, got input size
 * torch.Size([2, 3, 1])", "Expected running_mean and running_var to be defined
 * when use_input_stats is false"), those of glia_batch_norm.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_instance_norm(const glia_tensor *x, glia_tensor *running_mean,
                                                       glia_tensor *running_var, const glia_tensor *weight,
                                                       const glia_tensor *bias, int32_t use_input_stats,
                                                       double momentum, double eps, glia_tensor **out);
/**
 * torch.nn.functional.local_response_norm on x [N, C, *] (3 or more dims):
 * x / (k + alpha * mean(x^2 over channels c - size/2 .. c + (size-1)/2, zero
 * padded))^beta. torch's defaults: alpha 1e-4, beta 0.75, k 1. An x without
 * elements is returned as is. Errors: GLIA_ERR_INVALID_ARGUMENT ("Expected 3D
 * or higher dimensionality input (got 2 dimensions)", size < 1).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_local_response_norm(const glia_tensor *x, int64_t size, double alpha,
                                                             double beta, double k, glia_tensor **out);
/**
 * torch.nn.functional.cosine_similarity: sum(x1 * x2, dim) / (max(||x1||, eps)
 * * max(||x2||, eps)) over x1 and x2 broadcast together and converted to their
 * common dtype (floating). torch's defaults: dim 1, eps 1e-8. At a norm below
 * eps the gradient is torch's (the clamped norm divides it; zero vectors get
 * finite gradients). Errors: GLIA_ERR_DTYPE ("expected common dtype to be
 * floating point, yet common dtype is Long"), GLIA_ERR_SHAPE (shapes that do
 * not broadcast), dim out of range.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_cosine_similarity(const glia_tensor *x1, const glia_tensor *x2, int64_t dim,
                                                           double eps, glia_tensor **out);
/**
 * torch.nn.functional.pairwise_distance: the p-norm of x1 - x2 + eps over the
 * last dim of the broadcast shape, kept with size 1 when keepdim != 0. torch's
 * defaults: p 2, eps 1e-6, keepdim 0. Gradient 0 where the distance is 0.
 * Errors: GLIA_ERR_SHAPE (shapes that do not broadcast).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_pairwise_distance(const glia_tensor *x1, const glia_tensor *x2, double p,
                                                           double eps, int32_t keepdim, glia_tensor **out);
/**
 * torch.nn.functional.pdist on a floating x [n, m]: the p-norm distances
 * between rows i < j, in row-major order of the upper triangle (n * (n - 1) / 2
 * values). torch's default p 2. Errors: GLIA_ERR_SHAPE ("pdist only supports
 * 2D tensors, got: 1D"), GLIA_ERR_DTYPE ("pdist only supports floating-point
 * dtypes"), GLIA_ERR_INVALID_ARGUMENT ("pdist only supports non-negative p
 * values").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_pdist(const glia_tensor *x, double p, glia_tensor **out);
/**
 * torch.nn.functional.bilinear: y[..., o] = x1[..., i] weight[o, i, j]
 * x2[..., j] + bias[o] (the forward of glia_nn_bilinear); bias optional
 * (NULL). Errors: GLIA_ERR_SHAPE (torch's "bilinear(): ..." texts).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_bilinear(const glia_tensor *x1, const glia_tensor *x2,
                                                  const glia_tensor *weight, const glia_tensor *bias,
                                                  glia_tensor **out);
/** x / (1 + |x|) (torch.nn.functional.softsign). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_softsign(const glia_tensor *x, glia_tensor **out);
/**
 * torch.nn.functional.dropout1d on x [N, C, L] or [C, L] (channel-wise): with
 * training != 0 each channel is zeroed with probability p (glia's generator)
 * and the others scaled by 1 / (1 - p); training == 0, p == 0 or an empty x
 * give x. Errors: GLIA_ERR_INVALID_ARGUMENT ("dropout probability has to be
 * between 0 and 1, but got 1.5", "dropout1d: Expected 2D or 3D input, but
 * received a 4D input. ..."), GLIA_ERR_DTYPE (integer x in training).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_dropout1d(const glia_tensor *x, double p, int32_t training, glia_tensor **out);
/**
 * torch.nn.functional.dropout2d: channel-wise dropout over dims 0 and 1 of x
 * (as torch 1.13 does, a 3-D x is taken as [N, C, L]; torch warns for inputs
 * other than 3-D or 4-D, glia's Python binding too). Errors as glia_dropout1d,
 * and "Feature dropout requires at least 2 dimensions in the input".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_dropout2d(const glia_tensor *x, double p, int32_t training, glia_tensor **out);
/**
 * torch.nn.functional.dropout3d: channel-wise dropout of x [N, C, D, H, W]; an
 * x of other rank gets a batch dim of 1 first (torch warns for inputs other
 * than 4-D or 5-D). Errors as glia_dropout2d.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_dropout3d(const glia_tensor *x, double p, int32_t training, glia_tensor **out);
/**
 * torch.nn.functional.alpha_dropout (torch's training default is 0): each
 * element is kept with probability 1 - p and the result is
 * a * (kept ? x : -alpha') + b with alpha' = 1.7580993408473766,
 * a = 1 / sqrt((alpha'^2 p + 1)(1 - p)), b = alpha' a p, which keeps the mean
 * and variance of SELU activations. training == 0, p == 0 or an empty x give
 * x; p == 1 gives x * 0. Errors as glia_dropout.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_alpha_dropout(const glia_tensor *x, double p, int32_t training,
                                                       glia_tensor **out);
/**
 * torch.nn.functional.feature_alpha_dropout: glia_alpha_dropout with one draw
 * per channel (dims 0 and 1 of x, which needs 2 or more dims).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_feature_alpha_dropout(const glia_tensor *x, double p, int32_t training,
                                                               glia_tensor **out);

/* ---- random sampling (torch.bernoulli, multinomial, normal, poisson, the in-place fills; issue 20) ---- */
/**
 * Every function here takes `seed`: NULL draws from the calling thread's
 * generator (glia_manual_seed makes the results reproducible); otherwise the
 * values come from a private stream of *seed alone, which is how the bindings
 * give torch's `generator=` argument (the binding's generator draws the seed).
 * The values differ from torch's (another generator); the distributions, the
 * supports, the dtypes and the errors are torch's. On a device the values are
 * the CPU's for the same seed. The samples carry no gradient: where torch
 * records a node with zero gradients (BernoulliBackward0, NormalBackward1/2/3,
 * PoissonBackward0, the fills' UniformBackward0, ...) glia records the same.
 * The in-place fills follow torch's leaf rule and leave self unchanged on error.
 */
/**
 * torch.bernoulli(p): 0 or 1 in p's dtype, 1 with probability p. p float32,
 * float64 or bfloat16 with every element in [0, 1] (else GLIA_ERR_DTYPE or
 * GLIA_ERR_INVALID_ARGUMENT with torch's messages). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_bernoulli(const glia_tensor *p, const uint64_t *seed, glia_tensor **out);
/** torch.bernoulli(input, p): input's shape and dtype, 1 with probability p in [0, 1] (not differentiable). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_bernoulli_scalar(const glia_tensor *input, double p, const uint64_t *seed,
                                                          glia_tensor **out);
/** Tensor.bernoulli_(p): p a tensor of probabilities broadcast to self's shape (torch's expand rule). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bernoulli_(glia_tensor *self, const glia_tensor *p, const uint64_t *seed);
/** Tensor.bernoulli_(p) with one probability p in [0, 1]; any dtype but float16. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_bernoulli_scalar_(glia_tensor *self, double p, const uint64_t *seed);
/**
 * torch.multinomial(probs, num_samples, replacement): int64 category indices
 * drawn from each row of probs (1-D [C] -> [num_samples], 2-D [R, C] ->
 * [R, num_samples]); rows need not sum to 1. Without replacement a row gives
 * distinct indices (torch's exponential race: zero-probability categories
 * come after the others). Errors with torch's messages: GLIA_ERR_SHAPE (not
 * 1-D or 2-D), GLIA_ERR_DTYPE (not floating; float16), GLIA_ERR_INVALID_ARGUMENT
 * (num_samples <= 0, more samples than categories without replacement, a
 * negative, inf or NaN probability, a row summing to 0). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_multinomial(const glia_tensor *probs, int64_t num_samples, int32_t replacement,
                                                     const uint64_t *seed, glia_tensor **out);
/**
 * torch.normal(mean, std) with two tensors: broadcast shape, mean's dtype
 * (floating), mean + std * N(0, 1). Errors: GLIA_ERR_INVALID_ARGUMENT for a
 * negative or NaN std ("normal expects all elements of std >= 0.0"),
 * GLIA_ERR_SHAPE when the shapes do not broadcast. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_normal(const glia_tensor *mean, const glia_tensor *std, const uint64_t *seed,
                                                glia_tensor **out);
/** torch.normal(mean, std) with a tensor mean and a number std >= 0: mean's shape and dtype. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_normal_tensor_scalar(const glia_tensor *mean, double std, const uint64_t *seed,
                                                              glia_tensor **out);
/** torch.normal(mean, std) with a number mean and a tensor std: std's shape and dtype. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_normal_scalar_tensor(double mean, const glia_tensor *std, const uint64_t *seed,
                                                              glia_tensor **out);
/**
 * torch.normal(mean, std, size): a new tensor of `shape` (options NULL: float32
 * on the CPU; floating dtypes only), std >= 0. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_normal_scalar(double mean, double std, const int64_t *shape, int64_t ndim,
                                                       const glia_tensor_options *options, const uint64_t *seed,
                                                       glia_tensor **out);
/**
 * torch.poisson(rates): Poisson counts in rates' dtype (float32, float64,
 * bfloat16; rates >= 0, else GLIA_ERR_INVALID_ARGUMENT "invalid Poisson rate,
 * expected rate to be non-negative"). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_poisson(const glia_tensor *rates, const uint64_t *seed, glia_tensor **out);
/** Tensor.uniform_(from, to): U[from, to) (floating dtypes; from <= to). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_uniform_(glia_tensor *self, double from, double to, const uint64_t *seed);
/** Tensor.normal_(mean, std): N(mean, std^2) (floating dtypes; std >= 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_normal_(glia_tensor *self, double mean, double std, const uint64_t *seed);
/** Tensor.cauchy_(median, sigma): median + sigma * tan(pi * (U - 1/2)) (floating dtypes). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_cauchy_(glia_tensor *self, double median, double sigma, const uint64_t *seed);
/** Tensor.exponential_(lambd): Exp(lambd), density lambd * exp(-lambd x) (floating dtypes; lambd >= 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_exponential_(glia_tensor *self, double lambd, const uint64_t *seed);
/** Tensor.geometric_(p): trials up to the first success, 1, 2, ... (p in (0, 1); any dtype but bool). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_geometric_(glia_tensor *self, double p, const uint64_t *seed);
/** Tensor.log_normal_(mean, std): exp(N(mean, std^2)) (floating dtypes; std > 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_log_normal_(glia_tensor *self, double mean, double std, const uint64_t *seed);
/**
 * Tensor.random_: integers uniform in [from, to). torch's three forms: from
 * and to NULL, random_(): [0, 2^mantissa digits] for floating dtypes, [0, max]
 * for integers, {0, 1} for bool; from NULL, random_(to): [0, to); from given,
 * random_(from, to) with to NULL meaning the dtype's largest value. Errors:
 * GLIA_ERR_INVALID_ARGUMENT with torch's messages (from >= to, bounds outside
 * an integer dtype). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_random_(glia_tensor *self, const int64_t *from, const int64_t *to,
                                                 const uint64_t *seed);

/* ---- torch functions missing from OpInfo / coverage (gcd, bincount, as_strided, gradient, ...; issue 20) ---- */
/**
 * torch.gcd(a, b): the greatest common divisor of the magnitudes (>= 0; gcd(0, 0) = 0), broadcast and
 * promoted as torch's binary ops; integer dtypes only (else GLIA_ERR_DTYPE, torch's "gcd_cpu" not
 * implemented for 'Float'). Not differentiable. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_gcd(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** torch.lcm(a, b): |a / gcd(a, b) * b| (0 where gcd is 0); as glia_gcd. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_lcm(const glia_tensor *a, const glia_tensor *b, glia_tensor **out);
/** Tensor.gcd_(other): glia_gcd in place (other broadcasts to self's shape). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_gcd_(glia_tensor *self, const glia_tensor *other);
/** Tensor.lcm_(other): glia_lcm in place. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_lcm_(glia_tensor *self, const glia_tensor *other);
/**
 * torch.bincount(input, weights, minlength): counts of each value of a 1-D non-negative integer input
 * (int64), or sums of weights (NULL for none; float32 and float64 weights keep their dtype, others give
 * float64), max(input) + 1 or minlength entries. Not differentiable. Errors with torch's messages:
 * GLIA_ERR_DTYPE (input not integral), GLIA_ERR_INVALID_ARGUMENT (not 1-D, negative values, weights of
 * another length, minlength < 0). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_bincount(const glia_tensor *input, const glia_tensor *weights,
                                                  int64_t minlength, glia_tensor **out);
/**
 * torch.vander(x, N, increasing): columns x^(N-1), ..., x^0 (x^0, ..., x^(N-1) with increasing) of a 1-D x,
 * columns (torch's N) NULL for len(x); dtype promote_types(x, int64). Differentiable (torch's cumulative product).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_vander(const glia_tensor *x, const int64_t *columns, int32_t increasing,
                                                glia_tensor **out);
/**
 * torch.as_strided(input, size, stride, storage_offset): a view of input's storage with that geometry
 * (storage_offset NULL: input's own offset). Gradient torch's AsStridedBackward0 (for an input that does
 * not overlap itself). Errors: GLIA_ERR_INVALID_ARGUMENT for sizes and strides of different lengths or a
 * negative offset, GLIA_ERR_SHAPE for a view outside the storage (torch's messages). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_as_strided(const glia_tensor *input, const int64_t *shape,
                                                    const int64_t *strides, int64_t ndim, const int64_t *storage_offset,
                                                    glia_tensor **out);
/**
 * torch.as_strided_scatter(input, src, size, stride, storage_offset): a contiguous copy of input whose
 * elements at the geometry (offset NULL: 0) are src's. Differentiable in input and src. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_as_strided_scatter(const glia_tensor *input, const glia_tensor *src,
                                                            const int64_t *shape, const int64_t *strides, int64_t ndim,
                                                            const int64_t *storage_offset, glia_tensor **out);
/**
 * torch.gradient(input, spacing, dim, edge_order): one tensor per differentiated dim (dims NULL: all).
 * spacing: n_spacing numbers (0: unit spacing; 1: the same for every dim) or n_coordinates 1-D coordinate
 * tensors (one per dim); not both. Central differences inside, one-sided of order edge_order (1 or 2) at
 * the edges; torch's formulas and messages. Differentiable. Results as glia_split. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_gradient(const glia_tensor *input, const double *spacing, int64_t n_spacing,
                                                  const glia_tensor *const *coordinates, int64_t n_coordinates,
                                                  const int64_t *dims, int64_t n_dims, int64_t edge_order,
                                                  glia_tensor **outs, int64_t capacity, int64_t *out_count);
/**
 * torch.segment_reduce(data, reduce, lengths=, offsets=, axis, unsafe, initial): reduce ("sum", "mean",
 * "max", "min", "prod") over the segments along axis given by lengths or offsets (exactly one non-NULL;
 * integer, axis + 1 dims); empty segments give initial (NULL: 0, NaN, -inf, inf, 1). Differentiable in
 * data. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_segment_reduce(const glia_tensor *data, const char *reduce,
                                                        const glia_tensor *lengths, const glia_tensor *offsets,
                                                        int64_t axis, int32_t unsafe, const double *initial,
                                                        glia_tensor **out);
/**
 * torch.native_batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps): out_y as
 * glia_batch_norm, out_mean and out_invstd the batch statistics [C] in training (empty in eval).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_native_batch_norm(const glia_tensor *x, const glia_tensor *weight,
                                                           const glia_tensor *bias, glia_tensor *running_mean,
                                                           glia_tensor *running_var, int32_t training, double momentum,
                                                           double eps, glia_tensor **out_y, glia_tensor **out_mean,
                                                           glia_tensor **out_invstd);
/**
 * torch.native_layer_norm(x, normalized_shape, weight, bias, eps): out_y as glia_layer_norm, out_mean and
 * out_rstd of shape x.shape[:-n] + [1] * n. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_native_layer_norm(const glia_tensor *x, const int64_t *normalized_shape,
                                                           int64_t normalized_ndim, const glia_tensor *weight,
                                                           const glia_tensor *bias, double eps, glia_tensor **out_y,
                                                           glia_tensor **out_mean, glia_tensor **out_rstd);
/**
 * torch.histogram(input, bins, range, weight, density): bin_edges NULL for `bins` equal bins over range
 * (2 values, NULL: the data's min and max), else those edges. out_hist in input's dtype (float32 or
 * float64). Not differentiable. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_histogram(const glia_tensor *input, int64_t bins, const glia_tensor *bin_edges,
                                                   const double *range, const glia_tensor *weight, int32_t density,
                                                   glia_tensor **out_hist, glia_tensor **out_bin_edges);
/**
 * torch.histogramdd(input [..., D], bins, range, weight, density): bins n_bins counts (edges NULL) or
 * n_edges edge tensors; range 2 * D values or NULL. out_hist D-dim; the D edge tensors go to outs as in
 * glia_split. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_histogramdd(const glia_tensor *input, const int64_t *bins, int64_t n_bins,
                                                     const glia_tensor *const *edges, int64_t n_edges,
                                                     const double *range, int64_t n_range, const glia_tensor *weight,
                                                     int32_t density, glia_tensor **out_hist, glia_tensor **outs,
                                                     int64_t capacity, int64_t *out_count);

/** @} */
/** @} */
/* ------------------------------------------------------------------------ */
/* Modules (torch.nn.Module)                                                  */
/* ------------------------------------------------------------------------ */
/** @addtogroup modules
 * @{ */

/** A module: parameters, buffers and child modules in registration order. */
typedef struct glia_module glia_module;
/** An ordered name -> tensor map (state dicts, named_parameters). */
typedef struct glia_tensor_dict glia_tensor_dict;
/** What load_state_dict found: missing and unexpected keys. */
typedef struct glia_load_report glia_load_report;

/** Adds a reference. Errors: GLIA_ERR_INVALID_HANDLE. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_retain(glia_module *module);
/** Drops a reference (NULL is accepted); any thread. Errors: GLIA_ERR_INVALID_HANDLE. @since 0.1 */
GLIA_API glia_error *glia_module_release(glia_module *module);

/** Frees a string glia allocated for the caller (NULL is accepted). @since 0.1 */
GLIA_API void glia_string_free(char *s);

/** The most outputs a forward callback or hook may write. */
#define GLIA_MODULE_MAX_OUTPUTS 64

/**
 * A host module's forward: receives the inputs (borrowed handles; NULL
 * entries are allowed) and writes up to `capacity` (GLIA_MODULE_MAX_OUTPUTS)
 * new references to `outs`, their count to *out_count. `self` is a
 * borrowed handle valid during the call.
 */
typedef glia_error *(*glia_module_forward_fn)(void *user_data, glia_module *self, const glia_tensor *const *inputs,
                                              int64_t n_inputs, glia_tensor **outs, int64_t capacity,
                                              int64_t *out_count);
/** torch's extra_repr: writes snprintf style (called again with a bigger buffer when the text did not fit). */
typedef glia_error *(*glia_module_extra_repr_fn)(void *user_data, glia_module *self, char *buffer, size_t capacity,
                                                 size_t *out_length);
/** torch's get_extra_state: writes a new reference to *out_state. */
typedef glia_error *(*glia_module_get_extra_state_fn)(void *user_data, glia_module *self, glia_tensor **out_state);
/** torch's set_extra_state: `state` is borrowed. */
typedef glia_error *(*glia_module_set_extra_state_fn)(void *user_data, glia_module *self, const glia_tensor *state);

/** A host-defined module (a torch.nn.Module subclass). */
typedef struct glia_module_def {
  /** sizeof(glia_module_def), set by glia_module_def_init(). */
  size_t struct_size;
  glia_module_forward_fn forward;                 /**< NULL: calling the module fails as torch's does */
  glia_module_extra_repr_fn extra_repr;           /**< may be NULL */
  glia_module_get_extra_state_fn get_extra_state; /**< both or neither: the module then has an _extra_state entry */
  /** torch's set_extra_state, called by load_state_dict with the _extra_state entry (set with get_extra_state). */
  glia_module_set_extra_state_fn set_extra_state;
  /** Passed first to every callback and to free_user_data. */
  void *user_data;
  /** Called exactly once, when the module is destroyed or glia_module_create fails. May be NULL. */
  void (*free_user_data)(void *user_data);
} glia_module_def;

/** Sets struct_size and clears the rest. @since 0.1 */
GLIA_API void glia_module_def_init(glia_module_def *def);

/**
 * Creates a host module named `type_name` (its repr and error texts use it).
 * It owns parameters, buffers and children like a built-in; autograd flows
 * through its forward. Errors: GLIA_ERR_INVALID_ARGUMENT (NULL or empty
 * type_name, NULL def, struct_size too small).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_create(const char *type_name, const glia_module_def *def,
                                                       glia_module **out);

/*
 * The tree. `name` may not be empty or contain '.' (GLIA_ERR_INVALID_ARGUMENT
 * with torch's text); a NULL tensor or child reserves the name (left out of
 * iteration and state dicts); registering an existing name of the same kind
 * replaces it in place; a name held by another kind is an error ("attribute
 * 'x' already exists"). The module stores the tensor itself (no copy); a
 * floating parameter is made to require grad, as nn.Parameter does.
 */
/** register_parameter. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_register_parameter(glia_module *module, const char *name,
                                                                   glia_tensor *tensor);
/** register_buffer(name, tensor, persistent): non-persistent buffers stay out of state dicts. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_register_buffer(glia_module *module, const char *name,
                                                                glia_tensor *tensor, int32_t persistent);
/**
 * add_module / register_module. A module may be the child of several parents,
 * but a module tree has no cycles: adding the module itself or one of its
 * ancestors is GLIA_ERR_INVALID_ARGUMENT ("cannot add module 'x' to
 * Sequential: the module is an ancestor of it and a module tree can't
 * contain a cycle"). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_add_module(glia_module *module, const char *name, glia_module *child);
/**
 * torch's `del module.name` (delattr) for a parameter, buffer or child,
 * reserved (NULL) entries included: the entry leaves the module, its state
 * dict and iteration; the other entries keep their order. The module drops its
 * reference to the removed tensor or child. Errors: GLIA_ERR_NOT_FOUND with
 * torch's AttributeError text ("'Linear' object has no attribute 'foo'").
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_remove(glia_module *module, const char *name);

/**
 * get_submodule / get_parameter / get_buffer by dotted path ("" is the
 * module itself for get_submodule). Errors: GLIA_ERR_NOT_FOUND with torch's
 * text ("Linear has no attribute `foo`", "`weight` is not an nn.Module").
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_get_submodule(glia_module *module, const char *path, glia_module **out);
/** See glia_module_get_submodule. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_get_parameter(glia_module *module, const char *path, glia_tensor **out);
/** See glia_module_get_submodule. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_get_buffer(glia_module *module, const char *path, glia_tensor **out);

/**
 * named_parameters / named_buffers(prefix, recurse, remove_duplicate) as a new
 * dict of the tensors themselves (not copies): a parameter shared by two
 * submodules appears once when remove_duplicate != 0. prefix may be NULL.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_named_parameters(glia_module *module, const char *prefix,
                                                                 int32_t recurse, int32_t remove_duplicate,
                                                                 glia_tensor_dict **out);
/** See glia_module_named_parameters. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_named_buffers(glia_module *module, const char *prefix, int32_t recurse,
                                                              int32_t remove_duplicate, glia_tensor_dict **out);
/**
 * named_children (each child once, registration order) and
 * named_modules(prefix, remove_duplicate) (pre-order, the module itself
 * first). The glia_module_forward output convention: with out_modules NULL
 * and capacity 0 only *out_count is written; otherwise capacity must hold all of
 * them (else GLIA_ERR_INVALID_ARGUMENT and nothing is written). out_names may
 * be NULL; else it receives one new string per module (free each with
 * glia_string_free).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_named_children(glia_module *module, glia_module **out_modules,
                                                               char **out_names, int64_t capacity, int64_t *out_count);
/** See glia_module_named_children. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_named_modules(glia_module *module, const char *prefix,
                                                              int32_t remove_duplicate, glia_module **out_modules,
                                                              char **out_names, int64_t capacity, int64_t *out_count);

/** Called once per module by glia_module_apply; `module` is borrowed. */
typedef glia_error *(*glia_module_apply_fn)(void *user_data, glia_module *module);
/** apply(fn): children first (each module once), then the module itself; stops at the first error. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_apply(glia_module *module, glia_module_apply_fn fn, void *user_data);

/**
 * Module.__call__: forward pre-hooks, forward, forward hooks, backward-hook
 * wiring, in torch's order with torch's replacement rules. Inputs may contain
 * NULL (None): a built-in that computes on an input refuses a NULL one with
 * GLIA_ERR_INVALID_ARGUMENT ("Linear.forward: input 1 of 1 is None, expected
 * a Tensor"), Identity returns it, a host forward receives it. Outputs
 * follow the check_outputs convention: with outs NULL and capacity 0 only
 * the count is computed (forward runs); otherwise capacity must hold them all.
 * Errors: whatever forward raises; GLIA_ERR_CALLBACK when a host callback or
 * hook failed (its message is carried).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_forward(glia_module *module, const glia_tensor *const *inputs,
                                                        int64_t n_inputs, glia_tensor **outs, int64_t capacity,
                                                        int64_t *out_count);

/** train(mode) / eval(): recursive. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_train(glia_module *module, int32_t mode);
/** The training flag. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_is_training(const glia_module *module, int32_t *out);
/** `module.training = mode`: this module's flag only (children keep theirs), unlike glia_module_train. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_set_training(glia_module *module, int32_t mode);
/** requires_grad_(flag) on every parameter. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_requires_grad(glia_module *module, int32_t flag);
/** zero_grad(set_to_none). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_zero_grad(glia_module *module, int32_t set_to_none);
/**
 * to(device, dtype): either may be NULL (unchanged). dtype applies to
 * floating parameters and buffers only (torch's .half()/.float()/.double()/
 * .bfloat16()); parameters keep their identity (the same handles see the new
 * data) and their grads are converted too. All-or-nothing.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_to(glia_module *module, const glia_device *device,
                                                   const glia_dtype *dtype);
/** to_empty(device): uninitialised storage of the same shapes on `device`. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_to_empty(glia_module *module, glia_device device);
/** torch's repr of the tree, snprintf style. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_to_string(const glia_module *module, char *buffer, size_t capacity,
                                                          size_t *out_length);
/** The type name ("Linear"), snprintf style. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_type_name(const glia_module *module, char *buffer, size_t capacity,
                                                          size_t *out_length);
/** extra_repr(), snprintf style. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_extra_repr(const glia_module *module, char *buffer, size_t capacity,
                                                           size_t *out_length);

/** @} */
/** @addtogroup hooks
 * @{ */

/* ---- modules: hooks ------------------------------------------------------- */

/** Hook flags. */
#define GLIA_HOOK_PREPEND 1u     /**< run before the hooks already registered */
#define GLIA_HOOK_ALWAYS_CALL 2u /**< forward hooks: run even when forward fails (outputs then empty) */

/*
 * Hooks may replace what they receive: the library sets *out_count
 * to -1 before the call; a hook that leaves it at -1 keeps the value, one that
 * sets it to n >= 0 has written n new references (NULL allowed) to
 * `replacement` (capacity GLIA_MODULE_MAX_OUTPUTS). All tensor arguments are
 * borrowed; NULL entries stand for None (e.g. grad_input of an input that
 * needs no grad).
 */
/** forward pre-hook(module, inputs) -> new inputs or keep. */
typedef glia_error *(*glia_forward_pre_hook_fn)(void *user_data, glia_module *module, const glia_tensor *const *inputs,
                                                int64_t n_inputs, glia_tensor **replacement, int64_t capacity,
                                                int64_t *out_count);
/** forward hook(module, inputs, outputs) -> new outputs or keep. */
typedef glia_error *(*glia_forward_hook_fn)(void *user_data, glia_module *module, const glia_tensor *const *inputs,
                                            int64_t n_inputs, const glia_tensor *const *outputs, int64_t n_outputs,
                                            glia_tensor **replacement, int64_t capacity, int64_t *out_count);
/** full backward pre-hook(module, grad_output) -> new grad_output (same count) or keep. */
typedef glia_error *(*glia_backward_pre_hook_fn)(void *user_data, glia_module *module,
                                                 const glia_tensor *const *grad_outputs, int64_t n_grad_outputs,
                                                 glia_tensor **replacement, int64_t capacity, int64_t *out_count);
/** full backward hook(module, grad_input, grad_output) -> new grad_input (same count) or keep. */
typedef glia_error *(*glia_backward_hook_fn)(void *user_data, glia_module *module,
                                             const glia_tensor *const *grad_inputs, int64_t n_grad_inputs,
                                             const glia_tensor *const *grad_outputs, int64_t n_grad_outputs,
                                             glia_tensor **replacement, int64_t capacity, int64_t *out_count);
/** state-dict hook(module, dict, prefix): runs after the module wrote its entries; may edit dict. */
typedef glia_error *(*glia_state_dict_hook_fn)(void *user_data, glia_module *module, glia_tensor_dict *dict,
                                               const char *prefix);
/** load-state-dict post hook(module, report): may remove keys from the report before strict checking. */
typedef glia_error *(*glia_load_state_dict_post_hook_fn)(void *user_data, glia_module *module,
                                                         glia_load_report *report);

/**
 * Hook registration: free_user_data (may be NULL) runs exactly once, when the
 * hook is removed or the module destroyed, or at once when the registration
 * fails; a graph recorded while a backward hook was registered keeps that hook
 * (as torch does) and so delays the free until the graph is freed.
 * *out_hook_id receives an id unique in the process. flags: GLIA_HOOK_PREPEND,
 * and GLIA_HOOK_ALWAYS_CALL for forward hooks (else GLIA_ERR_INVALID_ARGUMENT).
 * A hook's error fails the call (or the backward) with GLIA_ERR_CALLBACK
 * carrying its message; errors of always_call hooks that run because forward
 * failed are logged as warnings and the forward error is returned.
 * Hooks may be added and removed while other threads run forward on the
 * module: each call runs the hooks registered when it started (a removed
 * hook's free_user_data then waits for those calls to end).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_add_forward_pre_hook(glia_module *module, glia_forward_pre_hook_fn fn,
                                                                     void *user_data, void (*free_user_data)(void *),
                                                                     uint32_t flags, uint64_t *out_hook_id);
/** See glia_module_add_forward_pre_hook. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_add_forward_hook(glia_module *module, glia_forward_hook_fn fn,
                                                                 void *user_data, void (*free_user_data)(void *),
                                                                 uint32_t flags, uint64_t *out_hook_id);
/** torch's register_full_backward_pre_hook. See glia_module_add_forward_pre_hook. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_add_backward_pre_hook(glia_module *module, glia_backward_pre_hook_fn fn,
                                                                      void *user_data, void (*free_user_data)(void *),
                                                                      uint32_t flags, uint64_t *out_hook_id);
/** torch's register_full_backward_hook. See glia_module_add_forward_pre_hook. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_add_backward_hook(glia_module *module, glia_backward_hook_fn fn,
                                                                  void *user_data, void (*free_user_data)(void *),
                                                                  uint32_t flags, uint64_t *out_hook_id);
/** A state-dict hook. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_add_state_dict_hook(glia_module *module, glia_state_dict_hook_fn fn,
                                                                    void *user_data, void (*free_user_data)(void *),
                                                                    uint64_t *out_hook_id);
/** A load-state-dict post hook. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_add_load_state_dict_post_hook(glia_module *module,
                                                                              glia_load_state_dict_post_hook_fn fn,
                                                                              void *user_data,
                                                                              void (*free_user_data)(void *),
                                                                              uint64_t *out_hook_id);
/** Removes a hook of any kind by id. Errors: GLIA_ERR_NOT_FOUND. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_remove_hook(glia_module *module, uint64_t hook_id);

/** @} */
/** @addtogroup modules
 * @{ */

/* ---- modules: state dicts ------------------------------------------------- */

/**
 * state_dict(): parameters, then persistent buffers, then _extra_state, then
 * children, recursively ("fc.weight"); values are detached tensors sharing
 * the module's storage.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_state_dict(glia_module *module, glia_tensor_dict **out);
/**
 * load_state_dict(dict, strict, assign): copies (assign == 0, converting
 * dtype) or adopts (assign != 0) each entry. All-or-nothing: on any error the
 * module is unchanged. Errors: GLIA_ERR_INVALID_ARGUMENT with torch's text
 * ("Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight:
 * copying a param with shape [3, 5] from checkpoint, the shape in current
 * model is [3, 4]."). out_report (may be NULL) receives the missing and
 * unexpected keys on success.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_load_state_dict(glia_module *module, const glia_tensor_dict *dict,
                                                                int32_t strict, int32_t assign,
                                                                glia_load_report **out_report);
/**
 * Saves state_dict() to `path` as safetensors (atomically: see
 * glia_tensor_dict_save). For a PyTorch file, save glia_module_state_dict with
 * glia_tensor_dict_save(dict, path, GLIA_FORMAT_TORCH).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_save(glia_module *module, const char *path);
/**
 * Loads a checkpoint of any format (by content) into the module:
 * glia_tensor_dict_load, then glia_module_load_state_dict(strict, assign 0).
 * All-or-nothing: on any error (a malformed file included) the module is
 * unchanged. out_report (may be NULL) as for glia_module_load_state_dict.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_load(glia_module *module, const char *path, int32_t strict,
                                                     glia_load_report **out_report);

/** Which list of a load report. */
typedef enum glia_report_keys GLIA_ENUM_BASE {
  GLIA_KEYS_MISSING = 0,    /**< missing_keys: the module has them, the dict does not */
  GLIA_KEYS_UNEXPECTED = 1, /**< unexpected_keys: the dict has them, the module does not */
} glia_report_keys;

/** Adds a reference. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_load_report_retain(glia_load_report *report);
/** Drops a reference (NULL accepted). @since 0.1 */
GLIA_API glia_error *glia_load_report_release(glia_load_report *report);
/** Number of keys in one list. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_load_report_count(const glia_load_report *report, glia_report_keys which,
                                                           int64_t *out);
/** Key i of one list, snprintf style. Errors: GLIA_ERR_INVALID_ARGUMENT (index). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_load_report_key(const glia_load_report *report, glia_report_keys which,
                                                         int64_t index, char *buffer, size_t capacity,
                                                         size_t *out_length);
/** Removes `key` from one list (for post hooks). Errors: GLIA_ERR_NOT_FOUND. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_load_report_remove(glia_load_report *report, glia_report_keys which,
                                                            const char *key);

/** @} */
/** @addtogroup checkpoints
 * @{ */

/* ---- tensor dicts --------------------------------------------------------- */
/** @defgroup checkpoints_dicts Tensor dicts
 * @ingroup checkpoints
 * @{ */

/** An empty dict. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_create(glia_tensor_dict **out);
/** Adds a reference. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_retain(glia_tensor_dict *dict);
/** Drops a reference (NULL accepted). @since 0.1 */
GLIA_API glia_error *glia_tensor_dict_release(glia_tensor_dict *dict);
/** Number of entries. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_size(const glia_tensor_dict *dict, int64_t *out);
/** Key of entry i (insertion order), snprintf style. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_key_at(const glia_tensor_dict *dict, int64_t index, char *buffer,
                                                            size_t capacity, size_t *out_length);
/** Value of entry i (new reference). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_value_at(const glia_tensor_dict *dict, int64_t index,
                                                              glia_tensor **out);
/** The value of `key` (new reference). Errors: GLIA_ERR_NOT_FOUND ('key "x" not found'). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_get(const glia_tensor_dict *dict, const char *key,
                                                         glia_tensor **out);
/** Whether `key` is present. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_contains(const glia_tensor_dict *dict, const char *key,
                                                              int32_t *out);
/** Inserts or replaces (a replaced key keeps its position); the dict retains the tensor. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_set(glia_tensor_dict *dict, const char *key, glia_tensor *tensor);
/** Removes `key`. Errors: GLIA_ERR_NOT_FOUND. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_remove(glia_tensor_dict *dict, const char *key);

/**
 * String metadata carried with the tensors (safetensors' "__metadata__"), in
 * insertion order. set replaces an existing key in place; value NULL removes
 * the key (absent keys are ignored). The torch format does not store metadata.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_set_metadata(glia_tensor_dict *dict, const char *key,
                                                                  const char *value);
/** Number of metadata entries. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_metadata_count(const glia_tensor_dict *dict, int64_t *out);
/** Key of metadata entry i, snprintf style. Errors: GLIA_ERR_INVALID_ARGUMENT (index). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_metadata_key_at(const glia_tensor_dict *dict, int64_t index,
                                                                     char *buffer, size_t capacity, size_t *out_length);
/** Value of metadata `key`, snprintf style. Errors: GLIA_ERR_NOT_FOUND. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_get_metadata(const glia_tensor_dict *dict, const char *key,
                                                                  char *buffer, size_t capacity, size_t *out_length);

/** @} */
/* ---- checkpoint files ----------------------------------------------------- */
/** @defgroup checkpoints_files Checkpoint files
 * @ingroup checkpoints
 * @{ */

/** Checkpoint file formats. */
typedef enum glia_format GLIA_ENUM_BASE {
  /** Loading: by content (magic bytes, never the file name). Saving: safetensors. */
  GLIA_FORMAT_AUTO = 0,
  /** safetensors: glia's own default; loading maps the file and copies no tensor bytes. */
  GLIA_FORMAT_SAFETENSORS = 1,
  /** torch.save's zip format (PyTorch 1.6+); loading also reads the legacy pre-1.6 format. */
  GLIA_FORMAT_TORCH = 2,
} glia_format;

/**
 * Writes every entry of `dict` (tensors of any strides; a tensor on a device is written from a host copy, as
 * torch.save writes it after .cpu()) and, for
 * safetensors, its metadata (the torch format has no place for it). Atomic: the bytes go to a temp file in the same
 * directory that replaces `path` only when complete and synced; on any error the previous file is intact. The torch
 * format writes what torch.load(path, weights_only=True) reads back as an OrderedDict, byte for byte what torch.save
 * writes for the same dict: tensors sharing a storage share it in the file, a storage is written whole (saving a slice
 * writes all of its storage, as torch does), and requires_grad is written false. safetensors cannot express sharing:
 * each tensor gets its own bytes, every one aligned to its element size so that it loads without a copy. Errors:
 * GLIA_ERR_INVALID_ARGUMENT (format; a key or metadata that is not UTF-8; one storage viewed as two dtypes in the torch
 * format), GLIA_ERR_DEVICE (a device error while copying a tensor to the host), GLIA_ERR_IO (with the OS's reason).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_save(const glia_tensor_dict *dict, const char *path,
                                                          glia_format format);
/**
 * Reads a checkpoint into a new dict. safetensors entries come back in header
 * order (unknown fields of an entry are ignored, as the reference reader does;
 * duplicate keys, BOOL bytes other than 0 and 1, and NUL in names are
 * GLIA_ERR_FORMAT). safetensors tensors view a private
 * mapping of the file (no copy; writing a tensor copies only the pages it
 * touches and never changes the file); a tensor whose bytes are misaligned for
 * its dtype is copied. PyTorch files go through a restricted unpickler that
 * accepts only the globals a state dict needs: anything else is
 * GLIA_ERR_FORMAT naming the global, and no code ever runs. Views that shared
 * a storage in the file share one here, with their offsets and strides.
 *
 * A PyTorch file's top-level object must be a dict or OrderedDict; its
 * entries become name -> tensor, depth first in the file's order. Nested dicts
 * join their keys with '.' ({"model": {"fc.weight": t}} -> "model.fc.weight"),
 * lists and tuples nest by index ("param_groups.0.lr"); keys may be str, int
 * or bool, written as Python's str() writes them. Python numbers become 0-dim
 * tensors (bool -> GLIA_BOOL, int -> GLIA_INT64, float -> GLIA_FLOAT64), so
 * {"epoch": 3} gives "epoch" = 3; None, str, bytes, sets, devices and dtypes
 * are skipped. A tensor reached twice is the same tensor; requires_grad is what
 * the file says (as torch.load gives it); every tensor loads onto the CPU;
 * big-endian files are byte-swapped. Two entries that flatten to the same key,
 * a container inside itself, nesting deeper than 1000 are GLIA_ERR_FORMAT.
 *
 * Errors: GLIA_ERR_IO (cannot open or map), GLIA_ERR_FORMAT (malformed or
 * hostile content: what is wrong and where), GLIA_ERR_UNSUPPORTED (a storage
 * type glia has no dtype for: int8, int16, complex, quantized),
 * GLIA_ERR_INVALID_ARGUMENT (format).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_load(const char *path, glia_format format, glia_tensor_dict **out);
/**
 * glia_tensor_dict_load from memory: the bytes are copied once into an aligned
 * buffer that the tensors then view, so `data` may be freed on return.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_load_buffer(const void *data, size_t size, glia_format format,
                                                                 glia_tensor_dict **out);
/**
 * glia_tensor_dict_save into memory: *out_data (free with glia_buffer_free)
 * receives *out_size bytes, exactly what glia_tensor_dict_save would write.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_tensor_dict_save_buffer(const glia_tensor_dict *dict, glia_format format,
                                                                 void **out_data, size_t *out_size);
/** Frees a buffer glia allocated for the caller (NULL is accepted). @since 0.1 */
GLIA_API void glia_buffer_free(void *data);

/** @} */
/* ---- checkpoints of any shape: the whole object torch.load returns ------ */
/** @defgroup checkpoints_values Checkpoints of any shape: the whole object torch.load returns
 * @ingroup checkpoints
 * @{ */

/**
 * A checkpoint's whole object, as torch.load(path, weights_only=True) returns
 * it: `torch.save(tensor)`, a list of tensors, the tutorial checkpoint
 * {"epoch": 5, "model_state_dict": ..., "optimizer_state_dict": ..., "loss":
 * 0.3}. A value read from a file is immutable and shared: children are values
 * too, the same child reached twice is the same handle, and a tensor inside
 * views the same storage as the tensor dict view of the file would. Values
 * built with glia_value_new_* (below) can be added to until they are put into
 * another value, then they are fixed too.
 */
typedef struct glia_value glia_value;

/** The kind of a value: the safe types of torch's weights_only unpickler. */
typedef enum glia_value_kind GLIA_ENUM_BASE {
  GLIA_VALUE_NONE = 0,    /**< None */
  GLIA_VALUE_BOOL = 1,    /**< True or False */
  GLIA_VALUE_INT = 2,     /**< a Python int within int64 */
  GLIA_VALUE_BIG_INT = 3, /**< a Python int beyond int64 (glia_value_as_string: little-endian two's complement bytes) */
  GLIA_VALUE_FLOAT = 4,   /**< a Python float (a double) */
  GLIA_VALUE_STR = 5,     /**< UTF-8 */
  GLIA_VALUE_BYTES = 6,   /**< a bytes object */
  GLIA_VALUE_TUPLE = 7,   /**< also torch.Size */
  GLIA_VALUE_LIST = 8,    /**< a list */
  GLIA_VALUE_DICT = 9,    /**< dict or OrderedDict, in insertion order */
  GLIA_VALUE_SET = 10,    /**< set or frozenset */
  GLIA_VALUE_TENSOR = 11, /**< a tensor or nn.Parameter (requires_grad as saved) */
  GLIA_VALUE_DEVICE = 12, /**< torch.device: glia_value_as_string gives "cuda:0" */
  GLIA_VALUE_DTYPE = 13   /**< torch.dtype: glia_value_as_string gives its name, "float32" */
} glia_value_kind;

/**
 * Reads a checkpoint's whole object. PyTorch files: the top-level object of
 * any safe type, through the same restricted unpickler and checks as
 * glia_tensor_dict_load (a whole pickled module or any other class is
 * GLIA_ERR_FORMAT naming the global, and no code runs); safetensors files: a
 * dict of str -> tensor in header order. Errors as glia_tensor_dict_load.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_load(const char *path, glia_format format, glia_value **out);
/** glia_value_load from memory (the bytes are copied once; `data` may be freed on return). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_load_buffer(const void *data, size_t size, glia_format format,
                                                           glia_value **out);
/** Adds a reference. Errors: GLIA_ERR_INVALID_HANDLE. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_retain(glia_value *value);
/** Drops a reference (NULL is accepted). Errors: GLIA_ERR_INVALID_HANDLE. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_release(glia_value *value);
/** The value's kind. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_get_kind(const glia_value *value, glia_value_kind *out);
/**
 * Items of a tuple, list or set; entries of a dict. Errors:
 * GLIA_ERR_INVALID_ARGUMENT for a value that is not a container.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_size(const glia_value *value, int64_t *out);
/**
 * Item `index` of a tuple, list or set, or the value of entry `index` of a
 * dict (a new handle reference). Errors: GLIA_ERR_INVALID_ARGUMENT (an index
 * out of range, or a value that is not a container).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_item(const glia_value *value, int64_t index, glia_value **out);
/** The key of entry `index` of a dict (a value: str, int, tuple...). Errors as glia_value_item. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_key_at(const glia_value *dict, int64_t index, glia_value **out);
/**
 * The value a dict holds under the str key `key` (the last such entry, as a
 * Python dict keeps it). Errors: GLIA_ERR_NOT_FOUND, GLIA_ERR_INVALID_ARGUMENT
 * (not a dict).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_get(const glia_value *dict, const char *key, glia_value **out);
/** A bool as 0 or 1. Errors: GLIA_ERR_INVALID_ARGUMENT for another kind. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_as_bool(const glia_value *value, int32_t *out);
/** An int (a bool gives 0 or 1). Errors: GLIA_ERR_INVALID_ARGUMENT for another kind or a big int. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_as_int(const glia_value *value, int64_t *out);
/** A float (an int or bool converts as Python's float() does). Errors: GLIA_ERR_INVALID_ARGUMENT. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_as_double(const glia_value *value, double *out);
/**
 * The bytes of a str (UTF-8), bytes, big int, device or dtype, at most
 * `capacity` of them into `buffer`; the full length goes to *out_length (no
 * terminating NUL is counted; one is written when it fits). Errors:
 * GLIA_ERR_INVALID_ARGUMENT for another kind.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_as_string(const glia_value *value, char *buffer, size_t capacity,
                                                         size_t *out_length);
/** The tensor of a tensor value (a new handle reference). Errors: GLIA_ERR_INVALID_ARGUMENT. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_as_tensor(const glia_value *value, glia_tensor **out);
/**
 * The value flattened into a tensor dict by glia_tensor_dict_load's rules
 * (nested keys joined with '.', numbers as 0-dim tensors). Errors:
 * GLIA_ERR_FORMAT when the value is not a dict or two entries flatten to one key.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_to_tensor_dict(const glia_value *value, glia_tensor_dict **out);
/**
 * Whether a dict is a collections.OrderedDict (1) or a plain dict (0), as the
 * file says (a safetensors file reads as an OrderedDict). Errors:
 * GLIA_ERR_INVALID_ARGUMENT for another kind.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_dict_is_ordered(const glia_value *dict, int32_t *out);

/*
 * Building values, to save them as torch.save would save the Python object.
 * glia_value_new_* make a value the caller may still add to (a list or tuple
 * with glia_value_append, a dict with glia_value_set / glia_value_set_item).
 * Once a value is put into another one it is never changed again (adding to
 * it is GLIA_ERR_INVALID_ARGUMENT), nor is a value read from a file: build
 * containers from the inside out. So no value can contain itself. The same
 * value put in two places is one object in the file (torch.load gives one
 * object twice), as is the same tensor in two values. Building one value from
 * two threads at once is not supported; reading a value is thread-safe.
 */

/** None. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_none(glia_value **out);
/** A bool (any non-zero `value` is True). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_bool(int32_t value, glia_value **out);
/** An int. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_int(int64_t value, glia_value **out);
/** A float (Python's float is a double). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_double(double value, glia_value **out);
/**
 * A str of `length` bytes of UTF-8 (NUL bytes allowed). Errors:
 * GLIA_ERR_INVALID_ARGUMENT for invalid UTF-8 (naming the byte offset).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_string(const char *data, size_t length, glia_value **out);
/** A bytes object (copied). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_bytes(const void *data, size_t length, glia_value **out);
/**
 * A tensor (the value holds a reference; the tensor is not copied: it is
 * saved as it is when the value is saved, with its requires_grad).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_tensor(glia_tensor *tensor, glia_value **out);
/**
 * A torch.device, "cpu" or "cuda:0" (the "<type>[:<index>]" string torch.device
 * takes). Errors: GLIA_ERR_INVALID_ARGUMENT for another string.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_device(const char *name, glia_value **out);
/**
 * A torch dtype object by torch's name ("float32", "int8", "complex64": any
 * dtype glia_value_load reads, not only glia's). Errors:
 * GLIA_ERR_INVALID_ARGUMENT for an unknown name.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_dtype(const char *name, glia_value **out);
/** An empty list. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_list(glia_value **out);
/** An empty tuple, filled with glia_value_append until it is put into another value. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_tuple(glia_value **out);
/** An empty dict: a collections.OrderedDict when `ordered` is non-zero (a state dict), else a plain dict. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_new_dict(int32_t ordered, glia_value **out);
/**
 * Appends `item` to a list or tuple the caller is building; `item` is then
 * fixed. Errors: GLIA_ERR_INVALID_ARGUMENT (not a list or tuple, a container
 * no longer being built, `item` the container itself); nothing changes.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_append(glia_value *container, glia_value *item);
/**
 * dict[key] = value with a str key (UTF-8): a key already there keeps its
 * place and gets the new value, as in Python. Errors as glia_value_append.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_set(glia_value *dict, const char *key, glia_value *value);
/**
 * dict[key] = value with any hashable key: None, bool, int, float, str,
 * bytes, a tuple of those, a device or dtype (keys compare as Python's ==:
 * 1, 1.0 and True are one key). Errors: GLIA_ERR_INVALID_ARGUMENT also for an
 * unhashable key (a list, dict, set or tensor).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_set_item(glia_value *dict, glia_value *key, glia_value *value);
/**
 * Writes a value. GLIA_FORMAT_TORCH: any value, as torch.save (1.13) writes
 * the Python object it stands for (the zip format, pickle protocol 2;
 * torch.load reads it; for an OrderedDict of str -> tensor the bytes are
 * glia_tensor_dict_save's). GLIA_FORMAT_SAFETENSORS: a flat dict of str ->
 * tensor only (else GLIA_ERR_INVALID_ARGUMENT saying what is in the way).
 * GLIA_FORMAT_AUTO: safetensors for a flat dict of str -> tensor, torch for
 * anything else. Atomic, as glia_tensor_dict_save. Errors: GLIA_ERR_IO,
 * GLIA_ERR_INVALID_ARGUMENT (also for nesting deeper than glia reads back).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_save(const glia_value *value, const char *path, glia_format format);
/**
 * glia_value_save into memory: *out_data (free it with glia_buffer_free) and
 * *out_size. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_value_save_buffer(const glia_value *value, glia_format format, void **out_data,
                                                           size_t *out_size);

/** @} */
/** @} */
/* ------------------------------------------------------------------------ */
/* Built-in modules (torch.nn)                                                */
/* ------------------------------------------------------------------------ */
/** @addtogroup layers
 * @{ */
/** @defgroup layers_options Factory options
 * @ingroup layers
 * @{ */

/**
 * Factory options every built-in constructor takes (torch's device= and
 * dtype=, and torch.nn.utils.skip_init): NULL means float32 on the CPU with
 * torch's default initialisation. With skip_init != 0 parameters and buffers
 * are allocated but not initialised.
 */
typedef struct glia_factory_options {
  /** sizeof(glia_factory_options), set by glia_factory_options_init(). */
  size_t struct_size;
  glia_dtype dtype;   /**< default GLIA_FLOAT32 (floating dtypes only) */
  glia_device device; /**< default CPU */
  int32_t skip_init;  /**< default 0 */
} glia_factory_options;

/** Sets the defaults with struct_size filled in. @since 0.1 */
GLIA_API void glia_factory_options_init(glia_factory_options *options);

/** @} */
/* ---- built-in modules: layers -------------------------------------------- */
/** @defgroup layers_layers Layers
 * @ingroup layers
 * @{ */
/* (layers helper A: Identity, Linear, Bilinear, Conv2d, ConvTranspose2d, pools, activations, Dropout,
   Flatten, Unflatten, Normalize, Embedding) */

/*
 * Each constructor takes torch's constructor arguments, validates them as
 * torch does (GLIA_ERR_INVALID_ARGUMENT with torch's text, e.g. "in_channels
 * must be divisible by groups", or "Trying to create tensor with negative
 * dimension -1: [3, -1]" for a negative size), registers torch's parameters
 * (weight, then bias) and initialises them with torch's scheme unless
 * factory->skip_init is set; `factory` may be NULL (float32 on the CPU) and is
 * accepted, unused, by modules without parameters. The module's repr
 * (glia_module_to_string) and state-dict keys are torch's. On failure nothing
 * is written to *out. Call a module with glia_module_forward.
 */

/** torch.nn.Identity: returns its input. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_identity(const glia_factory_options *factory, glia_module **out);

/**
 * torch.nn.Linear(in_features, out_features, bias): y = x W^T + b, weight
 * [out, in] kaiming_uniform(a = sqrt(5)) (uniform in +-1/sqrt(in)), bias [out]
 * uniform in +-1/sqrt(in). Repr "Linear(in_features=2, out_features=3, bias=True)".
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_linear(int64_t in_features, int64_t out_features, int32_t bias,
                                                   const glia_factory_options *factory, glia_module **out);

/**
 * torch.nn.Bilinear(in1_features, in2_features, out_features, bias): two
 * inputs x1 [*, in1], x2 [*, in2]; y = x1^T W x2 + b with weight
 * [out, in1, in2] and bias [out], both uniform in +-1/sqrt(in1) (torch's
 * scheme for Bilinear).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features,
                                                     int32_t bias, const glia_factory_options *factory,
                                                     glia_module **out);

/**
 * Options of glia_nn_conv2d: torch.nn.Conv2d's keywords. Initialise with
 * glia_nn_conv2d_options_init(). Pairs are (height, width).
 */
typedef struct glia_nn_conv2d_options {
  /** sizeof(glia_nn_conv2d_options), set by glia_nn_conv2d_options_init(). */
  size_t struct_size;
  int64_t stride[2];              /**< default {1, 1} */
  int64_t padding[2];             /**< default {0, 0}; used with GLIA_PADDING_EXPLICIT */
  int64_t dilation[2];            /**< default {1, 1} */
  int64_t groups;                 /**< default 1 */
  int32_t bias;                   /**< default 1 */
  glia_padding_kind padding_kind; /**< torch's padding="valid" / "same"; default GLIA_PADDING_EXPLICIT */
  glia_pad_mode padding_mode;     /**< torch's padding_mode; default GLIA_PAD_CONSTANT ("zeros") */
} glia_nn_conv2d_options;
/** Sets torch's defaults and struct_size. @since 0.1 */
GLIA_API void glia_nn_conv2d_options_init(glia_nn_conv2d_options *options);

/**
 * torch.nn.Conv2d(in_channels, out_channels, (kernel_h, kernel_w), ...):
 * weight [out, in / groups, kH, kW] kaiming_uniform(a = sqrt(5)), bias [out]
 * uniform in +-1/sqrt(fan_in). options NULL for the defaults. padding_mode
 * other than "zeros" pads with glia_pad's mode first (torch's _conv_forward);
 * "same" with an even effective kernel pads one more at the end, as torch.
 * Errors (GLIA_ERR_INVALID_ARGUMENT, torch's text): "groups must be a
 * positive integer", "in_channels must be divisible by groups",
 * "out_channels must be divisible by groups", "padding='same' is not
 * supported for strided convolutions".
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_h,
                                                   int64_t kernel_w, const glia_nn_conv2d_options *options,
                                                   const glia_factory_options *factory, glia_module **out);

/** Options of glia_nn_conv_transpose2d (torch.nn.ConvTranspose2d's keywords). Initialise with the init function. */
typedef struct glia_nn_conv_transpose2d_options {
  /** sizeof(glia_nn_conv_transpose2d_options), set by glia_nn_conv_transpose2d_options_init(). */
  size_t struct_size;
  int64_t stride[2];         /**< default {1, 1} */
  int64_t padding[2];        /**< default {0, 0} */
  int64_t output_padding[2]; /**< default {0, 0} */
  int64_t groups;            /**< default 1 */
  int32_t bias;              /**< default 1 */
  int64_t dilation[2];       /**< default {1, 1} */
} glia_nn_conv_transpose2d_options;
/** Sets torch's defaults and struct_size. @since 0.1 */
GLIA_API void glia_nn_conv_transpose2d_options_init(glia_nn_conv_transpose2d_options *options);

/**
 * torch.nn.ConvTranspose2d(in_channels, out_channels, (kernel_h, kernel_w),
 * ...): weight [in, out / groups, kH, kW], bias [out], initialised as Conv2d's
 * (fan_in from the weight's dim 1). Only "zeros" padding. Errors: as glia_nn_conv2d.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_conv_transpose2d(int64_t in_channels, int64_t out_channels,
                                                             int64_t kernel_h, int64_t kernel_w,
                                                             const glia_nn_conv_transpose2d_options *options,
                                                             const glia_factory_options *factory, glia_module **out);

/* Conv1d, Conv3d, ConvTranspose1d, ConvTranspose3d, Unfold, Fold (@since 0.2). */

/**
 * Options of glia_nn_conv1d and glia_nn_conv3d: torch's keywords (1-D reads
 * element 0 of each array). Initialise with glia_nn_convnd_options_init(). @since 0.2
 */
typedef struct glia_nn_convnd_options {
  /** sizeof(glia_nn_convnd_options), set by glia_nn_convnd_options_init(). */
  size_t struct_size;
  int64_t stride[3];              /**< default {1, 1, 1} */
  int64_t padding[3];             /**< default {0, 0, 0}; used with GLIA_PADDING_EXPLICIT */
  int64_t dilation[3];            /**< default {1, 1, 1} */
  int64_t groups;                 /**< default 1 */
  int32_t bias;                   /**< default 1 */
  glia_padding_kind padding_kind; /**< torch's padding="valid" / "same"; default GLIA_PADDING_EXPLICIT */
  glia_pad_mode padding_mode;     /**< torch's padding_mode; default GLIA_PAD_CONSTANT ("zeros") */
} glia_nn_convnd_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_nn_convnd_options_init(glia_nn_convnd_options *options);

/**
 * torch.nn.Conv1d(in_channels, out_channels, kernel_size, ...): weight
 * [out, in / groups, k], bias [out], initialised and checked as glia_nn_conv2d.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                                                   const glia_nn_convnd_options *options,
                                                   const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.Conv3d(in_channels, out_channels, (kernel_d, kernel_h, kernel_w), ...):
 * weight [out, in / groups, kD, kH, kW], bias [out], as glia_nn_conv2d. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_conv3d(int64_t in_channels, int64_t out_channels, int64_t kernel_d,
                                                   int64_t kernel_h, int64_t kernel_w,
                                                   const glia_nn_convnd_options *options,
                                                   const glia_factory_options *factory, glia_module **out);

/** Options of glia_nn_conv_transpose1d / 3d (torch's keywords). Initialise with the init function. @since 0.2 */
typedef struct glia_nn_conv_transposend_options {
  /** sizeof(glia_nn_conv_transposend_options), set by glia_nn_conv_transposend_options_init(). */
  size_t struct_size;
  int64_t stride[3];         /**< default {1, 1, 1} */
  int64_t padding[3];        /**< default {0, 0, 0} */
  int64_t output_padding[3]; /**< default {0, 0, 0} */
  int64_t groups;            /**< default 1 */
  int32_t bias;              /**< default 1 */
  int64_t dilation[3];       /**< default {1, 1, 1} */
} glia_nn_conv_transposend_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_nn_conv_transposend_options_init(glia_nn_conv_transposend_options *options);

/**
 * torch.nn.ConvTranspose1d(in_channels, out_channels, kernel_size, ...): weight
 * [in, out / groups, k], bias [out], as glia_nn_conv_transpose2d. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_conv_transpose1d(int64_t in_channels, int64_t out_channels,
                                                             int64_t kernel_size,
                                                             const glia_nn_conv_transposend_options *options,
                                                             const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.ConvTranspose3d(in_channels, out_channels, (kernel_d, kernel_h,
 * kernel_w), ...): weight [in, out / groups, kD, kH, kW], bias [out]. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_conv_transpose3d(int64_t in_channels, int64_t out_channels,
                                                             int64_t kernel_d, int64_t kernel_h, int64_t kernel_w,
                                                             const glia_nn_conv_transposend_options *options,
                                                             const glia_factory_options *factory, glia_module **out);

/** torch.nn.Unfold with glia_im2col's options (required: kernel_size). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_unfold(const glia_fold_options *options,
                                                   const glia_factory_options *factory, glia_module **out);
/** torch.nn.Fold(output_size, ...) with glia_col2im's options (required: kernel_size). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_fold(int64_t out_h, int64_t out_w, const glia_fold_options *options,
                                                 const glia_factory_options *factory, glia_module **out);

/**
 * torch.nn.MaxPool2d with glia_max_pool2d's options (required: set
 * kernel_size; stride {0, 0} is torch's stride=None, i.e. kernel_size). The
 * repr prints an equal pair as one number ("MaxPool2d(kernel_size=2, stride=2,
 * padding=0, dilation=1, ceil_mode=False)"), as torch prints MaxPool2d(2).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_max_pool2d(const glia_max_pool2d_options *options,
                                                       const glia_factory_options *factory, glia_module **out);
/** torch.nn.AvgPool2d with glia_avg_pool2d's options (required; see glia_nn_max_pool2d). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_avg_pool2d(const glia_avg_pool2d_options *options,
                                                       const glia_factory_options *factory, glia_module **out);
/** torch.nn.AdaptiveAvgPool2d((out_h, out_w)); a negative size is torch's None (keep the input's size). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_adaptive_avg_pool2d(int64_t out_h, int64_t out_w,
                                                                const glia_factory_options *factory, glia_module **out);

/* ---- 1-D and 3-D pooling modules (their repr is torch's: MaxPool1d and the 3-D pools print an
 * equal triple as one number, AvgPool1d prints one-element tuples, "kernel_size=(2,)"). */

/** torch.nn.MaxPool1d with glia_max_pool1d's options (required: set kernel_size; stride 0 is kernel_size). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_max_pool1d(const glia_max_pool1d_options *options,
                                                       const glia_factory_options *factory, glia_module **out);
/** torch.nn.AvgPool1d with glia_avg_pool1d's options (required). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_avg_pool1d(const glia_avg_pool1d_options *options,
                                                       const glia_factory_options *factory, glia_module **out);
/** torch.nn.MaxPool3d with glia_max_pool3d's options (required). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_max_pool3d(const glia_max_pool3d_options *options,
                                                       const glia_factory_options *factory, glia_module **out);
/** torch.nn.AvgPool3d with glia_avg_pool3d's options (required). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_avg_pool3d(const glia_avg_pool3d_options *options,
                                                       const glia_factory_options *factory, glia_module **out);
/** torch.nn.AdaptiveAvgPool1d(out_l) (out_l >= 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_adaptive_avg_pool1d(int64_t out_l, const glia_factory_options *factory,
                                                                glia_module **out);
/** torch.nn.AdaptiveAvgPool3d((out_t, out_h, out_w)); a negative size is torch's None (keep the input's size). @since
 * 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_adaptive_avg_pool3d(int64_t out_t, int64_t out_h, int64_t out_w,
                                                                const glia_factory_options *factory, glia_module **out);
/** torch.nn.AdaptiveMaxPool1d(out_l) (out_l >= 0; the module returns no indices). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_adaptive_max_pool1d(int64_t out_l, const glia_factory_options *factory,
                                                                glia_module **out);
/** torch.nn.AdaptiveMaxPool2d((out_h, out_w)); a negative size is torch's None. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_adaptive_max_pool2d(int64_t out_h, int64_t out_w,
                                                                const glia_factory_options *factory, glia_module **out);
/** torch.nn.AdaptiveMaxPool3d((out_t, out_h, out_w)); a negative size is torch's None. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_adaptive_max_pool3d(int64_t out_t, int64_t out_h, int64_t out_w,
                                                                const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.LPPool1d(norm_type, kernel_size, stride, ceil_mode); stride 0 is
 * torch's None. The repr prints an integral norm_type as an int ("LPPool1d(
 * norm_type=2, kernel_size=3, stride=None, ceil_mode=False)").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lp_pool1d(double norm_type, int64_t kernel_size, int64_t stride,
                                                      int32_t ceil_mode, const glia_factory_options *factory,
                                                      glia_module **out);
/** torch.nn.LPPool2d(norm_type, kernel_size, stride, ceil_mode); stride NULL or {0, 0} is None. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lp_pool2d(double norm_type, const int64_t kernel_size[2],
                                                      const int64_t *stride, int32_t ceil_mode,
                                                      const glia_factory_options *factory, glia_module **out);

/** torch.nn.ReLU(). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_relu(const glia_factory_options *factory, glia_module **out);
/** torch.nn.LeakyReLU(negative_slope) (torch's default 0.01). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_leaky_relu(double negative_slope, const glia_factory_options *factory,
                                                       glia_module **out);
/** torch.nn.ELU(alpha) (torch's default 1.0). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_elu(double alpha, const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.GELU(approximate): "none" (or NULL) or "tanh". Other strings:
 * GLIA_ERR_INVALID_ARGUMENT "approximate argument must be either none or
 * tanh." (torch raises it at the first call; glia at construction).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_gelu(const char *approximate, const glia_factory_options *factory,
                                                 glia_module **out);
/** torch.nn.SiLU(). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_silu(const glia_factory_options *factory, glia_module **out);
/** torch.nn.Sigmoid(). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_sigmoid(const glia_factory_options *factory, glia_module **out);
/** torch.nn.Tanh(). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_tanh(const glia_factory_options *factory, glia_module **out);
/** torch.nn.Softmax(dim). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_softmax(int64_t dim, const glia_factory_options *factory,
                                                    glia_module **out);
/** torch.nn.LogSoftmax(dim). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_log_softmax(int64_t dim, const glia_factory_options *factory,
                                                        glia_module **out);
/**
 * torch.nn.PReLU(num_parameters, init) (torch: 1, 0.25): parameter "weight"
 * [num_parameters], filled with init; forward is glia_prelu.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_prelu(int64_t num_parameters, double init,
                                                  const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.RReLU(lower, upper, inplace) (torch: 1/8, 1/3, 0): glia_rrelu with
 * training from glia_module_train (random slopes in training, the mean slope
 * in eval). Errors: GLIA_ERR_INVALID_ARGUMENT "Lower bound should be less than
 * or equal to the upper bound" (torch raises it at the first call).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_rrelu(double lower, double upper, int32_t inplace,
                                                  const glia_factory_options *factory, glia_module **out);
/** torch.nn.GLU(dim) (torch: -1). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_glu(int64_t dim, const glia_factory_options *factory, glia_module **out);
/** torch.nn.CELU(alpha, inplace) (torch: 1.0, 0); alpha 0 is refused when built. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_celu(double alpha, int32_t inplace, const glia_factory_options *factory,
                                                 glia_module **out);
/** torch.nn.SELU(inplace). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_selu(int32_t inplace, const glia_factory_options *factory,
                                                 glia_module **out);
/** torch.nn.Softmin(dim). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_softmin(int64_t dim, const glia_factory_options *factory,
                                                    glia_module **out);
/**
 * torch.nn.Softmax2d(): softmax over dim -3 of a 3-D or 4-D input; other
 * inputs fail with GLIA_ERR_SHAPE "Softmax2d requires a 3D or 4D tensor as
 * input".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_softmax2d(const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.Softplus(beta, threshold) (torch: 1, 20). The repr prints the
 * default values as torch's int defaults ("Softplus(beta=1, threshold=20)")
 * and other values as floats ("beta=2.0").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_softplus(double beta, double threshold, const glia_factory_options *factory,
                                                     glia_module **out);
/** torch.nn.Softshrink(lambd) (torch: 0.5); a negative lambd is refused when built. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_softshrink(double lambd, const glia_factory_options *factory,
                                                       glia_module **out);
/** torch.nn.Hardshrink(lambd) (torch: 0.5). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_hardshrink(double lambd, const glia_factory_options *factory,
                                                       glia_module **out);
/** torch.nn.Tanhshrink(). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_tanhshrink(const glia_factory_options *factory, glia_module **out);
/** torch.nn.Threshold(threshold, value, inplace). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_threshold(double threshold, double value, int32_t inplace,
                                                      const glia_factory_options *factory, glia_module **out);
/** torch.nn.Hardtanh(min_val, max_val, inplace) (torch: -1, 1, 0); max_val must exceed min_val. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_hardtanh(double min_val, double max_val, int32_t inplace,
                                                     const glia_factory_options *factory, glia_module **out);
/** torch.nn.ReLU6(inplace). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_relu6(int32_t inplace, const glia_factory_options *factory,
                                                  glia_module **out);
/** torch.nn.Hardsigmoid(inplace) (its repr prints no inplace, as torch's). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_hardsigmoid(int32_t inplace, const glia_factory_options *factory,
                                                        glia_module **out);
/** torch.nn.Hardswish(inplace) (its repr prints no inplace, as torch's). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_hardswish(int32_t inplace, const glia_factory_options *factory,
                                                      glia_module **out);
/** torch.nn.Mish(inplace). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_mish(int32_t inplace, const glia_factory_options *factory,
                                                 glia_module **out);
/** torch.nn.LogSigmoid(). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_logsigmoid(const glia_factory_options *factory, glia_module **out);
/**
 * Sets torch's inplace flag of an activation module built by glia_nn_relu,
 * glia_nn_leaky_relu, glia_nn_elu, glia_nn_silu (whose constructors predate
 * the flag) or any constructor above that takes inplace: forward then
 * overwrites its input with the in-place op (glia_relu_ ...) and returns it,
 * and the repr shows "inplace=True" where torch's does. Errors:
 * GLIA_ERR_INVALID_ARGUMENT "glia_nn_activation_set_inplace: Sigmoid has no
 * inplace argument" for other modules.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_activation_set_inplace(glia_module *module, int32_t inplace);
/**
 * torch.nn.Dropout(p): in training mode (glia_module_train) zeroes elements
 * with probability p and scales the rest by 1 / (1 - p); in eval mode returns
 * its input. Errors: GLIA_ERR_INVALID_ARGUMENT "dropout probability has to be
 * between 0 and 1, but got 1.5".
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_dropout(double p, const glia_factory_options *factory, glia_module **out);
/** torch.nn.Flatten(start_dim, end_dim) (torch's defaults 1, -1). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_flatten(int64_t start_dim, int64_t end_dim,
                                                    const glia_factory_options *factory, glia_module **out);
/** torch.nn.Unflatten(dim, sizes): n_sizes values (one may be -1). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_unflatten(int64_t dim, const int64_t *sizes, int64_t n_sizes,
                                                      const glia_factory_options *factory, glia_module **out);
/**
 * torchvision.transforms.Normalize(mean, std) as a module over glia_normalize
 * (the values are copied). Repr "Normalize(mean=[0.5], std=[0.25])".
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_normalize(const double *mean, int64_t n_mean, const double *std,
                                                      int64_t n_std, const glia_factory_options *factory,
                                                      glia_module **out);
/**
 * torch.nn.Embedding(num_embeddings, embedding_dim, padding_idx, max_norm,
 * norm_type): weight [num, dim] normal(0, 1) with the padding row zeroed.
 * padding_idx and max_norm may be NULL (torch's None); a negative
 * padding_idx counts from the end. Errors: GLIA_ERR_INVALID_ARGUMENT
 * "Padding_idx must be within num_embeddings".
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_embedding(int64_t num_embeddings, int64_t embedding_dim,
                                                      const int64_t *padding_idx, const double *max_norm,
                                                      double norm_type, const glia_factory_options *factory,
                                                      glia_module **out);
/**
 * Sets torch's scale_grad_by_freq of a glia_nn_embedding module (the
 * constructor predates it): nonzero divides each row's gradient by its
 * index's count in the input. Errors: GLIA_ERR_INVALID_ARGUMENT when module
 * is not an Embedding.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_embedding_set_scale_grad_by_freq(glia_module *module,
                                                                             int32_t scale_grad_by_freq);
/**
 * torch.nn.EmbeddingBag(num_embeddings, embedding_dim, max_norm, norm_type,
 * scale_grad_by_freq, mode, sparse=False, include_last_offset, padding_idx):
 * weight [num, dim] normal(0, 1) with the padding row zeroed. max_norm and
 * padding_idx may be NULL (None); mode NULL is "mean". glia_module_forward
 * takes [input, offsets, per_sample_weights] (the last two may be NULL or left
 * out) and computes glia_embedding_bag. Repr "EmbeddingBag(10, 3, mode=mean)".
 * Errors: GLIA_ERR_INVALID_ARGUMENT ("padding_idx must be within
 * num_embeddings", "mode has to be one of sum, mean or max").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_embedding_bag(int64_t num_embeddings, int64_t embedding_dim,
                                                          const double *max_norm, double norm_type,
                                                          int32_t scale_grad_by_freq, const char *mode,
                                                          int32_t include_last_offset, const int64_t *padding_idx,
                                                          const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.CTCLoss(blank, reduction, zero_infinity): glia_module_forward takes
 * [log_probs, targets, input_lengths, target_lengths], the lengths as
 * integral tensors (read on the host), and computes glia_ctc_loss.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_ctc_loss(int64_t blank, glia_reduction reduction, int32_t zero_infinity,
                                                     const glia_factory_options *factory, glia_module **out);

/** @} */
/* ---- built-in modules: padding, upsampling, rearrangement ----------------- */
/** @defgroup layers_resample Padding, upsampling and rearrangement
 * @ingroup layers
 * @{ */

/*
 * The padding modules take torch's `padding` argument as (padding, n_padding): n_padding 1 is torch's int (the
 * same size on every side of the module's 1, 2 or 3 dims), otherwise the tuple as given (left, right of the last
 * dim, then top, bottom, ...). They hold no state; forward is glia_pad with their mode, and its errors (torch's
 * "Padding size should be less than the corresponding input dimension", ...) come from forward. Errors of the
 * constructors: GLIA_ERR_INVALID_ARGUMENT (n_padding < 0, padding NULL with n_padding > 0).
 */
/**
 * torch.nn.ConstantPad1d(padding, value): pads the last dim with `value`. Repr
 * "ConstantPad1d(padding=(1, 2), value=0.5)".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_constant_pad1d(const int64_t *padding, int64_t n_padding, double value,
                                                           const glia_factory_options *factory, glia_module **out);
/** torch.nn.ConstantPad2d(padding, value): pads the last two dims with `value`. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_constant_pad2d(const int64_t *padding, int64_t n_padding, double value,
                                                           const glia_factory_options *factory, glia_module **out);
/** torch.nn.ConstantPad3d(padding, value): pads the last three dims with `value`. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_constant_pad3d(const int64_t *padding, int64_t n_padding, double value,
                                                           const glia_factory_options *factory, glia_module **out);
/** torch.nn.ZeroPad2d(padding): ConstantPad2d with 0; repr "ZeroPad2d((1, 1, 2, 0))". @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_zero_pad2d(const int64_t *padding, int64_t n_padding,
                                                       const glia_factory_options *factory, glia_module **out);
/** torch.nn.ReflectionPad1d(padding): glia_pad's "reflect" of the last dim; repr "ReflectionPad1d((2, 2))". @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_reflection_pad1d(const int64_t *padding, int64_t n_padding,
                                                             const glia_factory_options *factory, glia_module **out);
/** torch.nn.ReflectionPad2d(padding): "reflect" of the last two dims. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_reflection_pad2d(const int64_t *padding, int64_t n_padding,
                                                             const glia_factory_options *factory, glia_module **out);
/** torch.nn.ReflectionPad3d(padding): "reflect" of the last three dims. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_reflection_pad3d(const int64_t *padding, int64_t n_padding,
                                                             const glia_factory_options *factory, glia_module **out);
/** torch.nn.ReplicationPad1d(padding): glia_pad's "replicate" of the last dim. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_replication_pad1d(const int64_t *padding, int64_t n_padding,
                                                              const glia_factory_options *factory, glia_module **out);
/** torch.nn.ReplicationPad2d(padding): "replicate" of the last two dims. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_replication_pad2d(const int64_t *padding, int64_t n_padding,
                                                              const glia_factory_options *factory, glia_module **out);
/** torch.nn.ReplicationPad3d(padding): "replicate" of the last three dims. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_replication_pad3d(const int64_t *padding, int64_t n_padding,
                                                              const glia_factory_options *factory, glia_module **out);

/**
 * torch.nn.Upsample(size, scale_factor, mode, align_corners, recompute_scale_factor): forward is
 * glia_interpolate with these arguments (same conventions: n_size / n_scale_factor 0 for None, 1 for torch's
 * int / float, align_corners and recompute_scale_factor -1 for None). A single scale factor of 0 is None, as
 * torch's `float(scale_factor) if scale_factor else None`. Repr "Upsample(scale_factor=2.0, mode=nearest)".
 * Errors: GLIA_ERR_INVALID_ARGUMENT (negative counts, NULL arrays, an unknown mode, flags other than -1, 0, 1);
 * interpolate's own errors come from forward.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_upsample(const int64_t *size, int64_t n_size, const double *scale_factor,
                                                     int64_t n_scale_factor, glia_interpolate_mode mode,
                                                     int32_t align_corners, int32_t recompute_scale_factor,
                                                     const glia_factory_options *factory, glia_module **out);
/** torch.nn.UpsamplingNearest2d(size, scale_factor): glia_nn_upsample with mode "nearest". @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_upsampling_nearest2d(const int64_t *size, int64_t n_size,
                                                                 const double *scale_factor, int64_t n_scale_factor,
                                                                 const glia_factory_options *factory,
                                                                 glia_module **out);
/** torch.nn.UpsamplingBilinear2d(size, scale_factor): mode "bilinear" with align_corners=True. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_upsampling_bilinear2d(const int64_t *size, int64_t n_size,
                                                                  const double *scale_factor, int64_t n_scale_factor,
                                                                  const glia_factory_options *factory,
                                                                  glia_module **out);
/** torch.nn.PixelShuffle(upscale_factor): glia_pixel_shuffle; repr "PixelShuffle(upscale_factor=2)". @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_pixel_shuffle(int64_t upscale_factor, const glia_factory_options *factory,
                                                          glia_module **out);
/** torch.nn.PixelUnshuffle(downscale_factor): glia_pixel_unshuffle. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_pixel_unshuffle(int64_t downscale_factor,
                                                            const glia_factory_options *factory, glia_module **out);
/** torch.nn.ChannelShuffle(groups): glia_channel_shuffle; repr "ChannelShuffle(groups=4)". @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_channel_shuffle(int64_t groups, const glia_factory_options *factory,
                                                            glia_module **out);

/** @} */
/* ---- built-in modules: recurrent ------------------------------------------ */
/** @defgroup layers_recurrent Recurrent
 * @ingroup layers
 * @{ */
/* (recurrent helper: RNNCell, LSTMCell, GRUCell, RNN, LSTM, GRU) */

/*
 * The recurrent modules take torch's arguments and register torch's
 * parameters in torch's order, all uniform in +-1/sqrt(hidden_size) (drawn
 * from glia's generator in that order), so torch state dicts load into them.
 * torch's forward takes (input, hx) where hx is a tensor, an (h, c) pair or
 * None, and returns tuples; through glia_module_forward they are flattened in
 * order, and a NULL (or absent) state is torch's None (zeros):
 *
 *   module              inputs                  outputs
 *   RNNCell, GRUCell    input [, h]             h'
 *   LSTMCell            input [, h, c]          h', c'
 *   RNN, GRU            input [, h_0]           output, h_n
 *   LSTM                input [, h_0, c_0]      output, h_n, c_n
 *
 * h_0 and c_0 are both given or both NULL. Cells take input [batch, input_size]
 * or unbatched [input_size] (then h is [hidden_size]); layers take
 * [seq, batch, input_size] ([batch, seq, input_size] with batch_first) or
 * unbatched [seq, input_size], with states [num_layers * num_directions,
 * batch, hidden] ([num_layers * num_directions, hidden] unbatched). Forward
 * errors are GLIA_ERR_SHAPE with torch's text ("input.size(-1) must be equal
 * to input_size. Expected 3, got 4", "Expected hidden size (1, 2, 4), got
 * [2, 2, 4]", "hidden0 has inconsistent hidden_size: got 5, expected 4",
 * "LSTMCell: Expected input to be 1-D or 2-D but received 3-D tensor");
 * GLIA_ERR_INVALID_ARGUMENT for a wrong number of inputs or only one of h_0
 * and c_0. The gates and the computation are torch's (LSTM: i, f, g, o;
 * GRU: r, z, n with n = tanh(W_in x + b_in + r (W_hn h + b_hn))), made of
 * differentiable ops, so they run on every device and train with every
 * optimizer.
 */

/**
 * torch.nn.RNNCell(input_size, hidden_size, bias, nonlinearity):
 * h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (relu with nonlinearity
 * "relu"). Parameters weight_ih [hidden, input], weight_hh [hidden, hidden],
 * bias_ih and bias_hh [hidden] (reserved, None, when bias == 0).
 * nonlinearity NULL is "tanh". Errors: GLIA_ERR_INVALID_ARGUMENT "Unknown
 * nonlinearity: sigmoid" (torch raises it at the first call), negative sizes
 * ("Trying to create tensor with negative dimension -4: [-4, 3]").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_rnn_cell(int64_t input_size, int64_t hidden_size, int32_t bias,
                                                     const char *nonlinearity, const glia_factory_options *factory,
                                                     glia_module **out);
/**
 * torch.nn.LSTMCell(input_size, hidden_size, bias): as glia_nn_rnn_cell with
 * 4 * hidden_size gate rows (i, f, g, o); forward returns (h', c').
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lstm_cell(int64_t input_size, int64_t hidden_size, int32_t bias,
                                                      const glia_factory_options *factory, glia_module **out);
/** torch.nn.GRUCell(input_size, hidden_size, bias): 3 * hidden_size gate rows (r, z, n). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_gru_cell(int64_t input_size, int64_t hidden_size, int32_t bias,
                                                     const glia_factory_options *factory, glia_module **out);

/** Options of glia_nn_rnn / glia_nn_lstm / glia_nn_gru (torch's keywords). Initialise with the init function. */
typedef struct glia_nn_rnn_options {
  /** sizeof(glia_nn_rnn_options), set by glia_nn_rnn_options_init(). */
  size_t struct_size;
  int64_t num_layers;       /**< stacked layers (default 1) */
  int32_t bias;             /**< bias_ih_l{k} and bias_hh_l{k} (default 1) */
  int32_t batch_first;      /**< input and output [batch, seq, feature] (default 0; states are never batch first) */
  double dropout;           /**< dropout on each layer's output but the last, in training (default 0) */
  int32_t bidirectional;    /**< a reverse direction per layer, parameters suffixed "_reverse" (default 0) */
  int64_t proj_size;        /**< LSTM only: h projected to proj_size by weight_hr_l{k} (default 0: none) */
  const char *nonlinearity; /**< RNN only: "tanh" or "relu"; NULL is "tanh" (default NULL) */
} glia_nn_rnn_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_nn_rnn_options_init(glia_nn_rnn_options *options);

/**
 * torch.nn.RNN(input_size, hidden_size, ...): per layer k and direction,
 * weight_ih_l{k}[_reverse] [hidden, in_k] (in_0 = input_size, else
 * num_directions * hidden), weight_hh_l{k} [hidden, hidden], bias_ih_l{k},
 * bias_hh_l{k} [hidden] (absent without bias). options may be NULL (the
 * defaults). The dropout mask comes from glia's generator (glia_manual_seed).
 * Repr "RNN(3, 4, num_layers=2, bidirectional=True)". Errors
 * (GLIA_ERR_INVALID_ARGUMENT, torch's text): "dropout should be a number in
 * range [0, 1] representing the probability of an element being zeroed",
 * "proj_size argument is only supported for LSTM, not RNN or GRU",
 * "proj_size has to be smaller than hidden_size" (also for hidden_size <= 0,
 * as torch), "Unknown nonlinearity 'sigmoid'", "nonlinearity is only
 * supported for RNN, not LSTM or GRU", and "num_layers must be greater than
 * zero" (torch 1.13 fails at the first call instead). dropout > 0 with one
 * layer logs torch's warning (glia_set_log_callback).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_rnn(int64_t input_size, int64_t hidden_size,
                                                const glia_nn_rnn_options *options, const glia_factory_options *factory,
                                                glia_module **out);
/**
 * torch.nn.LSTM: as glia_nn_rnn with 4 * hidden_size gate rows; with
 * proj_size > 0 each layer and direction also has weight_hr_l{k} [proj_size,
 * hidden], h (and h_0, h_n, weight_hh's columns, the next layer's input) has
 * proj_size features and c keeps hidden_size. Forward errors for the states:
 * "Expected hidden[0] size ...", "Expected hidden[1] size ...", "For batched
 * 3-D input, hx and cx should also be 3-D but got (2-D, 3-D) tensors".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lstm(int64_t input_size, int64_t hidden_size,
                                                 const glia_nn_rnn_options *options,
                                                 const glia_factory_options *factory, glia_module **out);
/** torch.nn.GRU: as glia_nn_rnn with 3 * hidden_size gate rows (r, z, n). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_gru(int64_t input_size, int64_t hidden_size,
                                                const glia_nn_rnn_options *options, const glia_factory_options *factory,
                                                glia_module **out);

/** @} */
/* ---- torch.nn.utils.rnn: packed sequences -------------------------------- */
/** @defgroup layers_packed torch.nn.utils.rnn: packed sequences
 * @ingroup layers
 * @{ */

/**
 * torch.nn.utils.rnn.PackedSequence as its four tensors: data [sum(lengths),
 * *] holds the rows of the sequences still running, step after step;
 * batch_sizes (int64, 1-D, on the CPU) how many rows each step has;
 * sorted_indices and unsorted_indices (int64) are NULL when the batch was
 * given sorted by decreasing length. A function that fills one writes new
 * references (free them with glia_packed_sequence_release).
 */
typedef struct glia_packed_sequence {
  glia_tensor *data;             /**< the rows of all sequences, step after step: [sum(lengths), *] */
  glia_tensor *batch_sizes;      /**< int64, 1-D, on the CPU: the number of rows of each step */
  glia_tensor *sorted_indices;   /**< int64: the batch order sorted by decreasing length, or NULL */
  glia_tensor *unsorted_indices; /**< int64: the inverse permutation of sorted_indices, or NULL */
} glia_packed_sequence;

/** Releases the four handles (NULL entries are skipped) and sets them to NULL. Accepts NULL. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_packed_sequence_release(glia_packed_sequence *sequence);

/**
 * torch.nn.utils.rnn.pack_padded_sequence(input, lengths, batch_first,
 * enforce_sorted): input [T, B, *] ([B, T, *] with batch_first), n_lengths ==
 * B lengths in [1, T]. Without enforce_sorted the batch is sorted by
 * decreasing length (stable, as torch.sort) and the indices are set.
 * Differentiable with respect to input. Errors (GLIA_ERR_INVALID_ARGUMENT,
 * torch's text): "Cannot pack empty tensors.", "Expected `len(lengths)` to be
 * equal to batch_size, but got 2 (batch_size=3)", "Length of all samples has
 * to be greater than 0, ...", "`lengths` array must be sorted in decreasing
 * order when `enforce_sorted` is True. ...", and a length above T (which
 * torch 1.13 does not check).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_rnn_pack_padded_sequence(const glia_tensor *input,
                                                                           const int64_t *lengths, int64_t n_lengths,
                                                                           int32_t batch_first, int32_t enforce_sorted,
                                                                           glia_packed_sequence *out);
/**
 * torch.nn.utils.rnn.pad_packed_sequence(sequence, batch_first,
 * padding_value, total_length): *out the padded [T, B, *] ([B, T, *]) in the
 * original batch order, *out_lengths (may be NULL) the int64 lengths on the
 * CPU. total_length NULL is None; a smaller one than the longest sequence is
 * GLIA_ERR_INVALID_ARGUMENT ("Expected total_length to be at least the length
 * of the longest sequence in input, ...").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_rnn_pad_packed_sequence(const glia_packed_sequence *sequence,
                                                                          int32_t batch_first, double padding_value,
                                                                          const int64_t *total_length,
                                                                          glia_tensor **out, glia_tensor **out_lengths);
/**
 * torch.nn.utils.rnn.pad_sequence(sequences, batch_first, padding_value):
 * n_sequences tensors [L_i, *] with equal trailing sizes into [max L, B, *]
 * ([B, max L, *]). Errors: GLIA_ERR_INVALID_ARGUMENT "received an empty list
 * of sequences", GLIA_ERR_SHAPE for different trailing sizes.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_rnn_pad_sequence(glia_tensor *const *sequences, int64_t n_sequences,
                                                                   int32_t batch_first, double padding_value,
                                                                   glia_tensor **out);
/**
 * torch's RNN/LSTM/GRU forward on a PackedSequence: `module` made by
 * glia_nn_rnn, glia_nn_lstm or glia_nn_gru; h_0 (and c_0 for an LSTM) NULL or
 * [num_layers * num_directions, B, hidden] in the original batch order. *out
 * receives the output PackedSequence (its data [sum(lengths), num_directions
 * * hidden], the input's batch_sizes and indices), *out_h_n and (LSTM, when
 * out_c_n is not NULL) *out_c_n the state after each sequence's last step, in
 * the original batch order; for RNN and GRU *out_c_n is set to NULL.
 * Module hooks are not called (glia_module_forward's convention has no
 * packed input). Errors: GLIA_ERR_INVALID_ARGUMENT (another module, only one
 * of h_0 and c_0), GLIA_ERR_SHAPE with torch's text ("input must have 2
 * dimensions, got 3", "Expected hidden size (1, 3, 4), got [1, 2, 4]").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_rnn_forward_packed(glia_module *module, const glia_packed_sequence *input,
                                                               const glia_tensor *h_0, const glia_tensor *c_0,
                                                               glia_packed_sequence *out, glia_tensor **out_h_n,
                                                               glia_tensor **out_c_n);

/** @} */
/* ---- attention: F.multi_head_attention_forward, nn.MultiheadAttention (issue 21) ---- */
/** @defgroup layers_attention Attention
 * @ingroup layers
 * torch 1.13's multi-head attention, composed from linear, bmm, baddbmm,
 * softmax and dropout (so it is differentiable and runs on every device).
 * The Transformer layers (TransformerEncoderLayer, ...) are composed over
 * glia_nn_multihead_attention, glia_nn_linear, glia_nn_layer_norm and
 * glia_nn_dropout by the bindings, as torch composes them in Python.
 * @{ */

/** Options of glia_multi_head_attention_forward: torch's optional arguments. NULL tensors are None. */
typedef struct glia_multi_head_attention_options {
  /** sizeof(glia_multi_head_attention_options), set by glia_multi_head_attention_options_init(). */
  size_t struct_size;
  const glia_tensor *bias_k;           /**< [1, 1, E] appended to the keys (with bias_v) (default NULL) */
  const glia_tensor *bias_v;           /**< [1, 1, E] appended to the values (default NULL) */
  int32_t add_zero_attn;               /**< append a zero key and value (default 0) */
  double dropout_p;                    /**< dropout on the attention weights when training (default 0) */
  int32_t training;                    /**< apply dropout (default 1) */
  const glia_tensor *key_padding_mask; /**< [N, S] or [S]: bool (True: ignored) or floating (added) */
  int32_t need_weights;                /**< write *out_weights (default 1) */
  const glia_tensor *attn_mask;        /**< [L, S] or [N * num_heads, L, S]: bool, uint8 or floating (added) */
  int32_t use_separate_proj_weight;    /**< project with q/k/v_proj_weight instead of in_proj_weight (default 0) */
  const glia_tensor *q_proj_weight;    /**< [E, E] (default NULL) */
  const glia_tensor *k_proj_weight;    /**< [E, kdim] (default NULL) */
  const glia_tensor *v_proj_weight;    /**< [E, vdim] (default NULL) */
  const glia_tensor *static_k;         /**< [N * num_heads, S, E / num_heads]: keys used as they are */
  const glia_tensor *static_v;         /**< [N * num_heads, S, E / num_heads]: values used as they are */
  int32_t average_attn_weights;        /**< average the weights over the heads (default 1) */
} glia_multi_head_attention_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_multi_head_attention_options_init(glia_multi_head_attention_options *options);

/**
 * torch.nn.functional.multi_head_attention_forward(query, key, value,
 * embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k,
 * bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, ...):
 * query [L, N, E] (or unbatched [L, E]), key and value [S, N, *] (or [S, *]);
 * *out [L, N, E] and, when need_weights, *out_weights [N, L, S] (averaged) or
 * [N, num_heads, L, S] (unbatched: without N); otherwise *out_weights is set
 * to NULL. in_proj_weight may be NULL with use_separate_proj_weight;
 * in_proj_bias and out_proj_bias may be NULL. options may be NULL (torch's
 * defaults). A bool mask is True where attention is not allowed; a uint8
 * attn_mask logs torch's deprecation warning and is used as bool. Errors:
 * GLIA_ERR_INVALID_ARGUMENT for torch's AssertionErrors ("embed_dim 5 not
 * divisible by num_heads 2", "key shape torch.Size([...]) does not match
 * value shape ...", "expecting key_padding_mask shape of (2, 3), but got
 * ..."), GLIA_ERR_SHAPE for its RuntimeErrors ("The shape of the 2D
 * attn_mask is torch.Size([2, 2]), but should be (3, 4).").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_multi_head_attention_forward(
    const glia_tensor *query, const glia_tensor *key, const glia_tensor *value, int64_t embed_dim_to_check,
    int64_t num_heads, const glia_tensor *in_proj_weight, const glia_tensor *in_proj_bias,
    const glia_tensor *out_proj_weight, const glia_tensor *out_proj_bias,
    const glia_multi_head_attention_options *options, glia_tensor **out, glia_tensor **out_weights);

/** Options of glia_nn_multihead_attention (torch's keywords). Initialise with the init function. */
typedef struct glia_nn_multihead_attention_options {
  /** sizeof(glia_nn_multihead_attention_options), set by glia_nn_multihead_attention_options_init(). */
  size_t struct_size;
  double dropout;        /**< dropout on the attention weights in training mode (default 0) */
  int32_t bias;          /**< in_proj_bias and out_proj.bias (default 1) */
  int32_t add_bias_kv;   /**< parameters bias_k and bias_v [1, 1, embed_dim] (default 0) */
  int32_t add_zero_attn; /**< append a zero key and value (default 0) */
  int64_t kdim;          /**< key features; -1 is None: embed_dim (default -1) */
  int64_t vdim;          /**< value features; -1 is None: embed_dim (default -1) */
  int32_t batch_first;   /**< query, key, value and output [N, L, E] (default 0) */
} glia_nn_multihead_attention_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_nn_multihead_attention_options_init(glia_nn_multihead_attention_options *options);

/**
 * torch.nn.MultiheadAttention(embed_dim, num_heads, ...): parameters in
 * torch's order, in_proj_weight [3 * embed_dim, embed_dim] (or, when kdim or
 * vdim differ from embed_dim, q_proj_weight [E, E], k_proj_weight [E, kdim],
 * v_proj_weight [E, vdim]), in_proj_bias [3 * E], bias_k and bias_v [1, 1, E]
 * (add_bias_kv), and the child out_proj (a Linear printed as
 * NonDynamicallyQuantizableLinear). Init as torch: out_proj's default init,
 * then xavier_uniform_ on the projections, zero biases, xavier_normal_ on
 * bias_k and bias_v. glia_module_forward takes [query, key, value,
 * key_padding_mask, attn_mask] (the last two may be NULL or left out) and
 * returns [attn_output, attn_output_weights] with need_weights and
 * average_attn_weights true. Errors (GLIA_ERR_INVALID_ARGUMENT): "embed_dim
 * must be divisible by num_heads".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_multihead_attention(int64_t embed_dim, int64_t num_heads,
                                                                const glia_nn_multihead_attention_options *options,
                                                                const glia_factory_options *factory, glia_module **out);

/**
 * MultiheadAttention.forward(query, key, value, key_padding_mask,
 * need_weights, attn_mask, average_attn_weights) of a glia_nn_multihead_attention
 * module, through the module's hooks as glia_module_forward (they see the
 * inputs [query, key, value, key_padding_mask, attn_mask], NULL for None).
 * *out_weights is set to NULL when need_weights is 0. Errors:
 * GLIA_ERR_INVALID_ARGUMENT for another kind of module, and those of
 * glia_multi_head_attention_forward.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_multihead_attention_forward(
    glia_module *module, const glia_tensor *query, const glia_tensor *key, const glia_tensor *value,
    const glia_tensor *key_padding_mask, int32_t need_weights, const glia_tensor *attn_mask,
    int32_t average_attn_weights, glia_tensor **out, glia_tensor **out_weights);

/** @} */
/* ---- built-in modules: normalisation, losses, containers ------------------ */
/** @defgroup layers_norm Normalisation, losses, containers
 * @ingroup layers
 * @{ */
/* (layers helper B) */

/**
 * Options of glia_nn_batch_norm1d / glia_nn_batch_norm2d (torch's keywords).
 * Initialise with glia_batch_norm_options_init().
 */
typedef struct glia_batch_norm_options {
  /** sizeof(glia_batch_norm_options), set by glia_batch_norm_options_init(). */
  size_t struct_size;
  double eps;                  /**< added to the variance (default 1e-5) */
  double momentum;             /**< running-stat update factor (default 0.1); ignored when momentum_none */
  int32_t momentum_none;       /**< != 0: torch's momentum=None, a cumulative moving average (default 0) */
  int32_t affine;              /**< learnable weight and bias (default 1) */
  int32_t track_running_stats; /**< running_mean/running_var/num_batches_tracked buffers (default 1) */
} glia_batch_norm_options;
/** Sets struct_size and torch's defaults. @since 0.1 */
GLIA_API void glia_batch_norm_options_init(glia_batch_norm_options *options);

/**
 * torch.nn.BatchNorm1d(num_features, ...): input [N, C] or [N, C, L]. Registers
 * weight (ones) and bias (zeros) when affine, else reserves them (None); then
 * the buffers running_mean (zeros), running_var (ones) and
 * num_batches_tracked (int64, 0-dim, on the factory device, never converted
 * to the factory dtype) when track_running_stats, else reserves them. In
 * training each call adds 1 to num_batches_tracked and updates the running
 * statistics with momentum (1 / num_batches_tracked when momentum_none); in
 * eval the running statistics normalise (batch statistics when they are not
 * tracked). options may be NULL (defaults). Forward errors:
 * GLIA_ERR_INVALID_ARGUMENT "expected 2D or 3D input (got 4D input)".
 * Errors: GLIA_ERR_INVALID_ARGUMENT (negative num_features, options).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_batch_norm1d(int64_t num_features, const glia_batch_norm_options *options,
                                                         const glia_factory_options *factory, glia_module **out);
/** torch.nn.BatchNorm2d: as glia_nn_batch_norm1d on [N, C, H, W] ("expected 4D input (got 3D input)"). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_batch_norm2d(int64_t num_features, const glia_batch_norm_options *options,
                                                         const glia_factory_options *factory, glia_module **out);
/** torch.nn.BatchNorm3d: as glia_nn_batch_norm1d on [N, C, D, H, W] ("expected 5D input (got 4D input)"). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_batch_norm3d(int64_t num_features, const glia_batch_norm_options *options,
                                                         const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True,
 * bias=True): normalises over the trailing dims normalized_shape[0..n)
 * (n in [0, 64]). weight (ones) and, when bias != 0, bias (zeros) when
 * elementwise_affine; reserved (None) otherwise. Repr as torch's:
 * "LayerNorm((4,), eps=1e-05, elementwise_affine=True)".
 * Errors: GLIA_ERR_INVALID_ARGUMENT (NULL shape with normalized_ndim > 0, negative sizes).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_layer_norm(const int64_t *normalized_shape, int64_t normalized_ndim,
                                                       double eps, int32_t elementwise_affine, int32_t bias,
                                                       const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.GroupNorm(num_groups, num_channels, eps=1e-5, affine=True): input
 * [N, C, *]; weight ones and bias zeros of [num_channels] when affine.
 * Errors: GLIA_ERR_INVALID_ARGUMENT "num_channels must be divisible by
 * num_groups" (and "integer division or modulo by zero" for 0 groups).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_group_norm(int64_t num_groups, int64_t num_channels, double eps,
                                                       int32_t affine, const glia_factory_options *factory,
                                                       glia_module **out);

/* ---- norms, dropouts and distances (torch.nn, issue 21) --------------------- */
/**
 * Options of glia_nn_instance_norm1d/2d/3d (torch's keywords). Initialise with
 * glia_instance_norm_options_init().
 */
typedef struct glia_instance_norm_options {
  /** sizeof(glia_instance_norm_options), set by glia_instance_norm_options_init(). */
  size_t struct_size;
  double eps;                  /**< added to the variance (default 1e-5) */
  double momentum;             /**< running-stat update factor (default 0.1) */
  int32_t affine;              /**< learnable weight and bias (default 0) */
  int32_t track_running_stats; /**< running_mean/running_var/num_batches_tracked buffers (default 0) */
} glia_instance_norm_options;
/** Sets struct_size and torch's defaults. @since 0.2 */
GLIA_API void glia_instance_norm_options_init(glia_instance_norm_options *options);
/**
 * torch.nn.InstanceNorm1d(num_features, eps=1e-5, momentum=0.1, affine=False,
 * track_running_stats=False): input [N, C, L] or [C, L] (a batch of one).
 * Registers weight (ones) and bias (zeros) when affine, else reserves them
 * (None); then running_mean (zeros), running_var (ones) and
 * num_batches_tracked (int64, 0-dim, never incremented, as in torch) when
 * track_running_stats, else reserves them. Normalises with the input's
 * statistics in training or without tracked statistics (updating the running
 * ones when tracked), with the running ones in eval. options may be NULL.
 * Forward errors: GLIA_ERR_INVALID_ARGUMENT "expected 2D or 3D input (got 4D
 * input)", those of glia_instance_norm. Errors: GLIA_ERR_INVALID_ARGUMENT
 * (negative num_features, options).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_instance_norm1d(int64_t num_features,
                                                            const glia_instance_norm_options *options,
                                                            const glia_factory_options *factory, glia_module **out);
/** torch.nn.InstanceNorm2d: as glia_nn_instance_norm1d on [N, C, H, W] or [C, H, W]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_instance_norm2d(int64_t num_features,
                                                            const glia_instance_norm_options *options,
                                                            const glia_factory_options *factory, glia_module **out);
/** torch.nn.InstanceNorm3d: as glia_nn_instance_norm1d on [N, C, D, H, W] or [C, D, H, W]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_instance_norm3d(int64_t num_features,
                                                            const glia_instance_norm_options *options,
                                                            const glia_factory_options *factory, glia_module **out);

/* ---- lazy modules (torch.nn.LazyLinear, LazyConv*, LazyBatchNorm*, LazyInstanceNorm*; issue 21) ---- */
/**
 * torch.nn.LazyLinear(out_features, bias): a Linear whose in_features is
 * inferred from the first input. Until then weight and bias are placeholders
 * (torch's UninitializedParameter: [0] tensors of the factory dtype, listed in
 * state dicts, glia_module_is_uninitialized says 1), in_features is 0 and the
 * repr is "LazyLinear(in_features=0, out_features=3, bias=True)". The first
 * glia_module_forward (a forward pre-hook registered before any other, torch's
 * _infer_parameters) sets in_features = input.shape[-1], materialises weight
 * [out, in] and bias [out] in place (the tensor handles stay valid), runs
 * Linear's initialisation and renames the module "Linear" (torch's
 * cls_to_become). glia_module_load_state_dict into a lazy module materialises
 * each placeholder from the checkpoint's shape (a [0] placeholder in the
 * checkpoint leaves it alone); the module is renamed at its next forward, with
 * in_features still 0, as in torch. The first forward mutates the module: it
 * needs the caller's serialization. Forward errors of the first call:
 * GLIA_ERR_INVALID_ARGUMENT for a 0-d input ("tuple index out of range").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_linear(int64_t out_features, int32_t bias,
                                                        const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.LazyConv1d(out_channels, kernel_size, ...): glia_nn_conv1d with
 * in_channels inferred at the first forward (input.shape[1], or shape[0] for
 * an unbatched input), as glia_nn_lazy_linear. Errors of the first forward
 * (GLIA_ERR_INVALID_ARGUMENT, torch's text): "Expected 2D (unbatched) or 3D
 * (batched) input to LazyConv1d, but got input of size: torch.Size([5])",
 * "in_channels must be divisible by groups". Constructor errors: those of
 * glia_nn_conv1d. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_conv1d(int64_t out_channels, int64_t kernel_size,
                                                        const glia_nn_convnd_options *options,
                                                        const glia_factory_options *factory, glia_module **out);
/** torch.nn.LazyConv2d: glia_nn_conv2d with in_channels inferred, as glia_nn_lazy_conv1d. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_conv2d(int64_t out_channels, int64_t kernel_h, int64_t kernel_w,
                                                        const glia_nn_conv2d_options *options,
                                                        const glia_factory_options *factory, glia_module **out);
/** torch.nn.LazyConv3d: glia_nn_conv3d with in_channels inferred, as glia_nn_lazy_conv1d. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_conv3d(int64_t out_channels, int64_t kernel_d, int64_t kernel_h,
                                                        int64_t kernel_w, const glia_nn_convnd_options *options,
                                                        const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.LazyConvTranspose1d: glia_nn_conv_transpose1d with in_channels
 * inferred (weight [in, out / groups, k]), as glia_nn_lazy_conv1d. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_conv_transpose1d(int64_t out_channels, int64_t kernel_size,
                                                                  const glia_nn_conv_transposend_options *options,
                                                                  const glia_factory_options *factory,
                                                                  glia_module **out);
/** torch.nn.LazyConvTranspose2d: glia_nn_conv_transpose2d with in_channels inferred. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_conv_transpose2d(int64_t out_channels, int64_t kernel_h,
                                                                  int64_t kernel_w,
                                                                  const glia_nn_conv_transpose2d_options *options,
                                                                  const glia_factory_options *factory,
                                                                  glia_module **out);
/** torch.nn.LazyConvTranspose3d: glia_nn_conv_transpose3d with in_channels inferred. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_conv_transpose3d(int64_t out_channels, int64_t kernel_d,
                                                                  int64_t kernel_h, int64_t kernel_w,
                                                                  const glia_nn_conv_transposend_options *options,
                                                                  const glia_factory_options *factory,
                                                                  glia_module **out);
/**
 * torch.nn.LazyBatchNorm1d(eps, momentum, affine, track_running_stats):
 * glia_nn_batch_norm1d with num_features inferred at the first forward
 * (input.shape[1]). weight, bias (when affine), running_mean and running_var
 * (when tracked) are placeholders until then; num_batches_tracked is a real
 * 0. Repr "LazyBatchNorm1d(0, eps=1e-05, ...)". As glia_nn_lazy_linear
 * otherwise. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_batch_norm1d(const glia_batch_norm_options *options,
                                                              const glia_factory_options *factory, glia_module **out);
/** torch.nn.LazyBatchNorm2d: as glia_nn_lazy_batch_norm1d. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_batch_norm2d(const glia_batch_norm_options *options,
                                                              const glia_factory_options *factory, glia_module **out);
/** torch.nn.LazyBatchNorm3d: as glia_nn_lazy_batch_norm1d. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_batch_norm3d(const glia_batch_norm_options *options,
                                                              const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.LazyInstanceNorm1d: glia_nn_instance_norm1d with num_features
 * inferred at the first forward from input.shape[1] (also for an unbatched
 * input, as torch 1.13 does), as glia_nn_lazy_batch_norm1d. options NULL
 * means torch 1.13's lazy defaults: affine and track_running_stats true
 * (unlike glia_instance_norm_options_init's). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_instance_norm1d(const glia_instance_norm_options *options,
                                                                 const glia_factory_options *factory,
                                                                 glia_module **out);
/** torch.nn.LazyInstanceNorm2d: as glia_nn_lazy_instance_norm1d. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_instance_norm2d(const glia_instance_norm_options *options,
                                                                 const glia_factory_options *factory,
                                                                 glia_module **out);
/** torch.nn.LazyInstanceNorm3d: as glia_nn_lazy_instance_norm1d. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_lazy_instance_norm3d(const glia_instance_norm_options *options,
                                                                 const glia_factory_options *factory,
                                                                 glia_module **out);
/**
 * torch's LazyModuleMixin.has_uninitialized_params(): *out = 1 when an own
 * parameter or buffer of `module` is a placeholder, else 0 (any module).
 * Errors: GLIA_ERR_INVALID_HANDLE, GLIA_ERR_INVALID_ARGUMENT (NULL out). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_has_uninitialized_params(const glia_module *module, int32_t *out);
/**
 * torch's nn.parameter.is_lazy(module.get_parameter(target)): *out = 1 when the
 * parameter or buffer at the dotted path `target` is a placeholder of a lazy
 * module, else 0. Errors: GLIA_ERR_NOT_FOUND ("Linear has no parameter or
 * buffer `x`", get_submodule's texts), GLIA_ERR_INVALID_HANDLE,
 * GLIA_ERR_INVALID_ARGUMENT. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_is_uninitialized(const glia_module *module, const char *target,
                                                                 int32_t *out);
/**
 * torch's LazyModuleMixin.initialize_parameters(*inputs): when the lazy
 * `module` has placeholders, infers its size from inputs[0] and materialises
 * and initialises them (the module keeps its lazy name until its next
 * forward, as in torch). Errors: GLIA_ERR_UNSUPPORTED for a module that is not
 * lazy ("initialize_parameters is not implemented for Linear"), those of the
 * first forward (see glia_nn_lazy_linear, glia_nn_lazy_conv1d),
 * GLIA_ERR_INVALID_HANDLE. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_initialize_parameters(glia_module *module,
                                                                      const glia_tensor *const *inputs,
                                                                      int64_t n_inputs);
/**
 * torch.nn.LocalResponseNorm(size, alpha=1e-4, beta=0.75, k=1.0): forward is
 * glia_local_response_norm; repr "LocalResponseNorm(2, alpha=0.0001,
 * beta=0.75, k=1.0)". No parameters.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_local_response_norm(int64_t size, double alpha, double beta, double k,
                                                                const glia_factory_options *factory, glia_module **out);
/** torch.nn.CosineSimilarity(dim=1, eps=1e-8): forward(x1, x2) is glia_cosine_similarity. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_cosine_similarity(int64_t dim, double eps,
                                                              const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.PairwiseDistance(p=2.0, eps=1e-6, keepdim=False): forward(x1, x2)
 * is glia_pairwise_distance.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_pairwise_distance(double p, double eps, int32_t keepdim,
                                                              const glia_factory_options *factory, glia_module **out);
/** torch.nn.Softsign(): x / (1 + |x|). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_softsign(const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.Dropout1d(p=0.5, inplace=False): glia_dropout1d in training, the
 * input itself in eval; with inplace != 0 the result is written into the
 * input, which forward returns (torch's feature_dropout_). Repr "p=0.5,
 * inplace=False". Errors: GLIA_ERR_INVALID_ARGUMENT "dropout probability has
 * to be between 0 and 1, but got 1.5".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_dropout1d(double p, int32_t inplace, const glia_factory_options *factory,
                                                      glia_module **out);
/** torch.nn.Dropout2d(p=0.5, inplace=False): as glia_nn_dropout1d with glia_dropout2d. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_dropout2d(double p, int32_t inplace, const glia_factory_options *factory,
                                                      glia_module **out);
/** torch.nn.Dropout3d(p=0.5, inplace=False): as glia_nn_dropout1d with glia_dropout3d. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_dropout3d(double p, int32_t inplace, const glia_factory_options *factory,
                                                      glia_module **out);
/**
 * torch.nn.AlphaDropout(p=0.5, inplace=False): glia_alpha_dropout in training.
 * inplace shows in the repr only: torch 1.13's forward does not pass it on.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_alpha_dropout(double p, int32_t inplace,
                                                          const glia_factory_options *factory, glia_module **out);
/** torch.nn.FeatureAlphaDropout(p=0.5, inplace=False): glia_nn_alpha_dropout's, feature-wise. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_feature_alpha_dropout(double p, int32_t inplace,
                                                                  const glia_factory_options *factory,
                                                                  glia_module **out);

/*
 * Losses: forward takes (input, target) and returns the loss of the matching
 * glia_* functional (torch.nn.functional's). weight and pos_weight are
 * registered as buffers named "weight" and "pos_weight" (torch's
 * _WeightedLoss): the module keeps the tensor itself (no copy); a NULL weight
 * reserves the name, so state dicts contain only the weights given. They have
 * no parameters; factory may be NULL and is only validated. Repr: "MSELoss()".
 * Errors: GLIA_ERR_INVALID_ARGUMENT (unknown reduction, NULL out).
 */
/** torch.nn.CrossEntropyLoss(weight, ignore_index, reduction, label_smoothing); options may be NULL. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_cross_entropy_loss(const glia_cross_entropy_options *options,
                                                               const glia_factory_options *factory, glia_module **out);
/** torch.nn.NLLLoss(weight, ignore_index, reduction); options may be NULL. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_nll_loss(const glia_nll_loss_options *options,
                                                     const glia_factory_options *factory, glia_module **out);
/** torch.nn.MSELoss(reduction). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_mse_loss(glia_reduction reduction, const glia_factory_options *factory,
                                                     glia_module **out);
/** torch.nn.L1Loss(reduction). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_l1_loss(glia_reduction reduction, const glia_factory_options *factory,
                                                    glia_module **out);
/** torch.nn.SmoothL1Loss(reduction, beta) (beta >= 0; torch's default 1). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_smooth_l1_loss(glia_reduction reduction, double beta,
                                                           const glia_factory_options *factory, glia_module **out);
/** torch.nn.HuberLoss(reduction, delta) (delta > 0; torch's default 1). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_huber_loss(glia_reduction reduction, double delta,
                                                       const glia_factory_options *factory, glia_module **out);
/** torch.nn.BCELoss(weight, reduction); weight_or_null broadcasts against the input. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_bce_loss(glia_tensor *weight_or_null, glia_reduction reduction,
                                                     const glia_factory_options *factory, glia_module **out);
/** torch.nn.BCEWithLogitsLoss(weight, reduction, pos_weight). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_bce_with_logits_loss(glia_tensor *weight_or_null,
                                                                 glia_tensor *pos_weight_or_null,
                                                                 glia_reduction reduction,
                                                                 const glia_factory_options *factory,
                                                                 glia_module **out);
/*
 * More losses (the functionals above): GaussianNLLLoss's forward takes (input,
 * target, var), MarginRankingLoss's and CosineEmbeddingLoss's (input1, input2,
 * target), the triplet losses' (anchor, positive, negative).
 */
/** torch.nn.KLDivLoss(reduction, log_target); reduction may be GLIA_REDUCTION_BATCHMEAN. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_kl_div_loss(glia_reduction reduction, int32_t log_target,
                                                        const glia_factory_options *factory, glia_module **out);
/** torch.nn.PoissonNLLLoss(log_input, full, eps, reduction). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_poisson_nll_loss(int32_t log_input, int32_t full, double eps,
                                                             glia_reduction reduction,
                                                             const glia_factory_options *factory, glia_module **out);
/** torch.nn.GaussianNLLLoss(full, eps, reduction). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_gaussian_nll_loss(int32_t full, double eps, glia_reduction reduction,
                                                              const glia_factory_options *factory, glia_module **out);
/** torch.nn.MarginRankingLoss(margin, reduction). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_margin_ranking_loss(double margin, glia_reduction reduction,
                                                                const glia_factory_options *factory, glia_module **out);
/** torch.nn.HingeEmbeddingLoss(margin, reduction). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_hinge_embedding_loss(double margin, glia_reduction reduction,
                                                                 const glia_factory_options *factory,
                                                                 glia_module **out);
/** torch.nn.SoftMarginLoss(reduction). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_soft_margin_loss(glia_reduction reduction,
                                                             const glia_factory_options *factory, glia_module **out);
/** torch.nn.MultiLabelSoftMarginLoss(weight, reduction); the weight is the buffer "weight". @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_multilabel_soft_margin_loss(glia_tensor *weight_or_null,
                                                                        glia_reduction reduction,
                                                                        const glia_factory_options *factory,
                                                                        glia_module **out);
/** torch.nn.CosineEmbeddingLoss(margin, reduction). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_cosine_embedding_loss(double margin, glia_reduction reduction,
                                                                  const glia_factory_options *factory,
                                                                  glia_module **out);
/**
 * torch.nn.MultiMarginLoss(p, margin, weight, reduction): p is 1 or 2, weight
 * 1-D (the buffer "weight"). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_multi_margin_loss(int64_t p, double margin, glia_tensor *weight_or_null,
                                                              glia_reduction reduction,
                                                              const glia_factory_options *factory, glia_module **out);
/** torch.nn.MultiLabelMarginLoss(reduction). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_multilabel_margin_loss(glia_reduction reduction,
                                                                   const glia_factory_options *factory,
                                                                   glia_module **out);
/** torch.nn.TripletMarginLoss(margin, p, eps, swap, reduction). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_triplet_margin_loss(double margin, double p, double eps, int32_t swap,
                                                                glia_reduction reduction,
                                                                const glia_factory_options *factory, glia_module **out);
/**
 * torch.nn.TripletMarginWithDistanceLoss(distance_function, margin, swap,
 * reduction): distance_or_null NULL is pairwise_distance. The module keeps
 * user_data until it is destroyed, then calls free_user_data (may be NULL)
 * once; if this call fails, free_user_data runs before it returns. The
 * callback runs on the thread that calls forward. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_triplet_margin_with_distance_loss(
    glia_distance_fn distance_or_null, void *user_data, void (*free_user_data)(void *), double margin, int32_t swap,
    glia_reduction reduction, const glia_factory_options *factory, glia_module **out);

/*
 * Containers (torch.nn.Sequential, ModuleList, ModuleDict, ParameterList,
 * ParameterDict). A container retains what it holds; getters return new
 * references. Integer indices follow Python's rules: -len <= index < len
 * (GLIA_ERR_INVALID_ARGUMENT "index 5 is out of range" otherwise). Slices
 * follow Python's start:stop:step (step != 0; INT64_MIN and INT64_MAX stand
 * for an omitted start or stop, e.g. (INT64_MAX, INT64_MIN, -1) is [::-1]).
 * Calling a container function on a module of another class is
 * GLIA_ERR_INVALID_ARGUMENT ("glia_nn_sequential_append: argument 'seq' is a
 * Linear, expected a Sequential").
 */
/**
 * torch.nn.Sequential(*modules): children "0", "1", ... (modules may be NULL
 * when n == 0). forward(input) runs the children in order, each on the
 * previous one's outputs; an empty Sequential returns its input.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_sequential(glia_module *const *modules, int64_t n_modules,
                                                       glia_module **out);
/** Sequential.append: the child is named str(len). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_sequential_append(glia_module *seq, glia_module *module);
/** Sequential.insert(index, module): -len <= index <= len ("Index out of range: 7"); later children move up one key.
 * @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_sequential_insert(glia_module *seq, int64_t index, glia_module *module);
/** seq[index] (new reference). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_sequential_get(glia_module *seq, int64_t index, glia_module **out);
/** seq[index] = module (the key is kept). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_sequential_set(glia_module *seq, int64_t index, glia_module *module);
/**
 * seq[start:stop:step]: a new Sequential sharing the children, under their
 * original keys as torch does (Sequential(a, b, c)[1:] has children "1", "2").
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_sequential_slice(glia_module *seq, int64_t start, int64_t stop,
                                                             int64_t step, glia_module **out);
/**
 * seq.pop(index) / del seq[index]: removes the child at index and renames the
 * remaining children "0", "1", ... in order (torch 1.13's __delitem__). *out
 * receives the removed child (new reference) unless out is NULL. Errors:
 * GLIA_ERR_INVALID_ARGUMENT ("index 5 is out of range").
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_sequential_pop(glia_module *seq, int64_t index, glia_module **out);

/** torch.nn.ModuleList(modules): children "0", "1", ...; calling it fails as torch's (no forward). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_list(glia_module *const *modules, int64_t n_modules,
                                                        glia_module **out);
/** ModuleList.append. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_list_append(glia_module *list, glia_module *module);
/** ModuleList.extend(modules). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_list_extend(glia_module *list, glia_module *const *modules,
                                                               int64_t n_modules);
/** ModuleList.insert(index, module): -len <= index <= len. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_list_insert(glia_module *list, int64_t index, glia_module *module);
/** list[index] (new reference). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_list_get(glia_module *list, int64_t index, glia_module **out);
/** list[index] = module. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_list_set(glia_module *list, int64_t index, glia_module *module);
/** list[start:stop:step]: a new ModuleList of the same modules, renumbered from "0". @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_list_slice(glia_module *list, int64_t start, int64_t stop,
                                                              int64_t step, glia_module **out);
/** list.pop(index) / del list[index]: as glia_nn_sequential_pop (out may be NULL). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_list_pop(glia_module *list, int64_t index, glia_module **out);

/**
 * torch.nn.ModuleDict: keys[i] -> modules[i] in the given order (as torch's
 * update from an ordered mapping). Keys follow add_module's rules.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_dict(const char *const *keys, glia_module *const *modules,
                                                        int64_t n_modules, glia_module **out);
/** dict[key] = module (a new key goes last; an existing key keeps its position). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_dict_set(glia_module *dict, const char *key, glia_module *module);
/** dict[key] (new reference). Errors: GLIA_ERR_NOT_FOUND ("'key'", Python's KeyError). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_dict_get(glia_module *dict, const char *key, glia_module **out);
/**
 * dict.pop(key) / del dict[key]: the other keys keep their order; *out receives
 * the removed module (new reference) unless out is NULL. Errors:
 * GLIA_ERR_NOT_FOUND ("'key'", Python's KeyError).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_module_dict_pop(glia_module *dict, const char *key, glia_module **out);
/** Key i in order, snprintf style (keys() of a ModuleDict or ParameterDict). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_dict_key_at(const glia_module *dict, int64_t index, char *buffer,
                                                        size_t capacity, size_t *out_length);

/**
 * torch.nn.ParameterList(params): parameters "0", "1", ... (each tensor is
 * stored itself and made to require grad when floating, as nn.Parameter).
 * Repr as torch 1.13's: "(0): Parameter containing: [torch.float32 of size 2x3]".
 * Calling it is GLIA_ERR_UNSUPPORTED "ParameterList should not be called.".
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_parameter_list(glia_tensor *const *params, int64_t n_params,
                                                           glia_module **out);
/** ParameterList.append. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_parameter_list_append(glia_module *list, glia_tensor *param);
/** list[index] (new reference). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_parameter_list_get(glia_module *list, int64_t index, glia_tensor **out);
/** list[index] = param. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_parameter_list_set(glia_module *list, int64_t index, glia_tensor *param);

/**
 * torch.nn.ParameterDict(dict): the keys are registered in sorted order (byte
 * order), as torch's update() does for a plain dict; later
 * glia_nn_parameter_dict_set calls keep insertion order. Duplicate keys: the
 * last value wins. Repr as torch 1.13's: "(bar): Parameter containing:
 * [torch.FloatTensor of size 3]". Calling it is GLIA_ERR_UNSUPPORTED.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_parameter_dict(const char *const *keys, glia_tensor *const *params,
                                                           int64_t n_params, glia_module **out);
/** dict[key] = param. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_parameter_dict_set(glia_module *dict, const char *key, glia_tensor *param);
/** dict[key] (new reference). Errors: GLIA_ERR_NOT_FOUND. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_parameter_dict_get(glia_module *dict, const char *key, glia_tensor **out);
/**
 * dict.pop(key) / del dict[key]: *out receives the removed parameter (new
 * reference) unless out is NULL. Errors: GLIA_ERR_NOT_FOUND with torch 1.13's
 * AttributeError text ("'ParameterDict' object has no attribute 'key'").
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_parameter_dict_pop(glia_module *dict, const char *key, glia_tensor **out);
/**
 * clear() of a ModuleDict or ParameterDict (GLIA_ERR_INVALID_ARGUMENT for any
 * other module: "glia_nn_dict_clear: argument 'dict' is a Linear, expected a
 * ModuleDict or ParameterDict").
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_dict_clear(glia_module *dict);

/** len(container) for the five containers above. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_container_len(const glia_module *container, int64_t *out);

/**
 * torch.nn.DataParallel(module, device_ids, output_device, dim): one
 * process, several devices. A module whose child "module" is `module`
 * (state-dict keys "module.<name>"), called with glia_module_forward. Each
 * forward scatters every input along `dim` (torch.chunk's sizes, one chunk
 * per device; fewer chunks use fewer devices), runs `module` on each device
 * in parallel, one thread per device, with that device's copies of the
 * parameters and buffers (copied from device_ids[0] at every forward), and
 * gathers each output on `output_device` by concatenating along `dim` (0-d
 * outputs become a vector with one entry per device, with torch's
 * warning). Backward sums the replicas' gradients into the parameters of
 * `module`. Replica 0's buffers are the module's own, so BatchNorm's running
 * statistics follow the first device's chunk, as in torch. Hooks of `module`
 * and its children run once per device, on that device's thread.
 * `device_ids`: `num_devices` distinct devices of one type other than the
 * CPU; with one device, `module` is moved there now (torch's rule); with
 * none (device_ids may then be NULL), forward calls `module` as it is.
 * `output_device`: NULL for device_ids[0]; the CPU is allowed.
 * Errors here: GLIA_ERR_DEVICE (a CPU entry, mixed types, an index past the
 * backend's device count), GLIA_ERR_INVALID_ARGUMENT (a repeated device,
 * num_devices < 0). Errors of forward: GLIA_ERR_DEVICE (torch's "module must
 * have its parameters and buffers on device cuda:0 (device_ids[0]) but
 * found one of them on device: cpu"), GLIA_ERR_STATE (uninitialised lazy
 * parameters), and a replica's error with its code, prefixed "DataParallel:
 * caught an error in replica 1 on device cuda:1: ".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_data_parallel(glia_module *module, const glia_device *device_ids,
                                                          int64_t num_devices, const glia_device *output_device,
                                                          int64_t dim, glia_module **out);

/** @} */
/** @} */
/* ---- grid sampling and fractional max pooling (torch.nn.functional, issue 21) ---- */
/** The interpolation modes of glia_grid_sample (torch's mode strings). @since 0.2 */
typedef enum glia_grid_sample_mode GLIA_ENUM_BASE {
  GLIA_GRID_SAMPLE_BILINEAR = 0, /**< "bilinear" (trilinear for 5-D inputs) */
  GLIA_GRID_SAMPLE_NEAREST = 1,  /**< "nearest": the nearest pixel, ties to even */
  GLIA_GRID_SAMPLE_BICUBIC = 2   /**< "bicubic": 4-D inputs, Keys' kernel with A = -0.75 */
} glia_grid_sample_mode;

/** The padding modes of glia_grid_sample (torch's padding_mode strings). @since 0.2 */
typedef enum glia_grid_padding GLIA_ENUM_BASE {
  GLIA_GRID_PADDING_ZEROS = 0,     /**< "zeros": 0 outside the input */
  GLIA_GRID_PADDING_BORDER = 1,    /**< "border": the border pixel */
  GLIA_GRID_PADDING_REFLECTION = 2 /**< "reflection": reflected at the border */
} glia_grid_padding;

/**
 * torch.nn.functional.grid_sample(input, grid, mode, padding_mode, align_corners): input [N, C, H, W] sampled
 * at grid [N, Ho, Wo, 2] ((x, y) in [-1, 1]) gives [N, C, Ho, Wo]; input [N, C, D, H, W] with grid
 * [N, Do, Ho, Wo, 3] gives [N, C, Do, Ho, Wo]. float32 / float64, one dtype. align_corners: -1 for None
 * (False, logging torch's warning "Default grid_sample and affine_grid behavior has changed ..."), else
 * 0 / 1. Differentiable in input and grid (GridSampler2DBackward0 / GridSampler3DBackward0, first
 * derivatives). Errors with torch's messages: GLIA_ERR_SHAPE ("grid_sampler(): expected grid and input to
 * have same batch size, ...", the grid's last dimension, empty spatial dims, the number of dims,
 * "grid_sampler(): bicubic interpolation only supports 4D input"), GLIA_ERR_DTYPE (other dtypes, "expected
 * scalar type Double but found Float"), GLIA_ERR_DEVICE; GLIA_ERR_INVALID_ARGUMENT for an unknown mode,
 * padding or align_corners value.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_grid_sample(const glia_tensor *input, const glia_tensor *grid,
                                                     glia_grid_sample_mode mode, glia_grid_padding padding,
                                                     int32_t align_corners, glia_tensor **out);

/**
 * torch.nn.functional.affine_grid(theta, size, align_corners): the sampling grid of the affine maps theta
 * [N, 2, 3] for size [N, C, H, W] (result [N, H, W, 2]) or theta [N, 3, 4] for [N, C, D, H, W] ([N, D, H, W,
 * 3]); floating theta. align_corners as glia_grid_sample's (-1: None, with torch's warning); unit-size grids
 * with align_corners log torch's warning. Differentiable (AffineGridGeneratorBackward0, itself
 * differentiable). Errors with torch's messages: GLIA_ERR_INVALID_ARGUMENT ("Expected theta to have floating
 * point type, ...", "Expected a batch of 2D affine matrices of shape Nx2x3 for size [1, 1, 2, 2]. Got
 * torch.Size([1, 3, 3]).", "Expected non-zero, positive output size. Got [1, 1, 0, 2]"), GLIA_ERR_UNSUPPORTED
 * (a size of other length), GLIA_ERR_SHAPE (theta's batch is not size[0]).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_affine_grid(const glia_tensor *theta, const int64_t *size, int64_t n_size,
                                                     int32_t align_corners, glia_tensor **out);

/**
 * torch.nn.functional.fractional_max_pool2d(x, kernel_size, output_size, output_ratio, return_indices,
 * _random_samples) on x [N, C, H, W] or [C, H, W], float32 / float64. kernel_size: 1 value (square) or 2;
 * output_size (1 or 2 values) or output_ratio (1 or 2 values, the output size is int(input size * ratio)),
 * NULL with count 0 for None; output_size wins when both are given, as in torch's functional. random_samples: [N, C, 2]
 * in x's dtype (per plane the offsets of the w and the h windows, in [0, 1)), or NULL for uniform draws from glia's
 * generator (glia_manual_seed), as torch.rand. The window starts are torch's (int((i + u) * alpha) - int(u *
 * alpha), alpha = (in - k) / (out - 1), the last at in - k), so given the samples the result is torch's.
 * out_indices (NULL: not returned) the int64 flat positions in each H * W plane. Differentiable
 * (FractionalMaxPool2DBackward0). Errors with torch's messages: GLIA_ERR_INVALID_ARGUMENT (neither
 * output_size nor output_ratio; list lengths: "fractional_max_pool2d: kernel_size must either be a single
 * Int or tuple of Ints"; a kernel size <= 0 or samples outside [0, 1) that put a window outside x, where torch
 * reads out of bounds), GLIA_ERR_SHAPE ("fractional_max_pool2d(): Expected 3D or 4D tensor, but got: [7,
 * 8]", "fractional_max_pool2d(): pool height 2 too large relative to input height 7", random_samples of
 * another shape), GLIA_ERR_DTYPE.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_fractional_max_pool2d(const glia_tensor *x, const int64_t *kernel_size,
                                                               int64_t n_kernel_size, const int64_t *output_size,
                                                               int64_t n_output_size, const double *output_ratio,
                                                               int64_t n_output_ratio,
                                                               const glia_tensor *random_samples, glia_tensor **out,
                                                               glia_tensor **out_indices);
/**
 * torch.nn.functional.fractional_max_pool3d: as glia_fractional_max_pool2d on x [N, C, T, H, W] or [C, T, H,
 * W] with 1 or 3 values per list, random_samples [N, C, 3] (the t, h and w offsets) and indices flat in each
 * T * H * W volume (FractionalMaxPool3DBackward0; torch's "fractional_max_pool3d_out(): ..." messages).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_fractional_max_pool3d(const glia_tensor *x, const int64_t *kernel_size,
                                                               int64_t n_kernel_size, const int64_t *output_size,
                                                               int64_t n_output_size, const double *output_ratio,
                                                               int64_t n_output_ratio,
                                                               const glia_tensor *random_samples, glia_tensor **out,
                                                               glia_tensor **out_indices);

/**
 * torch.conv_tbc(input, weight, bias, pad) (also torch.nn.functional.conv_tbc): a 1-D convolution in time,
 * batch, channel layout: input [T, B, Cin], weight [K, Cin, Cout], bias [Cout] give [T + 2 * pad - K + 1, B,
 * Cout]; out[t, b, o] = bias[o] + sum_k sum_c input[t + k - pad, b, c] * weight[k, c, o] (zero outside the
 * input; a negative pad crops). float32 / float64 (glia's conv1d; torch also takes integers). Differentiable
 * in all three (ConvTbcBackward0, itself differentiable). Errors with torch's messages: GLIA_ERR_SHAPE
 * ("Input must have 3 dims: time, batch, in_channel", "Weight tensor must have 3 dims: kernel_width,
 * in_channels, out_channels.", "Bias must be 1-D", "Input dim 2 (input channels) is not == dim 1 in the weight
 * tensor", "Bias size must equal dim 2 in the weight tensor (output channels).", "Trying to create tensor with
 * negative dimension -1: [-1, 2, 4]"), GLIA_ERR_DTYPE.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_conv_tbc(const glia_tensor *input, const glia_tensor *weight,
                                                  const glia_tensor *bias, int64_t pad, glia_tensor **out);

/* ------------------------------------------------------------------------ */
/* torch.nn.init and torch.nn.utils                                           */
/* ------------------------------------------------------------------------ */
/** @addtogroup nn_init
 * @{ */

/*
 * In-place initialisers (torch.nn.init): they record no autograd history (as
 * under torch.no_grad), so they work on parameters that require grad, bump the
 * tensor's version and draw from the calling thread's generator
 * (glia_manual_seed). Floating tensors of any layout. Errors:
 * GLIA_ERR_INVALID_HANDLE, GLIA_ERR_DTYPE (integer tensor),
 * GLIA_ERR_INVALID_ARGUMENT with torch's text where torch raises.
 */
/** uniform_(t, a, b): U(a, b). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_uniform_(glia_tensor *tensor, double a, double b);
/** normal_(t, mean, std). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_normal_(glia_tensor *tensor, double mean, double std);
/** constant_(t, value). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_constant_(glia_tensor *tensor, double value);
/** ones_(t). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_ones_(glia_tensor *tensor);
/** zeros_(t). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_zeros_(glia_tensor *tensor);
/** eye_(t): the identity; 2-D only ("Only tensors with 2 dimensions are supported"). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_eye_(glia_tensor *tensor);
/**
 * dirac_(t, groups): the identity of a convolution weight [out, in, k...] (3-, 4- or 5-D):
 * zeros, and 1 at the kernel's centre of input channel d for output channel d of every
 * group, d < min(out / groups, in). Errors as torch's: "Only tensors with 3, 4, or 5
 * dimensions are supported", "dim 0 must be divisible by groups".
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_dirac_(glia_tensor *tensor, int64_t groups);
/**
 * sparse_(t, sparsity, std): 2-D; values from N(0, std), then in every column
 * ceil(sparsity * rows) entries at random rows set to zero (torch's sparse_, std 0.01 by
 * default there; the tensor stays dense). sparsity in [0, 1]. Draws from glia's generator,
 * so the values differ from torch's; the pattern and statistics are the same.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_sparse_(glia_tensor *tensor, double sparsity, double std);
/**
 * xavier_uniform_(t, gain): U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)).
 * dim >= 2 ("Fan in and fan out can not be computed for tensor with fewer than
 * 2 dimensions"). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_xavier_uniform_(glia_tensor *tensor, double gain);
/** xavier_normal_(t, gain): N(0, gain * sqrt(2 / (fan_in + fan_out))). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_xavier_normal_(glia_tensor *tensor, double gain);

/** Which fan kaiming_* scales by: GLIA_FAN_IN (torch's mode='fan_in') or GLIA_FAN_OUT ('fan_out'). */
typedef enum glia_fan_mode GLIA_ENUM_BASE { GLIA_FAN_IN = 0, GLIA_FAN_OUT = 1 } glia_fan_mode;

/**
 * kaiming_uniform_(t, a, mode, nonlinearity): U(-b, b), b = sqrt(3) *
 * calculate_gain(nonlinearity, a) / sqrt(fan). torch's defaults: a = 0,
 * GLIA_FAN_IN, "leaky_relu" (nonlinearity NULL means "leaky_relu"). A
 * zero-element tensor is left as is. Errors: "Unsupported nonlinearity foo".
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_kaiming_uniform_(glia_tensor *tensor, double a, glia_fan_mode mode,
                                                                  const char *nonlinearity);
/** kaiming_normal_(t, a, mode, nonlinearity): N(0, gain / sqrt(fan)). See kaiming_uniform_. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_kaiming_normal_(glia_tensor *tensor, double a, glia_fan_mode mode,
                                                                 const char *nonlinearity);
/**
 * orthogonal_(t, gain): a (semi-)orthogonal matrix times gain: t is viewed as
 * [size(0), numel / size(0)]; the rows (when rows <= cols) or the columns are
 * orthonormal. torch's method: QR of a normal matrix with Q's columns
 * multiplied by sign(diag(R)). dim >= 2 ("Only tensors with 2 or more
 * dimensions are supported").
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_orthogonal_(glia_tensor *tensor, double gain);
/**
 * trunc_normal_(t, mean, std, a, b): N(mean, std) truncated to [a, b]
 * (torch's defaults 0, 1, -2, 2) by torch's inverse-CDF method.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_trunc_normal_(glia_tensor *tensor, double mean, double std, double a,
                                                               double b);
/**
 * calculate_gain(nonlinearity, param): 1 for "linear", "conv1d/2d/3d",
 * "conv_transpose1d/2d/3d", "sigmoid"; 5/3 "tanh"; sqrt(2) "relu";
 * sqrt(2 / (1 + param^2)) "leaky_relu" (param NaN: torch's default 0.01);
 * 3/4 "selu". Errors: GLIA_ERR_INVALID_ARGUMENT ("Unsupported nonlinearity foo").
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_init_calculate_gain(const char *nonlinearity, double param, double *out);

/**
 * torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type,
 * error_if_nonfinite): the norm of all grads of `params` together (params
 * without a grad are skipped; norm_type may be INFINITY), then every grad is
 * scaled in place by min(1, max_norm / (total + 1e-6)). *out_total_norm (may
 * be NULL) receives the total norm (0 when no grad). With error_if_nonfinite
 * != 0 a NaN or infinite total is GLIA_ERR_INVALID_ARGUMENT with torch's text
 * and no grad changes.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_clip_grad_norm_(glia_tensor *const *params, int64_t n_params,
                                                                  double max_norm, double norm_type,
                                                                  int32_t error_if_nonfinite, double *out_total_norm);
/** torch.nn.utils.clip_grad_value_(params, clip_value): clamps each grad to [-clip_value, clip_value]. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_clip_grad_value_(glia_tensor *const *params, int64_t n_params,
                                                                   double clip_value);

/** @} */
/* ------------------------------------------------------------------------ */
/* Module tensor attributes / parametrizations (torch.nn.utils)              */
/* ------------------------------------------------------------------------ */
/** @addtogroup nn_init
 * @{ */

/**
 * torch's plain tensor attribute (`module.name = tensor` for a name that is no
 * parameter, buffer or child): the module keeps a reference to `tensor`, which
 * may be any tensor, a non-leaf one (computed with a graph) included. It is not
 * a parameter or buffer: not in iteration, state dicts or glia_module_to. A
 * built-in module's forward reads a weight it looks up by name (Linear's
 * "weight", Conv2d's "bias", ...) from the tensor attribute when no parameter
 * has that name, which is how weight_norm, spectral_norm, prune and
 * parametrize give a built-in a computed weight. Setting an existing attribute
 * replaces it. Errors: GLIA_ERR_INVALID_ARGUMENT when `name` is a parameter
 * (torch's text: "cannot assign 'torch.FloatTensor' as parameter 'weight'
 * (torch.nn.Parameter or None expected)"), a buffer or a child ("attribute 'x'
 * already exists"), empty or contains '.'; registering a parameter, buffer or
 * child of a tensor attribute's name fails the same way. Not thread-safe with a
 * concurrent forward of the module.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_set_tensor_attribute(glia_module *module, const char *name,
                                                                     const glia_tensor *tensor);
/**
 * The tensor attribute `name` (a new reference). Errors: GLIA_ERR_NOT_FOUND
 * ("'Linear' object has no attribute 'x'").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_get_tensor_attribute(const glia_module *module, const char *name,
                                                                     glia_tensor **out);
/**
 * Removes the tensor attribute `name` (glia_module_remove also removes one).
 * Errors: GLIA_ERR_NOT_FOUND ("'Linear' object has no attribute 'x'").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_remove_tensor_attribute(glia_module *module, const char *name);
/**
 * Replaces the value of parameter or buffer `name` in place, without
 * glia_module_register_parameter's checks (`tensor` may be any tensor, a
 * non-leaf one included, or NULL), and writes the previous value to
 * *out_previous (a new reference; NULL when the entry was reserved): what
 * torch.nn.utils.stateless.functional_call substitutes for one call, and
 * swaps back afterwards. The entry keeps its place, kind and persistence.
 * Errors: GLIA_ERR_NOT_FOUND ("'Linear' object has no parameter or buffer
 * 'x'"). Not thread-safe with a concurrent forward of the module.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_module_swap_tensor(glia_module *module, const char *name,
                                                            const glia_tensor *tensor, glia_tensor **out_previous);

/**
 * torch.nn.utils.weight_norm(module, name, dim) (1.13's hook form): parameter
 * `name` is replaced by parameters name_g = norm_except_dim(w, 2, dim) and
 * name_v = w (appended in that order), and `name` becomes a tensor attribute
 * v * (g / norm_except_dim(v, 2, dim)) recomputed by a forward pre-hook
 * before every call. dim -1 (torch's dim=None) is the norm over the whole
 * tensor; other negative dims are torch's (transposed to the front). Errors:
 * GLIA_ERR_STATE ("Cannot register two weight_norm hooks on the same parameter
 * weight"), GLIA_ERR_NOT_FOUND when `name` is no parameter, a dim out of range
 * as torch's transpose reports it. Nothing changes on error. The hook writes
 * the module's tensor attribute, so a weight-normed (or spectral-normed)
 * module must not run forward from several threads at once.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_weight_norm(glia_module *module, const char *name, int64_t dim);
/**
 * torch.nn.utils.remove_weight_norm: `name` is a parameter again holding the
 * computed weight; name_g, name_v and the hook go. Errors: GLIA_ERR_NOT_FOUND
 * ("weight_norm of 'weight' not found in Linear(...)", the module's repr).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_remove_weight_norm(glia_module *module, const char *name);
/**
 * torch.nn.utils.spectral_norm(module, name, n_power_iterations, eps, dim)
 * (torch's defaults 1, 1e-12, None): parameter `name` becomes name_orig (the
 * same tensor), buffers name_u, name_v are drawn from N(0, 1) with glia's
 * generator and normalised, and `name` becomes a tensor attribute
 * name_orig / sigma recomputed by a forward pre-hook; in training mode the hook
 * first runs n_power_iterations steps of power iteration updating name_u and
 * name_v in place, in eval mode it uses them as stored. has_dim == 0 is
 * torch's dim=None (1 for ConvTranspose1d/2d/3d, else 0). A torch >= 1.1
 * checkpoint (name_orig, name_u, name_v) loads as it is. Errors:
 * GLIA_ERR_STATE (two spectral_norm hooks on one name),
 * GLIA_ERR_INVALID_ARGUMENT ("Expected n_power_iterations to be positive, but
 * got n_power_iterations=0"), GLIA_ERR_NOT_FOUND when `name` is no parameter.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_spectral_norm(glia_module *module, const char *name,
                                                                int64_t n_power_iterations, double eps, int32_t has_dim,
                                                                int64_t dim);
/**
 * torch.nn.utils.remove_spectral_norm: `name` is a parameter again holding
 * name_orig / sigma from the stored u, v. Errors: GLIA_ERR_NOT_FOUND
 * ("spectral_norm of 'weight' not found in Linear(...)").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_remove_spectral_norm(glia_module *module, const char *name);
/**
 * torch.nn.utils.parameters_to_vector: the parameters flattened and
 * concatenated into one new 1-D tensor (differentiable). Errors:
 * GLIA_ERR_INVALID_ARGUMENT ("Found two parameters on different devices, this
 * is currently not supported.").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_parameters_to_vector(glia_tensor *const *params, int64_t n_params,
                                                                       glia_tensor **out);
/**
 * torch.nn.utils.vector_to_parameters(vec, params): each parameter's data
 * becomes the next numel() elements of vec (torch's `param.data = ...`: the
 * parameters then share vec's storage; each keeps its identity and grad).
 * A vec too short is the view's shape error and changes no parameter.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_utils_vector_to_parameters(const glia_tensor *vec,
                                                                       glia_tensor *const *params, int64_t n_params);

/** @} */
/* ------------------------------------------------------------------------ */
/* Optimizers and LR schedulers (torch.optim)                                 */
/* ------------------------------------------------------------------------ */
/** @addtogroup optimizers
 * @{ */

/*
 * An optimizer updates the tensors it was given from their .grad: step()
 * follows torch's single-tensor update exactly (fused into one pass per
 * parameter), records no autograd history, skips tensors whose grad is
 * NULL and bumps the version of every tensor it updates. Parameters must be
 * leaves (GLIA_ERR_INVALID_ARGUMENT "can't optimize a non-leaf Tensor") and
 * appear in one group only. Option errors are torch's ValueError texts
 * ("Invalid learning rate: -1.0") with GLIA_ERR_INVALID_ARGUMENT. An empty
 * list is "optimizer got an empty parameter list". Options structs: NULL
 * means torch's defaults; the library reads only the fields struct_size covers.
 */
/** An optimizer (torch.optim.Optimizer). */
typedef struct glia_optimizer glia_optimizer;

/** Options of glia_optim_sgd. Initialise with glia_sgd_options_init(). */
typedef struct glia_sgd_options {
  /** sizeof(glia_sgd_options), set by glia_sgd_options_init(). */
  size_t struct_size;
  double lr;           /**< default 0.001 (torch 2.x's default; torch 1.13 requires it) */
  double momentum;     /**< default 0 */
  double dampening;    /**< default 0 */
  double weight_decay; /**< default 0 */
  int32_t nesterov;    /**< default 0; needs momentum > 0 and dampening 0 */
  int32_t maximize;    /**< default 0 */
} glia_sgd_options;
/** Sets torch's defaults and struct_size. @since 0.1 */
GLIA_API void glia_sgd_options_init(glia_sgd_options *options);

/** Options of glia_optim_adam and glia_optim_adamw. Initialise with glia_adam_options_init() /
 * glia_adamw_options_init(). */
typedef struct glia_adam_options {
  /** sizeof(glia_adam_options), set by glia_adam_options_init(). */
  size_t struct_size;
  double lr;           /**< default 0.001 */
  double betas[2];     /**< default {0.9, 0.999}; each in [0, 1) */
  double eps;          /**< default 1e-8 */
  double weight_decay; /**< default 0 (Adam), 0.01 (AdamW) */
  int32_t amsgrad;     /**< default 0 */
  int32_t maximize;    /**< default 0 */
} glia_adam_options;
/** AdamW takes the same options (weight_decay is decoupled, default 0.01). */
typedef glia_adam_options glia_adamw_options;
/** Sets torch's Adam defaults and struct_size. @since 0.1 */
GLIA_API void glia_adam_options_init(glia_adam_options *options);
/** Sets torch's AdamW defaults (weight_decay 0.01) and struct_size. @since 0.1 */
GLIA_API void glia_adamw_options_init(glia_adamw_options *options);

/** Options of glia_optim_rmsprop. Initialise with glia_rmsprop_options_init(). */
typedef struct glia_rmsprop_options {
  /** sizeof(glia_rmsprop_options), set by glia_rmsprop_options_init(). */
  size_t struct_size;
  double lr;           /**< default 0.01 */
  double alpha;        /**< default 0.99 */
  double eps;          /**< default 1e-8 */
  double weight_decay; /**< default 0 */
  double momentum;     /**< default 0 */
  int32_t centered;    /**< default 0 */
  int32_t maximize;    /**< default 0 */
} glia_rmsprop_options;
/** Sets torch's defaults and struct_size. @since 0.1 */
GLIA_API void glia_rmsprop_options_init(glia_rmsprop_options *options);

/**
 * torch.optim.SGD(params, ...): one parameter group of the n tensors (the
 * optimizer retains them). options NULL: defaults. Errors: "Invalid learning
 * rate: -1.0", "Invalid momentum value: -0.5", "Invalid weight_decay value:
 * ...", "Nesterov momentum requires a momentum and zero dampening".
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_sgd(glia_tensor *const *params, int64_t n_params,
                                                   const glia_sgd_options *options, glia_optimizer **out);
/**
 * torch.optim.Adam. Errors as torch: "Invalid learning rate", "Invalid
 * epsilon value", "Invalid beta parameter at index 0: 1.0", "Invalid
 * weight_decay value". @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_adam(glia_tensor *const *params, int64_t n_params,
                                                    const glia_adam_options *options, glia_optimizer **out);
/** torch.optim.AdamW (decoupled weight decay). options NULL: AdamW's defaults. See glia_optim_adam. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_adamw(glia_tensor *const *params, int64_t n_params,
                                                     const glia_adamw_options *options, glia_optimizer **out);
/** torch.optim.RMSprop. Errors as torch ("Invalid alpha value: -0.1", ...). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_rmsprop(glia_tensor *const *params, int64_t n_params,
                                                       const glia_rmsprop_options *options, glia_optimizer **out);

/*
 * torch 1.13's other optimizers: Adadelta, Adagrad, Adamax, ASGD, NAdam, RAdam
 * and Rprop, with the same rules as above (options structs with torch's
 * defaults, torch's ValueError texts, state-dict layout). glia keeps every
 * "step" as a float32 0-dim tensor (torch 1.13's Adadelta and Rprop keep a
 * Python int). Pair options are addressed in glia_optimizer_get_option by
 * "beta1"/"beta2", "etaminus"/"etaplus" (etas) and "step_size_min"/
 * "step_size_max" (step_sizes).
 */
/** Options of glia_optim_adadelta. Initialise with glia_adadelta_options_init(). */
typedef struct glia_adadelta_options {
  /** sizeof(glia_adadelta_options), set by glia_adadelta_options_init(). */
  size_t struct_size;
  double lr;           /**< default 1.0 */
  double rho;          /**< default 0.9; in [0, 1] */
  double eps;          /**< default 1e-6 */
  double weight_decay; /**< default 0 */
  int32_t maximize;    /**< default 0 */
} glia_adadelta_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_adadelta_options_init(glia_adadelta_options *options);

/** Options of glia_optim_adagrad. Initialise with glia_adagrad_options_init(). */
typedef struct glia_adagrad_options {
  /** sizeof(glia_adagrad_options), set by glia_adagrad_options_init(). */
  size_t struct_size;
  double lr;                        /**< default 0.01 */
  double lr_decay;                  /**< default 0 */
  double weight_decay;              /**< default 0 */
  double initial_accumulator_value; /**< default 0 */
  double eps;                       /**< default 1e-10 */
  int32_t maximize;                 /**< default 0 */
} glia_adagrad_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_adagrad_options_init(glia_adagrad_options *options);

/** Options of glia_optim_adamax. Initialise with glia_adamax_options_init(). */
typedef struct glia_adamax_options {
  /** sizeof(glia_adamax_options), set by glia_adamax_options_init(). */
  size_t struct_size;
  double lr;           /**< default 0.002 */
  double betas[2];     /**< default {0.9, 0.999}; each in [0, 1) */
  double eps;          /**< default 1e-8 */
  double weight_decay; /**< default 0 */
  int32_t maximize;    /**< default 0 */
} glia_adamax_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_adamax_options_init(glia_adamax_options *options);

/** Options of glia_optim_asgd. Initialise with glia_asgd_options_init(). */
typedef struct glia_asgd_options {
  /** sizeof(glia_asgd_options), set by glia_asgd_options_init(). */
  size_t struct_size;
  double lr;           /**< default 0.01 */
  double lambd;        /**< default 1e-4 (decay term) */
  double alpha;        /**< default 0.75 (power for the eta update) */
  double t0;           /**< default 1e6 (the step at which averaging starts) */
  double weight_decay; /**< default 0 */
  int32_t maximize;    /**< default 0 */
} glia_asgd_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_asgd_options_init(glia_asgd_options *options);

/** Options of glia_optim_nadam (torch 1.13's NAdam has no maximize). Initialise with glia_nadam_options_init(). */
typedef struct glia_nadam_options {
  /** sizeof(glia_nadam_options), set by glia_nadam_options_init(). */
  size_t struct_size;
  double lr;             /**< default 0.002 */
  double betas[2];       /**< default {0.9, 0.999}; each in [0, 1) */
  double eps;            /**< default 1e-8 */
  double weight_decay;   /**< default 0 */
  double momentum_decay; /**< default 0.004 */
} glia_nadam_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_nadam_options_init(glia_nadam_options *options);

/** Options of glia_optim_radam (torch 1.13's RAdam has no maximize). Initialise with glia_radam_options_init(). */
typedef struct glia_radam_options {
  /** sizeof(glia_radam_options), set by glia_radam_options_init(). */
  size_t struct_size;
  double lr;           /**< default 0.001 */
  double betas[2];     /**< default {0.9, 0.999}; each in [0, 1) */
  double eps;          /**< default 1e-8 */
  double weight_decay; /**< default 0 */
} glia_radam_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_radam_options_init(glia_radam_options *options);

/** Options of glia_optim_rprop. Initialise with glia_rprop_options_init(). */
typedef struct glia_rprop_options {
  /** sizeof(glia_rprop_options), set by glia_rprop_options_init(). */
  size_t struct_size;
  double lr;            /**< default 0.01 (the initial step size) */
  double etas[2];       /**< default {0.5, 1.2} (etaminus, etaplus); 0 < etaminus < 1 < etaplus */
  double step_sizes[2]; /**< default {1e-6, 50} (the smallest and largest step size) */
  int32_t maximize;     /**< default 0 */
} glia_rprop_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_rprop_options_init(glia_rprop_options *options);

/**
 * torch.optim.Adadelta. State "step", "square_avg", "acc_delta". Errors as
 * torch: "Invalid learning rate: -1.0", "Invalid rho value: 1.5", "Invalid
 * epsilon value", "Invalid weight_decay value". @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_adadelta(glia_tensor *const *params, int64_t n_params,
                                                        const glia_adadelta_options *options, glia_optimizer **out);
/**
 * torch.optim.Adagrad. As torch, the state ("step", "sum" filled with
 * initial_accumulator_value) of every parameter is created here; a parameter
 * of a group added later gets it on its first step. Errors as torch: "Invalid
 * learning rate", "Invalid lr_decay value", "Invalid weight_decay value",
 * "Invalid initial_accumulator_value value", "Invalid epsilon value". @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_adagrad(glia_tensor *const *params, int64_t n_params,
                                                       const glia_adagrad_options *options, glia_optimizer **out);
/**
 * torch.optim.Adamax. State "step", "exp_avg", "exp_inf". Errors as torch
 * ("Invalid beta parameter at index 0: 1.0", ...). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_adamax(glia_tensor *const *params, int64_t n_params,
                                                      const glia_adamax_options *options, glia_optimizer **out);
/**
 * torch.optim.ASGD. State "step", "eta", "mu" (float32 0-dim, as torch) and
 * "ax" (the average). Errors as torch ("Invalid learning rate", "Invalid
 * weight_decay value"). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_asgd(glia_tensor *const *params, int64_t n_params,
                                                    const glia_asgd_options *options, glia_optimizer **out);
/**
 * torch.optim.NAdam. State "step", "mu_product" (float32 0-dim, as torch),
 * "exp_avg", "exp_avg_sq". Errors as torch (..., "Invalid momentum_decay
 * value: -0.1"). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_nadam(glia_tensor *const *params, int64_t n_params,
                                                     const glia_nadam_options *options, glia_optimizer **out);
/** torch.optim.RAdam. State "step", "exp_avg", "exp_avg_sq". Errors as torch. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_radam(glia_tensor *const *params, int64_t n_params,
                                                     const glia_radam_options *options, glia_optimizer **out);
/**
 * torch.optim.Rprop. State "step", "prev", "step_size". Errors as torch:
 * "Invalid learning rate", "Invalid eta values: 1.5, 1.2". @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_rprop(glia_tensor *const *params, int64_t n_params,
                                                     const glia_rprop_options *options, glia_optimizer **out);

/** Options of glia_optim_lbfgs. Initialise with glia_lbfgs_options_init(). */
typedef struct glia_lbfgs_options {
  /** sizeof(glia_lbfgs_options), set by glia_lbfgs_options_init(). */
  size_t struct_size;
  double lr;               /**< default 1 */
  int64_t max_iter;        /**< default 20 (iterations per step) */
  int64_t max_eval;        /**< default -1: torch's None, max_iter * 5 / 4 (closure evaluations per step) */
  double tolerance_grad;   /**< default 1e-7 (stop when max |grad| is at most this) */
  double tolerance_change; /**< default 1e-9 */
  int64_t history_size;    /**< default 100 */
  int32_t line_search_fn;  /**< default 0: None (fixed step lr); 1: "strong_wolfe" */
} glia_lbfgs_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_lbfgs_options_init(glia_lbfgs_options *options);
/**
 * torch.optim.LBFGS: one parameter group only (add_param_group works, but a
 * step then fails with "LBFGS doesn't support per-parameter options
 * (parameter groups)"). Step it with glia_optimizer_step_closure;
 * glia_optimizer_step fails with torch's "step() missing 1 required
 * positional argument: 'closure'". Its state lives under the first
 * parameter ("state.0."): "func_evals", "n_iter" (int64 0-dim), "d", "t"
 * (float64 0-dim), "old_dirs", "old_stps" (torch's lists of [N] tensors
 * stacked to [k, N], N the number of elements of all parameters), "ro" ([k]),
 * "H_diag", "prev_flat_grad", "prev_loss" (float64 0-dim); torch's scratch
 * list "al" is left out. The group's options hold max_eval resolved (as
 * torch) and line_search_fn as 0 or 1. Errors: "only 'strong_wolfe' is
 * supported" (line_search_fn other than 0 or 1).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optim_lbfgs(glia_tensor *const *params, int64_t n_params,
                                                     const glia_lbfgs_options *options, glia_optimizer **out);
/**
 * A closure for glia_optimizer_step_closure (torch's step(closure)): it
 * re-evaluates the model, computes the gradients (zero_grad, forward,
 * backward) and writes the loss to *out_loss. Return NULL, or an error made
 * with glia_error_new to stop the step. Grad mode is on while it runs.
 */
typedef glia_error *(*glia_optimizer_closure_fn)(void *user_data, double *out_loss);
/**
 * step(closure): runs the closure (grad mode on) and steps. Every optimizer
 * takes it (the closure runs once, then glia_optimizer_step); LBFGS calls it
 * as often as its iterations and line search need. Writes the closure's
 * first loss (torch's return value) to out_loss unless it is NULL. Not
 * all-or-nothing for LBFGS: a failing closure (GLIA_ERR_CALLBACK, its message
 * carried) leaves the parameters where the iterations so far took them.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_step_closure(glia_optimizer *optimizer,
                                                                glia_optimizer_closure_fn closure, void *user_data,
                                                                double *out_loss);

/** Adds a reference. Errors: GLIA_ERR_INVALID_HANDLE. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_retain(glia_optimizer *optimizer);
/** Drops a reference (NULL is accepted). @since 0.1 */
GLIA_API glia_error *glia_optimizer_release(glia_optimizer *optimizer);
/**
 * step(): one update of every parameter that has a grad. All-or-nothing: when
 * it fails (GLIA_ERR_OUT_OF_MEMORY creating the state or a working copy,
 * GLIA_ERR_DTYPE) parameters and state are as they were, and the next step is
 * safe. The one exception is a host job system (glia_set_parallel_for) whose
 * call fails during the update itself: the chunks that ran have updated
 * their elements.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_step(glia_optimizer *optimizer);
/** zero_grad(set_to_none): clears (set_to_none != 0, torch's default) or zeroes every grad. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_zero_grad(glia_optimizer *optimizer, int32_t set_to_none);
/**
 * add_param_group: a new group of the n tensors. options points to the
 * optimizer's own options struct type (glia_sgd_options for SGD, ...) or is
 * NULL for the optimizer's defaults (the options it was created with).
 * Errors: "some parameters appear in more than one parameter group", the
 * option errors of the constructor.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_add_param_group(glia_optimizer *optimizer,
                                                                   glia_tensor *const *params, int64_t n_params,
                                                                   const void *options);
/** Number of parameter groups. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_num_param_groups(const glia_optimizer *optimizer, int64_t *out);
/** The lr of group `group`. Errors: GLIA_ERR_INVALID_ARGUMENT (index). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_get_lr(const glia_optimizer *optimizer, int64_t group, double *out);
/** Sets the lr of group `group` (param_group['lr'] = lr). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_set_lr(glia_optimizer *optimizer, int64_t group, double lr);
/**
 * param_groups[group][name], read or written by name: "lr", "momentum",
 * "dampening", "weight_decay", "eps", "alpha", "beta1" and "beta2" (betas[0]
 * and betas[1]), the flags "nesterov", "amsgrad", "centered", "maximize" (0 or
 * 1), and "initial_lr" (present once a scheduler set it; set_option may set it
 * at any time, with no check) — each where the optimizer has it. set_option
 * checks the group with the new value as the constructor does; on error
 * nothing changes. The next step() uses the new values. Errors:
 * GLIA_ERR_INVALID_ARGUMENT (group index; a name the optimizer lacks: "SGD has
 * no option 'betas'"; torch's constructor texts: "Invalid learning rate: -1.0",
 * "Invalid beta parameter at index 1: 1.0", "Nesterov momentum requires a
 * momentum and zero dampening"; a flag other than 0 or 1: "option 'nesterov'
 * is a flag: expected 0 or 1, got 2.0"), GLIA_ERR_NOT_FOUND (get_option of an
 * absent "initial_lr": "'initial_lr'").
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_get_option(const glia_optimizer *optimizer, int64_t group,
                                                              const char *name, double *out);
/** See glia_optimizer_get_option. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_set_option(glia_optimizer *optimizer, int64_t group,
                                                              const char *name, double value);
/**
 * state_dict() flattened into a new dict, in torch's order: per-parameter
 * state "state.<index>.<name>" (index counts the parameters of all groups in
 * order; names as torch's: "step" (float32 0-dim), "momentum_buffer",
 * "exp_avg", "exp_avg_sq", "max_exp_avg_sq", "square_avg", "grad_avg";
 * torch's momentum_buffer None is left out), then "param_groups.<g>.<option>"
 * (float64 0-dim; "betas" a float64 [2]; flags 0 or 1; "initial_lr" once a
 * scheduler set it) and "param_groups.<g>.params" (int64 indices). State
 * values are the optimizer's own tensors (not copies), as in torch.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_state_dict(const glia_optimizer *optimizer, glia_tensor_dict **out);
/**
 * load_state_dict(dict): torch's rules (copies of the state cast to each
 * parameter's dtype; the groups' options replaced by the loaded ones; saved
 * parameter indices mapped to the current parameters by position).
 * All-or-nothing. Errors: GLIA_ERR_INVALID_ARGUMENT ("loaded state dict has a
 * different number of parameter groups", "loaded state dict contains a
 * parameter group that doesn't match the size of optimizer's group", a
 * missing or unknown option, bad keys; torch's flags "foreach",
 * "differentiable", "capturable", "fused" are ignored), GLIA_ERR_SHAPE (a
 * state tensor not shaped like its parameter).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_optimizer_load_state_dict(glia_optimizer *optimizer,
                                                                   const glia_tensor_dict *dict);

/**
 * LR schedulers (torch.optim.lr_scheduler). Creating one sets each group's
 * "initial_lr" (when absent) and performs torch's initial step (which sets
 * the lrs of epoch 0); glia_lr_scheduler_step then advances one epoch with
 * torch's chainable formula from the groups' current lrs. The scheduler
 * retains its optimizer.
 */
typedef struct glia_lr_scheduler glia_lr_scheduler;

/** StepLR(step_size, gamma): lr *= gamma every step_size epochs (step_size >= 1; torch's gamma 0.1). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_step_lr(glia_optimizer *optimizer, int64_t step_size,
                                                              double gamma, glia_lr_scheduler **out);
/** MultiStepLR(milestones, gamma): lr *= gamma^count at each milestone epoch (repeats count). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_multi_step_lr(glia_optimizer *optimizer,
                                                                    const int64_t *milestones, int64_t n_milestones,
                                                                    double gamma, glia_lr_scheduler **out);
/** CosineAnnealingLR(T_max, eta_min) (T_max >= 1; torch's eta_min 0). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_cosine_annealing_lr(glia_optimizer *optimizer, int64_t t_max,
                                                                          double eta_min, glia_lr_scheduler **out);
/**
 * LinearLR(start_factor, end_factor, total_iters) (torch's 1/3, 1.0, 5).
 * Errors: "Starting multiplicative factor expected to be between 0 and 1."
 * (and "Ending ..."). @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_linear_lr(glia_optimizer *optimizer, double start_factor,
                                                                double end_factor, int64_t total_iters,
                                                                glia_lr_scheduler **out);
/** step(): the next epoch's lrs into the optimizer's groups. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_step(glia_lr_scheduler *scheduler);
/** get_last_lr()[group]. Errors: GLIA_ERR_INVALID_ARGUMENT (index). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_get_last_lr(const glia_lr_scheduler *scheduler, int64_t group,
                                                                  double *out);
/** last_epoch (0 after construction, +1 per step). @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_get_last_epoch(const glia_lr_scheduler *scheduler, int64_t *out);
/**
 * state_dict() as a new dict: "last_epoch", "_step_count" (int64 0-dim),
 * "base_lrs", "_last_lr" (float64 [groups]), then the scheduler's settings:
 * StepLR "step_size" (int64), "gamma"; MultiStepLR "milestones" (int64 [k],
 * sorted, repeats kept), "gamma"; CosineAnnealingLR "T_max" (int64),
 * "eta_min"; LinearLR "start_factor", "end_factor", "total_iters" (int64);
 * others float64 0-dim.
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_state_dict(const glia_lr_scheduler *scheduler,
                                                                 glia_tensor_dict **out);
/**
 * load_state_dict(dict): replaces the scheduler's state and settings with the
 * dict's (every key of glia_lr_scheduler_state_dict is required; torch's
 * "verbose" and "_get_lr_called_within_step" are ignored). The optimizer's
 * lrs are not changed: load the optimizer's own state dict to resume.
 * All-or-nothing. Errors: GLIA_ERR_INVALID_ARGUMENT (a missing key: "loaded
 * scheduler state dict is missing "gamma"", an unknown key, a count of
 * base_lrs other than the scheduler's, the constructor's range errors).
 * @since 0.1
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_load_state_dict(glia_lr_scheduler *scheduler,
                                                                      const glia_tensor_dict *dict);
/** Adds a reference. @since 0.1 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_retain(glia_lr_scheduler *scheduler);
/** Drops a reference (NULL is accepted). @since 0.1 */
GLIA_API glia_error *glia_lr_scheduler_release(glia_lr_scheduler *scheduler);

/* ---- more LR schedulers (torch.optim.lr_scheduler, issue 21) -------------- */
/*
 * torch 1.13's formulas, checks and messages. The state dicts of
 * glia_lr_scheduler_state_dict carry torch's keys; where torch keeps a string
 * or a function, glia keeps an int64 code (named with each constructor). A
 * step whose host callback fails returns GLIA_ERR_CALLBACK and changes
 * nothing (neither the scheduler, its sub-schedulers nor the groups).
 */

/** ExponentialLR(gamma): lr *= gamma every epoch. State: "gamma". @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_exponential_lr(glia_optimizer *optimizer, double gamma,
                                                                     glia_lr_scheduler **out);
/**
 * PolynomialLR(total_iters, power) (torch's 5, 1.0): the lr decays to 0 over
 * total_iters epochs as (1 - epoch / total_iters)^power. State:
 * "total_iters" (int64), "power". @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_polynomial_lr(glia_optimizer *optimizer, int64_t total_iters,
                                                                    double power, glia_lr_scheduler **out);
/**
 * ConstantLR(factor, total_iters) (torch's 1/3, 5): lr * factor until epoch
 * total_iters. Errors: "Constant multiplicative factor expected to be between
 * 0 and 1.". State: "factor", "total_iters" (int64). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_constant_lr(glia_optimizer *optimizer, double factor,
                                                                  int64_t total_iters, glia_lr_scheduler **out);

/**
 * LambdaLR's and MultiplicativeLR's lr_lambda: writes the factor of group
 * `group` (torch's lr_lambda[group]) at `epoch` to *out. An error it returns
 * fails the step (or the constructor, whose initial step calls it).
 * @since 0.2
 */
typedef glia_error *(*glia_lr_lambda_fn)(void *user_data, int64_t group, int64_t epoch, double *out);
/**
 * LambdaLR(lr_lambda): lr = initial_lr * lr_lambda(epoch). free_user_data
 * (may be NULL) runs exactly once: when the scheduler dies, or right away if
 * this call fails. State: torch's keys but "lr_lambdas" (a function is not
 * state). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_lambda_lr(glia_optimizer *optimizer, glia_lr_lambda_fn fn,
                                                                void *user_data, void (*free_user_data)(void *),
                                                                glia_lr_scheduler **out);
/** MultiplicativeLR(lr_lambda): lr *= lr_lambda(epoch) from epoch 1. As glia_lr_scheduler_lambda_lr. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_multiplicative_lr(glia_optimizer *optimizer, glia_lr_lambda_fn fn,
                                                                        void *user_data, void (*free_user_data)(void *),
                                                                        glia_lr_scheduler **out);
/**
 * SequentialLR(optimizer, schedulers, milestones): schedulers[i] runs from
 * milestones[i - 1] on (restarted there with step(0)). Retains the
 * schedulers. Errors: "Sequential Schedulers expects all schedulers to
 * belong to the same optimizer, but got schedulers at index 1 to be different
 * than the optimizer passed in.", "... expects number of schedulers provided
 * to be one more than the number of milestone points, ...". State:
 * "_milestones" (int64 [k]), "last_epoch", "_last_lr", and each scheduler's
 * state under "_schedulers.<i>.". @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_sequential_lr(glia_optimizer *optimizer,
                                                                    glia_lr_scheduler *const *schedulers,
                                                                    int64_t n_schedulers, const int64_t *milestones,
                                                                    int64_t n_milestones, glia_lr_scheduler **out);
/**
 * ChainedScheduler(schedulers): one step steps each scheduler in turn.
 * Retains them. glia_lr_scheduler_get_last_epoch fails (torch's
 * ChainedScheduler has no last_epoch). Errors: "ChainedScheduler expects all
 * schedulers to belong to the same optimizer, but got schedulers at index 0
 * and 1 to be different". State: "_last_lr", "_schedulers.<i>.". @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_chained_scheduler(glia_lr_scheduler *const *schedulers,
                                                                        int64_t n_schedulers, glia_lr_scheduler **out);

/** ReduceLROnPlateau's mode (torch's strings); state dict code as the value. */
typedef enum glia_plateau_mode GLIA_ENUM_BASE {
  GLIA_PLATEAU_MIN = 0, /**< "min": reduce when the metric stops decreasing (torch's default) */
  GLIA_PLATEAU_MAX = 1  /**< "max": reduce when the metric stops increasing */
} glia_plateau_mode;
/** ReduceLROnPlateau's threshold_mode (torch's strings); state dict code as the value. */
typedef enum glia_threshold_mode GLIA_ENUM_BASE {
  GLIA_THRESHOLD_REL = 0, /**< "rel": best * (1 -/+ threshold) (torch's default) */
  GLIA_THRESHOLD_ABS = 1  /**< "abs": best -/+ threshold */
} glia_threshold_mode;
/** Options of glia_lr_scheduler_reduce_lr_on_plateau. Initialise with glia_reduce_lr_on_plateau_options_init(). */
typedef struct glia_reduce_lr_on_plateau_options {
  /** sizeof(glia_reduce_lr_on_plateau_options), set by the init function. */
  size_t struct_size;
  glia_plateau_mode mode;             /**< default GLIA_PLATEAU_MIN */
  double factor;                      /**< default 0.1 */
  int64_t patience;                   /**< default 10 */
  double threshold;                   /**< default 1e-4 */
  glia_threshold_mode threshold_mode; /**< default GLIA_THRESHOLD_REL */
  int64_t cooldown;                   /**< default 0 */
  double min_lr;                      /**< default 0: every group's lower bound (when min_lrs is NULL) */
  const double *min_lrs;              /**< default NULL; else one lower bound per group (n_min_lrs of them) */
  int64_t n_min_lrs;                  /**< default 0 */
  double eps;                         /**< default 1e-8 */
} glia_reduce_lr_on_plateau_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_reduce_lr_on_plateau_options_init(glia_reduce_lr_on_plateau_options *options);
/**
 * ReduceLROnPlateau(optimizer, ...): step with glia_lr_scheduler_step_metric.
 * Sets no initial_lr (torch's is no _LRScheduler). options NULL: defaults.
 * Errors: "Factor should be < 1.0.", "expected 2 min_lrs, got 3", "mode 7 is
 * unknown!", "threshold mode 7 is unknown!". State: "factor", "min_lrs",
 * "patience", "cooldown", "cooldown_counter", "mode" (int64 code),
 * "threshold", "threshold_mode" (int64 code), "best", "num_bad_epochs",
 * "mode_worse", "eps", "last_epoch", and "_last_lr" once stepped (before the
 * first step torch has none, and glia_lr_scheduler_get_last_lr fails).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_reduce_lr_on_plateau(
    glia_optimizer *optimizer, const glia_reduce_lr_on_plateau_options *options, glia_lr_scheduler **out);
/**
 * ReduceLROnPlateau.step(metrics). Other schedulers: GLIA_ERR_INVALID_ARGUMENT
 * (and glia_lr_scheduler_step on ReduceLROnPlateau is torch's "step() missing
 * 1 required positional argument: 'metrics'"). @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_step_metric(glia_lr_scheduler *scheduler, double metric);
/**
 * step(epoch): torch's deprecated form: last_epoch = epoch and the closed
 * form where torch has one (_get_closed_form_lr: StepLR, MultiStepLR,
 * ConstantLR, LinearLR, ExponentialLR, PolynomialLR, CosineAnnealingLR), else
 * the chainable get_lr. CosineAnnealingWarmRestarts takes fractional epochs
 * (torch's step(epoch + i / iters); "Expected non-negative epoch, but got
 * -1.0"); the others an integer. SequentialLR, ChainedScheduler and
 * ReduceLROnPlateau: GLIA_ERR_INVALID_ARGUMENT. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_step_epoch(glia_lr_scheduler *scheduler, double epoch);

/** CyclicLR's mode (torch's strings); state dict code as the value. */
typedef enum glia_cyclic_mode GLIA_ENUM_BASE {
  GLIA_CYCLIC_TRIANGULAR = 0,  /**< "triangular" (torch's default) */
  GLIA_CYCLIC_TRIANGULAR2 = 1, /**< "triangular2": the amplitude halves every cycle */
  GLIA_CYCLIC_EXP_RANGE = 2    /**< "exp_range": amplitude * gamma^iteration */
} glia_cyclic_mode;
/** CyclicLR's scale_mode (torch's strings); state dict code as the value. */
typedef enum glia_cyclic_scale_mode GLIA_ENUM_BASE {
  GLIA_CYCLIC_SCALE_CYCLE = 0,     /**< "cycle": scale_fn(cycle number) (torch's default) */
  GLIA_CYCLIC_SCALE_ITERATIONS = 1 /**< "iterations": scale_fn(last_epoch) */
} glia_cyclic_scale_mode;
/** CyclicLR's scale_fn(x): writes the amplitude's scale at x (cycle or iteration) to *out. @since 0.2 */
typedef glia_error *(*glia_lr_scale_fn)(void *user_data, int64_t x, double *out);
/** Options of glia_lr_scheduler_cyclic_lr. Initialise with glia_cyclic_lr_options_init(). */
typedef struct glia_cyclic_lr_options {
  /** sizeof(glia_cyclic_lr_options), set by the init function. */
  size_t struct_size;
  double step_size_up;   /**< default 2000 */
  double step_size_down; /**< default NaN: torch's None (step_size_up) */
  glia_cyclic_mode mode; /**< default GLIA_CYCLIC_TRIANGULAR; ignored with a scale_fn */
  double gamma;          /**< default 1.0 */
  /** default NULL: the mode's. Runs once per group and step (twice with cycle_momentum). */
  glia_lr_scale_fn scale_fn;
  void *scale_fn_user_data;                /**< passed to scale_fn */
  void (*free_scale_fn_user_data)(void *); /**< may be NULL; runs once, as for glia_lr_scheduler_lambda_lr */
  glia_cyclic_scale_mode scale_mode;       /**< default GLIA_CYCLIC_SCALE_CYCLE; with a scale_fn only */
  int32_t cycle_momentum;                  /**< default 1: cycles the groups' "momentum" inversely */
  double base_momentum;                    /**< default 0.8 (when base_momentums is NULL) */
  double max_momentum;                     /**< default 0.9 (when max_momentums is NULL) */
  const double *base_momentums;            /**< default NULL; else one per group */
  const double *max_momentums;             /**< default NULL; else one per group */
  int64_t n_momentums;                     /**< the length of base_momentums and max_momentums */
} glia_cyclic_lr_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_cyclic_lr_options_init(glia_cyclic_lr_options *options);
/**
 * CyclicLR(optimizer, base_lr, max_lr, ...): base_lrs and max_lrs hold one
 * value for every group or one per group. Sets the groups' lr to base_lr
 * (and momentum to base_momentum) first, as torch does. Errors: "expected 2
 * values for max_lr, got 3", "mode is invalid and scale_fn is None",
 * "optimizer must support momentum with `cycle_momentum` option enabled".
 * State: "max_lrs", "total_size", "step_ratio", "mode" (int64 code),
 * "gamma", "scale_mode" (int64 code), "cycle_momentum" (int64 0 or 1),
 * "base_momentums" and "max_momentums" (with cycle_momentum), then the
 * common keys. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_cyclic_lr(glia_optimizer *optimizer, const double *base_lrs,
                                                                int64_t n_base_lrs, const double *max_lrs,
                                                                int64_t n_max_lrs,
                                                                const glia_cyclic_lr_options *options,
                                                                glia_lr_scheduler **out);

/** OneCycleLR's anneal_strategy (torch's strings); the state dict's "anneal_func" code. */
typedef enum glia_anneal_strategy GLIA_ENUM_BASE {
  GLIA_ANNEAL_COS = 0,   /**< "cos" (torch's default) */
  GLIA_ANNEAL_LINEAR = 1 /**< "linear" */
} glia_anneal_strategy;
/** Options of glia_lr_scheduler_one_cycle_lr. Initialise with glia_one_cycle_lr_options_init(). */
typedef struct glia_one_cycle_lr_options {
  /** sizeof(glia_one_cycle_lr_options), set by the init function. */
  size_t struct_size;
  const int64_t *total_steps;           /**< default NULL: epochs * steps_per_epoch */
  const int64_t *epochs;                /**< default NULL */
  const int64_t *steps_per_epoch;       /**< default NULL */
  double pct_start;                     /**< default 0.3 */
  glia_anneal_strategy anneal_strategy; /**< default GLIA_ANNEAL_COS */
  /** default 1: cycles "momentum" (SGD, RMSprop) or betas[0] (Adam, AdamW) inversely */
  int32_t cycle_momentum;
  double base_momentum;         /**< default 0.85 (when base_momentums is NULL) */
  double max_momentum;          /**< default 0.95 (when max_momentums is NULL) */
  const double *base_momentums; /**< default NULL; else one per group */
  const double *max_momentums;  /**< default NULL; else one per group */
  int64_t n_momentums;          /**< the length of base_momentums and max_momentums */
  double div_factor;            /**< default 25 */
  double final_div_factor;      /**< default 1e4 */
  int32_t three_phase;          /**< default 0 */
} glia_one_cycle_lr_options;
/** Sets torch's defaults and struct_size. @since 0.2 */
GLIA_API void glia_one_cycle_lr_options_init(glia_one_cycle_lr_options *options);
/**
 * OneCycleLR(optimizer, max_lr, ...): max_lrs holds one value for every group
 * or one per group. Sets the groups' "initial_lr", "max_lr", "min_lr" (and
 * with cycle_momentum "max_momentum", "base_momentum", and momentum or
 * betas[0]), which the optimizer's state dict then carries as torch's does.
 * Errors: "You must define either total_steps OR (epochs AND
 * steps_per_epoch)", "Expected positive integer total_steps, but got 0",
 * "Expected float between 0 and 1 pct_start, but got 1.5", "anneal_strategy
 * must by one of 'cos' or 'linear', instead got 5"; a step past total_steps:
 * "Tried to step 12 times. The specified number of total steps is 10".
 * State: "total_steps", "_schedule_phases.<i>.end_step" (float64; two phases
 * or three), "anneal_func" (int64 code), "cycle_momentum" (0 or 1),
 * "use_beta1" (with cycle_momentum), then the common keys. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_one_cycle_lr(glia_optimizer *optimizer, const double *max_lrs,
                                                                   int64_t n_max_lrs,
                                                                   const glia_one_cycle_lr_options *options,
                                                                   glia_lr_scheduler **out);
/**
 * CosineAnnealingWarmRestarts(T_0, T_mult, eta_min) (torch's T_mult 1,
 * eta_min 0); glia_lr_scheduler_step_epoch takes fractional epochs. Errors:
 * "Expected positive integer T_0, but got -1", "Expected integer T_mult >= 1,
 * but got 0". State: "T_0", "T_i", "T_mult" (int64), "eta_min", "T_cur"
 * (float64), then the common keys. @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_lr_scheduler_cosine_annealing_warm_restarts(glia_optimizer *optimizer,
                                                                                     int64_t t_0, int64_t t_mult,
                                                                                     double eta_min,
                                                                                     glia_lr_scheduler **out);

/** @} */
/* ------------------------------------------------------------------------ */
/* Distributed training (torch.distributed)                                   */
/* ------------------------------------------------------------------------ */
/** @addtogroup distributed
 * @{ */

/*
 * Processes meet through a key-value store (torch's Store) and then form a
 * process group that runs collectives on tensors (torch's ProcessGroup;
 * docs/distributed.md). Every blocking call has a timeout: a peer that dies
 * or never arrives is an error (GLIA_ERR_IO, naming the collective and the
 * rank), never a hang. Timeouts are in milliseconds; a negative timeout_ms
 * means the store's or group's own.
 */

/** A key-value store for rendezvous. Opaque, reference counted. @since 0.2 */
typedef struct glia_store glia_store;
/** A process group (torch's ProcessGroup). Opaque, reference counted. @since 0.2 */
typedef struct glia_process_group glia_process_group;
/** The handle of a collective in flight (torch's Work). Opaque, reference counted. @since 0.2 */
typedef struct glia_work glia_work;

/** torch.distributed.ReduceOp. AVG takes floating-point tensors only. @since 0.2 */
typedef enum glia_reduce_op GLIA_ENUM_BASE {
  GLIA_REDUCE_SUM = 0,     /**< the elementwise sum over the ranks */
  GLIA_REDUCE_AVG = 1,     /**< the elementwise mean over the ranks (floating tensors only) */
  GLIA_REDUCE_PRODUCT = 2, /**< the elementwise product */
  GLIA_REDUCE_MIN = 3,     /**< the elementwise minimum */
  GLIA_REDUCE_MAX = 4      /**< the elementwise maximum */
} glia_reduce_op;

/** Process-group backends (torch's Backend). @since 0.2 */
typedef enum glia_dist_backend GLIA_ENUM_BASE {
  GLIA_DIST_BACKEND_GLOO = 0, /**< CPU tensors over TCP (Gloo) */
  GLIA_DIST_BACKEND_NCCL = 1  /**< tensors of one device: NCCL for CUDA (glia_process_group_options.device) */
} glia_dist_backend;

/** Stores *out = 1 when this build has the Gloo backend (torch.distributed.is_gloo_available). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_dist_is_gloo_available(int32_t *out);

/**
 * torch's FileStore(path, num_workers): a file shared by the processes (the
 * file system must support flock). With num_workers > 0 the last of that many
 * stores to be released removes the file. A file left by an earlier run that
 * did not finish keeps its keys, as torch's does: give each run a fresh path
 * (glia_process_group_create detects a stale rendezvous and says so).
 * Errors: GLIA_ERR_IO when the file cannot be opened or locked.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_file_create(const char *path, int64_t num_workers, glia_store **out);
/**
 * torch's TCPStore(host, port, is_master=is_server, timeout): is_server = 1
 * serves the keys from this process (port 0 binds a free port; read it with
 * glia_store_tcp_port); every store connects to host:port, retrying until
 * timeout_ms. Errors: GLIA_ERR_INVALID_ARGUMENT (port outside [0, 65535], 0
 * for a client, timeout_ms <= 0), GLIA_ERR_IO (cannot listen, cannot connect
 * within the timeout; the message names host, port and the last error).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_tcp_create(const char *host, int32_t port, int32_t is_server,
                                                          int64_t timeout_ms, glia_store **out);
/** The port of a TCP store (the bound one for a server created with port 0). Errors: GLIA_ERR_INVALID_ARGUMENT for
 * another kind of store. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_tcp_port(const glia_store *store, int32_t *out_port);
/**
 * A store in a Redis server at host:port, for clusters that already run one
 * (Gloo's RedisStore for the connection). set overwrites, as every glia
 * store (Gloo's own set refuses to); num_keys counts the whole Redis
 * database. Commands time out after timeout_ms. Errors:
 * GLIA_ERR_INVALID_ARGUMENT (port outside [1, 65535], timeout_ms <= 0),
 * GLIA_ERR_IO (no server there, a lost connection), GLIA_ERR_UNSUPPORTED
 * without Gloo.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_redis_create(const char *host, int32_t port, int64_t timeout_ms,
                                                            glia_store **out);
/** torch's PrefixStore(prefix, store): keys become "<prefix>/<key>" in `store` (retained). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_prefix_create(const char *prefix, glia_store *store, glia_store **out);
/** set(key, value): stores `nbytes` bytes (value may be NULL when nbytes is 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_set(glia_store *store, const char *key, const void *value,
                                                   size_t nbytes);
/**
 * get(key): waits up to the store's timeout for the key, then copies at most
 * capacity bytes of its value into buffer and the full length to
 * *out_length (so a call with capacity 0 sizes the buffer; the value stays).
 * Errors: GLIA_ERR_IO on timeout ("... timed out after 100 ms waiting for keys [k]").
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_get(glia_store *store, const char *key, void *buffer, size_t capacity,
                                                   size_t *out_length);
/**
 * add(key, amount): the value is a decimal integer (absent: 0); stores and
 * returns value + amount. Errors: GLIA_ERR_INVALID_ARGUMENT when the value is not an integer.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_add(glia_store *store, const char *key, int64_t amount, int64_t *out);
/**
 * compare_set(key, expected, desired): sets desired when the value is
 * expected (or the key is absent and n_expected is 0); writes the value the
 * key has afterwards as glia_store_get does.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_compare_set(glia_store *store, const char *key, const void *expected,
                                                           size_t n_expected, const void *desired, size_t n_desired,
                                                           void *buffer, size_t capacity, size_t *out_length);
/** wait(keys, timeout): returns when all keys exist. Errors: GLIA_ERR_IO on timeout, naming the missing keys. @since
 * 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_wait(glia_store *store, const char *const *keys, int64_t n_keys,
                                                    int64_t timeout_ms);
/** check(keys): *out = 1 when all keys exist now (no waiting). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_check(glia_store *store, const char *const *keys, int64_t n_keys,
                                                     int32_t *out);
/** delete_key(key): *out = 1 when the key existed. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_delete_key(glia_store *store, const char *key, int32_t *out);
/** num_keys(): the number of keys (a prefix store counts its whole store's, as torch's). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_num_keys(glia_store *store, int64_t *out);
/** set_timeout(timeout): the timeout of get and wait (> 0). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_set_timeout(glia_store *store, int64_t timeout_ms);
/** Adds a reference. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_store_retain(glia_store *store);
/** Drops a reference (NULL is accepted). @since 0.2 */
GLIA_API glia_error *glia_store_release(glia_store *store);

/**
 * Process-group options; glia_process_group_options_init sets the defaults:
 * backend GLOO, timeout_ms 300000, hostname NULL (this host's name when it
 * resolves to a bindable address, else 127.0.0.1), iface NULL (or the
 * GLOO_SOCKET_IFNAME environment variable), group_name NULL ("default").
 * @since 0.2
 */
typedef struct glia_process_group_options {
  /** sizeof(glia_process_group_options), set by glia_process_group_options_init(). */
  size_t struct_size;
  int32_t backend;        /**< a glia_dist_backend */
  int64_t timeout_ms;     /**< every collective's (and the rendezvous') timeout */
  const char *hostname;   /**< address this rank's sockets bind to, or NULL */
  const char *iface;      /**< or a network interface ("lo", "eth0"), or NULL */
  const char *group_name; /**< keys of the rendezvous live under "<group_name>/" */
  /**
   * GLIA_DIST_BACKEND_NCCL only: the device of this rank's tensors (default
   * {GLIA_CUDA, -1}: index -1 is LOCAL_RANK when set, else rank % the device
   * count). The collectives are those of the device's backend: NCCL for CUDA
   * (libnccl.so.2, loaded at the first such group), or a plugin backend's own
   * (the test device's, in one process). @since 0.2
   */
  glia_device device;
} glia_process_group_options;

/** Fills in the defaults and struct_size. @since 0.2 */
GLIA_API void glia_process_group_options_init(glia_process_group_options *options);
/**
 * init_process_group(backend, store=store, rank, world_size): rendezvous
 * through the store and connect to every other rank. Waits for all ranks up
 * to the timeout. Errors: GLIA_ERR_INVALID_ARGUMENT (rank outside [0,
 * world_size), a world size other than the one another rank gave),
 * GLIA_ERR_STATE (the store holds an earlier run's rendezvous),
 * GLIA_ERR_IO (a rank did not arrive within the timeout, no network device),
 * GLIA_ERR_UNSUPPORTED (a backend this build lacks).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_create(glia_store *store, int64_t rank, int64_t world_size,
                                                              const glia_process_group_options *options,
                                                              glia_process_group **out);
/**
 * init_process_group(backend, init_method="env://"): reads MASTER_ADDR,
 * MASTER_PORT, RANK and WORLD_SIZE; rank 0 serves a TCP store on
 * MASTER_PORT. Errors: GLIA_ERR_INVALID_ARGUMENT naming a variable that is
 * missing or not a number, and those of glia_process_group_create.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_create_from_env(const glia_process_group_options *options,
                                                                       glia_process_group **out);
/** get_rank(group). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_rank(const glia_process_group *group, int64_t *out);
/** get_world_size(group). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_size(const glia_process_group *group, int64_t *out);

/*
 * Collectives. Every rank calls the same collectives in the same order.
 * Arguments are checked at once (errors there change nothing); the
 * collective then runs on the group's thread. With out NULL the call waits
 * for it (torch's async_op=False); otherwise *out is its work handle
 * (async_op=True) and the tensors must not be used until glia_work_wait
 * succeeds. Tensors: CPU for Gloo, on the group's device for NCCL (where a
 * collective is queued on the caller's current stream and its work completes
 * when it has run on the device); float32, float64, float16, bfloat16, int32,
 * int64, int8 or uint8, any strides. Errors: GLIA_ERR_DEVICE (a tensor
 * elsewhere than the backend communicates), GLIA_ERR_DTYPE,
 * GLIA_ERR_SHAPE, GLIA_ERR_INVALID_ARGUMENT (bad root, list length, op), and
 * when waiting GLIA_ERR_IO for a collective that failed ("ProcessGroupGloo::
 * allreduce failed on rank 1 of 2: ..."); after one failure the group fails
 * every later collective.
 */

/** all_reduce(tensor, op), in place on every rank. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_all_reduce(glia_process_group *group, glia_tensor *tensor,
                                                                  glia_reduce_op op, glia_work **out);
/** broadcast(tensor, src=root): root's tensor is copied into every rank's. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_broadcast(glia_process_group *group, glia_tensor *tensor,
                                                                 int64_t root, glia_work **out);
/** reduce(tensor, dst=root, op): root's tensor receives the reduction; the others' are unchanged. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_reduce(glia_process_group *group, glia_tensor *tensor,
                                                              int64_t root, glia_reduce_op op, glia_work **out);
/** all_gather(outputs, input): outputs[r] (world size of them, input's shape and dtype) receives rank r's input. @since
 * 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_all_gather(glia_process_group *group,
                                                                  glia_tensor *const *outputs, int64_t n_outputs,
                                                                  const glia_tensor *input, glia_work **out);
/** reduce_scatter(output, inputs, op): output receives the reduction over ranks of inputs[rank]. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_reduce_scatter(glia_process_group *group, glia_tensor *output,
                                                                      glia_tensor *const *inputs, int64_t n_inputs,
                                                                      glia_reduce_op op, glia_work **out);
/** barrier(): returns (or completes) when every rank has entered it. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_barrier(glia_process_group *group, glia_work **out);
/** Adds a reference. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_process_group_retain(glia_process_group *group);
/** Drops a reference (NULL is accepted); the last one waits for queued collectives and closes the connections. @since
 * 0.2 */
GLIA_API glia_error *glia_process_group_release(glia_process_group *group);

/**
 * Work.wait(timeout): waits until the collective completes (timeout_ms < 0:
 * as long as it runs; it has its own timeout). Errors: the collective's
 * error (GLIA_ERR_IO ...), GLIA_ERR_IO when timeout_ms passed first (the
 * collective goes on; wait again or release).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_work_wait(glia_work *work, int64_t timeout_ms);
/** Work.is_completed(): *out = 1 when the collective finished (successfully or not). @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_work_is_completed(const glia_work *work, int32_t *out);
/** Adds a reference. @since 0.2 */
GLIA_API GLIA_NODISCARD glia_error *glia_work_retain(glia_work *work);
/** Drops a reference (NULL is accepted); the collective runs to its end regardless. @since 0.2 */
GLIA_API glia_error *glia_work_release(glia_work *work);

/**
 * DistributedDataParallel options; glia_ddp_options_init sets torch's
 * defaults: bucket_cap_mb 25, find_unused_parameters 0, broadcast_buffers 1,
 * gradient_as_bucket_view 0, static_graph 0.
 * @since 0.2
 */
typedef struct glia_ddp_options {
  /** sizeof(glia_ddp_options), set by glia_ddp_options_init(). */
  size_t struct_size;
  double bucket_cap_mb;           /**< bucket size; the first bucket closes at 1 MiB (torch's) */
  int32_t find_unused_parameters; /**< 1: a parameter without gradient is reduced with its .grad as it stands (zeros
                                     when none), not an error; one that no rank used keeps its .grad */
  int32_t broadcast_buffers;      /**< 1: rank 0's buffers are broadcast before every synchronised forward */
  /** 1: each parameter's .grad becomes a view of its bucket after its first synchronised backward, so
   * gradients accumulate in the bucket and need no copy back (torch's option). @since 0.2 */
  int32_t gradient_as_bucket_view;
  /** 1: torch's static_graph=True: the first synchronised backward counts how many times each
   * parameter's gradient hook fires and finds the unused parameters; later backwards reduce a
   * parameter after that many hook calls (a parameter reached by several reentrant backwards, e.g.
   * checkpointed twice, is reduced once) and the unused ones without waiting. @since 0.2 */
  int32_t static_graph;
} glia_ddp_options;

/** Fills in the defaults and struct_size. @since 0.2 */
GLIA_API void glia_ddp_options_init(glia_ddp_options *options);
/**
 * torch.nn.parallel.DistributedDataParallel(module, process_group=group):
 * a module whose child "module" is `module` (state-dict keys
 * "module.<name>"). Every rank calls it with the same model; rank 0's
 * parameters and buffers are broadcast to the others here. Backward then
 * averages the gradients over the group, bucket by bucket while backward
 * runs, and they are in .grad when glia_tensor_backward returns
 * (docs/distributed.md). Call the result with glia_module_forward.
 * Errors: GLIA_ERR_INVALID_ARGUMENT (no parameter requires grad;
 * bucket_cap_mb <= 0; ranks with different parameter counts: "DDP expects
 * same model across all ranks, but Rank 1 has 4 params, while rank 0 has
 * inconsistent 6 params."), GLIA_ERR_SHAPE (different shapes),
 * GLIA_ERR_DEVICE (parameters elsewhere than the group communicates: the CPU
 * for Gloo, the group's device for NCCL), GLIA_ERR_IO (a rank failed).
 * A backward in which a parameter got no gradient fails with GLIA_ERR_STATE
 * (torch's "Expected to have finished reduction in the prior iteration ...
 * Parameter indices which did not receive grad for rank 0: 4") unless
 * find_unused_parameters or static_graph; one in which a parameter's
 * gradient arrives twice (reentrant backwards) fails with GLIA_ERR_STATE
 * ("Expected to mark a variable ready only once. ...") unless static_graph.
 * As torch 1.13, the first synchronised backward records the order in which
 * the gradients arrive (with static_graph the second), and the next forward
 * rebuilds the buckets once in that order (rank 0's order on every rank;
 * not with find_unused_parameters unless static_graph).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_distributed_data_parallel(glia_module *module, glia_process_group *group,
                                                                      const glia_ddp_options *options,
                                                                      glia_module **out);
/**
 * torch's require_backward_grad_sync (flag 0 is what no_sync() sets): with 0,
 * backward only accumulates local gradients; the next backward with 1
 * averages the accumulated ones. Errors: GLIA_ERR_INVALID_ARGUMENT for a
 * module that is not a DistributedDataParallel.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_ddp_set_require_backward_grad_sync(glia_module *module, int32_t flag);
/**
 * Reads torch's require_backward_grad_sync: *out = 1 when backward averages
 * gradients (the default), 0 inside no_sync(). A wrapper's no_sync scope
 * reads it first and restores it at the end, so nested scopes work as
 * torch's. Errors: GLIA_ERR_INVALID_ARGUMENT for a module that is not a
 * DistributedDataParallel.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_ddp_require_backward_grad_sync(const glia_module *module, int32_t *out);
/**
 * torch's DDP._set_static_graph(): as the static_graph option, for a module
 * that has not run a synchronised forward yet. Errors: GLIA_ERR_STATE after
 * one ("set_static_graph() should be called before training loop starts and
 * after DistributedDataParallel is constructed."), GLIA_ERR_INVALID_ARGUMENT
 * for a module that is not a DistributedDataParallel.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_ddp_set_static_graph(glia_module *module);

/**
 * DDP's built-in communication hooks (torch's dist.BuiltinCommHookType and
 * ddp_comm_hooks.default_hooks): GLIA_DDP_COMM_HOOK_ALLREDUCE, the default
 * average; GLIA_DDP_COMM_HOOK_FP16_COMPRESS and
 * GLIA_DDP_COMM_HOOK_BF16_COMPRESS: each bucket cast to float16 / bfloat16,
 * divided by the world size in that type, summed over the group, and cast
 * back (half the bytes on the wire, gradients within the 16-bit type's
 * precision).
 * @since 0.2
 */
typedef enum glia_ddp_comm_hook GLIA_ENUM_BASE {
  GLIA_DDP_COMM_HOOK_ALLREDUCE = 0,
  GLIA_DDP_COMM_HOOK_FP16_COMPRESS = 1,
  GLIA_DDP_COMM_HOOK_BF16_COMPRESS = 2
} glia_ddp_comm_hook;

/**
 * torch's DDP.register_comm_hook / _register_builtin_comm_hook: replaces how
 * each bucket of gradients is reduced. At most one hook per DDP module, of
 * either kind: a second call is GLIA_ERR_STATE "register_comm_hook or
 * register_builtin_comm_hook can only be called once.". Errors also:
 * GLIA_ERR_INVALID_ARGUMENT (not a DistributedDataParallel, unknown hook).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_ddp_register_builtin_comm_hook(glia_module *module, glia_ddp_comm_hook hook);

/**
 * A host communication hook: `bucket` (a contiguous 1-D tensor, borrowed for
 * the call) holds this rank's gradients of bucket `bucket_index` (0 to
 * bucket_count - 1; the last one is the last of the iteration); the hook
 * must replace its contents by the average over the group, e.g. with
 * glia_process_group_all_reduce and a division. It runs on the thread of
 * backward as soon as the bucket is ready, buckets in the same order on every
 * rank. A returned error aborts the backward with GLIA_ERR_CALLBACK.
 * @since 0.2
 */
typedef glia_error *(*glia_ddp_comm_hook_fn)(void *user_data, glia_tensor *bucket, int64_t bucket_index,
                                             int64_t bucket_count);

/**
 * Registers a host communication hook (torch's register_comm_hook(state,
 * hook)); free_user_data(user_data), when not NULL, runs when the DDP module
 * dies, or right away if this call fails. Errors as for
 * glia_ddp_register_builtin_comm_hook, and GLIA_ERR_INVALID_ARGUMENT for a
 * NULL fn.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_ddp_register_comm_hook(glia_module *module, glia_ddp_comm_hook_fn fn,
                                                                void *user_data, void (*free_user_data)(void *));

/**
 * The parameters of bucket `bucket_index` (torch's GradBucket.parameters()):
 * their indices among the DDP module's parameters that require grad, in
 * their order in the bucket's buffer (registration order until the buckets
 * are rebuilt, then gradient-arrival order), written to out_indices (up to
 * `capacity`); *out_count gets the number (call with capacity 0 to learn
 * it). Buckets are numbered in the order they are reduced (the last
 * parameters first; after the rebuild, the first gradients first).
 * *out_bucket_count (may be NULL) gets the number of buckets.
 * Errors: GLIA_ERR_INVALID_ARGUMENT (not a DistributedDataParallel, index out of range).
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_ddp_bucket_parameters(glia_module *module, int64_t bucket_index,
                                                               int64_t *out_indices, int64_t capacity,
                                                               int64_t *out_count, int64_t *out_bucket_count);
/* ---- SyncBatchNorm (torch.nn.SyncBatchNorm, issue 21) ---- */
/**
 * torch.nn.SyncBatchNorm(num_features, eps, momentum, affine,
 * track_running_stats, process_group): BatchNorm's parameters, buffers,
 * defaults and state-dict layout (see glia_nn_batch_norm1d; options NULL for
 * torch's defaults) under the type name "SyncBatchNorm", on any input
 * [N, C, *]. In training with `process_group` (may be NULL: none) of more
 * than one rank, every rank all-gathers its per-channel mean, sum of squared
 * deviations and count (in float for 16-bit input), normalises with the mean
 * and biased variance of the batch of all ranks and updates the running
 * statistics with its unbiased variance; backward all-reduces the gradients
 * of those statistics (torch's sum_dy / sum_dy_xmu all-reduce), so every
 * rank must call forward and backward together. Outputs and input gradients equal BatchNorm's on the
 * concatenated batch; weight and bias gradients are this rank's share.
 * Otherwise (eval, no group, one rank) it is BatchNorm. torch 1.13 refuses
 * CPU input; glia synchronises CPU tensors over Gloo (device tensors over a
 * device process group). Forward errors
 * (GLIA_ERR_INVALID_ARGUMENT, torch's text): "expected at least 2D input
 * (got 1D input)", "SyncBatchNorm number of input channels should be
 * non-zero"; GLIA_ERR_IO when a rank fails. Constructor errors: those of
 * glia_nn_batch_norm1d, GLIA_ERR_INVALID_HANDLE for a bad group.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_sync_batch_norm(int64_t num_features,
                                                            const glia_batch_norm_options *options,
                                                            glia_process_group *process_group,
                                                            const glia_factory_options *factory, glia_module **out);
/**
 * torch's `module.process_group = group` for a module made by
 * glia_nn_sync_batch_norm (`process_group` NULL: none, BatchNorm in
 * training too). The module keeps a reference to the group. Errors:
 * GLIA_ERR_INVALID_ARGUMENT for another module, GLIA_ERR_INVALID_HANDLE.
 * @since 0.2
 */
GLIA_API GLIA_NODISCARD glia_error *glia_nn_sync_batch_norm_set_process_group(glia_module *module,
                                                                              glia_process_group *process_group);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GLIA_GLIA_H */
