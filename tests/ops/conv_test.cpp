// conv2d, conv_transpose2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d against
// tests/golden/gen_linalg.py's fixtures, plus the parallel paths against one thread.
#include "ops/conv.h"

#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {
void pair(const Call& c, const char* key, int64_t* dst, int64_t def) {
  std::vector<int64_t> v = c.ints(key);
  dst[0] = v.empty() ? def : v[0];
  dst[1] = v.empty() ? def : v[1];
}
}  // namespace

GLIA_ADAPTER(conv2d) {
  glia_conv2d_options o;
  glia_conv2d_options_init(&o);
  pair(c, "stride", o.stride, 1);
  pair(c, "padding", o.padding, 0);
  pair(c, "dilation", o.dilation, 1);
  o.groups = c.integer("groups", 1);
  std::string mode = c.str("padding_mode", "");
  o.padding_kind = mode == "same" ? GLIA_PADDING_SAME : mode == "valid" ? GLIA_PADDING_VALID : GLIA_PADDING_EXPLICIT;
  return glia_conv2d(c.in[0], c.in[1], c.in[2], &o, c.out());
}
GLIA_ADAPTER(conv_transpose2d) {
  glia_conv_transpose2d_options o;
  glia_conv_transpose2d_options_init(&o);
  pair(c, "stride", o.stride, 1);
  pair(c, "padding", o.padding, 0);
  pair(c, "output_padding", o.output_padding, 0);
  pair(c, "dilation", o.dilation, 1);
  o.groups = c.integer("groups", 1);
  return glia_conv_transpose2d(c.in[0], c.in[1], c.in[2], &o, c.out());
}
GLIA_ADAPTER(max_pool2d) {
  glia_max_pool2d_options o;
  glia_max_pool2d_options_init(&o);
  pair(c, "kernel_size", o.kernel_size, 1);
  pair(c, "stride", o.stride, 0);
  pair(c, "padding", o.padding, 0);
  pair(c, "dilation", o.dilation, 1);
  o.ceil_mode = c.flag("ceil_mode", false);
  if (c.flag("return_indices", false)) {
    glia_tensor** outs = c.out(2);
    return glia_max_pool2d(c.in[0], &o, &outs[0], &outs[1]);
  }
  return glia_max_pool2d(c.in[0], &o, c.out(), nullptr);
}
GLIA_ADAPTER(avg_pool2d) {
  glia_avg_pool2d_options o;
  glia_avg_pool2d_options_init(&o);
  pair(c, "kernel_size", o.kernel_size, 1);
  pair(c, "stride", o.stride, 0);
  pair(c, "padding", o.padding, 0);
  o.ceil_mode = c.flag("ceil_mode", false);
  o.count_include_pad = c.flag("count_include_pad", true);
  o.divisor_override = c.integer("divisor_override", 0);
  return glia_avg_pool2d(c.in[0], &o, c.out());
}
GLIA_ADAPTER(adaptive_avg_pool2d) {
  std::vector<int64_t> s = c.ints("output_size");
  return glia_adaptive_avg_pool2d(c.in[0], s[0], s[1], c.out());
}

TEST(Conv, Golden) { run_cases("conv.json"); }
TEST(Conv, Errors) { run_errors("conv.json"); }
// The same cases with im2col blocks of one output row (Note [im2col blocks]).
TEST(Conv, GoldenOneRowBlocks) {
  int64_t old = glia::ops::set_conv_block_bytes(1);
  run_cases("conv.json");
  glia::ops::set_conv_block_bytes(old);
}
TEST(Pool, Golden) { run_cases("pool.json"); }
TEST(Pool, Errors) { run_errors("pool.json"); }

namespace {

std::vector<double> pseudo_random(size_t n, uint32_t seed) {
  std::vector<double> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<double>(seed >> 8) / (1u << 24) * 4.0 - 2.0;
  }
  return v;
}

// Runs f at 1 and at 2 threads; the results must agree (exactly, or to tol relative).
template <class F>
void same_at_two_threads(F f, double tol) {
  ASSERT_EQ(glia_set_num_threads(1), nullptr);
  std::vector<std::vector<double>> one = f();
  ASSERT_EQ(glia_set_num_threads(2), nullptr);
  std::vector<std::vector<double>> two = f();
  ASSERT_EQ(one.size(), two.size());
  for (size_t k = 0; k < one.size(); ++k) {
    ASSERT_EQ(one[k].size(), two[k].size());
    for (size_t i = 0; i < one[k].size(); ++i)
      ASSERT_NEAR(one[k][i], two[k][i], tol * (1 + std::abs(one[k][i]))) << "output " << k << " element " << i;
  }
}

}  // namespace

// Large batches: images across the pool, per-chunk weight-gradient accumulators, pooled planes.
TEST(Conv, ParallelMatchesSerial) {
  same_at_two_threads(
      [] {
        Handles h;
        glia_tensor* x = make(h, pseudo_random(8 * 8 * 12 * 12, 1), {8, 8, 12, 12}, GLIA_FLOAT32);
        glia_tensor* w = make(h, pseudo_random(8 * 8 * 9, 2), {8, 8, 3, 3}, GLIA_FLOAT32);
        glia_tensor* b = make(h, pseudo_random(8, 3), {8}, GLIA_FLOAT32);
        EXPECT_EQ(glia_tensor_set_requires_grad(x, 1), nullptr);
        EXPECT_EQ(glia_tensor_set_requires_grad(w, 1), nullptr);
        glia_conv2d_options o;
        glia_conv2d_options_init(&o);
        o.padding[0] = o.padding[1] = 1;
        glia_tensor *y = nullptr, *s = nullptr, *gx = nullptr, *gw = nullptr;
        EXPECT_EQ(glia_conv2d(x, w, b, &o, &y), nullptr);
        h.add(y);
        EXPECT_EQ(glia_sum(y, nullptr, 0, 0, &s), nullptr);
        h.add(s);
        EXPECT_EQ(glia_tensor_backward(s, nullptr, 0), nullptr);
        EXPECT_EQ(glia_tensor_grad(x, &gx), nullptr);
        h.add(gx);
        EXPECT_EQ(glia_tensor_grad(w, &gw), nullptr);
        h.add(gw);
        return std::vector<std::vector<double>>{values(y), values(gx), values(gw)};
      },
      1e-5);
}

TEST(Pool, ParallelMatchesSerial) {
  same_at_two_threads(
      [] {
        Handles h;
        glia_tensor* x = make(h, pseudo_random(4 * 32 * 24 * 24, 7), {4, 32, 24, 24}, GLIA_FLOAT32);
        glia_max_pool2d_options mo;
        glia_max_pool2d_options_init(&mo);
        mo.kernel_size[0] = mo.kernel_size[1] = 2;
        glia_avg_pool2d_options ao;
        glia_avg_pool2d_options_init(&ao);
        ao.kernel_size[0] = ao.kernel_size[1] = 3;
        ao.stride[0] = ao.stride[1] = 2;
        ao.padding[0] = ao.padding[1] = 1;
        glia_tensor *m = nullptr, *mi = nullptr, *a = nullptr, *d = nullptr;
        EXPECT_EQ(glia_max_pool2d(x, &mo, &m, &mi), nullptr);
        h.add(m);
        h.add(mi);
        EXPECT_EQ(glia_avg_pool2d(x, &ao, &a), nullptr);
        h.add(a);
        EXPECT_EQ(glia_adaptive_avg_pool2d(x, 5, 7, &d), nullptr);
        h.add(d);
        return std::vector<std::vector<double>>{values(m), values(mi), values(a), values(d)};
      },
      0.0);
}

// An options struct from an older caller (smaller struct_size) gets defaults for the fields it lacks;
// struct_size 0 is an error.
TEST(Conv, OptionsStructSize) {
  Handles h;
  glia_tensor* x = make(h, pseudo_random(2 * 5 * 5, 4), {1, 2, 5, 5});
  glia_tensor* w = make(h, pseudo_random(3 * 2 * 9, 5), {3, 2, 3, 3});
  glia_conv2d_options o;
  glia_conv2d_options_init(&o);
  o.padding[0] = o.padding[1] = 1;
  o.groups = 7;  // not covered below: must be ignored
  o.struct_size = offsetof(glia_conv2d_options, dilation) + sizeof(o.dilation);
  glia_tensor* y = nullptr;
  ASSERT_EQ(glia_conv2d(x, w, nullptr, &o, &y), nullptr);
  h.add(y);
  EXPECT_EQ(shape(y), (std::vector<int64_t>{1, 3, 5, 5}));
  o.struct_size = 0;
  glia_tensor* z = nullptr;
  glia_error* e = glia_conv2d(x, w, nullptr, &o, &z);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  glia_error_free(e);
  EXPECT_EQ(z, nullptr);
}

namespace {
std::string grad_fn_name(glia_tensor* t) {
  char buf[64];
  size_t n = 0;
  EXPECT_EQ(glia_tensor_grad_fn_name(t, buf, sizeof buf, &n), nullptr);
  return buf;
}
}  // namespace

// torch 1.13's grad_fn names.
TEST(Conv, GradFnNames) {
  Handles h;
  glia_tensor* x = make(h, pseudo_random(2 * 3 * 6 * 6, 8), {2, 3, 6, 6});
  glia_tensor* w = make(h, pseudo_random(4 * 3 * 9, 9), {4, 3, 3, 3});
  glia_tensor* m = make(h, pseudo_random(12, 10), {3, 4});
  glia_tensor* m2 = make(h, pseudo_random(20, 11), {4, 5});
  glia_tensor* v = make(h, pseudo_random(4, 12), {4});
  glia_tensor* b5 = make(h, pseudo_random(5, 13), {5});
  for (glia_tensor* t : {x, w, m, m2, v, b5}) ASSERT_EQ(glia_tensor_set_requires_grad(t, 1), nullptr);
  glia_tensor* y = nullptr;
  ASSERT_EQ(glia_conv2d(x, w, nullptr, nullptr, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "ConvolutionBackward0");
  glia_max_pool2d_options mo;
  glia_max_pool2d_options_init(&mo);
  mo.kernel_size[0] = mo.kernel_size[1] = 2;
  ASSERT_EQ(glia_max_pool2d(x, &mo, &y, nullptr), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "MaxPool2DWithIndicesBackward0");
  glia_avg_pool2d_options ao;
  glia_avg_pool2d_options_init(&ao);
  ao.kernel_size[0] = ao.kernel_size[1] = 2;
  ASSERT_EQ(glia_avg_pool2d(x, &ao, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "AvgPool2DBackward0");
  ASSERT_EQ(glia_adaptive_avg_pool2d(x, 2, 2, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "AdaptiveAvgPool2DBackward0");
  ASSERT_EQ(glia_mm(m, m2, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "MmBackward0");
  ASSERT_EQ(glia_matmul(m, v, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "MvBackward0");
  ASSERT_EQ(glia_matmul(v, v, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "DotBackward0");
  ASSERT_EQ(glia_addmm(b5, m, m2, 1.0, 1.0, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "AddmmBackward0");
  glia_tensor* w54 = make(h, pseudo_random(20, 14), {5, 4});
  ASSERT_EQ(glia_linear(m, w54, b5, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "AddmmBackward0");
}
