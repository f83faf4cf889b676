// Convolution and pooling on the test device (libglia_testdevice.so, Note
// [Test device memory]): conv2d, conv_transpose2d and the 2-D pools give
// exactly the CPU's results (same kernels) on every CPU path (im2col + GEMM,
// 1x1, depthwise, the AVX-512 direct path; the pools' 2x2, inside and padded
// loops), for all their dtypes and for permuted inputs; their gradients come
// back across a copy equal to the CPU's; torch's conv messages name the device
// of a misplaced tensor; and a small conv net gives the CPU's outputs and
// parameter gradients on the device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace {

constexpr glia_device kCpu{GLIA_CPU, 0};
constexpr glia_device kDev0{GLIA_PRIVATEUSE1, 0};

// One result as the host sees it: device, dtype, shape and bytes.
struct Result {
  glia_device device{};
  glia_dtype dtype{};
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
};

using Op = std::function<glia_error*(const std::vector<const glia_tensor*>&, glia_tensor**)>;

glia_conv2d_options conv_opts(std::vector<int64_t> stride = {1, 1}, std::vector<int64_t> pad = {0, 0},
                              std::vector<int64_t> dil = {1, 1}, int64_t groups = 1,
                              glia_padding_kind kind = GLIA_PADDING_EXPLICIT) {
  glia_conv2d_options o;
  glia_conv2d_options_init(&o);
  for (int i = 0; i < 2; ++i) o.stride[i] = stride[i], o.padding[i] = pad[i], o.dilation[i] = dil[i];
  o.groups = groups;
  o.padding_kind = kind;
  return o;
}

glia_conv_transpose2d_options convt_opts(std::vector<int64_t> stride, std::vector<int64_t> pad,
                                         std::vector<int64_t> out_pad, std::vector<int64_t> dil, int64_t groups) {
  glia_conv_transpose2d_options o;
  glia_conv_transpose2d_options_init(&o);
  for (int i = 0; i < 2; ++i)
    o.stride[i] = stride[i], o.padding[i] = pad[i], o.output_padding[i] = out_pad[i], o.dilation[i] = dil[i];
  o.groups = groups;
  return o;
}

glia_max_pool2d_options max_opts(std::vector<int64_t> k, std::vector<int64_t> stride = {0, 0},
                                 std::vector<int64_t> pad = {0, 0}, std::vector<int64_t> dil = {1, 1},
                                 int32_t ceil = 0) {
  glia_max_pool2d_options o;
  glia_max_pool2d_options_init(&o);
  for (int i = 0; i < 2; ++i)
    o.kernel_size[i] = k[i], o.stride[i] = stride[i], o.padding[i] = pad[i], o.dilation[i] = dil[i];
  o.ceil_mode = ceil;
  return o;
}

glia_avg_pool2d_options avg_opts(std::vector<int64_t> k, std::vector<int64_t> stride = {0, 0},
                                 std::vector<int64_t> pad = {0, 0}, int32_t ceil = 0, int32_t include_pad = 1,
                                 int64_t divisor = 0) {
  glia_avg_pool2d_options o;
  glia_avg_pool2d_options_init(&o);
  for (int i = 0; i < 2; ++i) o.kernel_size[i] = k[i], o.stride[i] = stride[i], o.padding[i] = pad[i];
  o.ceil_mode = ceil;
  o.count_include_pad = include_pad;
  o.divisor_override = divisor;
  return o;
}

class ConvPoolDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
  void TearDown() override {
    for (glia_tensor* t : owned_) glia_tensor_release(t);
    owned_.clear();
  }
  glia_tensor* keep(glia_tensor* t) {
    owned_.push_back(t);
    return t;
  }
  glia_tensor* host(const std::vector<float>& v, std::vector<int64_t> shape) {
    glia_tensor* t = nullptr;
    glia_error* e = glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(),
                                          static_cast<int64_t>(shape.size()), GLIA_FLOAT32, &t);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(t);
  }
  glia_tensor* to(const glia_tensor* t, glia_device d, glia_dtype dt = GLIA_FLOAT32) {
    glia_tensor* out = nullptr;
    glia_error* e = glia_tensor_to(t, &d, &dt, &out);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(out);
  }
  glia_tensor* transposed(const glia_tensor* t, int64_t d0, int64_t d1) {
    glia_tensor* out = nullptr;
    glia_error* e = glia_transpose(t, d0, d1, &out);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(out);
  }
  Result result(const glia_tensor* t) {
    Result r;
    int64_t nd = 0, n = 0;
    EXPECT_EQ(glia_tensor_device(t, &r.device), nullptr);
    EXPECT_EQ(glia_tensor_dtype(t, &r.dtype), nullptr);
    EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
    r.shape.resize(static_cast<size_t>(nd));
    EXPECT_EQ(glia_tensor_shape(t, nd, r.shape.data()), nullptr);
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    r.bytes.resize(static_cast<size_t>(n) * glia_dtype_size(r.dtype));
    glia_error* e = glia_tensor_copy_to_host(t, r.bytes.data(), r.bytes.size());
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return r;
  }
  // The device result must equal the CPU result bit for bit, and live on the device.
  void expect_same(const std::string& what, const glia_tensor* cpu, const glia_tensor* dev) {
    Result c = result(cpu), d = result(dev);
    EXPECT_EQ(c.device.type, GLIA_CPU) << what;
    EXPECT_EQ(d.device.type, GLIA_PRIVATEUSE1) << what;
    EXPECT_EQ(d.dtype, c.dtype) << what;
    EXPECT_EQ(d.shape, c.shape) << what;
    EXPECT_EQ(d.bytes, c.bytes) << what;
    EXPECT_FALSE(c.bytes.empty()) << what;
  }
  // Runs op on the CPU operands and on the device operands (same values, same views) and compares.
  void check(const std::string& what, const std::vector<const glia_tensor*>& cpu_in,
             const std::vector<const glia_tensor*>& dev_in, const Op& op) {
    glia_tensor *c = nullptr, *d = nullptr;
    glia_error* e = op(cpu_in, &c);
    ASSERT_EQ(e, nullptr) << what << ": " << glia_error_message(e);
    keep(c);
    e = op(dev_in, &d);
    ASSERT_EQ(e, nullptr) << what << " (device): " << glia_error_message(e);
    keep(d);
    expect_same(what, c, d);
  }
  // The CPU operands as float32 host tensors of `shapes` and their copies on the device, in dtype dt.
  void operands(const std::vector<std::vector<int64_t>>& shapes, glia_dtype dt, std::vector<const glia_tensor*>& c,
                std::vector<const glia_tensor*>& d, float scale = 1.0f) {
    c.clear(), d.clear();
    size_t k = 0;
    for (const auto& s : shapes) {
      size_t n = 1;
      for (int64_t v : s) n *= static_cast<size_t>(v);
      glia_tensor* h = host(data(n, scale * (1.0f + 0.25f * static_cast<float>(k++))), s);
      c.push_back(to(h, kCpu, dt));
      d.push_back(to(h, kDev0, dt));
    }
  }
  // Values of [n] with a spread of magnitudes and signs, and ties (max pooling's first-maximum rule).
  static std::vector<float> data(size_t n, float scale = 1.0f) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
      v[i] = scale * static_cast<float>(std::round(8.0 * std::sin(0.7 * i + 0.3) * (1.0 + (i % 5))) / 8.0);
    if (n > 7) v[7] = v[6];
    return v;
  }
  std::vector<glia_tensor*> owned_;
};

// One conv2d case: x and w shapes (bias [O] when `bias`) and options.
struct ConvCase {
  const char* name;
  std::vector<int64_t> x, w;
  bool bias;
  glia_conv2d_options o;
};

std::vector<ConvCase> conv_cases() {
  return {
      {"gemm", {2, 4, 7, 9}, {5, 4, 3, 3}, true, conv_opts()},
      {"strided padded dilated groups", {2, 4, 9, 10}, {6, 2, 3, 2}, true, conv_opts({2, 1}, {1, 2}, {1, 2}, 2)},
      {"same, even kernel", {1, 3, 6, 7}, {4, 3, 2, 4}, false, conv_opts({1, 1}, {0, 0}, {1, 1}, 1, GLIA_PADDING_SAME)},
      {"valid", {1, 3, 6, 7}, {4, 3, 2, 3}, true, conv_opts({1, 1}, {5, 5}, {1, 1}, 1, GLIA_PADDING_VALID)},
      {"1x1", {2, 6, 5, 4}, {3, 6, 1, 1}, true, conv_opts()},
      {"depthwise", {2, 4, 8, 8}, {8, 1, 3, 3}, true, conv_opts({1, 1}, {1, 1}, {1, 1}, 4)},
      {"few input channels (direct)", {3, 2, 11, 20}, {6, 2, 5, 5}, true, conv_opts({1, 1}, {2, 2})},
      {"wide width stride", {2, 3, 6, 70}, {4, 3, 3, 3}, false, conv_opts({1, 2}, {1, 1})},
  };
}

TEST_F(ConvPoolDevice, ConvolutionsMatchTheCpu) {
  std::vector<const glia_tensor*> c, d;
  for (const ConvCase& cc : conv_cases())
    for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64, GLIA_BFLOAT16, GLIA_INT64}) {
      std::vector<std::vector<int64_t>> shapes = {cc.x, cc.w};
      if (cc.bias) shapes.push_back({cc.w[0]});
      operands(shapes, dt, c, d);
      const std::string what = std::string("conv2d ") + cc.name + " dtype " + std::to_string(dt);
      const glia_conv2d_options o = cc.o;
      auto op = [&](const std::vector<const glia_tensor*>& in, glia_tensor** out) {
        return glia_conv2d(in[0], in[1], in.size() > 2 ? in[2] : nullptr, &o, out);
      };
      check(what, c, d, op);
      // x permuted in H and W (a non-contiguous input) with a weight permuted the same way.
      if (dt == GLIA_FLOAT32 && o.padding_kind == GLIA_PADDING_EXPLICIT && o.stride[0] == o.stride[1] &&
          o.dilation[0] == o.dilation[1] && o.padding[0] == o.padding[1]) {
        std::vector<const glia_tensor*> ct = c, dtv = d;
        ct[0] = transposed(c[0], 2, 3), dtv[0] = transposed(d[0], 2, 3);
        ct[1] = transposed(c[1], 2, 3), dtv[1] = transposed(d[1], 2, 3);
        check(what + " (permuted)", ct, dtv, op);
      }
    }
  // Unbatched [C, H, W].
  operands({{4, 6, 5}, {3, 4, 3, 3}, {3}}, GLIA_FLOAT32, c, d);
  const glia_conv2d_options o = conv_opts({1, 1}, {1, 1});
  check("conv2d unbatched", c, d, [&](const std::vector<const glia_tensor*>& in, glia_tensor** out) {
    return glia_conv2d(in[0], in[1], in[2], &o, out);
  });
}

TEST_F(ConvPoolDevice, TransposedConvolutionsMatchTheCpu) {
  struct Case {
    const char* name;
    std::vector<int64_t> x, w;
    bool bias;
    glia_conv_transpose2d_options o;
  };
  const std::vector<Case> cases = {
      {"plain", {2, 4, 5, 6}, {4, 3, 3, 3}, true, convt_opts({1, 1}, {0, 0}, {0, 0}, {1, 1}, 1)},
      {"strided output_padding", {2, 4, 5, 6}, {4, 3, 3, 2}, true, convt_opts({2, 3}, {1, 0}, {1, 2}, {1, 1}, 1)},
      {"groups dilation", {1, 4, 4, 5}, {4, 2, 2, 3}, false, convt_opts({1, 2}, {0, 1}, {0, 1}, {2, 2}, 2)},
      {"1x1", {2, 6, 3, 4}, {6, 2, 1, 1}, true, convt_opts({1, 1}, {0, 0}, {0, 0}, {1, 1}, 1)},
  };
  std::vector<const glia_tensor*> c, d;
  for (const Case& cc : cases)
    for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64, GLIA_BFLOAT16, GLIA_INT64}) {
      std::vector<std::vector<int64_t>> shapes = {cc.x, cc.w};
      if (cc.bias) shapes.push_back({cc.w[1] * cc.o.groups});
      operands(shapes, dt, c, d);
      const glia_conv_transpose2d_options o = cc.o;
      check(std::string("conv_transpose2d ") + cc.name + " dtype " + std::to_string(dt), c, d,
            [&](const std::vector<const glia_tensor*>& in, glia_tensor** out) {
              return glia_conv_transpose2d(in[0], in[1], in.size() > 2 ? in[2] : nullptr, &o, out);
            });
    }
}

TEST_F(ConvPoolDevice, PoolsMatchTheCpu) {
  const std::vector<std::pair<const char*, glia_max_pool2d_options>> max_cases = {
      {"2x2", max_opts({2, 2})},                   // the 2x2 / stride 2 path
      {"3x2 stride 1", max_opts({3, 2}, {1, 1})},  // windows all inside
      {"padded dilated ceil", max_opts({3, 3}, {2, 2}, {1, 1}, {2, 1}, 1)},
      {"2x2 ceil", max_opts({2, 2}, {2, 2}, {0, 0}, {1, 1}, 1)},  // a partial last window
  };
  const std::vector<std::pair<const char*, glia_avg_pool2d_options>> avg_cases = {
      {"2x2", avg_opts({2, 2})},
      {"padded ceil exclude pad", avg_opts({3, 3}, {2, 2}, {1, 1}, 1, 0)},
      {"divisor_override", avg_opts({3, 2}, {1, 2}, {1, 1}, 0, 1, 5)},
  };
  std::vector<const glia_tensor*> c, d;
  for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64, GLIA_BFLOAT16, GLIA_INT64})
    for (int permuted : {0, 1}) {
      operands({{2, 3, 9, 11}}, dt, c, d);
      if (permuted) c[0] = transposed(c[0], 2, 3), d[0] = transposed(d[0], 2, 3);
      const std::string suffix = " dtype " + std::to_string(dt) + (permuted ? " (permuted)" : "");
      if (dt != GLIA_INT64) {
        for (const auto& [name, o] : max_cases) {
          check(std::string("max_pool2d ") + name + suffix, c, d,
                [&](const auto& in, glia_tensor** out) { return glia_max_pool2d(in[0], &o, out, nullptr); });
          check(std::string("max_pool2d indices ") + name + suffix, c, d, [&](const auto& in, glia_tensor** out) {
            glia_tensor* values = nullptr;
            glia_error* e = glia_max_pool2d(in[0], &o, &values, out);
            if (!e) glia_tensor_release(values);
            return e;
          });
        }
        for (std::vector<int64_t> size : {std::vector<int64_t>{3, 4}, {1, 1}, {9, 11}, {5, 7}})
          check("adaptive_avg_pool2d " + std::to_string(size[0]) + "x" + std::to_string(size[1]) + suffix, c, d,
                [&](const auto& in, glia_tensor** out) {
                  return glia_adaptive_avg_pool2d(in[0], size[0], size[1], out);
                });
      }
      for (const auto& [name, o] : avg_cases)
        check(std::string("avg_pool2d ") + name + suffix, c, d,
              [&](const auto& in, glia_tensor** out) { return glia_avg_pool2d(in[0], &o, out); });
    }
  // Unbatched [C, H, W].
  operands({{3, 6, 5}}, GLIA_FLOAT32, c, d);
  const glia_max_pool2d_options mo = max_opts({2, 2});
  check("max_pool2d unbatched", c, d,
        [&](const auto& in, glia_tensor** out) { return glia_max_pool2d(in[0], &mo, out, nullptr); });
  check("adaptive_avg_pool2d unbatched", c, d,
        [&](const auto& in, glia_tensor** out) { return glia_adaptive_avg_pool2d(in[0], 2, 3, out); });
}

// Gradients computed on the device and carried back to CPU leaves equal the CPU's, for every input.
TEST_F(ConvPoolDevice, GradientsMatchTheCpu) {
  struct Case {
    std::string name;
    std::vector<std::vector<int64_t>> shapes;  // the leaves: x, then w and bias for convolutions
    Op op;
  };
  std::vector<Case> cases;
  for (const ConvCase& cc : conv_cases()) {
    std::vector<std::vector<int64_t>> shapes = {cc.x, cc.w};
    if (cc.bias) shapes.push_back({cc.w[0]});
    const glia_conv2d_options o = cc.o;
    cases.push_back({std::string("conv2d ") + cc.name, shapes, [o](const auto& in, glia_tensor** out) {
                       return glia_conv2d(in[0], in[1], in.size() > 2 ? in[2] : nullptr, &o, out);
                     }});
  }
  const glia_conv_transpose2d_options to1 = convt_opts({2, 1}, {1, 0}, {1, 0}, {1, 1}, 1);
  cases.push_back({"conv_transpose2d", {{2, 4, 5, 6}, {4, 3, 3, 2}, {3}}, [to1](const auto& in, glia_tensor** out) {
                     return glia_conv_transpose2d(in[0], in[1], in[2], &to1, out);
                   }});
  const glia_conv_transpose2d_options to2 = convt_opts({1, 2}, {0, 1}, {0, 1}, {2, 2}, 2);
  cases.push_back({"conv_transpose2d groups", {{1, 4, 4, 5}, {4, 2, 2, 3}}, [to2](const auto& in, glia_tensor** out) {
                     return glia_conv_transpose2d(in[0], in[1], nullptr, &to2, out);
                   }});
  const glia_max_pool2d_options m1 = max_opts({2, 2}), m2 = max_opts({3, 3}, {2, 2}, {1, 1}, {2, 1}, 1);
  cases.push_back({"max_pool2d 2x2", {{2, 3, 9, 11}}, [m1](const auto& in, glia_tensor** out) {
                     return glia_max_pool2d(in[0], &m1, out, nullptr);
                   }});
  cases.push_back({"max_pool2d padded dilated", {{2, 3, 9, 11}}, [m2](const auto& in, glia_tensor** out) {
                     return glia_max_pool2d(in[0], &m2, out, nullptr);
                   }});
  const glia_avg_pool2d_options a1 = avg_opts({3, 3}, {2, 2}, {1, 1}, 1, 0),
                                a2 = avg_opts({3, 2}, {1, 2}, {1, 1}, 0, 1, 5);
  cases.push_back({"avg_pool2d", {{2, 3, 9, 11}}, [a1](const auto& in, glia_tensor** out) {
                     return glia_avg_pool2d(in[0], &a1, out);
                   }});
  cases.push_back({"avg_pool2d divisor_override", {{2, 3, 9, 11}}, [a2](const auto& in, glia_tensor** out) {
                     return glia_avg_pool2d(in[0], &a2, out);
                   }});
  cases.push_back({"adaptive_avg_pool2d", {{2, 3, 9, 11}}, [](const auto& in, glia_tensor** out) {
                     return glia_adaptive_avg_pool2d(in[0], 4, 3, out);
                   }});
  for (glia_dtype dt : {GLIA_FLOAT32, GLIA_FLOAT64})
    for (const Case& c : cases) {
      const std::string what = c.name + " dtype " + std::to_string(dt);
      std::vector<std::vector<unsigned char>> grads[2];
      for (int side = 0; side < 2; ++side) {
        std::vector<const glia_tensor*> in;
        std::vector<glia_tensor*> leaves;
        size_t k = 0;
        for (const auto& s : c.shapes) {
          size_t n = 1;
          for (int64_t v : s) n *= static_cast<size_t>(v);
          glia_tensor* leaf = to(host(data(n, 1.0f + 0.25f * static_cast<float>(k++)), s), kCpu, dt);
          GLIA_OK_(glia_tensor_set_requires_grad(leaf, 1));
          leaves.push_back(leaf);
          in.push_back(side ? to(leaf, kDev0, dt) : leaf);
        }
        glia_tensor* y = nullptr;
        glia_error* e = c.op(in, &y);
        ASSERT_EQ(e, nullptr) << what << ": " << glia_error_message(e);
        keep(y);
        // Weight the outputs so that every gradient entry differs: loss = sum(y * y).
        glia_tensor *yy = nullptr, *loss = nullptr;
        GLIA_OK_(glia_mul(y, y, &yy));
        keep(yy);
        GLIA_OK_(glia_sum(yy, nullptr, 0, 0, &loss));
        keep(loss);
        e = glia_tensor_backward(loss, nullptr, 0);
        ASSERT_EQ(e, nullptr) << what << (side ? " (device)" : "") << ": " << glia_error_message(e);
        for (glia_tensor* leaf : leaves) {
          glia_tensor* g = nullptr;
          GLIA_OK_(glia_tensor_grad(leaf, &g));
          ASSERT_NE(g, nullptr) << what;
          keep(g);
          Result r = result(g);
          EXPECT_EQ(r.device.type, GLIA_CPU) << what;
          grads[side].push_back(r.bytes);
        }
      }
      ASSERT_EQ(grads[1].size(), grads[0].size()) << what;
      for (size_t i = 0; i < grads[0].size(); ++i) EXPECT_EQ(grads[1][i], grads[0][i]) << what << ", input " << i;
    }
}

TEST_F(ConvPoolDevice, DeviceMismatchesAreRefused) {
  glia_tensor* x = host(data(2 * 3 * 6 * 6), {2, 3, 6, 6});
  glia_tensor* w = host(data(4 * 3 * 3 * 3), {4, 3, 3, 3});
  glia_tensor* b = host(data(4), {4});
  glia_tensor *dx = to(x, kDev0), *dw = to(w, kDev0), *db = to(b, kDev0);
  glia_tensor* r = nullptr;
  const glia_conv2d_options o = conv_opts();
  // torch compares tensor types (dtype and device): its message, with the device in the type's name.
  EXPECT_GLIA_MSG(glia_conv2d(x, dw, nullptr, &o, &r), GLIA_ERR_DEVICE,
                  "Input type (torch.FloatTensor) and weight type (torch.testdevice.FloatTensor) should be the same or "
                  "input should be a MKLDNN tensor and weight is a dense tensor");
  EXPECT_GLIA_MSG(glia_conv2d(dx, w, db, &o, &r), GLIA_ERR_DEVICE,
                  "Input type (torch.testdevice.FloatTensor) and weight type (torch.FloatTensor)");
  EXPECT_GLIA_MSG(glia_conv2d(dx, dw, b, &o, &r), GLIA_ERR_DEVICE,
                  "Input type (torch.testdevice.FloatTensor) and bias type (torch.FloatTensor) should be the same");
  EXPECT_GLIA_MSG(glia_conv2d(dx, to(w, kDev0, GLIA_FLOAT64), nullptr, &o, &r), GLIA_ERR_DTYPE,
                  "Input type (torch.testdevice.FloatTensor) and weight type (torch.testdevice.DoubleTensor)");
  glia_tensor* wt = host(data(3 * 2 * 3 * 3), {3, 2, 3, 3});
  const glia_conv_transpose2d_options ot = convt_opts({1, 1}, {0, 0}, {0, 0}, {1, 1}, 1);
  EXPECT_GLIA_MSG(glia_conv_transpose2d(dx, wt, nullptr, &ot, &r), GLIA_ERR_DEVICE,
                  "Input type (torch.testdevice.FloatTensor) and weight type (torch.FloatTensor)");
  EXPECT_GLIA_ERR(glia_conv_transpose2d(dx, to(wt, kDev0), b, &ot, &r), GLIA_ERR_DEVICE);
  EXPECT_EQ(r, nullptr);
  // torch's checks come with their messages on the device too.
  glia_tensor* big = to(host(data(4 * 3 * 7 * 7), {4, 3, 7, 7}), kDev0);
  EXPECT_GLIA_MSG(glia_conv2d(dx, big, nullptr, &o, &r), GLIA_ERR_SHAPE,
                  "Calculated padded input size per channel: (6 x 6). Kernel size: (7 x 7). Kernel size can't be "
                  "greater than actual input size");
  const glia_max_pool2d_options mo = max_opts({7, 7});
  EXPECT_GLIA_MSG(glia_max_pool2d(dx, &mo, &r, nullptr), GLIA_ERR_SHAPE,
                  "Given input size: (3x6x6). Calculated output size: (3x0x0). Output size is too small");
  const glia_max_pool2d_options m2 = max_opts({2, 2});
  EXPECT_GLIA_MSG(glia_max_pool2d(to(x, kDev0, GLIA_INT64), &m2, &r, nullptr), GLIA_ERR_DTYPE,
                  "\"max_pool2d\" not implemented for 'Long'");
  EXPECT_GLIA_MSG(glia_adaptive_avg_pool2d(dx, -1, 2, &r), GLIA_ERR_INVALID_ARGUMENT,
                  "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0");
  EXPECT_EQ(r, nullptr);
}

// A small conv net (Conv2d, ReLU, MaxPool2d, Conv2d, AvgPool2d, ConvTranspose2d, AdaptiveAvgPool2d) moved
// to the device gives the CPU copy's output and parameter gradients.
TEST_F(ConvPoolDevice, ConvNetMatchesTheCpu) {
  std::vector<glia_module*> nets[2];
  for (int side = 0; side < 2; ++side) {
    glia_manual_seed(1234);
    glia_module* m = nullptr;
    glia_nn_conv2d_options c1;
    glia_nn_conv2d_options_init(&c1);
    c1.padding[0] = c1.padding[1] = 1;
    GLIA_OK_(glia_nn_conv2d(3, 6, 3, 3, &c1, nullptr, &m));
    nets[side].push_back(m);
    GLIA_OK_(glia_nn_relu(nullptr, &m));
    nets[side].push_back(m);
    const glia_max_pool2d_options mo = max_opts({2, 2});
    GLIA_OK_(glia_nn_max_pool2d(&mo, nullptr, &m));
    nets[side].push_back(m);
    glia_nn_conv2d_options c2;
    glia_nn_conv2d_options_init(&c2);
    c2.groups = 2;
    GLIA_OK_(glia_nn_conv2d(6, 8, 3, 3, &c2, nullptr, &m));
    nets[side].push_back(m);
    const glia_avg_pool2d_options ao = avg_opts({2, 2}, {1, 1});
    GLIA_OK_(glia_nn_avg_pool2d(&ao, nullptr, &m));
    nets[side].push_back(m);
    glia_nn_conv_transpose2d_options t;
    glia_nn_conv_transpose2d_options_init(&t);
    t.stride[0] = t.stride[1] = 2;
    GLIA_OK_(glia_nn_conv_transpose2d(8, 4, 2, 2, &t, nullptr, &m));
    nets[side].push_back(m);
    GLIA_OK_(glia_nn_adaptive_avg_pool2d(3, 3, nullptr, &m));
    nets[side].push_back(m);
    if (side)
      for (glia_module* mod : nets[side]) GLIA_OK_(glia_module_to(mod, &kDev0, nullptr));
  }
  glia_tensor* x = host(data(4 * 3 * 12 * 12, 0.1f), {4, 3, 12, 12});
  glia_tensor* y[2] = {};
  for (int side = 0; side < 2; ++side) {
    glia_tensor* h = side ? to(x, kDev0) : x;
    for (glia_module* mod : nets[side]) {
      glia_tensor* out = nullptr;
      int64_t n = 0;
      GLIA_OK_(glia_module_forward(mod, &h, 1, &out, 1, &n));
      ASSERT_EQ(n, 1);
      h = keep(out);
    }
    y[side] = h;
    glia_tensor *yy = nullptr, *loss = nullptr;
    GLIA_OK_(glia_mul(h, h, &yy));
    keep(yy);
    GLIA_OK_(glia_sum(yy, nullptr, 0, 0, &loss));
    keep(loss);
    GLIA_OK_(glia_tensor_backward(loss, nullptr, 0));
  }
  expect_same("conv net output", y[0], y[1]);
  for (size_t i = 0; i < nets[0].size(); ++i)
    for (const char* p : {"weight", "bias"}) {
      glia_tensor *pc = nullptr, *pd = nullptr;
      glia_error* e = glia_module_get_parameter(nets[0][i], p, &pc);
      if (e) {  // modules without parameters
        glia_error_free(e);
        continue;
      }
      keep(pc);
      GLIA_OK_(glia_module_get_parameter(nets[1][i], p, &pd));
      keep(pd);
      expect_same(std::string("module ") + std::to_string(i) + " " + p, pc, pd);
      glia_tensor *gc = nullptr, *gd = nullptr;
      GLIA_OK_(glia_tensor_grad(pc, &gc));
      GLIA_OK_(glia_tensor_grad(pd, &gd));
      ASSERT_NE(gc, nullptr);
      ASSERT_NE(gd, nullptr);
      keep(gc);
      keep(gd);
      expect_same(std::string("module ") + std::to_string(i) + " " + p + " grad", gc, gd);
    }
  for (auto& net : nets)
    for (glia_module* m : net) glia_error_free(glia_module_release(m));
}

}  // namespace
