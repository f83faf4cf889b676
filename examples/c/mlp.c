/*
 * Trains a small MLP through the module and optimizer API, as one would with
 * torch.nn in Python:
 *
 *   model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
 *   loss_fn = nn.CrossEntropyLoss()
 *   opt = optim.Adam(model.parameters(), lr=0.01)
 *   for step in range(300): opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()
 *
 * on points of the plane labelled by the sign of x0 * x1 (XOR quadrants).
 * Exits with 1 unless the trained model classifies at least 95% correctly.
 */
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

static glia_module *linear(int64_t in, int64_t out) {
  glia_module *m = NULL;
  check(glia_nn_linear(in, out, 1, NULL, &m));
  return m;
}

static glia_module *relu(void) {
  glia_module *m = NULL;
  check(glia_nn_relu(NULL, &m));
  return m;
}

enum { N = 512, STEPS = 300 };

int main(void) {
  glia_manual_seed(0);

  /* The data: N points uniform in [-1, 1)^2, label 1 where x0 * x1 > 0. */
  glia_tensor *u = NULL, *x = NULL, *y = NULL;
  const int64_t xshape[] = {N, 2}, yshape[] = {N};
  check(glia_tensor_rand(xshape, 2, NULL, &u));
  float px[N * 2];
  int64_t py[N];
  check(glia_tensor_copy_to_host(u, px, sizeof px));
  for (int i = 0; i < N; ++i) {
    px[2 * i] = 2 * px[2 * i] - 1;
    px[2 * i + 1] = 2 * px[2 * i + 1] - 1;
    py[i] = px[2 * i] * px[2 * i + 1] > 0;
  }
  check(glia_tensor_from_data(px, sizeof px, xshape, 2, GLIA_FLOAT32, &x));
  check(glia_tensor_from_data(py, sizeof py, yshape, 1, GLIA_INT64, &y));

  /* The model: the Sequential takes its own references to the layers. */
  glia_module *layers[] = {linear(2, 32), relu(), linear(32, 32), relu(), linear(32, 2)};
  glia_module *model = NULL, *loss_fn = NULL;
  check(glia_nn_sequential(layers, 5, &model));
  for (int i = 0; i < 5; ++i) check(glia_module_release(layers[i]));
  check(glia_nn_cross_entropy_loss(NULL, NULL, &loss_fn));

  char text[1024];
  size_t length = 0;
  check(glia_module_to_string(model, text, sizeof text, &length));
  printf("%s\n", text);

  /* model.parameters() -> Adam(lr=0.01). */
  glia_tensor_dict *named = NULL;
  int64_t n_params = 0;
  check(glia_module_named_parameters(model, NULL, 1, 1, &named));
  check(glia_tensor_dict_size(named, &n_params));
  glia_tensor *params[16];
  for (int64_t i = 0; i < n_params; ++i) check(glia_tensor_dict_value_at(named, i, &params[i]));
  glia_adam_options adam;
  glia_adam_options_init(&adam);
  adam.lr = 0.01;
  glia_optimizer *opt = NULL;
  check(glia_optim_adam(params, n_params, &adam, &opt));
  for (int64_t i = 0; i < n_params; ++i) check(glia_tensor_release(params[i]));
  check(glia_tensor_dict_release(named));

  for (int step = 1; step <= STEPS; ++step) {
    glia_tensor *logits = NULL, *loss = NULL;
    int64_t n_out = 0;
    check(glia_module_forward(model, (const glia_tensor *const *)&x, 1, &logits, 1, &n_out));
    const glia_tensor *loss_inputs[] = {logits, y};
    check(glia_module_forward(loss_fn, loss_inputs, 2, &loss, 1, &n_out));
    check(glia_optimizer_zero_grad(opt, 1));
    check(glia_tensor_backward(loss, NULL, 0));
    check(glia_optimizer_step(opt));
    if (step % 50 == 0) {
      double value = 0;
      check(glia_tensor_item_double(loss, &value));
      printf("step %3d  loss %.4f\n", step, value);
    }
    check(glia_tensor_release(loss));
    check(glia_tensor_release(logits));
  }

  /* Accuracy in eval mode without recording a graph. */
  check(glia_module_train(model, 0));
  glia_grad_mode_set(0);
  glia_tensor *logits = NULL, *pred = NULL;
  int64_t n_out = 0;
  check(glia_module_forward(model, (const glia_tensor *const *)&x, 1, &logits, 1, &n_out));
  const int64_t dim = 1;
  check(glia_argmax(logits, &dim, 0, &pred));
  int64_t predicted[N];
  check(glia_tensor_copy_to_host(pred, predicted, sizeof predicted));
  int correct = 0;
  for (int i = 0; i < N; ++i) correct += predicted[i] == py[i];
  printf("accuracy %.3f\n", (double)correct / N);

  check(glia_tensor_release(pred));
  check(glia_tensor_release(logits));
  check(glia_optimizer_release(opt));
  check(glia_module_release(loss_fn));
  check(glia_module_release(model));
  check(glia_tensor_release(x));
  check(glia_tensor_release(y));
  check(glia_tensor_release(u));
  glia_shutdown();
  return correct >= N * 95 / 100 ? 0 : 1;
}
