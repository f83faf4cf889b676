// Streams, events, non-blocking copies and pinned memory (Note [Streams] in core/stream.h).
#include "core/stream.h"

#include <cstddef>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/shape.h"
#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

namespace {

Stream* stream_raw(const glia_stream* h, const char* fn, const char* arg) {
  return lookup<Stream>(h, HandleType::Stream, fn, arg);
}
Event* event_raw(const glia_event* h, const char* fn, const char* arg) {
  return lookup<Event>(h, HandleType::Event, fn, arg);
}
glia_stream* stream_handle(const Ref<Stream>& s) {
  return static_cast<glia_stream*>(handle_for(s.get(), HandleType::Stream));
}
glia_device device_out(Device d) { return glia_device{static_cast<glia_device_type>(d.type), d.index}; }

// The stream a NULL stream argument stands for: the current stream of the event's device.
Ref<Stream> stream_or_current(const glia_stream* h, Device device, const char* fn) {
  if (h) return Ref<Stream>::share(stream_raw(h, fn, "stream"));
  return current_stream(device, fn);
}

}  // namespace

extern "C" {

void glia_stream_options_init(glia_stream_options* options) {
  if (!options) return;
  *options = glia_stream_options{};
  options->struct_size = sizeof(glia_stream_options);
}

glia_error* glia_stream_create(glia_device device, const glia_stream_options* options, glia_stream** out) {
  const char* fn = "glia_stream_create";
  return guard([&] {
    check_out(out, fn, "out");
    Device d = device_arg(device, fn);
    int32_t priority = 0;
    if (options) {
      GLIA_CHECK(options->struct_size >= offsetof(glia_stream_options, priority) + sizeof(int32_t), InvalidArgument, fn,
                 ": options->struct_size is ", options->struct_size, ", expected at least ",
                 sizeof(glia_stream_options), " (use glia_stream_options_init)");
      priority = options->priority;
    }
    Ref<Stream> s = stream_create(d, priority, fn);
    *out = stream_handle(s);
  });
}

glia_error* glia_stream_retain(glia_stream* stream) {
  return guard([&] { handle_retain(stream, HandleType::Stream, "glia_stream_retain"); });
}

glia_error* glia_stream_release(glia_stream* stream) {
  if (!stream) return nullptr;
  return guard([&] { handle_release(stream, HandleType::Stream, "glia_stream_release"); });
}

glia_error* glia_device_current_stream(glia_device device, glia_stream** out) {
  const char* fn = "glia_device_current_stream";
  return guard([&] {
    check_out(out, fn, "out");
    Ref<Stream> s = current_stream(device_arg(device, fn), fn);
    *out = stream_handle(s);
  });
}

glia_error* glia_device_set_current_stream(const glia_stream* stream) {
  const char* fn = "glia_device_set_current_stream";
  return guard([&] { set_current_stream(*stream_raw(stream, fn, "stream"), fn); });
}

glia_error* glia_stream_device(const glia_stream* stream, glia_device* out) {
  const char* fn = "glia_stream_device";
  return guard([&] {
    Stream* s = stream_raw(stream, fn, "stream");
    check_out(out, fn, "out_device");
    *out = device_out(s->device());
  });
}

glia_error* glia_stream_synchronize(const glia_stream* stream) {
  const char* fn = "glia_stream_synchronize";
  return guard([&] { stream_synchronize(*stream_raw(stream, fn, "stream"), fn); });
}

glia_error* glia_stream_query(const glia_stream* stream, int32_t* out) {
  const char* fn = "glia_stream_query";
  return guard([&] {
    Stream* s = stream_raw(stream, fn, "stream");
    check_out(out, fn, "out_complete");
    *out = stream_query(*s, fn) ? 1 : 0;
  });
}

glia_error* glia_stream_wait_event(const glia_stream* stream, const glia_event* event) {
  const char* fn = "glia_stream_wait_event";
  return guard([&] {
    Event* e = event_raw(event, fn, "event");
    Ref<Stream> s = stream_or_current(stream, e->device(), fn);
    stream_wait_event(*s, *e, fn);
  });
}

glia_error* glia_stream_wait_stream(const glia_stream* stream, const glia_stream* other) {
  const char* fn = "glia_stream_wait_stream";
  return guard([&] {
    Stream* s = stream_raw(stream, fn, "stream");
    Stream* o = stream_raw(other, fn, "other");
    stream_wait_stream(*s, *o, fn);
  });
}

glia_error* glia_stream_native(const glia_stream* stream, void** out) {
  const char* fn = "glia_stream_native";
  return guard([&] {
    Stream* s = stream_raw(stream, fn, "stream");
    check_out(out, fn, "out_native");
    *out = stream_native(*s, fn);
  });
}

void glia_event_options_init(glia_event_options* options) {
  if (!options) return;
  *options = glia_event_options{};
  options->struct_size = sizeof(glia_event_options);
}

glia_error* glia_event_create(glia_device device, const glia_event_options* options, glia_event** out) {
  const char* fn = "glia_event_create";
  return guard([&] {
    check_out(out, fn, "out");
    Device d = device_arg(device, fn);
    bool timing = false, blocking = false;
    if (options) {
      GLIA_CHECK(options->struct_size >= offsetof(glia_event_options, enable_timing) + sizeof(int32_t), InvalidArgument,
                 fn, ": options->struct_size is ", options->struct_size, ", expected at least ",
                 sizeof(glia_event_options), " (use glia_event_options_init)");
      timing = options->enable_timing != 0;
      if (options->struct_size >= offsetof(glia_event_options, blocking) + sizeof(int32_t))
        blocking = options->blocking != 0;
    }
    Ref<Event> e = event_create(d, timing, blocking, fn);
    *out = static_cast<glia_event*>(handle_for(e.get(), HandleType::Event));
  });
}

glia_error* glia_event_retain(glia_event* event) {
  return guard([&] { handle_retain(event, HandleType::Event, "glia_event_retain"); });
}

glia_error* glia_event_release(glia_event* event) {
  if (!event) return nullptr;
  return guard([&] { handle_release(event, HandleType::Event, "glia_event_release"); });
}

glia_error* glia_event_record(glia_event* event, const glia_stream* stream) {
  const char* fn = "glia_event_record";
  return guard([&] {
    Event* e = event_raw(event, fn, "event");
    Ref<Stream> s = stream_or_current(stream, e->device(), fn);
    event_record(*e, *s, fn);
  });
}

glia_error* glia_event_synchronize(const glia_event* event) {
  const char* fn = "glia_event_synchronize";
  return guard([&] { event_synchronize(*event_raw(event, fn, "event"), fn); });
}

glia_error* glia_event_query(const glia_event* event, int32_t* out) {
  const char* fn = "glia_event_query";
  return guard([&] {
    Event* e = event_raw(event, fn, "event");
    check_out(out, fn, "out_complete");
    *out = event_query(*e, fn) ? 1 : 0;
  });
}

glia_error* glia_event_elapsed_time(const glia_event* start, const glia_event* end, double* out) {
  const char* fn = "glia_event_elapsed_time";
  return guard([&] {
    Event* a = event_raw(start, fn, "start");
    Event* b = event_raw(end, fn, "end");
    check_out(out, fn, "out_ms");
    *out = event_elapsed_ms(*a, *b, fn);
  });
}

glia_error* glia_event_device(const glia_event* event, glia_device* out) {
  const char* fn = "glia_event_device";
  return guard([&] {
    Event* e = event_raw(event, fn, "event");
    check_out(out, fn, "out_device");
    *out = device_out(e->device());
  });
}

glia_error* glia_tensor_to_non_blocking(const glia_tensor* tensor, const glia_device* device, const glia_dtype* dtype,
                                        glia_tensor** out) {
  const char* fn = "glia_tensor_to_non_blocking";
  return guard([&] {
    Tensor t = tensor_arg(tensor, fn, "tensor");
    Device dev = device ? device_arg(*device, fn) : t.device();
    DType dt = dtype ? dtype_arg(*dtype, fn, "dtype") : t.dtype();
    check_out(out, fn, "out");
    *out = tensor_handle(to_with_grad(t, dev, dt, /*non_blocking=*/true));
  });
}

glia_error* glia_copy_non_blocking_(glia_tensor* self, const glia_tensor* src) {
  const char* fn = "glia_copy_non_blocking_";
  return guard([&] { copy_(tensor_arg(self, fn, "self"), tensor_arg(src, fn, "src"), /*non_blocking=*/true); });
}

glia_error* glia_tensor_pin_memory(const glia_tensor* tensor, glia_device_type device_type, glia_tensor** out) {
  const char* fn = "glia_tensor_pin_memory";
  return guard([&] {
    Tensor t = tensor_arg(tensor, fn, "tensor");
    check_out(out, fn, "out");
    GLIA_CHECK(device_type == GLIA_CPU || device_type == GLIA_CUDA || device_type == GLIA_PRIVATEUSE1, InvalidArgument,
               fn, ": unknown device type ", static_cast<int>(device_type));
    *out = tensor_handle(pin_memory_with_grad(t, static_cast<DeviceType>(device_type), fn));
  });
}

glia_error* glia_tensor_is_pinned(const glia_tensor* tensor, int32_t* out) {
  const char* fn = "glia_tensor_is_pinned";
  return guard([&] {
    TensorImpl* t = tensor_raw(tensor, fn, "tensor");
    check_out(out, fn, "out_pinned");
    *out = t->storage()->pinned() ? 1 : 0;
  });
}

}  // extern "C"
