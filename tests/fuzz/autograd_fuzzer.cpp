// libFuzzer harness: autograd through the C API (capi_support.h says what every call
// must do). The program grows a small graph over a table of 12 tensors: leaves that
// require grad (float32/float64, sometimes another dtype), differentiable ops on them
// (elementwise, reductions, views, matmul, conv2d, losses, a custom function whose
// backward may misbehave), in-place updates of saved tensors, tensor hooks and
// post-accumulate hooks (which may fail, replace the gradient with one of another
// shape or dtype, or queue a callback), then backward, glia_autograd_backward and
// glia_autograd_grad with arbitrary retain_graph / create_graph / allow_unused.
//
// Checked on top of "an error or success": a self-contained probe (x * x).sum() of a
// fresh leaf gives x.grad == 2x; a second backward through it without retain_graph is
// GLIA_ERR_STATE with torch's "Trying to backward through the graph a second time";
// with retain_graph it succeeds; every hook's and custom function's user_data is freed
// exactly once.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "capi_support.h"

namespace {

using glia::fuzz::capi_finding;
using glia::fuzz::check;
using glia::fuzz::check_out;
using glia::fuzz::kMaxNumel;
using glia::fuzz::Reader;

constexpr int kT = 12, kDead = 4;

int g_live_user_data = 0;

struct State {
  glia_tensor* t[kT] = {};
  // Every tensor that may get a .grad (made to require grad, retain_grad, set_grad), with a
  // reference of its own: a .grad made under create_graph (or set to a tensor computed from
  // it) holds a graph that holds the tensor (torch's cycle, torch's advice being to set .grad
  // to None), so the end of the program clears the .grad of each before releasing it, even
  // of tensors the table has dropped.
  glia_tensor* leaves[32] = {};
  int n_leaves = 0;
  void* dead[kDead] = {};
  int next_dead = 0;
  uint64_t hooks[4] = {};
  int next_hook = 0;
};

bool holds(const State& s, const void* h) {
  for (auto* x : s.t)
    if (x == h) return true;
  return false;
}

void drop(State& s, int k) {
  glia_tensor* h = s.t[k];
  if (!h) return;
  s.t[k] = nullptr;
  glia::fuzz::must_release(glia_tensor_release(h), "glia_tensor_release");
  if (!holds(s, h)) s.dead[s.next_dead++ % kDead] = h;
}

void keep(State& s, int k, glia_tensor* t) {
  if (!t) return;
  int64_t n = 0;
  if (check(glia_tensor_numel(t, &n), "glia_tensor_numel")) capi_finding("numel of a new tensor failed", "keep");
  glia_tensor* old = s.t[k];
  s.t[k] = t;
  if (old) {
    glia::fuzz::must_release(glia_tensor_release(old), "glia_tensor_release");
    if (!holds(s, old)) s.dead[s.next_dead++ % kDead] = old;
  }
  if (n > kMaxNumel) drop(s, k);
}

// Keeps a reference of its own to `t`, a tensor that may get a .grad (a leaf that requires grad,
// a retain_grad target, a set_grad target): false when the list is full (the op is then skipped).
bool remember(State& s, glia_tensor* t) {
  if (!t) return true;
  for (int i = 0; i < s.n_leaves; ++i)
    if (s.leaves[i] == t) return true;
  if (s.n_leaves == 32) return false;
  int64_t n;
  if (check(glia_tensor_numel(t, &n), "glia_tensor_numel")) return true;  // not a live tensor: the call fails anyway
  if (check(glia_tensor_retain(t), "glia_tensor_retain")) capi_finding("retain of a live tensor failed", "leaves");
  s.leaves[s.n_leaves++] = t;
  return true;
}

// Makes `t` require grad (or not), remembering it first.
int set_requires_grad(State& s, glia_tensor* t, int32_t flag) {
  if (flag && !remember(s, t)) return -1;
  return check(glia_tensor_set_requires_grad(t, flag), "glia_tensor_set_requires_grad");
}

glia_tensor* T(State& s, Reader& r) {
  uint8_t b = r.u8();
  if (glia::fuzz::trace()) std::fprintf(stderr, "   tensor arg %d\n", b);
  if (b < 240) return s.t[b % kT];
  if (b < 248) return nullptr;
  return static_cast<glia_tensor*>(s.dead[b % kDead]);
}
int slot(Reader& r) { return r.u8() % kT; }

struct Dims {
  int64_t v[4] = {};
  int64_t n = 0;
};
Dims dims(Reader& r) {
  Dims d;
  d.n = r.u8() % 4;
  for (int64_t i = 0; i < d.n; ++i) d.v[i] = static_cast<int64_t>(r.u8() % 7) - 3;
  return d;
}

// ---- callbacks --------------------------------------------------------------------------

struct UserData {
  uint8_t mode;
};
UserData* user_data(uint8_t mode) {
  ++g_live_user_data;
  return new UserData{mode};
}
void free_user_data(void* p) {
  --g_live_user_data;
  delete static_cast<UserData*>(p);
}

glia_error* queued(void* ud) {
  return static_cast<UserData*>(ud)->mode & 1 ? glia_error_new(GLIA_ERR_STATE, "fuzz callback failed") : nullptr;
}

// A tensor hook: keep, fail, double the gradient, replace it with one of another shape,
// queue a callback, replace it with one of another dtype.
glia_error* tensor_hook(void* ud, const glia_tensor* grad, glia_tensor** rep) {
  uint8_t mode = static_cast<UserData*>(ud)->mode;
  glia_error* e = nullptr;
  switch (mode % 6) {
    case 0:
      return nullptr;
    case 1:
      return glia_error_new(GLIA_ERR_INVALID_ARGUMENT, "fuzz hook failed");
    case 2:
      e = glia_mul_scalar(grad, glia_scalar_float(2), rep);
      break;
    case 3: {
      int64_t sh[2] = {2, 3};
      e = glia_tensor_zeros(sh, 2, nullptr, rep);
      break;
    }
    case 4:
      e = glia_autograd_queue_callback(queued, user_data(mode >> 3), free_user_data);
      break;
    case 5: {
      glia_dtype dt = GLIA_FLOAT64;
      e = glia_tensor_to(grad, nullptr, &dt, rep);
      break;
    }
  }
  if (e) glia_error_free(e);
  return nullptr;
}

glia_error* post_hook(void* ud, glia_tensor* t) {
  uint8_t mode = static_cast<UserData*>(ud)->mode;
  if (mode % 3 == 1) return glia_error_new(GLIA_ERR_STATE, "fuzz post hook failed");
  if (mode % 3 == 2) {  // read the accumulated grad, as a hook does
    glia_tensor* g = nullptr;
    glia_error* e = glia_tensor_grad(t, &g);
    if (e) glia_error_free(e);
    if (g) glia::fuzz::must_release(glia_tensor_release(g), "glia_tensor_release");
  }
  return nullptr;
}

// A custom function: forward clones its inputs (as many outputs as asked, cycling), may
// save them; backward (mode) passes the gradients through, leaves NULLs, fails, returns
// a gradient of another shape, reads the saved tensors, or asks needs_input_grad out of range.
glia_error* fn_forward(void* ud, glia_autograd_ctx* ctx, const glia_tensor* const* in, int64_t n_in, glia_tensor** outs,
                       int64_t n_outs) {
  uint8_t mode = static_cast<UserData*>(ud)->mode;
  if (mode % 11 == 10) return glia_error_new(GLIA_ERR_SHAPE, "fuzz forward failed");
  if (mode & 16) {
    glia_error* e = glia_autograd_ctx_save_for_backward(ctx, in, n_in);
    if (e) glia_error_free(e);
  }
  for (int64_t i = 0; i < n_outs; ++i) {
    if (n_in == 0 || !in[i % n_in] || (mode & 32 && i == 0)) continue;  // an output left NULL
    glia_error* e = glia_tensor_clone(in[i % n_in], &outs[i]);
    if (e) glia_error_free(e);
  }
  return nullptr;
}
glia_error* fn_backward(void* ud, glia_autograd_ctx* ctx, const glia_tensor* const* go, int64_t n_go, glia_tensor** gi,
                        int64_t n_gi) {
  uint8_t mode = static_cast<UserData*>(ud)->mode;
  switch (mode % 5) {
    case 0:
      for (int64_t i = 0; i < n_gi; ++i)
        if (n_go && go[i % n_go]) {
          glia_error* e = glia_tensor_clone(go[i % n_go], &gi[i]);
          if (e) glia_error_free(e);
        }
      return nullptr;
    case 1:
      return nullptr;
    case 2:
      return glia_error_new(GLIA_ERR_SHAPE, "fuzz backward failed");
    case 3: {
      int64_t sh[1] = {7};
      for (int64_t i = 0; i < n_gi; ++i) {
        glia_error* e = glia_tensor_ones(sh, 1, nullptr, &gi[i]);
        if (e) glia_error_free(e);
      }
      return nullptr;
    }
    default: {
      int64_t count = 0;
      glia_error* e = glia_autograd_ctx_saved_tensors(ctx, nullptr, 0, &count);
      if (e) glia_error_free(e);
      glia_tensor* saved[8] = {};
      e = glia_autograd_ctx_saved_tensors(ctx, saved, std::min<int64_t>(count, 8), &count);
      if (e) glia_error_free(e);
      for (auto* t : saved)
        if (t) glia::fuzz::must_release(glia_tensor_release(t), "glia_tensor_release");
      int32_t needs = 0;
      e = glia_autograd_ctx_needs_input_grad(ctx, n_gi + (mode >> 5), &needs);
      if (e) glia_error_free(e);
      return nullptr;
    }
  }
}

// ---- ops --------------------------------------------------------------------------------

void op_leaf(State& s, Reader& r) {
  int k = slot(r);
  int64_t sh[3];
  int64_t nd = r.u8() % 4;
  for (int64_t i = 0; i < nd; ++i) sh[i] = r.u8() % 5;
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = r.float_dtype();
  glia_tensor* out = nullptr;
  if (r.flag())
    check_out(glia_tensor_randn(sh, nd, &o, &out), "glia_tensor_randn", out);
  else
    check_out(glia_tensor_full(sh, nd, r.real(), &o, &out), "glia_tensor_full", out);
  if (out && r.u8() < 220) set_requires_grad(s, out, 1);
  keep(s, k, out);
}

void op_unary(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  switch (r.u8() % 20) {
    case 0:
      check_out(glia_exp(a, &out), "glia_exp", out);
      break;
    case 1:
      check_out(glia_tanh(a, &out), "glia_tanh", out);
      break;
    case 2:
      check_out(glia_sigmoid(a, &out), "glia_sigmoid", out);
      break;
    case 3:
      check_out(glia_relu(a, &out), "glia_relu", out);
      break;
    case 4:
      check_out(glia_sin(a, &out), "glia_sin", out);
      break;
    case 5:
      check_out(glia_log(a, &out), "glia_log", out);
      break;
    case 6:
      check_out(glia_sqrt(a, &out), "glia_sqrt", out);
      break;
    case 7:
      check_out(glia_abs(a, &out), "glia_abs", out);
      break;
    case 8:
      check_out(glia_pow_scalar(a, glia_scalar_float(r.real()), &out), "glia_pow_scalar", out);
      break;
    case 9:
      check_out(glia_gelu(a, r.flag() ? "tanh" : "none", &out), "glia_gelu", out);
      break;
    case 10: {
      glia_scalar lo = glia_scalar_float(r.real()), hi = glia_scalar_float(r.real());
      check_out(glia_clamp(a, r.flag() ? &lo : nullptr, r.flag() ? &hi : nullptr, &out), "glia_clamp", out);
      break;
    }
    case 11:
      check_out(glia_tensor_clone(a, &out), "glia_tensor_clone", out);
      break;
    case 12:
      check_out(glia_tensor_detach(a, &out), "glia_tensor_detach", out);
      break;
    case 13:
      check_out(glia_softplus(a, r.real(), r.real(), &out), "glia_softplus", out);
      break;
    case 14:
      check_out(glia_erf(a, &out), "glia_erf", out);
      break;
    case 15:
      check_out(glia_lgamma(a, &out), "glia_lgamma", out);
      break;
    case 16:
      check_out(glia_mul_scalar(a, glia_scalar_float(r.real()), &out), "glia_mul_scalar", out);
      break;
    case 17:
      check_out(glia_dropout(a, r.real(), r.flag(), &out), "glia_dropout", out);
      break;
    case 18: {
      glia_dtype dt = r.float_dtype();
      check_out(glia_tensor_to(a, nullptr, &dt, &out), "glia_tensor_to", out);
      break;
    }
    case 19:
      check_out(glia_tensor_contiguous(a, &out), "glia_tensor_contiguous", out);
      break;
  }
  keep(s, k, out);
}

void op_binary(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  glia_tensor* b = T(s, r);
  switch (r.u8() % 14) {
    case 0:
      check_out(glia_add(a, b, r.real(), &out), "glia_add", out);
      break;
    case 1:
      check_out(glia_sub(a, b, 1.0, &out), "glia_sub", out);
      break;
    case 2:
      check_out(glia_mul(a, b, &out), "glia_mul", out);
      break;
    case 3:
      check_out(glia_div(a, b, nullptr, &out), "glia_div", out);
      break;
    case 4:
      check_out(glia_pow(a, b, &out), "glia_pow", out);
      break;
    case 5:
      check_out(glia_maximum(a, b, &out), "glia_maximum", out);
      break;
    case 6: {
      glia_tensor* cond = nullptr;
      if (check_out(glia_gt(a, b, &cond), "glia_gt", cond) == 0) {
        check_out(glia_where(cond, a, b, &out), "glia_where", out);
        glia::fuzz::must_release(glia_tensor_release(cond), "glia_tensor_release");
      }
      break;
    }
    case 7:
      check_out(glia_matmul(a, b, &out), "glia_matmul", out);
      break;
    case 8:
      check_out(glia_linear(a, b, r.flag() ? T(s, r) : nullptr, &out), "glia_linear", out);
      break;
    case 9:
      check_out(glia_mse_loss(a, b, static_cast<glia_reduction>(r.u8() % 3), &out), "glia_mse_loss", out);
      break;
    case 10: {
      glia_conv2d_options o;
      glia_conv2d_options_init(&o);
      o.stride[0] = 1 + r.u8() % 2, o.stride[1] = 1 + r.u8() % 2;
      o.padding[0] = r.u8() % 2, o.padding[1] = r.u8() % 2;
      o.groups = 1 + r.u8() % 2;
      check_out(glia_conv2d(a, b, r.flag() ? T(s, r) : nullptr, &o, &out), "glia_conv2d", out);
      break;
    }
    case 11: {
      const glia_tensor* ts[3] = {a, b, T(s, r)};
      int64_t n = 1 + r.u8() % 3, d = static_cast<int64_t>(r.u8() % 5) - 2;
      if (r.flag())
        check_out(glia_cat(ts, n, d, &out), "glia_cat", out);
      else
        check_out(glia_stack(ts, n, d, &out), "glia_stack", out);
      break;
    }
    case 12: {
      glia_cross_entropy_options o;
      glia_cross_entropy_options_init(&o);
      o.label_smoothing = (r.u8() % 4) / 4.0;
      o.ignore_index = static_cast<int64_t>(r.u8() % 4) - 1;
      check_out(glia_cross_entropy(a, b, &o, &out), "glia_cross_entropy", out);
      break;
    }
    case 13:
      check_out(glia_atan2(a, b, &out), "glia_atan2", out);
      break;
  }
  keep(s, k, out);
}

void op_reduce(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  glia_tensor* idx = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  Dims d = dims(r);
  int32_t keepdim = r.flag();
  int64_t dim = static_cast<int64_t>(r.u8() % 7) - 3;
  switch (r.u8() % 14) {
    case 0:
      check_out(glia_sum(a, d.v, d.n, keepdim, &out), "glia_sum", out);
      break;
    case 1:
      check_out(glia_mean(a, d.v, d.n, keepdim, &out), "glia_mean", out);
      break;
    case 2:
      check_out(glia_prod(a, d.v, d.n, keepdim, &out), "glia_prod", out);
      break;
    case 3:
      check_out(glia_amax(a, d.v, d.n, keepdim, &out), "glia_amax", out);
      break;
    case 4:
      check_out(glia_var(a, d.v, d.n, r.u8() % 3, keepdim, &out), "glia_var", out);
      break;
    case 5:
      check_out(glia_norm(a, r.u8() % 4, d.v, d.n, keepdim, &out), "glia_norm", out);
      break;
    case 6:
      check_out(glia_logsumexp(a, d.v, d.n, keepdim, &out), "glia_logsumexp", out);
      break;
    case 7:
      check_out(glia_softmax(a, dim, &out), "glia_softmax", out);
      break;
    case 8:
      check_out(glia_log_softmax(a, dim, &out), "glia_log_softmax", out);
      break;
    case 9:
      check_out(glia_cumsum(a, dim, nullptr, &out), "glia_cumsum", out);
      break;
    case 10:
      check(glia_max(a, dim, keepdim, &out, &idx), "glia_max");
      break;
    case 11:
      check(glia_sort(a, dim, r.flag(), r.flag(), &out, &idx), "glia_sort");
      break;
    case 12:
      check(glia_topk(a, r.u8() % 4, dim, r.flag(), r.flag(), &out, &idx), "glia_topk");
      break;
    case 13:
      check_out(glia_cumprod(a, dim, nullptr, &out), "glia_cumprod", out);
      break;
  }
  keep(s, k, out);
  if (idx) glia::fuzz::must_release(glia_tensor_release(idx), "glia_tensor_release");
}

void op_view(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  Dims d = dims(r);
  int64_t x = static_cast<int64_t>(r.u8() % 7) - 3, y = static_cast<int64_t>(r.u8() % 7) - 3;
  switch (r.u8() % 12) {
    case 0: {
      int64_t sh[3] = {-1, 1 + r.u8() % 4, 1 + r.u8() % 3};
      check_out(glia_view(a, sh, 1 + r.u8() % 3, &out), "glia_view", out);
      break;
    }
    case 1: {
      int64_t sh[3] = {-1, 1 + r.u8() % 4, 1 + r.u8() % 3};
      check_out(glia_reshape(a, sh, 1 + r.u8() % 3, &out), "glia_reshape", out);
      break;
    }
    case 2:
      check_out(glia_permute(a, d.v, d.n, &out), "glia_permute", out);
      break;
    case 3:
      check_out(glia_transpose(a, x, y, &out), "glia_transpose", out);
      break;
    case 4: {
      int64_t sh[4] = {1 + r.u8() % 3, -1, -1, -1};
      check_out(glia_expand(a, sh, 1 + r.u8() % 4, &out), "glia_expand", out);
      break;
    }
    case 5:
      check_out(glia_slice(a, x, y, y + 2 + r.u8() % 3, 1 + r.u8() % 2, &out), "glia_slice", out);
      break;
    case 6:
      check_out(glia_select(a, x, y, &out), "glia_select", out);
      break;
    case 7:
      check_out(glia_unsqueeze(a, x, &out), "glia_unsqueeze", out);
      break;
    case 8:
      check_out(glia_squeeze(a, d.v, d.n, &out), "glia_squeeze", out);
      break;
    case 9:
      check_out(glia_narrow(a, x, r.u8() % 3, r.u8() % 3, &out), "glia_narrow", out);
      break;
    case 10:
      check_out(glia_flatten(a, x, y, &out), "glia_flatten", out);
      break;
    case 11: {
      glia_tensor* idx = nullptr;
      int64_t sh[1] = {1 + r.u8() % 4};
      if (check_out(glia_tensor_randint(0, 1 + r.u8() % 4, sh, 1, nullptr, &idx), "glia_tensor_randint", idx) == 0) {
        if (r.flag())
          check_out(glia_index_select(a, x, idx, &out), "glia_index_select", out);
        else
          check_out(glia_gather(a, x, idx, &out), "glia_gather", out);
        glia::fuzz::must_release(glia_tensor_release(idx), "glia_tensor_release");
      }
      break;
    }
  }
  keep(s, k, out);
}

// In-place updates: of a leaf that requires grad (refused), of a tensor a graph saved
// (backward then fails with torch's version-counter error).
void op_inplace(State& s, Reader& r) {
  glia_tensor* a = T(s, r);
  glia_tensor* b = T(s, r);
  switch (r.u8() % 6) {
    case 0:
      check(glia_add_(a, b, r.real()), "glia_add_");
      break;
    case 1:
      check(glia_mul_(a, b), "glia_mul_");
      break;
    case 2:
      check(glia_relu_(a), "glia_relu_");
      break;
    case 3:
      check(glia_mul_scalar_(a, glia_scalar_float(r.real())), "glia_mul_scalar_");
      break;
    case 4:
      check(glia_copy_(a, b), "glia_copy_");
      break;
    case 5:
      check(glia_sin_(a), "glia_sin_");
      break;
  }
}

void op_custom(State& s, Reader& r) {
  glia_autograd_function_def def;
  glia_autograd_function_def_init(&def);
  def.name = r.flag() ? "FuzzFn" : "";
  def.forward = fn_forward;
  def.backward = fn_backward;
  def.user_data = user_data(r.u8());
  def.free_user_data = free_user_data;
  const glia_tensor* in[3];
  int64_t n_in = r.u8() % 4;
  for (int64_t i = 0; i < n_in; ++i) in[i] = T(s, r);
  glia_tensor* outs[3] = {};
  int64_t n_outs = r.u8() % 4;
  int k = slot(r);
  int c = check(glia_autograd_function_apply(&def, n_in ? in : nullptr, n_in, outs, n_outs),
                "glia_autograd_function_apply");
  for (int64_t i = 0; i < 3; ++i) {
    if (c != 0 && outs[i]) capi_finding("a failed custom function wrote outputs", "glia_autograd_function_apply");
    if (c == 0 && i < n_outs && !outs[i])
      capi_finding("a custom function output left NULL", "glia_autograd_function_apply");
    keep(s, (k + i) % kT, outs[i]);
  }
}

void op_hooks(State& s, Reader& r) {
  glia_tensor* a = T(s, r);
  switch (r.u8() % 5) {
    case 0:
    case 1: {
      uint64_t id = 0;
      if (check(glia_tensor_register_hook(a, tensor_hook, user_data(r.u8()), free_user_data, &id),
                "glia_tensor_register_hook") == 0)
        s.hooks[s.next_hook++ % 4] = id;
      break;
    }
    case 2: {
      uint64_t id = 0;
      if (check(glia_tensor_register_post_accumulate_grad_hook(a, post_hook, user_data(r.u8()), free_user_data, &id),
                "glia_tensor_register_post_accumulate_grad_hook") == 0)
        s.hooks[s.next_hook++ % 4] = id;
      break;
    }
    case 3: {
      uint8_t b = r.u8();
      check(glia_tensor_remove_hook(a, b < 240 ? s.hooks[b % 4] : r.u64()), "glia_tensor_remove_hook");
      break;
    }
    case 4:
      if (remember(s, a)) check(glia_tensor_retain_grad(a), "glia_tensor_retain_grad");
      break;
  }
}

void op_backward(State& s, Reader& r) {
  switch (r.u8() % 8) {
    case 0:
    case 1: {
      glia_tensor* root = T(s, r);
      glia_tensor* g = r.flag() ? T(s, r) : nullptr;
      check(glia_tensor_backward(root, g, r.flag()), "glia_tensor_backward");
      break;
    }
    case 2:
    case 3: {
      glia_tensor* roots[3];
      glia_tensor* grads[3];
      int64_t n = r.u8() % 4;
      for (int64_t i = 0; i < n; ++i) roots[i] = T(s, r), grads[i] = r.flag() ? T(s, r) : nullptr;
      int32_t retain = r.flag(), create = r.flag();
      check(glia_autograd_backward(n ? roots : nullptr, n, r.flag() ? grads : nullptr, retain, create),
            "glia_autograd_backward");
      break;
    }
    case 4:
    case 5: {
      glia_tensor* outs[2];
      glia_tensor* ins[3];
      glia_tensor* gos[2];
      glia_tensor* res[3] = {};
      int64_t no = r.u8() % 3, ni = r.u8() % 4;
      for (int64_t i = 0; i < no; ++i) outs[i] = T(s, r), gos[i] = r.flag() ? T(s, r) : nullptr;
      for (int64_t i = 0; i < ni; ++i) ins[i] = T(s, r);
      int32_t retain = r.flag(), create = r.flag(), unused = r.flag();
      int k = slot(r);
      int c = check(glia_autograd_grad(no ? outs : nullptr, no, ni ? ins : nullptr, ni, r.flag() ? gos : nullptr,
                                       retain, create, unused, res),
                    "glia_autograd_grad");
      for (int64_t i = 0; i < 3; ++i) {
        if (c != 0 && res[i]) capi_finding("a failed grad wrote results", "glia_autograd_grad");
        if (c == 0 && i < ni && !res[i] && !unused) capi_finding("grad left a result NULL", "glia_autograd_grad");
        keep(s, (k + i) % kT, res[i]);
      }
      break;
    }
    case 6: {  // .grad: read it, clear it, set another tensor
      glia_tensor* a = T(s, r);
      glia_tensor* g = nullptr;
      int k = slot(r);
      uint8_t b = r.u8();
      if (b % 3 == 0) {
        check(glia_tensor_grad(a, &g), "glia_tensor_grad");
        keep(s, k, g);
      } else {
        glia_tensor* g2 = b % 3 == 1 ? nullptr : T(s, r);
        if (remember(s, a)) check(glia_tensor_set_grad(a, g2), "glia_tensor_set_grad");
      }
      char name[32];
      size_t len = 0;
      check(glia_tensor_grad_fn_name(a, name, r.u8() % 33, &len), "glia_tensor_grad_fn_name");
      break;
    }
    case 7: {
      uint8_t b = r.u8();
      if (b < 128)
        glia_grad_mode_set(b & 1);
      else if (b < 144)
        glia_inference_mode_set(b & 1);
      else if (b < 200)
        drop(s, slot(r));
      else
        set_requires_grad(s, T(s, r), b & 1);
      break;
    }
  }
}

double item(glia_tensor* t) {
  double v = NAN;
  if (check(glia_tensor_item_double(t, &v), "glia_tensor_item_double")) capi_finding("item failed", "probe");
  return v;
}

// The probe: y = (x * x).sum() for a fresh leaf x; x.grad must be 2x; a second backward
// without retain_graph is torch's error, with it a success.
void op_probe(Reader& r) {
  if (!glia_grad_mode_enabled() || glia_inference_mode_enabled()) return;
  int64_t sh[2] = {1 + r.u8() % 4, 1 + r.u8() % 3};
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = r.flag() ? GLIA_FLOAT64 : GLIA_FLOAT32;
  glia_tensor *x = nullptr, *xx = nullptr, *y = nullptr, *g = nullptr, *d = nullptr, *n = nullptr;
  if (check(glia_tensor_randn(sh, 2, &o, &x), "glia_tensor_randn")) capi_finding("probe leaf failed", "probe");
  if (check(glia_tensor_set_requires_grad(x, 1), "glia_tensor_set_requires_grad") ||
      check(glia_mul(x, x, &xx), "glia_mul") || check(glia_sum(xx, nullptr, 0, 0, &y), "glia_sum"))
    capi_finding("probe graph failed", "probe");
  int32_t retain = r.flag();
  if (check(glia_tensor_backward(y, nullptr, retain), "glia_tensor_backward"))
    capi_finding("probe backward failed", "probe");
  if (check(glia_tensor_grad(x, &g), "glia_tensor_grad") || !g) capi_finding("probe leaf has no grad", "probe");
  // |x.grad - 2x| summed
  if (check(glia_sub(g, x, 2.0, &d), "glia_sub") || check(glia_norm(d, 1, nullptr, 0, 0, &n), "glia_norm"))
    capi_finding("probe check failed", "probe");
  if (!(item(n) <= 1e-4 * sh[0] * sh[1])) capi_finding("x.grad of (x*x).sum() is not 2x", "probe");
  glia_error* e = glia_tensor_backward(y, nullptr, 0);
  if (retain) {
    if (check(e, "glia_tensor_backward")) capi_finding("backward after retain_graph failed", "probe");
  } else {
    if (!e || glia_error_code(e) != GLIA_ERR_STATE ||
        !std::strstr(glia_error_message(e), "Trying to backward through the graph a second time"))
      capi_finding("a second backward without retain_graph was not torch's error", "probe",
                   e ? glia_error_message(e) : "succeeded");
    check(e, "glia_tensor_backward");
  }
  for (glia_tensor* t : {x, xx, y, g, d, n}) glia::fuzz::must_release(glia_tensor_release(t), "glia_tensor_release");
}

void run(Reader& r) {
  State s;
  int budget = 192;
  while (!r.done() && budget-- > 0) {
    uint8_t op = r.u8();
    if (glia::fuzz::trace()) std::fprintf(stderr, "-- op %d at byte %zu\n", op % 12, r.i - 1);
    switch (op % 12) {
      case 0:
      case 1:
        op_leaf(s, r);
        break;
      case 2:
        op_unary(s, r);
        break;
      case 3:
        op_binary(s, r);
        break;
      case 4:
        op_reduce(s, r);
        break;
      case 5:
        op_view(s, r);
        break;
      case 6:
        op_inplace(s, r);
        break;
      case 7:
        op_custom(s, r);
        break;
      case 8:
        op_hooks(s, r);
        break;
      case 9:
      case 10:
        op_backward(s, r);
        break;
      case 11:
        op_probe(r);
        break;
    }
  }
  glia_grad_mode_set(1);
  glia_inference_mode_set(0);
  for (int i = 0; i < kT; ++i)
    if (s.t[i]) check(glia_tensor_set_grad(s.t[i], nullptr), "glia_tensor_set_grad");
  for (int i = 0; i < s.n_leaves; ++i) {
    check(glia_tensor_set_grad(s.leaves[i], nullptr), "glia_tensor_set_grad");
    glia::fuzz::must_release(glia_tensor_release(s.leaves[i]), "glia_tensor_release");
  }
  for (int i = 0; i < kT; ++i) drop(s, i);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  glia::fuzz::install_cap_allocator();
  if (glia_error* e = glia_set_num_threads(1)) glia_error_free(e);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  run(r);
  glia::fuzz::check_nothing_live("autograd");
  if (g_live_user_data != 0) capi_finding("a hook's or function's user_data was not freed exactly once", "autograd");
  return 0;
}
