#include <cstdlib>
#include <cstring>

#include "capi/api.h"

namespace glia::capi {

namespace {
char kOomMessage[] = "out of memory";
glia_error g_oom{static_cast<int32_t>(Code::OutOfMemory), kOomMessage, true};
}  // namespace

glia_error* out_of_memory_error() noexcept { return &g_oom; }

glia_error* make_error(Code code, const char* message) noexcept {
  auto* e = static_cast<glia_error*>(std::malloc(sizeof(glia_error)));
  if (!e) return &g_oom;
  size_t n = std::strlen(message);
  e->message = static_cast<char*>(std::malloc(n + 1));
  if (!e->message) {
    std::free(e);
    return &g_oom;
  }
  std::memcpy(e->message, message, n + 1);
  e->code = static_cast<int32_t>(code);
  e->is_static = false;
  return e;
}

// Note [Exception barrier]: no exception leaves an entry point. glia::Error
// keeps its code; bad_alloc is GLIA_ERR_OUT_OF_MEMORY; anything else is
// GLIA_ERR_INTERNAL with what() so that a bug still says where it came from.
glia_error* current_exception_to_error() noexcept {
  try {
    throw;
  } catch (const Error& e) {
    return make_error(e.code(), e.message().c_str());
  } catch (const std::bad_alloc&) {
    return &g_oom;
  } catch (const std::exception& e) {
    std::string m = std::string("internal error: ") + e.what();
    return make_error(Code::Internal, m.c_str());
  } catch (...) {
    return make_error(Code::Internal, "internal error: unknown exception");
  }
}

void check_string_out(char* buffer, size_t capacity, size_t* out_length, const char* fn) {
  check_out(out_length, fn, "out_length");
  GLIA_CHECK(buffer || capacity == 0, InvalidArgument, fn, ": argument 'buffer' is NULL with capacity ", capacity);
}

void write_string(const std::string& s, char* buffer, size_t capacity, size_t* out_length) {
  if (capacity) {
    size_t n = s.size() < capacity - 1 ? s.size() : capacity - 1;
    std::memcpy(buffer, s.data(), n);
    buffer[n] = '\0';
  }
  *out_length = s.size();
}

IntSpan shape_arg(const int64_t* shape, int64_t ndim, const char* fn) {
  GLIA_CHECK(ndim >= 0 && ndim <= 64, InvalidArgument, fn, ": argument 'ndim' must be in [0, 64], got ", ndim);
  GLIA_CHECK(shape || ndim == 0, InvalidArgument, fn, ": argument 'shape' is NULL with ndim ", ndim);
  IntSpan s(shape, static_cast<size_t>(ndim));
  check_shape(fn, s);
  return s;
}

DType dtype_arg(int dtype, const char* fn, const char* arg) {
  GLIA_CHECK(dtype_valid(dtype), DType, fn, ": argument '", arg, "' is not a glia_dtype (got ", dtype, ")");
  return static_cast<DType>(dtype);
}

Device device_arg(glia_device d, const char* fn) {
  GLIA_CHECK(d.type == GLIA_CPU || d.type == GLIA_CUDA || d.type == GLIA_PRIVATEUSE1, InvalidArgument, fn,
             ": unknown device type ", static_cast<int>(d.type));
  if (d.type == GLIA_CPU) {
    GLIA_CHECK(d.index == 0 || d.index == -1, Device, fn, ": cpu device index must be 0, got ", d.index);
    return Device{DeviceType::CPU, 0};
  }
  // -1: the current device, which is device 0 until per-thread current devices exist.
  return Device{static_cast<DeviceType>(d.type), d.index == -1 ? 0 : d.index};
}

}  // namespace glia::capi

using namespace glia;

extern "C" {

enum glia_error_code glia_error_code(const glia_error* error) {
  return error ? static_cast<enum glia_error_code>(error->code) : GLIA_OK;
}

const char* glia_error_message(const glia_error* error) { return error ? error->message : ""; }

void glia_error_free(glia_error* error) {
  if (!error || error->is_static) return;
  std::free(error->message);
  std::free(error);
}

glia_error* glia_error_new(enum glia_error_code code, const char* message) {
  if (code <= GLIA_OK || code > GLIA_ERR_INTERNAL) {
    std::string m = "glia_error_new: invalid error code " + std::to_string(static_cast<int>(code)) +
                    " (message: " + (message ? message : "") + ")";
    return capi::make_error(Code::InvalidArgument, m.c_str());
  }
  return capi::make_error(static_cast<Code>(code), message ? message : "");
}

const char* glia_error_code_name(enum glia_error_code code) {
  switch (code) {
    case GLIA_OK:
      return "GLIA_OK";
    case GLIA_ERR_INVALID_ARGUMENT:
      return "GLIA_ERR_INVALID_ARGUMENT";
    case GLIA_ERR_INVALID_HANDLE:
      return "GLIA_ERR_INVALID_HANDLE";
    case GLIA_ERR_SHAPE:
      return "GLIA_ERR_SHAPE";
    case GLIA_ERR_DTYPE:
      return "GLIA_ERR_DTYPE";
    case GLIA_ERR_DEVICE:
      return "GLIA_ERR_DEVICE";
    case GLIA_ERR_OUT_OF_MEMORY:
      return "GLIA_ERR_OUT_OF_MEMORY";
    case GLIA_ERR_IO:
      return "GLIA_ERR_IO";
    case GLIA_ERR_FORMAT:
      return "GLIA_ERR_FORMAT";
    case GLIA_ERR_NOT_FOUND:
      return "GLIA_ERR_NOT_FOUND";
    case GLIA_ERR_STATE:
      return "GLIA_ERR_STATE";
    case GLIA_ERR_CALLBACK:
      return "GLIA_ERR_CALLBACK";
    case GLIA_ERR_UNSUPPORTED:
      return "GLIA_ERR_UNSUPPORTED";
    case GLIA_ERR_INTERNAL:
      return "GLIA_ERR_INTERNAL";
  }
  return "GLIA_ERR_UNKNOWN";
}

}  // extern "C"
