/*
 * glia-run: torch's torchrun for glia programs in any language. It starts
 * --nproc-per-node copies of a program on this machine, each with the
 * environment of torch's env:// rendezvous (MASTER_ADDR, MASTER_PORT, RANK,
 * WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, ...), which
 * glia_process_group_create_from_env reads; forwards SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT to them; and when one worker fails (a non-zero exit
 * status or a signal) stops the others (SIGTERM, then SIGKILL after the
 * grace period) and exits with that worker's status, naming its rank.
 * docs/distributed.md, "Launching", describes it; --help lists the options.
 *
 * One process, one thread: every signal it waits for is blocked and taken
 * with sigtimedwait, so there is no signal handler and no race between a
 * signal and the loop that reaps the workers.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define PROGRAM "glia-run"
#define VERSION "0.2.0"

enum {
  MAX_WORLD_SIZE = 65536,      /* glia_process_group_create's limit */
  DEFAULT_MASTER_PORT = 29500, /* torchrun's --master-port default */
  DEFAULT_RDZV_PORT = 29400,   /* torchrun's port when --rdzv-endpoint has none */
  EXIT_USAGE = 2
};

static const double DEFAULT_GRACE_SECONDS = 30; /* torchrun's: PContext.close(timeout=30) */

/* ---- Messages ------------------------------------------------------------ */

static void say(const char *format, ...) {
  va_list args;
  fprintf(stderr, PROGRAM ": ");
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
  fflush(stderr);
}

static void usage(FILE *out) {
  fprintf(out,
          "usage: " PROGRAM
          " [--nproc-per-node N] [--nnodes N] [--node-rank R]\n"
          "                [--master-addr ADDR] [--master-port PORT] | [--rdzv-endpoint HOST[:PORT]]\n"
          "                [--standalone] [--grace-period SECONDS] [--] PROGRAM [ARGS...]\n"
          "\n"
          "Runs N copies of PROGRAM (workers) on this machine for a data-parallel job of\n"
          "--nnodes machines with N workers each, as torch's torchrun does, and gives each\n"
          "worker the environment of torch's env:// rendezvous, which\n"
          "glia_process_group_create_from_env reads:\n"
          "  MASTER_ADDR, MASTER_PORT  where rank 0 serves the rendezvous store\n"
          "  RANK, WORLD_SIZE          NODE_RANK * N + LOCAL_RANK, NNODES * N\n"
          "  LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK (the node rank), GROUP_WORLD_SIZE\n"
          "  OMP_NUM_THREADS=1         when unset and N > 1 (as torchrun)\n"
          "\n"
          "  --nproc-per-node N       workers on this machine (default 1)\n"
          "  --nnodes N               machines in the job (default 1)\n"
          "  --node-rank R            this machine's rank, 0 to NNODES-1 (default 0); node 0\n"
          "                           runs rank 0, so MASTER_ADDR must be one of its addresses\n"
          "  --master-addr ADDR       rank 0's machine (default 127.0.0.1)\n"
          "  --master-port PORT       the store's port; with --nnodes 1, 0 or none picks a free\n"
          "                           port (default 29500 with several nodes)\n"
          "  --rdzv-endpoint H[:P]    the same as --master-addr H --master-port P (default %d)\n"
          "  --standalone             one machine: 127.0.0.1 and a free port\n"
          "  --grace-period SECONDS   time between SIGTERM and SIGKILL when stopping workers\n"
          "                           (default 30)\n"
          "  --help, --version\n"
          "Options also take the form --name=value and torchrun's spellings (--nproc_per_node).\n"
          "\n"
          "SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to every worker (a second one\n"
          "kills them at once). When a worker exits with a non-zero status or is killed by a\n"
          "signal, the others get SIGTERM, then SIGKILL after the grace period.\n"
          "\n"
          "Exit status: 0 when every worker exited with 0; the first failed worker's status\n"
          "(128+N for signal N); 127 (126) when PROGRAM cannot be found (run); 1 when a\n"
          "worker cannot be started (fork); 2 for bad usage; on a forwarded signal, that signal.\n",
          DEFAULT_RDZV_PORT);
}

static void bad_usage(const char *format, ...) {
  va_list args;
  fprintf(stderr, PROGRAM ": ");
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fprintf(stderr, "\n(try " PROGRAM " --help)\n");
  exit(EXIT_USAGE);
}

/* ---- Options --------------------------------------------------------------- */

static long parse_long(const char *option, const char *text, long min, long max) {
  char *end = NULL;
  errno = 0;
  const long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < min || v > max)
    bad_usage("%s: expected an integer in [%ld, %ld], got '%s'", option, min, max, text);
  return v;
}

static const char *signal_name(int sig) {
  switch (sig) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    default:
      return "a signal";
  }
}

typedef struct {
  long nproc, nnodes, node_rank;
  const char *master_addr;
  long master_port; /* -1: not given */
  int have_rdzv, standalone, given_nnodes, given_addr;
  double grace_seconds;
  char **command; /* NULL-terminated */
} options;

static char g_rdzv_host[256]; /* the host of --rdzv-endpoint */

/* "host", "host:port", "[v6]" or "[v6]:port" */
static void parse_endpoint(options *o, const char *option, const char *text) {
  const char *host = text, *port = NULL;
  size_t n_host;
  if (text[0] == '[') {
    const char *close = strchr(text, ']');
    if (!close || (close[1] && close[1] != ':')) bad_usage("%s: expected HOST[:PORT], got '%s'", option, text);
    host = text + 1;
    n_host = (size_t)(close - host);
    if (close[1] == ':') port = close + 2;
  } else {
    const char *colon = strrchr(text, ':');
    if (colon && strchr(text, ':') != colon) colon = NULL; /* a bare IPv6 address: no port */
    n_host = colon ? (size_t)(colon - text) : strlen(text);
    if (colon) port = colon + 1;
  }
  if (n_host == 0 || n_host >= sizeof g_rdzv_host) bad_usage("%s: expected HOST[:PORT], got '%s'", option, text);
  memcpy(g_rdzv_host, host, n_host);
  g_rdzv_host[n_host] = 0;
  o->master_port = port ? parse_long(option, port, 0, 65535) : DEFAULT_RDZV_PORT;
  o->have_rdzv = 1;
}

/* The option's canonical name: "--nproc_per_node" and "--nproc-per-node" are the same. */
static int is(const char *name, const char *canonical) {
  for (; *name && *canonical; ++name, ++canonical)
    if (*name != *canonical && !(*name == '_' && *canonical == '-')) return 0;
  return *name == *canonical;
}

static options parse_options(int argc, char **argv) {
  options o;
  memset(&o, 0, sizeof o);
  o.nproc = 1;
  o.nnodes = 1;
  o.master_port = -1;
  o.grace_seconds = DEFAULT_GRACE_SECONDS;
  int given_port = 0;
  int i = 1;
  for (; i < argc; ++i) {
    const char *arg = argv[i];
    if (!strcmp(arg, "--")) {
      ++i;
      break;
    }
    if (arg[0] != '-' || !arg[1]) break; /* the program */
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      usage(stdout);
      exit(0);
    }
    if (!strcmp(arg, "--version")) {
      printf(PROGRAM " " VERSION "\n");
      exit(0);
    }
    if (strncmp(arg, "--", 2)) bad_usage("unknown option '%s'", arg);
    /* --name=value or --name value */
    char name[64];
    const char *equals = strchr(arg, '='), *value = NULL;
    const size_t n_name = equals ? (size_t)(equals - arg) : strlen(arg);
    if (n_name >= sizeof name) bad_usage("unknown option '%s'", arg);
    memcpy(name, arg, n_name);
    name[n_name] = 0;
    if (is(name, "--standalone")) {
      if (equals) bad_usage("--standalone takes no value");
      o.standalone = 1;
      continue;
    }
    static const char *const with_value[] = {"--nproc-per-node", "--nnodes",        "--node-rank",   "--master-addr",
                                             "--master-port",    "--rdzv-endpoint", "--grace-period"};
    const char *canonical = NULL;
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; ++k)
      if (is(name, with_value[k])) canonical = with_value[k];
    if (!canonical) bad_usage("unknown option '%s'", name);
    if (equals)
      value = equals + 1;
    else if (i + 1 < argc)
      value = argv[++i];
    else
      bad_usage("%s needs a value", canonical);
    if (!strcmp(canonical, "--nproc-per-node")) {
      o.nproc = parse_long(canonical, value, 1, MAX_WORLD_SIZE);
    } else if (!strcmp(canonical, "--nnodes")) {
      if (strchr(value, ':'))
        bad_usage("--nnodes: elastic ranges ('%s') are not supported, give the number of nodes", value);
      o.nnodes = parse_long(canonical, value, 1, MAX_WORLD_SIZE);
      o.given_nnodes = 1;
    } else if (!strcmp(canonical, "--node-rank")) {
      o.node_rank = parse_long(canonical, value, 0, MAX_WORLD_SIZE - 1);
    } else if (!strcmp(canonical, "--master-addr")) {
      if (!*value) bad_usage("--master-addr: expected a host name or address, got ''");
      o.master_addr = value;
      o.given_addr = 1;
    } else if (!strcmp(canonical, "--master-port")) {
      o.master_port = parse_long(canonical, value, 0, 65535);
      given_port = 1;
    } else if (!strcmp(canonical, "--rdzv-endpoint")) {
      parse_endpoint(&o, canonical, value);
    } else if (!strcmp(canonical, "--grace-period")) {
      char *end = NULL;
      o.grace_seconds = strtod(value, &end);
      if (end == value || *end || !(o.grace_seconds >= 0 && o.grace_seconds <= 86400))
        bad_usage("--grace-period: expected seconds in [0, 86400], got '%s'", value);
    }
  }
  if (i >= argc) bad_usage("no program to run (usage: " PROGRAM " [options] [--] PROGRAM [ARGS...])");
  o.command = argv + i;

  if (o.have_rdzv && (o.given_addr || given_port))
    bad_usage("--rdzv-endpoint and --master-addr/--master-port say the same thing: give one of them");
  if (o.have_rdzv) o.master_addr = g_rdzv_host;
  if (o.standalone) {
    if (o.nnodes != 1) bad_usage("--standalone runs one node, but --nnodes is %ld", o.nnodes);
    if (o.have_rdzv || o.given_addr || given_port)
      bad_usage(
          "--standalone picks the address and port itself: drop --master-addr, --master-port and --rdzv-endpoint");
    o.master_port = 0;
  }
  if (o.node_rank >= o.nnodes)
    bad_usage("--node-rank: expected a rank in [0, %ld) (--nnodes %ld), got %ld", o.nnodes, o.nnodes, o.node_rank);
  if (o.nproc * o.nnodes > MAX_WORLD_SIZE)
    bad_usage("--nnodes %ld x --nproc-per-node %ld is more than %d workers", o.nnodes, o.nproc, MAX_WORLD_SIZE);
  if (!o.master_addr) o.master_addr = "127.0.0.1";
  if (o.master_port < 0) o.master_port = o.nnodes == 1 ? 0 : DEFAULT_MASTER_PORT;
  if (o.master_port == 0 && o.nnodes > 1)
    bad_usage("--master-port 0 (a free port) needs --nnodes 1: the other nodes could not learn the port");
  return o;
}

/* A port that is free now (the kernel's choice for port 0). Rank 0 binds it a moment later, as
   torchrun --standalone's store does: another program could take it in between, in which case
   rank 0 fails to listen and says so. */
static int free_port(void) {
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int port = -1;
  if (fd >= 0) {
    int zero = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    struct sockaddr_in6 a;
    memset(&a, 0, sizeof a);
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    socklen_t n = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &n) == 0)
      port = ntohs(a.sin6_port);
    close(fd);
  }
  if (port > 0) return port;
  fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t n = sizeof a;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &n) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

/* ---- Workers ----------------------------------------------------------------- */

typedef struct {
  pid_t pid;
  long rank, local_rank;
  int running;
  int status;             /* from waitpid */
  int exec_errno;         /* the program could not be started */
  const char *start_call; /* NULL: exec failed; else the call of glia-run's that failed ("fork") */
} worker;

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void set_env_long(const char *name, long value) {
  char text[32];
  snprintf(text, sizeof text, "%ld", value);
  setenv(name, text, 1);
}

/* In the child: the environment, the signal mask glia-run started with, then exec. Reports an
   exec failure's errno through the close-on-exec pipe `report`. */
static void exec_worker(const options *o, long port, long local_rank, const sigset_t *original_mask, int report,
                        pid_t parent) {
#ifdef __linux__
  /* glia-run killed with SIGKILL cannot stop its workers: the kernel does (SIGTERM). A glia-run that
     died before this line is no longer the parent. */
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(128 + SIGTERM);
#endif
  setenv("MASTER_ADDR", o->master_addr, 1);
  set_env_long("MASTER_PORT", port);
  set_env_long("RANK", o->node_rank * o->nproc + local_rank);
  set_env_long("WORLD_SIZE", o->nnodes * o->nproc);
  set_env_long("LOCAL_RANK", local_rank);
  set_env_long("LOCAL_WORLD_SIZE", o->nproc);
  set_env_long("GROUP_RANK", o->node_rank);
  set_env_long("GROUP_WORLD_SIZE", o->nnodes);
  set_env_long("ROLE_RANK", o->node_rank * o->nproc + local_rank);
  set_env_long("ROLE_WORLD_SIZE", o->nnodes * o->nproc);
  if (o->nproc > 1) setenv("OMP_NUM_THREADS", "1", 0);
  sigprocmask(SIG_SETMASK, original_mask, NULL);
  execvp(o->command[0], o->command);
  const int e = errno;
  ssize_t ignored = write(report, &e, sizeof e);
  (void)ignored;
  _exit(e == ENOENT ? 127 : 126);
}

static const char *g_program; /* the command's name, for messages */

static void describe(const worker *w, char *text, size_t size) {
  if (w->exec_errno && w->start_call)
    snprintf(text, size, "could not be started: %s: %s", w->start_call, strerror(w->exec_errno));
  else if (w->exec_errno)
    snprintf(text, size, "could not run '%s': %s", g_program, strerror(w->exec_errno));
  else if (WIFEXITED(w->status))
    snprintf(text, size, "exited with status %d", WEXITSTATUS(w->status));
  else if (WIFSIGNALED(w->status))
    snprintf(text, size, "was killed by signal %d (%s)", WTERMSIG(w->status), signal_name(WTERMSIG(w->status)));
  else
    snprintf(text, size, "stopped with wait status %d", w->status);
}

static int failed(const worker *w) { return w->exec_errno || !WIFEXITED(w->status) || WEXITSTATUS(w->status) != 0; }

static long signal_all(worker *workers, long n, int sig) {
  long sent = 0;
  for (long i = 0; i < n; ++i)
    if (workers[i].running && kill(workers[i].pid, sig) == 0) ++sent;
  return sent;
}

int main(int argc, char **argv) {
  options o = parse_options(argc, argv);
  g_program = o.command[0];
  long port = o.master_port;
  if (port == 0) {
    port = free_port();
    if (port <= 0) {
      say("cannot find a free port for the store: %s (give --master-port)", strerror(errno));
      return 1;
    }
  }

  /* The signals glia-run waits for are blocked from here on; the workers get the original mask back. */
  signal(SIGCHLD, SIG_DFL); /* SIG_IGN inherited from the parent would reap the workers behind our back */
  sigset_t waited, original_mask;
  sigemptyset(&waited);
  sigaddset(&waited, SIGCHLD);
  /* A signal that glia-run's parent made it ignore (SIGINT and SIGQUIT for a command run with & by a
     shell without job control, everything under nohup) stays ignored, by glia-run and its workers. */
  const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  for (size_t k = 0; k < sizeof forwarded / sizeof forwarded[0]; ++k) {
    struct sigaction action;
    if (sigaction(forwarded[k], NULL, &action) == 0 && action.sa_handler == SIG_IGN) continue;
    sigaddset(&waited, forwarded[k]);
  }
  sigprocmask(SIG_BLOCK, &waited, &original_mask);

  worker *workers = calloc((size_t)o.nproc, sizeof(worker));
  if (!workers) {
    say("out of memory for %ld workers", o.nproc);
    return 1;
  }
  long running = 0;
  const worker *failure = NULL; /* the first worker that failed */
  int got_signal = 0;           /* the first forwarded signal */
  double kill_at = 0;           /* when stopping: the time SIGKILL goes out */
  int stopping = 0, killed = 0;

  fflush(stdout);
  fflush(stderr);
  const pid_t self = getpid();
  for (long local = 0; local < o.nproc; ++local) {
    worker *w = &workers[local];
    w->local_rank = local;
    w->rank = o.node_rank * o.nproc + local;
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
      w->exec_errno = errno;
      w->start_call = "pipe";
      failure = w;
      break;
    }
    const pid_t pid = fork();
    if (pid < 0) {
      w->exec_errno = errno;
      w->start_call = "fork";
      close(report[0]);
      close(report[1]);
      failure = w;
      break;
    }
    if (pid == 0) {
      close(report[0]);
      exec_worker(&o, port, local, &original_mask, report[1], self);
    }
    close(report[1]);
    w->pid = pid;
    w->running = 1;
    ++running;
    int e = 0;
    ssize_t got;
    do got = read(report[0], &e, sizeof e);
    while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof e) {
      /* exec failed: the child exits at once; the others must not start. */
      w->exec_errno = e;
      failure = w;
      break;
    }
  }
  if (failure) {
    stopping = 1;
    signal_all(workers, o.nproc, SIGTERM);
    kill_at = now_seconds() + o.grace_seconds;
  }

  while (running > 0) {
    /* Wait for a signal: a child's end, a signal to forward, or (while stopping) the SIGKILL deadline. */
    struct timespec timeout = {1, 0};
    if (stopping && !killed) {
      double left = kill_at - now_seconds();
      if (left < 0) left = 0;
      if (left < 1) {
        timeout.tv_sec = 0;
        timeout.tv_nsec = (long)(left * 1e9);
      }
    }
    siginfo_t info;
    const int sig = sigtimedwait(&waited, &info, &timeout);
    if (sig > 0 && sig != SIGCHLD) {
      if (!got_signal) {
        got_signal = sig;
        const long sent = signal_all(workers, o.nproc, sig);
        say("got %s: forwarded it to %ld worker%s", signal_name(sig), sent, sent == 1 ? "" : "s");
        if (!stopping) {
          stopping = 1;
          kill_at = now_seconds() + o.grace_seconds;
        }
      } else if (!killed) {
        const long sent = signal_all(workers, o.nproc, SIGKILL);
        say("got %s again: sent SIGKILL to %ld worker%s", signal_name(sig), sent, sent == 1 ? "" : "s");
        killed = 1;
      }
    }
    /* Reap every worker that ended (SIGCHLD or not: a timeout costs one waitpid). */
    for (;;) {
      int status = 0;
      const pid_t pid = waitpid(-1, &status, WNOHANG);
      if (pid <= 0) break;
      for (long i = 0; i < o.nproc; ++i) {
        worker *w = &workers[i];
        if (w->pid != pid || !w->running) continue;
        w->running = 0;
        w->status = status;
        --running;
        if (!failure && !got_signal && failed(w)) {
          failure = w;
          char text[128];
          describe(w, text, sizeof text);
          stopping = 1;
          kill_at = now_seconds() + o.grace_seconds;
          const long sent = signal_all(workers, o.nproc, SIGTERM);
          if (sent)
            say("rank %ld (local rank %ld, pid %ld) %s; stopping the other %ld worker%s", w->rank, w->local_rank,
                (long)w->pid, text, sent, sent == 1 ? "" : "s");
        }
      }
    }
    if (stopping && !killed && running > 0 && now_seconds() >= kill_at) {
      const long sent = signal_all(workers, o.nproc, SIGKILL);
      say("%ld worker%s still running %.3g s after %s: sent SIGKILL", sent, sent == 1 ? "" : "s", o.grace_seconds,
          got_signal ? signal_name(got_signal) : "SIGTERM");
      killed = 1;
    }
  }

  int exit_status = 0;
  if (failure) {
    char text[128];
    describe(failure, text, sizeof text);
    /* The summary, as torchrun's ChildFailedError: the worker that failed first, once, last. */
    if (failure->exec_errno)
      say("failed: rank %ld (local rank %ld) %s", failure->rank, failure->local_rank, text);
    else
      say("failed: rank %ld (local rank %ld, pid %ld) %s", failure->rank, failure->local_rank, (long)failure->pid,
          text);
    if (failure->exec_errno)
      exit_status = failure->start_call ? 1 : failure->exec_errno == ENOENT ? 127 : 126;
    else if (WIFEXITED(failure->status))
      exit_status = WEXITSTATUS(failure->status);
    else if (WIFSIGNALED(failure->status))
      exit_status = 128 + WTERMSIG(failure->status);
    else
      exit_status = 1;
  }
  free(workers);
  if (got_signal && !failure && got_signal != SIGQUIT) {
    /* Die of the signal we forwarded, so that a shell (or torchrun-like parent) sees it (SIGQUIT
       would dump core: exit 131 instead). */
    fflush(stdout);
    signal(got_signal, SIG_DFL);
    sigset_t just;
    sigemptyset(&just);
    sigaddset(&just, got_signal);
    raise(got_signal);
    sigprocmask(SIG_UNBLOCK, &just, NULL);
  }
  return got_signal && !failure ? 128 + got_signal : exit_status;
}
