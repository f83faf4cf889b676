/* A program built against an installed glia, as users build one: it runs with the library
 * version it was compiled against, and a tensor prints as torch prints it. */
#include <glia/glia.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  const float values[] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  const int64_t shape[] = {2, 3};
  const char *expected = "tensor([[1., 2., 3.],\n        [4., 5., 6.]])";
  char text[128] = "";
  size_t length = 0;
  glia_tensor *t = NULL;
  glia_error *e;
  int ok;

  if (glia_version() != GLIA_VERSION_NUMBER) {
    fprintf(stderr, "compiled against glia %d, running with %u\n", GLIA_VERSION_NUMBER, (unsigned)glia_version());
    return 1;
  }
  e = glia_tensor_from_data(values, sizeof values, shape, 2, GLIA_FLOAT32, &t);
  if (!e) e = glia_tensor_to_string(t, text, sizeof text, &length);
  if (!e) e = glia_tensor_release(t);
  if (e) {
    fprintf(stderr, "glia error %s: %s\n", glia_error_code_name(glia_error_code(e)), glia_error_message(e));
    glia_error_free(e);
    return 1;
  }
  glia_shutdown();
  printf("glia %s\n%s\n", glia_version_string(), text);
  ok = strcmp(text, expected) == 0;
  if (!ok) fprintf(stderr, "expected %s\n", expected);
  return ok ? 0 : 1;
}
