/*
 * The worker of the glia-run tests (tests/tools/glia_run_test.sh), a glia
 * program as a user would write one: it creates its process group from the
 * environment glia-run gives it (glia_process_group_create_from_env) and
 * all-reduces its rank.
 *
 *   glia_run_worker allreduce
 *       checks RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE against the
 *       group, all-reduces the rank and checks the sum; prints
 *       "rank R of W: sum S" and exits 0.
 *   glia_run_worker exit RANK STATUS PIDDIR
 *   glia_run_worker signal RANK SIGNAL PIDDIR
 *       every rank writes PIDDIR/<rank>.pid and all-reduces once; then rank
 *       RANK exits with STATUS (raises SIGNAL) and the others sleep (glia-run
 *       must stop them).
 *   glia_run_worker sleep PIDDIR
 *   glia_run_worker ignore-term PIDDIR
 *       writes PIDDIR/<rank>.pid and sleeps (ignoring SIGTERM); no process group.
 *
 * Exit status 77 (a skipped test) when this glia has no Gloo backend; 1 on
 * an error, with a message naming the rank.
 */
#define _POSIX_C_SOURCE 200809L
#include <glia/glia.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long g_rank = -1;

static void fail(const char *what) {
  fprintf(stderr, "worker rank %ld: %s\n", g_rank, what);
  exit(1);
}

static void check(glia_error *e, const char *call) {
  if (e) {
    fprintf(stderr, "worker rank %ld: %s failed: %s\n", g_rank, call, glia_error_message(e));
    glia_error_free(e);
    exit(1);
  }
}

static long env_long(const char *name) {
  const char *text = getenv(name);
  if (!text) {
    fprintf(stderr, "worker: %s is not set\n", name);
    exit(1);
  }
  return strtol(text, NULL, 10);
}

static void write_pid(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%ld.pid", dir, g_rank);
  char temp[4200];
  snprintf(temp, sizeof temp, "%s.tmp", path);
  FILE *f = fopen(temp, "w");
  if (!f) fail("cannot write its pid file");
  fprintf(f, "%ld\n", (long)getpid());
  fclose(f);
  if (rename(temp, path) != 0) fail("cannot rename its pid file"); /* appears complete */
}

static glia_process_group *group_from_env(void) {
  int32_t gloo = 0;
  check(glia_dist_is_gloo_available(&gloo), "glia_dist_is_gloo_available");
  if (!gloo) {
    printf("skipped: this glia has no Gloo backend\n");
    exit(77);
  }
  glia_process_group_options options;
  glia_process_group_options_init(&options);
  options.timeout_ms = 60000;
  glia_process_group *group = NULL;
  check(glia_process_group_create_from_env(&options, &group), "glia_process_group_create_from_env");
  return group;
}

/* all_reduce(rank, SUM); returns the sum. */
static int64_t all_reduce_rank(glia_process_group *group) {
  int64_t value = g_rank;
  const int64_t shape[] = {1};
  glia_tensor *t = NULL;
  check(glia_tensor_from_data(&value, sizeof value, shape, 1, GLIA_INT64, &t), "glia_tensor_from_data");
  check(glia_process_group_all_reduce(group, t, GLIA_REDUCE_SUM, NULL), "glia_process_group_all_reduce");
  int64_t sum = 0;
  check(glia_tensor_copy_to_host(t, &sum, sizeof sum), "glia_tensor_copy_to_host");
  check(glia_tensor_release(t), "glia_tensor_release");
  return sum;
}

int main(int argc, char **argv) {
  if (argc < 2) fail("usage: glia_run_worker allreduce|exit|signal|sleep|ignore-term ...");
  g_rank = env_long("RANK");
  const char *mode = argv[1];
  if (!strcmp(mode, "allreduce")) {
    const long world = env_long("WORLD_SIZE"), local = env_long("LOCAL_RANK"),
               local_world = env_long("LOCAL_WORLD_SIZE");
    const long node = env_long("GROUP_RANK");
    if (g_rank != node * local_world + local) fail("RANK is not GROUP_RANK * LOCAL_WORLD_SIZE + LOCAL_RANK");
    glia_process_group *group = group_from_env();
    int64_t rank = -1, size = -1;
    check(glia_process_group_rank(group, &rank), "glia_process_group_rank");
    check(glia_process_group_size(group, &size), "glia_process_group_size");
    if (rank != g_rank || size != world) fail("the group's rank or size is not RANK or WORLD_SIZE");
    const int64_t sum = all_reduce_rank(group);
    if (sum != (int64_t)world * (world - 1) / 2) fail("wrong sum");
    printf("rank %ld of %ld: sum %lld\n", g_rank, world, (long long)sum);
    fflush(stdout);
    check(glia_process_group_release(group), "glia_process_group_release");
    return 0;
  }
  if ((!strcmp(mode, "exit") || !strcmp(mode, "signal")) && argc == 5) {
    const long who = strtol(argv[2], NULL, 10), value = strtol(argv[3], NULL, 10);
    write_pid(argv[4]);
    glia_process_group *group = group_from_env();
    all_reduce_rank(group);
    if (g_rank == who) {
      check(glia_process_group_release(group), "glia_process_group_release"); /* no leak report to change the status */
      fprintf(stderr, "worker rank %ld: %s %ld\n", g_rank, mode, value);
      if (!strcmp(mode, "exit")) exit((int)value);
      signal((int)value, SIG_DFL);
      raise((int)value);
      fail("survived its signal");
    }
    sleep(120);
    fail("was not stopped");
  }
  if ((!strcmp(mode, "sleep") || !strcmp(mode, "ignore-term")) && argc == 3) {
    if (!strcmp(mode, "ignore-term")) signal(SIGTERM, SIG_IGN);
    write_pid(argv[2]);
    sleep(120);
    fail("was not stopped");
  }
  fail("bad arguments");
  return 1;
}
