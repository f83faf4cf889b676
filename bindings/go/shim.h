/*
 * C shims between Go and libglia. glia's handles are tokens (generation << 32 | slot), not
 * pointers; a token held in a Go pointer-typed variable can look like a pointer into the Go
 * heap and crash the garbage collector ("found bad pointer in Go heap"). So the Go side keeps
 * every handle as a uintptr and crosses into C only through these shims, which take
 * uintptr_t and cast. Error objects are real C pointers and cross as glia_error *.
 */
#ifndef GLIA_GO_SHIM_H
#define GLIA_GO_SHIM_H

#include <stdint.h>
#include <stdlib.h>

#include "glia/glia.h"

typedef uintptr_t gh; /* any glia handle */

#define GS_T(h) ((glia_tensor *)(h))
#define GS_M(h) ((glia_module *)(h))
#define GS_O(h) ((glia_optimizer *)(h))
#define GS_D(h) ((glia_tensor_dict *)(h))
#define GS_OUT_T(p) ((glia_tensor **)(p))
#define GS_OUT_M(p) ((glia_module **)(p))

/* ---- lifetime ---- */
static inline glia_error *gs_tensor_retain(gh t) { return glia_tensor_retain(GS_T(t)); }
static inline glia_error *gs_tensor_release(gh t) { return glia_tensor_release(GS_T(t)); }
static inline glia_error *gs_module_retain(gh m) { return glia_module_retain(GS_M(m)); }
static inline glia_error *gs_module_release(gh m) { return glia_module_release(GS_M(m)); }
static inline glia_error *gs_optimizer_release(gh o) { return glia_optimizer_release(GS_O(o)); }
static inline glia_error *gs_dict_release(gh d) { return glia_tensor_dict_release(GS_D(d)); }

static inline glia_error *gs_memory_in_use(uint64_t *out) {
  glia_memory_stats st;
  st.struct_size = sizeof st;
  glia_error *e = glia_memory_stats_get(&st);
  if (!e) *out = st.bytes_in_use;
  return e;
}

/* ---- factories ---- */
typedef enum { GS_EMPTY, GS_ZEROS, GS_ONES, GS_FULL, GS_RAND, GS_RANDN } gs_factory_kind;
static inline glia_error *gs_factory(int kind, const int64_t *shape, int64_t ndim, double value, int dtype, gh *out) {
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = (glia_dtype)dtype;
  switch (kind) {
    case GS_EMPTY:
      return glia_tensor_empty(shape, ndim, &o, GS_OUT_T(out));
    case GS_ZEROS:
      return glia_tensor_zeros(shape, ndim, &o, GS_OUT_T(out));
    case GS_ONES:
      return glia_tensor_ones(shape, ndim, &o, GS_OUT_T(out));
    case GS_FULL:
      return glia_tensor_full(shape, ndim, value, &o, GS_OUT_T(out));
    case GS_RAND:
      return glia_tensor_rand(shape, ndim, &o, GS_OUT_T(out));
    default:
      return glia_tensor_randn(shape, ndim, &o, GS_OUT_T(out));
  }
}
static inline glia_error *gs_arange(double start, double end, double step, int dtype, gh *out) {
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = (glia_dtype)dtype;
  return glia_tensor_arange(start, end, step, dtype < 0 ? NULL : &o, GS_OUT_T(out));
}
static inline glia_error *gs_from_data(const void *data, size_t nbytes, const int64_t *shape, int64_t ndim, int dtype,
                                       gh *out) {
  return glia_tensor_from_data(data, nbytes, shape, ndim, (glia_dtype)dtype, GS_OUT_T(out));
}

/* ---- tensor queries ---- */
static inline glia_error *gs_ndim(gh t, int64_t *out) { return glia_tensor_ndim(GS_T(t), out); }
static inline glia_error *gs_shape(gh t, int64_t cap, int64_t *out) { return glia_tensor_shape(GS_T(t), cap, out); }
static inline glia_error *gs_numel(gh t, int64_t *out) { return glia_tensor_numel(GS_T(t), out); }
static inline glia_error *gs_dtype(gh t, int *out) {
  glia_dtype d = GLIA_FLOAT32;
  glia_error *e = glia_tensor_dtype(GS_T(t), &d);
  if (!e) *out = (int)d;
  return e;
}
static inline glia_error *gs_copy_to_host(gh t, void *dst, size_t nbytes) {
  return glia_tensor_copy_to_host(GS_T(t), dst, nbytes);
}
static inline glia_error *gs_item(gh t, double *out) { return glia_tensor_item_double(GS_T(t), out); }
static inline glia_error *gs_to_dtype(gh t, int dtype, gh *out) {
  glia_dtype d = (glia_dtype)dtype;
  return glia_tensor_to(GS_T(t), NULL, &d, GS_OUT_T(out));
}
static inline glia_error *gs_to_string(gh t, char *buf, size_t cap, size_t *len) {
  return glia_tensor_to_string(GS_T(t), buf, cap, len);
}

/* ---- autograd ---- */
static inline glia_error *gs_requires_grad(gh t, int32_t *out) { return glia_tensor_requires_grad(GS_T(t), out); }
static inline glia_error *gs_set_requires_grad(gh t, int32_t f) { return glia_tensor_set_requires_grad(GS_T(t), f); }
static inline glia_error *gs_is_leaf(gh t, int32_t *out) { return glia_tensor_is_leaf(GS_T(t), out); }
static inline glia_error *gs_grad(gh t, gh *out) { return glia_tensor_grad(GS_T(t), GS_OUT_T(out)); }
static inline glia_error *gs_set_grad(gh t, gh g) { return glia_tensor_set_grad(GS_T(t), GS_T(g)); }
static inline glia_error *gs_retain_grad(gh t) { return glia_tensor_retain_grad(GS_T(t)); }
static inline glia_error *gs_grad_fn_name(gh t, char *buf, size_t cap, size_t *len) {
  return glia_tensor_grad_fn_name(GS_T(t), buf, cap, len);
}
static inline glia_error *gs_backward(gh t, gh grad, int32_t retain) {
  return glia_tensor_backward(GS_T(t), GS_T(grad), retain);
}
static inline glia_error *gs_remove_tensor_hook(gh t, uint64_t id) { return glia_tensor_remove_hook(GS_T(t), id); }

/* ---- operators ---- */
#define GS_UNARY(name) \
  static inline glia_error *gs_##name(gh a, gh *out) { return glia_##name(GS_T(a), GS_OUT_T(out)); }
#define GS_BINARY(name) \
  static inline glia_error *gs_##name(gh a, gh b, gh *out) { return glia_##name(GS_T(a), GS_T(b), GS_OUT_T(out)); }
GS_UNARY(neg)
GS_UNARY(abs)
GS_UNARY(exp)
GS_UNARY(log)
GS_UNARY(sqrt)
GS_UNARY(relu)
GS_UNARY(sigmoid)
GS_UNARY(tanh)
GS_UNARY(silu)
GS_BINARY(mul)
GS_BINARY(matmul)
GS_BINARY(maximum)
GS_BINARY(minimum)
GS_BINARY(eq)
GS_BINARY(lt)
GS_BINARY(gt)
GS_BINARY(pow)
static inline glia_error *gs_add(gh a, gh b, double alpha, gh *out) {
  return glia_add(GS_T(a), GS_T(b), alpha, GS_OUT_T(out));
}
static inline glia_error *gs_sub(gh a, gh b, double alpha, gh *out) {
  return glia_sub(GS_T(a), GS_T(b), alpha, GS_OUT_T(out));
}
static inline glia_error *gs_div(gh a, gh b, gh *out) { return glia_div(GS_T(a), GS_T(b), NULL, GS_OUT_T(out)); }
static inline glia_error *gs_add_scalar(gh a, double s, gh *out) {
  return glia_add_scalar(GS_T(a), glia_scalar_float(s), 1.0, GS_OUT_T(out));
}
static inline glia_error *gs_mul_scalar(gh a, double s, gh *out) {
  return glia_mul_scalar(GS_T(a), glia_scalar_float(s), GS_OUT_T(out));
}
static inline glia_error *gs_div_scalar(gh a, double s, gh *out) {
  return glia_div_scalar(GS_T(a), glia_scalar_float(s), NULL, GS_OUT_T(out));
}
static inline glia_error *gs_pow_scalar(gh a, double s, gh *out) {
  return glia_pow_scalar(GS_T(a), glia_scalar_float(s), GS_OUT_T(out));
}
static inline glia_error *gs_softmax(gh a, int64_t dim, gh *out) { return glia_softmax(GS_T(a), dim, GS_OUT_T(out)); }
static inline glia_error *gs_log_softmax(gh a, int64_t dim, gh *out) {
  return glia_log_softmax(GS_T(a), dim, GS_OUT_T(out));
}
typedef enum { GS_SUM, GS_MEAN, GS_AMAX, GS_AMIN } gs_reduce_kind;
static inline glia_error *gs_reduce(int kind, gh a, const int64_t *dims, int64_t n, int32_t keepdim, gh *out) {
  switch (kind) {
    case GS_SUM:
      return glia_sum(GS_T(a), dims, n, keepdim, GS_OUT_T(out));
    case GS_MEAN:
      return glia_mean(GS_T(a), dims, n, keepdim, GS_OUT_T(out));
    case GS_AMAX:
      return glia_amax(GS_T(a), dims, n, keepdim, GS_OUT_T(out));
    default:
      return glia_amin(GS_T(a), dims, n, keepdim, GS_OUT_T(out));
  }
}
static inline glia_error *gs_argmax(gh a, int64_t dim, int32_t has_dim, int32_t keepdim, gh *out) {
  return glia_argmax(GS_T(a), has_dim ? &dim : NULL, keepdim, GS_OUT_T(out));
}
static inline glia_error *gs_reshape(gh a, const int64_t *shape, int64_t n, gh *out) {
  return glia_reshape(GS_T(a), shape, n, GS_OUT_T(out));
}
static inline glia_error *gs_view(gh a, const int64_t *shape, int64_t n, gh *out) {
  return glia_view(GS_T(a), shape, n, GS_OUT_T(out));
}
static inline glia_error *gs_permute(gh a, const int64_t *dims, int64_t n, gh *out) {
  return glia_permute(GS_T(a), dims, n, GS_OUT_T(out));
}
static inline glia_error *gs_transpose(gh a, int64_t d0, int64_t d1, gh *out) {
  return glia_transpose(GS_T(a), d0, d1, GS_OUT_T(out));
}
static inline glia_error *gs_flatten(gh a, int64_t s, int64_t e, gh *out) {
  return glia_flatten(GS_T(a), s, e, GS_OUT_T(out));
}
static inline glia_error *gs_unsqueeze(gh a, int64_t d, gh *out) { return glia_unsqueeze(GS_T(a), d, GS_OUT_T(out)); }
static inline glia_error *gs_squeeze(gh a, const int64_t *dims, int64_t n, gh *out) {
  return glia_squeeze(GS_T(a), dims, n, GS_OUT_T(out));
}
static inline glia_error *gs_select(gh a, int64_t dim, int64_t i, gh *out) {
  return glia_select(GS_T(a), dim, i, GS_OUT_T(out));
}
static inline glia_error *gs_narrow(gh a, int64_t dim, int64_t start, int64_t len, gh *out) {
  return glia_narrow(GS_T(a), dim, start, len, GS_OUT_T(out));
}
static inline glia_error *gs_cat(const gh *ts, int64_t n, int64_t dim, int32_t stack, gh *out) {
  const glia_tensor *const *arr = (const glia_tensor *const *)ts;
  return stack ? glia_stack(arr, n, dim, GS_OUT_T(out)) : glia_cat(arr, n, dim, GS_OUT_T(out));
}
static inline glia_error *gs_clone(gh a, gh *out) { return glia_tensor_clone(GS_T(a), GS_OUT_T(out)); }
static inline glia_error *gs_detach(gh a, gh *out) { return glia_tensor_detach(GS_T(a), GS_OUT_T(out)); }
static inline glia_error *gs_contiguous(gh a, gh *out) { return glia_tensor_contiguous(GS_T(a), GS_OUT_T(out)); }
static inline glia_error *gs_linear(gh x, gh w, gh b, gh *out) {
  return glia_linear(GS_T(x), GS_T(w), GS_T(b), GS_OUT_T(out));
}
static inline glia_error *gs_mse_loss(gh a, gh b, int red, gh *out) {
  return glia_mse_loss(GS_T(a), GS_T(b), (glia_reduction)red, GS_OUT_T(out));
}
static inline glia_error *gs_cross_entropy(gh a, gh b, gh *out) {
  return glia_cross_entropy(GS_T(a), GS_T(b), NULL, GS_OUT_T(out));
}
/* in place */
static inline glia_error *gs_add_(gh a, gh b, double alpha) { return glia_add_(GS_T(a), GS_T(b), alpha); }
static inline glia_error *gs_mul_scalar_(gh a, double s) { return glia_mul_scalar_(GS_T(a), glia_scalar_float(s)); }
static inline glia_error *gs_zero_(gh a) { return glia_zero_(GS_T(a)); }
static inline glia_error *gs_fill_(gh a, double v) { return glia_fill_(GS_T(a), glia_scalar_float(v)); }
static inline glia_error *gs_copy_(gh a, gh src) { return glia_copy_(GS_T(a), GS_T(src)); }

/* ---- modules ---- */
static inline glia_error *gs_module_forward(gh m, const gh *in, int64_t n, gh *out, int64_t cap, int64_t *n_out) {
  return glia_module_forward(GS_M(m), (const glia_tensor *const *)in, n, GS_OUT_T(out), cap, n_out);
}
static inline glia_error *gs_module_register_parameter(gh m, const char *name, gh t) {
  return glia_module_register_parameter(GS_M(m), name, GS_T(t));
}
static inline glia_error *gs_module_register_buffer(gh m, const char *name, gh t, int32_t persistent) {
  return glia_module_register_buffer(GS_M(m), name, GS_T(t), persistent);
}
static inline glia_error *gs_module_add_module(gh m, const char *name, gh child) {
  return glia_module_add_module(GS_M(m), name, GS_M(child));
}
static inline glia_error *gs_module_get_parameter(gh m, const char *path, gh *out) {
  return glia_module_get_parameter(GS_M(m), path, GS_OUT_T(out));
}
static inline glia_error *gs_module_get_submodule(gh m, const char *path, gh *out) {
  return glia_module_get_submodule(GS_M(m), path, GS_OUT_M(out));
}
static inline glia_error *gs_module_named_parameters(gh m, gh *out) {
  return glia_module_named_parameters(GS_M(m), NULL, 1, 1, (glia_tensor_dict **)out);
}
static inline glia_error *gs_module_train(gh m, int32_t mode) { return glia_module_train(GS_M(m), mode); }
static inline glia_error *gs_module_is_training(gh m, int32_t *out) { return glia_module_is_training(GS_M(m), out); }
static inline glia_error *gs_module_zero_grad(gh m) { return glia_module_zero_grad(GS_M(m), 1); }
static inline glia_error *gs_module_to_string(gh m, char *buf, size_t cap, size_t *len) {
  return glia_module_to_string(GS_M(m), buf, cap, len);
}
static inline glia_error *gs_module_type_name(gh m, char *buf, size_t cap, size_t *len) {
  return glia_module_type_name(GS_M(m), buf, cap, len);
}
static inline glia_error *gs_module_state_dict(gh m, gh *out) {
  return glia_module_state_dict(GS_M(m), (glia_tensor_dict **)out);
}
static inline glia_error *gs_module_load_state_dict(gh m, gh d, int32_t strict) {
  return glia_module_load_state_dict(GS_M(m), GS_D(d), strict, 0, NULL);
}
static inline glia_error *gs_module_save(gh m, const char *path) { return glia_module_save(GS_M(m), path); }
static inline glia_error *gs_module_load(gh m, const char *path, int32_t strict) {
  return glia_module_load(GS_M(m), path, strict, NULL);
}
static inline glia_error *gs_module_remove_hook(gh m, uint64_t id) { return glia_module_remove_hook(GS_M(m), id); }

/* ---- built-in layers ---- */
static inline glia_error *gs_nn_linear(int64_t in, int64_t out_f, int32_t bias, gh *out) {
  return glia_nn_linear(in, out_f, bias, NULL, GS_OUT_M(out));
}
static inline glia_error *gs_nn_conv2d(int64_t in, int64_t out_c, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                                       int64_t ph, int64_t pw, int32_t bias, gh *out) {
  glia_nn_conv2d_options o;
  glia_nn_conv2d_options_init(&o);
  o.stride[0] = sh;
  o.stride[1] = sw;
  o.padding[0] = ph;
  o.padding[1] = pw;
  o.bias = bias;
  return glia_nn_conv2d(in, out_c, kh, kw, &o, NULL, GS_OUT_M(out));
}
static inline glia_error *gs_nn_max_pool2d(int64_t kh, int64_t kw, int64_t sh, int64_t sw, gh *out) {
  glia_max_pool2d_options o;
  glia_max_pool2d_options_init(&o);
  o.kernel_size[0] = kh;
  o.kernel_size[1] = kw;
  o.stride[0] = sh;
  o.stride[1] = sw;
  return glia_nn_max_pool2d(&o, NULL, GS_OUT_M(out));
}
typedef enum { GS_NN_RELU, GS_NN_SIGMOID, GS_NN_TANH, GS_NN_IDENTITY, GS_NN_CE, GS_NN_MSE } gs_nn_kind;
static inline glia_error *gs_nn_simple(int kind, gh *out) {
  switch (kind) {
    case GS_NN_RELU:
      return glia_nn_relu(NULL, GS_OUT_M(out));
    case GS_NN_SIGMOID:
      return glia_nn_sigmoid(NULL, GS_OUT_M(out));
    case GS_NN_TANH:
      return glia_nn_tanh(NULL, GS_OUT_M(out));
    case GS_NN_IDENTITY:
      return glia_nn_identity(NULL, GS_OUT_M(out));
    case GS_NN_CE:
      return glia_nn_cross_entropy_loss(NULL, NULL, GS_OUT_M(out));
    default:
      return glia_nn_mse_loss(GLIA_REDUCTION_MEAN, NULL, GS_OUT_M(out));
  }
}
static inline glia_error *gs_nn_flatten(int64_t s, int64_t e, gh *out) {
  return glia_nn_flatten(s, e, NULL, GS_OUT_M(out));
}
static inline glia_error *gs_nn_dropout(double p, gh *out) { return glia_nn_dropout(p, NULL, GS_OUT_M(out)); }
static inline glia_error *gs_nn_log_softmax(int64_t dim, gh *out) {
  return glia_nn_log_softmax(dim, NULL, GS_OUT_M(out));
}
static inline glia_error *gs_nn_sequential(const gh *mods, int64_t n, gh *out) {
  return glia_nn_sequential((glia_module *const *)mods, n, GS_OUT_M(out));
}
static inline glia_error *gs_nn_sequential_append(gh seq, gh m) {
  return glia_nn_sequential_append(GS_M(seq), GS_M(m));
}

/* ---- optimizers ---- */
static inline glia_error *gs_optim_sgd(const gh *params, int64_t n, double lr, double momentum, double dampening,
                                       double weight_decay, int32_t nesterov, gh *out) {
  glia_sgd_options o;
  glia_sgd_options_init(&o);
  o.lr = lr;
  o.momentum = momentum;
  o.dampening = dampening;
  o.weight_decay = weight_decay;
  o.nesterov = nesterov;
  return glia_optim_sgd((glia_tensor *const *)params, n, &o, (glia_optimizer **)out);
}
static inline glia_error *gs_optim_adam(const gh *params, int64_t n, int32_t adamw, double lr, double b1, double b2,
                                        double eps, double weight_decay, gh *out) {
  glia_adam_options o;
  glia_adam_options_init(&o);
  o.lr = lr;
  o.betas[0] = b1;
  o.betas[1] = b2;
  o.eps = eps;
  o.weight_decay = weight_decay;
  return adamw ? glia_optim_adamw((glia_tensor *const *)params, n, &o, (glia_optimizer **)out)
               : glia_optim_adam((glia_tensor *const *)params, n, &o, (glia_optimizer **)out);
}
static inline glia_error *gs_optimizer_step(gh o) { return glia_optimizer_step(GS_O(o)); }
static inline glia_error *gs_optimizer_zero_grad(gh o) { return glia_optimizer_zero_grad(GS_O(o), 1); }
static inline glia_error *gs_optimizer_get_lr(gh o, double *out) { return glia_optimizer_get_lr(GS_O(o), 0, out); }
static inline glia_error *gs_optimizer_set_lr(gh o, double lr) { return glia_optimizer_set_lr(GS_O(o), 0, lr); }

/* ---- tensor dicts ---- */
static inline glia_error *gs_dict_create(gh *out) { return glia_tensor_dict_create((glia_tensor_dict **)out); }
static inline glia_error *gs_dict_size(gh d, int64_t *out) { return glia_tensor_dict_size(GS_D(d), out); }
static inline glia_error *gs_dict_key_at(gh d, int64_t i, char *buf, size_t cap, size_t *len) {
  return glia_tensor_dict_key_at(GS_D(d), i, buf, cap, len);
}
static inline glia_error *gs_dict_value_at(gh d, int64_t i, gh *out) {
  return glia_tensor_dict_value_at(GS_D(d), i, GS_OUT_T(out));
}
static inline glia_error *gs_dict_get(gh d, const char *key, gh *out) {
  return glia_tensor_dict_get(GS_D(d), key, GS_OUT_T(out));
}
static inline glia_error *gs_dict_set(gh d, const char *key, gh t) {
  return glia_tensor_dict_set(GS_D(d), key, GS_T(t));
}
static inline glia_error *gs_dict_save(gh d, const char *path, int format) {
  return glia_tensor_dict_save(GS_D(d), path, (glia_format)format);
}
static inline glia_error *gs_dict_load(const char *path, int format, gh *out) {
  return glia_tensor_dict_load(path, (glia_format)format, (glia_tensor_dict **)out);
}

/* ---- callbacks (callbacks.c): user_data is a runtime/cgo.Handle ---- */
glia_error *gs_module_create(const char *type_name, uintptr_t handle, gh *out);
glia_error *gs_module_add_forward_hook(gh m, uintptr_t handle, uint64_t *out_id);
glia_error *gs_tensor_register_hook(gh t, uintptr_t handle, uint64_t *out_id);

#endif
