// C entry points of random sampling (issue 20; autograd/fn/random.h): glia_bernoulli, multinomial, the
// normal overloads, poisson and the in-place fills. seed: NULL draws from the calling thread's generator.
#include "autograd/fn/random.h"

#include "capi/api.h"

using namespace glia;
using namespace glia::capi;

namespace {

template <class F>
glia_error* fill_entry(glia_tensor* self, const char* fn, F f) {
  return guard([&] { f(tensor_arg(self, fn, "self")); });
}

template <class F>
glia_error* sample_entry(const glia_tensor* a, const char* arg, glia_tensor** out, const char* fn, F f) {
  return guard([&] {
    Tensor t = tensor_arg(a, fn, arg);
    check_out(out, fn, "out");
    *out = tensor_handle(f(t));
  });
}

}  // namespace

extern "C" {

glia_error* glia_bernoulli(const glia_tensor* p, const uint64_t* seed, glia_tensor** out) {
  return sample_entry(p, "p", out, "glia_bernoulli", [&](const Tensor& t) { return bernoulli(t, seed); });
}

glia_error* glia_bernoulli_scalar(const glia_tensor* input, double p, const uint64_t* seed, glia_tensor** out) {
  return sample_entry(input, "input", out, "glia_bernoulli_scalar",
                      [&](const Tensor& t) { return bernoulli_scalar(t, p, seed); });
}

glia_error* glia_bernoulli_(glia_tensor* self, const glia_tensor* p, const uint64_t* seed) {
  const char* fn = "glia_bernoulli_";
  return guard([&] {
    Tensor s = tensor_arg(self, fn, "self");
    Tensor pt = tensor_arg(p, fn, "p");
    bernoulli_(s, pt, seed);
  });
}

glia_error* glia_bernoulli_scalar_(glia_tensor* self, double p, const uint64_t* seed) {
  return fill_entry(self, "glia_bernoulli_scalar_", [&](const Tensor& s) { bernoulli_(s, p, seed); });
}

glia_error* glia_multinomial(const glia_tensor* probs, int64_t num_samples, int32_t replacement, const uint64_t* seed,
                             glia_tensor** out) {
  return sample_entry(probs, "probs", out, "glia_multinomial",
                      [&](const Tensor& t) { return multinomial(t, num_samples, replacement != 0, seed); });
}

glia_error* glia_normal(const glia_tensor* mean, const glia_tensor* std, const uint64_t* seed, glia_tensor** out) {
  const char* fn = "glia_normal";
  return guard([&] {
    Tensor m = tensor_arg(mean, fn, "mean");
    Tensor s = tensor_arg(std, fn, "std");
    check_out(out, fn, "out");
    *out = tensor_handle(normal(m, s, seed));
  });
}

glia_error* glia_normal_tensor_scalar(const glia_tensor* mean, double std, const uint64_t* seed, glia_tensor** out) {
  return sample_entry(mean, "mean", out, "glia_normal_tensor_scalar",
                      [&](const Tensor& t) { return normal(t, std, seed); });
}

glia_error* glia_normal_scalar_tensor(double mean, const glia_tensor* std, const uint64_t* seed, glia_tensor** out) {
  return sample_entry(std, "std", out, "glia_normal_scalar_tensor",
                      [&](const Tensor& t) { return normal(mean, t, seed); });
}

glia_error* glia_normal_scalar(double mean, double std, const int64_t* shape, int64_t ndim,
                               const glia_tensor_options* options, const uint64_t* seed, glia_tensor** out) {
  const char* fn = "glia_normal_scalar";
  return guard([&] {
    IntSpan s = shape_arg(shape, ndim, fn);
    check_out(out, fn, "out");
    DType dtype = DType::Float32;
    Device device{};
    if (options) {
      GLIA_CHECK(options->struct_size >= offsetof(glia_tensor_options, device) + sizeof(glia_device), InvalidArgument,
                 fn, ": options->struct_size is ", options->struct_size, ", expected at least ",
                 sizeof(glia_tensor_options), " (use glia_tensor_options_init)");
      dtype = dtype_arg(options->dtype, fn, "options->dtype");
      device = device_arg(options->device, fn);
    }
    *out = tensor_handle(normal(mean, std, s, dtype, device, seed));
  });
}

glia_error* glia_poisson(const glia_tensor* rates, const uint64_t* seed, glia_tensor** out) {
  return sample_entry(rates, "rates", out, "glia_poisson", [&](const Tensor& t) { return poisson(t, seed); });
}

glia_error* glia_uniform_(glia_tensor* self, double from, double to, const uint64_t* seed) {
  return fill_entry(self, "glia_uniform_", [&](const Tensor& s) { uniform_(s, from, to, seed); });
}

glia_error* glia_normal_(glia_tensor* self, double mean, double std, const uint64_t* seed) {
  return fill_entry(self, "glia_normal_", [&](const Tensor& s) { normal_(s, mean, std, seed); });
}

glia_error* glia_cauchy_(glia_tensor* self, double median, double sigma, const uint64_t* seed) {
  return fill_entry(self, "glia_cauchy_", [&](const Tensor& s) { cauchy_(s, median, sigma, seed); });
}

glia_error* glia_exponential_(glia_tensor* self, double lambd, const uint64_t* seed) {
  return fill_entry(self, "glia_exponential_", [&](const Tensor& s) { exponential_(s, lambd, seed); });
}

glia_error* glia_geometric_(glia_tensor* self, double p, const uint64_t* seed) {
  return fill_entry(self, "glia_geometric_", [&](const Tensor& s) { geometric_(s, p, seed); });
}

glia_error* glia_log_normal_(glia_tensor* self, double mean, double std, const uint64_t* seed) {
  return fill_entry(self, "glia_log_normal_", [&](const Tensor& s) { log_normal_(s, mean, std, seed); });
}

glia_error* glia_random_(glia_tensor* self, const int64_t* from, const int64_t* to, const uint64_t* seed) {
  return fill_entry(self, "glia_random_", [&](const Tensor& s) {
    std::optional<int64_t> f, t;
    if (from) f = *from;
    if (to) t = *to;
    random_(s, f, t, seed);
  });
}

}  // extern "C"
