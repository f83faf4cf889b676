// Key-value stores for rendezvous (Note [Stores]).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/refcount.h"

namespace glia::dist {

// Note [SIGPIPE]: Gloo writes to its sockets with writev() (hiredis with write()), which raises
// SIGPIPE when a peer has died; its default action would kill the host process. Every thread that may write to a peer
// runs with SIGPIPE blocked: the process group's worker thread for its lifetime, and the caller's thread (with Gloo's
// event-loop thread, which inherits the mask when the device is created) within a SigpipeGuard. writev() then fails
// with EPIPE, which Gloo reports as an error; a SIGPIPE left pending by it is consumed before the caller's mask is
// restored. The host's own disposition of SIGPIPE is never changed.
class SigpipeGuard {
 public:
  SigpipeGuard();
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  unsigned char old_[128];  // the caller's sigset_t
  bool was_pending_ = false;
};

// Note [Stores]
// The processes of a job meet through a key-value store before they can talk to each other:
// each publishes its address under a key and waits for the others' keys. The semantics are
// torch's c10d stores (torch.distributed.Store):
// - set(key, value) overwrites; get(key) waits (up to the store's timeout) for the key to exist;
// - add(key, n) treats the value as a decimal integer (absent: 0), adds n and returns the sum;
// - compare_set(key, expected, desired) sets desired when the current value is expected (or when
//   the key is absent and expected is empty) and returns the value the key has afterwards;
// - wait(keys, timeout) returns when all keys exist, or throws Error(IO) naming the missing ones
//   after the timeout; check(keys) says whether all exist now, without waiting;
// - delete_key(key) says whether the key existed; num_keys() counts the keys.
// Every blocking call has a timeout: nothing here waits forever.
// Values are bytes; keys are strings. Stores are thread-safe.
using Bytes = std::vector<uint8_t>;
using Millis = std::chrono::milliseconds;

class Store : public RefCounted {
 public:
  static constexpr Millis kDefaultTimeout{300000};  // torch's default_pg_timeout: 30 minutes; ours 5

  virtual void set(const std::string& key, const Bytes& value) = 0;
  virtual Bytes get(const std::string& key) = 0;
  virtual int64_t add(const std::string& key, int64_t amount) = 0;
  virtual Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) = 0;
  virtual bool check(const std::vector<std::string>& keys) = 0;
  virtual bool delete_key(const std::string& key) = 0;
  virtual int64_t num_keys() = 0;
  // Waits for all keys up to `timeout` (negative: the store's timeout).
  virtual void wait(const std::vector<std::string>& keys, Millis timeout) = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

  Millis timeout() const { return timeout_; }
  virtual void set_timeout(Millis t) { timeout_ = t; }

 protected:
  Millis resolve(Millis t) const { return t.count() < 0 ? timeout_ : t; }
  Millis timeout_ = kDefaultTimeout;
};

// torch's FileStore: a file shared by the processes (a local or network file system with working
// flock). Each operation appends a record under an exclusive lock; readers replay the file.
// num_workers > 0: the last of that many stores to be destroyed removes the file; a store that
// finds a file left by an earlier run (a crash, or a run with more workers) sees its keys, as
// torch's does: use a fresh path per run (init_process_group detects the common case, Note
// [Stale rendezvous]).
class FileStore final : public Store {
 public:
  FileStore(std::string path, int64_t num_workers);
  ~FileStore() override;

  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  const std::string& path() const { return path_; }

 private:
  class Locked;
  int64_t add_raw(const std::string& key, int64_t amount);
  std::string path_;
  int64_t num_workers_;
  std::mutex mu_;
  std::map<std::string, Bytes> cache_;  // replayed records
  int64_t pos_ = 0;                     // how far the file has been replayed
};

// torch's TCPStore: the server (one process, usually rank 0) holds the keys; every store,
// the server's included, talks to it over TCP. port 0 binds a free port (port()).
class TCPStore final : public Store {
 public:
  TCPStore(std::string host, int port, bool is_server, Millis timeout);
  ~TCPStore() override;

  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  int port() const { return port_; }
  const std::string& host() const { return host_; }

 private:
  struct Server;
  Bytes request(uint8_t cmd, const std::vector<Bytes>& fields);
  std::vector<Bytes> request_fields(uint8_t cmd, const std::vector<Bytes>& fields);
  void connect_client();
  std::string host_;
  int port_;
  std::unique_ptr<Server> server_;
  std::mutex mu_;
  int fd_ = -1;
};

// torch's PrefixStore: every key is "<prefix>/<key>" in the wrapped store.
class PrefixStore final : public Store {
 public:
  PrefixStore(std::string prefix, Ref<Store> store);

  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Millis timeout) override;
  void set_timeout(Millis t) override;
  const Ref<Store>& underlying() const { return store_; }

 private:
  std::string key(const std::string& k) const { return prefix_ + "/" + k; }
  std::vector<std::string> keys(const std::vector<std::string>& ks) const;
  std::string prefix_;
  Ref<Store> store_;
};

// A store in a Redis server (Gloo's RedisStore for the connection): for clusters that run Redis.
// set overwrites (torch's semantics, not Gloo's SETNX). Error(Unsupported) without Gloo.
Ref<Store> make_redis_store(const std::string& host, int port, Millis timeout);

}  // namespace glia::dist
