/*
 * Checkpoints, the C spelling of torch.save / torch.load:
 *
 *   checkpoint               saves a model as safetensors and as a PyTorch .pt file,
 *                            loads each into a freshly initialised model of the same
 *                            shape, and checks that both give the same outputs
 *   checkpoint FILE ...      lists what a checkpoint holds (safetensors or a file
 *                            written by torch.save: the format is found by content)
 *
 * A file written here as model.pt loads in Python with
 *   torch.load("model.pt", weights_only=True)  ->  OrderedDict of the same tensors.
 * Exits with 1 on any error or mismatch.
 */
#include <glia/glia.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(glia_error *e) {
  if (e) {
    fprintf(stderr, "glia error %s: %s\n", glia_error_code_name(glia_error_code(e)), glia_error_message(e));
    glia_error_free(e);
    exit(1);
  }
}

/* Prints "name  dtype  [shape]" for every entry, then the metadata. */
static int list_checkpoint(const char *path) {
  glia_tensor_dict *dict = NULL;
  glia_error *e = glia_tensor_dict_load(path, GLIA_FORMAT_AUTO, &dict);
  if (e) {
    fprintf(stderr, "%s: %s\n", path, glia_error_message(e));
    glia_error_free(e);
    return 1;
  }
  int64_t n = 0, n_meta = 0;
  check(glia_tensor_dict_size(dict, &n));
  printf("%s: %lld tensors\n", path, (long long)n);
  for (int64_t i = 0; i < n; ++i) {
    char name[256];
    size_t length = 0;
    glia_tensor *t = NULL;
    glia_dtype dtype;
    int64_t ndim = 0, shape[64];
    check(glia_tensor_dict_key_at(dict, i, name, sizeof name, &length));
    check(glia_tensor_dict_value_at(dict, i, &t));
    check(glia_tensor_dtype(t, &dtype));
    check(glia_tensor_ndim(t, &ndim));
    check(glia_tensor_shape(t, 64, shape));
    printf("  %-40s %-9s [", name, glia_dtype_name(dtype));
    for (int64_t d = 0; d < ndim; ++d) printf(d ? ", %lld" : "%lld", (long long)shape[d]);
    printf("]\n");
    check(glia_tensor_release(t));
  }
  check(glia_tensor_dict_metadata_count(dict, &n_meta));
  for (int64_t i = 0; i < n_meta; ++i) {
    char key[256], value[1024];
    size_t length = 0;
    check(glia_tensor_dict_metadata_key_at(dict, i, key, sizeof key, &length));
    check(glia_tensor_dict_get_metadata(dict, key, value, sizeof value, &length));
    printf("  metadata %s = %s\n", key, value);
  }
  check(glia_tensor_dict_release(dict));
  return 0;
}

/* Conv2d(1, 4, 3) - BatchNorm2d(4) - ReLU - Flatten - Linear(4 * 6 * 6, 10), freshly initialised. */
static glia_module *make_model(void) {
  glia_module *layers[5] = {NULL}, *model = NULL;
  check(glia_nn_conv2d(1, 4, 3, 3, NULL, NULL, &layers[0]));
  check(glia_nn_batch_norm2d(4, NULL, NULL, &layers[1]));
  check(glia_nn_relu(NULL, &layers[2]));
  check(glia_nn_flatten(1, -1, NULL, &layers[3]));
  check(glia_nn_linear(4 * 6 * 6, 10, 1, NULL, &layers[4]));
  check(glia_nn_sequential(layers, 5, &model));
  for (int i = 0; i < 5; ++i) check(glia_module_release(layers[i]));
  return model;
}

static void outputs(glia_module *model, glia_tensor *x, float out[20]) {
  glia_tensor *y = NULL;
  int64_t n_out = 0;
  check(glia_module_forward(model, (const glia_tensor *const *)&x, 1, &y, 1, &n_out));
  check(glia_tensor_copy_to_host(y, out, 20 * sizeof(float)));
  check(glia_tensor_release(y));
}

int main(int argc, char **argv) {
  if (argc > 1) {
    int failed = 0;
    for (int i = 1; i < argc; ++i) failed |= list_checkpoint(argv[i]);
    return failed;
  }
  glia_manual_seed(0);
  glia_module *model = make_model();
  /* One training-mode pass moves BatchNorm's running statistics off their defaults. */
  glia_tensor *x = NULL;
  const int64_t xshape[] = {2, 1, 8, 8};
  check(glia_tensor_randn(xshape, 4, NULL, &x));
  float want[20], got[20];
  outputs(model, x, want);
  check(glia_module_train(model, 0));
  outputs(model, x, want);

  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char st_path[512], pt_path[512];
  snprintf(st_path, sizeof st_path, "%s/glia-example-model.safetensors", dir);
  snprintf(pt_path, sizeof pt_path, "%s/glia-example-model.pt", dir);

  /* torch.save(model.state_dict(), ...) in both formats. */
  check(glia_module_save(model, st_path));
  glia_tensor_dict *state = NULL;
  check(glia_module_state_dict(model, &state));
  check(glia_tensor_dict_save(state, pt_path, GLIA_FORMAT_TORCH));
  check(glia_tensor_dict_release(state));

  int failed = 0;
  const char *paths[] = {st_path, pt_path};
  for (int i = 0; i < 2; ++i) {
    glia_module *fresh = make_model();
    glia_load_report *report = NULL;
    check(glia_module_load(fresh, paths[i], 1, &report));
    int64_t missing = 0, unexpected = 0;
    check(glia_load_report_count(report, GLIA_KEYS_MISSING, &missing));
    check(glia_load_report_count(report, GLIA_KEYS_UNEXPECTED, &unexpected));
    check(glia_load_report_release(report));
    check(glia_module_train(fresh, 0));
    outputs(fresh, x, got);
    int same = missing == 0 && unexpected == 0 && memcmp(want, got, sizeof want) == 0;
    printf("%-45s loaded into a fresh model: outputs %s\n", paths[i], same ? "identical" : "DIFFER");
    failed |= !same;
    check(glia_module_release(fresh));
  }
  failed |= list_checkpoint(pt_path);
  remove(st_path);
  remove(pt_path);
  check(glia_tensor_release(x));
  check(glia_module_release(model));
  glia_shutdown();
  return failed;
}
