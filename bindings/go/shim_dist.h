/*
 * C shims of the distributed wrappers (distributed.go): stores, process groups, works and DDP,
 * with every handle as a uintptr_t (shim.h says why).
 */
#ifndef GLIA_GO_SHIM_DIST_H
#define GLIA_GO_SHIM_DIST_H

#include "shim.h"

#define GS_S(h) ((glia_store *)(h))
#define GS_G(h) ((glia_process_group *)(h))
#define GS_W(h) ((glia_work *)(h))

/* ---- lifetime ---- */
static inline glia_error *gs_store_release(gh s) { return glia_store_release(GS_S(s)); }
static inline glia_error *gs_process_group_release(gh g) { return glia_process_group_release(GS_G(g)); }
static inline glia_error *gs_work_release(gh w) { return glia_work_release(GS_W(w)); }

/* ---- stores ---- */
static inline glia_error *gs_store_file_create(const char *path, int64_t num_workers, gh *out) {
  return glia_store_file_create(path, num_workers, (glia_store **)out);
}
static inline glia_error *gs_store_tcp_create(const char *host, int32_t port, int32_t is_server, int64_t timeout_ms,
                                              gh *out) {
  return glia_store_tcp_create(host, port, is_server, timeout_ms, (glia_store **)out);
}
static inline glia_error *gs_store_redis_create(const char *host, int32_t port, int64_t timeout_ms, gh *out) {
  return glia_store_redis_create(host, port, timeout_ms, (glia_store **)out);
}
static inline glia_error *gs_store_prefix_create(const char *prefix, gh s, gh *out) {
  return glia_store_prefix_create(prefix, GS_S(s), (glia_store **)out);
}
static inline glia_error *gs_store_tcp_port(gh s, int32_t *out) { return glia_store_tcp_port(GS_S(s), out); }
static inline glia_error *gs_store_set(gh s, const char *key, const void *value, size_t n) {
  return glia_store_set(GS_S(s), key, value, n);
}
static inline glia_error *gs_store_get(gh s, const char *key, void *buf, size_t cap, size_t *len) {
  return glia_store_get(GS_S(s), key, buf, cap, len);
}
static inline glia_error *gs_store_add(gh s, const char *key, int64_t amount, int64_t *out) {
  return glia_store_add(GS_S(s), key, amount, out);
}
static inline glia_error *gs_store_compare_set(gh s, const char *key, const void *expected, size_t n_expected,
                                               const void *desired, size_t n_desired, void *buf, size_t cap,
                                               size_t *len) {
  return glia_store_compare_set(GS_S(s), key, expected, n_expected, desired, n_desired, buf, cap, len);
}
static inline glia_error *gs_store_wait(gh s, const char *const *keys, int64_t n, int64_t timeout_ms) {
  return glia_store_wait(GS_S(s), keys, n, timeout_ms);
}
static inline glia_error *gs_store_check(gh s, const char *const *keys, int64_t n, int32_t *out) {
  return glia_store_check(GS_S(s), keys, n, out);
}
static inline glia_error *gs_store_delete_key(gh s, const char *key, int32_t *out) {
  return glia_store_delete_key(GS_S(s), key, out);
}
static inline glia_error *gs_store_num_keys(gh s, int64_t *out) { return glia_store_num_keys(GS_S(s), out); }
static inline glia_error *gs_store_set_timeout(gh s, int64_t timeout_ms) {
  return glia_store_set_timeout(GS_S(s), timeout_ms);
}

/* ---- process groups ---- */
static inline glia_error *gs_process_group_create(gh s, int64_t rank, int64_t world_size, int32_t backend,
                                                  int64_t timeout_ms, const char *hostname, const char *iface,
                                                  const char *group_name, int32_t from_env, gh *out) {
  glia_process_group_options o;
  glia_process_group_options_init(&o);
  o.backend = backend;
  o.timeout_ms = timeout_ms;
  o.hostname = hostname;
  o.iface = iface;
  o.group_name = group_name;
  if (from_env) return glia_process_group_create_from_env(&o, (glia_process_group **)out);
  return glia_process_group_create(GS_S(s), rank, world_size, &o, (glia_process_group **)out);
}
static inline glia_error *gs_process_group_rank(gh g, int64_t *out) { return glia_process_group_rank(GS_G(g), out); }
static inline glia_error *gs_process_group_size(gh g, int64_t *out) { return glia_process_group_size(GS_G(g), out); }
/* The collectives: `out` NULL waits (async_op=False), else receives the work. */
static inline glia_error *gs_all_reduce(gh g, gh t, int op, gh *out) {
  return glia_process_group_all_reduce(GS_G(g), GS_T(t), (glia_reduce_op)op, (glia_work **)out);
}
static inline glia_error *gs_broadcast(gh g, gh t, int64_t root, gh *out) {
  return glia_process_group_broadcast(GS_G(g), GS_T(t), root, (glia_work **)out);
}
static inline glia_error *gs_reduce_to(gh g, gh t, int64_t root, int op, gh *out) {
  return glia_process_group_reduce(GS_G(g), GS_T(t), root, (glia_reduce_op)op, (glia_work **)out);
}
static inline glia_error *gs_all_gather(gh g, const gh *outputs, int64_t n, gh input, gh *out) {
  return glia_process_group_all_gather(GS_G(g), (glia_tensor *const *)outputs, n, GS_T(input), (glia_work **)out);
}
static inline glia_error *gs_reduce_scatter(gh g, gh output, const gh *inputs, int64_t n, int op, gh *out) {
  return glia_process_group_reduce_scatter(GS_G(g), GS_T(output), (glia_tensor *const *)inputs, n, (glia_reduce_op)op,
                                           (glia_work **)out);
}
static inline glia_error *gs_barrier(gh g, gh *out) { return glia_process_group_barrier(GS_G(g), (glia_work **)out); }
static inline glia_error *gs_work_wait(gh w, int64_t timeout_ms) { return glia_work_wait(GS_W(w), timeout_ms); }
static inline glia_error *gs_work_is_completed(gh w, int32_t *out) { return glia_work_is_completed(GS_W(w), out); }

/* ---- DistributedDataParallel, SyncBatchNorm ---- */
static inline glia_error *gs_ddp_create(gh m, gh g, double bucket_cap_mb, int32_t find_unused,
                                        int32_t broadcast_buffers, int32_t as_view, gh *out) {
  glia_ddp_options o;
  glia_ddp_options_init(&o);
  o.bucket_cap_mb = bucket_cap_mb;
  o.find_unused_parameters = find_unused;
  o.broadcast_buffers = broadcast_buffers;
  o.gradient_as_bucket_view = as_view;
  return glia_nn_distributed_data_parallel(GS_M(m), GS_G(g), &o, GS_OUT_M(out));
}
static inline glia_error *gs_ddp_set_require_backward_grad_sync(gh m, int32_t flag) {
  return glia_ddp_set_require_backward_grad_sync(GS_M(m), flag);
}
static inline glia_error *gs_ddp_require_backward_grad_sync(gh m, int32_t *out) {
  return glia_ddp_require_backward_grad_sync(GS_M(m), out);
}
static inline glia_error *gs_ddp_register_builtin_comm_hook(gh m, int hook) {
  return glia_ddp_register_builtin_comm_hook(GS_M(m), (glia_ddp_comm_hook)hook);
}
static inline glia_error *gs_ddp_bucket_parameters(gh m, int64_t index, int64_t *out_indices, int64_t cap,
                                                   int64_t *out_count, int64_t *out_buckets) {
  return glia_ddp_bucket_parameters(GS_M(m), index, out_indices, cap, out_count, out_buckets);
}
static inline glia_error *gs_nn_sync_batch_norm(int64_t num_features, const glia_batch_norm_options *o, gh g, gh *out) {
  return glia_nn_sync_batch_norm(num_features, o, GS_G(g), NULL, GS_OUT_M(out));
}
static inline glia_error *gs_nn_sync_batch_norm_set_process_group(gh m, gh g) {
  return glia_nn_sync_batch_norm_set_process_group(GS_M(m), GS_G(g));
}

/* ---- DataParallel: devices as (type, index) pairs ---- */
static inline glia_error *gs_nn_data_parallel(gh m, const int32_t *types, const int32_t *indices, int64_t n,
                                              int32_t has_output, int32_t output_type, int32_t output_index,
                                              int64_t dim, gh *out) {
  glia_device *ids = NULL;
  if (n > 0) {
    ids = (glia_device *)malloc((size_t)n * sizeof *ids);
    if (!ids) return glia_error_new(GLIA_ERR_OUT_OF_MEMORY, "glia (Go): DataParallel: out of memory");
    for (int64_t i = 0; i < n; ++i) {
      ids[i].type = (glia_device_type)types[i];
      ids[i].index = indices[i];
    }
  }
  glia_device output = {(glia_device_type)output_type, output_index};
  glia_error *e = glia_nn_data_parallel(GS_M(m), ids, n < 0 ? 0 : n, has_output ? &output : NULL, dim, GS_OUT_M(out));
  free(ids);
  return e;
}

/* callbacks.c: a Go comm hook (user_data is a runtime/cgo.Handle) */
glia_error *gs_ddp_register_comm_hook(gh m, uintptr_t handle);

#endif
