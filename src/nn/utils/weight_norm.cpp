// torch.nn.utils.weight_norm / remove_weight_norm (torch/nn/utils/weight_norm.py
// of 1.13) and torch's norm_except_dim / _weight_norm (aten/src/ATen/native/WeightNorm.cpp).
#include "autograd/fn/elementwise.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "nn/utils/utils.h"

namespace glia::nn::utils {

namespace {

// The forward pre-hook: recomputes the weight before every call. Its fields never
// change, so the copies Module::forward_pre_hooks() returns identify it.
struct WeightNormHook {
  std::string name;
  int64_t dim;
  std::optional<TensorList> operator()(Module& m, const TensorList&) const {
    m.set_tensor_attribute(name, compute(m));
    return std::nullopt;
  }
  Tensor compute(const Module& m) const { return weight_norm_compute(m.param(name + "_v"), m.param(name + "_g"), dim); }
};

std::optional<std::pair<uint64_t, WeightNormHook>> find_hook(const Module& m, const std::string& name) {
  for (auto& [id, fn] : m.forward_pre_hooks())
    if (const auto* h = fn.target<WeightNormHook>(); h && h->name == name) return std::make_pair(id, *h);
  return std::nullopt;
}

}  // namespace

Tensor norm_except_dim(const Tensor& v, double pow, int64_t dim) {
  if (dim == -1) return vector_norm(v, pow);
  const int64_t nd = v.dim();
  if (dim == 0 || dim == nd - 1) {
    Dims out_shape(static_cast<size_t>(nd), 1);
    const int64_t n = v.size(dim);
    out_shape[static_cast<size_t>(dim)] = n;
    Tensor c = contiguous_with_grad(v);
    if (dim == 0) return view(vector_norm(view(c, Dims{n, -1}), pow, Dims{1}), out_shape);
    return view(vector_norm(view(c, Dims{-1, n}), pow, Dims{0}), out_shape);
  }
  return transpose(norm_except_dim(transpose(v, 0, dim), pow, 0), 0, dim);
}

Tensor weight_norm_compute(const Tensor& v, const Tensor& g, int64_t dim) {
  GLIA_CHECK(v.device() == g.device(), InvalidArgument,
             "weight_norm: expected v_in and g_in to be on the same device, but v_in is on ", v.device(),
             " and g_in is on ", g.device());
  return mul(v, div(g, norm_except_dim(v, 2.0, dim)));
}

void weight_norm(Module& m, const std::string& name, int64_t dim) {
  GLIA_CHECK(!find_hook(m, name), State, "Cannot register two weight_norm hooks on the same parameter ", name);
  Tensor* p = m.find_parameter(name);
  GLIA_CHECK(p, NotFound, "'", m.type_name(), "' object has no parameter '", name, "'");
  GLIA_CHECK(p->defined(), InvalidArgument, "weight_norm: parameter '", name, "' of ", m.type_name(), " is None");
  const Tensor weight = *p;
  const std::string g_name = name + "_g", v_name = name + "_v";
  GLIA_CHECK(!m.find_parameter(g_name) && !m.find_buffer(g_name) && !m.find_child(g_name) &&
                 !m.find_tensor_attribute(g_name) && !m.find_parameter(v_name) && !m.find_buffer(v_name) &&
                 !m.find_child(v_name) && !m.find_tensor_attribute(v_name),
             InvalidArgument, "weight_norm: attribute '", g_name, "' or '", v_name, "' already exists");
  Tensor g = detach(norm_except_dim(detach(weight), 2.0, dim));  // may throw: nothing changed yet
  Tensor v = detach(weight);
  WeightNormHook hook{name, dim};
  m.remove(name);
  m.register_parameter(g_name, g);
  m.register_parameter(v_name, v);
  m.set_tensor_attribute(name, hook.compute(m));
  m.add_forward_pre_hook(hook);
}

void remove_weight_norm(Module& m, const std::string& name) {
  auto found = find_hook(m, name);
  GLIA_CHECK(found, NotFound, "weight_norm of '", name, "' not found in ", m.repr());
  Tensor weight = detach(found->second.compute(m));
  m.remove_tensor_attribute(name);
  m.remove(name + "_g");
  m.remove(name + "_v");
  m.register_parameter(name, weight);
  m.remove_hook(found->first);
}

}  // namespace glia::nn::utils
