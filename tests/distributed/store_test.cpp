// Stores (FileStore, TCPStore, PrefixStore) through the C API, in forked processes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "distributed/dist_support.h"

using namespace dist_test;
using namespace std::chrono_literals;

namespace {

std::string get_string(glia_store* s, const char* key, glia_error** err) {
  size_t n = 0;
  *err = glia_store_get(s, key, nullptr, 0, &n);
  if (*err) return {};
  std::string v(n, '\0');
  *err = glia_store_get(s, key, v.data(), n, &n);
  return v;
}

#define DGET(store, key, expected)                  \
  do {                                              \
    glia_error* ge_ = nullptr;                      \
    std::string gv_ = get_string(store, key, &ge_); \
    DOK(ge_);                                       \
    DCHECK(gv_ == std::string(expected));           \
  } while (0)

// Every operation of one store, in one process.
int exercise(glia_store* s, const std::string& prefix = "") {
  DOK(glia_store_set(s, "a", "hello", 5));
  DGET(s, "a", "hello");
  DOK(glia_store_set(s, "a", "bye", 3));  // overwrite
  DGET(s, "a", "bye");
  DOK(glia_store_set(s, "empty", nullptr, 0));
  DGET(s, "empty", "");
  int64_t v = 0;
  DOK(glia_store_add(s, "n", 5, &v));
  DCHECK(v == 5);
  DOK(glia_store_add(s, "n", -7, &v));
  DCHECK(v == -2);
  DGET(s, "n", "-2");  // add's values are decimal strings, as torch's
  DERR(glia_store_add(s, "a", 1, &v), GLIA_ERR_INVALID_ARGUMENT, "not an integer");
  // compare_set: absent + empty expected sets; a wrong expected leaves the value.
  char buf[16];
  size_t n = 0;
  DOK(glia_store_compare_set(s, "cs", nullptr, 0, "x", 1, buf, sizeof buf, &n));
  DCHECK(n == 1 && buf[0] == 'x');
  DOK(glia_store_compare_set(s, "cs", "y", 1, "z", 1, buf, sizeof buf, &n));
  DCHECK(n == 1 && buf[0] == 'x');
  DOK(glia_store_compare_set(s, "cs", "x", 1, "zz", 2, buf, sizeof buf, &n));
  DCHECK(n == 2 && std::string(buf, 2) == "zz");
  // check, wait, delete_key, num_keys.
  const char* both[] = {"a", "n"};
  const char* missing[] = {"a", "nope"};
  int32_t ok = 0;
  DOK(glia_store_check(s, both, 2, &ok));
  DCHECK(ok == 1);
  DOK(glia_store_check(s, missing, 2, &ok));
  DCHECK(ok == 0);
  DOK(glia_store_wait(s, both, 2, 1000));
  auto t0 = std::chrono::steady_clock::now();
  DERR(glia_store_wait(s, missing, 2, 200), GLIA_ERR_IO,
       "timed out after 200 ms waiting for keys [" + prefix + "nope]");
  auto waited = std::chrono::steady_clock::now() - t0;
  DCHECK(waited >= 190ms && waited < 5s);
  int64_t keys = 0;
  DOK(glia_store_num_keys(s, &keys));
  DCHECK(keys == 4);  // a, empty, n, cs
  DOK(glia_store_delete_key(s, "a", &ok));
  DCHECK(ok == 1);
  DOK(glia_store_delete_key(s, "a", &ok));
  DCHECK(ok == 0);
  DOK(glia_store_num_keys(s, &keys));
  DCHECK(keys == 3);
  // get waits up to the store's timeout.
  DOK(glia_store_set_timeout(s, 150));
  DERR(glia_store_get(s, "a", buf, sizeof buf, &n), GLIA_ERR_IO, "waiting for keys [" + prefix + "a]");
  DERR(glia_store_set_timeout(s, 0), GLIA_ERR_INVALID_ARGUMENT, "'timeout_ms' must be positive, got 0");
  // Bad arguments.
  DERR(glia_store_set(s, nullptr, "x", 1), GLIA_ERR_INVALID_ARGUMENT, "argument 'key' is NULL");
  DERR(glia_store_set(s, "k", nullptr, 3), GLIA_ERR_INVALID_ARGUMENT, "'value' is NULL with 3 bytes");
  DERR(glia_store_get(s, "n", nullptr, 4, &n), GLIA_ERR_INVALID_ARGUMENT, "'buffer' is NULL with capacity 4");
  DERR(glia_store_wait(s, nullptr, 1, 10), GLIA_ERR_INVALID_ARGUMENT, "argument 'keys' is NULL");
  return 0;
}

TEST(Store, FileStoreOperations) {
  TempDir dir;
  Result r = run_ranks(1, 60s, [&](int) {
    glia_store* s = nullptr;
    DOK(glia_store_file_create(dir.file("store").c_str(), 1, &s));
    int rc = exercise(s);
    DOK(glia_store_release(s));
    return rc;
  });
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.status[0], 0);
  // The last of num_workers stores removed the file (torch's cleanup).
  struct stat st;
  EXPECT_NE(::stat(dir.file("store").c_str(), &st), 0);
}

TEST(Store, TCPStoreOperations) {
  Result r = run_ranks(1, 60s, [&](int) {
    glia_store* s = nullptr;
    DOK(glia_store_tcp_create("127.0.0.1", 0, 1, 5000, &s));
    int32_t port = 0;
    DOK(glia_store_tcp_port(s, &port));
    DCHECK(port > 0);
    int rc = exercise(s);
    DOK(glia_store_release(s));
    return rc;
  });
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.status[0], 0);
}

TEST(Store, PrefixStoreOperations) {
  Result r = run_ranks(1, 60s, [&](int) {
    glia_store *base = nullptr, *p = nullptr;
    DOK(glia_store_tcp_create("127.0.0.1", 0, 1, 5000, &base));
    DOK(glia_store_prefix_create("pre", base, &p));
    int rc = exercise(p, "pre/");
    if (rc) return rc;
    // The prefixed keys are in the wrapped store under "pre/".
    DOK(glia_store_set(p, "k", "v", 1));
    DGET(base, "pre/k", "v");
    int32_t ok = 0;
    const char* k[] = {"k"};
    DOK(glia_store_check(base, k, 1, &ok));
    DCHECK(ok == 0);
    DERR(glia_store_tcp_port(p, nullptr), GLIA_ERR_INVALID_ARGUMENT, "out_port");
    int32_t port = 0;
    DERR(glia_store_tcp_port(p, &port), GLIA_ERR_INVALID_ARGUMENT, "not a TCP store");
    DOK(glia_store_release(p));
    DOK(glia_store_release(base));
    return 0;
  });
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.status[0], 0);
}

// N processes count themselves in and read each other's keys.
int rendezvous(glia_store* s, int rank, int n) {
  std::string mine = "rank" + std::to_string(rank);
  DOK(glia_store_set(s, mine.c_str(), mine.data(), mine.size()));
  int64_t v = 0;
  DOK(glia_store_add(s, "count", 1, &v));
  DCHECK(v >= 1 && v <= n);
  std::vector<std::string> names;
  for (int r = 0; r < n; ++r) names.push_back("rank" + std::to_string(r));
  std::vector<const char*> keys;
  for (auto& k : names) keys.push_back(k.c_str());
  DOK(glia_store_wait(s, keys.data(), n, 10000));
  for (int r = 0; r < n; ++r) DGET(s, keys[r], names[r]);
  // Everyone has added once the count reaches n.
  const char* c[] = {"count"};
  DOK(glia_store_wait(s, c, 1, 10000));
  for (int i = 0; i < 1000; ++i) {
    DOK(glia_store_add(s, "count", 0, &v));
    if (v == n) break;
    usleep(2000);
  }
  DCHECK(v == n);
  return 0;
}

TEST(Store, FileStoreAcrossProcesses) {
  TempDir dir;
  const int n = 3;
  Result r = run_ranks(n, 60s, [&](int rank) {
    glia_store* s = nullptr;
    DOK(glia_store_file_create(dir.file("store").c_str(), n, &s));
    int rc = rendezvous(s, rank, n);
    // Nobody releases (and so removes the file) before all have read.
    int64_t v = 0;
    DOK(glia_store_add(s, "done", 1, &v));
    const char* d[] = {"done"};
    DOK(glia_store_wait(s, d, 1, 10000));
    while (v < n) {
      DOK(glia_store_add(s, "done", 0, &v));
      usleep(2000);
    }
    DOK(glia_store_release(s));
    return rc;
  });
  ASSERT_FALSE(r.timed_out);
  for (int i = 0; i < n; ++i) EXPECT_EQ(r.status[i], 0) << "rank " << i;
  struct stat st;
  EXPECT_NE(::stat(dir.file("store").c_str(), &st), 0);  // the last of the 3 removed it
}

TEST(Store, TCPStoreAcrossProcesses) {
  const int n = 3;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  Result r = run_ranks(n, 60s, [&](int rank) {
    glia_store* s = nullptr;
    int32_t port = 0;
    if (rank == 0) {
      DOK(glia_store_tcp_create("127.0.0.1", 0, 1, 10000, &s));
      DOK(glia_store_tcp_port(s, &port));
      for (int i = 1; i < n; ++i) DCHECK(::write(fds[1], &port, 4) == 4);
    } else {
      DCHECK(::read(fds[0], &port, 4) == 4);
      DOK(glia_store_tcp_create("localhost", port, 0, 10000, &s));
    }
    int rc = rendezvous(s, rank, n);
    if (rc) return rc;
    // The server lives until the clients are done.
    int64_t v = 0;
    DOK(glia_store_add(s, "done", 1, &v));
    if (rank == 0) {
      while (v < n) {
        DOK(glia_store_add(s, "done", 0, &v));
        usleep(2000);
      }
    }
    DOK(glia_store_release(s));
    return 0;
  });
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_FALSE(r.timed_out);
  for (int i = 0; i < n; ++i) EXPECT_EQ(r.status[i], 0) << "rank " << i;
}

TEST(Store, TCPStoreErrors) {
  Result r = run_ranks(1, 60s, [&](int) {
    glia_store* s = nullptr;
    DERR(glia_store_tcp_create("127.0.0.1", 0, 0, 1000, &s), GLIA_ERR_INVALID_ARGUMENT, "'port' is 0 for a client");
    DERR(glia_store_tcp_create("127.0.0.1", 70000, 1, 1000, &s), GLIA_ERR_INVALID_ARGUMENT,
         "'port' must be in [0, 65535], got 70000");
    DERR(glia_store_tcp_create("127.0.0.1", 0, 1, 0, &s), GLIA_ERR_INVALID_ARGUMENT, "'timeout_ms' must be positive");
    // A server's port, then nobody listening there: the client retries until its timeout.
    glia_store* server = nullptr;
    int32_t port = 0;
    DOK(glia_store_tcp_create("127.0.0.1", 0, 1, 1000, &server));
    DOK(glia_store_tcp_port(server, &port));
    // A second server on the same port fails.
    DERR(glia_store_tcp_create("127.0.0.1", port, 1, 1000, &s), GLIA_ERR_IO, "cannot listen on port");
    DOK(glia_store_release(server));
    auto t0 = std::chrono::steady_clock::now();
    DERR(glia_store_tcp_create("127.0.0.1", port, 0, 500, &s), GLIA_ERR_IO,
         "cannot connect to the server at 127.0.0.1:");
    auto took = std::chrono::steady_clock::now() - t0;
    DCHECK(took < 5s);
    return 0;
  });
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.status[0], 0);
}

// A client whose server process dies gets an error, not a hang.
TEST(Store, TCPStoreServerDies) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  Result r = run_ranks(2, 60s, [&](int rank) {
    glia_store* s = nullptr;
    int32_t port = 0;
    if (rank == 0) {
      DOK(glia_store_tcp_create("127.0.0.1", 0, 1, 5000, &s));
      DOK(glia_store_tcp_port(s, &port));
      DCHECK(::write(fds[1], &port, 4) == 4);
      const char* k[] = {"client_ready"};
      DOK(glia_store_wait(s, k, 1, 10000));
      ::_exit(0);  // dies without releasing anything
    }
    DCHECK(::read(fds[0], &port, 4) == 4);
    DOK(glia_store_tcp_create("127.0.0.1", port, 0, 5000, &s));
    DOK(glia_store_set(s, "client_ready", "1", 1));
    auto t0 = std::chrono::steady_clock::now();
    char buf[4];
    size_t n = 0;
    glia_error* e = glia_store_get(s, "never", buf, sizeof buf, &n);
    DCHECK(e != nullptr);
    DCHECK(glia_error_code(e) == GLIA_ERR_IO);
    std::string m = glia_error_message(e);
    glia_error_free(e);
    DCHECK(m.find("TCPStore: lost the connection to the server at 127.0.0.1:") != std::string::npos);
    DCHECK(std::chrono::steady_clock::now() - t0 < 5s);
    DOK(glia_store_release(s));
    return 0;
  });
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.status[0], 0);
  EXPECT_EQ(r.status[1], 0);
}

// torch's semantics for a file left behind: a store opened on it sees the earlier run's keys.
TEST(Store, FileStoreStaleFileKeepsKeys) {
  TempDir dir;
  Result crashed = run_ranks(1, 60s, [&](int) {
    glia_store* s = nullptr;
    DOK(glia_store_file_create(dir.file("store").c_str(), 2, &s));
    DOK(glia_store_set(s, "old", "1", 1));
    ::_exit(0);  // no release: the file stays
  });
  ASSERT_EQ(crashed.status[0], 0);
  Result r = run_ranks(1, 60s, [&](int) {
    glia_store* s = nullptr;
    DOK(glia_store_file_create(dir.file("store").c_str(), 1, &s));
    DGET(s, "old", "1");
    DOK(glia_store_release(s));
    return 0;
  });
  EXPECT_EQ(r.status[0], 0);
  // The earlier run's reference count keeps the file: its store was never released.
  struct stat st;
  EXPECT_EQ(::stat(dir.file("store").c_str(), &st), 0);
}

// Gloo's Redis store against a real redis-server started here on a free port.
TEST(Store, RedisStoreOperations) {
  int32_t gloo = 0;
  glia_error_free(glia_dist_is_gloo_available(&gloo));
  if (!gloo) GTEST_SKIP() << "glia was built without Gloo: no Redis store";
  const char* server = "/usr/bin/redis-server";
  if (::access(server, X_OK) != 0) GTEST_SKIP() << "no " << server << " (apt-get install redis-server)";
  // A free port: a TCP store server binds port 0 and is released.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  Result probe = run_ranks(1, 30s, [&](int) {
    glia_store* s = nullptr;
    DOK(glia_store_tcp_create("127.0.0.1", 0, 1, 1000, &s));
    int32_t port = 0;
    DOK(glia_store_tcp_port(s, &port));
    DOK(glia_store_release(s));
    DCHECK(::write(fds[1], &port, 4) == 4);
    return 0;
  });
  ASSERT_EQ(probe.status[0], 0);
  int32_t port = 0;
  ASSERT_EQ(::read(fds[0], &port, 4), 4);
  ::close(fds[0]);
  ::close(fds[1]);
  TempDir dir;
  pid_t redis = ::fork();
  if (redis == 0) {
    std::string p = std::to_string(port);
    FILE* log = std::fopen((dir.path + "/redis.log").c_str(), "w");
    if (log) {
      ::dup2(fileno(log), 1);
      ::dup2(fileno(log), 2);
    }
    ::execl(server, server, "--port", p.c_str(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
            dir.path.c_str(), "--daemonize", "no", "--loglevel", "warning", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(redis, 0);
  Result r = run_ranks(2, 60s, [&](int rank) {
    glia_store* s = nullptr;
    // The server needs a moment to listen: retry the connection for up to 10 s.
    glia_error* e = nullptr;
    for (int i = 0; i < 200; ++i) {
      glia_error_free(e);
      e = glia_store_redis_create("127.0.0.1", port, 5000, &s);
      if (!e) break;
      usleep(50000);
    }
    DOK(e);
    if (rank == 0) {
      int rc = exercise(s);
      if (rc) return rc;
      DOK(glia_store_set(s, "rank0_done", "1", 1));
    } else {
      // A second client sees the first's keys.
      const char* k[] = {"rank0_done"};
      DOK(glia_store_wait(s, k, 1, 20000));
      DGET(s, "n", "-2");
    }
    DOK(glia_store_release(s));
    return 0;
  });
  ::kill(redis, SIGTERM);
  ::waitpid(redis, nullptr, 0);
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.status, (std::vector<int>{0, 0}));
  // No server there any more: a clear error, at once.
  Result gone = run_ranks(1, 30s, [&](int) {
    glia_store* s = nullptr;
    DERR(glia_store_redis_create("127.0.0.1", port, 1000, &s), GLIA_ERR_IO,
         "RedisStore: cannot connect to the Redis server at 127.0.0.1:" + std::to_string(port));
    DERR(glia_store_redis_create("127.0.0.1", 0, 1000, &s), GLIA_ERR_INVALID_ARGUMENT,
         "'port' must be in [1, 65535], got 0");
    return 0;
  });
  EXPECT_EQ(gone.status[0], 0);
}

TEST(Store, InvalidHandles) {
  Result r = run_ranks(1, 60s, [&](int) {
    int64_t v = 0;
    DERR(glia_store_add(nullptr, "k", 1, &v), GLIA_ERR_INVALID_HANDLE, "store");
    DERR(glia_store_file_create(nullptr, 1, nullptr), GLIA_ERR_INVALID_ARGUMENT, "argument 'path' is NULL");
    DERR(glia_store_file_create("/nonexistent-dir/x/store", 1, (glia_store**)&v), GLIA_ERR_IO, "cannot open");
    DCHECK(glia_store_release(nullptr) == nullptr);
    return 0;
  });
  EXPECT_EQ(r.status[0], 0);
}

}  // namespace
