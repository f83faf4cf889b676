// glia_tensor_from_blob: zero-copy views over caller memory and the rule that
// the deleter runs exactly once, on success (last release) and on every failure.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/test_support.h"

namespace {

struct DeleterLog {
  int calls = 0;
  void* data = nullptr;
};

void count_deleter(void* context, void* data) {
  auto* log = static_cast<DeleterLog*>(context);
  ++log->calls;
  log->data = data;
}

const glia_device kCpu = {GLIA_CPU, 0};

std::vector<float> to_host_f32(const glia_tensor* t) {
  int64_t n = 0;
  EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
  std::vector<float> v(static_cast<size_t>(n));
  glia_error* e = glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(float));
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return v;
}

TEST(FromBlob, SharesMemoryBothWays) {
  float buf[6] = {0, 1, 2, 3, 4, 5};
  DeleterLog log;
  int64_t shape[] = {2, 3};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_blob(buf, shape, nullptr, 2, GLIA_FLOAT32, kCpu, count_deleter, &log, &t));

  void* data = nullptr;
  GLIA_OK_(glia_tensor_data(t, &data));
  EXPECT_EQ(data, static_cast<void*>(buf));
  int64_t strides[2];
  GLIA_OK_(glia_tensor_strides(t, 2, strides));
  EXPECT_EQ(strides[0], 3);
  EXPECT_EQ(strides[1], 1);
  int32_t contiguous = 0;
  GLIA_OK_(glia_tensor_is_contiguous(t, &contiguous));
  EXPECT_EQ(contiguous, 1);

  // Caller writes are seen by glia...
  buf[4] = 42.0f;
  EXPECT_EQ(to_host_f32(t), (std::vector<float>{0, 1, 2, 3, 42, 5}));
  // ...and writes through glia's pointer (here of a detached view) land in the caller's buffer.
  glia_tensor* view = nullptr;
  GLIA_OK_(glia_tensor_detach(t, &view));
  void* view_data = nullptr;
  GLIA_OK_(glia_tensor_data(view, &view_data));
  EXPECT_EQ(view_data, static_cast<void*>(buf));
  static_cast<float*>(view_data)[1] = -7.0f;
  EXPECT_EQ(buf[1], -7.0f);

  GLIA_OK_(glia_tensor_release(view));
  EXPECT_EQ(log.calls, 0);
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(log.data, static_cast<void*>(buf));
}

TEST(FromBlob, CustomStridesTransposedView) {
  // buf is a row-major 2x3 matrix; shape {3, 2} with strides {1, 3} is its transpose.
  int64_t buf[6] = {10, 11, 12, 20, 21, 22};
  int64_t shape[] = {3, 2};
  int64_t strides[] = {1, 3};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_blob(buf, shape, strides, 2, GLIA_INT64, kCpu, nullptr, nullptr, &t));

  int64_t got_shape[2], got_strides[2];
  GLIA_OK_(glia_tensor_shape(t, 2, got_shape));
  GLIA_OK_(glia_tensor_strides(t, 2, got_strides));
  EXPECT_EQ(got_shape[0], 3);
  EXPECT_EQ(got_shape[1], 2);
  EXPECT_EQ(got_strides[0], 1);
  EXPECT_EQ(got_strides[1], 3);
  int32_t contiguous = 1;
  GLIA_OK_(glia_tensor_is_contiguous(t, &contiguous));
  EXPECT_EQ(contiguous, 0);

  int64_t host[6];
  GLIA_OK_(glia_tensor_copy_to_host(t, host, sizeof(host)));
  const int64_t expected[6] = {10, 20, 11, 21, 12, 22};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(host[i], expected[i]) << i;
  GLIA_OK_(glia_tensor_release(t));

  // A strided 0-dim view of one element and a stride-2 vector over the same memory.
  glia_tensor* scalar = nullptr;
  GLIA_OK_(glia_tensor_from_blob(buf + 4, nullptr, nullptr, 0, GLIA_INT64, kCpu, nullptr, nullptr, &scalar));
  int64_t item = 0;
  GLIA_OK_(glia_tensor_item_int64(scalar, &item));
  EXPECT_EQ(item, 21);
  GLIA_OK_(glia_tensor_release(scalar));

  int64_t every_other_shape[] = {3};
  int64_t every_other_strides[] = {2};
  glia_tensor* v = nullptr;
  GLIA_OK_(glia_tensor_from_blob(buf + 1, every_other_shape, every_other_strides, 1, GLIA_INT64, kCpu, nullptr, nullptr,
                                 &v));
  int64_t vals[3];
  GLIA_OK_(glia_tensor_copy_to_host(v, vals, sizeof(vals)));
  EXPECT_EQ(vals[0], 11);
  EXPECT_EQ(vals[1], 20);
  EXPECT_EQ(vals[2], 22);
  GLIA_OK_(glia_tensor_release(v));
}

TEST(FromBlob, DeleterWaitsForTheLastView) {
  double buf[4] = {1, 2, 3, 4};
  DeleterLog log;
  int64_t shape[] = {4};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_blob(buf, shape, nullptr, 1, GLIA_FLOAT64, kCpu, count_deleter, &log, &t));
  glia_tensor* view = nullptr;
  GLIA_OK_(glia_tensor_detach(t, &view));
  EXPECT_NE(view, t);

  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(log.calls, 0);
  double host[4];
  GLIA_OK_(glia_tensor_copy_to_host(view, host, sizeof(host)));
  EXPECT_EQ(host[3], 4.0);

  GLIA_OK_(glia_tensor_release(view));
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(log.data, static_cast<void*>(buf));
}

TEST(FromBlob, ExtraHandleReferencesDelayTheDeleter) {
  float buf[2] = {1, 2};
  DeleterLog log;
  int64_t shape[] = {2};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_blob(buf, shape, nullptr, 1, GLIA_FLOAT32, kCpu, count_deleter, &log, &t));
  GLIA_OK_(glia_tensor_retain(t));
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(log.calls, 0);
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(log.calls, 1);
  EXPECT_GLIA_ERR(glia_tensor_release(t), GLIA_ERR_INVALID_HANDLE);
  EXPECT_EQ(log.calls, 1);
}

TEST(FromBlob, EmptyAndNullDataAreFine) {
  DeleterLog log;
  int64_t shape[] = {0, 5};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_blob(nullptr, shape, nullptr, 2, GLIA_FLOAT32, kCpu, count_deleter, &log, &t));
  int64_t numel = -1;
  GLIA_OK_(glia_tensor_numel(t, &numel));
  EXPECT_EQ(numel, 0);
  GLIA_OK_(glia_tensor_copy_to_host(t, nullptr, 0));
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(log.data, nullptr);
}

// Each failing call must report `code`, leave *out alone and call the deleter exactly once.
struct FailCase {
  const char* name;
  void* data;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: NULL
  int ndim;
  int dtype;
  glia_device device;
  bool null_out;
  enum glia_error_code code;
};

TEST(FromBlob, DeleterRunsOnceOnEveryFailure) {
  float buf[8] = {};
  const glia_device cuda0 = {GLIA_CUDA, 63};  // never available, GPU or not
  const glia_device bogus = {static_cast<glia_device_type>(7), 0};
  const glia_device cpu1 = {GLIA_CPU, 1};
  const FailCase cases[] = {
      {"negative size", buf, {2, -1}, {}, 2, GLIA_FLOAT32, kCpu, false, GLIA_ERR_INVALID_ARGUMENT},
      {"bad dtype", buf, {2}, {}, 1, 99, kCpu, false, GLIA_ERR_DTYPE},
      {"negative dtype", buf, {2}, {}, 1, -1, kCpu, false, GLIA_ERR_DTYPE},
      {"NULL out", buf, {2}, {}, 1, GLIA_FLOAT32, kCpu, true, GLIA_ERR_INVALID_ARGUMENT},
      {"NULL data", nullptr, {2, 2}, {}, 2, GLIA_FLOAT32, kCpu, false, GLIA_ERR_INVALID_ARGUMENT},
      {"negative stride", buf, {2, 2}, {-2, 1}, 2, GLIA_FLOAT32, kCpu, false, GLIA_ERR_INVALID_ARGUMENT},
      {"unknown device type", buf, {2}, {}, 1, GLIA_FLOAT32, bogus, false, GLIA_ERR_INVALID_ARGUMENT},
      {"cuda device", buf, {2}, {}, 1, GLIA_FLOAT32, cuda0, false, GLIA_ERR_DEVICE},
      {"cpu index 1", buf, {2}, {}, 1, GLIA_FLOAT32, cpu1, false, GLIA_ERR_DEVICE},
      {"ndim too large",
       buf,
       std::vector<int64_t>(65, 1),
       {},
       65,
       GLIA_FLOAT32,
       kCpu,
       false,
       GLIA_ERR_INVALID_ARGUMENT},
      {"negative ndim", buf, {}, {}, -1, GLIA_FLOAT32, kCpu, false, GLIA_ERR_INVALID_ARGUMENT},
      {"NULL shape", buf, {}, {}, 2, GLIA_FLOAT32, kCpu, false, GLIA_ERR_INVALID_ARGUMENT},
      {"numel overflow", buf, {int64_t(1) << 40, int64_t(1) << 40}, {}, 2, GLIA_FLOAT32, kCpu, false, GLIA_ERR_SHAPE},
  };
  for (const FailCase& c : cases) {
    SCOPED_TRACE(c.name);
    DeleterLog log;
    glia_tensor* sentinel = reinterpret_cast<glia_tensor*>(uintptr_t(0x1234));
    glia_tensor* out = sentinel;
    glia_error* e = glia_tensor_from_blob(
        c.data, c.shape.empty() ? nullptr : c.shape.data(), c.strides.empty() ? nullptr : c.strides.data(), c.ndim,
        static_cast<glia_dtype>(c.dtype), c.device, count_deleter, &log, c.null_out ? nullptr : &out);
    glia_test::ErrorInfo info = glia_test::take(e);
    EXPECT_EQ(info.code, c.code) << info.message;
    EXPECT_FALSE(info.message.empty());
    EXPECT_EQ(log.calls, 1);
    EXPECT_EQ(log.data, c.data);
    EXPECT_EQ(out, sentinel);
  }
}

TEST(FromBlob, FailureWithoutDeleterIsFine) {
  float buf[2] = {};
  int64_t shape[] = {-3};
  glia_tensor* out = nullptr;
  EXPECT_GLIA_ERR(glia_tensor_from_blob(buf, shape, nullptr, 1, GLIA_FLOAT32, kCpu, nullptr, nullptr, &out),
                  GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
}

TEST(FromBlob, ErrorMessagesNameTheProblem) {
  float buf[4] = {};
  int64_t shape[] = {2, 2};
  int64_t strides[] = {2, -1};
  glia_tensor* out = nullptr;
  glia_test::ErrorInfo info =
      glia_test::take(glia_tensor_from_blob(buf, shape, strides, 2, GLIA_FLOAT32, kCpu, nullptr, nullptr, &out));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("negative stride -1"), std::string::npos) << info.message;

  const glia_device cuda63 = {GLIA_CUDA, 63};  // never available, GPU or not
  info = glia_test::take(glia_tensor_from_blob(buf, shape, nullptr, 2, GLIA_FLOAT32, cuda63, nullptr, nullptr, &out));
  EXPECT_EQ(info.code, GLIA_ERR_DEVICE);
  EXPECT_NE(info.message.find("cuda:63"), std::string::npos) << info.message;
}

}  // namespace
