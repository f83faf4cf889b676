// Streams, events, non-blocking copies and pinned memory through the C API on
// the test device (Note [Test device streams] in testdevice.cpp): the device
// counts the kernels, copies, event records and waits queued on each stream,
// so these tests see on which stream glia queued its work, and it refuses a
// non-blocking copy whose host side is not pinned.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCpu{GLIA_CPU, 0};
constexpr glia_device kDev0{GLIA_PRIVATEUSE1, 0};
constexpr glia_device kDev1{GLIA_PRIVATEUSE1, 1};

template <class F>
F control(const char* name) {
  void* h = dlopen(GLIA_TESTDEVICE_PATH, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(h, nullptr) << "the test device is not loaded";
  F f = h ? reinterpret_cast<F>(dlsym(h, name)) : nullptr;
  EXPECT_NE(f, nullptr) << name;
  if (h) dlclose(h);
  return f;
}

void* native(const glia_stream* s) {
  void* p = nullptr;
  glia_error* e = glia_stream_native(s, &p);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  return p;
}

// What the test device counted on stream `s` ("kernels", "copies", "non_blocking_copies", "records", "waits"...).
int64_t count(const glia_stream* s, const char* what) {
  return control<int64_t (*)(const void*, const char*)>("glia_testdevice_stream_count")(native(s), what);
}

int64_t live_events() { return control<int64_t (*)()>("glia_testdevice_live_events")(); }
int64_t live_pinned() { return control<int64_t (*)()>("glia_testdevice_live_pinned")(); }
void set_pending(bool on) { control<void (*)(int)>("glia_testdevice_set_pending")(on ? 1 : 0); }

class TestDeviceStreams : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
  void SetUp() override {
    events_before_ = live_events();
    pinned_before_ = live_pinned();
    GLIA_OK_(glia_device_current_stream(kDev0, &default0_));
    GLIA_OK_(glia_device_current_stream(kDev1, &default1_));
    ASSERT_EQ(count(default0_, "id"), 0) << "a test left a stream current";
    ASSERT_EQ(count(default1_, "id"), 0) << "a test left a stream current";
  }
  void TearDown() override {
    // Every test leaves the default streams current, as it found them.
    glia_error_free(glia_device_set_current_stream(default0_));
    glia_error_free(glia_device_set_current_stream(default1_));
    set_pending(false);
    for (glia_tensor* t : tensors_) glia_tensor_release(t);
    for (glia_stream* s : streams_) glia_stream_release(s);
    for (glia_event* e : events_) glia_event_release(e);
    glia_stream_release(default0_);
    glia_stream_release(default1_);
    EXPECT_EQ(live_events(), events_before_) << "events leaked";
    EXPECT_EQ(live_pinned(), pinned_before_) << "pinned memory leaked";
    auto live = control<int64_t (*)(int32_t)>("glia_testdevice_live_allocations");
    EXPECT_EQ(live(0), 0) << "device memory leaked";
    EXPECT_EQ(live(1), 0) << "device memory leaked";
  }
  glia_tensor* keep(glia_tensor* t) {
    tensors_.push_back(t);
    return t;
  }
  glia_stream* keep(glia_stream* s) {
    streams_.push_back(s);
    return s;
  }
  glia_event* keep(glia_event* e) {
    events_.push_back(e);
    return e;
  }
  glia_stream* stream(glia_device d, int32_t priority = 0) {
    glia_stream_options o;
    glia_stream_options_init(&o);
    o.priority = priority;
    glia_stream* s = nullptr;
    glia_error* e = glia_stream_create(d, &o, &s);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(s);
  }
  glia_event* event(glia_device d, bool timing = false) {
    glia_event_options o;
    glia_event_options_init(&o);
    o.enable_timing = timing ? 1 : 0;
    glia_event* ev = nullptr;
    glia_error* e = glia_event_create(d, &o, &ev);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(ev);
  }
  glia_tensor* host(const std::vector<float>& v, std::vector<int64_t> shape) {
    glia_tensor* t = nullptr;
    glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(),
                                          static_cast<int64_t>(shape.size()), GLIA_FLOAT32, &t);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(t);
  }
  glia_tensor* pinned(const std::vector<float>& v, std::vector<int64_t> shape) {
    glia_tensor* p = nullptr;
    glia_error* e = glia_tensor_pin_memory(host(v, shape), GLIA_PRIVATEUSE1, &p);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(p);
  }
  glia_tensor* to(glia_tensor* t, glia_device d, bool non_blocking = false, const glia_dtype* dtype = nullptr) {
    glia_tensor* out = nullptr;
    glia_error* e = non_blocking ? glia_tensor_to_non_blocking(t, &d, dtype, &out) : glia_tensor_to(t, &d, dtype, &out);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(out);
  }
  std::vector<float> values(glia_tensor* t) {
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    std::vector<float> v(static_cast<size_t>(n));
    glia_error* e = glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(float));
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return v;
  }
  int32_t is_pinned(const glia_tensor* t) {
    int32_t p = -1;
    EXPECT_EQ(glia_tensor_is_pinned(t, &p), nullptr);
    return p;
  }

  glia_stream* default0_ = nullptr;
  glia_stream* default1_ = nullptr;
  int64_t events_before_ = 0, pinned_before_ = 0;
  std::vector<glia_tensor*> tensors_;
  std::vector<glia_stream*> streams_;
  std::vector<glia_event*> events_;
};

#ifndef GLIA_TESTDEVICE_MINIMAL_RUN

TEST_F(TestDeviceStreams, TheDefaultStreamIsOneHandlePerDevice) {
  glia_stream* again = nullptr;
  GLIA_OK_(glia_device_current_stream(kDev0, &again));
  keep(again);
  EXPECT_EQ(again, default0_);  // asking twice gives the same handle
  EXPECT_NE(default0_, default1_);
  glia_device d{};
  GLIA_OK_(glia_stream_device(default1_, &d));
  EXPECT_EQ(d.type, GLIA_PRIVATEUSE1);
  EXPECT_EQ(d.index, 1);
  EXPECT_EQ(count(default1_, "device"), 1);
  EXPECT_NE(native(default0_), native(default1_));
}

TEST_F(TestDeviceStreams, StreamsComeFromAPoolOf32PerDeviceAndPriority) {
  std::vector<glia_stream*> made;
  std::set<void*> natives;
  for (int i = 0; i < 32; ++i) {
    made.push_back(stream(kDev0));
    natives.insert(native(made.back()));
    EXPECT_GT(count(made.back(), "id"), 0);
    EXPECT_EQ(count(made.back(), "priority"), 0);
  }
  EXPECT_EQ(natives.size(), 32u);
  EXPECT_EQ(natives.count(native(default0_)), 0u);
  // The 33rd is the first again: the same handle while that one is alive.
  glia_stream* wrap = stream(kDev0);
  EXPECT_EQ(wrap, made[0]);
  // The high-priority pool is its own.
  glia_stream* high = stream(kDev0, -1);
  EXPECT_EQ(count(high, "priority"), -1);
  EXPECT_EQ(natives.count(native(high)), 0u);
  // Another device has its own pool.
  glia_stream* other = stream(kDev1);
  EXPECT_EQ(count(other, "device"), 1);
}

TEST_F(TestDeviceStreams, WorkIsQueuedOnTheCurrentStream) {
  glia_stream* s = stream(kDev0);
  const int64_t k0 = count(default0_, "kernels"), c0 = count(default0_, "copies");
  const int64_t ks = count(s, "kernels"), cs = count(s, "copies");
  GLIA_OK_(glia_device_set_current_stream(s));
  glia_stream* cur = nullptr;
  GLIA_OK_(glia_device_current_stream(kDev0, &cur));
  keep(cur);
  EXPECT_EQ(cur, s);
  glia_tensor* a = to(host({1, 2, 3}, {3}), kDev0);  // one copy
  glia_tensor* b = nullptr;
  GLIA_OK_(glia_add(a, a, 1.0, &b));  // one kernel
  keep(b);
  EXPECT_EQ(values(b), (std::vector<float>{2, 4, 6}));  // one more copy
  EXPECT_EQ(count(s, "copies") - cs, 2);
  EXPECT_EQ(count(s, "kernels") - ks, 1);
  EXPECT_EQ(count(default0_, "kernels"), k0);
  EXPECT_EQ(count(default0_, "copies"), c0);
  // Back on the default stream, the work goes there again.
  GLIA_OK_(glia_device_set_current_stream(default0_));
  glia_tensor* c = nullptr;
  GLIA_OK_(glia_mul(b, b, &c));
  keep(c);
  EXPECT_EQ(count(default0_, "kernels"), k0 + 1);
  EXPECT_EQ(count(s, "kernels") - ks, 1);
}

TEST_F(TestDeviceStreams, TheCurrentStreamIsPerThreadAndPerDevice) {
  glia_stream* s = stream(kDev0);
  GLIA_OK_(glia_device_set_current_stream(s));
  glia_stream* on1 = nullptr;
  GLIA_OK_(glia_device_current_stream(kDev1, &on1));
  keep(on1);
  EXPECT_EQ(on1, default1_);  // device 1 keeps its own
  glia_tensor* a = to(host({1, 2}, {2}), kDev0);
  const int64_t ks = count(s, "kernels"), k0 = count(default0_, "kernels");
  glia_stream* seen = nullptr;
  std::thread t([&] {
    glia_error_free(glia_device_current_stream(kDev0, &seen));
    glia_tensor* b = nullptr;
    glia_error_free(glia_neg(a, &b));
    glia_tensor_release(b);
  });
  t.join();
  keep(seen);
  EXPECT_EQ(seen, default0_);  // another thread still has the default stream
  EXPECT_EQ(count(default0_, "kernels"), k0 + 1);
  EXPECT_EQ(count(s, "kernels"), ks);
}

TEST_F(TestDeviceStreams, EventsOrderOneStreamAfterAnother) {
  glia_stream* producer = stream(kDev0);
  glia_stream* consumer = stream(kDev0);
  glia_event* e = event(kDev0);
  const int64_t r = count(producer, "records"), w = count(consumer, "waits");
  // An event never recorded: nothing to wait for, complete.
  GLIA_OK_(glia_stream_wait_event(consumer, e));
  EXPECT_EQ(count(consumer, "waits"), w);
  int32_t done = -1;
  GLIA_OK_(glia_event_query(e, &done));
  EXPECT_EQ(done, 1);
  GLIA_OK_(glia_event_record(e, producer));
  GLIA_OK_(glia_stream_wait_event(consumer, e));
  EXPECT_EQ(count(producer, "records"), r + 1);
  EXPECT_EQ(count(consumer, "waits"), w + 1);
  // NULL: the current stream of the event's device.
  const int64_t r0 = count(default0_, "records"), w0 = count(default0_, "waits");
  GLIA_OK_(glia_event_record(e, nullptr));
  GLIA_OK_(glia_stream_wait_event(nullptr, e));
  EXPECT_EQ(count(default0_, "records"), r0 + 1);
  EXPECT_EQ(count(default0_, "waits"), w0 + 1);
  GLIA_OK_(glia_event_synchronize(e));
  // wait_stream records on the other stream and waits on this one.
  GLIA_OK_(glia_stream_wait_stream(consumer, producer));
  EXPECT_EQ(count(producer, "records"), r + 2);
  EXPECT_EQ(count(consumer, "waits"), w + 2);
  // A stream of another device waits on the device; a CPU stream waits on the host.
  glia_stream* s1 = stream(kDev1);
  const int64_t w1 = count(s1, "waits");
  GLIA_OK_(glia_stream_wait_event(s1, e));
  EXPECT_EQ(count(s1, "waits"), w1 + 1);
  glia_stream* cpu = nullptr;
  GLIA_OK_(glia_device_current_stream(kCpu, &cpu));
  keep(cpu);
  GLIA_OK_(glia_stream_wait_event(cpu, e));
  GLIA_OK_(glia_stream_wait_stream(cpu, producer));
}

TEST_F(TestDeviceStreams, QueriesSayWhetherWorkIsPending) {
  glia_stream* s = stream(kDev0);
  glia_event* recorded = event(kDev0);
  glia_event* fresh = event(kDev0);
  GLIA_OK_(glia_event_record(recorded, s));
  int32_t done = -1;
  GLIA_OK_(glia_stream_query(s, &done));
  EXPECT_EQ(done, 1);
  set_pending(true);
  GLIA_OK_(glia_stream_query(s, &done));
  EXPECT_EQ(done, 0);
  GLIA_OK_(glia_event_query(recorded, &done));
  EXPECT_EQ(done, 0);
  GLIA_OK_(glia_event_query(fresh, &done));  // never recorded: complete
  EXPECT_EQ(done, 1);
  set_pending(false);
  GLIA_OK_(glia_event_query(recorded, &done));
  EXPECT_EQ(done, 1);
  GLIA_OK_(glia_stream_synchronize(s));
  GLIA_OK_(glia_device_synchronize(kDev0));
}

TEST_F(TestDeviceStreams, AnEventIsRecordedOnlyOnAStreamOfItsDevice) {
  glia_event* e = event(kDev0, /*timing=*/true);
  glia_event* end = event(kDev0, /*timing=*/true);
  glia_stream* s1 = stream(kDev1);
  const int64_t r1 = count(s1, "records");
  EXPECT_GLIA_MSG(glia_event_record(e, s1), GLIA_ERR_DEVICE,
                  "glia_event_record: event device testdevice:0 does not match recording stream's device "
                  "testdevice:1");
  EXPECT_EQ(count(s1, "records"), r1);
  // Nothing changed: the event is still unrecorded.
  GLIA_OK_(glia_event_record(end, nullptr));
  double ms = -1;
  EXPECT_GLIA_MSG(glia_event_elapsed_time(e, end, &ms), GLIA_ERR_STATE, "must be recorded");
  EXPECT_EQ(ms, -1);
  glia_stream* cpu = nullptr;
  GLIA_OK_(glia_device_current_stream(kCpu, &cpu));
  keep(cpu);
  EXPECT_GLIA_MSG(glia_event_record(e, cpu), GLIA_ERR_DEVICE, "recording stream's device cpu");
}

TEST_F(TestDeviceStreams, TimingEventsMeasureElapsedTime) {
  glia_event* start = event(kDev0, true);
  glia_event* end = event(kDev0, true);
  glia_event* plain = event(kDev0, false);
  glia_event* other = event(kDev1, true);
  GLIA_OK_(glia_event_record(start, nullptr));
  glia_tensor* a = to(host({1, 2, 3}, {3}), kDev0);
  glia_tensor* b = nullptr;
  GLIA_OK_(glia_exp(a, &b));
  keep(b);
  GLIA_OK_(glia_event_record(end, nullptr));
  GLIA_OK_(glia_event_record(plain, nullptr));
  GLIA_OK_(glia_event_record(other, nullptr));
  double ms = -1;
  GLIA_OK_(glia_event_elapsed_time(start, end, &ms));
  EXPECT_GE(ms, 0.0);
  EXPECT_LT(ms, 60000.0);
  EXPECT_GLIA_MSG(glia_event_elapsed_time(start, plain, &ms), GLIA_ERR_INVALID_ARGUMENT, "enable_timing");
  EXPECT_GLIA_MSG(glia_event_elapsed_time(start, other, &ms), GLIA_ERR_DEVICE,
                  "different devices, testdevice:0 and testdevice:1");
  glia_device d{};
  GLIA_OK_(glia_event_device(other, &d));
  EXPECT_EQ(d.index, 1);
}

TEST_F(TestDeviceStreams, EventsAreDestroyedWithTheirLastHandle) {
  glia_event* e = nullptr;
  GLIA_OK_(glia_event_create(kDev1, nullptr, &e));
  EXPECT_EQ(live_events(), events_before_ + 1);
  GLIA_OK_(glia_event_retain(e));
  GLIA_OK_(glia_event_release(e));
  EXPECT_EQ(live_events(), events_before_ + 1);
  GLIA_OK_(glia_event_release(e));
  EXPECT_EQ(live_events(), events_before_);
  EXPECT_GLIA_ERR(glia_event_release(e), GLIA_ERR_INVALID_HANDLE);
}

TEST_F(TestDeviceStreams, PinnedMemoryMakesHostToDeviceCopiesNonBlocking) {
  glia_tensor* x = host({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(is_pinned(x), 0);
  glia_tensor* p = pinned({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(is_pinned(p), 1);
  EXPECT_EQ(live_pinned(), pinned_before_ + 1);
  EXPECT_EQ(values(p), (std::vector<float>{1, 2, 3, 4}));
  // Pinning a pinned tensor gives it back.
  glia_tensor* again = nullptr;
  GLIA_OK_(glia_tensor_pin_memory(p, GLIA_PRIVATEUSE1, &again));
  keep(again);
  EXPECT_EQ(again, p);
  glia_stream* s = stream(kDev0);
  GLIA_OK_(glia_device_set_current_stream(s));
  const int64_t n = count(s, "non_blocking_copies"), c = count(s, "copies");
  glia_tensor* d = to(p, kDev0, /*non_blocking=*/true);
  EXPECT_EQ(count(s, "non_blocking_copies"), n + 1);
  // From ordinary memory the copy blocks, non_blocking or not (the device would refuse it otherwise).
  glia_tensor* d2 = to(x, kDev0, /*non_blocking=*/true);
  EXPECT_EQ(count(s, "non_blocking_copies"), n + 1);
  EXPECT_EQ(count(s, "copies"), c + 2);
  // A dtype conversion on the host goes through an ordinary temporary: blocking.
  const glia_dtype f64 = GLIA_FLOAT64;
  glia_tensor* d3 = to(p, kDev0, /*non_blocking=*/true, &f64);
  EXPECT_EQ(count(s, "non_blocking_copies"), n + 1);
  GLIA_OK_(glia_stream_synchronize(s));
  EXPECT_EQ(values(d), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(values(d2), (std::vector<float>{1, 2, 3, 4}));
  glia_tensor* back = to(d3, kCpu, false, ptr_to(GLIA_FLOAT32));
  EXPECT_EQ(values(back), (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(TestDeviceStreams, NonBlockingCopiesToTheHostLandInPinnedMemory) {
  glia_tensor* d = to(host({1, 2, 3, 4, 5, 6}, {2, 3}), kDev1);
  const int64_t n = count(default1_, "non_blocking_copies");
  glia_tensor* h = to(d, kCpu, /*non_blocking=*/true);
  EXPECT_EQ(is_pinned(h), 1);
  EXPECT_EQ(count(default1_, "non_blocking_copies"), n + 1);
  // With a dtype conversion, converted on the device first.
  const glia_dtype f64 = GLIA_FLOAT64;
  glia_tensor* h64 = to(d, kCpu, /*non_blocking=*/true, &f64);
  EXPECT_EQ(is_pinned(h64), 1);
  EXPECT_EQ(count(default1_, "non_blocking_copies"), n + 2);
  GLIA_OK_(glia_device_synchronize(kDev1));
  EXPECT_EQ(values(h), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  std::vector<double> v(6);
  GLIA_OK_(glia_tensor_copy_to_host(h64, v.data(), v.size() * sizeof(double)));
  EXPECT_EQ(v, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  // The blocking .to() gives ordinary memory.
  EXPECT_EQ(is_pinned(to(d, kCpu)), 0);
}

TEST_F(TestDeviceStreams, CopyNonBlockingIntoPinnedAndOrdinaryMemory) {
  glia_tensor* d = to(host({1, 2, 3, 4}, {2, 2}), kDev0);
  glia_tensor* p = pinned({0, 0, 0, 0}, {2, 2});
  glia_tensor* x = host({0, 0, 0, 0}, {2, 2});
  const int64_t n = count(default0_, "non_blocking_copies");
  GLIA_OK_(glia_copy_non_blocking_(p, d));
  EXPECT_EQ(count(default0_, "non_blocking_copies"), n + 1);
  GLIA_OK_(glia_copy_non_blocking_(x, d));
  EXPECT_EQ(count(default0_, "non_blocking_copies"), n + 1);
  // A non-contiguous pinned destination is filled through an ordinary temporary: blocking.
  glia_tensor* pt = nullptr;
  GLIA_OK_(glia_transpose(p, 0, 1, &pt));
  keep(pt);
  GLIA_OK_(glia_copy_non_blocking_(pt, d));
  EXPECT_EQ(count(default0_, "non_blocking_copies"), n + 1);
  GLIA_OK_(glia_device_synchronize(kDev0));
  EXPECT_EQ(values(x), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(values(p), (std::vector<float>{1, 3, 2, 4}));
  // Host to device from pinned memory, broadcast: the expanded source is gathered on the host, blocking.
  glia_tensor* row = pinned({7, 8}, {2});
  GLIA_OK_(glia_copy_non_blocking_(d, row));
  EXPECT_EQ(values(d), (std::vector<float>{7, 8, 7, 8}));
  EXPECT_GLIA_ERR(glia_copy_non_blocking_(d, nullptr), GLIA_ERR_INVALID_HANDLE);
}

TEST_F(TestDeviceStreams, CopiesBetweenDevicesOrderBothStreams) {
  glia_stream* s0 = stream(kDev0);
  glia_stream* s1 = stream(kDev1);
  GLIA_OK_(glia_device_set_current_stream(s0));
  GLIA_OK_(glia_device_set_current_stream(s1));
  glia_tensor* a = to(host({1, 2, 3}, {3}), kDev0);
  const int64_t r1 = count(s1, "records"), w0 = count(s0, "waits"), c0 = count(s0, "copies");
  const int64_t r0 = count(s0, "records"), w1 = count(s1, "waits"), n0 = count(s0, "non_blocking_copies");
  // Blocking: the source's stream waits for the destination's, then copies.
  glia_tensor* b = to(a, kDev1);
  EXPECT_EQ(count(s1, "records"), r1 + 1);
  EXPECT_EQ(count(s0, "waits"), w0 + 1);
  EXPECT_EQ(count(s0, "copies"), c0 + 1);
  EXPECT_EQ(count(s1, "waits"), w1);
  // Non-blocking: and the destination's stream waits for the copy.
  glia_tensor* c = to(a, kDev1, /*non_blocking=*/true);
  EXPECT_EQ(count(s0, "records"), r0 + 1);
  EXPECT_EQ(count(s1, "waits"), w1 + 1);
  EXPECT_EQ(count(s0, "non_blocking_copies"), n0 + 1);
  EXPECT_EQ(values(b), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(values(c), (std::vector<float>{1, 2, 3}));
}

TEST_F(TestDeviceStreams, PinMemoryIsDifferentiableAndFreesItsBlock) {
  glia_tensor* x = host({1, 2, 3}, {3});
  GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
  glia_tensor* p = nullptr;
  GLIA_OK_(glia_tensor_pin_memory(x, GLIA_PRIVATEUSE1, &p));
  char name[64];
  size_t len = 0;
  GLIA_OK_(glia_tensor_grad_fn_name(p, name, sizeof name, &len));
  EXPECT_STREQ(name, "PinMemoryBackward0");
  glia_tensor* s = nullptr;
  GLIA_OK_(glia_sum(p, nullptr, 0, 0, &s));
  GLIA_OK_(glia_tensor_backward(s, nullptr, 0));
  glia_tensor* g = nullptr;
  GLIA_OK_(glia_tensor_grad(x, &g));
  keep(g);
  EXPECT_EQ(values(g), (std::vector<float>{1, 1, 1}));
  glia_tensor_release(s);
  EXPECT_EQ(live_pinned(), pinned_before_ + 1);
  GLIA_OK_(glia_tensor_release(p));
  EXPECT_EQ(live_pinned(), pinned_before_);
}

TEST_F(TestDeviceStreams, ErrorsNameTheDeviceAndChangeNothing) {
  glia_stream* s = nullptr;
  EXPECT_GLIA_MSG(glia_stream_create(glia_device{GLIA_PRIVATEUSE1, 5}, nullptr, &s), GLIA_ERR_DEVICE,
                  "glia_stream_create: device testdevice:5 is not available (the testdevice backend has 2 devices)");
  EXPECT_EQ(s, nullptr);
  EXPECT_GLIA_MSG(glia_device_current_stream(glia_device{GLIA_PRIVATEUSE1, 2}, &s), GLIA_ERR_DEVICE,
                  "testdevice:2 is not available");
  glia_event* e = nullptr;
  EXPECT_GLIA_MSG(glia_event_create(glia_device{GLIA_PRIVATEUSE1, -3}, nullptr, &e), GLIA_ERR_DEVICE, "not available");
  glia_tensor* d = to(host({1}, {1}), kDev0);
  glia_tensor* p = nullptr;
  EXPECT_GLIA_MSG(glia_tensor_pin_memory(d, GLIA_PRIVATEUSE1, &p), GLIA_ERR_DEVICE,
                  "glia_tensor_pin_memory: cannot pin a tensor on testdevice:0: only CPU tensors can be pinned");
  EXPECT_EQ(p, nullptr);
  // A device fault: the call fails and the current stream stays.
  glia_stream* mine = stream(kDev0);
  auto sticky = control<void (*)(int)>("glia_testdevice_set_sticky_error");
  sticky(1);
  EXPECT_GLIA_ERR(glia_device_set_current_stream(mine), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_event_create(kDev0, nullptr, &e), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_stream_synchronize(mine), GLIA_ERR_DEVICE);
  sticky(0);
  glia_stream* cur = nullptr;
  GLIA_OK_(glia_device_current_stream(kDev0, &cur));
  keep(cur);
  EXPECT_EQ(cur, default0_);
  // A handle of another type.
  EXPECT_GLIA_MSG(glia_stream_synchronize(reinterpret_cast<glia_stream*>(d)), GLIA_ERR_INVALID_HANDLE,
                  "argument 'stream' is not a live glia_stream");
  EXPECT_GLIA_MSG(glia_event_query(reinterpret_cast<glia_event*>(mine), nullptr), GLIA_ERR_INVALID_HANDLE,
                  "argument 'event' is not a live glia_event");
}

#else  // the binary testdevice_minimal_backend

// Built again as testdevice_minimal_backend and run with GLIA_TESTDEVICE_MINIMAL=1 (ctest
// testdevice.minimal_backend): a backend built before the fields appended to
// ABI version 2, without pinned memory. Everything works, through the core's fallbacks.
TEST_F(TestDeviceStreams, ABackendWithoutTheAppendedFieldsStillWorks) {
  glia_tensor* p = nullptr;
  GLIA_OK_(glia_tensor_pin_memory(host({1, 2}, {2}), GLIA_PRIVATEUSE1, &p));
  keep(p);
  EXPECT_EQ(is_pinned(p), 0);  // ordinary memory: no pinned allocator
  glia_stream* s = stream(kDev0, -1);
  EXPECT_EQ(count(s, "priority"), 0);  // no priorities
  GLIA_OK_(glia_device_set_current_stream(s));
  // Non-blocking copies block: no host memory is pinned.
  glia_tensor* d = to(p, kDev0, true);
  glia_tensor* h = to(d, kCpu, true);
  EXPECT_EQ(is_pinned(h), 0);
  EXPECT_EQ(count(s, "non_blocking_copies"), 0);
  EXPECT_EQ(values(h), (std::vector<float>{1, 2}));
  // Queries synchronise and answer complete; stream synchronisation goes through an event.
  set_pending(true);
  int32_t done = -1;
  GLIA_OK_(glia_stream_query(s, &done));
  EXPECT_EQ(done, 1);
  glia_event* e = event(kDev0);
  GLIA_OK_(glia_event_record(e, s));
  GLIA_OK_(glia_event_query(e, &done));
  EXPECT_EQ(done, 1);
  const int64_t r = count(s, "records");
  GLIA_OK_(glia_stream_synchronize(s));
  EXPECT_EQ(count(s, "records"), r + 1);
  set_pending(false);
  // Timing events need the appended fields.
  glia_event_options o;
  glia_event_options_init(&o);
  o.enable_timing = 1;
  glia_event* t = nullptr;
  EXPECT_GLIA_MSG(glia_event_create(kDev0, &o, &t), GLIA_ERR_UNSUPPORTED,
                  "the testdevice backend does not time events");
}

#endif

}  // namespace
