// Multi-process test harness for the distributed tests: each rank is a forked child that runs a
// body and exits with its status; the parent reaps every child and kills those still running at
// the deadline, so that a hang fails the test instead of hanging CI.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "glia/glia.h"

namespace dist_test {

inline int g_rank = -1;

// In a child: report and return 1 from the body.
#define DCHECK(cond)                                                                                            \
  do {                                                                                                          \
    if (!(cond)) {                                                                                              \
      std::fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", dist_test::g_rank, __FILE__, __LINE__, #cond); \
      return 1;                                                                                                 \
    }                                                                                                           \
  } while (0)

#define DOK(call)                                                                                           \
  do {                                                                                                      \
    glia_error* e_ = (call);                                                                                \
    if (e_) {                                                                                               \
      std::fprintf(stderr, "rank %d: %s:%d: %s failed: %s\n", dist_test::g_rank, __FILE__, __LINE__, #call, \
                   glia_error_message(e_));                                                                 \
      glia_error_free(e_);                                                                                  \
      return 1;                                                                                             \
    }                                                                                                       \
  } while (0)

// The call must fail with `code` and a message containing `text`.
inline bool expect_error(glia_error* e, int code, const std::string& text, const char* call, const char* file,
                         int line) {
  if (!e) {
    std::fprintf(stderr, "rank %d: %s:%d: %s succeeded, expected %s\n", g_rank, file, line, call,
                 glia_error_code_name((enum glia_error_code)(code)));
    return false;
  }
  std::string m = glia_error_message(e);
  int c = glia_error_code(e);
  glia_error_free(e);
  if (c != code || m.find(text) == std::string::npos) {
    std::fprintf(stderr, "rank %d: %s:%d: %s: got %s \"%s\", expected %s with \"%s\"\n", g_rank, file, line, call,
                 glia_error_code_name((enum glia_error_code)(c)), m.c_str(),
                 glia_error_code_name((enum glia_error_code)(code)), text.c_str());
    return false;
  }
  return true;
}
#define DERR(call, code, text)                                                                 \
  do {                                                                                         \
    if (!dist_test::expect_error((call), (code), (text), #call, __FILE__, __LINE__)) return 1; \
  } while (0)

struct Result {
  std::vector<int> status;  // exit status per rank; -1: killed at the deadline; -2: killed by a signal
  bool timed_out = false;
};

// Forks n children running body(rank); waits up to `deadline`.
inline Result run_ranks(int n, std::chrono::seconds deadline, const std::function<int(int)>& body) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> pids(n, -1);
  for (int r = 0; r < n; ++r) {
    pid_t p = ::fork();
    if (p == 0) {
      g_rank = r;
      int rc = 1;
      try {
        rc = body(r);
      } catch (...) {
        std::fprintf(stderr, "rank %d: exception\n", r);
      }
      std::fflush(stderr);
      ::_exit(rc);
    }
    pids[r] = p;
  }
  Result res;
  res.status.assign(n, -1);
  int left = n;
  auto end = std::chrono::steady_clock::now() + deadline;
  while (left > 0 && std::chrono::steady_clock::now() < end) {
    int st = 0;
    pid_t p = ::waitpid(-1, &st, WNOHANG);
    if (p <= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    for (int r = 0; r < n; ++r) {
      if (pids[r] != p) continue;
      res.status[r] = WIFEXITED(st) ? WEXITSTATUS(st) : -2;
      pids[r] = -1;
      --left;
    }
  }
  if (left > 0) {
    res.timed_out = true;
    for (int r = 0; r < n; ++r) {
      if (pids[r] < 0) continue;
      ::kill(pids[r], SIGKILL);
      ::waitpid(pids[r], nullptr, 0);
    }
  }
  return res;
}

// A fresh directory under $TMPDIR, removed with its files by the destructor.
struct TempDir {
  std::string path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string t = std::string(base && *base ? base : "/tmp") + "/glia-dist-XXXXXX";
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data())) path = buf.data();
  }
  ~TempDir() {
    if (!path.empty()) std::system(("rm -rf '" + path + "'").c_str());
  }
  std::string file(const std::string& name) const { return path + "/" + name; }
};

}  // namespace dist_test
