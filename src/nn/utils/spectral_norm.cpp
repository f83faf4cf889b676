// torch.nn.utils.spectral_norm / remove_spectral_norm (torch/nn/utils/spectral_norm.py of 1.13).
// torch's state-dict version hook only writes metadata glia's state dicts do not
// carry; its load hook converts checkpoints of torch < 1.1 (version 0) and
// returns at once for a torch >= 1.1 checkpoint (name_orig, name_u and name_v
// present), which therefore load as they are.
#include "autograd/fn/elementwise.h"
#include "autograd/fn/linalg.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/grad_mode.h"
#include "nn/init.h"
#include "nn/utils/utils.h"

namespace glia::nn::utils {

namespace {

// F.normalize(x, dim=0, eps): x / max(||x||, eps).
Tensor normalize0(const Tensor& x, double eps) {
  return div(x, clamp(vector_norm(x, 2.0, Dims{0}, true), Scalar::from_double(eps), std::nullopt));
}

struct SpectralNormHook {
  std::string name;
  int64_t n_power_iterations;
  int64_t dim;
  double eps;

  std::optional<TensorList> operator()(Module& m, const TensorList&) const {
    m.set_tensor_attribute(name, compute(m, m.is_training()));
    return std::nullopt;
  }

  Tensor to_matrix(const Tensor& weight) const {
    Tensor w = weight;
    if (dim != 0) {
      Dims perm{dim};
      for (int64_t d = 0; d < weight.dim(); ++d)
        if (d != dim) perm.push_back(d);
      w = permute(w, perm);
    }
    return reshape(w, Dims{w.size(0), -1});
  }

  // compute_weight: power iteration (in place on the buffers u, v) when training.
  Tensor compute(Module& m, bool do_power_iteration) const {
    const Tensor& weight = m.param(name + "_orig");
    Tensor u = m.buffer(name + "_u");
    Tensor v = m.buffer(name + "_v");
    Tensor mat = to_matrix(weight);
    if (do_power_iteration) {
      GradModeGuard no_grad(false);
      for (int64_t i = 0; i < n_power_iterations; ++i) {
        copy_(v, normalize0(mv(transpose(mat, 0, 1), u), eps));
        copy_(u, normalize0(mv(mat, v), eps));
      }
      if (n_power_iterations > 0) {
        u = clone(u);
        v = clone(v);
      }
    }
    return div(weight, dot(u, mv(mat, v)));
  }
};

std::optional<std::pair<uint64_t, SpectralNormHook>> find_hook(const Module& m, const std::string& name) {
  for (auto& [id, fn] : m.forward_pre_hooks())
    if (const auto* h = fn.target<SpectralNormHook>(); h && h->name == name) return std::make_pair(id, *h);
  return std::nullopt;
}

}  // namespace

void spectral_norm(Module& m, const std::string& name, int64_t n_power_iterations, double eps,
                   std::optional<int64_t> dim) {
  if (!dim) {
    const std::string& t = m.type_name();
    dim = (t == "ConvTranspose1d" || t == "ConvTranspose2d" || t == "ConvTranspose3d") ? 1 : 0;
  }
  GLIA_CHECK(!find_hook(m, name), State, "Cannot register two spectral_norm hooks on the same parameter ", name);
  GLIA_CHECK(n_power_iterations > 0, InvalidArgument,
             "Expected n_power_iterations to be positive, but got n_power_iterations=", n_power_iterations);
  Tensor* p = m.find_parameter(name);
  GLIA_CHECK(p, NotFound, "'", m.type_name(), "' object has no parameter '", name, "'");
  GLIA_CHECK(p->defined(), InvalidArgument, "spectral_norm: parameter '", name, "' of ", m.type_name(), " is None");
  const Tensor weight = *p;
  for (const char* suffix : {"_orig", "_u", "_v"}) {
    const std::string n = name + suffix;
    GLIA_CHECK(!m.find_parameter(n) && !m.find_buffer(n) && !m.find_child(n) && !m.find_tensor_attribute(n),
               InvalidArgument, "attribute '", n, "' already exists");
  }
  SpectralNormHook hook{name, n_power_iterations, *dim, eps};
  Tensor u, v;
  {
    GradModeGuard no_grad(false);
    Tensor mat = hook.to_matrix(weight);  // may throw: nothing changed yet
    u = empty(Dims{mat.size(0)}, weight.dtype(), weight.device());
    v = empty(Dims{mat.size(1)}, weight.dtype(), weight.device());
    init::normal_(u, 0.0, 1.0);
    init::normal_(v, 0.0, 1.0);
    u = normalize0(u, eps);
    v = normalize0(v, eps);
  }
  m.remove(name);
  m.register_parameter(name + "_orig", weight);
  m.set_tensor_attribute(name, detach(weight));
  m.register_buffer(name + "_u", u);
  m.register_buffer(name + "_v", v);
  m.add_forward_pre_hook(hook);
}

void remove_spectral_norm(Module& m, const std::string& name) {
  auto found = find_hook(m, name);
  GLIA_CHECK(found, NotFound, "spectral_norm of '", name, "' not found in ", m.repr());
  Tensor weight;
  {
    GradModeGuard no_grad(false);
    weight = detach(found->second.compute(m, false));
  }
  m.remove_hook(found->first);
  m.remove_tensor_attribute(name);
  m.remove(name + "_u");
  m.remove(name + "_v");
  m.remove(name + "_orig");
  m.register_parameter(name, weight);
}

}  // namespace glia::nn::utils
