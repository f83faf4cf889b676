/* CUDA smoke check for scripts/gpu-check.sh: loads glia's CUDA backend the way a user program
 * does (glia_cuda_is_available() dlopens libglia_cuda.so.0, next to libglia first, then through
 * the system loader) and prints what it sees. glia's log goes to stderr at debug level, so a
 * backend that fails to load says why (e.g. "libcudart.so.13: cannot open shared object file").
 *
 *   cuda_smoke [BACKEND_PATH]
 *
 * With BACKEND_PATH, glia_backend_load(BACKEND_PATH) runs first and its error, if any, is printed.
 * Where libglia has glia_backend_status (the device-dispatch work, 0.2), its count and reason are
 * printed too; it is looked up with dlsym so that this file builds against 0.1's header as well.
 * Exit status 0 when glia_cuda_is_available() is 1 and glia_cuda_device_count() >= 1, else 1.
 *
 *   cc -std=c99 -I include benchmarks/gpu/cuda_smoke.c -L BUILD/src -lglia -Wl,-rpath,BUILD/src -ldl
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <glia/glia.h>
#include <stdio.h>
#include <string.h>

/* glia_backend_status as glia.h 0.2 declares it (type 1 = GLIA_CUDA). */
typedef glia_error *(*backend_status_fn)(glia_device_type type, int32_t *out_device_count, char *buffer,
                                         size_t capacity, size_t *out_length);

static void print_backend_status(void) {
  void *self = dlopen(NULL, RTLD_NOW); /* the program and the libraries it links: libglia */
  void *sym = self ? dlsym(self, "glia_backend_status") : NULL;
  backend_status_fn fn;
  char reason[512] = "";
  int32_t count = -1;
  size_t length = 0;
  glia_error *err;
  if (!sym) {
    printf("glia_backend_status: not in this libglia (0.1)\n");
    return;
  }
  memcpy(&fn, &sym, sizeof fn); /* object pointer to function pointer, as POSIX allows */
  err = fn(GLIA_CUDA, &count, reason, sizeof reason, &length);
  if (err) {
    printf("glia_backend_status(GLIA_CUDA): error: %s\n", glia_error_message(err));
    glia_error_free(err);
    return;
  }
  printf("glia_backend_status(GLIA_CUDA): %d device(s)%s%s\n", (int)count, reason[0] ? "; reason: " : "", reason);
}

static void print_log(void *user_data, enum glia_log_level level, const char *message) {
  static const char *const names[] = {"debug", "info", "warning", "error"};
  (void)user_data;
  fprintf(stderr, "glia log (%s): %s\n", (unsigned)level < 4 ? names[level] : "?", message);
}

int main(int argc, char **argv) {
  glia_error *err;
  int32_t available, count;

  setvbuf(stdout, NULL, _IOLBF, 0); /* keep stdout in step with glia's log on stderr */
  printf("glia %s\n", glia_version_string());
  err = glia_set_log_callback(print_log, GLIA_LOG_DEBUG, NULL, NULL);
  if (err) {
    fprintf(stderr, "cuda_smoke: glia_set_log_callback: %s\n", glia_error_message(err));
    glia_error_free(err);
  }
  if (argc > 1) {
    err = glia_backend_load(argv[1]);
    if (err) {
      printf("glia_backend_load(\"%s\"): %s\n", argv[1], glia_error_message(err));
      glia_error_free(err);
    } else {
      printf("glia_backend_load(\"%s\"): ok\n", argv[1]);
    }
  }
  print_backend_status();
  available = glia_cuda_is_available();
  count = glia_cuda_device_count();
  printf("glia_cuda_is_available() = %d\n", (int)available);
  printf("glia_cuda_device_count() = %d\n", (int)count);
  if (available == 1 && count >= 1) {
    printf("cuda_smoke: ok\n");
    return 0;
  }
  printf("cuda_smoke: FAILED (expected glia_cuda_is_available() = 1 and a device count >= 1)\n");
  return 1;
}
