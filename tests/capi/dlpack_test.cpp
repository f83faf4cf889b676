// DLPack import/export through the C API: zero copy both ways, ownership
// (the producer's deleter runs exactly once after success, never on failure),
// dtype and device mapping, 0-dim and empty tensors.
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

// DLPack 0.8's kDLBool; Debian's 0.6 header predates it.
constexpr uint8_t kBoolCode = 6;

// A hand-made producer: a DLManagedTensor whose manager_ctx counts deleter calls.
struct Producer {
  DLManagedTensor managed{};
  std::vector<int64_t> shape, strides;
  int* deleter_calls;
};

void producer_deleter(DLManagedTensor* self) {
  auto* p = static_cast<Producer*>(self->manager_ctx);
  ++*p->deleter_calls;
  delete p;
}

// data may be NULL; strides empty means NULL (compact row-major).
DLManagedTensor* make_managed(void* data, std::vector<int64_t> shape, std::vector<int64_t> strides, DLDataType dtype,
                              int* deleter_calls, uint64_t byte_offset = 0, DLDevice device = {kDLCPU, 0}) {
  auto* p = new Producer;
  p->shape = std::move(shape);
  p->strides = std::move(strides);
  p->deleter_calls = deleter_calls;
  DLTensor& t = p->managed.dl_tensor;
  t.data = data;
  t.device = device;
  t.ndim = static_cast<int>(p->shape.size());
  t.dtype = dtype;
  t.shape = p->shape.empty() ? nullptr : p->shape.data();
  t.strides = p->strides.empty() ? nullptr : p->strides.data();
  t.byte_offset = byte_offset;
  p->managed.manager_ctx = p;
  p->managed.deleter = producer_deleter;
  return &p->managed;
}

glia_tensor* make_tensor(const std::vector<int64_t>& shape, glia_dtype dtype, double value) {
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = dtype;
  glia_tensor* t = nullptr;
  glia_error* e = glia_tensor_full(shape.data(), static_cast<int64_t>(shape.size()), value, &o, &t);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return t;
}

void* data_of(glia_tensor* t) {
  void* p = nullptr;
  glia_error* e = glia_tensor_data(t, &p);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return p;
}

std::vector<int64_t> dims_of(const glia_tensor* t, bool strides) {
  int64_t nd = 0;
  EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
  std::vector<int64_t> v(static_cast<size_t>(nd));
  glia_error* e = strides ? glia_tensor_strides(t, nd, v.data()) : glia_tensor_shape(t, nd, v.data());
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return v;
}

// Counts how often glia's own export deleter runs, by wrapping it.
int g_export_deleter_calls = 0;
void (*g_export_deleter)(DLManagedTensor*) = nullptr;
void counting_export_deleter(DLManagedTensor* self) {
  ++g_export_deleter_calls;
  g_export_deleter(self);
}

TEST(DLPack, ExportDescribesTheTensorWithoutCopying) {
  float buf[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[] = {3, 2};
  int64_t strides[] = {1, 3};  // transpose of a row-major 2x3
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_blob(buf, shape, strides, 2, GLIA_FLOAT32, glia_device{GLIA_CPU, 0}, nullptr, nullptr, &t));
  DLManagedTensor* m = nullptr;
  GLIA_OK_(glia_tensor_to_dlpack(t, &m));
  ASSERT_NE(m, nullptr);
  const DLTensor& d = m->dl_tensor;
  EXPECT_EQ(d.data, static_cast<void*>(buf));
  EXPECT_EQ(d.byte_offset, 0u);
  EXPECT_EQ(d.device.device_type, kDLCPU);
  EXPECT_EQ(d.device.device_id, 0);
  EXPECT_EQ(d.ndim, 2);
  EXPECT_EQ(d.dtype.code, kDLFloat);
  EXPECT_EQ(d.dtype.bits, 32);
  EXPECT_EQ(d.dtype.lanes, 1);
  ASSERT_NE(d.shape, nullptr);
  ASSERT_NE(d.strides, nullptr);
  EXPECT_EQ(d.shape[0], 3);
  EXPECT_EQ(d.shape[1], 2);
  EXPECT_EQ(d.strides[0], 1);
  EXPECT_EQ(d.strides[1], 3);
  ASSERT_NE(m->deleter, nullptr);

  // The export keeps the tensor alive after the handle is gone.
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(static_cast<float*>(d.data)[d.strides[0] * 2 + d.strides[1] * 1], 5.0f);
  m->deleter(m);
}

TEST(DLPack, ExportOutlivesTheHandleOfAnAllocatedTensor) {
  glia_tensor* t = make_tensor({4, 5}, GLIA_FLOAT64, 2.5);
  DLManagedTensor* m = nullptr;
  GLIA_OK_(glia_tensor_to_dlpack(t, &m));
  GLIA_OK_(glia_tensor_release(t));
  const double* p = static_cast<const double*>(m->dl_tensor.data);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(p[i], 2.5) << i;  // ASan would flag freed memory here
  m->deleter(m);
}

TEST(DLPack, RoundTripKeepsTheDataPointer) {
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_arange(0, 12, 1, nullptr, &t));  // int64
  void* data = data_of(t);

  DLManagedTensor* m = nullptr;
  GLIA_OK_(glia_tensor_to_dlpack(t, &m));
  g_export_deleter = m->deleter;
  g_export_deleter_calls = 0;
  m->deleter = counting_export_deleter;

  glia_tensor* back = nullptr;
  GLIA_OK_(glia_tensor_from_dlpack(m, &back));
  EXPECT_EQ(data_of(back), data);
  glia_dtype dt;
  GLIA_OK_(glia_tensor_dtype(back, &dt));
  EXPECT_EQ(dt, GLIA_INT64);
  EXPECT_EQ(dims_of(back, false), std::vector<int64_t>{12});

  // Writes through one are seen by the other: they share memory.
  static_cast<int64_t*>(data_of(back))[3] = 300;
  int64_t host[12];
  GLIA_OK_(glia_tensor_copy_to_host(t, host, sizeof(host)));
  EXPECT_EQ(host[3], 300);
  EXPECT_EQ(host[11], 11);

  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(g_export_deleter_calls, 0);
  GLIA_OK_(glia_tensor_copy_to_host(back, host, sizeof(host)));
  EXPECT_EQ(host[0], 0);
  EXPECT_EQ(host[3], 300);
  GLIA_OK_(glia_tensor_release(back));
  EXPECT_EQ(g_export_deleter_calls, 1);
}

TEST(DLPack, RoundTripOfAStridedView) {
  int32_t buf[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[] = {3, 2};
  int64_t strides[] = {1, 3};
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_blob(buf, shape, strides, 2, GLIA_INT32, glia_device{GLIA_CPU, 0}, nullptr, nullptr, &t));
  DLManagedTensor* m = nullptr;
  GLIA_OK_(glia_tensor_to_dlpack(t, &m));
  glia_tensor* back = nullptr;
  GLIA_OK_(glia_tensor_from_dlpack(m, &back));
  EXPECT_EQ(data_of(back), static_cast<void*>(buf));
  EXPECT_EQ(dims_of(back, true), (std::vector<int64_t>{1, 3}));
  int32_t host[6];
  GLIA_OK_(glia_tensor_copy_to_host(back, host, sizeof(host)));
  const int32_t expected[6] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(host[i], expected[i]) << i;
  GLIA_OK_(glia_tensor_release(back));
  GLIA_OK_(glia_tensor_release(t));
}

TEST(DLPack, ImportStridedHeapBufferWithByteOffset) {
  // A 3x2 float64 view of a 12-element buffer: starts at element 1, strides {4, 2}.
  auto* buf = new double[12];
  for (int i = 0; i < 12; ++i) buf[i] = i * 1.5;
  int calls = 0;
  DLManagedTensor* m = make_managed(buf, {3, 2}, {4, 2}, DLDataType{kDLFloat, 64, 1}, &calls, sizeof(double));

  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_dlpack(m, &t));
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(data_of(t), static_cast<void*>(buf + 1));
  EXPECT_EQ(dims_of(t, false), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(dims_of(t, true), (std::vector<int64_t>{4, 2}));
  int32_t contiguous = 1;
  GLIA_OK_(glia_tensor_is_contiguous(t, &contiguous));
  EXPECT_EQ(contiguous, 0);
  double host[6];
  GLIA_OK_(glia_tensor_copy_to_host(t, host, sizeof(host)));
  const int idx[6] = {1, 3, 5, 7, 9, 11};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(host[i], buf[idx[i]]) << i;

  // A view keeps the import alive; the producer's deleter runs once, after the last release.
  glia_tensor* view = nullptr;
  GLIA_OK_(glia_tensor_detach(t, &view));
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(calls, 0);
  GLIA_OK_(glia_tensor_release(view));
  EXPECT_EQ(calls, 1);
  delete[] buf;
}

TEST(DLPack, ImportStackBufferWithoutStridesIsRowMajor) {
  uint8_t buf[24];
  for (int i = 0; i < 24; ++i) buf[i] = static_cast<uint8_t>(200 + i);
  int calls = 0;
  DLManagedTensor* m = make_managed(buf, {2, 3, 4}, {}, DLDataType{kDLUInt, 8, 1}, &calls);
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_dlpack(m, &t));
  EXPECT_EQ(dims_of(t, true), (std::vector<int64_t>{12, 4, 1}));
  int32_t contiguous = 0;
  GLIA_OK_(glia_tensor_is_contiguous(t, &contiguous));
  EXPECT_EQ(contiguous, 1);
  uint8_t host[24];
  GLIA_OK_(glia_tensor_copy_to_host(t, host, sizeof(host)));
  EXPECT_EQ(std::memcmp(host, buf, sizeof(buf)), 0);
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(calls, 1);
}

TEST(DLPack, NullProducerDeleterIsAllowed) {
  float buf[3] = {1, 2, 3};
  int calls = 0;
  DLManagedTensor* m = make_managed(buf, {3}, {}, DLDataType{kDLFloat, 32, 1}, &calls);
  Producer* p = static_cast<Producer*>(m->manager_ctx);
  m->deleter = nullptr;
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_dlpack(m, &t));
  float host[3];
  GLIA_OK_(glia_tensor_copy_to_host(t, host, sizeof(host)));
  EXPECT_EQ(host[2], 3.0f);
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(calls, 0);
  delete p;
}

struct BadImport {
  const char* name;
  DLDataType dtype;
  DLDevice device;
  std::vector<int64_t> shape, strides;
  uint64_t byte_offset;
  bool null_data;
  enum glia_error_code code;
  const char* message_part;
};

TEST(DLPack, FailedImportLeavesOwnershipWithTheCaller) {
  alignas(64) float buf[16] = {};
  const DLDataType f32 = {kDLFloat, 32, 1};
  const DLDevice cpu = {kDLCPU, 0};
  const BadImport cases[] = {
      {"two lanes", {kDLFloat, 32, 2}, cpu, {4}, {}, 0, false, GLIA_ERR_DTYPE, "code 2 = kDLFloat, bits 32, lanes 2"},
      {"int8 two lanes", {kDLInt, 8, 2}, cpu, {4}, {}, 0, false, GLIA_ERR_DTYPE, "code 0 = kDLInt, bits 8, lanes 2"},
      {"int24", {kDLInt, 24, 1}, cpu, {4}, {}, 0, false, GLIA_ERR_DTYPE, "code 0 = kDLInt, bits 24"},
      {"uint16", {kDLUInt, 16, 1}, cpu, {4}, {}, 0, false, GLIA_ERR_DTYPE, "code 1 = kDLUInt, bits 16"},
      {"uint1", {kDLUInt, 1, 1}, cpu, {4}, {}, 0, false, GLIA_ERR_DTYPE, "bits 1"},
      {"bool 32 bits", {kBoolCode, 32, 1}, cpu, {4}, {}, 0, false, GLIA_ERR_DTYPE, "code 6 = kDLBool, bits 32"},
      {"float8", {kDLFloat, 8, 1}, cpu, {4}, {}, 0, false, GLIA_ERR_DTYPE, "bits 8"},
      {"bfloat32", {kDLBfloat, 32, 1}, cpu, {4}, {}, 0, false, GLIA_ERR_DTYPE, "code 4 = kDLBfloat, bits 32"},
      {"complex64", {kDLComplex, 64, 1}, cpu, {4}, {}, 0, false, GLIA_ERR_DTYPE, "code 5 = kDLComplex"},
      {"opaque", {kDLOpaqueHandle, 64, 1}, cpu, {4}, {}, 0, false, GLIA_ERR_DTYPE, "code 3"},
      {"cuda", f32, {kDLCUDA, 1}, {4}, {}, 0, false, GLIA_ERR_DEVICE, "kDLCUDA:1"},
      {"cuda managed", f32, {kDLCUDAManaged, 0}, {4}, {}, 0, false, GLIA_ERR_DEVICE, "kDLCUDAManaged"},
      {"opencl", f32, {kDLOpenCL, 0}, {4}, {}, 0, false, GLIA_ERR_DEVICE, "kDLOpenCL"},
      {"misaligned byte_offset", f32, cpu, {4}, {}, 2, false, GLIA_ERR_INVALID_ARGUMENT, "byte_offset 2"},
      {"odd byte_offset", f32, cpu, {2}, {}, 7, false, GLIA_ERR_INVALID_ARGUMENT, "element size 4"},
      {"negative stride", f32, cpu, {2, 2}, {-2, 1}, 8, false, GLIA_ERR_INVALID_ARGUMENT, "negative stride -2"},
      {"negative size", f32, cpu, {2, -2}, {}, 0, false, GLIA_ERR_INVALID_ARGUMENT, "negative dimension"},
      {"NULL data", f32, cpu, {2, 2}, {}, 0, true, GLIA_ERR_INVALID_ARGUMENT, "data is NULL"},
  };
  for (const BadImport& c : cases) {
    SCOPED_TRACE(c.name);
    int calls = 0;
    DLManagedTensor* m =
        make_managed(c.null_data ? nullptr : buf, c.shape, c.strides, c.dtype, &calls, c.byte_offset, c.device);
    glia_tensor* sentinel = reinterpret_cast<glia_tensor*>(uintptr_t(0x5678));
    glia_tensor* out = sentinel;
    glia_test::ErrorInfo info = glia_test::take(glia_tensor_from_dlpack(m, &out));
    EXPECT_EQ(info.code, c.code) << info.message;
    EXPECT_NE(info.message.find(c.message_part), std::string::npos) << info.message;
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(out, sentinel);
    m->deleter(m);  // still ours
    EXPECT_EQ(calls, 1);
  }
}

TEST(DLPack, NullArguments) {
  glia_tensor* out = nullptr;
  EXPECT_GLIA_ERR(glia_tensor_from_dlpack(nullptr, &out), GLIA_ERR_INVALID_ARGUMENT);
  int calls = 0;
  float x = 1;
  DLManagedTensor* m = make_managed(&x, {1}, {}, DLDataType{kDLFloat, 32, 1}, &calls);
  EXPECT_GLIA_ERR(glia_tensor_from_dlpack(m, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(calls, 0);
  m->deleter(m);

  glia_tensor* t = make_tensor({2}, GLIA_FLOAT32, 1);
  EXPECT_GLIA_ERR(glia_tensor_to_dlpack(t, nullptr), GLIA_ERR_INVALID_ARGUMENT);
  DLManagedTensor* exported = nullptr;
  EXPECT_GLIA_ERR(glia_tensor_to_dlpack(nullptr, &exported), GLIA_ERR_INVALID_HANDLE);
  EXPECT_EQ(exported, nullptr);
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_GLIA_ERR(glia_tensor_to_dlpack(t, &exported), GLIA_ERR_INVALID_HANDLE);
}

struct Mapping {
  glia_dtype dtype;
  uint8_t code;
  uint8_t bits;
};

// glia's dtypes and their DLPack codes (torch's to_dlpack for all but bool,
// which torch 1.13 cannot export; DLPack 0.8 names it kDLBool).
const Mapping kMappings[] = {
    {GLIA_FLOAT32, kDLFloat, 32},   {GLIA_FLOAT64, kDLFloat, 64}, {GLIA_FLOAT16, kDLFloat, 16},
    {GLIA_BFLOAT16, kDLBfloat, 16}, {GLIA_INT64, kDLInt, 64},     {GLIA_INT32, kDLInt, 32},
    {GLIA_UINT8, kDLUInt, 8},       {GLIA_BOOL, kBoolCode, 8},    {GLIA_INT8, kDLInt, 8},
    {GLIA_INT16, kDLInt, 16},
};

TEST(DLPack, EveryDTypeExports) {
  for (const Mapping& mp : kMappings) {
    SCOPED_TRACE(glia_dtype_name(mp.dtype));
    glia_tensor* t = make_tensor({2, 3}, mp.dtype, 1);
    DLManagedTensor* m = nullptr;
    GLIA_OK_(glia_tensor_to_dlpack(t, &m));
    EXPECT_EQ(m->dl_tensor.dtype.code, mp.code);
    EXPECT_EQ(m->dl_tensor.dtype.bits, mp.bits);
    EXPECT_EQ(m->dl_tensor.dtype.lanes, 1);
    EXPECT_EQ(m->dl_tensor.strides[0], 3);
    EXPECT_EQ(m->dl_tensor.strides[1], 1);

    glia_tensor* back = nullptr;
    GLIA_OK_(glia_tensor_from_dlpack(m, &back));
    glia_dtype dt;
    GLIA_OK_(glia_tensor_dtype(back, &dt));
    EXPECT_EQ(dt, mp.dtype);
    EXPECT_EQ(data_of(back), data_of(t));
    GLIA_OK_(glia_tensor_release(t));
    GLIA_OK_(glia_tensor_release(back));
  }
}

TEST(DLPack, EveryDTypeImports) {
  alignas(64) unsigned char buf[64];
  std::memset(buf, 0, sizeof(buf));
  for (const Mapping& mp : kMappings) {
    SCOPED_TRACE(glia_dtype_name(mp.dtype));
    int calls = 0;
    DLManagedTensor* m = make_managed(buf, {4}, {}, DLDataType{mp.code, mp.bits, 1}, &calls);
    glia_tensor* t = nullptr;
    GLIA_OK_(glia_tensor_from_dlpack(m, &t));
    glia_dtype dt;
    GLIA_OK_(glia_tensor_dtype(t, &dt));
    EXPECT_EQ(dt, mp.dtype);
    EXPECT_EQ(glia_dtype_size(dt) * 8, mp.bits);
    GLIA_OK_(glia_tensor_release(t));
    EXPECT_EQ(calls, 1);
  }
}

TEST(DLPack, ImportedValuesPerDType) {
  // uint8 stays uint8 (not bool); bool bytes read as bool.
  uint8_t bytes[3] = {0, 1, 255};
  int calls = 0;
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_dlpack(make_managed(bytes, {3}, {}, DLDataType{kDLUInt, 8, 1}, &calls), &t));
  uint8_t u[3];
  GLIA_OK_(glia_tensor_copy_to_host(t, u, sizeof(u)));
  EXPECT_EQ(u[2], 255);
  glia_tensor* f = nullptr;
  GLIA_OK_(glia_tensor_to(t, ptr_to(glia_device{GLIA_CPU, 0}), ptr_to(GLIA_FLOAT32), &f));
  float fl[3];
  GLIA_OK_(glia_tensor_copy_to_host(f, fl, sizeof(fl)));
  EXPECT_EQ(fl[2], 255.0f);
  GLIA_OK_(glia_tensor_release(f));
  GLIA_OK_(glia_tensor_release(t));

  uint8_t flags[2] = {0, 1};
  GLIA_OK_(glia_tensor_from_dlpack(make_managed(flags, {2}, {}, DLDataType{kBoolCode, 8, 1}, &calls), &t));
  GLIA_OK_(glia_tensor_to(t, ptr_to(glia_device{GLIA_CPU, 0}), ptr_to(GLIA_FLOAT32), &f));
  GLIA_OK_(glia_tensor_copy_to_host(f, fl, 2 * sizeof(float)));
  EXPECT_EQ(fl[0], 0.0f);
  EXPECT_EQ(fl[1], 1.0f);
  GLIA_OK_(glia_tensor_release(f));
  GLIA_OK_(glia_tensor_release(t));

  // float16 1.5 is 0x3E00, bfloat16 -2.0 is 0xC000.
  uint16_t half[1] = {0x3E00};
  GLIA_OK_(glia_tensor_from_dlpack(make_managed(half, {}, {}, DLDataType{kDLFloat, 16, 1}, &calls), &t));
  double item = 0;
  GLIA_OK_(glia_tensor_item_double(t, &item));
  EXPECT_EQ(item, 1.5);
  GLIA_OK_(glia_tensor_release(t));
  uint16_t bf[1] = {0xC000};
  GLIA_OK_(glia_tensor_from_dlpack(make_managed(bf, {}, {}, DLDataType{kDLBfloat, 16, 1}, &calls), &t));
  GLIA_OK_(glia_tensor_item_double(t, &item));
  EXPECT_EQ(item, -2.0);
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(calls, 4);
}

TEST(DLPack, ZeroDimTensors) {
  glia_tensor* s = make_tensor({}, GLIA_FLOAT32, 3.5);
  DLManagedTensor* m = nullptr;
  GLIA_OK_(glia_tensor_to_dlpack(s, &m));
  EXPECT_EQ(m->dl_tensor.ndim, 0);
  EXPECT_EQ(*static_cast<float*>(m->dl_tensor.data), 3.5f);
  glia_tensor* back = nullptr;
  GLIA_OK_(glia_tensor_from_dlpack(m, &back));
  int64_t nd = -1, numel = -1;
  GLIA_OK_(glia_tensor_ndim(back, &nd));
  GLIA_OK_(glia_tensor_numel(back, &numel));
  EXPECT_EQ(nd, 0);
  EXPECT_EQ(numel, 1);
  double item = 0;
  GLIA_OK_(glia_tensor_item_double(back, &item));
  EXPECT_EQ(item, 3.5);
  GLIA_OK_(glia_tensor_release(back));
  GLIA_OK_(glia_tensor_release(s));

  // A producer's scalar with NULL shape and strides.
  int64_t value = -9;
  int calls = 0;
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_dlpack(make_managed(&value, {}, {}, DLDataType{kDLInt, 64, 1}, &calls), &t));
  int64_t got = 0;
  GLIA_OK_(glia_tensor_item_int64(t, &got));
  EXPECT_EQ(got, -9);
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(calls, 1);
}

TEST(DLPack, EmptyTensors) {
  glia_tensor* e = make_tensor({0, 3}, GLIA_FLOAT32, 0);
  DLManagedTensor* m = nullptr;
  GLIA_OK_(glia_tensor_to_dlpack(e, &m));
  EXPECT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.shape[0], 0);
  EXPECT_EQ(m->dl_tensor.shape[1], 3);
  glia_tensor* back = nullptr;
  GLIA_OK_(glia_tensor_from_dlpack(m, &back));
  EXPECT_EQ(dims_of(back, false), (std::vector<int64_t>{0, 3}));
  int64_t numel = -1;
  GLIA_OK_(glia_tensor_numel(back, &numel));
  EXPECT_EQ(numel, 0);
  GLIA_OK_(glia_tensor_copy_to_host(back, nullptr, 0));
  GLIA_OK_(glia_tensor_release(back));
  GLIA_OK_(glia_tensor_release(e));

  // A producer's empty tensor may have no data at all.
  int calls = 0;
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_from_dlpack(make_managed(nullptr, {5, 0}, {}, DLDataType{kDLInt, 32, 1}, &calls), &t));
  GLIA_OK_(glia_tensor_numel(t, &numel));
  EXPECT_EQ(numel, 0);
  GLIA_OK_(glia_tensor_release(t));
  EXPECT_EQ(calls, 1);
}

TEST(DLPack, ExportDeleterAloneReleasesEverything) {
  glia_memory_stats before{};
  before.struct_size = sizeof(before);
  GLIA_OK_(glia_memory_stats_get(&before));
  glia_tensor* t = make_tensor({1000}, GLIA_FLOAT32, 1);
  DLManagedTensor* m = nullptr;
  GLIA_OK_(glia_tensor_to_dlpack(t, &m));
  GLIA_OK_(glia_tensor_release(t));
  glia_memory_stats during{};
  during.struct_size = sizeof(during);
  GLIA_OK_(glia_memory_stats_get(&during));
  EXPECT_GE(during.bytes_in_use, before.bytes_in_use + 4000);
  m->deleter(m);
  glia_memory_stats after{};
  after.struct_size = sizeof(after);
  GLIA_OK_(glia_memory_stats_get(&after));
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
}

}  // namespace
