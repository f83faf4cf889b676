// The elementwise family (unary math, pow, clamp, maximum/minimum, where,
// comparisons and logic, activations and their backward kernels, in-place
// arithmetic) on the test device (Note [Test device memory]): each op gives
// bit for bit the CPU's result, with the CPU's dtype and shape, for same-shape,
// broadcast and mixed-dtype operands; CPU scalars join device ops; other CPU
// tensors and other devices are refused with GLIA_ERR_DEVICE.
#include <dlfcn.h>
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
constexpr glia_device kDev1{GLIA_PRIVATEUSE1, 1};

using T = glia_tensor*;
using CT = const glia_tensor*;
using Op1 = std::function<glia_error*(CT, T*)>;
using Op2 = std::function<glia_error*(CT, CT, T*)>;
using Op3 = std::function<glia_error*(CT, CT, CT, T*)>;
// An in-place op on a clone of its first operand.
using OpInplace = std::function<glia_error*(T, CT)>;

class ElementwiseDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    glia_error* e = glia_backend_load(GLIA_TESTDEVICE_PATH);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
  }
  void TearDown() override {
    for (T t : owned_) glia_tensor_release(t);
    owned_.clear();
    void* h = dlopen(GLIA_TESTDEVICE_PATH, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(h, nullptr);
    auto live = reinterpret_cast<int64_t (*)(int32_t)>(dlsym(h, "glia_testdevice_live_allocations"));
    dlclose(h);
    ASSERT_NE(live, nullptr);
    EXPECT_EQ(live(0), 0) << "device memory leaked";
    EXPECT_EQ(live(1), 0) << "device memory leaked";
  }
  static void ok(glia_error* e) {
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    if (e) glia_error_free(e);
  }
  T keep(T t) {
    if (t) owned_.push_back(t);
    return t;
  }
  T host(const std::vector<float>& v, std::vector<int64_t> shape, glia_dtype dt = GLIA_FLOAT32) {
    T t = nullptr;
    ok(glia_tensor_from_data(v.data(), v.size() * sizeof(float), shape.data(), static_cast<int64_t>(shape.size()),
                             GLIA_FLOAT32, &t));
    keep(t);
    return dt == GLIA_FLOAT32 ? t : to(t, kCpu, dt);
  }
  // A 0-dim CPU tensor (a scalar operand).
  T scalar(float v) {
    T t = nullptr;
    ok(glia_tensor_from_data(&v, sizeof v, nullptr, 0, GLIA_FLOAT32, &t));
    return keep(t);
  }
  T to(CT t, glia_device d, glia_dtype dt) {
    T out = nullptr;
    glia_error* e = glia_tensor_to(t, &d, &dt, &out);
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return keep(out);
  }
  T dev(CT t) {
    glia_dtype dt{};
    EXPECT_EQ(glia_tensor_dtype(t, &dt), nullptr);
    return to(t, kDev0, dt);
  }
  T clone(CT t) {
    T out = nullptr;
    ok(glia_tensor_clone(t, &out));
    return keep(out);
  }
  // dtype, shape and the bytes of the elements (row-major), read back to the host.
  struct Snapshot {
    glia_dtype dtype{};
    std::vector<int64_t> shape;
    std::vector<unsigned char> bytes;
    glia_device device{};
    bool operator==(const Snapshot& o) const { return dtype == o.dtype && shape == o.shape && bytes == o.bytes; }
  };
  Snapshot snap(CT t) {
    Snapshot s;
    EXPECT_EQ(glia_tensor_dtype(t, &s.dtype), nullptr);
    EXPECT_EQ(glia_tensor_device(t, &s.device), nullptr);
    int64_t nd = 0, n = 0;
    EXPECT_EQ(glia_tensor_ndim(t, &nd), nullptr);
    s.shape.resize(static_cast<size_t>(nd));
    EXPECT_EQ(glia_tensor_shape(t, nd, s.shape.data()), nullptr);
    EXPECT_EQ(glia_tensor_numel(t, &n), nullptr);
    s.bytes.resize(static_cast<size_t>(n) * glia_dtype_size(s.dtype));
    glia_error* e = glia_tensor_copy_to_host(t, s.bytes.data(), s.bytes.size());
    EXPECT_EQ(e, nullptr) << glia_error_message(e);
    return s;
  }
  std::vector<float> floats(CT t) {
    T f = to(t, kCpu, GLIA_FLOAT32);
    Snapshot s = snap(f);
    std::vector<float> v(s.bytes.size() / sizeof(float));
    std::memcpy(v.data(), s.bytes.data(), s.bytes.size());
    return v;
  }
  // The op on the host operands and on their device copies: same result, the latter on the device.
  void expect_same(const std::string& what, const std::function<glia_error*(const std::vector<CT>&, T*)>& op,
                   const std::vector<CT>& args) {
    SCOPED_TRACE(what);
    std::vector<CT> dargs;
    for (size_t i = 0; i < args.size(); ++i) {
      CT a = args[i];
      int64_t nd = 0;
      glia_device d{};
      ASSERT_EQ(glia_tensor_ndim(a, &nd), nullptr);
      ASSERT_EQ(glia_tensor_device(a, &d), nullptr);
      // 0-dim CPU operands stay on the CPU (scalars next to device tensors).
      dargs.push_back(i > 0 && nd == 0 && d.type == GLIA_CPU ? a : dev(a));
    }
    T c = nullptr, d = nullptr;
    glia_error* e = op(args, &c);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
    keep(c);
    e = op(dargs, &d);
    ASSERT_EQ(e, nullptr) << glia_error_message(e);
    keep(d);
    Snapshot sc = snap(c), sd = snap(d);
    EXPECT_EQ(sd.device.type, GLIA_PRIVATEUSE1);
    EXPECT_EQ(sc.dtype, sd.dtype);
    EXPECT_EQ(sc.shape, sd.shape);
    EXPECT_TRUE(sc.bytes == sd.bytes) << "device result differs from the CPU's";
  }
  void unary(const std::string& what, const Op1& op, CT a) {
    expect_same(what, [&](const std::vector<CT>& v, T* o) { return op(v[0], o); }, {a});
  }
  void binary(const std::string& what, const Op2& op, CT a, CT b) {
    expect_same(what, [&](const std::vector<CT>& v, T* o) { return op(v[0], v[1], o); }, {a, b});
  }
  void ternary(const std::string& what, const Op3& op, CT a, CT b, CT c) {
    expect_same(what, [&](const std::vector<CT>& v, T* o) { return op(v[0], v[1], v[2], o); }, {a, b, c});
  }
  // In place on a clone of self (self's dtype and shape are kept), on the CPU and on the device.
  void inplace(const std::string& what, const OpInplace& op, CT self, CT other) {
    expect_same(what,
                [&](const std::vector<CT>& v, T* o) {
                  T s = clone(v[0]);
                  glia_error* e = op(s, v[1]);
                  if (e) return e;
                  return glia_tensor_clone(s, o);
                },
                {self, other});
  }
  std::vector<T> owned_;
};

// Values with negatives, zeros, fractions and NaN: a [2, 3] and a [3] (broadcast along the rows).
const std::vector<float> kA = {1.5f, -2.f, 0.f, 4.25f, -0.5f, NAN};
const std::vector<float> kB = {2.f, -0.5f, 3.f};

TEST_F(ElementwiseDevice, UnaryOpsMatchTheCpu) {
  T a = host(kA, {2, 3});
  T ai = host({3, -2, 0, 7, -1, 5}, {2, 3}, GLIA_INT32);
  const std::vector<std::pair<std::string, Op1>> ops = {
      {"abs", glia_abs},
      {"sign", glia_sign},
      {"neg", glia_neg},
      {"exp", glia_exp},
      {"log", glia_log},
      {"log1p", glia_log1p},
      {"expm1", glia_expm1},
      {"sqrt", glia_sqrt},
      {"rsqrt", glia_rsqrt},
      {"sigmoid", glia_sigmoid},
      {"tanh", glia_tanh},
      {"relu", glia_relu},
      {"silu", glia_silu},
      {"logical_not", glia_logical_not},
      {"leaky_relu", [](CT x, T* o) { return glia_leaky_relu(x, 0.125, o); }},
      {"elu", [](CT x, T* o) { return glia_elu(x, 1.5, 1.25, 0.5, o); }},
      {"gelu none", [](CT x, T* o) { return glia_gelu(x, "none", o); }},
      {"gelu tanh", [](CT x, T* o) { return glia_gelu(x, "tanh", o); }},
      {"softplus", [](CT x, T* o) { return glia_softplus(x, 2.0, 3.0, o); }},
      {"hardtanh", [](CT x, T* o) { return glia_hardtanh(x, -1.0, 1.25, o); }},
      {"pow_scalar 2", [](CT x, T* o) { return glia_pow_scalar(x, glia_scalar_float(2), o); }},
      {"pow_scalar 0.5", [](CT x, T* o) { return glia_pow_scalar(x, glia_scalar_float(0.5), o); }},
      {"pow_scalar -1", [](CT x, T* o) { return glia_pow_scalar(x, glia_scalar_int(-1), o); }},
      {"pow_scalar 2.5", [](CT x, T* o) { return glia_pow_scalar(x, glia_scalar_float(2.5), o); }},
      {"scalar_pow", [](CT x, T* o) { return glia_scalar_pow(glia_scalar_float(1.5), x, o); }},
      {"clamp both",
       [](CT x, T* o) {
         glia_scalar lo = glia_scalar_float(-1), hi = glia_scalar_float(2);
         return glia_clamp(x, &lo, &hi, o);
       }},
      {"clamp min",
       [](CT x, T* o) {
         glia_scalar lo = glia_scalar_float(0.25);
         return glia_clamp(x, &lo, nullptr, o);
       }},
      {"clamp max NaN",
       [](CT x, T* o) {
         glia_scalar hi = glia_scalar_float(NAN);
         return glia_clamp(x, nullptr, &hi, o);
       }},
      {"eq_scalar", [](CT x, T* o) { return glia_eq_scalar(x, glia_scalar_float(0), o); }},
      {"lt_scalar", [](CT x, T* o) { return glia_lt_scalar(x, glia_scalar_float(0.5), o); }},
  };
  for (const auto& [name, op] : ops) unary(name, op, a);
  // Integer inputs: the float ops compute in float32, the others in the input's dtype.
  const char* int_ops[] = {"abs",      "sign",           "neg",        "exp",      "log",
                           "sqrt",     "sigmoid",        "tanh",       "relu",     "logical_not",
                           "hardtanh", "pow_scalar 2.5", "clamp both", "eq_scalar"};
  for (const auto& [name, op] : ops)
    for (const char* n : int_ops)
      if (name == n) unary(name + " int32", op, ai);
}

TEST_F(ElementwiseDevice, BinaryOpsMatchTheCpuWithBroadcastAndMixedDtypes) {
  T a = host(kA, {2, 3});
  T b = host(kB, {3});
  T bi = host({2, -1, 3}, {3}, GLIA_INT32);
  T ai = host({3, -2, 0, 7, -1, 5}, {2, 3}, GLIA_INT64);
  const std::vector<std::pair<std::string, Op2>> ops = {
      {"pow", glia_pow},
      {"maximum", glia_maximum},
      {"minimum", glia_minimum},
      {"eq", glia_eq},
      {"ne", glia_ne},
      {"lt", glia_lt},
      {"le", glia_le},
      {"gt", glia_gt},
      {"ge", glia_ge},
      {"logical_and", glia_logical_and},
      {"logical_or", glia_logical_or},
      {"logical_xor", glia_logical_xor},
      {"clamp_tensor min", [](CT x, CT y, T* o) { return glia_clamp_tensor(x, y, nullptr, o); }},
      {"clamp_tensor max", [](CT x, CT y, T* o) { return glia_clamp_tensor(x, nullptr, y, o); }},
  };
  for (const auto& [name, op] : ops) {
    binary(name + " same shape", op, a, a);
    binary(name + " broadcast", op, a, b);
    binary(name + " broadcast first", op, b, a);
    binary(name + " float32 x int32", op, a, bi);
    binary(name + " int64 x int32", op, ai, bi);
    binary(name + " cpu scalar", op, a, scalar(0.5f));
  }
}

TEST_F(ElementwiseDevice, TernaryOpsMatchTheCpu) {
  T a = host(kA, {2, 3});
  T b = host(kB, {3});
  T ai = host({3, -2, 0, 7, -1, 5}, {2, 3}, GLIA_INT32);
  T cond = nullptr;
  GLIA_OK_(glia_gt(a, b, &cond));
  keep(cond);
  T lo = host({-1, 0, 0.5f}, {3});
  T hi = host({1}, {1});
  ternary(
      "clamp_tensor both", [](CT x, CT l, CT h, T* o) { return glia_clamp_tensor(x, l, h, o); }, a, lo, hi);
  ternary(
      "clamp_tensor int32 bounds", [](CT x, CT l, CT h, T* o) { return glia_clamp_tensor(x, l, h, o); }, ai, lo, hi);
  ternary("where", glia_where, cond, a, b);
  ternary("where int32 x float32", glia_where, cond, ai, b);
  ternary("where cpu scalar", glia_where, cond, a, scalar(-7));
}

TEST_F(ElementwiseDevice, InPlaceOpsMatchTheCpu) {
  T a = host(kA, {2, 3});
  T b = host(kB, {3});
  T bi = host({2, -1, 3}, {3}, GLIA_INT32);
  T a64 = host({1, 2, 3, 4, 5, 6}, {2, 3}, GLIA_FLOAT64);
  const std::vector<std::pair<std::string, OpInplace>> ops = {
      {"add_", [](T s, CT o) { return glia_add_(s, o, 1.0); }},
      {"add_ alpha", [](T s, CT o) { return glia_add_(s, o, -2.5); }},
      {"sub_", [](T s, CT o) { return glia_sub_(s, o, 0.5); }},
      {"mul_", glia_mul_},
      {"div_", glia_div_},
      {"addcmul_", [](T s, CT o) { return glia_addcmul_(s, o, o, glia_scalar_float(0.25)); }},
      {"addcdiv_", [](T s, CT o) { return glia_addcdiv_(s, o, s, glia_scalar_float(-3)); }},
      {"copy_", glia_copy_},
      {"add_scalar_", [](T s, CT) { return glia_add_scalar_(s, glia_scalar_float(1.5), 2.0); }},
      {"mul_scalar_", [](T s, CT) { return glia_mul_scalar_(s, glia_scalar_int(3)); }},
      {"fill_", [](T s, CT) { return glia_fill_(s, glia_scalar_float(-0.75)); }},
      {"fill_ int", [](T s, CT) { return glia_fill_(s, glia_scalar_int(7)); }},
      {"zero_", [](T s, CT) { return glia_zero_(s); }},
      {"relu_", [](T s, CT) { return glia_relu_(s); }},
      {"clamp_",
       [](T s, CT) {
         glia_scalar lo = glia_scalar_float(-1), hi = glia_scalar_float(1);
         return glia_clamp_(s, &lo, &hi);
       }},
  };
  for (const auto& [name, op] : ops) {
    inplace(name + " same shape", op, a, a64);
    inplace(name + " broadcast", op, a, b);
    inplace(name + " int32 other", op, a, bi);
    inplace(name + " cpu scalar", op, a, scalar(2));
  }
  // Self as its own operand.
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name + " self");
    T s = clone(a), d = dev(a);
    GLIA_OK_(op(s, s));
    GLIA_OK_(op(d, d));
    EXPECT_TRUE(snap(s) == snap(d));
  }
}

// Autograd's backward of the activations runs the fused backward kernels on the device.
TEST_F(ElementwiseDevice, ActivationBackwardMatchesTheCpu) {
  const std::vector<std::pair<std::string, Op1>> ops = {
      {"relu", glia_relu},
      {"sigmoid", glia_sigmoid},
      {"tanh", glia_tanh},
      {"silu", glia_silu},
      {"gelu none", [](CT x, T* o) { return glia_gelu(x, "none", o); }},
      {"gelu tanh", [](CT x, T* o) { return glia_gelu(x, "tanh", o); }},
  };
  const std::vector<float> xs = {1.5f, -2.f, 0.f, 4.25f, -0.5f, 0.75f};
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name);
    std::vector<Snapshot> grads;
    for (glia_device d : {kCpu, kDev0}) {
      T x = to(host(xs, {2, 3}), d, GLIA_FLOAT32);
      GLIA_OK_(glia_tensor_set_requires_grad(x, 1));
      T y = nullptr;
      GLIA_OK_(op(x, &y));
      keep(y);
      T seed = to(host({1, -2, 0.5f, 3, 1, -1}, {2, 3}), d, GLIA_FLOAT32);
      glia_error* e = glia_tensor_backward(y, seed, 0);
      ASSERT_EQ(e, nullptr) << glia_error_message(e);
      T g = nullptr;
      GLIA_OK_(glia_tensor_grad(x, &g));
      ASSERT_NE(g, nullptr);
      keep(g);
      grads.push_back(snap(g));
    }
    EXPECT_EQ(grads[1].device.type, GLIA_PRIVATEUSE1);
    EXPECT_TRUE(grads[0] == grads[1]);
  }
}

// A few values checked against torch (not only against the CPU kernels).
TEST_F(ElementwiseDevice, KnownValues) {
  T a = dev(host({-2, 0.5f, 3}, {3}));
  T r = nullptr;
  GLIA_OK_(glia_relu(a, &r));
  keep(r);
  EXPECT_EQ(floats(r), (std::vector<float>{0, 0.5f, 3}));
  GLIA_OK_(glia_maximum(a, scalar(1), &r));
  keep(r);
  EXPECT_EQ(floats(r), (std::vector<float>{1, 1, 3}));
  T c = nullptr;
  GLIA_OK_(glia_ge(a, scalar(0.5f), &c));
  keep(c);
  glia_dtype dt{};
  GLIA_OK_(glia_tensor_dtype(c, &dt));
  EXPECT_EQ(dt, GLIA_BOOL);
  EXPECT_EQ(floats(c), (std::vector<float>{0, 1, 1}));
  GLIA_OK_(glia_where(c, a, scalar(-1), &r));
  keep(r);
  EXPECT_EQ(floats(r), (std::vector<float>{-1, 0.5f, 3}));
  GLIA_OK_(glia_add_(a, scalar(1), 2.0));
  EXPECT_EQ(floats(a), (std::vector<float>{0, 2.5f, 5}));
}

TEST_F(ElementwiseDevice, DeviceMismatchesAreRefused) {
  T d = dev(host({1, 2, 3}, {3}));
  T d1 = to(host({1, 2, 3}, {3}), kDev1, GLIA_FLOAT32);
  T c = host({1, 1, 1}, {3});
  T cond = nullptr;
  GLIA_OK_(glia_gt(d, scalar(1), &cond));
  keep(cond);
  T r = nullptr;
  EXPECT_GLIA_MSG(glia_maximum(c, d, &r), GLIA_ERR_DEVICE,
                  "Expected all tensors to be on the same device, but found at least two devices, cpu and "
                  "testdevice:0!");
  EXPECT_GLIA_ERR(glia_eq(d, c, &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_MSG(glia_pow(d, d1, &r), GLIA_ERR_DEVICE, "testdevice:0 and testdevice:1");
  EXPECT_GLIA_ERR(glia_logical_and(d, c, &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_where(cond, d, c, &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_MSG(glia_where(cond, d1, d, &r), GLIA_ERR_DEVICE, "testdevice:0 and testdevice:1");
  EXPECT_GLIA_ERR(glia_clamp_tensor(d, c, nullptr, &r), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_clamp_tensor(d, nullptr, d1, &r), GLIA_ERR_DEVICE);
  EXPECT_EQ(r, nullptr);
  // In place: other must be on self's device (or a CPU scalar); a CPU self with a device other too.
  EXPECT_GLIA_MSG(glia_add_(d, c, 1.0), GLIA_ERR_DEVICE, "add_: Expected all tensors to be on the same device");
  EXPECT_GLIA_ERR(glia_mul_(c, d), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_mul_(scalar(2), d), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_addcmul_(d, d1, d1, glia_scalar_float(1)), GLIA_ERR_DEVICE);
  EXPECT_GLIA_ERR(glia_div_(d1, d), GLIA_ERR_DEVICE);
  // Nothing was written.
  EXPECT_EQ(floats(d), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(floats(c), (std::vector<float>{1, 1, 1}));
}

}  // namespace
