// The C API's tensor basics: factories, accessors, copies and conversions,
// printing, random generation, memory statistics and the host allocator hook.
// Golden values are torch 1.13's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

const glia_device kCpu = {GLIA_CPU, 0};

glia_tensor_options opts(glia_dtype dtype) {
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = dtype;
  return o;
}

int64_t numel_of(const glia_tensor* t) {
  int64_t n = -1;
  glia_error* e = glia_tensor_numel(t, &n);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return n;
}

glia_dtype dtype_of(const glia_tensor* t) {
  glia_dtype d = static_cast<glia_dtype>(-1);
  glia_error* e = glia_tensor_dtype(t, &d);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return d;
}

template <class T>
std::vector<T> host(const glia_tensor* t) {
  std::vector<T> v(static_cast<size_t>(numel_of(t)));
  glia_error* e = glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(T));
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return v;
}

std::vector<int64_t> shape_of(const glia_tensor* t) {
  int64_t nd = 0;
  EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
  std::vector<int64_t> v(static_cast<size_t>(nd));
  glia_error* e = glia_tensor_shape(t, nd, v.data());
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return v;
}

std::vector<int64_t> strides_of(const glia_tensor* t) {
  int64_t nd = 0;
  EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
  std::vector<int64_t> v(static_cast<size_t>(nd));
  glia_error* e = glia_tensor_strides(t, nd, v.data());
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return v;
}

int32_t contiguous_of(const glia_tensor* t) {
  int32_t c = -1;
  glia_error* e = glia_tensor_is_contiguous(t, &c);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return c;
}

void* data_of(glia_tensor* t) {
  void* p = nullptr;
  glia_error* e = glia_tensor_data(t, &p);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return p;
}

glia_memory_stats stats() {
  glia_memory_stats s{};
  s.struct_size = sizeof(s);
  glia_error* e = glia_memory_stats_get(&s);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return s;
}

// ---------------------------------------------------------------- factories

TEST(TensorFactories, EmptyZerosOnesFull) {
  int64_t shape[] = {2, 3};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_empty(shape, 2, nullptr, &t));
  EXPECT_EQ(dtype_of(t), GLIA_FLOAT32);
  EXPECT_EQ(shape_of(t), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(numel_of(t), 6);
  GLIA_OK_(glia_tensor_release(t));

  GLIA_OK_(glia_tensor_zeros(shape, 2, nullptr, &t));
  EXPECT_EQ(host<float>(t), std::vector<float>(6, 0.0f));
  GLIA_OK_(glia_tensor_release(t));

  for (int d = 0; d < 8; ++d) {
    glia_dtype dtype = static_cast<glia_dtype>(d);
    SCOPED_TRACE(glia_dtype_name(dtype));
    glia_tensor_options o = opts(dtype);
    GLIA_OK_(glia_tensor_ones(shape, 2, &o, &t));
    EXPECT_EQ(dtype_of(t), dtype);
    glia_tensor* f = nullptr;
    GLIA_OK_(glia_tensor_to(t, &kCpu, ptr_to(GLIA_FLOAT64), &f));
    EXPECT_EQ(host<double>(f), std::vector<double>(6, 1.0));
    GLIA_OK_(glia_tensor_release(f));
    GLIA_OK_(glia_tensor_release(t));
  }

  // torch.full((3,), 2.7, dtype=torch.int64) -> [2, 2, 2]; -1.5 as int32 -> -1; 0.5 as bool -> True.
  int64_t three[] = {3};
  glia_tensor_options o = opts(GLIA_INT64);
  GLIA_OK_(glia_tensor_full(three, 1, 2.7, &o, &t));
  EXPECT_EQ(host<int64_t>(t), (std::vector<int64_t>{2, 2, 2}));
  GLIA_OK_(glia_tensor_release(t));
  o = opts(GLIA_INT32);
  GLIA_OK_(glia_tensor_full(three, 1, -1.5, &o, &t));
  EXPECT_EQ(host<int32_t>(t), (std::vector<int32_t>{-1, -1, -1}));
  GLIA_OK_(glia_tensor_release(t));
  o = opts(GLIA_BOOL);
  GLIA_OK_(glia_tensor_full(three, 1, 0.5, &o, &t));
  EXPECT_EQ(host<uint8_t>(t), (std::vector<uint8_t>{1, 1, 1}));
  GLIA_OK_(glia_tensor_release(t));
  o = opts(GLIA_FLOAT16);
  GLIA_OK_(glia_tensor_full(three, 1, 1.5, &o, &t));
  EXPECT_EQ(host<uint16_t>(t), (std::vector<uint16_t>{0x3E00, 0x3E00, 0x3E00}));
  GLIA_OK_(glia_tensor_release(t));
}

TEST(TensorFactories, ScalarAndEmptyShapes) {
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_full(nullptr, 0, 7.25, nullptr, &t));
  int64_t nd = -1;
  GLIA_OK_(glia_tensor_ndim(t, &nd));
  EXPECT_EQ(nd, 0);
  EXPECT_EQ(numel_of(t), 1);
  EXPECT_EQ(contiguous_of(t), 1);
  double v = 0;
  GLIA_OK_(glia_tensor_item_double(t, &v));
  EXPECT_EQ(v, 7.25);
  GLIA_OK_(glia_tensor_shape(t, 0, nullptr));
  GLIA_OK_(glia_tensor_release(t));

  int64_t shape[] = {3, 0, 2};
  GLIA_OK_(glia_tensor_zeros(shape, 3, nullptr, &t));
  EXPECT_EQ(numel_of(t), 0);
  EXPECT_EQ(contiguous_of(t), 1);
  GLIA_OK_(glia_tensor_copy_to_host(t, nullptr, 0));
  GLIA_OK_(glia_tensor_release(t));
}

TEST(TensorFactories, Errors) {
  glia_tensor* t = nullptr;
  int64_t neg[] = {2, -1};
  EXPECT_GLIA_ERR(glia_tensor_zeros(neg, 2, nullptr, &t), GLIA_ERR_INVALID_ARGUMENT);
  int64_t ok[] = {2};
  EXPECT_GLIA_ERR(glia_tensor_zeros(ok, -1, nullptr, &t), GLIA_ERR_INVALID_ARGUMENT);
  std::vector<int64_t> many(65, 1);
  EXPECT_GLIA_ERR(glia_tensor_zeros(many.data(), 65, nullptr, &t), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_zeros(nullptr, 1, nullptr, &t), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_zeros(ok, 1, nullptr, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_GLIA_ERR(glia_tensor_empty(huge, 2, nullptr, &t), GLIA_ERR_SHAPE);
  glia_tensor_options o = opts(static_cast<glia_dtype>(10));  // one past GLIA_INT16
  EXPECT_GLIA_ERR(glia_tensor_ones(ok, 1, &o, &t), GLIA_ERR_DTYPE);
  o = opts(GLIA_FLOAT32);
  o.device = glia_device{GLIA_CUDA, 63};  // never available, GPU or not
  EXPECT_GLIA_ERR(glia_tensor_ones(ok, 1, &o, &t), GLIA_ERR_DEVICE);
  o = opts(GLIA_FLOAT32);
  o.struct_size = 0;
  EXPECT_GLIA_ERR(glia_tensor_ones(ok, 1, &o, &t), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(t, nullptr);
}

TEST(TensorFactories, ArangeInfersTorchDTypeAndLength) {
  glia_tensor* t = nullptr;
  // torch.arange(0, 1, 0.3) -> float32 [0.0, 0.3, 0.6, 0.9]
  GLIA_OK_(glia_tensor_arange(0, 1, 0.3, nullptr, &t));
  EXPECT_EQ(dtype_of(t), GLIA_FLOAT32);
  EXPECT_EQ(host<float>(t), (std::vector<float>{0.0f, 0.3f, 0.6f, 0.9f}));
  GLIA_OK_(glia_tensor_release(t));

  GLIA_OK_(glia_tensor_arange(0, 5, 1, nullptr, &t));
  EXPECT_EQ(dtype_of(t), GLIA_INT64);
  EXPECT_EQ(host<int64_t>(t), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  GLIA_OK_(glia_tensor_release(t));

  GLIA_OK_(glia_tensor_arange(5, 0, -1, nullptr, &t));
  EXPECT_EQ(host<int64_t>(t), (std::vector<int64_t>{5, 4, 3, 2, 1}));
  GLIA_OK_(glia_tensor_release(t));

  GLIA_OK_(glia_tensor_arange(0, 10, 3, nullptr, &t));
  EXPECT_EQ(host<int64_t>(t), (std::vector<int64_t>{0, 3, 6, 9}));
  GLIA_OK_(glia_tensor_release(t));

  GLIA_OK_(glia_tensor_arange(1, 2.5, 0.5, nullptr, &t));
  EXPECT_EQ(dtype_of(t), GLIA_FLOAT32);
  EXPECT_EQ(host<float>(t), (std::vector<float>{1.0f, 1.5f, 2.0f}));
  GLIA_OK_(glia_tensor_release(t));

  GLIA_OK_(glia_tensor_arange(-1, -2.2, -0.5, nullptr, &t));
  EXPECT_EQ(host<float>(t), (std::vector<float>{-1.0f, -1.5f, -2.0f}));
  GLIA_OK_(glia_tensor_release(t));

  GLIA_OK_(glia_tensor_arange(1, 1, 1, nullptr, &t));
  EXPECT_EQ(shape_of(t), std::vector<int64_t>{0});
  GLIA_OK_(glia_tensor_release(t));

  // torch.arange(0, 1, 0.1, dtype=torch.float64) has 10 elements.
  glia_tensor_options o = opts(GLIA_FLOAT64);
  GLIA_OK_(glia_tensor_arange(0, 1, 0.1, &o, &t));
  EXPECT_EQ(dtype_of(t), GLIA_FLOAT64);
  std::vector<double> v = host<double>(t);
  ASSERT_EQ(v.size(), 10u);
  EXPECT_EQ(v[9], 0.9);
  EXPECT_EQ(v[6], 0.6000000000000001);
  GLIA_OK_(glia_tensor_release(t));

  // Explicit options win over the inference: whole numbers as float32.
  o = opts(GLIA_FLOAT32);
  GLIA_OK_(glia_tensor_arange(0, 3, 1, &o, &t));
  EXPECT_EQ(dtype_of(t), GLIA_FLOAT32);
  EXPECT_EQ(host<float>(t), (std::vector<float>{0, 1, 2}));
  GLIA_OK_(glia_tensor_release(t));
}

TEST(TensorFactories, ArangeErrors) {
  glia_tensor* t = nullptr;
  EXPECT_GLIA_ERR(glia_tensor_arange(0, 5, 0, nullptr, &t), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_arange(0, 5, -1, nullptr, &t), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_arange(5, 0, 1, nullptr, &t), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_arange(0, INFINITY, 1, nullptr, &t), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_arange(NAN, 1, 1, nullptr, &t), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_arange(0, 1, NAN, nullptr, &t), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_arange(0, 1, 1, nullptr, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(t, nullptr);

  glia_test::ErrorInfo info = glia_test::take(glia_tensor_arange(0, 5, 0, nullptr, &t));
  EXPECT_NE(info.message.find("step must be nonzero"), std::string::npos) << info.message;
  info = glia_test::take(glia_tensor_arange(0, 5, -1, nullptr, &t));
  EXPECT_NE(info.message.find("upper bound and larger bound inconsistent with step sign"), std::string::npos)
      << info.message;
}

// ---------------------------------------------------------------- accessors

TEST(TensorAccessors, ShapeStridesOffsetDTypeDevice) {
  int64_t shape[] = {2, 3, 4};
  glia_tensor_options o = opts(GLIA_INT32);
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_zeros(shape, 3, &o, &t));
  EXPECT_EQ(shape_of(t), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(strides_of(t), (std::vector<int64_t>{12, 4, 1}));
  int64_t offset = -1;
  GLIA_OK_(glia_tensor_storage_offset(t, &offset));
  EXPECT_EQ(offset, 0);
  EXPECT_EQ(dtype_of(t), GLIA_INT32);
  glia_device dev{GLIA_CUDA, 5};
  GLIA_OK_(glia_tensor_device(t, &dev));
  EXPECT_EQ(dev.type, GLIA_CPU);
  EXPECT_EQ(dev.index, 0);
  EXPECT_EQ(numel_of(t), 24);
  EXPECT_EQ(contiguous_of(t), 1);

  // Too small a capacity writes nothing.
  int64_t small[2] = {-1, -1};
  EXPECT_GLIA_ERR(glia_tensor_shape(t, 2, small), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_strides(t, 2, small), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(small[0], -1);
  EXPECT_EQ(small[1], -1);
  EXPECT_GLIA_ERR(glia_tensor_numel(t, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  GLIA_OK_(glia_tensor_release(t));

  int64_t n = 0;
  EXPECT_GLIA_ERR(glia_tensor_numel(nullptr, &n), GLIA_ERR_INVALID_HANDLE);
  EXPECT_GLIA_ERR(glia_tensor_numel(t, &n), GLIA_ERR_INVALID_HANDLE);  // released
}

TEST(TensorAccessors, CopyToHostOfNonContiguousView) {
  float buf[6] = {1, 2, 3, 4, 5, 6};  // row-major 2x3
  int64_t shape[] = {3, 2};
  int64_t strides[] = {1, 3};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_blob(buf, shape, strides, 2, GLIA_FLOAT32, kCpu, nullptr, nullptr, &t));
  EXPECT_EQ(contiguous_of(t), 0);
  EXPECT_EQ(host<float>(t), (std::vector<float>{1, 4, 2, 5, 3, 6}));

  glia_tensor* view = nullptr;
  GLIA_OK_(glia_tensor_detach(t, &view));
  EXPECT_NE(view, t);
  EXPECT_EQ(data_of(view), data_of(t));
  EXPECT_EQ(strides_of(view), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(host<float>(view), (std::vector<float>{1, 4, 2, 5, 3, 6}));

  float small[5];
  EXPECT_GLIA_ERR(glia_tensor_copy_to_host(t, small, sizeof(small)), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_copy_to_host(t, nullptr, 6 * sizeof(float)), GLIA_ERR_INVALID_ARGUMENT);
  GLIA_OK_(glia_tensor_release(view));
  GLIA_OK_(glia_tensor_release(t));
}

TEST(TensorAccessors, Items) {
  glia_tensor_options o = opts(GLIA_FLOAT32);
  glia_tensor* t = nullptr;
  int64_t one[] = {1, 1};
  GLIA_OK_(glia_tensor_full(one, 2, -2.75, &o, &t));
  double d = 0;
  int64_t i = 0;
  GLIA_OK_(glia_tensor_item_double(t, &d));
  GLIA_OK_(glia_tensor_item_int64(t, &i));
  EXPECT_EQ(d, -2.75);
  EXPECT_EQ(i, -2);  // truncation toward zero, like int(torch.tensor(-2.75))
  GLIA_OK_(glia_tensor_release(t));

  o = opts(GLIA_BOOL);
  GLIA_OK_(glia_tensor_ones(nullptr, 0, &o, &t));
  GLIA_OK_(glia_tensor_item_double(t, &d));
  EXPECT_EQ(d, 1.0);
  GLIA_OK_(glia_tensor_release(t));

  o = opts(GLIA_INT64);
  GLIA_OK_(glia_tensor_full(nullptr, 0, 9007199254740993.0, &o, &t));
  GLIA_OK_(glia_tensor_item_int64(t, &i));
  EXPECT_EQ(i, 9007199254740992);  // the double argument has already rounded
  GLIA_OK_(glia_tensor_release(t));

  int64_t three[] = {3};
  GLIA_OK_(glia_tensor_zeros(three, 1, nullptr, &t));
  d = 123;
  i = 123;
  glia_test::ErrorInfo info = glia_test::take(glia_tensor_item_double(t, &d));
  EXPECT_EQ(info.code, GLIA_ERR_SHAPE);
  EXPECT_NE(info.message.find("a Tensor with 3 elements cannot be converted to Scalar"), std::string::npos)
      << info.message;
  EXPECT_GLIA_ERR(glia_tensor_item_int64(t, &i), GLIA_ERR_SHAPE);
  EXPECT_EQ(d, 123);
  EXPECT_EQ(i, 123);
  GLIA_OK_(glia_tensor_release(t));

  int64_t empty[] = {0};
  GLIA_OK_(glia_tensor_zeros(empty, 1, nullptr, &t));
  EXPECT_GLIA_ERR(glia_tensor_item_double(t, &d), GLIA_ERR_SHAPE);
  GLIA_OK_(glia_tensor_release(t));
}

// ------------------------------------------------------ conversions, copies

TEST(TensorConversions, ToFollowsTorch) {
  float vals[5] = {1.5f, -2.5f, 0.0f, 3.99f, -0.7f};
  int64_t shape[] = {5};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_data(vals, sizeof(vals), shape, 1, GLIA_FLOAT32, &t));

  glia_tensor* same = nullptr;
  GLIA_OK_(glia_tensor_to(t, &kCpu, ptr_to(GLIA_FLOAT32), &same));
  EXPECT_EQ(same, t);  // the same object has the same handle
  GLIA_OK_(glia_tensor_release(same));
  EXPECT_EQ(numel_of(t), 5);  // t still alive: `same` was its own reference

  // NULL keeps the tensor's own device or dtype (torch's .to(dtype) / .to(device)).
  GLIA_OK_(glia_tensor_to(t, nullptr, nullptr, &same));
  EXPECT_EQ(same, t);
  GLIA_OK_(glia_tensor_release(same));
  GLIA_OK_(glia_tensor_to(t, &kCpu, nullptr, &same));
  EXPECT_EQ(same, t);
  GLIA_OK_(glia_tensor_release(same));

  glia_tensor* i64 = nullptr;
  GLIA_OK_(glia_tensor_to(t, nullptr, ptr_to(GLIA_INT64), &i64));
  EXPECT_NE(i64, t);
  EXPECT_EQ(host<int64_t>(i64), (std::vector<int64_t>{1, -2, 0, 3, 0}));
  GLIA_OK_(glia_tensor_release(i64));

  glia_tensor* b = nullptr;
  GLIA_OK_(glia_tensor_to(t, &kCpu, ptr_to(GLIA_BOOL), &b));
  EXPECT_EQ(host<uint8_t>(b), (std::vector<uint8_t>{1, 1, 0, 1, 1}));
  GLIA_OK_(glia_tensor_release(b));

  // float16 rounds to nearest even: 1 + 2^-11 -> 1, 1 + 3 * 2^-11 -> 1 + 2^-9, 65520 -> inf;
  // bfloat16: 1 + 2^-8 -> 1, 1 + 3 * 2^-8 -> 1 + 2^-6.
  const int64_t four[] = {4}, three[] = {3};
  float edge[4] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65520.0f, 1.0f / 3.0f};
  glia_tensor* e = nullptr;
  GLIA_OK_(glia_tensor_from_data(edge, sizeof(edge), four, 1, GLIA_FLOAT32, &e));
  glia_tensor* h = nullptr;
  GLIA_OK_(glia_tensor_to(e, &kCpu, ptr_to(GLIA_FLOAT16), &h));
  EXPECT_EQ(host<uint16_t>(h), (std::vector<uint16_t>{0x3C00, 0x3C02, 0x7C00, 0x3555}));
  GLIA_OK_(glia_tensor_release(h));
  GLIA_OK_(glia_tensor_release(e));

  float bedge[3] = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 1.0f / 3.0f};
  GLIA_OK_(glia_tensor_from_data(bedge, sizeof(bedge), three, 1, GLIA_FLOAT32, &e));
  GLIA_OK_(glia_tensor_to(e, &kCpu, ptr_to(GLIA_BFLOAT16), &h));
  EXPECT_EQ(host<uint16_t>(h), (std::vector<uint16_t>{0x3F80, 0x3F82, 0x3EAB}));
  GLIA_OK_(glia_tensor_release(h));
  GLIA_OK_(glia_tensor_release(e));

  glia_tensor* bad = nullptr;
  EXPECT_GLIA_ERR(glia_tensor_to(t, ptr_to(glia_device{GLIA_CUDA, 63}), ptr_to(GLIA_FLOAT32), &bad), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_tensor_to(t, &kCpu, ptr_to(static_cast<glia_dtype>(42)), &bad), GLIA_ERR_DTYPE);
  EXPECT_EQ(bad, nullptr);
  GLIA_OK_(glia_tensor_release(t));
}

TEST(TensorConversions, ContiguousAndClone) {
  int64_t buf[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[] = {3, 2};
  int64_t strides[] = {1, 3};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_blob(buf, shape, strides, 2, GLIA_INT64, kCpu, nullptr, nullptr, &t));

  glia_tensor* c = nullptr;
  GLIA_OK_(glia_tensor_contiguous(t, &c));
  EXPECT_NE(c, t);
  EXPECT_EQ(contiguous_of(c), 1);
  EXPECT_EQ(strides_of(c), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(host<int64_t>(c), (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_NE(data_of(c), static_cast<void*>(buf));

  glia_tensor* c2 = nullptr;
  GLIA_OK_(glia_tensor_contiguous(c, &c2));
  EXPECT_EQ(c2, c);  // already contiguous: the same object
  GLIA_OK_(glia_tensor_release(c2));

  glia_tensor* k = nullptr;
  GLIA_OK_(glia_tensor_clone(c, &k));
  EXPECT_NE(k, c);
  EXPECT_NE(data_of(k), data_of(c));
  EXPECT_EQ(host<int64_t>(k), host<int64_t>(c));
  static_cast<int64_t*>(data_of(k))[0] = 100;
  EXPECT_EQ(host<int64_t>(c)[0], 1);

  glia_tensor* kt = nullptr;
  GLIA_OK_(glia_tensor_clone(t, &kt));
  EXPECT_EQ(contiguous_of(kt), 1);
  EXPECT_EQ(host<int64_t>(kt), (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));

  for (glia_tensor* x : {t, c, k, kt}) GLIA_OK_(glia_tensor_release(x));
}

TEST(TensorConversions, FromDataCopies) {
  double vals[4] = {1, 2, 3, 4};
  int64_t shape[] = {2, 2};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_data(vals, sizeof(vals), shape, 2, GLIA_FLOAT64, &t));
  EXPECT_NE(data_of(t), static_cast<void*>(vals));
  vals[0] = 100;
  EXPECT_EQ(host<double>(t), (std::vector<double>{1, 2, 3, 4}));
  GLIA_OK_(glia_tensor_release(t));

  glia_test::ErrorInfo info = glia_test::take(glia_tensor_from_data(vals, 24, shape, 2, GLIA_FLOAT64, &t));
  EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("24"), std::string::npos) << info.message;
  EXPECT_NE(info.message.find("32"), std::string::npos) << info.message;
  EXPECT_GLIA_ERR(glia_tensor_from_data(nullptr, 32, shape, 2, GLIA_FLOAT64, &t), GLIA_ERR_INVALID_ARGUMENT);
}

// ---------------------------------------------------------------- printing

TEST(TensorPrinting, ToStringSnprintfStyle) {
  float vals[4] = {1, 2, 3, 4};
  int64_t shape[] = {2, 2};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_data(vals, sizeof(vals), shape, 2, GLIA_FLOAT32, &t));
  const std::string expected = "tensor([[1., 2.],\n        [3., 4.]])";

  size_t len = 0;
  GLIA_OK_(glia_tensor_to_string(t, nullptr, 0, &len));
  EXPECT_EQ(len, expected.size());
  std::vector<char> buf(len + 1, 'x');
  size_t len2 = 0;
  GLIA_OK_(glia_tensor_to_string(t, buf.data(), buf.size(), &len2));
  EXPECT_EQ(len2, len);
  EXPECT_EQ(std::string(buf.data()), expected);

  // A short buffer gets a truncated, NUL-terminated prefix and the full length.
  char small[8];
  GLIA_OK_(glia_tensor_to_string(t, small, sizeof(small), &len2));
  EXPECT_EQ(len2, expected.size());
  EXPECT_EQ(std::string(small), expected.substr(0, 7));

  EXPECT_GLIA_ERR(glia_tensor_to_string(t, nullptr, 4, &len), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_tensor_to_string(t, small, sizeof(small), nullptr), GLIA_ERR_INVALID_ARGUMENT);
  GLIA_OK_(glia_tensor_release(t));
}

// ------------------------------------------------------------------ random

TEST(TensorRandom, ManualSeedReproduces) {
  int64_t shape[] = {64};
  glia_tensor *a = nullptr, *b = nullptr, *c = nullptr;
  glia_manual_seed(42);
  GLIA_OK_(glia_tensor_rand(shape, 1, nullptr, &a));
  glia_manual_seed(42);
  GLIA_OK_(glia_tensor_rand(shape, 1, nullptr, &b));
  glia_manual_seed(43);
  GLIA_OK_(glia_tensor_rand(shape, 1, nullptr, &c));
  EXPECT_EQ(host<float>(a), host<float>(b));
  EXPECT_NE(host<float>(a), host<float>(c));
  for (glia_tensor* x : {a, b, c}) GLIA_OK_(glia_tensor_release(x));

  glia_manual_seed(7);
  GLIA_OK_(glia_tensor_randn(shape, 1, nullptr, &a));
  GLIA_OK_(glia_tensor_randn(shape, 1, nullptr, &c));  // the stream goes on
  glia_manual_seed(7);
  GLIA_OK_(glia_tensor_randn(shape, 1, nullptr, &b));
  EXPECT_EQ(host<float>(a), host<float>(b));
  EXPECT_NE(host<float>(a), host<float>(c));
  for (glia_tensor* x : {a, b, c}) GLIA_OK_(glia_tensor_release(x));
}

TEST(TensorRandom, RandIsInUnitIntervalForEveryFloatingDType) {
  glia_manual_seed(1234);
  int64_t shape[] = {100000};
  for (glia_dtype d : {GLIA_FLOAT32, GLIA_FLOAT64, GLIA_FLOAT16, GLIA_BFLOAT16}) {
    SCOPED_TRACE(glia_dtype_name(d));
    glia_tensor_options o = opts(d);
    glia_tensor* t = nullptr;
    GLIA_OK_(glia_tensor_rand(shape, 1, &o, &t));
    glia_tensor* f = nullptr;
    GLIA_OK_(glia_tensor_to(t, &kCpu, ptr_to(GLIA_FLOAT64), &f));
    std::vector<double> v = host<double>(f);
    double lo = 1, hi = 0, sum = 0;
    for (double x : v) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      sum += x;
    }
    EXPECT_GE(lo, 0.0);
    EXPECT_LT(hi, 1.0);
    EXPECT_NEAR(sum / static_cast<double>(v.size()), 0.5, 0.01);
    GLIA_OK_(glia_tensor_release(f));
    GLIA_OK_(glia_tensor_release(t));
  }
}

TEST(TensorRandom, RandnMomentsAndDTypeErrors) {
  glia_manual_seed(99);
  int64_t shape[] = {100000};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_randn(shape, 1, nullptr, &t));
  std::vector<float> v = host<float>(t);
  double sum = 0, sq = 0;
  for (float x : v) sum += x;
  double mean = sum / static_cast<double>(v.size());
  for (float x : v) sq += (x - mean) * (x - mean);
  double stddev = std::sqrt(sq / static_cast<double>(v.size() - 1));
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(stddev, 1.0, 0.02);
  GLIA_OK_(glia_tensor_release(t));

  glia_tensor_options o = opts(GLIA_INT64);
  EXPECT_GLIA_ERR(glia_tensor_rand(shape, 1, &o, &t), GLIA_ERR_DTYPE);
  o = opts(GLIA_BOOL);
  EXPECT_GLIA_ERR(glia_tensor_randn(shape, 1, &o, &t), GLIA_ERR_DTYPE);
}

// ------------------------------------------------------------------ memory

TEST(TensorMemory, StatsFollowTensors) {
  glia_empty_cache();
  glia_memory_stats before = stats();
  int64_t shape[] = {1 << 20};  // 4 MiB of float32
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_empty(shape, 1, nullptr, &t));
  glia_memory_stats during = stats();
  EXPECT_GE(during.bytes_in_use, before.bytes_in_use + (4u << 20));
  EXPECT_GE(during.peak_bytes_in_use, during.bytes_in_use);
  EXPECT_EQ(during.allocations, before.allocations + 1);
  GLIA_OK_(glia_tensor_release(t));
  glia_memory_stats after = stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_GE(after.peak_bytes_in_use, during.bytes_in_use);
  EXPECT_GE(after.bytes_cached, 4u << 20);  // kept for reuse
  glia_empty_cache();
  EXPECT_EQ(stats().bytes_cached, 0u);

  glia_reset_peak_memory_stats();
  EXPECT_EQ(stats().peak_bytes_in_use, stats().bytes_in_use);

  // A struct_size that covers only the first fields writes only those.
  glia_memory_stats partial{};
  partial.struct_size = offsetof(glia_memory_stats, peak_bytes_in_use);
  partial.peak_bytes_in_use = 77;
  GLIA_OK_(glia_memory_stats_get(&partial));
  EXPECT_EQ(partial.struct_size, offsetof(glia_memory_stats, peak_bytes_in_use));
  EXPECT_EQ(partial.peak_bytes_in_use, 77u);
  partial.struct_size = 1;
  EXPECT_GLIA_ERR(glia_memory_stats_get(&partial), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_GLIA_ERR(glia_memory_stats_get(nullptr), GLIA_ERR_INVALID_ARGUMENT);
}

struct CountingAllocator {
  std::mutex mu;
  std::map<void*, size_t> live;
  int allocs = 0, frees = 0, bad_alignment = 0, size_mismatch = 0, free_user_data_calls = 0;
};

void* counting_alloc(void* user, size_t size, size_t alignment) {
  auto* a = static_cast<CountingAllocator*>(user);
  std::lock_guard<std::mutex> lock(a->mu);
  if (alignment != 64) ++a->bad_alignment;
  void* p = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  a->live[p] = size;
  ++a->allocs;
  return p;
}

void counting_free(void* user, void* p, size_t size) {
  auto* a = static_cast<CountingAllocator*>(user);
  std::lock_guard<std::mutex> lock(a->mu);
  auto it = a->live.find(p);
  if (it == a->live.end() || it->second != size) ++a->size_mismatch;
  if (it != a->live.end()) a->live.erase(it);
  ++a->frees;
  std::free(p);
}

void counting_free_user_data(void* user) { ++static_cast<CountingAllocator*>(user)->free_user_data_calls; }

bool owns(CountingAllocator& a, void* p) {
  std::lock_guard<std::mutex> lock(a.mu);
  auto it = a.live.upper_bound(p);
  if (it == a.live.begin()) return false;
  --it;
  return static_cast<char*>(p) < static_cast<char*>(it->first) + it->second;
}

TEST(TensorMemory, HostAllocatorSeesEveryAllocation) {
  CountingAllocator counter;
  glia_allocator a;
  glia_allocator_init(&a);
  EXPECT_EQ(a.struct_size, sizeof(glia_allocator));
  a.alloc = counting_alloc;
  a.free = counting_free;
  a.user_data = &counter;
  a.free_user_data = counting_free_user_data;
  GLIA_OK_(glia_set_allocator(&a));

  std::vector<glia_tensor*> tensors;
  for (int64_t n : {1, 10, 100, 1000, 100000, 3}) {
    glia_tensor* t = nullptr;
    GLIA_OK_(glia_tensor_zeros(&n, 1, nullptr, &t));
    EXPECT_TRUE(owns(counter, data_of(t))) << n;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data_of(t)) % 64, 0u);
    tensors.push_back(t);
  }
  glia_tensor* c = nullptr;
  GLIA_OK_(glia_tensor_clone(tensors[4], &c));
  EXPECT_TRUE(owns(counter, data_of(c)));
  tensors.push_back(c);
  EXPECT_GE(counter.allocs, 7);
  EXPECT_EQ(counter.bad_alignment, 0);

  // Blocks still in use return to the allocator that made them, after the switch.
  GLIA_OK_(glia_set_allocator(nullptr));
  glia_tensor* after = nullptr;
  int64_t n = 256;
  int allocs_before = counter.allocs;
  GLIA_OK_(glia_tensor_zeros(&n, 1, nullptr, &after));
  EXPECT_FALSE(owns(counter, data_of(after)));
  EXPECT_EQ(counter.allocs, allocs_before);
  GLIA_OK_(glia_tensor_release(after));
  EXPECT_EQ(counter.free_user_data_calls, 0);
  for (glia_tensor* t : tensors) GLIA_OK_(glia_tensor_release(t));

  EXPECT_EQ(counter.free_user_data_calls, 1);
  EXPECT_EQ(counter.frees, counter.allocs);
  EXPECT_TRUE(counter.live.empty());
  EXPECT_EQ(counter.size_mismatch, 0);
}

TEST(TensorMemory, InvalidAllocatorDescriptions) {
  CountingAllocator counter;
  glia_allocator a;
  glia_allocator_init(&a);
  a.alloc = counting_alloc;
  a.free = counting_free;
  a.user_data = &counter;
  a.free_user_data = counting_free_user_data;

  // struct_size too small: glia may not even read free_user_data.
  a.struct_size = sizeof(size_t);
  EXPECT_GLIA_ERR(glia_set_allocator(&a), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(counter.free_user_data_calls, 0);

  // A missing function: free_user_data is still called, once.
  a.struct_size = sizeof(glia_allocator);
  a.free = nullptr;
  EXPECT_GLIA_ERR(glia_set_allocator(&a), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(counter.free_user_data_calls, 1);
  EXPECT_EQ(counter.allocs, 0);

  // The built-in allocator is still in place.
  glia_tensor* t = nullptr;
  int64_t n = 16;
  GLIA_OK_(glia_tensor_zeros(&n, 1, nullptr, &t));
  EXPECT_EQ(counter.allocs, 0);
  GLIA_OK_(glia_tensor_release(t));
}

}  // namespace
