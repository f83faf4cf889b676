/**
 * @file
 * glia's base declarations: the version, the export macros, errors, and the
 * enums that every layer shares (dtypes, device types, log levels).
 * glia/glia.h includes this header (include that one); it is separate so that
 * glia/glia_backend.h and glia's own engine depend on these few types only,
 * not on the whole C API. The rules of docs/c-api.md apply.
 */
#ifndef GLIA_GLIA_BASE_H
#define GLIA_GLIA_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The major version of this header: the SONAME (libglia.so.MAJOR); within one major version the ABI only grows. */
#define GLIA_VERSION_MAJOR 0
/** The minor version of this header: raised when functions or enum values are added. */
#define GLIA_VERSION_MINOR 2
/** The patch version of this header: raised for fixes that add nothing to the API. */
#define GLIA_VERSION_PATCH 0
/** MAJOR * 1000000 + MINOR * 1000 + PATCH, the value glia_version() returns. */
#define GLIA_VERSION_NUMBER (GLIA_VERSION_MAJOR * 1000000 + GLIA_VERSION_MINOR * 1000 + GLIA_VERSION_PATCH)

#if defined(__GNUC__) || defined(__clang__)
/** Marks a function exported by libglia (default symbol visibility; the library hides everything else). */
#define GLIA_API __attribute__((visibility("default")))
/** Marks a function whose returned glia_error must not be ignored: ignoring it is a compiler warning (and a leak). */
#define GLIA_NODISCARD __attribute__((warn_unused_result))
#else
#define GLIA_API
#define GLIA_NODISCARD
#endif

/** In C++ every enum of this header has int as its fixed underlying type, so that
 * any int a C caller passes (e.g. an unknown dtype) is a valid value that glia
 * can reject with an error; in C, enums are int already. */
#ifdef __cplusplus
#define GLIA_ENUM_BASE : int
#else
#define GLIA_ENUM_BASE
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                     */
/* ------------------------------------------------------------------------ */
/** @addtogroup errors
 * @{ */

/** Error codes. Values are fixed forever; new codes are only appended. */
enum glia_error_code GLIA_ENUM_BASE {
  /** Success; glia_error_code(NULL) gives it, no error object ever has it. */
  GLIA_OK = 0,
  /** A bad argument: out of range, NULL where a pointer is needed, a too small struct_size, an unknown enum value. */
  GLIA_ERR_INVALID_ARGUMENT = 1,
  /** A NULL, released, double-released or wrong-type handle (docs/c-api.md, "Handles and misuse detection"). */
  GLIA_ERR_INVALID_HANDLE = 2,
  /** Shapes that do not fit: broadcasting, sizes, dims out of range (torch's messages). */
  GLIA_ERR_SHAPE = 3,
  /** An element type the function does not accept, or mismatched dtypes (torch's messages). */
  GLIA_ERR_DTYPE = 4,
  /** A device that is not available, tensors on different devices, or a failure of the device. */
  GLIA_ERR_DEVICE = 5,
  /** Memory ran out (possibly the static out-of-memory error). */
  GLIA_ERR_OUT_OF_MEMORY = 6,
  /** A file or socket failed: open, read, write, connect, a timeout (the message gives the system's reason). */
  GLIA_ERR_IO = 7,
  /** Malformed data: a checkpoint file or buffer that is not what it claims to be, saying what is wrong where. */
  GLIA_ERR_FORMAT = 8,
  /** A key, name, hook id or library that does not exist. */
  GLIA_ERR_NOT_FOUND = 9,
  /** A call that is valid only in another state: e.g. outside a callback, before an event was recorded. */
  GLIA_ERR_STATE = 10,
  /** A callback of the caller's returned an error; its message is carried. */
  GLIA_ERR_CALLBACK = 11,
  /** Something glia does not do: an op without a kernel for the device, a feature of a format it does not read. */
  GLIA_ERR_UNSUPPORTED = 12,
  /** A bug in glia; the message says where it came from. */
  GLIA_ERR_INTERNAL = 13
};

/** An error: a code and a message. Owned by whoever received it. */
typedef struct glia_error glia_error;

/**
 * The code of `error`; GLIA_OK for NULL. Like `struct stat` and `stat()`, the
 * enum tag and this function share a name: write `enum glia_error_code`.
 * @since 0.1
 */
GLIA_API enum glia_error_code glia_error_code(const glia_error *error);

/**
 * The message of `error` (UTF-8, NUL-terminated, valid until the error is
 * freed); "" for NULL. Messages name the function, the argument, and what was
 * expected versus what was given.
 * @since 0.1
 */
GLIA_API const char *glia_error_message(const glia_error *error);

/** Frees `error`. Accepts NULL and ignores the static out-of-memory error. @since 0.1 */
GLIA_API void glia_error_free(glia_error *error);

/**
 * A new error, for callbacks that must report failure to glia. `message` is
 * copied (NULL means ""). If memory runs out, returns the static
 * out-of-memory error. Never returns NULL; a `code` of GLIA_OK or an unknown
 * code is turned into GLIA_ERR_INVALID_ARGUMENT with a message saying so.
 * @since 0.1
 */
GLIA_API glia_error *glia_error_new(enum glia_error_code code, const char *message);

/** A static English name for `code`, e.g. "GLIA_ERR_SHAPE". @since 0.1 */
GLIA_API const char *glia_error_code_name(enum glia_error_code code);

/** @} */
/** @addtogroup runtime
 * @{ */

/**
 * Log levels, from the least to the most severe: GLIA_LOG_DEBUG (what glia
 * loaded and chose, for diagnosing a setup), GLIA_LOG_INFO, GLIA_LOG_WARNING
 * (something works less well than it could, e.g. OpenBLAS not loaded),
 * GLIA_LOG_ERROR.
 */
enum glia_log_level GLIA_ENUM_BASE { GLIA_LOG_DEBUG = 0, GLIA_LOG_INFO = 1, GLIA_LOG_WARNING = 2, GLIA_LOG_ERROR = 3 };

/** @} */
/* ------------------------------------------------------------------------ */
/* Types                                                                      */
/* ------------------------------------------------------------------------ */
/** @addtogroup tensors
 * @{ */

/**
 * Element types. Values are fixed forever; new types are only appended.
 * torch's dtypes: GLIA_FLOAT32 (torch.float32, the default dtype),
 * GLIA_FLOAT64, GLIA_FLOAT16, GLIA_BFLOAT16, GLIA_INT64, GLIA_INT32,
 * GLIA_UINT8 and GLIA_BOOL; glia_dtype_name() gives torch's name of each.
 */
typedef enum glia_dtype GLIA_ENUM_BASE {
  GLIA_FLOAT32 = 0,
  GLIA_FLOAT64 = 1,
  GLIA_FLOAT16 = 2,
  GLIA_BFLOAT16 = 3,
  GLIA_INT64 = 4,
  GLIA_INT32 = 5,
  GLIA_UINT8 = 6,
  GLIA_BOOL = 7,
  /** Signed 8-bit integer (torch.int8, "Char"). @since 0.2 */
  GLIA_INT8 = 8,
  /** Signed 16-bit integer (torch.int16, "Short"). @since 0.2 */
  GLIA_INT16 = 9
} glia_dtype;

/** Bytes per element of `dtype` (0 for an unknown value). @since 0.1 */
GLIA_API size_t glia_dtype_size(glia_dtype dtype);

/** torch's name of `dtype` ("float32", "bfloat16", "bool"...), NULL for an unknown value. @since 0.1 */
GLIA_API const char *glia_dtype_name(glia_dtype dtype);

/** @} */
/** @addtogroup devices
 * @{ */

/**
 * Device types: GLIA_CPU (the host), GLIA_CUDA (NVIDIA GPUs through
 * libglia_cuda.so.0), GLIA_PRIVATEUSE1. GLIA_PRIVATEUSE1 is the slot of an out-of-tree backend (the
 * test device, an accelerator plugin) loaded with glia_backend_load: devices
 * of it print with the backend's name ("testdevice:1"), as torch's
 * PrivateUse1 devices do.
 */
typedef enum glia_device_type GLIA_ENUM_BASE { GLIA_CPU = 0, GLIA_CUDA = 1, GLIA_PRIVATEUSE1 = 2 } glia_device_type;

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GLIA_GLIA_BASE_H */
