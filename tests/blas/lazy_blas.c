/* Note [Lazy OpenBLAS] (src/ops/cpu/linalg.cpp), through the C API in a fresh process:
 *   1. a small float32 matmul (glia's own kernels) does not map libopenblas;
 *   2. a float64 matmul and a float32 matmul above the own kernels' size limit give the right
 *      products, and OpenBLAS is mapped afterwards, unless GLIA_BLAS=none, where the fallback
 *      computes them and one warning is logged. Exit status 0 on success; each failure is named. */
#include <glia/glia.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int warnings = 0;
static char last_warning[512];

#define CHECK(cond, ...)                      \
  do {                                        \
    if (!(cond)) {                            \
      fprintf(stderr, "lazy_blas: FAILED: "); \
      fprintf(stderr, __VA_ARGS__);           \
      fputc('\n', stderr);                    \
      ++failures;                             \
    }                                         \
  } while (0)

static void ok(glia_error *e) {
  if (e) {
    fprintf(stderr, "lazy_blas: glia error: %s\n", glia_error_message(e));
    glia_error_free(e);
    exit(1);
  }
}

static void on_log(void *user_data, enum glia_log_level level, const char *message) {
  (void)user_data;
  if (level == GLIA_LOG_WARNING) {
    ++warnings;
    snprintf(last_warning, sizeof last_warning, "%s", message);
  }
}

static int openblas_mapped(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[4096];
  int found = 0;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "libopenblas")) found = 1;
  fclose(f);
  return found;
}

/* Deterministic values in [-1, 1). */
static double value(unsigned i) { return (double)((i * 2654435761u) >> 8 & 0xffff) / 32768.0 - 1.0; }

/* c = a @ b for [m, k] x [k, n] in the given dtype, compared with a float64 reference. */
static void check_matmul(int m, int k, int n, glia_dtype dtype, double tolerance) {
  const size_t es = dtype == GLIA_FLOAT64 ? 8 : 4;
  double *ad = malloc(sizeof(double) * (size_t)m * k), *bd = malloc(sizeof(double) * (size_t)k * n);
  void *ab = malloc(es * (size_t)m * k), *bb = malloc(es * (size_t)k * n), *cb = malloc(es * (size_t)m * n);
  for (int i = 0; i < m * k; ++i) {
    ad[i] = value((unsigned)i);
    if (dtype == GLIA_FLOAT64)
      ((double *)ab)[i] = ad[i];
    else
      ((float *)ab)[i] = (float)ad[i];
  }
  for (int i = 0; i < k * n; ++i) {
    bd[i] = value((unsigned)i + 7919u);
    if (dtype == GLIA_FLOAT64)
      ((double *)bb)[i] = bd[i];
    else
      ((float *)bb)[i] = (float)bd[i];
  }
  const int64_t sa[2] = {m, k}, sb[2] = {k, n};
  glia_tensor *a, *b, *c;
  ok(glia_tensor_from_data(ab, es * (size_t)m * k, sa, 2, dtype, &a));
  ok(glia_tensor_from_data(bb, es * (size_t)k * n, sb, 2, dtype, &b));
  ok(glia_matmul(a, b, &c));
  ok(glia_tensor_copy_to_host(c, cb, es * (size_t)m * n));
  double worst = 0;
  for (int i = 0; i < m; i += 7)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p) want += ad[(size_t)i * k + p] * bd[(size_t)p * n + j];
      double got = dtype == GLIA_FLOAT64 ? ((double *)cb)[(size_t)i * n + j] : ((float *)cb)[(size_t)i * n + j];
      double err = fabs(got - want);
      if (err > worst) worst = err;
    }
  CHECK(worst <= tolerance, "%dx%dx%d %s matmul: largest error %g, expected <= %g", m, k, n,
        dtype == GLIA_FLOAT64 ? "float64" : "float32", worst, tolerance);
  glia_tensor_release(a);
  glia_tensor_release(b);
  glia_tensor_release(c);
  free(ad), free(bd), free(ab), free(bb), free(cb);
}

int main(void) {
  const char *env = getenv("GLIA_BLAS");
  const int none = env && !strcmp(env, "none");
  ok(glia_set_log_callback(on_log, GLIA_LOG_WARNING, NULL, NULL));
  CHECK(openblas_mapped() == 0, "libopenblas is mapped before any GEMM (libglia must not link it)");
  check_matmul(8, 16, 8, GLIA_FLOAT32, 1e-4);
  CHECK(openblas_mapped() == 0, "a small float32 matmul mapped libopenblas");
  check_matmul(70, 90, 50, GLIA_FLOAT64, 1e-12);
  check_matmul(400, 300, 400, GLIA_FLOAT32, 1e-3); /* 48M multiply-adds: above the own kernels' 2^25 */
  if (none) {
    CHECK(openblas_mapped() == 0, "GLIA_BLAS=none, yet libopenblas is mapped");
    CHECK(warnings == 1, "GLIA_BLAS=none: expected one warning, got %d", warnings);
    CHECK(strstr(last_warning, "OpenBLAS not loaded (GLIA_BLAS=none)") != NULL, "unexpected warning text: %s",
          last_warning);
  } else {
    CHECK(openblas_mapped() == 1, "libopenblas is not mapped after float64 and large float32 GEMMs");
    CHECK(warnings == 0, "unexpected warning: %s", last_warning);
  }
  ok(glia_set_log_callback(NULL, GLIA_LOG_WARNING, NULL, NULL));
  glia_shutdown();
  if (failures) return 1;
  printf("lazy_blas: passed (%s)\n", none ? "GLIA_BLAS=none: own kernels and loops" : "OpenBLAS loaded on demand");
  return 0;
}
