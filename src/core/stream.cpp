#include "core/stream.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "core/backend.h"
#include "core/error.h"

namespace glia {

namespace {

// The streams of one device (Note [Streams]): its default stream and the pools, [0] of normal and
// [1] of high priority. Never freed while libglia is loaded.
struct DeviceStreams {
  Ref<Stream> default_stream;
  Ref<Stream> pool[2][kStreamPoolSize];
  uint32_t next[2] = {0, 0};
};

struct Streams {
  std::mutex mu;
  std::map<std::pair<int, int32_t>, std::unique_ptr<DeviceStreams>> devices;
  Ref<Stream> cpu = make_ref<Stream>(Device{}, nullptr, 0);
};

Streams& streams() {
  static Streams s;
  return s;
}

// The streams of `device` (backend `b`), created on first use; the caller holds streams().mu.
DeviceStreams& device_streams_locked(const glia_backend& b, Device device) {
  std::unique_ptr<DeviceStreams>& p = streams().devices[{static_cast<int>(device.type), device.index}];
  if (!p) {
    auto s = std::make_unique<DeviceStreams>();
    // Every stream is set through set_current_stream below, which needs this state: no thread has set
    // one yet, so what the backend reports now is the device's default stream.
    s->default_stream = make_ref<Stream>(device, b.current_stream(device.index), 0);
    p = std::move(s);
  }
  return *p;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Ref<Stream> current_stream(Device device, const char* what) {
  if (device.is_cpu()) return streams().cpu;
  const glia_backend& b = backend_of(device, what);
  void* h = b.current_stream(device.index);
  std::lock_guard<std::mutex> lock(streams().mu);
  DeviceStreams& s = device_streams_locked(b, device);
  if (h == s.default_stream->handle()) return s.default_stream;
  for (const auto& pool : s.pool)
    for (const Ref<Stream>& p : pool)
      if (p && p->handle() == h) return p;
  fail(Code::Internal, what, ": the current stream of ", device, " is not a stream glia created");
}

void set_current_stream(const Stream& stream, const char* what) {
  const Device d = stream.device();
  if (d.is_cpu()) return;  // the CPU's one stream is always current
  const glia_backend& b = backend_of(d, what);
  if (!b.set_current_stream) {
    GLIA_CHECK(stream.handle() == b.current_stream(d.index), Unsupported, what, ": the ", b.name,
               " backend cannot change the current stream");
    return;
  }
  throw_backend_error(b.set_current_stream(d.index, stream.handle()));
}

Ref<Stream> stream_create(Device device, int32_t priority, const char* what) {
  if (device.is_cpu()) return streams().cpu;
  const glia_backend& b = backend_of(device, what);
  GLIA_CHECK(b.stream_create, Unsupported, what, ": the ", b.name, " backend has no streams");
  const bool high = priority < 0 && GLIA_BACKEND_HAS(b, stream_create_with_priority);
  std::lock_guard<std::mutex> lock(streams().mu);
  DeviceStreams& s = device_streams_locked(b, device);
  const uint32_t i = s.next[high] % kStreamPoolSize;
  Ref<Stream>& slot = s.pool[high][i];
  if (!slot) {
    void* h = nullptr;
    throw_backend_error(high ? b.stream_create_with_priority(device.index, -1, &h) : b.stream_create(device.index, &h));
    Stream* st = new (std::nothrow) Stream(device, h, high ? -1 : 0);
    if (!st) {
      if (b.stream_destroy) glia_error_free(b.stream_destroy(device.index, h));
      throw std::bad_alloc();
    }
    slot = Ref<Stream>::adopt(st);
  }
  ++s.next[high];
  return slot;
}

void stream_synchronize(const Stream& stream, const char* what) {
  const Device d = stream.device();
  if (d.is_cpu()) return;
  const glia_backend& b = backend_of(d, what);
  if (GLIA_BACKEND_HAS(b, stream_synchronize)) {
    throw_backend_error(b.stream_synchronize(stream.handle()));
  } else if (backend_has_events(b) && b.event_synchronize) {
    BackendEvent e(b, d.index, stream.handle());
    throw_backend_error(b.event_synchronize(e.handle()));
  } else {
    throw_backend_error(b.synchronize(d.index));
  }
}

bool stream_query(const Stream& stream, const char* what) {
  const Device d = stream.device();
  if (d.is_cpu()) return true;
  const glia_backend& b = backend_of(d, what);
  if (!GLIA_BACKEND_HAS(b, stream_query)) {
    stream_synchronize(stream, what);
    return true;
  }
  int32_t done = 0;
  throw_backend_error(b.stream_query(stream.handle(), &done));
  return done != 0;
}

void stream_wait_event(const Stream& stream, const Event& event, const char* what) {
  // An event never recorded has nothing to wait for (torch's); a CPU event completed when it was recorded.
  if (!event.recorded() || event.device().is_cpu()) return;
  const Device d = stream.device();
  if (d.is_cpu() || d.type != event.device().type) {
    // The CPU's work is ordered by the host thread (and another backend's streams cannot wait for
    // this one's events): waiting here orders everything queued after this call.
    event_synchronize(event, what);
    return;
  }
  const glia_backend& b = backend_of(d, what);
  if (!b.stream_wait_event) {
    event_synchronize(event, what);
    return;
  }
  throw_backend_error(b.stream_wait_event(stream.handle(), event.handle()));
}

void stream_wait_stream(const Stream& stream, const Stream& other, const char* what) {
  const Device od = other.device();
  if (od.is_cpu() || &stream == &other) return;  // the CPU's work is done; a stream is ordered after itself
  const glia_backend& b = backend_of(od, what);
  if (stream.device().is_cpu() || stream.device().type != od.type || !backend_has_events(b)) {
    stream_synchronize(other, what);
    return;
  }
  backend_of(stream.device(), what);
  BackendEvent e(b, od.index, other.handle());
  throw_backend_error(b.stream_wait_event(stream.handle(), e.handle()));
}

void* stream_native(const Stream& stream, const char* what) {
  if (stream.device().is_cpu()) return nullptr;
  const glia_backend& b = backend_of(stream.device(), what);
  return GLIA_BACKEND_HAS(b, stream_native) ? b.stream_native(stream.handle()) : stream.handle();
}

Event::~Event() {
  if (!handle_ || device_.is_cpu()) return;
  const glia_backend* b = backend_for(device_.type);
  if (b && b->event_destroy) glia_error_free(b->event_destroy(handle_));
}

Ref<Event> event_create(Device device, bool timing, bool blocking, const char* what) {
  if (device.is_cpu()) return make_ref<Event>(device, nullptr, timing);
  const glia_backend& b = backend_of(device, what);
  GLIA_CHECK(b.event_create && b.event_record && b.event_destroy, Unsupported, what, ": the ", b.name,
             " backend has no events");
  void* h = nullptr;
  if (GLIA_BACKEND_HAS(b, event_create_with_flags)) {
    const uint32_t flags = (timing ? GLIA_BACKEND_EVENT_TIMING : 0u) | (blocking ? GLIA_BACKEND_EVENT_BLOCKING : 0u);
    throw_backend_error(b.event_create_with_flags(device.index, flags, &h));
  } else {
    GLIA_CHECK(!timing, Unsupported, what, ": the ", b.name, " backend does not time events (enable_timing)");
    throw_backend_error(b.event_create(device.index, &h));
  }
  Event* e = new (std::nothrow) Event(device, h, timing);
  if (!e) {
    glia_error_free(b.event_destroy(h));
    throw std::bad_alloc();
  }
  return Ref<Event>::adopt(e);
}

void event_record(Event& event, const Stream& stream, const char* what) {
  GLIA_CHECK(event.device() == stream.device(), Device, what, ": event device ", event.device(),
             " does not match recording stream's device ", stream.device());
  if (event.device().is_cpu()) {
    event.host_ns_.store(now_ns(), std::memory_order_relaxed);
  } else {
    const glia_backend& b = backend_of(event.device(), what);
    throw_backend_error(b.event_record(event.handle(), stream.handle()));
  }
  event.recorded_.store(true, std::memory_order_release);
}

void event_synchronize(const Event& event, const char* what) {
  if (!event.recorded() || event.device().is_cpu()) return;
  const glia_backend& b = backend_of(event.device(), what);
  throw_backend_error(b.event_synchronize ? b.event_synchronize(event.handle()) : b.synchronize(event.device().index));
}

bool event_query(const Event& event, const char* what) {
  if (!event.recorded() || event.device().is_cpu()) return true;
  const glia_backend& b = backend_of(event.device(), what);
  if (!GLIA_BACKEND_HAS(b, event_query)) {
    event_synchronize(event, what);
    return true;
  }
  int32_t done = 0;
  throw_backend_error(b.event_query(event.handle(), &done));
  return done != 0;
}

double event_elapsed_ms(const Event& start, const Event& end, const char* what) {
  GLIA_CHECK(start.timing() && end.timing(), InvalidArgument, what,
             ": both events must be created with enable_timing = 1");
  GLIA_CHECK(start.device() == end.device(), Device, what, ": the events are on different devices, ", start.device(),
             " and ", end.device());
  GLIA_CHECK(start.recorded() && end.recorded(), State, what,
             ": both events must be recorded before calculating elapsed time");
  if (start.device().is_cpu())
    return static_cast<double>(end.host_ns_.load(std::memory_order_relaxed) -
                               start.host_ns_.load(std::memory_order_relaxed)) /
           1e6;
  const glia_backend& b = backend_of(start.device(), what);
  GLIA_CHECK(GLIA_BACKEND_HAS(b, event_elapsed_time), Unsupported, what, ": the ", b.name,
             " backend does not time events");
  event_synchronize(start, what);
  event_synchronize(end, what);
  float ms = 0;
  throw_backend_error(b.event_elapsed_time(start.handle(), end.handle(), &ms));
  return ms;
}

// ---- pinned memory

namespace {
void check_pin_backend(DeviceType backend, const char* what) {
  GLIA_CHECK(backend != DeviceType::CPU, Device, what,
             ": pinned memory comes from the backend of a device type (cuda or privateuse1), not from cpu");
  GLIA_CHECK(backend_device_count(backend) > 0, Device, what, ": no ", device_type_name(backend),
             " device is available (", backend_status(backend), ")");
}
}  // namespace

Tensor empty_pinned(IntSpan shape, DType dtype, DeviceType backend, const char* what) {
  check_pin_backend(backend, what);
  const int64_t n = checked_numel(shape);
  int64_t nbytes = 0;
  GLIA_CHECK(!__builtin_mul_overflow(n, static_cast<int64_t>(itemsize(dtype)), &nbytes), Shape, what,
             ": the size of shape ", shape, " overflows");
  Ref<Storage> s = Storage::allocate_pinned(static_cast<size_t>(nbytes), backend);
  return Tensor(make_ref<TensorImpl>(std::move(s), 0, shape, contiguous_strides(shape), dtype));
}

Tensor pin_memory(const Tensor& t, DeviceType backend, const char* what) {
  GLIA_CHECK(t.device().is_cpu(), Device, what, ": cannot pin a tensor on ", t.device(),
             ": only CPU tensors can be pinned");
  check_pin_backend(backend, what);
  if (is_pinned(t)) return t;
  Tensor out = empty_pinned(t.shape(), t.dtype(), backend, what);
  copy_into(out, t);
  return out;
}

}  // namespace glia
