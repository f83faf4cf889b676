/*
 * A plugin host: how a game engine or native app embeds glia without linking
 * to it. The host
 *   - dlopen()s libglia at run time (path: argv[1] or $GLIA_LIBRARY) and
 *     resolves every function it uses with dlsym() into a table;
 *   - refuses a library whose major version differs from the header's;
 *   - routes glia's tensor memory through its own allocator
 *     (glia_set_allocator) and glia's parallel kernels through its own job
 *     system, a pthreads pool of 2 workers plus the calling thread
 *     (glia_set_parallel_for);
 *   - loads a checkpoint (glia_module_load) into a small MLP and runs it once
 *     per "frame", printing the frame latency p50/p99;
 *   - calls glia_shutdown(), dlclose()s the library and loads it a second time
 *     (a hot reload), runs the same frames again, and unloads it again.
 * It exits 0 only when both rounds give bit-identical outputs, the allocator
 * got back every byte it handed out, and every registration's free_user_data
 * ran. The checkpoint is made by round 1 (argv[2] or $TMPDIR) when missing.
 *
 * Build: cc -std=c11 -I include examples/plugin/host.c -ldl -lpthread
 * Run:   ./host path/to/libglia.so.0 [checkpoint.safetensors]
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Only for the types and prototypes (used through __typeof__): nothing of glia is linked. */
#include "glia/glia.h"

/* The major version this host was written for: the header's (a test overrides it to check the refusal). */
#ifndef GLIA_HOST_PRETEND_MAJOR
#define HOST_MAJOR GLIA_VERSION_MAJOR
#else
#define HOST_MAJOR GLIA_HOST_PRETEND_MAJOR
#endif

#define N_FRAMES 300
#define BATCH 32
#define IN_FEATURES 64
#define HIDDEN 256
#define OUT_FEATURES 16

/* ------------------------------------------------------------------------ */
/* The glia functions the host uses, resolved with dlsym().                  */
/* ------------------------------------------------------------------------ */

#define GLIA_FUNCTIONS(X) \
  X(version)              \
  X(version_string)       \
  X(error_code)           \
  X(error_code_name)      \
  X(error_message)        \
  X(error_free)           \
  X(error_new)            \
  X(set_num_threads)      \
  X(set_parallel_for)     \
  X(set_log_callback)     \
  X(allocator_init)       \
  X(set_allocator)        \
  X(memory_stats_get)     \
  X(shutdown)             \
  X(manual_seed)          \
  X(inference_mode_set)   \
  X(tensor_from_data)     \
  X(tensor_copy_to_host)  \
  X(tensor_release)       \
  X(nn_linear)            \
  X(nn_relu)              \
  X(nn_sequential)        \
  X(module_release)       \
  X(module_forward)       \
  X(module_train)         \
  X(module_save)          \
  X(module_load)          \
  X(load_report_count)    \
  X(load_report_release)

typedef struct glia_api {
#define X(name) __typeof__(&glia_##name) name;
  GLIA_FUNCTIONS(X)
#undef X
} glia_api;

/* Loads the library and fills `api`; NULL (after a message) on failure. */
static void *load_glia(const char *path, glia_api *api) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "host: cannot load %s: %s\n", path, dlerror());
    return NULL;
  }
#define X(name)                                                                     \
  {                                                                                 \
    void *sym = dlsym(lib, "glia_" #name);                                          \
    if (!sym) {                                                                     \
      fprintf(stderr, "host: %s lacks glia_%s: %s\n", path, #name, dlerror());      \
      dlclose(lib);                                                                 \
      return NULL;                                                                  \
    }                                                                               \
    memcpy(&api->name, &sym, sizeof sym); /* ISO C has no void* -> function cast */ \
  }
  GLIA_FUNCTIONS(X)
#undef X
  const uint32_t v = api->version();
  if (v / 1000000u != (uint32_t)HOST_MAJOR) {
    fprintf(stderr, "host: %s is glia %s (major %u) but this host was built against glia major %d; refusing it\n", path,
            api->version_string(), (unsigned)(v / 1000000u), HOST_MAJOR);
    dlclose(lib);
    return NULL;
  }
  return lib;
}

static int g_failures = 0;

/* true when `e` is NULL; otherwise reports and frees it. */
static int ok(const glia_api *api, glia_error *e, const char *what) {
  if (!e) return 1;
  fprintf(stderr, "host: %s failed: %s: %s\n", what, api->error_code_name(api->error_code(e)), api->error_message(e));
  api->error_free(e);
  ++g_failures;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* The host's job system: 2 worker threads + the calling thread.            */
/* ------------------------------------------------------------------------ */

#define N_WORKERS 2

typedef struct job_system {
  pthread_t workers[N_WORKERS];
  pthread_mutex_t mutex;
  pthread_cond_t wake;
  pthread_cond_t done;
  pthread_mutex_t busy; /* one parallel_for at a time; a nested or concurrent call runs inline */
  /* the current job */
  glia_parallel_task_fn task;
  void *task_context;
  int64_t n_tasks;
  atomic_llong next;     /* next task index to claim */
  atomic_llong finished; /* tasks completed */
  unsigned generation;   /* bumped per job, under mutex */
  int stop;
  atomic_llong jobs_run;
  atomic_int freed; /* set by free_user_data */
} job_system;

static void run_tasks(job_system *js) {
  for (;;) {
    const long long i = atomic_fetch_add(&js->next, 1);
    if (i >= js->n_tasks) return;
    js->task(js->task_context, (int64_t)i);
    if (atomic_fetch_add(&js->finished, 1) + 1 == js->n_tasks) {
      pthread_mutex_lock(&js->mutex);
      pthread_cond_signal(&js->done);
      pthread_mutex_unlock(&js->mutex);
    }
  }
}

static void *worker_main(void *arg) {
  job_system *js = arg;
  unsigned seen = 0;
  pthread_mutex_lock(&js->mutex);
  for (;;) {
    while (!js->stop && js->generation == seen) pthread_cond_wait(&js->wake, &js->mutex);
    if (js->stop) break;
    seen = js->generation;
    pthread_mutex_unlock(&js->mutex);
    run_tasks(js);
    pthread_mutex_lock(&js->mutex);
  }
  pthread_mutex_unlock(&js->mutex);
  return NULL;
}

/* glia_parallel_for_fn: runs task(ctx, i) for i in [0, n_tasks) and waits for all. */
static glia_error *job_system_parallel_for(void *user_data, int64_t n_tasks, glia_parallel_task_fn task, void *ctx) {
  job_system *js = user_data;
  if (n_tasks <= 1 || pthread_mutex_trylock(&js->busy) != 0) {
    for (int64_t i = 0; i < n_tasks; ++i) task(ctx, i);
    return NULL;
  }
  pthread_mutex_lock(&js->mutex);
  js->task = task;
  js->task_context = ctx;
  js->n_tasks = n_tasks;
  atomic_store(&js->next, 0);
  atomic_store(&js->finished, 0);
  ++js->generation;
  pthread_cond_broadcast(&js->wake);
  pthread_mutex_unlock(&js->mutex);

  run_tasks(js); /* the caller is the third worker */

  pthread_mutex_lock(&js->mutex);
  while (atomic_load(&js->finished) < n_tasks) pthread_cond_wait(&js->done, &js->mutex);
  pthread_mutex_unlock(&js->mutex);
  atomic_fetch_add(&js->jobs_run, 1);
  pthread_mutex_unlock(&js->busy);
  return NULL;
}

static void job_system_free_user_data(void *user_data) { atomic_store(&((job_system *)user_data)->freed, 1); }

static int job_system_start(job_system *js) {
  memset(js, 0, sizeof *js);
  pthread_mutex_init(&js->mutex, NULL);
  pthread_mutex_init(&js->busy, NULL);
  pthread_cond_init(&js->wake, NULL);
  pthread_cond_init(&js->done, NULL);
  for (int i = 0; i < N_WORKERS; ++i)
    if (pthread_create(&js->workers[i], NULL, worker_main, js) != 0) return 0;
  return 1;
}

static void job_system_stop(job_system *js) {
  pthread_mutex_lock(&js->mutex);
  js->stop = 1;
  pthread_cond_broadcast(&js->wake);
  pthread_mutex_unlock(&js->mutex);
  for (int i = 0; i < N_WORKERS; ++i) pthread_join(js->workers[i], NULL);
  pthread_cond_destroy(&js->wake);
  pthread_cond_destroy(&js->done);
  pthread_mutex_destroy(&js->mutex);
  pthread_mutex_destroy(&js->busy);
}

/* ------------------------------------------------------------------------ */
/* The host's allocator (an engine would use its own heap) and log sink.    */
/* ------------------------------------------------------------------------ */

typedef struct host_heap {
  atomic_llong bytes_outstanding;
  atomic_llong blocks;
} host_heap;

static void *heap_alloc(void *user_data, size_t size, size_t alignment) {
  host_heap *h = user_data;
  void *p = NULL;
  if (posix_memalign(&p, alignment, size ? size : 1) != 0) return NULL;
  atomic_fetch_add(&h->bytes_outstanding, (long long)size);
  atomic_fetch_add(&h->blocks, 1);
  return p;
}

static void heap_free(void *user_data, void *ptr, size_t size) {
  host_heap *h = user_data;
  atomic_fetch_sub(&h->bytes_outstanding, (long long)size);
  free(ptr);
}

static void log_to_stderr(void *user_data, enum glia_log_level level, const char *message) {
  (void)user_data;
  fprintf(stderr, "glia[%d]: %s\n", (int)level, message);
}

/* ------------------------------------------------------------------------ */
/* One round: load, run N_FRAMES frames, unload.                             */
/* ------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The MLP of the checkpoint: Linear(64, 256), ReLU, Linear(256, 16). */
static glia_module *make_mlp(const glia_api *api) {
  glia_module *layers[3] = {NULL, NULL, NULL};
  glia_module *seq = NULL;
  if (ok(api, api->nn_linear(IN_FEATURES, HIDDEN, 1, NULL, &layers[0]), "nn_linear") &&
      ok(api, api->nn_relu(NULL, &layers[1]), "nn_relu") &&
      ok(api, api->nn_linear(HIDDEN, OUT_FEATURES, 1, NULL, &layers[2]), "nn_linear"))
    ok(api, api->nn_sequential(layers, 3, &seq), "nn_sequential");
  for (int i = 0; i < 3; ++i) api->error_free(api->module_release(layers[i])); /* the Sequential retains them */
  return seq;
}

/* Round `round` (1 or 2): writes N_FRAMES * BATCH * OUT_FEATURES floats to `outputs`. */
static int run_round(const char *lib_path, const char *checkpoint, int round, float *outputs) {
  glia_api api;
  void *lib = load_glia(lib_path, &api);
  if (!lib) return 0;
  printf("round %d: loaded glia %s from %s\n", round, api.version_string(), lib_path);

  host_heap heap;
  atomic_init(&heap.bytes_outstanding, 0);
  atomic_init(&heap.blocks, 0);
  glia_allocator alloc;
  api.allocator_init(&alloc);
  alloc.alloc = heap_alloc;
  alloc.free = heap_free;
  alloc.user_data = &heap;
  ok(&api, api.set_allocator(&alloc), "set_allocator");

  static job_system js; /* static: the workers keep a pointer to it */
  if (!job_system_start(&js)) {
    fprintf(stderr, "host: cannot start the job system\n");
    return 0;
  }
  ok(&api, api.set_parallel_for(job_system_parallel_for, &js, job_system_free_user_data), "set_parallel_for");
  ok(&api, api.set_num_threads(N_WORKERS + 1), "set_num_threads");
  ok(&api, api.set_log_callback(log_to_stderr, GLIA_LOG_WARNING, NULL, NULL), "set_log_callback");

  if (access(checkpoint, R_OK) != 0) { /* the tool step: train offline, here just initialise and save */
    api.manual_seed(42);
    glia_module *m = make_mlp(&api);
    if (m && ok(&api, api.module_save(m, checkpoint), "module_save"))
      printf("round %d: wrote the checkpoint %s\n", round, checkpoint);
    api.error_free(api.module_release(m));
  }

  /* A fresh model initialised differently in each round; its weights then come from the checkpoint. */
  api.manual_seed(1000u + (unsigned)round);
  glia_module *model = make_mlp(&api);
  glia_load_report *report = NULL;
  int64_t missing = -1, unexpected = -1;
  if (model && ok(&api, api.module_load(model, checkpoint, 1, &report), "module_load")) {
    ok(&api, api.load_report_count(report, GLIA_KEYS_MISSING, &missing), "load_report_count");
    ok(&api, api.load_report_count(report, GLIA_KEYS_UNEXPECTED, &unexpected), "load_report_count");
    api.error_free(api.load_report_release(report));
    printf("round %d: loaded %s (missing keys %lld, unexpected %lld)\n", round, checkpoint, (long long)missing,
           (long long)unexpected);
    ok(&api, api.module_train(model, 0), "module_train");
  }

  static double latency_us[N_FRAMES];
  static float input[BATCH * IN_FEATURES];
  const int64_t in_shape[2] = {BATCH, IN_FEATURES};
  api.inference_mode_set(1); /* per thread: the game thread runs inference only */
  for (int frame = 0; frame < N_FRAMES && model && g_failures == 0; ++frame) {
    for (int i = 0; i < BATCH * IN_FEATURES; ++i) /* this frame's observations */
      input[i] = (float)((frame * 131 + i * 7) % 97) / 48.5f - 1.0f;
    const double t0 = now_us();
    glia_tensor *x = NULL, *y = NULL;
    int64_t n_out = 0;
    if (ok(&api, api.tensor_from_data(input, sizeof input, in_shape, 2, GLIA_FLOAT32, &x), "tensor_from_data") &&
        ok(&api, api.module_forward(model, (const glia_tensor *const *)&x, 1, &y, 1, &n_out), "module_forward"))
      ok(&api,
         api.tensor_copy_to_host(y, outputs + (size_t)frame * BATCH * OUT_FEATURES,
                                 sizeof(float) * BATCH * OUT_FEATURES),
         "tensor_copy_to_host");
    api.error_free(api.tensor_release(x));
    api.error_free(api.tensor_release(y));
    latency_us[frame] = now_us() - t0;
  }
  api.inference_mode_set(0);
  api.error_free(api.module_release(model));

  qsort(latency_us, N_FRAMES, sizeof latency_us[0], cmp_double);
  printf(
      "round %d: %d frames of [%d, %d] -> [%d, %d]: latency p50 %.1f us, p99 %.1f us; %lld parallel jobs ran on the "
      "host's pool\n",
      round, N_FRAMES, BATCH, IN_FEATURES, BATCH, OUT_FEATURES, latency_us[N_FRAMES / 2],
      latency_us[N_FRAMES * 99 / 100], (long long)atomic_load(&js.jobs_run));

  glia_memory_stats stats;
  memset(&stats, 0, sizeof stats);
  stats.struct_size = sizeof stats;
  ok(&api, api.memory_stats_get(&stats), "memory_stats_get");
  if (stats.bytes_in_use != 0) {
    fprintf(stderr, "host: round %d: %llu bytes of tensors still in use after releasing everything\n", round,
            (unsigned long long)stats.bytes_in_use);
    ++g_failures;
  }

  /* Unload: glia_shutdown ends the job-system registration (free_user_data) and returns cached memory. */
  api.shutdown();
  if (!atomic_load(&js.freed)) {
    fprintf(stderr, "host: glia_shutdown did not end the job-system registration\n");
    ++g_failures;
  }
  job_system_stop(&js);
  if (atomic_load(&heap.bytes_outstanding) != 0) {
    fprintf(stderr, "host: round %d: %lld bytes of the host heap were not given back\n", round,
            (long long)atomic_load(&heap.bytes_outstanding));
    ++g_failures;
  } else
    printf("round %d: the host heap served %lld blocks, all returned\n", round, (long long)atomic_load(&heap.blocks));
  if (dlclose(lib) != 0) {
    fprintf(stderr, "host: dlclose: %s\n", dlerror());
    ++g_failures;
  }
  /* A real hot reload needs the image gone: a thread_local with a destructor, touched by any thread
   * that is still alive (this one), would pin the library and the next dlopen would return the old image. */
  void *still = dlopen(lib_path, RTLD_NOW | RTLD_NOLOAD);
  if (still) {
    fprintf(stderr, "host: round %d: the library is still mapped after glia_shutdown + dlclose\n", round);
    dlclose(still);
    ++g_failures;
  } else {
    printf("round %d: unloaded (the library is gone from the process)\n", round);
  }
  return g_failures == 0;
}

int main(int argc, char **argv) {
  const char *lib_path = argc > 1 ? argv[1] : getenv("GLIA_LIBRARY");
  if (!lib_path) {
    fprintf(stderr, "usage: %s path/to/libglia.so [checkpoint] (or set GLIA_LIBRARY)\n", argv[0]);
    return 2;
  }
  char checkpoint[4096];
  if (argc > 2) {
    snprintf(checkpoint, sizeof checkpoint, "%s", argv[2]);
  } else {
    const char *tmp = getenv("TMPDIR");
    snprintf(checkpoint, sizeof checkpoint, "%s/glia_plugin_host_%ld.safetensors", tmp ? tmp : "/tmp", (long)getpid());
  }
  remove(checkpoint);

  const size_t n = (size_t)N_FRAMES * BATCH * OUT_FEATURES;
  float *first = calloc(n, sizeof(float));
  float *second = calloc(n, sizeof(float));
  int good = first && second && run_round(lib_path, checkpoint, 1, first) && run_round(lib_path, checkpoint, 2, second);
  if (good && memcmp(first, second, n * sizeof(float)) != 0) {
    fprintf(stderr, "host: the reloaded library gave different outputs\n");
    good = 0;
  }
  if (good) printf("both rounds gave the same %zu outputs (first %.6f, last %.6f)\n", n, first[0], first[n - 1]);
  free(first);
  free(second);
  remove(checkpoint);
  return good ? 0 : 1;
}
