// max_pool1d/3d, avg_pool1d/3d, adaptive_avg_pool1d/3d against tests/golden/gen_pool_extra.py's
// fixtures, plus the parallel paths against one thread and torch 1.13's grad_fn names.
#include <cmath>

#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {
void triple(const Call& c, const char* key, int64_t* dst, int64_t def) {
  std::vector<int64_t> v = c.ints(key);
  for (int a = 0; a < 3; ++a) dst[a] = v.empty() ? def : v[a];
}
}  // namespace

GLIA_ADAPTER(max_pool1d) {
  glia_max_pool1d_options o;
  glia_max_pool1d_options_init(&o);
  o.kernel_size = c.integer("kernel_size", 1);
  o.stride = c.integer("stride", 0);
  o.padding = c.integer("padding", 0);
  o.dilation = c.integer("dilation", 1);
  o.ceil_mode = c.flag("ceil_mode", false);
  if (c.flag("return_indices", false)) {
    glia_tensor** outs = c.out(2);
    return glia_max_pool1d(c.in[0], &o, &outs[0], &outs[1]);
  }
  return glia_max_pool1d(c.in[0], &o, c.out(), nullptr);
}
GLIA_ADAPTER(avg_pool1d) {
  glia_avg_pool1d_options o;
  glia_avg_pool1d_options_init(&o);
  o.kernel_size = c.integer("kernel_size", 1);
  o.stride = c.integer("stride", 0);
  o.padding = c.integer("padding", 0);
  o.ceil_mode = c.flag("ceil_mode", false);
  o.count_include_pad = c.flag("count_include_pad", true);
  return glia_avg_pool1d(c.in[0], &o, c.out());
}
GLIA_ADAPTER(max_pool3d) {
  glia_max_pool3d_options o;
  glia_max_pool3d_options_init(&o);
  triple(c, "kernel_size", o.kernel_size, 1);
  triple(c, "stride", o.stride, 0);
  triple(c, "padding", o.padding, 0);
  triple(c, "dilation", o.dilation, 1);
  o.ceil_mode = c.flag("ceil_mode", false);
  if (c.flag("return_indices", false)) {
    glia_tensor** outs = c.out(2);
    return glia_max_pool3d(c.in[0], &o, &outs[0], &outs[1]);
  }
  return glia_max_pool3d(c.in[0], &o, c.out(), nullptr);
}
GLIA_ADAPTER(avg_pool3d) {
  glia_avg_pool3d_options o;
  glia_avg_pool3d_options_init(&o);
  triple(c, "kernel_size", o.kernel_size, 1);
  triple(c, "stride", o.stride, 0);
  triple(c, "padding", o.padding, 0);
  o.ceil_mode = c.flag("ceil_mode", false);
  o.count_include_pad = c.flag("count_include_pad", true);
  o.divisor_override = c.integer("divisor_override", 0);
  return glia_avg_pool3d(c.in[0], &o, c.out());
}
GLIA_ADAPTER(adaptive_avg_pool1d) { return glia_adaptive_avg_pool1d(c.in[0], c.integer("output_size", 1), c.out()); }
GLIA_ADAPTER(adaptive_avg_pool3d) {
  std::vector<int64_t> s = c.ints("output_size");
  return glia_adaptive_avg_pool3d(c.in[0], s[0], s[1], s[2], c.out());
}

GLIA_ADAPTER(adaptive_max_pool1d) {
  if (c.flag("return_indices", false)) {
    glia_tensor** outs = c.out(2);
    return glia_adaptive_max_pool1d(c.in[0], c.integer("output_size", 1), &outs[0], &outs[1]);
  }
  return glia_adaptive_max_pool1d(c.in[0], c.integer("output_size", 1), c.out(), nullptr);
}
GLIA_ADAPTER(adaptive_max_pool2d) {
  std::vector<int64_t> s = c.ints("output_size");
  if (c.flag("return_indices", false)) {
    glia_tensor** outs = c.out(2);
    return glia_adaptive_max_pool2d(c.in[0], s[0], s[1], &outs[0], &outs[1]);
  }
  return glia_adaptive_max_pool2d(c.in[0], s[0], s[1], c.out(), nullptr);
}
GLIA_ADAPTER(adaptive_max_pool3d) {
  std::vector<int64_t> s = c.ints("output_size");
  if (c.flag("return_indices", false)) {
    glia_tensor** outs = c.out(2);
    return glia_adaptive_max_pool3d(c.in[0], s[0], s[1], s[2], &outs[0], &outs[1]);
  }
  return glia_adaptive_max_pool3d(c.in[0], s[0], s[1], s[2], c.out(), nullptr);
}

namespace {
// The unpool options of a case: kernel_size, stride, padding as an int (1-D) or a list; output_size
// a list of the spatial sizes, or with N and C in front (torch accepts both).
glia_max_unpool_options unpool_options(const Call& c, size_t sd) {
  glia_max_unpool_options o;
  glia_max_unpool_options_init(&o);
  auto read = [&](const char* key, int64_t* dst) {
    std::vector<int64_t> v = c.ints(key);
    for (size_t a = 0; a < v.size() && a < sd; ++a) dst[a] = v[a];
  };
  read("kernel_size", o.kernel_size);
  read("stride", o.stride);
  read("padding", o.padding);
  std::vector<int64_t> out = c.ints("output_size");
  for (size_t a = 0; a < sd && out.size() >= sd; ++a) o.output_size[a] = out[out.size() - sd + a];
  return o;
}
}  // namespace

GLIA_ADAPTER(max_unpool1d) {
  glia_max_unpool_options o = unpool_options(c, 1);
  return glia_max_unpool1d(c.in[0], c.in[1], &o, c.out());
}
GLIA_ADAPTER(max_unpool2d) {
  glia_max_unpool_options o = unpool_options(c, 2);
  return glia_max_unpool2d(c.in[0], c.in[1], &o, c.out());
}
GLIA_ADAPTER(max_unpool3d) {
  glia_max_unpool_options o = unpool_options(c, 3);
  return glia_max_unpool3d(c.in[0], c.in[1], &o, c.out());
}

GLIA_ADAPTER(lp_pool1d) {
  return glia_lp_pool1d(c.in[0], c.num("norm_type", 2.0), c.integer("kernel_size", 1), c.integer("stride", 0),
                        c.flag("ceil_mode", false), c.out());
}
GLIA_ADAPTER(lp_pool2d) {
  std::vector<int64_t> k = c.ints("kernel_size"), st = c.ints("stride");
  const int64_t* sp = st.empty() ? nullptr : st.data();
  return glia_lp_pool2d(c.in[0], c.num("norm_type", 2.0), k.data(), sp, c.flag("ceil_mode", false), c.out());
}

TEST(PoolExtra, Golden) { run_cases("pool_extra.json"); }
TEST(PoolExtra, Errors) { run_errors("pool_extra.json"); }

namespace {

std::vector<double> pseudo_random(size_t n, uint32_t seed) {
  std::vector<double> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<double>(seed >> 8) / (1u << 24) * 4.0 - 2.0;
  }
  return v;
}

std::string grad_fn_name(glia_tensor* t) {
  char buf[64];
  size_t n = 0;
  EXPECT_EQ(glia_tensor_grad_fn_name(t, buf, sizeof buf, &n), nullptr);
  return buf;
}

}  // namespace

// Many volumes: the N * C loop split across threads gives the same values, indices and gradients.
TEST(PoolExtra, ParallelMatchesSerial) {
  std::vector<std::vector<double>> runs[2];
  for (int threads : {1, 2}) {
    ASSERT_EQ(glia_set_num_threads(threads), nullptr);
    Handles h;
    glia_tensor* x = make(h, pseudo_random(4 * 16 * 8 * 10 * 10, 7), {4, 16, 8, 10, 10}, GLIA_FLOAT32);
    ASSERT_EQ(glia_tensor_set_requires_grad(x, 1), nullptr);
    glia_max_pool3d_options mo;
    glia_max_pool3d_options_init(&mo);
    mo.kernel_size[0] = mo.kernel_size[1] = mo.kernel_size[2] = 2;
    glia_avg_pool3d_options ao;
    glia_avg_pool3d_options_init(&ao);
    ao.kernel_size[0] = ao.kernel_size[1] = ao.kernel_size[2] = 3;
    ao.stride[0] = ao.stride[1] = ao.stride[2] = 2;
    ao.padding[0] = ao.padding[1] = ao.padding[2] = 1;
    glia_tensor *m = nullptr, *mi = nullptr, *a = nullptr, *d = nullptr, *s1 = nullptr, *s2 = nullptr, *s3 = nullptr,
                *t = nullptr, *t2 = nullptr, *gx = nullptr;
    ASSERT_EQ(glia_max_pool3d(x, &mo, &m, &mi), nullptr);
    h.add(m), h.add(mi);
    ASSERT_EQ(glia_avg_pool3d(x, &ao, &a), nullptr);
    h.add(a);
    ASSERT_EQ(glia_adaptive_avg_pool3d(x, 3, 4, 5, &d), nullptr);
    h.add(d);
    ASSERT_EQ(glia_sum(m, nullptr, 0, 0, &s1), nullptr);
    h.add(s1);
    ASSERT_EQ(glia_sum(a, nullptr, 0, 0, &s2), nullptr);
    h.add(s2);
    ASSERT_EQ(glia_sum(d, nullptr, 0, 0, &s3), nullptr);
    h.add(s3);
    ASSERT_EQ(glia_add(s1, s2, 1.0, &t), nullptr);
    h.add(t);
    ASSERT_EQ(glia_add(t, s3, 1.0, &t2), nullptr);
    h.add(t2);
    ASSERT_EQ(glia_tensor_backward(t2, nullptr, 0), nullptr);
    ASSERT_EQ(glia_tensor_grad(x, &gx), nullptr);
    h.add(gx);
    runs[threads - 1] = {values(m), values(mi), values(a), values(d), values(gx)};
  }
  for (size_t k = 0; k < runs[0].size(); ++k) {
    ASSERT_EQ(runs[0][k].size(), runs[1][k].size());
    for (size_t i = 0; i < runs[0][k].size(); ++i)
      ASSERT_EQ(runs[0][k][i], runs[1][k][i]) << "output " << k << " element " << i;
  }
}

// torch 1.13's grad_fn names: the 1-D pools end in the squeeze of their 2-D pool.
TEST(PoolExtra, GradFnNames) {
  Handles h;
  glia_tensor* x1 = make(h, pseudo_random(2 * 3 * 8, 8), {2, 3, 8});
  glia_tensor* x3 = make(h, pseudo_random(2 * 4 * 4 * 4, 9), {2, 4, 4, 4});
  for (glia_tensor* t : {x1, x3}) ASSERT_EQ(glia_tensor_set_requires_grad(t, 1), nullptr);
  glia_tensor *y = nullptr, *idx = nullptr;
  glia_max_pool1d_options m1;
  glia_max_pool1d_options_init(&m1);
  m1.kernel_size = 2;
  ASSERT_EQ(glia_max_pool1d(x1, &m1, &y, nullptr), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "SqueezeBackward1");
  glia_avg_pool1d_options a1;
  glia_avg_pool1d_options_init(&a1);
  a1.kernel_size = 2;
  ASSERT_EQ(glia_avg_pool1d(x1, &a1, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "SqueezeBackward1");
  ASSERT_EQ(glia_adaptive_avg_pool1d(x1, 3, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "SqueezeBackward1");
  glia_max_pool3d_options m3;
  glia_max_pool3d_options_init(&m3);
  m3.kernel_size[0] = m3.kernel_size[1] = m3.kernel_size[2] = 2;
  ASSERT_EQ(glia_max_pool3d(x3, &m3, &y, &idx), nullptr);  // unbatched: no squeeze node in between
  EXPECT_EQ(grad_fn_name(h.add(y)), "MaxPool3DWithIndicesBackward0");
  h.add(idx);
  glia_avg_pool3d_options a3;
  glia_avg_pool3d_options_init(&a3);
  a3.kernel_size[0] = a3.kernel_size[1] = a3.kernel_size[2] = 2;
  ASSERT_EQ(glia_avg_pool3d(x3, &a3, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "AvgPool3DBackward0");
  ASSERT_EQ(glia_adaptive_avg_pool3d(x3, 2, 3, 2, &y), nullptr);
  EXPECT_EQ(grad_fn_name(h.add(y)), "AdaptiveAvgPool3DBackward0");
  ASSERT_EQ(glia_adaptive_avg_pool3d(x3, 1, 1, 1, &y), nullptr);  // torch's mean shortcut
  EXPECT_EQ(grad_fn_name(h.add(y)), "MeanBackward1");
}

// An options struct from an older caller (smaller struct_size) gets defaults for the fields it lacks.
TEST(PoolExtra, OptionsStructSize) {
  Handles h;
  glia_tensor* x = make(h, pseudo_random(2 * 4 * 4 * 4, 4), {1, 2, 4, 4, 4});
  glia_avg_pool3d_options o;
  glia_avg_pool3d_options_init(&o);
  o.kernel_size[0] = o.kernel_size[1] = o.kernel_size[2] = 2;
  o.divisor_override = 7;  // not covered below: must be ignored
  o.struct_size = offsetof(glia_avg_pool3d_options, count_include_pad) + sizeof(o.count_include_pad);
  glia_tensor *y = nullptr, *ref = nullptr;
  ASSERT_EQ(glia_avg_pool3d(x, &o, &y), nullptr);
  h.add(y);
  glia_avg_pool3d_options_init(&o);
  o.kernel_size[0] = o.kernel_size[1] = o.kernel_size[2] = 2;
  ASSERT_EQ(glia_avg_pool3d(x, &o, &ref), nullptr);
  h.add(ref);
  EXPECT_EQ(values(y), values(ref));
  o.struct_size = 0;
  glia_tensor* z = nullptr;
  glia_error* e = glia_avg_pool3d(x, &o, &z);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(glia_error_code(e), GLIA_ERR_INVALID_ARGUMENT);
  glia_error_free(e);
  EXPECT_EQ(z, nullptr);
}
