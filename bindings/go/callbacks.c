// C trampolines for Go callbacks. glia calls these with user_data = a runtime/cgo.Handle
// (a uintptr, never a Go pointer); they forward to the //export functions of callbacks.go with
// every handle as a uintptr_t (see shim.h for why).
#include "_cgo_export.h"
#include "shim.h"

static void gs_free_handle(void *user_data) { goFreeHandle((uintptr_t)user_data); }

static glia_error *gs_forward_tramp(void *user_data, glia_module *self, const glia_tensor *const *inputs,
                                    int64_t n_inputs, glia_tensor **outputs, int64_t capacity, int64_t *out_n_outputs) {
  return goModuleForward((uintptr_t)user_data, (uintptr_t)self, (uintptr_t *)inputs, n_inputs, (uintptr_t *)outputs,
                         capacity, out_n_outputs);
}

static glia_error *gs_forward_hook_tramp(void *user_data, glia_module *module, const glia_tensor *const *inputs,
                                         int64_t n_inputs, const glia_tensor *const *outputs, int64_t n_outputs,
                                         glia_tensor **replacement, int64_t capacity, int64_t *out_n_replacement) {
  return goForwardHook((uintptr_t)user_data, (uintptr_t)module, (uintptr_t *)inputs, n_inputs, (uintptr_t *)outputs,
                       n_outputs, (uintptr_t *)replacement, capacity, out_n_replacement);
}

static glia_error *gs_tensor_hook_tramp(void *user_data, const glia_tensor *grad, glia_tensor **out_replacement) {
  return goTensorHook((uintptr_t)user_data, (uintptr_t)grad, (uintptr_t *)out_replacement);
}

glia_error *gs_module_create(const char *type_name, uintptr_t handle, gh *out) {
  glia_module_def def;
  glia_module_def_init(&def);
  def.forward = gs_forward_tramp;
  def.user_data = (void *)handle;
  def.free_user_data = gs_free_handle;
  return glia_module_create(type_name, &def, GS_OUT_M(out));
}

glia_error *gs_module_add_forward_hook(gh m, uintptr_t handle, uint64_t *out_id) {
  return glia_module_add_forward_hook(GS_M(m), gs_forward_hook_tramp, (void *)handle, gs_free_handle, 0, out_id);
}

glia_error *gs_tensor_register_hook(gh t, uintptr_t handle, uint64_t *out_id) {
  return glia_tensor_register_hook(GS_T(t), gs_tensor_hook_tramp, (void *)handle, gs_free_handle, out_id);
}

/* ---- DDP communication hooks (distributed.go) ---- */
#include "shim_dist.h"

static glia_error *gs_ddp_comm_hook_tramp(void *user_data, glia_tensor *bucket, int64_t bucket_index,
                                          int64_t bucket_count) {
  return goDDPCommHook((uintptr_t)user_data, (uintptr_t)bucket, bucket_index, bucket_count);
}

glia_error *gs_ddp_register_comm_hook(gh m, uintptr_t handle) {
  return glia_ddp_register_comm_hook(GS_M(m), gs_ddp_comm_hook_tramp, (void *)handle, gs_free_handle);
}
