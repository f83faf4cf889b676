/* w8_spawn ID REPS PROGRAM [ARGS...]: W8 (b), the cold start of a process. Runs PROGRAM REPS times
 * (after one warm-up run that fills the page cache), each a fork + exec + wait, and prints
 * "<ID> threads=1 median=<ms> unit=ms" (the median wall time) in glia_bench's format. Exits 1 when a
 * run fails. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 4 || atoi(argv[2]) < 1) {
    fprintf(stderr, "usage: w8_spawn ID REPS PROGRAM [ARGS...]\n");
    return 2;
  }
  const int reps = atoi(argv[2]);
  double *t = malloc(sizeof(double) * (size_t)reps);
  if (!t) return 1;
  for (int i = -1; i < reps; ++i) {
    const double t0 = now_ms();
    const pid_t pid = fork();
    if (pid < 0) {
      perror("w8_spawn: fork");
      return 1;
    }
    if (pid == 0) {
      execv(argv[3], argv + 3);
      perror("w8_spawn: exec");
      _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "w8_spawn: %s failed (status %d)\n", argv[3], status);
      return 1;
    }
    if (i >= 0) t[i] = now_ms() - t0;
  }
  qsort(t, (size_t)reps, sizeof(double), cmp);
  printf("%s threads=1 median=%.2f unit=ms\n", argv[1], t[reps / 2]);
  free(t);
  return 0;
}
