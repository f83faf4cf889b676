/* The C API as a strict C99 compiler sees it (-std=c99 -pedantic -Werror): this file proves
 * that glia.h is C, and checks from C the rules of docs/c-api.md that a C caller observes:
 * ownership, error objects, misuse detection, struct_size options and callbacks. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign for the allocator hooks */

#include <glia/glia.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_passed;
static int g_failed;

static void check_(int ok, const char *what, int line) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    fprintf(stderr, "api_test.c:%d: FAILED: %s\n", line, what);
  }
}
#define CHECK(cond) check_((cond) != 0, #cond, __LINE__)

/* Records whether `e` is NULL (success); frees it. Returns 1 on success. */
static int ok_(glia_error *e, const char *what, int line) {
  if (!e) {
    ++g_passed;
    return 1;
  }
  ++g_failed;
  fprintf(stderr, "api_test.c:%d: FAILED: %s returned %s: %s\n", line, what, glia_error_code_name(glia_error_code(e)),
          glia_error_message(e));
  glia_error_free(e);
  return 0;
}
#define OK(call) ok_((call), #call, __LINE__)

/* Records whether `e` is an error with `code` and a non-empty message; frees it. */
static void err_(glia_error *e, enum glia_error_code code, const char *what, int line) {
  if (e && glia_error_code(e) == code && glia_error_message(e)[0] != '\0') {
    ++g_passed;
  } else {
    ++g_failed;
    fprintf(stderr, "api_test.c:%d: FAILED: %s: expected %s with a message, got %s \"%s\"\n", line, what,
            glia_error_code_name(code), glia_error_code_name(glia_error_code(e)), glia_error_message(e));
  }
  glia_error_free(e);
}
#define ERR(call, code) err_((call), (code), #call, __LINE__)

static const glia_device kCpu = {GLIA_CPU, 0};

static glia_tensor *from_floats(const float *values, size_t n, const int64_t *shape, int64_t ndim) {
  glia_tensor *t = NULL;
  OK(glia_tensor_from_data(values, n * sizeof(float), shape, ndim, GLIA_FLOAT32, &t));
  return t;
}

static void release(glia_tensor *t) { OK(glia_tensor_release(t)); }

/* Checks torch's repr of `t`, sizing the buffer with a first call of capacity 0. */
static void check_repr(const glia_tensor *t, const char *expected, int line) {
  size_t length = 0;
  char *buffer;
  if (!ok_(glia_tensor_to_string(t, NULL, 0, &length), "glia_tensor_to_string(t, NULL, 0, &length)", line)) return;
  buffer = malloc(length + 1);
  if (!buffer) return;
  if (ok_(glia_tensor_to_string(t, buffer, length + 1, &length), "glia_tensor_to_string", line)) {
    check_(strcmp(buffer, expected) == 0, "repr matches torch", line);
    if (strcmp(buffer, expected) != 0) fprintf(stderr, "  got:      %s\n  expected: %s\n", buffer, expected);
  }
  free(buffer);
}
#define CHECK_REPR(t, expected) check_repr((t), (expected), __LINE__)

static void test_version(void) {
  char expected[32];
  sprintf(expected, "%d.%d.%d", GLIA_VERSION_MAJOR, GLIA_VERSION_MINOR, GLIA_VERSION_PATCH);
  CHECK(glia_version() == GLIA_VERSION_NUMBER);
  CHECK(strcmp(glia_version_string(), expected) == 0);
}

static void test_errors(void) {
  glia_error *e = glia_error_new(GLIA_ERR_SHAPE, "bad shape");
  CHECK(glia_error_code(e) == GLIA_ERR_SHAPE);
  CHECK(strcmp(glia_error_message(e), "bad shape") == 0);
  glia_error_free(e);

  e = glia_error_new(GLIA_ERR_IO, NULL);
  CHECK(glia_error_code(e) == GLIA_ERR_IO);
  CHECK(strcmp(glia_error_message(e), "") == 0);
  glia_error_free(e);

  /* GLIA_OK and unknown codes are not errors: they become GLIA_ERR_INVALID_ARGUMENT. */
  ERR(glia_error_new(GLIA_OK, "fine"), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_error_new((enum glia_error_code)999, "?"), GLIA_ERR_INVALID_ARGUMENT);

  CHECK(glia_error_code(NULL) == GLIA_OK);
  CHECK(strcmp(glia_error_message(NULL), "") == 0);
  glia_error_free(NULL);
  CHECK(strcmp(glia_error_code_name(GLIA_OK), "GLIA_OK") == 0);
  CHECK(strcmp(glia_error_code_name(GLIA_ERR_INVALID_HANDLE), "GLIA_ERR_INVALID_HANDLE") == 0);
  CHECK(strcmp(glia_error_code_name(GLIA_ERR_INTERNAL), "GLIA_ERR_INTERNAL") == 0);
}

static void test_dtypes(void) {
  CHECK(glia_dtype_size(GLIA_FLOAT32) == 4);
  CHECK(glia_dtype_size(GLIA_FLOAT16) == 2);
  CHECK(glia_dtype_size(GLIA_BFLOAT16) == 2);
  CHECK(glia_dtype_size(GLIA_INT64) == 8);
  CHECK(glia_dtype_size(GLIA_BOOL) == 1);
  CHECK(glia_dtype_size(GLIA_INT8) == 1);
  CHECK(glia_dtype_size(GLIA_INT16) == 2);
  CHECK(glia_dtype_size((glia_dtype)10) == 0);
  CHECK(glia_dtype_size((glia_dtype)99) == 0);
  CHECK(strcmp(glia_dtype_name(GLIA_BFLOAT16), "bfloat16") == 0);
  CHECK(strcmp(glia_dtype_name(GLIA_UINT8), "uint8") == 0);
  CHECK(strcmp(glia_dtype_name(GLIA_INT8), "int8") == 0);
  CHECK(strcmp(glia_dtype_name(GLIA_INT16), "int16") == 0);
  CHECK(glia_dtype_name((glia_dtype)99) == NULL);
}

static void test_factories(void) {
  const int64_t shape[] = {2, 3};
  int64_t dims[2] = {0, 0};
  int64_t n = 0;
  int32_t contiguous = 0;
  glia_dtype dtype;
  glia_device device = {GLIA_CUDA, 7};
  glia_tensor_options opts;
  glia_tensor *t = NULL;
  float f[6];
  int32_t i32[4];
  double f64[2];
  int64_t i64[5];
  int k;

  glia_tensor_options_init(&opts);
  CHECK(opts.struct_size == sizeof opts);
  CHECK(opts.dtype == GLIA_FLOAT32);
  CHECK(opts.device.type == GLIA_CPU && opts.device.index == 0);

  if (OK(glia_tensor_zeros(shape, 2, NULL, &t))) {
    OK(glia_tensor_ndim(t, &n));
    CHECK(n == 2);
    OK(glia_tensor_shape(t, 2, dims));
    CHECK(dims[0] == 2 && dims[1] == 3);
    OK(glia_tensor_strides(t, 2, dims));
    CHECK(dims[0] == 3 && dims[1] == 1);
    OK(glia_tensor_numel(t, &n));
    CHECK(n == 6);
    OK(glia_tensor_storage_offset(t, &n));
    CHECK(n == 0);
    OK(glia_tensor_dtype(t, &dtype));
    CHECK(dtype == GLIA_FLOAT32);
    OK(glia_tensor_device(t, &device));
    CHECK(device.type == GLIA_CPU && device.index == 0);
    OK(glia_tensor_is_contiguous(t, &contiguous));
    CHECK(contiguous == 1);
    memset(f, 0xff, sizeof f);
    OK(glia_tensor_copy_to_host(t, f, sizeof f));
    CHECK(f[0] == 0.0f && f[5] == 0.0f);
    /* Too small a capacity writes nothing. */
    dims[0] = -1;
    ERR(glia_tensor_shape(t, 1, dims), GLIA_ERR_INVALID_ARGUMENT);
    CHECK(dims[0] == -1);
    release(t);
  }

  opts.dtype = GLIA_INT32;
  if (OK(glia_tensor_ones((const int64_t[]){2, 2}, 2, &opts, &t))) {
    OK(glia_tensor_copy_to_host(t, i32, sizeof i32));
    CHECK(i32[0] == 1 && i32[3] == 1);
    CHECK_REPR(t, "tensor([[1, 1],\n        [1, 1]], dtype=torch.int32)");
    release(t);
  }

  opts.dtype = GLIA_FLOAT64;
  if (OK(glia_tensor_full((const int64_t[]){2}, 1, 2.5, &opts, &t))) {
    OK(glia_tensor_copy_to_host(t, f64, sizeof f64));
    CHECK(f64[0] == 2.5 && f64[1] == 2.5);
    CHECK_REPR(t, "tensor([2.5000, 2.5000], dtype=torch.float64)");
    release(t);
  }

  if (OK(glia_tensor_empty(shape, 2, NULL, &t))) {
    OK(glia_tensor_numel(t, &n));
    CHECK(n == 6);
    release(t);
  }

  /* A scalar: ndim 0, shape may be NULL. */
  if (OK(glia_tensor_zeros(NULL, 0, NULL, &t))) {
    double v = -1.0;
    OK(glia_tensor_ndim(t, &n));
    CHECK(n == 0);
    OK(glia_tensor_numel(t, &n));
    CHECK(n == 1);
    OK(glia_tensor_item_double(t, &v));
    CHECK(v == 0.0);
    CHECK_REPR(t, "tensor(0.)");
    release(t);
  }

  /* arange with NULL options: int64 for whole numbers, else float32 (torch's rule). */
  if (OK(glia_tensor_arange(0, 5, 1, NULL, &t))) {
    OK(glia_tensor_dtype(t, &dtype));
    CHECK(dtype == GLIA_INT64);
    OK(glia_tensor_copy_to_host(t, i64, sizeof i64));
    for (k = 0; k < 5; ++k) CHECK(i64[k] == k);
    release(t);
  }
  if (OK(glia_tensor_arange(0, 1, 0.25, NULL, &t))) {
    OK(glia_tensor_dtype(t, &dtype));
    CHECK(dtype == GLIA_FLOAT32);
    CHECK_REPR(t, "tensor([0.0000, 0.2500, 0.5000, 0.7500])");
    release(t);
  }
  ERR(glia_tensor_arange(0, 1, 0, NULL, &t), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_tensor_arange(0, 5, -1, NULL, &t), GLIA_ERR_INVALID_ARGUMENT);

  if (OK(glia_tensor_rand((const int64_t[]){1000}, 1, NULL, &t))) {
    float r[1000];
    int in_range = 1;
    OK(glia_tensor_copy_to_host(t, r, sizeof r));
    for (k = 0; k < 1000; ++k) in_range &= r[k] >= 0.0f && r[k] < 1.0f;
    CHECK(in_range);
    release(t);
  }
  opts.dtype = GLIA_INT64;
  ERR(glia_tensor_rand(shape, 2, &opts, &t), GLIA_ERR_DTYPE);

  /* The same seed gives the same sequence on this thread. */
  {
    float a[6], b[6];
    glia_manual_seed(42);
    if (OK(glia_tensor_randn(shape, 2, NULL, &t))) {
      OK(glia_tensor_copy_to_host(t, a, sizeof a));
      release(t);
    }
    glia_manual_seed(42);
    if (OK(glia_tensor_randn(shape, 2, NULL, &t))) {
      OK(glia_tensor_copy_to_host(t, b, sizeof b));
      release(t);
    }
    CHECK(memcmp(a, b, sizeof a) == 0);
  }

  /* Bad arguments; `out` stays untouched. */
  t = (glia_tensor *)&opts;
  ERR(glia_tensor_zeros((const int64_t[]){2, -1}, 2, NULL, &t), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_tensor_zeros(shape, 65, NULL, &t), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_tensor_zeros(shape, -1, NULL, &t), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_tensor_zeros(NULL, 2, NULL, &t), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_tensor_zeros((const int64_t[]){INT64_MAX / 2, 4}, 2, NULL, &t), GLIA_ERR_SHAPE);
  ERR(glia_tensor_zeros(shape, 2, NULL, NULL), GLIA_ERR_INVALID_ARGUMENT);
  opts.dtype = (glia_dtype)99;
  ERR(glia_tensor_zeros(shape, 2, &opts, &t), GLIA_ERR_DTYPE);
  glia_tensor_options_init(&opts);
  opts.struct_size = 1;
  ERR(glia_tensor_zeros(shape, 2, &opts, &t), GLIA_ERR_INVALID_ARGUMENT);
  CHECK(t == (glia_tensor *)&opts);
}

static void test_from_data_round_trip(void) {
  const float values[] = {1.0f, -2.5f, 3.25f, 4e-3f, 5e6f, -0.0f};
  const int64_t shape[] = {2, 3};
  float back[6];
  glia_tensor *t = NULL;
  void *data = NULL;
  double item = 0.0;

  if (!OK(glia_tensor_from_data(values, sizeof values, shape, 2, GLIA_FLOAT32, &t))) return;
  OK(glia_tensor_copy_to_host(t, back, sizeof back));
  CHECK(memcmp(values, back, sizeof values) == 0);
  /* The data is a copy: writing through glia_tensor_data changes the tensor, not `values`. */
  OK(glia_tensor_data(t, &data));
  ((float *)data)[0] = 42.0f;
  OK(glia_tensor_copy_to_host(t, back, sizeof back));
  CHECK(back[0] == 42.0f && values[0] == 1.0f);

  ERR(glia_tensor_copy_to_host(t, back, sizeof back - 1), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_tensor_item_double(t, &item), GLIA_ERR_SHAPE);
  ERR(glia_tensor_from_data(values, sizeof values - 4, shape, 2, GLIA_FLOAT32, &t), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_tensor_from_data(NULL, sizeof values, shape, 2, GLIA_FLOAT32, &t), GLIA_ERR_INVALID_ARGUMENT);
  release(t);

  {
    const int64_t one[] = {1};
    const int64_t v = -7;
    int64_t got = 0;
    if (OK(glia_tensor_from_data(&v, sizeof v, one, 1, GLIA_INT64, &t))) {
      OK(glia_tensor_item_int64(t, &got));
      CHECK(got == -7);
      OK(glia_tensor_item_double(t, &item));
      CHECK(item == -7.0);
      release(t);
    }
  }
}

static void test_to(void) {
  const float values[] = {1.0f, 2.5f, -3.0f, 0.1f};
  const float truncated[] = {2.7f, -2.7f, 0.0f};
  const int64_t four[] = {4}, three[] = {3};
  glia_tensor *t = from_floats(values, 4, four, 1);
  glia_tensor *u = NULL;
  int16_t bits[4];
  int64_t i64[3];
  uint8_t flags[3];
  glia_dtype dtype;

  if (!t) return;
  /* Same device and dtype: a new reference to the same handle. */
  if (OK(glia_tensor_to(t, &kCpu, &(glia_dtype){GLIA_FLOAT32}, &u))) {
    CHECK(u == t);
    release(u);
  }
  if (OK(glia_tensor_to(t, &kCpu, &(glia_dtype){GLIA_FLOAT16}, &u))) {
    OK(glia_tensor_dtype(u, &dtype));
    CHECK(dtype == GLIA_FLOAT16);
    OK(glia_tensor_copy_to_host(u, bits, sizeof bits));
    CHECK(bits[0] == 15360 && bits[1] == 16640 && bits[2] == -15872 && bits[3] == 11878);
    CHECK_REPR(u, "tensor([ 1.0000,  2.5000, -3.0000,  0.1000], dtype=torch.float16)");
    release(u);
  }
  if (OK(glia_tensor_to(t, &kCpu, &(glia_dtype){GLIA_BFLOAT16}, &u))) {
    OK(glia_tensor_copy_to_host(u, bits, sizeof bits));
    CHECK(bits[0] == 16256 && bits[1] == 16416 && bits[2] == -16320 && bits[3] == 15821);
    release(u);
  }
  ERR(glia_tensor_to(t, &kCpu, &(glia_dtype){(glia_dtype)99}, &u), GLIA_ERR_DTYPE);
  release(t);

  t = from_floats(truncated, 3, three, 1);
  if (!t) return;
  if (OK(glia_tensor_to(t, &kCpu, &(glia_dtype){GLIA_INT64}, &u))) {
    OK(glia_tensor_copy_to_host(u, i64, sizeof i64));
    CHECK(i64[0] == 2 && i64[1] == -2 && i64[2] == 0);
    CHECK_REPR(u, "tensor([ 2, -2,  0])");
    release(u);
  }
  if (OK(glia_tensor_to(t, &kCpu, &(glia_dtype){GLIA_BOOL}, &u))) {
    OK(glia_tensor_copy_to_host(u, flags, sizeof flags));
    CHECK(flags[0] == 1 && flags[1] == 1 && flags[2] == 0);
    CHECK_REPR(u, "tensor([ True,  True, False])");
    release(u);
  }
  release(t);
}

static int g_deleter_calls;
static void count_deleter(void *context, void *data) {
  (void)data;
  ++*(int *)context;
}

/* from_blob views caller memory; strides make a transposed view that contiguous() copies. */
static void test_views(void) {
  float blob[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  const int64_t shape[] = {2, 2}, transposed[] = {1, 2};
  glia_tensor *t = NULL, *v = NULL;
  void *data = NULL;
  int32_t contiguous = 1;
  float back[4];

  g_deleter_calls = 0;
  if (OK(glia_tensor_from_blob(blob, shape, transposed, 2, GLIA_FLOAT32, kCpu, count_deleter, &g_deleter_calls, &t))) {
    OK(glia_tensor_data(t, &data));
    CHECK(data == (void *)blob);
    OK(glia_tensor_is_contiguous(t, &contiguous));
    CHECK(contiguous == 0);
    CHECK_REPR(t, "tensor([[1., 3.],\n        [2., 4.]])");
    if (OK(glia_tensor_contiguous(t, &v))) {
      OK(glia_tensor_data(v, &data));
      CHECK(data != (void *)blob);
      OK(glia_tensor_copy_to_host(v, back, sizeof back));
      CHECK(back[0] == 1.0f && back[1] == 3.0f && back[2] == 2.0f && back[3] == 4.0f);
      release(v);
    }
    /* detach shares the blob; clone does not. */
    if (OK(glia_tensor_detach(t, &v))) {
      OK(glia_tensor_data(v, &data));
      CHECK(data == (void *)blob);
      release(t);
      CHECK(g_deleter_calls == 0); /* the view keeps the blob */
      t = v;
    }
    if (OK(glia_tensor_clone(t, &v))) {
      blob[0] = 9.0f;
      OK(glia_tensor_copy_to_host(v, back, sizeof back));
      CHECK(back[0] == 1.0f);
      release(v);
    }
    release(t);
    CHECK(g_deleter_calls == 1);
  }

  /* A failing from_blob calls the deleter before it returns. */
  g_deleter_calls = 0;
  ERR(glia_tensor_from_blob(NULL, shape, NULL, 2, GLIA_FLOAT32, kCpu, count_deleter, &g_deleter_calls, &t),
      GLIA_ERR_INVALID_ARGUMENT);
  CHECK(g_deleter_calls == 1);
}

static void test_to_string(void) {
  const float values[] = {1.0f, 2.0f, 3.0f, 4.0f};
  const int64_t shape[] = {2, 2};
  const char *expected = "tensor([[1., 2.],\n        [3., 4.]])";
  glia_tensor *t = from_floats(values, 4, shape, 2);
  char small[8];
  size_t length = 0;

  if (!t) return;
  CHECK_REPR(t, expected);
  /* snprintf style: a short buffer gets a NUL-terminated prefix and the full length. */
  OK(glia_tensor_to_string(t, small, sizeof small, &length));
  CHECK(length == strlen(expected));
  CHECK(strcmp(small, "tensor(") == 0);
  ERR(glia_tensor_to_string(t, NULL, 10, &length), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_tensor_to_string(t, small, sizeof small, NULL), GLIA_ERR_INVALID_ARGUMENT);
  release(t);
}

/* NULL, released, double-released and foreign handles are GLIA_ERR_INVALID_HANDLE, never a crash. */
static void test_misuse(void) {
  const int64_t shape[] = {3};
  glia_tensor *t = NULL, *out = NULL;
  glia_error *foreign_object = glia_error_new(GLIA_ERR_IO, "not a tensor");
  glia_tensor *foreign[2];
  int64_t n = -7;
  size_t length = 0;
  char buffer[16];
  int k;

  foreign[0] = (glia_tensor *)(void *)foreign_object;
  foreign[1] = (glia_tensor *)(uintptr_t)0x1234;

  CHECK(glia_tensor_release(NULL) == NULL);
  ERR(glia_tensor_retain(NULL), GLIA_ERR_INVALID_HANDLE);
  ERR(glia_tensor_numel(NULL, &n), GLIA_ERR_INVALID_HANDLE);
  ERR(glia_tensor_to_string(NULL, buffer, sizeof buffer, &length), GLIA_ERR_INVALID_HANDLE);
  ERR(glia_tensor_clone(NULL, &out), GLIA_ERR_INVALID_HANDLE);
  CHECK(n == -7 && out == NULL);

  for (k = 0; k < 2; ++k) {
    ERR(glia_tensor_numel(foreign[k], &n), GLIA_ERR_INVALID_HANDLE);
    ERR(glia_tensor_retain(foreign[k]), GLIA_ERR_INVALID_HANDLE);
    ERR(glia_tensor_release(foreign[k]), GLIA_ERR_INVALID_HANDLE);
    ERR(glia_tensor_to(foreign[k], &kCpu, &(glia_dtype){GLIA_FLOAT32}, &out), GLIA_ERR_INVALID_HANDLE);
  }
  CHECK(n == -7 && out == NULL);
  glia_error_free(foreign_object);

  /* Each retain needs its own release; the last one ends the handle. */
  if (OK(glia_tensor_zeros(shape, 1, NULL, &t))) {
    OK(glia_tensor_retain(t));
    release(t);
    OK(glia_tensor_numel(t, &n));
    CHECK(n == 3);
    release(t);
    n = -7;
    ERR(glia_tensor_numel(t, &n), GLIA_ERR_INVALID_HANDLE);
    ERR(glia_tensor_to_string(t, buffer, sizeof buffer, &length), GLIA_ERR_INVALID_HANDLE);
    ERR(glia_tensor_retain(t), GLIA_ERR_INVALID_HANDLE);
    ERR(glia_tensor_release(t), GLIA_ERR_INVALID_HANDLE);
    ERR(glia_tensor_release(t), GLIA_ERR_INVALID_HANDLE);
    CHECK(n == -7);
  }
}

/* Allocator hooks: every block comes from the host and goes back to it, then free_user_data runs once. */
struct counting_allocator {
  int allocs, frees, bad_alignment, user_data_freed;
};

static void *host_alloc(void *user_data, size_t size, size_t alignment) {
  struct counting_allocator *a = user_data;
  void *p = NULL;
  if (alignment < 64 || (alignment & (alignment - 1)) != 0) ++a->bad_alignment;
  if (posix_memalign(&p, alignment, size ? size : 1) != 0) return NULL;
  ++a->allocs;
  return p;
}

static void host_free(void *user_data, void *ptr, size_t size) {
  (void)size;
  ++((struct counting_allocator *)user_data)->frees;
  free(ptr);
}

static void host_free_user_data(void *user_data) { ++((struct counting_allocator *)user_data)->user_data_freed; }

static void test_allocator(void) {
  struct counting_allocator counts = {0, 0, 0, 0};
  glia_allocator allocator;
  glia_memory_stats stats;
  glia_tensor *t = NULL;
  const int64_t shape[] = {1024};

  glia_allocator_init(&allocator);
  CHECK(allocator.struct_size == sizeof allocator && allocator.alloc == NULL);
  allocator.user_data = &counts;
  allocator.free_user_data = host_free_user_data;
  /* Without alloc/free the call fails, and still ends the registration. */
  ERR(glia_set_allocator(&allocator), GLIA_ERR_INVALID_ARGUMENT);
  CHECK(counts.user_data_freed == 1);

  counts.user_data_freed = 0;
  allocator.alloc = host_alloc;
  allocator.free = host_free;
  if (!OK(glia_set_allocator(&allocator))) return;
  if (OK(glia_tensor_ones(shape, 1, NULL, &t))) {
    CHECK(counts.allocs >= 1);
    stats.struct_size = sizeof stats;
    OK(glia_memory_stats_get(&stats));
    CHECK(stats.bytes_in_use >= 1024 * sizeof(float));
    CHECK(stats.allocations >= 1);
    release(t);
  }
  OK(glia_set_allocator(NULL));
  CHECK(counts.bad_alignment == 0);
  CHECK(counts.frees == counts.allocs);
  CHECK(counts.user_data_freed == 1);

  stats.struct_size = 1;
  ERR(glia_memory_stats_get(&stats), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_memory_stats_get(NULL), GLIA_ERR_INVALID_ARGUMENT);
}

/* A host job system that runs tasks inline. */
static glia_error *serial_parallel_for(void *user_data, int64_t n_tasks, glia_parallel_task_fn task,
                                       void *task_context) {
  int64_t i;
  (void)user_data;
  for (i = 0; i < n_tasks; ++i) task(task_context, i);
  return NULL;
}

static void count_free(void *user_data) { ++*(int *)user_data; }

static void ignore_log(void *user_data, enum glia_log_level level, const char *message) {
  (void)user_data;
  (void)level;
  (void)message;
}

static void test_runtime(void) {
  int job_system_frees = 0, log_frees = 0;
  int32_t before = glia_get_num_threads();
  glia_tensor *t = NULL;

  CHECK(before >= 1);
  ERR(glia_set_num_threads(0), GLIA_ERR_INVALID_ARGUMENT);
  ERR(glia_set_num_threads(1025), GLIA_ERR_INVALID_ARGUMENT);
  CHECK(glia_get_num_threads() == before);
  if (OK(glia_set_num_threads(2))) CHECK(glia_get_num_threads() == 2);

  /* free_user_data runs exactly once: when the registration is replaced, and at glia_shutdown. */
  OK(glia_set_parallel_for(serial_parallel_for, &job_system_frees, count_free));
  OK(glia_set_parallel_for(NULL, NULL, NULL));
  CHECK(job_system_frees == 1);
  OK(glia_set_parallel_for(serial_parallel_for, &job_system_frees, count_free));
  glia_shutdown();
  CHECK(job_system_frees == 2);

  /* A failing registration calls free_user_data right away. */
  ERR(glia_set_log_callback(ignore_log, (enum glia_log_level)42, &log_frees, count_free), GLIA_ERR_INVALID_ARGUMENT);
  CHECK(log_frees == 1);

  /* Handles outlive glia_shutdown; work after it starts the threads again. */
  if (OK(glia_tensor_ones((const int64_t[]){1 << 16}, 1, NULL, &t))) {
    glia_shutdown();
    CHECK_REPR(t, "tensor([1., 1., 1.,  ..., 1., 1., 1.])");
    release(t);
  }
  OK(glia_set_num_threads(before));
}

int main(void) {
  test_version();
  test_errors();
  test_dtypes();
  test_factories();
  test_from_data_round_trip();
  test_to();
  test_views();
  test_to_string();
  test_misuse();
  test_allocator();
  test_runtime();
  glia_shutdown();
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
