/*
 * Trains LeNet on Fashion-MNIST through glia's C ABI, the recipe one would
 * write with torch.nn in Python:
 *
 *   transform = Compose([ToTensor(), Normalize((0.2860,), (0.3530,))])
 *   model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
 *                         nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
 *                         nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
 *                         nn.Linear(84, 10))
 *   loss_fn = nn.CrossEntropyLoss()
 *   opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
 *   for epoch in range(5):                      # batches of 64, shuffled, drop_last=False
 *       for x, y in train_loader: opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()
 *       with torch.no_grad(): evaluate on the 10,000 test images
 *   torch.save(model.state_dict())              # here: safetensors, then reloaded and checked
 *
 * The data are the gzipped IDX files of Debian's dataset-fashion-mnist
 * (/usr/share/datasets/fashion-mnist), read with zlib and validated (magic
 * numbers, image size, counts, exact length). Run with --help for the flags.
 * The last line printed is "test accuracy: 0.XXXX".
 *
 * With --ddp, under glia-run (torch's torchrun), it is the same recipe data-parallel,
 * as torch's DistributedDataParallel over Gloo, one process per rank:
 *
 *   dist.init_process_group("gloo")             # env://: MASTER_ADDR, RANK, ... from glia-run
 *   model = DistributedDataParallel(model)      # rank 0's weights everywhere
 *   every rank draws the same shuffled batches of 64 and trains on its slice of each
 *   (32 images with 2 ranks); backward averages the gradients over the ranks
 *
 * so every step is the step of one process on the whole batch, up to rounding.
 * Rank 0 alone prints, evaluates and saves.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <glia/glia.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define PROGRAM "fashion_mnist"
#define DEFAULT_DATA "/usr/share/datasets/fashion-mnist"
#define INSTALL_HINT "sudo apt-get install dataset-fashion-mnist"

enum { ROWS = 28, COLS = 28, PIXELS = ROWS * COLS, CLASSES = 10, BATCH = 64, EVAL_BATCH = 1000 };

static void die(const char *format, ...) {
  va_list args;
  fprintf(stderr, PROGRAM ": ");
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
  exit(1);
}

static void check(glia_error *e) {
  if (e) {
    fprintf(stderr, PROGRAM ": glia error %s: %s\n", glia_error_code_name(glia_error_code(e)), glia_error_message(e));
    glia_error_free(e);
    exit(1);
  }
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- The IDX files ------------------------------------------------------ */

typedef struct {
  unsigned char *bytes; /* the whole decompressed file */
  size_t size;
} blob;

/* Reads the whole decompressed content of a gzip file (zlib also passes a
   plain file through). The memory grows with the content actually there, so
   a header claiming billions of images costs nothing before the length check. */
static blob read_gz(const char *path) {
  blob b = {NULL, 0};
  errno = 0;
  gzFile f = gzopen(path, "rb");
  if (!f) {
    const int error = errno;
    die("%s: cannot open: %s%s", path, error ? strerror(error) : "out of memory",
        error == ENOENT && !strncmp(path, DEFAULT_DATA "/", strlen(DEFAULT_DATA) + 1)
            ? " (install the data with: " INSTALL_HINT ")"
            : "");
  }
  size_t capacity = 0;
  for (;;) {
    if (capacity - b.size < 65536) {
      capacity = capacity ? capacity * 2 : 1 << 20;
      unsigned char *grown = realloc(b.bytes, capacity);
      if (!grown) die("%s: out of memory after %zu bytes", path, b.size);
      b.bytes = grown;
    }
    size_t want = capacity - b.size;
    int n = gzread(f, b.bytes + b.size, (unsigned)(want > (1u << 30) ? (1u << 30) : want));
    if (n < 0) {
      int code = 0;
      const char *message = gzerror(f, &code);
      const size_t n_path = strlen(path); /* zlib's message starts with "path: " */
      if (!strncmp(message, path, n_path) && !strncmp(message + n_path, ": ", 2)) message += n_path + 2;
      die("%s: bad gzip data after %zu bytes: %s", path, b.size, code == Z_ERRNO ? strerror(errno) : message);
    }
    if (n == 0) break;
    b.size += (size_t)n;
  }
  /* gzread stops without an error at a gzip stream cut short; gzclose_r reports it. */
  int closed = gzclose(f);
  if (closed == Z_BUF_ERROR) die("%s: truncated gzip stream after %zu bytes", path, b.size);
  if (closed != Z_OK) die("%s: bad gzip data after %zu bytes (zlib error %d)", path, b.size, closed);
  return b;
}

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Checks the header of an IDX file (magic 2051: images, 2049: labels) and
   its exact length; returns the item count. */
static uint32_t check_idx(const char *path, const blob *b, int images) {
  const size_t header = images ? 16 : 8;
  const uint32_t magic = images ? 2051 : 2049;
  if (b->size < header)
    die("%s: truncated: expected at least %zu bytes (the IDX header), got %zu", path, header, b->size);
  if (be32(b->bytes) != magic)
    die("%s: bad magic number: expected %lu (%s), got %lu", path, (unsigned long)magic,
        images ? "IDX images" : "IDX labels", (unsigned long)be32(b->bytes));
  const uint32_t count = be32(b->bytes + 4);
  if (images && (be32(b->bytes + 8) != ROWS || be32(b->bytes + 12) != COLS))
    die("%s: bad image size: expected %dx%d, got %lux%lu", path, ROWS, COLS, (unsigned long)be32(b->bytes + 8),
        (unsigned long)be32(b->bytes + 12));
  if (count == 0) die("%s: no %s in the file", path, images ? "images" : "labels");
  const uint64_t expected = header + (uint64_t)count * (images ? PIXELS : 1);
  if ((uint64_t)b->size < expected)
    die("%s: truncated: expected %llu bytes, got %zu", path, (unsigned long long)expected, b->size);
  if ((uint64_t)b->size > expected)
    die("%s: trailing data: expected %llu bytes, got %zu", path, (unsigned long long)expected, b->size);
  return count;
}

/* The images stay bytes (a quarter of the memory a float copy takes); a batch
   is normalised as it is gathered, through a table of the 256 float values,
   so the random reads of a shuffled epoch touch 784 bytes per image. */
typedef struct {
  int64_t n;
  unsigned char *pixels; /* n x 28 x 28, as in the IDX file */
  int64_t *labels;       /* n */
  float table[256];      /* ToTensor() then Normalize((0.2860,), (0.3530,)) of each byte value */
} dataset;

static dataset load_split(const char *dir, const char *split) {
  char images_path[4096], labels_path[4096];
  if (snprintf(images_path, sizeof images_path, "%s/%s-images-idx3-ubyte.gz", dir, split) >= (int)sizeof images_path ||
      snprintf(labels_path, sizeof labels_path, "%s/%s-labels-idx1-ubyte.gz", dir, split) >= (int)sizeof labels_path)
    die("%s: data directory name too long", dir);
  blob images = read_gz(images_path);
  const uint32_t n_images = check_idx(images_path, &images, 1);
  blob labels = read_gz(labels_path);
  const uint32_t n_labels = check_idx(labels_path, &labels, 0);
  if (n_labels != n_images)
    die("%s: expected %lu labels (the image count of %s), got %lu", labels_path, (unsigned long)n_images, images_path,
        (unsigned long)n_labels);

  dataset d = {n_images, malloc((size_t)n_images * PIXELS), malloc((size_t)n_images * sizeof(int64_t)), {0}};
  if (!d.pixels || !d.labels) die("%s: out of memory for %lu images", images_path, (unsigned long)n_images);
  memcpy(d.pixels, images.bytes + 16, (size_t)n_images * PIXELS);
  /* ToTensor() then Normalize((0.2860,), (0.3530,)), in float32 as torchvision. */
  for (int v = 0; v < 256; ++v) d.table[v] = ((float)v / 255.0f - 0.2860f) / 0.3530f;
  for (uint32_t i = 0; i < n_labels; ++i) {
    const unsigned label = labels.bytes[8 + i];
    if (label >= CLASSES) die("%s: label %u of item %lu is out of range 0-9", labels_path, label, (unsigned long)i);
    d.labels[i] = label;
  }
  free(images.bytes);
  free(labels.bytes);
  return d;
}

/* ---- The model ---------------------------------------------------------- */

static glia_module *conv(int64_t in, int64_t out, int64_t kernel, int64_t padding) {
  glia_nn_conv2d_options options;
  glia_nn_conv2d_options_init(&options);
  options.padding[0] = options.padding[1] = padding;
  glia_module *m = NULL;
  check(glia_nn_conv2d(in, out, kernel, kernel, &options, NULL, &m));
  return m;
}

static glia_module *max_pool(int64_t kernel) {
  glia_max_pool2d_options options;
  glia_max_pool2d_options_init(&options);
  options.kernel_size[0] = options.kernel_size[1] = kernel;
  glia_module *m = NULL;
  check(glia_nn_max_pool2d(&options, NULL, &m));
  return m;
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

static glia_module *flatten(void) {
  glia_module *m = NULL;
  check(glia_nn_flatten(1, -1, NULL, &m));
  return m;
}

static glia_module *lenet(void) {
  glia_module *layers[] = {conv(1, 6, 5, 2), relu(),           max_pool(2), conv(6, 16, 5, 0), relu(), max_pool(2),
                           flatten(),        linear(400, 120), relu(),      linear(120, 84),   relu(), linear(84, 10)};
  const int64_t n = (int64_t)(sizeof layers / sizeof layers[0]);
  glia_module *model = NULL;
  check(glia_nn_sequential(layers, n, &model));
  for (int64_t i = 0; i < n; ++i) check(glia_module_release(layers[i])); /* the Sequential holds them */
  return model;
}

/* ---- Shuffling: splitmix64 and Fisher-Yates ----------------------------- */

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, bound), without modulo bias. */
static uint64_t below(uint64_t *state, uint64_t bound) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t r;
  do r = splitmix64(state);
  while (r >= limit);
  return r % bound;
}

static void shuffle(int64_t *order, int64_t n, uint64_t *state) {
  for (int64_t i = n - 1; i > 0; --i) {
    const int64_t j = (int64_t)below(state, (uint64_t)i + 1);
    const int64_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
}

/* ---- Training and evaluation -------------------------------------------- */

/* Forward of a batch of `n` images starting at images[first] (or gathered
   through order[] when it is not NULL). Returns the logits. */
static glia_tensor *make_batch(const dataset *d, const int64_t *order, int64_t first, int64_t n, float *x_buffer,
                               int64_t *y_buffer, glia_tensor **out_y) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = order ? order[first + i] : first + i;
    const unsigned char *src = d->pixels + k * PIXELS;
    float *dst = x_buffer + i * PIXELS;
    for (int j = 0; j < PIXELS; ++j) dst[j] = d->table[src[j]];
    y_buffer[i] = d->labels[k];
  }
  const int64_t x_shape[] = {n, 1, ROWS, COLS}, y_shape[] = {n};
  glia_tensor *x = NULL;
  check(glia_tensor_from_data(x_buffer, (size_t)n * PIXELS * sizeof(float), x_shape, 4, GLIA_FLOAT32, &x));
  if (out_y) check(glia_tensor_from_data(y_buffer, (size_t)n * sizeof(int64_t), y_shape, 1, GLIA_INT64, out_y));
  return x;
}

/* model.eval(); with torch.no_grad(): the predicted class of every image. Returns the number correct. */
static int64_t evaluate(glia_module *model, const dataset *test, int64_t *predicted) {
  float *x_buffer = malloc((size_t)EVAL_BATCH * PIXELS * sizeof(float));
  int64_t *y_buffer = malloc((size_t)EVAL_BATCH * sizeof(int64_t));
  if (!x_buffer || !y_buffer) die("out of memory");
  check(glia_module_train(model, 0));
  glia_grad_mode_set(0);
  int64_t correct = 0;
  for (int64_t first = 0; first < test->n; first += EVAL_BATCH) {
    const int64_t n = test->n - first < EVAL_BATCH ? test->n - first : EVAL_BATCH;
    glia_tensor *x = make_batch(test, NULL, first, n, x_buffer, y_buffer, NULL), *logits = NULL, *pred = NULL;
    int64_t n_out = 0;
    const int64_t dim = 1;
    check(glia_module_forward(model, (const glia_tensor *const *)&x, 1, &logits, 1, &n_out));
    check(glia_argmax(logits, &dim, 0, &pred));
    check(glia_tensor_copy_to_host(pred, predicted + first, (size_t)n * sizeof(int64_t)));
    for (int64_t i = 0; i < n; ++i) correct += predicted[first + i] == test->labels[first + i];
    check(glia_tensor_release(pred));
    check(glia_tensor_release(logits));
    check(glia_tensor_release(x));
  }
  glia_grad_mode_set(1);
  check(glia_module_train(model, 1));
  free(x_buffer);
  free(y_buffer);
  return correct;
}

/* The progress of an epoch: a bar redrawn in place on a terminal, otherwise a
   plain line every tenth of the epoch. */
typedef struct {
  int interactive;
  int epoch, epochs;
  int64_t batches, images;
  double start, last_draw;
  int64_t next_line; /* batches done at which the next plain line is printed */
} progress;

/* `loss` is the mean loss so far; `images_done` counts the images of every rank. */
static void progress_show(progress *p, int64_t done, double loss, int64_t images_done, int final) {
  const double t = now_seconds(), elapsed = t - p->start;
  const double rate = elapsed > 0 ? (double)images_done / elapsed : 0;
  if (p->interactive) {
    if (!final && t - p->last_draw < 0.1) return;
    p->last_draw = t;
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    const int filled = (int)(WIDTH * done / p->batches);
    for (int i = 0; i < WIDTH; ++i) bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = 0;
    printf("\repoch %d/%d [%s] %lld/%lld  loss %.4f  %.0f img/s  %.1f s   ", p->epoch, p->epochs, bar, (long long)done,
           (long long)p->batches, loss, rate, elapsed);
    if (final) printf("\n");
    fflush(stdout);
  } else if (done >= p->next_line && !final) {
    printf("epoch %d/%d  %lld/%lld batches  loss %.4f  %.0f img/s  %.1f s\n", p->epoch, p->epochs, (long long)done,
           (long long)p->batches, loss, rate, elapsed);
    fflush(stdout);
    while (p->next_line <= done) p->next_line += (p->batches + 9) / 10;
  }
}

/* ---- Command line -------------------------------------------------------- */

static void usage(FILE *out) {
  fprintf(out, "usage: " PROGRAM
               " [--data DIR] [--epochs N] [--seed N] [--threads N] [--limit N]\n"
               "                     [--test-limit N] [--save PATH] [--min-accuracy X] [--ddp]\n"
               "\n"
               "Trains LeNet on Fashion-MNIST with glia (SGD lr 0.01 momentum 0.9, batches of 64,\n"
               "shuffled every epoch), evaluates it on the 10,000 test images after each epoch, saves\n"
               "it as safetensors, loads that file into a fresh model and checks that the reloaded\n"
               "model predicts exactly the same. The last line is \"test accuracy: 0.XXXX\".\n"
               "\n"
               "  --data DIR        the gzipped IDX files (default " DEFAULT_DATA
               ",\n"
               "                    from the Debian package: " INSTALL_HINT
               ")\n"
               "  --epochs N        epochs to train (default 5)\n"
               "  --seed N          seeds the weights (glia_manual_seed) and the shuffling (default 0)\n"
               "  --threads N       glia_set_num_threads(N) (default: glia's, the number of cores;\n"
               "                    with --ddp, the cores divided by LOCAL_WORLD_SIZE)\n"
               "  --limit N         train on the first N training images only (tests; default all)\n"
               "  --test-limit N    evaluate on the first N test images only (tests; default all)\n"
               "  --save PATH       where the model is saved (default: a temporary file, deleted at exit)\n"
               "  --min-accuracy X  exit 1 when the final test accuracy is below X. Default: 0.88 for\n"
               "                    the full recipe (5 epochs, no --limit or --test-limit), otherwise none\n"
               "  --ddp             data-parallel under glia-run (torch's DistributedDataParallel over\n"
               "                    Gloo, the process group from MASTER_ADDR, MASTER_PORT, RANK and\n"
               "                    WORLD_SIZE): each rank trains on its share of every batch; rank 0\n"
               "                    alone prints, evaluates and saves. E.g.\n"
               "                    glia-run --nproc-per-node 2 -- " PROGRAM
               " --ddp\n"
               "  --help            this text\n"
               "\n"
               "Exit status: 0 success; 1 an error (unreadable or malformed data, a glia error, a\n"
               "reloaded model that predicts differently) or accuracy below the minimum; 2 bad usage.\n");
}

static void bad_usage(const char *format, const char *what) {
  fprintf(stderr, PROGRAM ": ");
  fprintf(stderr, format, what);
  fprintf(stderr, "\n(try --help)\n");
  exit(2);
}

static long long parse_integer(const char *flag, const char *text, long long min, long long max) {
  char *end = NULL;
  errno = 0;
  const long long v = strtoll(text, &end, 10);
  if (errno || end == text || *end || v < min || v > max) bad_usage("bad value for %s", flag);
  return v;
}

static char temp_dir[64], temp_file[128]; /* the default --save, removed at exit */

static void remove_temp(void) {
  if (temp_file[0]) remove(temp_file);
  if (temp_dir[0]) rmdir(temp_dir);
}

int main(int argc, char **argv) {
  const char *data = DEFAULT_DATA, *save = NULL;
  long long epochs = 5, limit = 0, test_limit = 0, threads = 0;
  uint64_t seed = 0;
  double min_accuracy = -1;
  int ddp = 0;
  for (int i = 1; i < argc; ++i) {
    const char *flag = argv[i];
    if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
      usage(stdout);
      return 0;
    }
    if (!strcmp(flag, "--ddp")) {
      ddp = 1;
      continue;
    }
    if (strncmp(flag, "--", 2)) bad_usage("unexpected argument %s", flag);
    static const char *const known[] = {"--data",       "--save",    "--epochs", "--limit",
                                        "--test-limit", "--threads", "--seed",   "--min-accuracy"};
    int is_known = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k) is_known |= !strcmp(flag, known[k]);
    if (!is_known) bad_usage("unknown flag %s", flag);
    if (i + 1 >= argc) bad_usage("%s needs a value", flag);
    const char *value = argv[++i];
    if (!strcmp(flag, "--data"))
      data = value;
    else if (!strcmp(flag, "--save"))
      save = value;
    else if (!strcmp(flag, "--epochs"))
      epochs = parse_integer(flag, value, 1, 1000000);
    else if (!strcmp(flag, "--limit"))
      limit = parse_integer(flag, value, 1, INT64_MAX);
    else if (!strcmp(flag, "--test-limit"))
      test_limit = parse_integer(flag, value, 1, INT64_MAX);
    else if (!strcmp(flag, "--threads"))
      threads = parse_integer(flag, value, 1, 1024);
    else if (!strcmp(flag, "--seed"))
      seed = (uint64_t)parse_integer(flag, value, 0, INT64_MAX);
    else if (!strcmp(flag, "--min-accuracy")) {
      char *end = NULL;
      min_accuracy = strtod(value, &end);
      if (end == value || *end || !(min_accuracy >= 0 && min_accuracy <= 1)) bad_usage("bad value for %s", flag);
    }
  }
  if (min_accuracy < 0) min_accuracy = epochs == 5 && limit == 0 && test_limit == 0 ? 0.88 : 0;

  /* dist.init_process_group("gloo") from the environment glia-run sets. */
  glia_process_group *group = NULL;
  int64_t rank = 0, world = 1;
  if (ddp) {
    if (!getenv("RANK") || !getenv("WORLD_SIZE"))
      bad_usage(
          "%s needs the environment of glia-run (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT): run "
          "glia-run --nproc-per-node 2 -- " PROGRAM " --ddp",
          "--ddp");
    check(glia_process_group_create_from_env(NULL, &group));
    check(glia_process_group_rank(group, &rank));
    check(glia_process_group_size(group, &world));
    /* Rank 0 alone reports; the others' errors still go to stderr. */
    if (rank != 0 && !freopen("/dev/null", "w", stdout)) die("rank %lld: cannot silence stdout", (long long)rank);
    if (!threads) {
      /* The workers on this machine share its cores (torchrun sets OMP_NUM_THREADS=1 for the same reason). */
      const char *local = getenv("LOCAL_WORLD_SIZE");
      const long n_local = local ? strtol(local, NULL, 10) : 1;
      threads = glia_get_num_threads() / (n_local > 0 ? n_local : 1);
      if (threads < 1) threads = 1;
    }
  }
  if (threads) check(glia_set_num_threads((int32_t)threads));

  const double load_start = now_seconds();
  dataset train = load_split(data, "train"), test = load_split(data, "t10k");
  if (limit && limit < train.n) train.n = limit;
  if (test_limit && test_limit < test.n) test.n = test_limit;
  printf("Fashion-MNIST from %s: %lld training images, %lld test images (%.1f s to load)\n", data, (long long)train.n,
         (long long)test.n, now_seconds() - load_start);

  glia_manual_seed(seed);
  glia_module *model = lenet(), *loss_fn = NULL;
  check(glia_nn_cross_entropy_loss(NULL, NULL, &loss_fn));
  char text[2048];
  size_t length = 0;
  check(glia_module_to_string(model, text, sizeof text, &length));
  printf("%s\n", text);

  /* optim.SGD(model.parameters(), lr=0.01, momentum=0.9) */
  glia_tensor_dict *named = NULL;
  int64_t n_params = 0;
  check(glia_module_named_parameters(model, NULL, 1, 1, &named));
  check(glia_tensor_dict_size(named, &n_params));
  glia_tensor *params[16];
  if (n_params > 16) die("unexpected parameter count %lld", (long long)n_params);
  for (int64_t i = 0; i < n_params; ++i) check(glia_tensor_dict_value_at(named, i, &params[i]));
  glia_sgd_options sgd;
  glia_sgd_options_init(&sgd);
  sgd.lr = 0.01;
  sgd.momentum = 0.9;
  glia_optimizer *opt = NULL;
  check(glia_optim_sgd(params, n_params, &sgd, &opt));
  for (int64_t i = 0; i < n_params; ++i) check(glia_tensor_release(params[i]));
  check(glia_tensor_dict_release(named));
  printf("SGD(lr=0.01, momentum=0.9), batch %d, %lld epochs, %d threads, seed %llu\n", BATCH, epochs,
         glia_get_num_threads(), (unsigned long long)seed);

  /* model = DistributedDataParallel(model): rank 0's weights are broadcast to every rank here. The
     optimizer keeps the parameters of `model`, which the wrapper shares. */
  glia_module *trained = model;
  if (ddp) {
    check(glia_nn_distributed_data_parallel(model, group, NULL, &trained));
    const int64_t fewest = BATCH / world, most = (BATCH + world - 1) / world;
    char share[64];
    if (most > fewest)
      snprintf(share, sizeof share, "%lld or %lld", (long long)fewest, (long long)most);
    else
      snprintf(share, sizeof share, "%lld", (long long)fewest);
    printf(
        "DistributedDataParallel over Gloo: %lld processes, each on %s of the %d images of a batch, %d threads each\n",
        (long long)world, share, BATCH, glia_get_num_threads());
  }

  int64_t *order = malloc((size_t)train.n * sizeof(int64_t)), *predicted = malloc((size_t)test.n * sizeof(int64_t));
  float *x_buffer = malloc((size_t)BATCH * PIXELS * sizeof(float));
  int64_t *y_buffer = malloc(BATCH * sizeof(int64_t));
  if (!order || !predicted || !x_buffer || !y_buffer) die("out of memory");
  for (int64_t i = 0; i < train.n; ++i) order[i] = i;
  uint64_t rng = seed;
  progress p;
  memset(&p, 0, sizeof p);
  p.interactive = isatty(STDOUT_FILENO);
  p.epochs = (int)epochs;
  p.batches = (train.n + BATCH - 1) / BATCH;
  int64_t correct = 0;
  double train_seconds = 0;

  for (int epoch = 1; epoch <= epochs; ++epoch) {
    shuffle(order, train.n, &rng);
    p.epoch = epoch;
    p.start = now_seconds();
    p.last_draw = 0;
    p.next_line = (p.batches + 9) / 10;
    double loss_sum = 0; /* sum over this rank's images of the per-image loss */
    int64_t images_done = 0, my_images = 0;
    for (int64_t b = 0; b < p.batches; ++b) {
      const int64_t first = b * BATCH, n = train.n - first < BATCH ? train.n - first : BATCH;
      /* This rank's slice of the batch: [lo, hi). DDP averages the ranks' gradients, so a rank's mean
         loss is scaled by world * (its images) / n to make the average the gradient of the whole
         batch's mean loss (a scale of 1 for equal slices). A rank with no image of a short last batch
         trains on one with a scale of 0. */
      const int64_t lo = rank * n / world, hi = (rank + 1) * n / world, mine = hi - lo;
      const int64_t take = mine > 0 ? mine : 1, start = mine > 0 ? first + lo : first;
      const double scale = (double)(world * mine) / (double)n;
      glia_tensor *y = NULL, *x = make_batch(&train, order, start, take, x_buffer, y_buffer, &y);
      glia_tensor *logits = NULL, *loss = NULL;
      int64_t n_out = 0;
      check(glia_module_forward(trained, (const glia_tensor *const *)&x, 1, &logits, 1, &n_out));
      const glia_tensor *loss_inputs[] = {logits, y};
      check(glia_module_forward(loss_fn, loss_inputs, 2, &loss, 1, &n_out));
      check(glia_optimizer_zero_grad(opt, 1));
      if (scale != 1) {
        glia_tensor *scaled = NULL;
        check(glia_mul_scalar(loss, glia_scalar_float(scale), &scaled));
        check(glia_tensor_backward(scaled, NULL, 0));
        check(glia_tensor_release(scaled));
      } else {
        check(glia_tensor_backward(loss, NULL, 0));
      }
      check(glia_optimizer_step(opt));
      double value = 0;
      check(glia_tensor_item_double(loss, &value));
      loss_sum += value * (double)mine;
      my_images += mine;
      images_done += n;
      check(glia_tensor_release(loss));
      check(glia_tensor_release(logits));
      check(glia_tensor_release(x));
      check(glia_tensor_release(y));
      progress_show(&p, b + 1, my_images ? loss_sum / (double)my_images : 0, images_done, b + 1 == p.batches);
    }
    const double seconds = now_seconds() - p.start;
    train_seconds += seconds;
    if (ddp) {
      /* The epoch's loss over every rank's images. */
      const int64_t one = 1;
      glia_tensor *sum = NULL;
      check(glia_tensor_from_data(&loss_sum, sizeof loss_sum, &one, 1, GLIA_FLOAT64, &sum));
      check(glia_process_group_all_reduce(group, sum, GLIA_REDUCE_SUM, NULL));
      check(glia_tensor_copy_to_host(sum, &loss_sum, sizeof loss_sum));
      check(glia_tensor_release(sum));
      if (rank != 0) continue; /* rank 0 evaluates; the others go on to the next epoch */
    }
    const double eval_start = now_seconds();
    correct = evaluate(model, &test, predicted);
    printf("epoch %d/%lld: train loss %.4f  %.2f s  %.0f img/s  test accuracy %.4f  (eval %.2f s)\n", epoch, epochs,
           loss_sum / (double)images_done, seconds, (double)images_done / seconds, (double)correct / (double)test.n,
           now_seconds() - eval_start);
    fflush(stdout);
  }
  printf("trained in %.1f s (%.2f s/epoch)\n", train_seconds, train_seconds / (double)epochs);
  if (ddp) {
    check(glia_module_release(trained));
    check(glia_process_group_release(group));
  }
  if (rank != 0) { /* rank 0 saves, reloads and reports */
    free(order);
    free(predicted);
    free(x_buffer);
    free(y_buffer);
    free(train.pixels);
    free(train.labels);
    free(test.pixels);
    free(test.labels);
    check(glia_optimizer_release(opt));
    check(glia_module_release(loss_fn));
    check(glia_module_release(model));
    glia_shutdown();
    return 0;
  }

  /* Save as safetensors; load into a fresh model (strict); same predictions? */
  if (!save) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 40) tmp = "/tmp";
    snprintf(temp_dir, sizeof temp_dir, "%s/fashion_mnist.XXXXXX", tmp);
    if (!mkdtemp(temp_dir)) die("%s: cannot create a temporary directory: %s", temp_dir, strerror(errno));
    atexit(remove_temp);
    snprintf(temp_file, sizeof temp_file, "%s/lenet.safetensors", temp_dir);
    save = temp_file;
  }
  check(glia_module_save(model, save));
  glia_module *fresh = lenet();
  check(glia_module_load(fresh, save, 1, NULL));
  int64_t *reloaded = malloc((size_t)test.n * sizeof(int64_t));
  if (!reloaded) die("out of memory");
  const int64_t reloaded_correct = evaluate(fresh, &test, reloaded);
  int64_t differ = 0;
  for (int64_t i = 0; i < test.n; ++i) differ += reloaded[i] != predicted[i];
  if (differ || reloaded_correct != correct)
    die("the model reloaded from %s predicts differently: %lld of %lld test images, accuracy %.4f instead of %.4f",
        save, (long long)differ, (long long)test.n, (double)reloaded_correct / (double)test.n,
        (double)correct / (double)test.n);
  printf("saved to %s%s; reloaded into a fresh model: same predictions on all %lld test images\n", save,
         save == temp_file ? " (temporary)" : "", (long long)test.n);

  const double accuracy = (double)correct / (double)test.n;
  int status = 0;
  if (accuracy < min_accuracy) {
    fprintf(stderr, PROGRAM ": test accuracy %.4f is below the minimum %.4f\n", accuracy, min_accuracy);
    status = 1;
  }
  printf("test accuracy: %.4f\n", accuracy);

  free(reloaded);
  free(order);
  free(predicted);
  free(x_buffer);
  free(y_buffer);
  free(train.pixels);
  free(train.labels);
  free(test.pixels);
  free(test.labels);
  check(glia_optimizer_release(opt));
  check(glia_module_release(loss_fn));
  check(glia_module_release(model));
  check(glia_module_release(fresh));
  glia_shutdown();
  return status;
}
