/* W8 (b), glia's side: the smallest useful program. Loads libglia (dynamically linked), adds two
 * 2x2 tensors, checks the sum and exits. benchmarks/w8_spawn times fork+exec+wait of it. */
#include <glia/glia.h>
#include <stdio.h>

int main(void) {
  const int64_t shape[2] = {2, 2};
  glia_tensor *a = NULL, *b = NULL, *c = NULL;
  glia_error *e = glia_tensor_ones(shape, 2, NULL, &a);
  if (!e) e = glia_tensor_ones(shape, 2, NULL, &b);
  if (!e) e = glia_add(a, b, 1.0, &c);
  float out[4] = {0};
  if (!e) e = glia_tensor_copy_to_host(c, out, sizeof out);
  if (e) {
    fprintf(stderr, "w8_cold: %s\n", glia_error_message(e));
    glia_error_free(e);
    return 1;
  }
  glia_tensor_release(a);
  glia_tensor_release(b);
  glia_tensor_release(c);
  return out[0] == 2.0f && out[3] == 2.0f ? 0 : 1;
}
