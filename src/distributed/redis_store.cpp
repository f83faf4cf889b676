// RedisStore: the keys live in a Redis server (Note [Stores] in store.h), through Gloo's
// gloo::rendezvous::RedisStore (its connection) and hiredis for what Gloo's class lacks.
#include <sys/time.h>

#include <cstring>

#include "core/error.h"
#include "distributed/store.h"

#ifdef GLIA_HAVE_GLOO
#define HIREDIS_NESTED_INCLUDE 1
#include <gloo/rendezvous/redis_store.h>
#endif

namespace glia::dist {

#ifndef GLIA_HAVE_GLOO

Ref<Store> make_redis_store(const std::string&, int, Millis) {
  fail(Code::Unsupported, "RedisStore: glia was built without Gloo (install libgloo-dev and rebuild)");
}

#else

namespace {

// Gloo's store, for its connection; every command goes through hiredis here because Gloo's set is
// SETNX (no overwrite) and it has no add, delete or count.
class GlooRedis final : public gloo::rendezvous::RedisStore {
 public:
  GlooRedis(const std::string& host, int port) : gloo::rendezvous::RedisStore(host, port) {}
  redisContext* context() { return redis_; }
};

class RedisStore final : public Store {
 public:
  RedisStore(const std::string& host, int port, Millis timeout) : where_(host + ":" + std::to_string(port)) {
    GLIA_CHECK(port > 0 && port <= 65535, InvalidArgument, "RedisStore: port must be in [1, 65535], got ", port);
    GLIA_CHECK(timeout.count() > 0, InvalidArgument, "RedisStore: timeout must be positive, got ", timeout.count(),
               " ms");
    timeout_ = timeout;
    try {
      redis_ = std::make_unique<GlooRedis>(host, port);
    } catch (const std::exception& e) {
      fail(Code::IO, "RedisStore: cannot connect to the Redis server at ", where_, ": ", e.what());
    }
    timeval tv{static_cast<time_t>(timeout.count() / 1000), static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
    redisSetTimeout(redis_->context(), tv);  // no command blocks longer than the timeout
  }

  void set(const std::string& key, const Bytes& value) override {
    Reply r = command("SET %b %b", key.data(), key.size(), value.data(), value.size());
  }
  Bytes get(const std::string& key) override {
    wait({key}, timeout_);
    Reply r = command("GET %b", key.data(), key.size());
    GLIA_CHECK(r->type == REDIS_REPLY_STRING, NotFound, "RedisStore: key '", key,
               "' was deleted while get() waited for it");
    return Bytes(r->str, r->str + r->len);
  }
  int64_t add(const std::string& key, int64_t amount) override {
    Reply r = command("INCRBY %b %lld", key.data(), key.size(), static_cast<long long>(amount));
    GLIA_CHECK(r->type == REDIS_REPLY_INTEGER, InvalidArgument, "RedisStore: add: the value of key '", key,
               "' is not an integer");
    return r->integer;
  }
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override {
    // One Lua script: atomic on the server.
    static const char* script =
        "local v = redis.call('GET', KEYS[1]) "
        "if (v == false and ARGV[1] == '') or v == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return ARGV[2] "
        "end if v == false then return ARGV[1] end return v";
    Reply r = command("EVAL %s 1 %b %b %b", script, key.data(), key.size(), expected.data(), expected.size(),
                      desired.data(), desired.size());
    GLIA_CHECK(r->type == REDIS_REPLY_STRING, IO, "RedisStore: compare_set: unexpected reply from ", where_);
    return Bytes(r->str, r->str + r->len);
  }
  bool check(const std::vector<std::string>& keys) override {
    for (const auto& k : keys) {
      Reply r = command("EXISTS %b", k.data(), k.size());
      if (r->type != REDIS_REPLY_INTEGER || r->integer == 0) return false;
    }
    return true;
  }
  bool delete_key(const std::string& key) override {
    Reply r = command("DEL %b", key.data(), key.size());
    return r->type == REDIS_REPLY_INTEGER && r->integer > 0;
  }
  int64_t num_keys() override {
    Reply r = command("DBSIZE");
    return r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
  }
  void wait(const std::vector<std::string>& keys, Millis timeout) override {
    timeout = resolve(timeout);
    auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = Millis(1);
    while (!check(keys)) {
      if (std::chrono::steady_clock::now() >= deadline) {
        std::string list;
        for (const auto& k : keys)
          if (!check({k})) list += (list.empty() ? "" : ", ") + k;
        fail(Code::IO, "RedisStore: timed out after ", timeout.count(), " ms waiting for keys [", list, "] (server ",
             where_, ")");
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, Millis(20));
    }
  }

 private:
  struct Free {
    void operator()(redisReply* r) const { freeReplyObject(r); }
  };
  using Reply = std::unique_ptr<redisReply, Free>;

  template <class... A>
  Reply command(const char* fmt, A... args) {
    std::lock_guard<std::mutex> g(mu_);
    SigpipeGuard no_sigpipe;  // Note [SIGPIPE] (store.h): hiredis writes with write()
    redisContext* c = redis_->context();
    auto* r = static_cast<redisReply*>(redisCommand(c, fmt, args...));
    if (!r) fail(Code::IO, "RedisStore: lost the connection to the Redis server at ", where_, " (", c->errstr, ")");
    Reply reply(r);
    if (r->type == REDIS_REPLY_ERROR && std::strncmp(r->str, "ERR value is not an integer", 27) != 0)
      fail(Code::IO, "RedisStore: the Redis server at ", where_, " answered: ", std::string(r->str, r->len));
    return reply;
  }

  std::string where_;
  std::unique_ptr<GlooRedis> redis_;
  std::mutex mu_;
};

}  // namespace

Ref<Store> make_redis_store(const std::string& host, int port, Millis timeout) {
  return make_ref<RedisStore>(host, port, timeout);
}

#endif

}  // namespace glia::dist
