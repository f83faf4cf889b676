/*
 * A character-level LSTM language model through the C ABI, as one would
 * write it with torch.nn in Python:
 *
 *   emb, lstm, head = nn.Embedding(V, 16), nn.LSTM(16, 64), nn.Linear(64, V)
 *   opt = optim.Adam(params, lr=0.02)
 *   for step in range(STEPS):
 *       out, _ = lstm(emb(x))                       # x [T, B] character ids
 *       loss = F.cross_entropy(head(out).reshape(-1, V), y.reshape(-1))
 *       opt.zero_grad(); loss.backward(); opt.step()
 *
 * then generates text one character at a time, carrying the state (h, c)
 * from step to step: glia_module_forward takes (input, h_0, c_0) and returns
 * (output, h_n, c_n). Exits with 1 unless the loss falls below 0.1 and the
 * generated text continues the training text.
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

static const char TEXT[] = "hello world, hello glia. hello world, hello glia. hello world, hello glia. ";
enum { T = 24, B = 4, EMB = 16, HIDDEN = 64, STEPS = 120, MAXV = 32 };

static char vocab[MAXV];
static int n_vocab;

static int64_t id_of(char c) {
  for (int i = 0; i < n_vocab; ++i)
    if (vocab[i] == c) return i;
  vocab[n_vocab] = c;
  return n_vocab++;
}

/* emb -> lstm (with the state in/out when h and c are not NULL) -> head: logits [T, B, V]. */
static glia_tensor *run(glia_module *emb, glia_module *lstm, glia_module *head, const glia_tensor *ids, glia_tensor **h,
                        glia_tensor **c) {
  glia_tensor *e = NULL, *outs[3] = {NULL, NULL, NULL}, *logits = NULL;
  int64_t n = 0;
  check(glia_module_forward(emb, &ids, 1, &e, 1, &n));
  const glia_tensor *in[3] = {e, h ? *h : NULL, c ? *c : NULL};
  check(glia_module_forward(lstm, in, 3, outs, 3, &n));
  check(glia_module_forward(head, (const glia_tensor *const *)&outs[0], 1, &logits, 1, &n));
  if (h) {
    check(glia_tensor_release(*h));
    check(glia_tensor_release(*c));
    *h = outs[1];
    *c = outs[2];
  } else {
    check(glia_tensor_release(outs[1]));
    check(glia_tensor_release(outs[2]));
  }
  check(glia_tensor_release(outs[0]));
  check(glia_tensor_release(e));
  return logits;
}

int main(void) {
  glia_manual_seed(0);
  const int len = (int)strlen(TEXT);
  int64_t ids[sizeof TEXT];
  for (int i = 0; i < len; ++i) ids[i] = id_of(TEXT[i]);

  /* B sequences of T characters at different offsets; targets are the next characters. */
  int64_t px[T * B], py[T * B];
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      px[t * B + b] = ids[b * 7 + t];
      py[t * B + b] = ids[b * 7 + t + 1];
    }
  const int64_t xshape[] = {T, B}, yshape[] = {T * B};
  glia_tensor *x = NULL, *y = NULL;
  check(glia_tensor_from_data(px, sizeof px, xshape, 2, GLIA_INT64, &x));
  check(glia_tensor_from_data(py, sizeof py, yshape, 1, GLIA_INT64, &y));

  glia_module *emb = NULL, *lstm = NULL, *head = NULL;
  check(glia_nn_embedding(n_vocab, EMB, NULL, NULL, 2.0, NULL, &emb));
  check(glia_nn_lstm(EMB, HIDDEN, NULL, NULL, &lstm));
  check(glia_nn_linear(HIDDEN, n_vocab, 1, NULL, &head));
  char text[256];
  size_t length = 0;
  check(glia_module_to_string(lstm, text, sizeof text, &length));
  printf("%s, vocabulary of %d characters\n", text, n_vocab);

  /* Every parameter of the three modules -> Adam(lr=0.02). */
  glia_tensor *params[16];
  int64_t n_params = 0;
  glia_module *modules[] = {emb, lstm, head};
  for (int m = 0; m < 3; ++m) {
    glia_tensor_dict *named = NULL;
    int64_t n = 0;
    check(glia_module_named_parameters(modules[m], NULL, 1, 1, &named));
    check(glia_tensor_dict_size(named, &n));
    for (int64_t i = 0; i < n; ++i) check(glia_tensor_dict_value_at(named, i, &params[n_params++]));
    check(glia_tensor_dict_release(named));
  }
  glia_adam_options adam;
  glia_adam_options_init(&adam);
  adam.lr = 0.02;
  glia_optimizer *opt = NULL;
  check(glia_optim_adam(params, n_params, &adam, &opt));
  for (int64_t i = 0; i < n_params; ++i) check(glia_tensor_release(params[i]));

  double value = 0;
  const int64_t flat[] = {T * B, n_vocab};
  for (int step = 1; step <= STEPS; ++step) {
    glia_tensor *logits = run(emb, lstm, head, x, NULL, NULL), *rows = NULL, *loss = NULL;
    check(glia_reshape(logits, flat, 2, &rows));
    check(glia_cross_entropy(rows, y, NULL, &loss));
    check(glia_optimizer_zero_grad(opt, 1));
    check(glia_tensor_backward(loss, NULL, 0));
    check(glia_optimizer_step(opt));
    check(glia_tensor_item_double(loss, &value));
    if (step % 20 == 0) printf("step %3d  loss %.4f\n", step, value);
    check(glia_tensor_release(loss));
    check(glia_tensor_release(rows));
    check(glia_tensor_release(logits));
  }

  /* Generation: feed "h", then each predicted character, with the state carried over. */
  glia_grad_mode_set(0);
  const int64_t hshape[] = {1, 1, HIDDEN}, one[] = {1, 1};
  glia_tensor *h = NULL, *c = NULL;
  check(glia_tensor_zeros(hshape, 3, NULL, &h));
  check(glia_tensor_zeros(hshape, 3, NULL, &c));
  char generated[T + 1];
  int64_t next = ids[0];
  int matches = 0;
  for (int t = 0; t < T; ++t) {
    glia_tensor *in = NULL, *pred = NULL;
    check(glia_tensor_from_data(&next, sizeof next, one, 2, GLIA_INT64, &in));
    glia_tensor *logits = run(emb, lstm, head, in, &h, &c);
    const int64_t dim = 2;
    check(glia_argmax(logits, &dim, 0, &pred));
    check(glia_tensor_copy_to_host(pred, &next, sizeof next));
    generated[t] = vocab[next];
    matches += generated[t] == TEXT[t + 1];
    check(glia_tensor_release(pred));
    check(glia_tensor_release(logits));
    check(glia_tensor_release(in));
  }
  generated[T] = '\0';
  printf("generated after 'h': \"%s\" (%d of %d characters as in the text)\n", generated, matches, T);

  check(glia_tensor_release(h));
  check(glia_tensor_release(c));
  check(glia_optimizer_release(opt));
  check(glia_module_release(emb));
  check(glia_module_release(lstm));
  check(glia_module_release(head));
  check(glia_tensor_release(x));
  check(glia_tensor_release(y));
  glia_shutdown();
  return value < 0.1 && matches >= T - 2 ? 0 : 1;
}
