// Streams, events, non-blocking copies and pinned memory on the CPU, and their
// errors: the CPU has one synchronous stream on which every call works (for
// device-agnostic code); devices without a backend are refused naming the
// device; bad handles and arguments are reported, and nothing changes on
// failure. tests/testdevice/streams_test.cpp covers a device with streams.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCpu{GLIA_CPU, 0};

struct Owned {
  std::vector<glia_tensor*> ts;
  std::vector<glia_stream*> ss;
  std::vector<glia_event*> es;
  ~Owned() {
    for (glia_tensor* t : ts) glia_tensor_release(t);
    for (glia_stream* s : ss) glia_stream_release(s);
    for (glia_event* e : es) glia_event_release(e);
  }
  glia_tensor* add(glia_tensor* t) {
    ts.push_back(t);
    return t;
  }
  glia_stream* add(glia_stream* s) {
    ss.push_back(s);
    return s;
  }
  glia_event* add(glia_event* e) {
    es.push_back(e);
    return e;
  }
};

glia_tensor* floats(Owned& o, const std::vector<float>& v, std::vector<int64_t> shape) {
  glia_tensor* t = nullptr;
  glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(),
                                        static_cast<int64_t>(shape.size()), GLIA_FLOAT32, &t);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  return o.add(t);
}

std::vector<double> doubles(glia_tensor* t) {
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
  glia_tensor* d = nullptr;
  EXPECT_EQ(glia_tensor_to(t, nullptr, ptr_to(GLIA_FLOAT64), &d), nullptr);
  std::vector<double> v(static_cast<size_t>(n));
  EXPECT_EQ(glia_tensor_copy_to_host(d, v.data(), v.size() * sizeof(double)), nullptr);
  glia_tensor_release(d);
  return v;
}

TEST(CpuStreams, TheCpuHasOneSynchronousStream) {
  Owned o;
  glia_stream* cur = nullptr;
  GLIA_OK_(glia_device_current_stream(kCpu, &cur));
  o.add(cur);
  glia_stream* again = nullptr;
  GLIA_OK_(glia_device_current_stream(glia_device{GLIA_CPU, -1}, &again));
  o.add(again);
  EXPECT_EQ(again, cur);
  // Creating a stream gives the CPU's one stream, whatever the priority.
  glia_stream_options opts;
  glia_stream_options_init(&opts);
  EXPECT_EQ(opts.struct_size, sizeof(glia_stream_options));
  EXPECT_EQ(opts.priority, 0);
  opts.priority = -1;
  glia_stream* made = nullptr;
  GLIA_OK_(glia_stream_create(kCpu, &opts, &made));
  o.add(made);
  EXPECT_EQ(made, cur);
  glia_device d{GLIA_CUDA, 7};
  GLIA_OK_(glia_stream_device(made, &d));
  EXPECT_EQ(d.type, GLIA_CPU);
  EXPECT_EQ(d.index, 0);
  void* native = reinterpret_cast<void*>(1);
  GLIA_OK_(glia_stream_native(made, &native));
  EXPECT_EQ(native, nullptr);
  GLIA_OK_(glia_device_set_current_stream(made));
  GLIA_OK_(glia_stream_synchronize(made));
  int32_t done = -1;
  GLIA_OK_(glia_stream_query(made, &done));
  EXPECT_EQ(done, 1);
  GLIA_OK_(glia_stream_wait_stream(made, cur));
  GLIA_OK_(glia_device_synchronize(kCpu));
  // Retain and release pair up; the stream outlives every handle.
  GLIA_OK_(glia_stream_retain(made));
  GLIA_OK_(glia_stream_release(made));
  GLIA_OK_(glia_stream_release(nullptr));
}

TEST(CpuStreams, CpuEventsCompleteWhenRecordedAndTimeTheHost) {
  Owned o;
  glia_event_options opts;
  glia_event_options_init(&opts);
  EXPECT_EQ(opts.struct_size, sizeof(glia_event_options));
  EXPECT_EQ(opts.enable_timing, 0);
  EXPECT_EQ(opts.blocking, 0);
  opts.enable_timing = 1;
  opts.blocking = 1;
  glia_event *start = nullptr, *end = nullptr, *plain = nullptr;
  GLIA_OK_(glia_event_create(kCpu, &opts, &start));
  o.add(start);
  GLIA_OK_(glia_event_create(kCpu, &opts, &end));
  o.add(end);
  GLIA_OK_(glia_event_create(kCpu, nullptr, &plain));
  o.add(plain);
  double ms = -1;
  EXPECT_GLIA_MSG(glia_event_elapsed_time(start, end, &ms), GLIA_ERR_STATE,
                  "glia_event_elapsed_time: both events must be recorded before calculating elapsed time");
  EXPECT_EQ(ms, -1);
  int32_t done = -1;
  GLIA_OK_(glia_event_query(start, &done));  // never recorded: complete
  EXPECT_EQ(done, 1);
  GLIA_OK_(glia_event_record(start, nullptr));
  std::vector<float> big(1 << 16, 1.0f);
  glia_tensor* x = floats(o, big, {1 << 16});
  glia_tensor* y = nullptr;
  GLIA_OK_(glia_exp(x, &y));
  o.add(y);
  glia_stream* cur = nullptr;
  GLIA_OK_(glia_device_current_stream(kCpu, &cur));
  o.add(cur);
  GLIA_OK_(glia_event_record(end, cur));
  GLIA_OK_(glia_event_record(plain, cur));
  GLIA_OK_(glia_event_synchronize(end));
  GLIA_OK_(glia_event_query(end, &done));
  EXPECT_EQ(done, 1);
  GLIA_OK_(glia_event_elapsed_time(start, end, &ms));
  EXPECT_GE(ms, 0.0);
  EXPECT_LT(ms, 60000.0);
  EXPECT_GLIA_MSG(glia_event_elapsed_time(start, plain, &ms), GLIA_ERR_INVALID_ARGUMENT,
                  "both events must be created with enable_timing");
  GLIA_OK_(glia_stream_wait_event(cur, end));
  GLIA_OK_(glia_stream_wait_event(nullptr, end));
  glia_device d{};
  GLIA_OK_(glia_event_device(end, &d));
  EXPECT_EQ(d.type, GLIA_CPU);
}

TEST(CpuStreams, EachThreadSeesTheCpuStream) {
  Owned o;
  glia_stream* mine = nullptr;
  GLIA_OK_(glia_device_current_stream(kCpu, &mine));
  o.add(mine);
  glia_stream* theirs = nullptr;
  std::thread t([&] { glia_error_free(glia_device_current_stream(kCpu, &theirs)); });
  t.join();
  o.add(theirs);
  EXPECT_EQ(theirs, mine);
}

TEST(CpuStreams, NonBlockingCopiesOnTheCpuAreOrdinaryCopies) {
  Owned o;
  glia_tensor* x = floats(o, {1, 2, 3, 4}, {2, 2});
  glia_tensor* same = nullptr;
  GLIA_OK_(glia_tensor_to_non_blocking(x, &kCpu, nullptr, &same));
  o.add(same);
  EXPECT_EQ(same, x);  // nothing to do: the tensor itself
  glia_tensor* f64 = nullptr;
  GLIA_OK_(glia_tensor_to_non_blocking(x, nullptr, ptr_to(GLIA_FLOAT64), &f64));
  o.add(f64);
  glia_dtype dt = GLIA_FLOAT32;
  GLIA_OK_(glia_tensor_dtype(f64, &dt));
  EXPECT_EQ(dt, GLIA_FLOAT64);
  EXPECT_EQ(doubles(f64), (std::vector<double>{1, 2, 3, 4}));
  glia_tensor* row = floats(o, {5, 6}, {2});
  GLIA_OK_(glia_copy_non_blocking_(f64, row));  // broadcast and converted, as glia_copy_
  EXPECT_EQ(doubles(f64), (std::vector<double>{5, 6, 5, 6}));
  glia_tensor* wrong = floats(o, {1, 2, 3}, {3});
  EXPECT_GLIA_ERR(glia_copy_non_blocking_(f64, wrong), GLIA_ERR_SHAPE);
  EXPECT_EQ(doubles(f64), (std::vector<double>{5, 6, 5, 6}));
  int32_t pinned = -1;
  GLIA_OK_(glia_tensor_is_pinned(x, &pinned));
  EXPECT_EQ(pinned, 0);
  glia_tensor* out = nullptr;
  EXPECT_GLIA_ERR(glia_tensor_to_non_blocking(x, &kCpu, nullptr, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_to_non_blocking(x, nullptr, ptr_to(static_cast<glia_dtype>(42)), &out), GLIA_ERR_DTYPE);
  EXPECT_EQ(out, nullptr);
}

TEST(CpuStreams, PinningNeedsABackendDevice) {
  Owned o;
  glia_tensor* x = floats(o, {1, 2}, {2});
  glia_tensor* out = nullptr;
  EXPECT_GLIA_MSG(glia_tensor_pin_memory(x, GLIA_CPU, &out), GLIA_ERR_DEVICE,
                  "glia_tensor_pin_memory: pinned memory comes from the backend of a device type");
  EXPECT_GLIA_MSG(glia_tensor_pin_memory(x, static_cast<glia_device_type>(9), &out), GLIA_ERR_INVALID_ARGUMENT,
                  "unknown device type 9");
  if (!glia_cuda_is_available())
    EXPECT_GLIA_MSG(glia_tensor_pin_memory(x, GLIA_CUDA, &out), GLIA_ERR_DEVICE,
                    "glia_tensor_pin_memory: no cuda device is available (");
  EXPECT_GLIA_ERR(glia_tensor_pin_memory(x, GLIA_CUDA, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  int32_t pinned = -1;
  EXPECT_GLIA_ERR(glia_tensor_is_pinned(x, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_is_pinned(nullptr, &pinned), GLIA_ERR_INVALID_HANDLE);
  EXPECT_EQ(pinned, -1);
}

TEST(CpuStreams, DevicesWithoutABackendAreRefusedByName) {
  glia_stream* s = nullptr;
  glia_event* e = nullptr;
  if (!glia_cuda_is_available()) {
    EXPECT_GLIA_MSG(glia_stream_create(glia_device{GLIA_CUDA, 0}, nullptr, &s), GLIA_ERR_DEVICE,
                    "glia_stream_create: device cuda:0 is not available (");
    EXPECT_GLIA_MSG(glia_device_current_stream(glia_device{GLIA_CUDA, 1}, &s), GLIA_ERR_DEVICE,
                    "glia_device_current_stream: device cuda:1 is not available (");
    EXPECT_GLIA_MSG(glia_event_create(glia_device{GLIA_CUDA, 0}, nullptr, &e), GLIA_ERR_DEVICE,
                    "glia_event_create: device cuda:0 is not available (");
  }
  int32_t n = 0;
  char buf[256];
  size_t len = 0;
  GLIA_OK_(glia_backend_status(GLIA_PRIVATEUSE1, &n, buf, sizeof buf, &len));
  if (n == 0)
    EXPECT_GLIA_MSG(glia_stream_create(glia_device{GLIA_PRIVATEUSE1, 0}, nullptr, &s), GLIA_ERR_DEVICE,
                    "is not available");
  EXPECT_GLIA_MSG(glia_stream_create(glia_device{static_cast<glia_device_type>(5), 0}, nullptr, &s),
                  GLIA_ERR_INVALID_ARGUMENT, "unknown device type 5");
  EXPECT_GLIA_MSG(glia_stream_create(glia_device{GLIA_CPU, 1}, nullptr, &s), GLIA_ERR_DEVICE,
                  "cpu device index must be 0, got 1");
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(e, nullptr);
}

TEST(CpuStreams, BadHandlesAndArgumentsAreReported) {
  Owned o;
  glia_stream* s = nullptr;
  glia_event* e = nullptr;
  EXPECT_GLIA_MSG(glia_stream_synchronize(nullptr), GLIA_ERR_INVALID_HANDLE,
                  "glia_stream_synchronize: argument 'stream' is NULL, expected a glia_stream");
  EXPECT_GLIA_MSG(glia_device_set_current_stream(nullptr), GLIA_ERR_INVALID_HANDLE, "expected a glia_stream");
  EXPECT_GLIA_MSG(glia_event_record(nullptr, nullptr), GLIA_ERR_INVALID_HANDLE,
                  "glia_event_record: argument 'event' is NULL, expected a glia_event");
  EXPECT_GLIA_MSG(glia_stream_wait_event(nullptr, nullptr), GLIA_ERR_INVALID_HANDLE, "argument 'event'");
  EXPECT_GLIA_MSG(glia_stream_create(kCpu, nullptr, nullptr), GLIA_ERR_INVALID_ARGUMENT,
                  "glia_stream_create: argument 'out' is NULL");
  EXPECT_GLIA_MSG(glia_device_current_stream(kCpu, nullptr), GLIA_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
  glia_stream_options so;
  glia_stream_options_init(&so);
  so.struct_size = 4;
  EXPECT_GLIA_MSG(glia_stream_create(kCpu, &so, &s), GLIA_ERR_INVALID_ARGUMENT,
                  "options->struct_size is 4, expected at least");
  glia_event_options eo;
  glia_event_options_init(&eo);
  eo.struct_size = 2;
  EXPECT_GLIA_MSG(glia_event_create(kCpu, &eo, &e), GLIA_ERR_INVALID_ARGUMENT, "use glia_event_options_init");
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(e, nullptr);
  // A tensor is no stream or event; an event no stream; a released event is dead.
  glia_tensor* t = floats(o, {1}, {1});
  EXPECT_GLIA_MSG(glia_stream_query(reinterpret_cast<glia_stream*>(t), nullptr), GLIA_ERR_INVALID_HANDLE,
                  "argument 'stream' is not a live glia_stream");
  GLIA_OK_(glia_event_create(kCpu, nullptr, &e));
  EXPECT_GLIA_ERR(glia_stream_release(reinterpret_cast<glia_stream*>(e)), GLIA_ERR_INVALID_HANDLE);
  GLIA_OK_(glia_stream_create(kCpu, nullptr, &s));
  EXPECT_GLIA_MSG(glia_stream_wait_stream(s, reinterpret_cast<glia_stream*>(e)), GLIA_ERR_INVALID_HANDLE,
                  "argument 'other'");
  EXPECT_GLIA_MSG(glia_event_elapsed_time(e, e, nullptr), GLIA_ERR_INVALID_ARGUMENT, "argument 'out_ms' is NULL");
  EXPECT_GLIA_ERR(glia_stream_query(s, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_event_query(e, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_stream_native(s, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_stream_device(s, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_event_device(e, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  GLIA_OK_(glia_event_release(e));
  EXPECT_GLIA_MSG(glia_event_synchronize(e), GLIA_ERR_INVALID_HANDLE, "argument 'event' is not a live glia_event");
  EXPECT_GLIA_ERR(glia_event_release(e), GLIA_ERR_INVALID_HANDLE);
  GLIA_OK_(glia_stream_release(s));
  GLIA_OK_(glia_event_release(nullptr));
  // Options init accepts NULL.
  glia_stream_options_init(nullptr);
  glia_event_options_init(nullptr);
}

}  // namespace
