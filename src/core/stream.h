// Streams and events (torch.cuda.Stream / Event), and pinned host memory.
//
// Note [Streams]: work on a tensor (its kernels, copies to and from it) is
// ordered on its device's current stream; the current stream is per thread and
// per device, kept by the backend (glia_backend.current_stream). The core
// maps the backend's stream handles to Stream objects, so that asking twice
// for the current stream gives the same object (and so the same C handle):
//   - each device has a default stream (the stream current on a thread that
//     never set one), created with the device's state and never destroyed;
//   - stream_create hands out streams from a pool per device and priority
//     (torch's getStreamFromPool): up to kStreamPoolSize backend streams,
//     created lazily and then reused round-robin, never destroyed while the
//     backend is loaded. So a stream that is current on some thread can never
//     dangle, whatever the C handles do, and no thread-local state with a
//     destructor is needed (it would pin libglia: Note [Trivially destructible
//     TLS] in core/parallel.cpp).
// The CPU has one stream, the default, on which work runs synchronously (torch's
// torch.cpu.Stream, for device-agnostic code): every stream call works there and
// completes at once; CPU events record the host's clock.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/device.h"
#include "core/refcount.h"
#include "core/tensor.h"

namespace glia {

constexpr int32_t kStreamPoolSize = 32;  // torch's kStreamsPerPool

class Stream : public RefCounted {
 public:
  Stream(Device device, void* handle, int32_t priority) : device_(device), handle_(handle), priority_(priority) {}
  Device device() const { return device_; }
  // The backend's handle (nullptr for the CPU's stream).
  void* handle() const { return handle_; }
  // 0, or -1 for a stream from the high-priority pool.
  int32_t priority() const { return priority_; }

 private:
  Device device_;
  void* handle_;
  int32_t priority_;
};

class Event : public RefCounted {
 public:
  Event(Device device, void* handle, bool timing) : device_(device), handle_(handle), timing_(timing) {}
  ~Event() override;  // destroys the backend's event
  Device device() const { return device_; }
  void* handle() const { return handle_; }
  bool timing() const { return timing_; }
  bool recorded() const { return recorded_.load(std::memory_order_acquire); }

 private:
  friend void event_record(Event& event, const Stream& stream, const char* what);
  Device device_;
  void* handle_;
  bool timing_;
  std::atomic<bool> recorded_{false};
  std::atomic<int64_t> host_ns_{0};  // CPU events: the steady clock at the last record
  friend double event_elapsed_ms(const Event& start, const Event& end, const char* what);
};

// `what` names the caller in every error message.
// The calling thread's current stream of `device` (its default stream unless set_current_stream).
Ref<Stream> current_stream(Device device, const char* what);
// Makes `stream` the calling thread's current stream of its device.
void set_current_stream(const Stream& stream, const char* what);
// A stream from the device's pool (priority < 0: the high-priority pool); the CPU's one stream on the CPU.
Ref<Stream> stream_create(Device device, int32_t priority, const char* what);
void stream_synchronize(const Stream& stream, const char* what);
bool stream_query(const Stream& stream, const char* what);
// Later work on `stream` waits for the work `event` recorded (nothing when it was never recorded).
void stream_wait_event(const Stream& stream, const Event& event, const char* what);
// Later work on `stream` waits for the work queued on `other` so far.
void stream_wait_stream(const Stream& stream, const Stream& other, const char* what);
// The platform's handle of the stream (a cudaStream_t; nullptr for the CPU's).
void* stream_native(const Stream& stream, const char* what);

Ref<Event> event_create(Device device, bool timing, bool blocking, const char* what);
// Records on `stream`, which must be of the event's device.
void event_record(Event& event, const Stream& stream, const char* what);
void event_synchronize(const Event& event, const char* what);
bool event_query(const Event& event, const char* what);
// Milliseconds from start to end (torch's elapsed_time), after waiting for both.
double event_elapsed_ms(const Event& start, const Event& end, const char* what);

// Pinned host memory (Note [Non-blocking copies] in core/tensor.cpp).
// A CPU tensor in page-locked memory of the backend of device type `backend` (contiguous, uninitialised);
// in ordinary memory when the backend offers none. Error(Device) when the backend is not usable.
Tensor empty_pinned(IntSpan shape, DType dtype, DeviceType backend, const char* what);
// `t` (a CPU tensor) copied into pinned memory of `backend`; t itself when it is pinned already.
Tensor pin_memory(const Tensor& t, DeviceType backend, const char* what);
inline bool is_pinned(const Tensor& t) { return t.impl()->storage()->pinned(); }

}  // namespace glia
