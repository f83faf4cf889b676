// The CUDA backend (libglia_cuda.so.0, backend ABI v2) through the C API.
// Without a driver or a device: a clear status and clean errors. With a GPU:
// copies both ways, printing, the first kernels, the index kernels' checks and order, the clean error of an op that
// has no CUDA kernel yet, the caching allocator's
// statistics and out-of-memory error, and streams, events, pinned memory and
// non-blocking copies; convolutions through cuDNN (against the CPU, deterministic
// algorithms, float16).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCuda{GLIA_CUDA, 0};
constexpr glia_device kCpu{GLIA_CPU, 0};

std::string cuda_status(int32_t* n) {
  char buf[512];
  size_t len = 0;
  glia_error* e = glia_backend_status(GLIA_CUDA, n, buf, sizeof buf, &len);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return buf;
}

TEST(Cuda, StatusAgreesWithAvailability) {
  int32_t n = -1;
  std::string why = cuda_status(&n);
  EXPECT_EQ(n, glia_cuda_device_count());
  EXPECT_EQ(n > 0, glia_cuda_is_available() == 1);
  if (n > 0) {
    EXPECT_EQ(why, "");
  } else {
    // "no CUDA driver (...)", "no CUDA device", or the loader's message: never empty.
    EXPECT_FALSE(why.empty());
  }
}

TEST(Cuda, WithoutADeviceTensorsFailCleanly) {
  int32_t n = 0;
  std::string why = cuda_status(&n);
  if (n > 0) GTEST_SKIP() << "skipped: a CUDA device is present";
  int64_t shape[] = {3};
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.device = kCuda;
  glia_tensor* t = nullptr;
  EXPECT_GLIA_MSG(glia_tensor_zeros(shape, 1, &o, &t), GLIA_ERR_DEVICE, "device cuda:0 is not available (" + why + ")");
  EXPECT_EQ(t, nullptr);
}

class CudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    int32_t n = 0;
    std::string why = cuda_status(&n);
    if (n == 0) GTEST_SKIP() << "skipped: no CUDA device (" << why << ")";
  }
  void TearDown() override {
    for (glia_tensor* t : owned_) glia_tensor_release(t);
  }
  glia_tensor* keep(glia_tensor* t) {
    owned_.push_back(t);
    return t;
  }
  std::vector<glia_tensor*> owned_;
};

TEST_F(CudaDevice, TensorsMoveToTheGpuAndBack) {
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  int64_t shape[] = {2, 3};
  glia_tensor *x = nullptr, *d = nullptr, *dt = nullptr, *back = nullptr;
  GLIA_OK_(glia_tensor_from_data(v.data(), v.size() * 4, shape, 2, GLIA_FLOAT32, &x));
  keep(x);
  GLIA_OK_(glia_tensor_to(x, &kCuda, ptr_to(GLIA_FLOAT32), &d));
  keep(d);
  glia_device dev{};
  GLIA_OK_(glia_tensor_device(d, &dev));
  EXPECT_EQ(dev.type, GLIA_CUDA);
  char buf[256];
  size_t len = 0;
  GLIA_OK_(glia_tensor_to_string(d, buf, sizeof buf, &len));
  EXPECT_STREQ(buf, "tensor([[1., 2., 3.],\n        [4., 5., 6.]], device='cuda:0')");
  // A transposed view on the GPU comes back in row-major order, through a float64 conversion.
  GLIA_OK_(glia_transpose(d, 0, 1, &dt));
  keep(dt);
  GLIA_OK_(glia_tensor_to(dt, &kCpu, ptr_to(GLIA_FLOAT64), &back));
  keep(back);
  std::vector<double> got(6);
  GLIA_OK_(glia_tensor_copy_to_host(back, got.data(), got.size() * sizeof(double)));
  EXPECT_EQ(got, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  GLIA_OK_(glia_device_synchronize(kCuda));
  void* p = nullptr;
  EXPECT_GLIA_ERR(glia_tensor_data(d, &p), GLIA_ERR_DEVICE);
}

TEST_F(CudaDevice, OpsWithoutACudaKernelFailCleanly) {
  std::vector<float> v{1, 2};
  int64_t shape[] = {2};
  glia_tensor *x = nullptr, *d = nullptr, *r = nullptr, *ri = nullptr;
  GLIA_OK_(glia_tensor_from_data(v.data(), v.size() * 4, shape, 1, GLIA_FLOAT32, &x));
  keep(x);
  GLIA_OK_(glia_tensor_to(x, &kCuda, ptr_to(GLIA_FLOAT32), &d));
  keep(d);
  // torch.mode: no CUDA kernel yet (cumsum, the example here before, has one since 2026-11-28).
  EXPECT_GLIA_MSG(glia_mode(d, 0, 0, &r, &ri), GLIA_ERR_UNSUPPORTED, "'mode' is not implemented for device cuda:0");
  EXPECT_EQ(r, nullptr);
  EXPECT_EQ(ri, nullptr);
}

// The index kernels (cuda/index.cu): a bad index is the CPU's error, with nothing written; duplicate indices
// apply in the CPU's order (scatter's last write wins, index_add's float sums are the CPU's bits, run after
// run); masked_select and argmax (ties and a NaN) give the CPU's results.
TEST_F(CudaDevice, IndexKernelsCheckIndicesAndKeepTheCpuOrder) {
  auto make = [&](const void* data, size_t nbytes, int64_t n, glia_dtype dt, const glia_device& dev) {
    glia_tensor *h = nullptr, *t = nullptr;
    const int64_t shape[] = {n};
    EXPECT_EQ(glia_tensor_from_data(data, nbytes, shape, 1, dt, &h), nullptr);
    keep(h);
    if (dev.type == GLIA_CPU) return h;
    EXPECT_EQ(glia_tensor_to(h, &dev, ptr_to(dt), &t), nullptr);
    return keep(t);
  };
  auto floats = [&](glia_tensor* t) {
    int64_t n = 0;
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    std::vector<float> v(static_cast<size_t>(n));
    EXPECT_EQ(glia_tensor_copy_to_host(t, v.data(), v.size() * 4), nullptr);
    return v;
  };
  const std::vector<float> x{1, 2, 3};
  const std::vector<int64_t> bad{0, 5}, neg{1, -1}, dup{1, 1, 1, 1};
  glia_tensor* d = make(x.data(), 12, 3, GLIA_FLOAT32, kCuda);
  glia_tensor* r = nullptr;
  EXPECT_GLIA_MSG(glia_index_select(d, 0, make(bad.data(), 16, 2, GLIA_INT64, kCuda), &r), GLIA_ERR_INVALID_ARGUMENT,
                  "INDICES element is out of DATA bounds, id=5 axis_dim=3");
  EXPECT_GLIA_MSG(glia_gather(d, 0, make(neg.data(), 16, 2, GLIA_INT64, kCuda), &r), GLIA_ERR_INVALID_ARGUMENT,
                  "index -1 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(r, nullptr);
  EXPECT_EQ(floats(d), x);
  // 1e8 + 1 - 1e8 + 0.5 in float32 depends on the order of the additions.
  const std::vector<float> src{1e8f, 1.0f, -1e8f, 0.5f};
  for (const glia_device& dev : {kCpu, kCuda}) {
    glia_tensor* a = make(x.data(), 12, 3, GLIA_FLOAT32, dev);
    glia_tensor* idx = make(dup.data(), 32, 4, GLIA_INT64, dev);
    glia_tensor* s = make(src.data(), 16, 4, GLIA_FLOAT32, dev);
    glia_tensor *sc = nullptr, *ia = nullptr, *ia2 = nullptr;
    GLIA_OK_(glia_scatter(a, 0, idx, s, &sc));
    keep(sc);
    EXPECT_EQ(floats(sc), (std::vector<float>{1, 0.5f, 3}));
    GLIA_OK_(glia_index_add(a, 0, idx, s, glia_scalar_float(1), &ia));
    keep(ia);
    GLIA_OK_(glia_index_add(a, 0, idx, s, glia_scalar_float(1), &ia2));
    keep(ia2);
    const float want = static_cast<float>(static_cast<float>(static_cast<float>(2.0f + 1e8f) + 1.0f) - 1e8f) + 0.5f;
    EXPECT_EQ(floats(ia), (std::vector<float>{1, want, 3})) << (dev.type == GLIA_CPU ? "cpu" : "cuda");
    EXPECT_EQ(floats(ia2), floats(ia));
  }
  const std::vector<float> y{2, 7, 7, NAN, 7, NAN};
  const std::vector<uint8_t> mask{1, 0, 1, 1, 0, 1};
  glia_tensor* yd = make(y.data(), 24, 6, GLIA_FLOAT32, kCuda);
  glia_tensor *ms = nullptr, *am = nullptr;
  GLIA_OK_(glia_masked_select(yd, make(mask.data(), 6, 6, GLIA_BOOL, kCuda), &ms));
  keep(ms);
  const std::vector<float> sel = floats(ms);
  ASSERT_EQ(sel.size(), 4u);
  EXPECT_EQ(sel[0], 2.0f);
  EXPECT_EQ(sel[1], 7.0f);
  EXPECT_TRUE(std::isnan(sel[2]) && std::isnan(sel[3]));
  GLIA_OK_(glia_argmax(yd, nullptr, 0, &am));
  keep(am);
  int64_t at = -1;
  GLIA_OK_(glia_tensor_copy_to_host(am, &at, sizeof at));
  EXPECT_EQ(at, 3);  // the first NaN
}

// The first kernels (docs/cuda.md, Kernels): an elementwise product with a broadcast operand, a reduction and a
// cuBLAS product on a transposed view, read back on the host.
TEST_F(CudaDevice, ElementwiseReductionAndMatmulKernels) {
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  int64_t shape[] = {2, 3};
  glia_tensor *x = nullptr, *d = nullptr, *p = nullptr, *s = nullptr, *t = nullptr, *m = nullptr;
  GLIA_OK_(glia_tensor_from_data(v.data(), v.size() * 4, shape, 2, GLIA_FLOAT32, &x));
  keep(x);
  GLIA_OK_(glia_tensor_to(x, &kCuda, ptr_to(GLIA_FLOAT32), &d));
  keep(d);
  GLIA_OK_(glia_mul(d, d, &p));
  keep(p);
  std::vector<float> got(6);
  GLIA_OK_(glia_tensor_copy_to_host(p, got.data(), got.size() * 4));
  EXPECT_EQ(got, (std::vector<float>{1, 4, 9, 16, 25, 36}));
  int64_t dim0[] = {0};
  GLIA_OK_(glia_sum(d, dim0, 1, 0, &s));
  keep(s);
  std::vector<float> sums(3);
  GLIA_OK_(glia_tensor_copy_to_host(s, sums.data(), sums.size() * 4));
  EXPECT_EQ(sums, (std::vector<float>{5, 7, 9}));
  GLIA_OK_(glia_transpose(d, 0, 1, &t));
  keep(t);
  GLIA_OK_(glia_mm(d, t, &m));  // [2, 3] @ [3, 2]
  keep(m);
  std::vector<float> mm(4);
  GLIA_OK_(glia_tensor_copy_to_host(m, mm.data(), mm.size() * 4));
  EXPECT_EQ(mm, (std::vector<float>{14, 32, 32, 77}));
}

glia_memory_stats cuda_memory_stats() {
  glia_memory_stats st{};
  st.struct_size = sizeof st;
  glia_error* e = glia_device_memory_stats_get(kCuda, &st);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  return st;
}

// The caching allocator (docs/cuda.md, Memory): a freed 4 MiB tensor stays in its 20 MiB segment and the next
// one of that size reuses it; empty_cache gives the segment back.
TEST_F(CudaDevice, FreedMemoryIsCachedReusedAndEmptied) {
  GLIA_OK_(glia_device_empty_cache(kCuda));
  const glia_memory_stats before = cuda_memory_stats();
  EXPECT_EQ(before.bytes_cached, 0u);
  int64_t shape[] = {1 << 20};
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.device = kCuda;
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_empty(shape, 1, &o, &t));
  glia_memory_stats st = cuda_memory_stats();
  EXPECT_EQ(st.bytes_in_use, before.bytes_in_use + (4u << 20));
  EXPECT_EQ(st.bytes_cached, 16u << 20);  // the rest of the 20 MiB segment
  EXPECT_EQ(st.allocations, before.allocations + 1);
  glia_tensor_release(t);
  st = cuda_memory_stats();
  EXPECT_EQ(st.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(st.bytes_cached, 20u << 20);
  EXPECT_GE(st.peak_bytes_in_use, before.bytes_in_use + (4u << 20));
  GLIA_OK_(glia_tensor_empty(shape, 1, &o, &t));
  EXPECT_EQ(cuda_memory_stats().bytes_cached, 16u << 20);  // no new segment
  glia_tensor_release(t);
  GLIA_OK_(glia_device_reset_peak_memory_stats(kCuda));
  EXPECT_EQ(cuda_memory_stats().peak_bytes_in_use, before.bytes_in_use);
  GLIA_OK_(glia_device_empty_cache(kCuda));
  EXPECT_EQ(cuda_memory_stats().bytes_cached, 0u);
}

TEST_F(CudaDevice, OutOfMemoryIsAnErrorWithTorchsMessage) {
  int64_t shape[] = {int64_t{1} << 38};  // 1 TiB of float32
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.device = kCuda;
  glia_tensor* t = nullptr;
  EXPECT_GLIA_MSG(glia_tensor_empty(shape, 1, &o, &t), GLIA_ERR_OUT_OF_MEMORY,
                  "CUDA out of memory. Tried to allocate 1024.00 GiB (GPU 0; ");
  EXPECT_EQ(t, nullptr);
  shape[0] = 16;
  GLIA_OK_(glia_tensor_empty(shape, 1, &o, &t));  // the device still works
  glia_tensor_release(t);
}

// Streams, timing events, pinned memory and non-blocking copies (docs/cuda.md): a round trip on a stream of
// high priority, timed, with both copies asynchronous.
TEST_F(CudaDevice, StreamsEventsAndNonBlockingCopies) {
  glia_stream *def = nullptr, *s = nullptr, *cur = nullptr;
  GLIA_OK_(glia_device_current_stream(kCuda, &def));
  void* native = reinterpret_cast<void*>(1);
  GLIA_OK_(glia_stream_native(def, &native));
  EXPECT_EQ(native, nullptr);  // CUDA's legacy default stream
  glia_stream_options so;
  glia_stream_options_init(&so);
  so.priority = -1;
  GLIA_OK_(glia_stream_create(kCuda, &so, &s));
  GLIA_OK_(glia_stream_native(s, &native));
  EXPECT_NE(native, nullptr);
  GLIA_OK_(glia_device_set_current_stream(s));
  GLIA_OK_(glia_device_current_stream(kCuda, &cur));
  EXPECT_EQ(cur, s);
  glia_event_options eo;
  glia_event_options_init(&eo);
  eo.enable_timing = 1;
  glia_event *start = nullptr, *end = nullptr;
  GLIA_OK_(glia_event_create(kCuda, &eo, &start));
  GLIA_OK_(glia_event_create(kCuda, &eo, &end));
  std::vector<float> v(1 << 20);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  int64_t shape[] = {static_cast<int64_t>(v.size())};
  glia_tensor *x = nullptr, *p = nullptr, *d = nullptr, *h = nullptr;
  GLIA_OK_(glia_tensor_from_data(v.data(), v.size() * 4, shape, 1, GLIA_FLOAT32, &x));
  keep(x);
  GLIA_OK_(glia_tensor_pin_memory(x, GLIA_CUDA, &p));
  keep(p);
  int32_t flag = 0;
  GLIA_OK_(glia_tensor_is_pinned(p, &flag));
  EXPECT_EQ(flag, 1);
  GLIA_OK_(glia_event_record(start, nullptr));
  GLIA_OK_(glia_tensor_to_non_blocking(p, &kCuda, nullptr, &d));
  keep(d);
  GLIA_OK_(glia_tensor_to_non_blocking(d, &kCpu, nullptr, &h));
  keep(h);
  GLIA_OK_(glia_event_record(end, s));
  GLIA_OK_(glia_tensor_is_pinned(h, &flag));
  EXPECT_EQ(flag, 1);
  GLIA_OK_(glia_event_synchronize(end));
  GLIA_OK_(glia_event_query(end, &flag));
  EXPECT_EQ(flag, 1);
  GLIA_OK_(glia_stream_query(s, &flag));
  EXPECT_EQ(flag, 1);
  double ms = -1;
  GLIA_OK_(glia_event_elapsed_time(start, end, &ms));
  EXPECT_GE(ms, 0.0);
  std::vector<float> got(v.size());
  GLIA_OK_(glia_tensor_copy_to_host(h, got.data(), got.size() * 4));
  EXPECT_EQ(got, v);
  GLIA_OK_(glia_device_set_current_stream(def));
  GLIA_OK_(glia_event_release(start));
  GLIA_OK_(glia_event_release(end));
  GLIA_OK_(glia_stream_release(cur));
  GLIA_OK_(glia_stream_release(s));
  GLIA_OK_(glia_stream_release(def));
}

}  // namespace

// ---- h-cudnn: convolutions through cuDNN (docs/cuda.md, Kernels; Note [cuDNN in the CUDA backend]).

// `t` (any device and dtype) as float64 values on the host.
std::vector<double> host_values(glia_tensor* t) {
  const glia_device cpu{GLIA_CPU, 0};
  glia_tensor* h = nullptr;
  glia_error* e = glia_tensor_to(t, &cpu, ptr_to(GLIA_FLOAT64), &h);
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  int64_t n = 0;
  glia_error_free(glia_tensor_numel(h, &n));
  std::vector<double> v(static_cast<size_t>(n));
  e = glia_tensor_copy_to_host(h, v.data(), v.size() * sizeof(double));
  EXPECT_EQ(e, nullptr) << glia_error_message(e);
  glia_error_free(e);
  glia_tensor_release(h);
  return v;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << what << " [" << i << "]";
}

// conv2d (bias, groups, stride, dilation, asymmetric padding) and its three gradients on cuda:0 against the CPU,
// in `dtype`; returns the gradients of the CUDA run (x, w, b) for the determinism check.
std::vector<std::vector<double>> conv_against_cpu(glia_dtype dtype, double tol) {
  glia_manual_seed(7);
  const int64_t xs[] = {2, 4, 9, 8}, ws[] = {6, 2, 3, 3}, bs[] = {6};
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = dtype;
  glia_tensor *x = nullptr, *w = nullptr, *b = nullptr;
  EXPECT_EQ(glia_tensor_randn(xs, 4, &o, &x), nullptr);
  EXPECT_EQ(glia_tensor_randn(ws, 4, &o, &w), nullptr);
  EXPECT_EQ(glia_tensor_randn(bs, 1, &o, &b), nullptr);
  glia_conv2d_options co;
  glia_conv2d_options_init(&co);
  co.stride[0] = 2, co.padding[0] = 1, co.padding[1] = 2, co.dilation[1] = 2, co.groups = 2;
  std::vector<std::vector<double>> results[2];
  for (int on_gpu = 0; on_gpu < 2; ++on_gpu) {
    glia_tensor* in[3] = {x, w, b};
    glia_tensor* leaf[3] = {};
    for (int k = 0; k < 3; ++k) {
      glia_tensor* moved = nullptr;
      const glia_device cpu{GLIA_CPU, 0};
      EXPECT_EQ(glia_tensor_to(in[k], on_gpu ? &kCuda : &cpu, nullptr, &moved), nullptr);
      EXPECT_EQ(glia_tensor_detach(moved, &leaf[k]), nullptr);
      glia_tensor_release(moved);
      EXPECT_EQ(glia_tensor_set_requires_grad(leaf[k], 1), nullptr);
    }
    glia_tensor *y = nullptr, *s = nullptr;
    glia_error* e = glia_conv2d(leaf[0], leaf[1], leaf[2], &co, &y);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    glia_error_free(e);
    if (!y) return {};
    EXPECT_EQ(glia_sum(y, nullptr, 0, 0, &s), nullptr);
    e = glia_tensor_backward(s, nullptr, 0);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    glia_error_free(e);
    results[on_gpu].push_back(host_values(y));
    for (int k = 0; k < 3; ++k) {
      glia_tensor* g = nullptr;
      EXPECT_EQ(glia_tensor_grad(leaf[k], &g), nullptr);
      results[on_gpu].push_back(g ? host_values(g) : std::vector<double>{});
      glia_tensor_release(g);
      glia_tensor_release(leaf[k]);
    }
    glia_tensor_release(s);
    glia_tensor_release(y);
  }
  const char* names[] = {"y", "grad x", "grad w", "grad b"};
  for (int k = 0; k < 4; ++k) expect_close(results[1][k], results[0][k], tol, names[k]);
  glia_tensor_release(x);
  glia_tensor_release(w);
  glia_tensor_release(b);
  return {results[1].begin() + 1, results[1].end()};
}

TEST_F(CudaDevice, Conv2dThroughCudnnAgreesWithTheCpu) {
  conv_against_cpu(GLIA_FLOAT64, 1e-10);
  GLIA_OK_(glia_set_allow_tf32(GLIA_TF32_CUDNN, 0));  // float32 in float32 (torch's default allows TF32)
  conv_against_cpu(GLIA_FLOAT32, 1e-4);
  GLIA_OK_(glia_set_allow_tf32(GLIA_TF32_CUDNN, 1));
  conv_against_cpu(GLIA_FLOAT32, 1e-2);  // TF32: 10-bit mantissa products
  conv_against_cpu(GLIA_BFLOAT16, 5e-2);
}

TEST_F(CudaDevice, Conv2dDeterministicAlgorithmsGiveTheSameBits) {
  GLIA_OK_(glia_set_deterministic_algorithms(1));
  const auto first = conv_against_cpu(GLIA_FLOAT32, 1e-2);
  const auto second = conv_against_cpu(GLIA_FLOAT32, 1e-2);
  GLIA_OK_(glia_set_deterministic_algorithms(0));
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first, second);  // bit for bit
}

TEST_F(CudaDevice, Conv2dFloat16RunsOnCudaOnly) {
  const int64_t xs[] = {1, 2, 5, 5}, ws[] = {3, 2, 3, 3};
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = GLIA_FLOAT16;
  glia_tensor *x = nullptr, *w = nullptr, *y = nullptr;
  GLIA_OK_(glia_tensor_ones(xs, 4, &o, &x));
  keep(x);
  GLIA_OK_(glia_tensor_ones(ws, 4, &o, &w));
  keep(w);
  // torch's CPU has no float16 convolution.
  EXPECT_GLIA_MSG(glia_conv2d(x, w, nullptr, nullptr, &y), GLIA_ERR_DTYPE,
                  "\"slow_conv2d_cpu\" not implemented for 'Half'");
  glia_tensor *xd = nullptr, *wd = nullptr;
  GLIA_OK_(glia_tensor_to(x, &kCuda, nullptr, &xd));
  keep(xd);
  GLIA_OK_(glia_tensor_to(w, &kCuda, nullptr, &wd));
  keep(wd);
  GLIA_OK_(glia_conv2d(xd, wd, nullptr, nullptr, &y));
  keep(y);
  const std::vector<double> v = host_values(y);
  ASSERT_EQ(v.size(), 27u);
  for (double e : v) EXPECT_EQ(e, 18.0);  // 2 channels x 9 taps of ones
}
