// The torch functions of issue 20 missing from OpInfo / coverage (gcd, lcm, bincount, vander, as_strided,
// as_strided_scatter, gradient, segment_reduce, native_batch_norm, native_layer_norm, histogram,
// histogramdd) against tests/golden/gen_torchmisc.py's fixtures, plus views and in-place behaviour.
#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {

template <class F>
glia_error* on_clone(Call& c, F op) {
  glia_tensor* self = nullptr;
  if (glia_error* e = glia_tensor_clone(c.in[0], &self)) return e;
  if (glia_error* e = op(self)) {
    glia_error_free(glia_tensor_release(self));
    return e;
  }
  *c.out() = self;
  return nullptr;
}

glia_tensor* input(Call& c, size_t i) { return i < c.in.size() ? c.in[i] : nullptr; }

// The list-result convention (glia_split's): count first, then the results.
template <class F>
glia_error* list_result(Call& c, size_t first, F f) {
  int64_t n = 0;
  if (glia_error* e = f(nullptr, 0, &n)) return e;
  glia_tensor** outs = c.out(first + static_cast<size_t>(n));
  return f(outs + first, n, &n);
}

}  // namespace

GLIA_ADAPTER(gcd) { return glia_gcd(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(lcm) { return glia_lcm(c.in[0], c.in[1], c.out()); }
GLIA_ADAPTER(gcd_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_gcd_(s, c.in[1]); });
}
GLIA_ADAPTER(lcm_) {
  return on_clone(c, [&](glia_tensor* s) { return glia_lcm_(s, c.in[1]); });
}
GLIA_ADAPTER(bincount) { return glia_bincount(c.in[0], input(c, 1), c.integer("minlength", 0), c.out()); }
GLIA_ADAPTER(vander) {
  const int64_t n = c.integer("n", 0);
  return glia_vander(c.in[0], c.has("n") ? &n : nullptr, c.flag("increasing", false), c.out());
}
GLIA_ADAPTER(as_strided) {
  std::vector<int64_t> size = c.ints("size"), stride = c.ints("stride");
  const int64_t off = c.integer("storage_offset", 0);
  return glia_as_strided(c.in[0], size.data(), stride.data(), static_cast<int64_t>(size.size()),
                         c.has("storage_offset") ? &off : nullptr, c.out());
}
GLIA_ADAPTER(as_strided_scatter) {
  std::vector<int64_t> size = c.ints("size"), stride = c.ints("stride");
  const int64_t off = c.integer("storage_offset", 0);
  return glia_as_strided_scatter(c.in[0], c.in[1], size.data(), stride.data(), static_cast<int64_t>(size.size()),
                                 c.has("storage_offset") ? &off : nullptr, c.out());
}
GLIA_ADAPTER(gradient) {
  std::vector<double> spacing;
  if (c.has("spacing"))
    for (const auto& v : c.args["spacing"]) spacing.push_back(v.get<double>());
  std::vector<int64_t> dims = c.ints("dims");
  std::vector<glia_tensor*> coords(c.in.begin() + 1, c.in.end());
  return list_result(c, 0, [&](glia_tensor** outs, int64_t cap, int64_t* n) {
    return glia_gradient(c.in[0], spacing.data(), static_cast<int64_t>(spacing.size()), coords.data(),
                         static_cast<int64_t>(coords.size()), c.has("dims") ? dims.data() : nullptr,
                         static_cast<int64_t>(dims.size()), c.integer("edge_order", 1), outs, cap, n);
  });
}
GLIA_ADAPTER(segment_reduce) {
  const bool offsets = c.flag("offsets", false);
  const double initial = c.num("initial", 0.0);
  const std::string reduce = c.str("reduce", "sum");
  return glia_segment_reduce(c.in[0], reduce.c_str(), offsets ? nullptr : c.in[1], offsets ? c.in[1] : nullptr,
                             c.integer("axis", 0), c.flag("unsafe", false), c.has("initial") ? &initial : nullptr,
                             c.out());
}
GLIA_ADAPTER(native_batch_norm) {
  glia_dtype sd = dtype(c.in[0]);
  glia_device xd{};
  if (glia_error* e = glia_tensor_device(c.in[0], &xd)) return e;
  Handles local;
  glia_tensor* stats[2] = {nullptr, nullptr};
  const char* keys[2] = {"running_mean", "running_var"};
  for (int k = 0; k < 2; ++k)
    if (c.has(keys[k])) {
      std::vector<double> v = c.args[keys[k]].get<std::vector<double>>();
      stats[k] = make(local, v, {static_cast<int64_t>(v.size())}, sd);
      if (xd.type != GLIA_CPU) {
        glia_tensor* on_device = nullptr;
        if (glia_error* e = glia_tensor_to(stats[k], &xd, &sd, &on_device)) return e;
        stats[k] = local.add(on_device);
      }
    }
  glia_tensor** outs = c.out(3);
  return glia_native_batch_norm(c.in[0], c.in[1], c.in[2], stats[0], stats[1], c.flag("training", true),
                                c.num("momentum", 0.1), c.num("eps", 1e-5), &outs[0], &outs[1], &outs[2]);
}
GLIA_ADAPTER(native_layer_norm) {
  std::vector<int64_t> shape = c.ints("normalized_shape");
  glia_tensor** outs = c.out(3);
  return glia_native_layer_norm(c.in[0], shape.data(), static_cast<int64_t>(shape.size()), c.in[1], c.in[2],
                                c.num("eps", 1e-5), &outs[0], &outs[1], &outs[2]);
}
GLIA_ADAPTER(histogram) {
  std::vector<double> range;
  if (c.has("range")) range = c.args["range"].get<std::vector<double>>();
  glia_tensor** outs = c.out(2);
  return glia_histogram(c.in[0], c.integer("bins", 100), input(c, 2), c.has("range") ? range.data() : nullptr,
                        input(c, 1), c.flag("density", false), &outs[0], &outs[1]);
}
GLIA_ADAPTER(histogramdd) {
  std::vector<double> range;
  if (c.has("range")) range = c.args["range"].get<std::vector<double>>();
  std::vector<int64_t> bins = c.ints("bins");
  std::vector<glia_tensor*> edges;
  for (size_t i = 2; i < c.in.size(); ++i) edges.push_back(c.in[i]);
  auto call = [&](glia_tensor** hist, glia_tensor** outs, int64_t cap, int64_t* n) {
    return glia_histogramdd(c.in[0], bins.data(), static_cast<int64_t>(bins.size()), edges.data(),
                            static_cast<int64_t>(edges.size()), range.data(), static_cast<int64_t>(range.size()),
                            input(c, 1), c.flag("density", false), hist, outs, cap, n);
  };
  glia_tensor* first = nullptr;
  int64_t n = 0;
  if (glia_error* e = call(&first, nullptr, 0, &n)) return e;
  glia_error_free(glia_tensor_release(first));
  glia_tensor** outs = c.out(1 + static_cast<size_t>(n));
  return call(&outs[0], outs + 1, n, &n);
}

TEST(TorchMisc, Golden) { run_cases("torchmisc.json"); }
TEST(TorchMisc, Errors) { run_errors("torchmisc.json"); }
