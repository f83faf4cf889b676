// FileStore, TCPStore and PrefixStore (Note [Stores] in store.h).
#include "distributed/store.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "core/error.h"

namespace glia::dist {

SigpipeGuard::SigpipeGuard() {
  static_assert(sizeof(sigset_t) <= sizeof(old_), "sigset_t does not fit");
  sigset_t block, pending;
  sigemptyset(&block);
  sigaddset(&block, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &block, reinterpret_cast<sigset_t*>(old_));
  was_pending_ = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
}

SigpipeGuard::~SigpipeGuard() {
  sigset_t pipe, pending;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  if (!was_pending_ && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
    timespec zero{0, 0};
    while (sigtimedwait(&pipe, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, reinterpret_cast<const sigset_t*>(old_), nullptr);
}

namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text(int e) { return std::strerror(e); }

std::string key_list(const std::vector<std::string>& keys) {
  std::string s = "[";
  for (size_t i = 0; i < keys.size(); ++i) s += (i ? ", " : "") + keys[i];
  return s + "]";
}

Bytes to_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string to_string(const Bytes& b) { return std::string(b.begin(), b.end()); }

// add()'s values are decimal integers, as torch's.
int64_t parse_int(const Bytes& b, const std::string& key, const char* who) {
  std::string s = to_string(b);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  GLIA_CHECK(!s.empty() && end && *end == '\0' && errno == 0, InvalidArgument, who, ": add: the value of key '", key,
             "' is not an integer");
  return v;
}

// Polls `ready` until it is true or `timeout` passes (1 ms doubling up to 20 ms between polls).
template <class F>
bool poll_until(Millis timeout, F ready) {
  auto deadline = Clock::now() + timeout;
  auto pause = Millis(1);
  while (true) {
    if (ready()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, Millis(20));
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// FileStore

namespace {
constexpr const char* kRegularPrefix = "/";
constexpr const char* kDeletePrefix = "-";
constexpr const char* kCleanupKey = "cleanup/";
constexpr const char* kRefCountKey = "refcount/";
}  // namespace

// The file opened and flock()ed for one operation; replays what was appended since the last one.
class FileStore::Locked {
 public:
  Locked(FileStore& s) : s_(s) {
    fd_ = ::open(s.path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    GLIA_CHECK(fd_ >= 0, IO, "FileStore: cannot open '", s.path_, "': ", errno_text(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd_);
      fail(Code::IO, "FileStore: cannot lock '", s.path_, "': ", errno_text(e));
    }
    try {
      refresh();
    } catch (...) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
      throw;
    }
  }
  ~Locked() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  void append(const std::string& key, const Bytes& value) {
    Bytes rec;
    put(rec, key.data(), key.size());
    put(rec, value.data(), value.size());
    off_t end = ::lseek(fd_, 0, SEEK_END);
    GLIA_CHECK(end >= 0, IO, "FileStore: cannot seek in '", s_.path_, "': ", errno_text(errno));
    write_all(rec);
    // Replay our own record too, so that pos_ stays at a record boundary.
    refresh();
  }

 private:
  static void put(Bytes& out, const void* p, size_t n) {
    size_t at = out.size();
    uint32_t len = static_cast<uint32_t>(n);
    out.resize(at + 4 + n);
    std::memcpy(out.data() + at, &len, 4);
    if (n) std::memcpy(out.data() + at + 4, p, n);
  }
  void write_all(const Bytes& rec) {
    size_t done = 0;
    while (done < rec.size()) {
      ssize_t w = ::write(fd_, rec.data() + done, rec.size() - done);
      if (w < 0 && errno == EINTR) continue;
      GLIA_CHECK(w > 0, IO, "FileStore: cannot write '", s_.path_, "': ", errno_text(errno));
      done += static_cast<size_t>(w);
    }
  }
  void refresh() {
    struct stat st;
    GLIA_CHECK(::fstat(fd_, &st) == 0, IO, "FileStore: cannot stat '", s_.path_, "': ", errno_text(errno));
    if (st.st_size < s_.pos_) {  // the file was removed and recreated: start over
      s_.cache_.clear();
      s_.pos_ = 0;
    }
    if (st.st_size == s_.pos_) return;
    Bytes buf(static_cast<size_t>(st.st_size - s_.pos_));
    size_t done = 0;
    while (done < buf.size()) {
      ssize_t r = ::pread(fd_, buf.data() + done, buf.size() - done, s_.pos_ + static_cast<off_t>(done));
      if (r < 0 && errno == EINTR) continue;
      GLIA_CHECK(r > 0, IO, "FileStore: cannot read '", s_.path_, "': ", errno_text(errno));
      done += static_cast<size_t>(r);
    }
    size_t at = 0;
    auto field = [&](Bytes& out) {
      if (buf.size() - at < 4) return false;
      uint32_t len;
      std::memcpy(&len, buf.data() + at, 4);
      if (buf.size() - at - 4 < len) return false;
      out.assign(buf.begin() + static_cast<ptrdiff_t>(at + 4), buf.begin() + static_cast<ptrdiff_t>(at + 4 + len));
      at += 4 + len;
      return true;
    };
    while (at < buf.size()) {
      size_t start = at;
      Bytes k, v;
      if (!field(k) || !field(v)) {
        fail(Code::Format, "FileStore: '", s_.path_, "' ends in a truncated record at byte ", s_.pos_ + start,
             " (not a store file, or written by a process that died mid-write)");
      }
      std::string key = to_string(k);
      if (key.rfind(kDeletePrefix, 0) == 0) {
        s_.cache_.erase(std::string(kRegularPrefix) + key.substr(1));
      } else {
        s_.cache_[key] = std::move(v);
      }
    }
    s_.pos_ = st.st_size;
  }
  FileStore& s_;
  int fd_ = -1;
};

FileStore::FileStore(std::string path, int64_t num_workers) : path_(std::move(path)), num_workers_(num_workers) {
  GLIA_CHECK(!path_.empty(), InvalidArgument, "FileStore: the path is empty");
  add_raw(kRefCountKey, 1);
}

FileStore::~FileStore() {
  // torch's cleanup: the last of num_workers stores to go removes the file.
  try {
    struct stat st;
    if (::stat(path_.c_str(), &st) != 0) return;
    // Both counters move under one lock: with two separate adds, the last store to count itself
    // finished need not be the one that takes the reference count to 0, and nobody removed the file.
    std::lock_guard<std::mutex> g(mu_);
    Locked f(*this);
    auto counter = [&](const char* key, int64_t amount) {
      auto it = cache_.find(key);
      int64_t v = amount + (it == cache_.end() ? 0 : parse_int(it->second, key, "FileStore"));
      f.append(key, to_bytes(std::to_string(v)));
      return v;
    };
    int64_t finished = counter(kCleanupKey, 1);
    int64_t refs = counter(kRefCountKey, -1);
    if (refs == 0 && num_workers_ > 0 && finished >= num_workers_) ::unlink(path_.c_str());
  } catch (...) {
  }
}

int64_t FileStore::add_raw(const std::string& key, int64_t amount) {
  std::lock_guard<std::mutex> g(mu_);
  Locked f(*this);
  int64_t v = amount;
  auto it = cache_.find(key);
  if (it != cache_.end())
    v += parse_int(it->second, key.substr(key.rfind(kRegularPrefix, 0) == 0 ? 1 : 0), "FileStore");
  f.append(key, to_bytes(std::to_string(v)));
  return v;
}

void FileStore::set(const std::string& key, const Bytes& value) {
  std::lock_guard<std::mutex> g(mu_);
  Locked f(*this);
  f.append(kRegularPrefix + key, value);
}

Bytes FileStore::get(const std::string& key) {
  wait({key}, timeout_);
  std::lock_guard<std::mutex> g(mu_);
  Locked f(*this);
  auto it = cache_.find(kRegularPrefix + key);
  GLIA_CHECK(it != cache_.end(), NotFound, "FileStore: key '", key, "' was deleted while get() waited for it");
  return it->second;
}

int64_t FileStore::add(const std::string& key, int64_t amount) { return add_raw(kRegularPrefix + key, amount); }

Bytes FileStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  std::lock_guard<std::mutex> g(mu_);
  Locked f(*this);
  auto it = cache_.find(kRegularPrefix + key);
  if ((it == cache_.end() && expected.empty()) || (it != cache_.end() && it->second == expected)) {
    f.append(kRegularPrefix + key, desired);
    return desired;
  }
  return it == cache_.end() ? expected : it->second;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> g(mu_);
  Locked f(*this);
  for (const auto& k : keys)
    if (!cache_.count(kRegularPrefix + k)) return false;
  return true;
}

bool FileStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> g(mu_);
  Locked f(*this);
  bool had = cache_.count(kRegularPrefix + key) > 0;
  f.append(kDeletePrefix + key, {});
  return had;
}

int64_t FileStore::num_keys() {
  std::lock_guard<std::mutex> g(mu_);
  Locked f(*this);
  int64_t n = 0;
  for (const auto& kv : cache_)
    if (kv.first.rfind(kRegularPrefix, 0) == 0) ++n;
  return n;
}

void FileStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  timeout = resolve(timeout);
  if (!poll_until(timeout, [&] { return check(keys); })) {
    std::vector<std::string> missing;
    for (const auto& k : keys)
      if (!check({k})) missing.push_back(k);
    fail(Code::IO, "FileStore: timed out after ", timeout.count(), " ms waiting for keys ", key_list(missing), " in '",
         path_, "'");
  }
}

// ---------------------------------------------------------------------------------------------
// TCPStore
//
// Frames: [u32 length][payload]. A request's payload is a command byte and fields, a response's a
// status byte (0 ok, 1 error with a message field) and fields; a field is [u32 length][bytes].

namespace {

enum Cmd : uint8_t { kSet = 1, kGet = 2, kAdd = 3, kCompareSet = 4, kCheck = 5, kDelete = 6, kNumKeys = 7 };
constexpr uint32_t kMaxFrame = 1u << 30;

void put_field(Bytes& out, const Bytes& f) {
  size_t at = out.size();
  uint32_t n = static_cast<uint32_t>(f.size());
  out.resize(at + 4 + f.size());
  std::memcpy(out.data() + at, &n, 4);
  if (!f.empty()) std::memcpy(out.data() + at + 4, f.data(), f.size());
}

Bytes frame(uint8_t head, const std::vector<Bytes>& fields) {
  Bytes out(5);
  out[4] = head;
  for (const auto& f : fields) put_field(out, f);
  uint32_t n = static_cast<uint32_t>(out.size() - 4);
  std::memcpy(out.data(), &n, 4);
  return out;
}

bool parse_fields(const uint8_t* p, size_t n, std::vector<Bytes>& out) {
  size_t at = 0;
  while (at < n) {
    if (n - at < 4) return false;
    uint32_t len;
    std::memcpy(&len, p + at, 4);
    if (n - at - 4 < len) return false;
    out.emplace_back(p + at + 4, p + at + 4 + len);
    at += 4 + len;
  }
  return true;
}

// Sends all of `b`, or returns false (peer gone, or `deadline` passed).
bool send_all(int fd, const Bytes& b, Clock::time_point deadline) {
  size_t done = 0;
  while (done < b.size()) {
    ssize_t w = ::send(fd, b.data() + done, b.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w > 0) {
      done += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd pfd{fd, POLLOUT, 0};
      ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
      continue;
    }
    return false;
  }
  return true;
}

// Receives exactly n bytes; 0 on success, else errno-like code (ETIMEDOUT, ECONNRESET).
int recv_all(int fd, uint8_t* p, size_t n, Clock::time_point deadline) {
  size_t done = 0;
  while (done < n) {
    auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
    if (left <= 0) return ETIMEDOUT;
    pollfd pfd{fd, POLLIN, 0};
    int r = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (r < 0 && errno != EINTR) return errno;
    if (r <= 0) continue;
    ssize_t got = ::recv(fd, p + done, n - done, 0);
    if (got == 0) return ECONNRESET;
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return errno;
    }
    done += static_cast<size_t>(got);
  }
  return 0;
}

}  // namespace

struct TCPStore::Server {
  int listen_fd = -1;
  int wake[2] = {-1, -1};
  int port = 0;
  std::thread thread;
  std::map<std::string, Bytes> data;

  struct Client {
    int fd;
    Bytes in;
  };

  Server(int requested_port) {
    listen_fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool v6 = listen_fd >= 0;
    if (!v6) listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    GLIA_CHECK(listen_fd >= 0, IO, "TCPStore: cannot create a socket: ", errno_text(errno));
    int one = 1, zero = 0;
    ::setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc;
    if (v6) {
      ::setsockopt(listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);  // IPv4 clients too
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_addr = in6addr_any;
      a.sin6_port = htons(static_cast<uint16_t>(requested_port));
      rc = ::bind(listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    } else {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_ANY);
      a.sin_port = htons(static_cast<uint16_t>(requested_port));
      rc = ::bind(listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    }
    if (rc != 0 && v6 && errno == EADDRNOTAVAIL) {  // IPv6 sockets but no IPv6 address: IPv4 only
      ::close(listen_fd);
      listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      GLIA_CHECK(listen_fd >= 0, IO, "TCPStore: cannot create a socket: ", errno_text(errno));
      ::setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_ANY);
      a.sin_port = htons(static_cast<uint16_t>(requested_port));
      rc = ::bind(listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    }
    if (rc != 0 || ::listen(listen_fd, 1024) != 0) {
      int e = errno;
      ::close(listen_fd);
      fail(Code::IO, "TCPStore: the server cannot listen on port ", requested_port, ": ", errno_text(e));
    }
    sockaddr_storage got{};
    socklen_t len = sizeof got;
    ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&got), &len);
    port = ntohs(got.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&got)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&got)->sin_port);
    if (::pipe2(wake, O_CLOEXEC) != 0) {
      ::close(listen_fd);
      fail(Code::IO, "TCPStore: pipe: ", errno_text(errno));
    }
    thread = std::thread([this] { run(); });
  }

  ~Server() {
    char c = 0;
    (void)!::write(wake[1], &c, 1);
    if (thread.joinable()) thread.join();
    ::close(wake[0]);
    ::close(wake[1]);
    ::close(listen_fd);
  }

  Bytes handle(const Bytes& payload) {
    std::vector<Bytes> f;
    if (payload.empty() || !parse_fields(payload.data() + 1, payload.size() - 1, f))
      return frame(1, {to_bytes("malformed request")});
    auto argc = [&](size_t n) { return f.size() == n; };
    switch (payload[0]) {
      case kSet:
        if (!argc(2)) break;
        data[to_string(f[0])] = f[1];
        return frame(0, {});
      case kGet: {
        if (!argc(1)) break;
        auto it = data.find(to_string(f[0]));
        if (it == data.end()) return frame(0, {to_bytes("0")});
        return frame(0, {to_bytes("1"), it->second});
      }
      case kAdd: {
        if (!argc(2)) break;
        std::string key = to_string(f[0]);
        int64_t v = std::stoll(to_string(f[1]));
        auto it = data.find(key);
        if (it != data.end()) {
          std::string cur = to_string(it->second);
          char* end = nullptr;
          long long c = std::strtoll(cur.c_str(), &end, 10);
          if (cur.empty() || *end) return frame(1, {to_bytes("add: the value of key '" + key + "' is not an integer")});
          v += c;
        }
        data[key] = to_bytes(std::to_string(v));
        return frame(0, {data[key]});
      }
      case kCompareSet: {
        if (!argc(3)) break;
        std::string key = to_string(f[0]);
        auto it = data.find(key);
        if ((it == data.end() && f[1].empty()) || (it != data.end() && it->second == f[1])) {
          data[key] = f[2];
          return frame(0, {f[2]});
        }
        return frame(0, {it == data.end() ? f[1] : it->second});
      }
      case kCheck: {
        for (const auto& k : f)
          if (!data.count(to_string(k))) return frame(0, {to_bytes("0")});
        return frame(0, {to_bytes("1")});
      }
      case kDelete:
        if (!argc(1)) break;
        return frame(0, {to_bytes(data.erase(to_string(f[0])) ? "1" : "0")});
      case kNumKeys:
        return frame(0, {to_bytes(std::to_string(data.size()))});
      default:
        break;
    }
    return frame(1, {to_bytes("malformed request")});
  }

  void run() {
    std::vector<Client> clients;
    while (true) {
      std::vector<pollfd> fds;
      fds.push_back({wake[0], POLLIN, 0});
      fds.push_back({listen_fd, POLLIN, 0});
      for (const auto& c : clients) fds.push_back({c.fd, POLLIN, 0});
      int r = ::poll(fds.data(), fds.size(), -1);
      if (r < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (fds[0].revents) break;
      const size_t polled = clients.size();  // fds[2 + i] exist for these; a client accepted now waits a round
      if (fds[1].revents & POLLIN) {
        int c = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c >= 0) {
          int one = 1;
          ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          clients.push_back({c, {}});
        }
      }
      std::vector<bool> drop(clients.size(), false);
      for (size_t i = 0; i < polled; ++i) {
        if (!fds[i + 2].revents) continue;
        Client& c = clients[i];
        uint8_t buf[65536];
        ssize_t got = ::recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
        if (got <= 0) {
          if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
          drop[i] = true;
          continue;
        }
        c.in.insert(c.in.end(), buf, buf + got);
        while (c.in.size() >= 4) {
          uint32_t n;
          std::memcpy(&n, c.in.data(), 4);
          if (n > kMaxFrame) {
            drop[i] = true;
            break;
          }
          if (c.in.size() < 4 + size_t(n)) break;
          Bytes payload(c.in.begin() + 4, c.in.begin() + 4 + n);
          c.in.erase(c.in.begin(), c.in.begin() + 4 + n);
          Bytes reply;
          try {
            reply = handle(payload);
          } catch (const std::exception& e) {  // a malformed number: answer, never die
            reply = frame(1, {to_bytes(std::string("bad request: ") + e.what())});
          }
          if (!send_all(c.fd, reply, Clock::now() + Millis(10000))) {
            drop[i] = true;
            break;
          }
        }
      }
      for (size_t i = clients.size(); i-- > 0;) {
        if (!drop[i]) continue;
        ::close(clients[i].fd);
        clients.erase(clients.begin() + static_cast<ptrdiff_t>(i));
      }
    }
    for (auto& c : clients) ::close(c.fd);
  }
};

TCPStore::TCPStore(std::string host, int port, bool is_server, Millis timeout) : host_(std::move(host)), port_(port) {
  GLIA_CHECK(port >= 0 && port <= 65535, InvalidArgument, "TCPStore: port must be in [0, 65535], got ", port);
  GLIA_CHECK(is_server || port > 0, InvalidArgument, "TCPStore: a client needs the server's port, got 0");
  GLIA_CHECK(timeout.count() > 0, InvalidArgument, "TCPStore: timeout must be positive, got ", timeout.count(), " ms");
  timeout_ = timeout;
  if (is_server) {
    server_ = std::make_unique<Server>(port);
    port_ = server_->port;
  }
  connect_client();
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
  server_.reset();
}

void TCPStore::connect_client() {
  // The server's own store talks to it over loopback, whatever host was given.
  std::string host = server_ ? "127.0.0.1" : host_;
  auto deadline = Clock::now() + timeout_;
  std::string last = "no address";
  auto pause = Millis(10);
  while (true) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int g = ::getaddrinfo(host.c_str(), std::to_string(port_).c_str(), &hints, &res);
    if (g != 0) {
      last = ::gai_strerror(g);
    } else {
      for (addrinfo* a = res; a; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          ::freeaddrinfo(res);
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          fd_ = fd;
          return;
        }
        last = errno_text(errno);
        ::close(fd);
      }
      ::freeaddrinfo(res);
    }
    if (Clock::now() + pause >= deadline) break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, Millis(1000));
  }
  fail(Code::IO, "TCPStore: cannot connect to the server at ", host_, ":", port_, " within ", timeout_.count(), " ms (",
       last, ")");
}

std::vector<Bytes> TCPStore::request_fields(uint8_t cmd, const std::vector<Bytes>& fields) {
  std::lock_guard<std::mutex> g(mu_);
  GLIA_CHECK(fd_ >= 0, IO, "TCPStore: the connection to ", host_, ":", port_, " was lost");
  auto deadline = Clock::now() + timeout_;
  auto lost = [&](int e) {
    ::close(fd_);
    fd_ = -1;
    if (e == ETIMEDOUT)
      fail(Code::IO, "TCPStore: no answer from the server at ", host_, ":", port_, " within ", timeout_.count(), " ms");
    fail(Code::IO, "TCPStore: lost the connection to the server at ", host_, ":", port_, " (", errno_text(e), ")");
  };
  if (!send_all(fd_, frame(cmd, fields), deadline)) lost(Clock::now() >= deadline ? ETIMEDOUT : ECONNRESET);
  uint32_t n = 0;
  if (int e = recv_all(fd_, reinterpret_cast<uint8_t*>(&n), 4, deadline)) lost(e);
  if (n == 0 || n > kMaxFrame) lost(EPROTO);
  Bytes payload(n);
  if (int e = recv_all(fd_, payload.data(), n, deadline)) lost(e);
  std::vector<Bytes> out;
  if (!parse_fields(payload.data() + 1, n - 1, out)) lost(EPROTO);
  if (payload[0] != 0)
    fail(Code::InvalidArgument, "TCPStore: ", out.empty() ? std::string("error") : to_string(out[0]));
  return out;
}

Bytes TCPStore::request(uint8_t cmd, const std::vector<Bytes>& fields) {
  std::vector<Bytes> out = request_fields(cmd, fields);
  return out.empty() ? Bytes{} : out[0];
}

void TCPStore::set(const std::string& key, const Bytes& value) {
  std::vector<Bytes> f{to_bytes(key), value};
  request(kSet, f);
}

Bytes TCPStore::get(const std::string& key) {
  // The value comes in the request that finds the key: a racing delete cannot slip between.
  Bytes value;
  bool found = poll_until(timeout_, [&] {
    std::vector<Bytes> r = request_fields(kGet, {to_bytes(key)});
    if (r.size() != 2) return false;
    value = std::move(r[1]);
    return true;
  });
  if (!found)
    fail(Code::IO, "TCPStore: timed out after ", timeout_.count(), " ms waiting for keys [", key, "] (server ", host_,
         ":", port_, ")");
  return value;
}

int64_t TCPStore::add(const std::string& key, int64_t amount) {
  Bytes r = request(kAdd, {to_bytes(key), to_bytes(std::to_string(amount))});
  return std::stoll(to_string(r));
}

Bytes TCPStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  return request(kCompareSet, {to_bytes(key), expected, desired});
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::vector<Bytes> f;
  for (const auto& k : keys) f.push_back(to_bytes(k));
  return to_string(request(kCheck, f)) == "1";
}

bool TCPStore::delete_key(const std::string& key) { return to_string(request(kDelete, {to_bytes(key)})) == "1"; }

int64_t TCPStore::num_keys() { return std::stoll(to_string(request(kNumKeys, {}))); }

void TCPStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  timeout = resolve(timeout);
  if (!poll_until(timeout, [&] { return check(keys); })) {
    std::vector<std::string> missing;
    for (const auto& k : keys)
      if (!check({k})) missing.push_back(k);
    fail(Code::IO, "TCPStore: timed out after ", timeout.count(), " ms waiting for keys ", key_list(missing),
         " (server ", host_, ":", port_, ")");
  }
}

// ---------------------------------------------------------------------------------------------
// PrefixStore

PrefixStore::PrefixStore(std::string prefix, Ref<Store> store) : prefix_(std::move(prefix)), store_(std::move(store)) {
  GLIA_CHECK(store_, InvalidArgument, "PrefixStore: the store is null");
  timeout_ = store_->timeout();
}
std::vector<std::string> PrefixStore::keys(const std::vector<std::string>& ks) const {
  std::vector<std::string> out;
  out.reserve(ks.size());
  for (const auto& k : ks) out.push_back(key(k));
  return out;
}
void PrefixStore::set(const std::string& k, const Bytes& value) { store_->set(key(k), value); }
Bytes PrefixStore::get(const std::string& k) { return store_->get(key(k)); }
int64_t PrefixStore::add(const std::string& k, int64_t amount) { return store_->add(key(k), amount); }
Bytes PrefixStore::compare_set(const std::string& k, const Bytes& expected, const Bytes& desired) {
  return store_->compare_set(key(k), expected, desired);
}
bool PrefixStore::check(const std::vector<std::string>& ks) { return store_->check(keys(ks)); }
bool PrefixStore::delete_key(const std::string& k) { return store_->delete_key(key(k)); }
// torch's PrefixStore forwards getNumKeys to the wrapped store: all its keys, not only the prefix's.
int64_t PrefixStore::num_keys() { return store_->num_keys(); }
void PrefixStore::wait(const std::vector<std::string>& ks, Millis timeout) { store_->wait(keys(ks), resolve(timeout)); }
void PrefixStore::set_timeout(Millis t) {
  timeout_ = t;
  store_->set_timeout(t);
}

}  // namespace glia::dist
