/* A first look at glia from C: make tensors, view them, print them as torch
 * does, and see what an error looks like. */
#include <glia/glia.h>
#include <stdio.h>
#include <stdlib.h>

static void check(glia_error *e) {
  if (e) {
    fprintf(stderr, "glia error %s: %s\n", glia_error_code_name(glia_error_code(e)), glia_error_message(e));
    glia_error_free(e);
    exit(1);
  }
}

static void print(const char *label, const glia_tensor *t) {
  char buf[4096];
  size_t len = 0;
  check(glia_tensor_to_string(t, buf, sizeof buf, &len));
  printf("%s = %s\n", label, buf);
}

int main(void) {
  const float values[] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  const int64_t shape[] = {2, 3};
  glia_tensor *a = NULL, *h = NULL, *r = NULL, *big = NULL;
  glia_error *e;
  printf("glia %s\n", glia_version_string());
  check(glia_tensor_from_data(values, sizeof values, shape, 2, GLIA_FLOAT32, &a));
  print("a", a);
  check(glia_tensor_to(a, NULL, &(glia_dtype){GLIA_FLOAT16}, &h));
  print("a.half()", h);
  glia_manual_seed(0);
  check(glia_tensor_randn(shape, 2, NULL, &r));
  print("randn(2, 3)", r);
  check(glia_tensor_arange(0, 2000, 1, NULL, &big));
  print("arange(2000)", big);

  e = glia_tensor_release(a);
  check(e);
  e = glia_tensor_release(a); /* a double release is reported, not a crash */
  printf("second release: %s\n", glia_error_message(e));
  glia_error_free(e);
  check(glia_tensor_release(h));
  check(glia_tensor_release(r));
  check(glia_tensor_release(big));
  glia_shutdown();
  return 0;
}
