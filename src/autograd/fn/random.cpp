// Random sampling with torch's autograd behaviour: the samples are drawn by the ops of ops/random.h on
// detached parameters, and a node with torch's name gives zero gradients (torch's derivatives.yaml:
// "zeros_like" for every parameter).
#include "autograd/fn/random.h"

#include <functional>

#include "autograd/fn/elementwise.h"
#include "autograd/node.h"
#include "ops/factory.h"
#include "ops/iter.h"
#include "ops/random.h"
#include "ops/reduce.h"

namespace glia {

namespace {

// Zero gradients for every input that needs one.
struct ZeroGradBackward : Node {
  const char* node_name = "";
  std::vector<Dims> shapes;
  std::vector<DType> dtypes;
  const char* name() const override { return node_name; }
  TensorList apply(TensorList&& g) override {
    TensorList r(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i)
      if (next_edges[i].valid()) r[i] = zeros(shapes[i], dtypes[i], output_device);
    return r;
  }
};

void record_zero(const char* name, const TensorList& inputs, Tensor& out) {
  if (!any_requires_grad(inputs)) return;
  auto n = make_ref<ZeroGradBackward>();
  n->node_name = name;
  for (const Tensor& t : inputs) {
    n->shapes.push_back(t.shape());
    n->dtypes.push_back(t.dtype());
  }
  set_history(n.get(), inputs, TensorList{out});
}

template <class F>
void inplace(const Tensor& self, const char* op, const char* node, F f) {
  check_inplace(self, op);
  f();
  overwrite_history(self, node);
}

void check_std_tensor(const Tensor& std) {
  if (std.numel() == 0) return;
  const double lo = item_double(ops::amin(detach(std), Dims{}, false));
  GLIA_CHECK(lo >= 0, InvalidArgument, "normal expects all elements of std >= 0.0");
}

}  // namespace

Tensor bernoulli(const Tensor& p, const uint64_t* seed) {
  Tensor out = ops::bernoulli(detach(p), ops::draw_seed(seed));
  record_zero("BernoulliBackward0", TensorList{p}, out);
  return out;
}

Tensor bernoulli_scalar(const Tensor& input, double p, const uint64_t* seed) {
  Tensor out = ops::empty_like(input, input.dtype(), input.device());
  ops::bernoulli_(out, p, ops::draw_seed(seed));
  return out;
}

Tensor poisson(const Tensor& rates, const uint64_t* seed) {
  Tensor out = ops::poisson(detach(rates), ops::draw_seed(seed));
  record_zero("PoissonBackward0", TensorList{rates}, out);
  return out;
}

Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, const uint64_t* seed) {
  return ops::multinomial(detach(probs), num_samples, replacement, ops::draw_seed(seed));
}

Tensor normal(const Tensor& mean, double std, const uint64_t* seed) {
  // torch: output = empty_like(mean).normal_(0, std).add_(mean)
  Tensor m = detach(mean);
  Tensor out = ops::empty_like(m, m.dtype(), m.device());
  ops::normal_(out, 0.0, std, ops::draw_seed(seed));
  out = add(out, m);
  record_zero("NormalBackward1", TensorList{mean}, out);
  return out;
}

Tensor normal(double mean, const Tensor& std, const uint64_t* seed) {
  // torch: output = empty_like(std).normal_(0, 1).mul_(std).add_(mean)
  Tensor s = detach(std);
  check_std_tensor(s);
  Tensor out = ops::empty_like(s, s.dtype(), s.device());
  ops::normal_(out, 0.0, 1.0, ops::draw_seed(seed));
  out = add_scalar(mul(out, s), Scalar::from_double(mean));
  record_zero("NormalBackward2", TensorList{std}, out);
  return out;
}

Tensor normal(const Tensor& mean, const Tensor& std, const uint64_t* seed) {
  // torch: output (mean's dtype, the broadcast shape).normal_(0, 1).mul_(std).add_(mean)
  Tensor m = detach(mean), s = detach(std);
  check_std_tensor(s);
  const Dims shape = ops::broadcast_shapes("normal", m.shape(), s.shape());
  const Device dev = common_device("normal", m, s, false);
  Tensor out = empty(shape, m.dtype(), dev);
  ops::normal_(out, 0.0, 1.0, ops::draw_seed(seed));
  out = to_dtype(mul(out, s), m.dtype());
  out = to_dtype(add(out, m), m.dtype());
  record_zero("NormalBackward3", TensorList{mean, std}, out);
  return out;
}

Tensor normal(double mean, double std, IntSpan size, DType dtype, Device device, const uint64_t* seed) {
  GLIA_CHECK(std >= 0.0, InvalidArgument, "normal expects std >= 0.0, but found std ", std);
  Tensor out = empty(size, dtype, device);
  ops::normal_(out, mean, std, ops::draw_seed(seed));
  return out;
}

void uniform_(const Tensor& self, double from, double to, const uint64_t* seed) {
  inplace(self, "uniform_", "UniformBackward0", [&] { ops::uniform_(self, from, to, ops::draw_seed(seed)); });
}
void normal_(const Tensor& self, double mean, double std, const uint64_t* seed) {
  inplace(self, "normal_", "NormalBackward0", [&] { ops::normal_(self, mean, std, ops::draw_seed(seed)); });
}
void cauchy_(const Tensor& self, double median, double sigma, const uint64_t* seed) {
  inplace(self, "cauchy_", "CauchyBackward0", [&] { ops::cauchy_(self, median, sigma, ops::draw_seed(seed)); });
}
void exponential_(const Tensor& self, double lambd, const uint64_t* seed) {
  inplace(self, "exponential_", "ExponentialBackward0", [&] { ops::exponential_(self, lambd, ops::draw_seed(seed)); });
}
void geometric_(const Tensor& self, double p, const uint64_t* seed) {
  inplace(self, "geometric_", "GeometricBackward0", [&] { ops::geometric_(self, p, ops::draw_seed(seed)); });
}
void log_normal_(const Tensor& self, double mean, double std, const uint64_t* seed) {
  inplace(self, "log_normal_", "LogNormalBackward0", [&] { ops::log_normal_(self, mean, std, ops::draw_seed(seed)); });
}
void random_(const Tensor& self, std::optional<int64_t> from, std::optional<int64_t> to, const uint64_t* seed) {
  // torch's overloads: random_(from, to) RandomBackward0, random_(to) RandomBackward1, random_() RandomBackward2
  const char* node = from ? "RandomBackward0" : to ? "RandomBackward1" : "RandomBackward2";
  inplace(self, "random_", node, [&] { ops::random_(self, from.value_or(0), to, ops::draw_seed(seed)); });
}
void bernoulli_(const Tensor& self, double p, const uint64_t* seed) {
  inplace(self, "bernoulli_", "BernoulliBackward2", [&] { ops::bernoulli_(self, p, ops::draw_seed(seed)); });
}
void bernoulli_(const Tensor& self, const Tensor& p, const uint64_t* seed) {
  inplace(self, "bernoulli_", "BernoulliBackward1", [&] { ops::bernoulli_(self, detach(p), ops::draw_seed(seed)); });
}

}  // namespace glia
