// ProcessGroupGloo: collectives on CPU tensors over Gloo's TCP transport (Note [Process groups]).
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/error.h"
#include "core/half.h"
#include "distributed/process_group.h"

#ifdef GLIA_HAVE_GLOO
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#endif

namespace glia::dist {

#ifndef GLIA_HAVE_GLOO

bool have_gloo() { return false; }

Ref<ProcessGroup> make_process_group_gloo(Ref<Store>, int, int, const ProcessGroupOptions&) {
  fail(Code::Unsupported, "ProcessGroupGloo: glia was built without Gloo (install libgloo-dev and rebuild)");
}

#else

bool have_gloo() { return true; }

namespace {

// Gloo's rendezvous talks to glia's stores through this adapter (Gloo's Store has no add).
class GlooStore final : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(Ref<dist::Store> s) : s_(std::move(s)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    s_->set(key, Bytes(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    Bytes b = s_->get(key);
    return std::vector<char>(b.begin(), b.end());
  }
  void wait(const std::vector<std::string>& keys) override { s_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    s_->wait(keys, timeout.count() > 0 ? timeout : s_->timeout());
  }

 private:
  Ref<dist::Store> s_;
};

// torch's default device: this host's name when it resolves to an address a socket can bind,
// else the loopback interface.
std::string default_hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "127.0.0.1";
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (::getaddrinfo(name, nullptr, &hints, &res) != 0) return "127.0.0.1";
  bool usable = false;
  for (addrinfo* a = res; a && !usable; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    usable = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return usable ? std::string(name) : std::string("127.0.0.1");
}

// The 16-bit floats reduce in float, rounding each partial result to the type (what Gloo's own
// float16 arithmetic does, and torch's fp16/bf16 compression hooks rely on).
template <class T, class F>
void reduce16(void* c, const void* a, const void* b, size_t n, F f) {
  T* out = static_cast<T*>(c);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) out[i] = T(f(static_cast<float>(x[i]), static_cast<float>(y[i])));
}

template <class T>
gloo::AllreduceOptions::Func reduce_fn(ReduceOp op) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg:
        return [](void* c, const void* a, const void* b, size_t n) {
          reduce16<T>(c, a, b, n, [](float u, float v) { return u + v; });
        };
      case ReduceOp::Product:
        return [](void* c, const void* a, const void* b, size_t n) {
          reduce16<T>(c, a, b, n, [](float u, float v) { return u * v; });
        };
      case ReduceOp::Min:
        return [](void* c, const void* a, const void* b, size_t n) {
          reduce16<T>(c, a, b, n, [](float u, float v) { return std::isnan(u) || u < v ? u : v; });
        };
      case ReduceOp::Max:
        return [](void* c, const void* a, const void* b, size_t n) {
          reduce16<T>(c, a, b, n, [](float u, float v) { return std::isnan(u) || u > v ? u : v; });
        };
    }
    return nullptr;
  } else {
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg:
        return [](void* c, const void* a, const void* b, size_t n) { gloo::sum<T>(c, a, b, n); };
      case ReduceOp::Product:
        return [](void* c, const void* a, const void* b, size_t n) { gloo::product<T>(c, a, b, n); };
      case ReduceOp::Min:
        return [](void* c, const void* a, const void* b, size_t n) { gloo::min<T>(c, a, b, n); };
      case ReduceOp::Max:
        return [](void* c, const void* a, const void* b, size_t n) { gloo::max<T>(c, a, b, n); };
    }
    return nullptr;
  }
}

template <class T>
constexpr bool is_float_like = std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// t /= n for Avg (in float for the 16-bit types, as torch's division of a Half tensor).
template <class T>
void divide_by(const Tensor& t, int n) {
  T* p = t.data_ptr<T>();
  if constexpr (std::is_floating_point_v<T>) {
    T d = static_cast<T>(n);
    for (int64_t i = 0, e = t.numel(); i < e; ++i) p[i] /= d;
  } else {
    float d = static_cast<float>(n);
    for (int64_t i = 0, e = t.numel(); i < e; ++i) p[i] = T(static_cast<float>(p[i]) / d);
  }
}

template <class F>
void dispatch(DType d, F f) {
  switch (d) {
    case DType::Float32:
      return f(float{});
    case DType::Float64:
      return f(double{});
    case DType::Int32:
      return f(int32_t{});
    case DType::Int64:
      return f(int64_t{});
    case DType::Int8:
      return f(int8_t{});
    case DType::UInt8:
      return f(uint8_t{});
    case DType::Float16:
      return f(Half{});
    case DType::BFloat16:
      return f(BFloat16{});
    default:
      fail(Code::DType, "ProcessGroupGloo: unsupported dtype ", dtype_name(d));
  }
}

class ProcessGroupGloo final : public ProcessGroup {
 public:
  ProcessGroupGloo(Ref<Store> store, int rank, int size, const ProcessGroupOptions& o)
      : ProcessGroup(rank, size, o.timeout), store_(store) {
    gloo::transport::tcp::attr attr;
    std::string iface = o.iface;
    if (iface.empty() && o.hostname.empty())
      if (const char* env = std::getenv("GLOO_SOCKET_IFNAME")) iface = env;
    if (!iface.empty()) {
      attr.iface = iface;
    } else {
      attr.hostname = o.hostname.empty() ? default_hostname() : o.hostname;
    }
    SigpipeGuard no_sigpipe;  // Note [SIGPIPE]: Gloo's loop thread, started here, inherits the mask
    try {
      device_ = gloo::transport::tcp::CreateDevice(attr);
    } catch (const std::exception& e) {
      fail(Code::IO, "ProcessGroupGloo: rank ", rank, " cannot open a TCP device on ",
           iface.empty() ? "host '" + attr.hostname + "'" : "interface '" + iface + "'", ": ", e.what());
    }
    context_ = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context_->setTimeout(o.timeout);
    GlooStore adapter(store);
    try {
      context_->connectFullMesh(adapter, device_);
    } catch (const Error& e) {
      fail(e.code(), "ProcessGroupGloo: rank ", rank, " of ", size, " could not connect to its peers: ", e.message());
    } catch (const std::exception& e) {
      fail(Code::IO, "ProcessGroupGloo: rank ", rank, " of ", size, " could not connect to its peers: ", e.what());
    }
  }
  ~ProcessGroupGloo() override { stop_worker(); }
  const char* backend_name() const override { return "Gloo"; }

 protected:
  uint32_t next_tag() { return tag_++; }

  // Runs a Gloo call; Gloo's exceptions become Error(IO) naming the collective and the rank.
  template <class F>
  void guarded(const char* what, F f) {
    try {
      f();
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      std::string why = e.what();
      // Gloo's messages start with the source location ("[.../pair.cc:589] ..."): keep the text.
      if (!why.empty() && why[0] == '[') {
        size_t close = why.find("] ");
        if (close != std::string::npos) why = why.substr(close + 2);
      }
      fail_collective(what, why);
    }
  }

  void run_allreduce(const Tensor& t, ReduceOp op) override {
    guarded("allreduce", [&] {
      dispatch(t.dtype(), [&](auto zero) {
        using T = decltype(zero);
        gloo::AllreduceOptions opts(context_);
        opts.setOutput(t.data_ptr<T>(), static_cast<size_t>(t.numel()));
        opts.setReduceFunction(reduce_fn<T>(op));
        opts.setTag(next_tag());
        opts.setTimeout(timeout_);
        gloo::allreduce(opts);
        if constexpr (is_float_like<T>) {
          if (op == ReduceOp::Avg) divide_by<T>(t, size_);
        }
      });
    });
  }

  void run_broadcast(const Tensor& t, int root) override {
    guarded("broadcast", [&] {
      dispatch(t.dtype(), [&](auto zero) {
        using T = decltype(zero);
        gloo::BroadcastOptions opts(context_);
        opts.setRoot(root);
        if (rank_ == root) opts.setInput(t.data_ptr<T>(), static_cast<size_t>(t.numel()));
        opts.setOutput(t.data_ptr<T>(), static_cast<size_t>(t.numel()));
        opts.setTag(next_tag());
        opts.setTimeout(timeout_);
        gloo::broadcast(opts);
      });
    });
  }

  void run_allgather(const Tensor& flat_out, const Tensor& input) override {
    guarded("allgather", [&] {
      dispatch(input.dtype(), [&](auto zero) {
        using T = decltype(zero);
        gloo::AllgatherOptions opts(context_);
        opts.setInput(input.data_ptr<T>(), static_cast<size_t>(input.numel()));
        opts.setOutput(flat_out.data_ptr<T>(), static_cast<size_t>(flat_out.numel()));
        opts.setTag(next_tag());
        opts.setTimeout(timeout_);
        gloo::allgather(opts);
      });
    });
  }

  void run_reduce(const Tensor& t, int root, ReduceOp op) override {
    guarded("reduce", [&] {
      dispatch(t.dtype(), [&](auto zero) {
        using T = decltype(zero);
        gloo::ReduceOptions opts(context_);
        opts.setRoot(root);
        // Non-root ranks' tensors stay as they were: Gloo reduces into a scratch output there.
        std::vector<T> scratch;
        opts.setInput(t.data_ptr<T>(), static_cast<size_t>(t.numel()));
        if (rank_ == root) {
          opts.setOutput(t.data_ptr<T>(), static_cast<size_t>(t.numel()));
        } else {
          scratch.resize(static_cast<size_t>(t.numel()));
          opts.setOutput(scratch.data(), scratch.size());
        }
        opts.setReduceFunction(reduce_fn<T>(op));
        opts.setTag(next_tag());
        opts.setTimeout(timeout_);
        gloo::reduce(opts);
        if constexpr (is_float_like<T>) {
          if (op == ReduceOp::Avg && rank_ == root) divide_by<T>(t, size_);
        }
      });
    });
  }

  void run_barrier() override {
    guarded("barrier", [&] {
      gloo::BarrierOptions opts(context_);
      opts.setTag(next_tag());
      opts.setTimeout(timeout_);
      gloo::barrier(opts);
    });
  }

 private:
  // Kept as torch's ProcessGroupGloo keeps its store: the TCPStore that glia_process_group_create_from_env
  // makes serves the rendezvous from rank 0, and must outlive the rendezvous of the slowest rank.
  Ref<Store> store_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::rendezvous::Context> context_;
  uint32_t tag_ = 0;
};

}  // namespace

// Note [Stale rendezvous]
// Before Gloo's rendezvous, every rank counts itself in under "<group>/init/arrived" and checks the
// world size against the one the first rank stored. A store that already counts `size` arrivals
// (a FileStore left by a crashed run, a TCPStore server reused) or a rank given another world size
// fails at once with a message saying so, instead of connecting to a dead run's addresses.
Ref<ProcessGroup> make_process_group_gloo(Ref<Store> store, int rank, int size, const ProcessGroupOptions& o) {
  GLIA_CHECK(store, InvalidArgument, "ProcessGroupGloo: the store is null");
  GLIA_CHECK(size >= 1, InvalidArgument, "ProcessGroupGloo: world size must be positive, got ", size);
  GLIA_CHECK(rank >= 0 && rank < size, InvalidArgument, "ProcessGroupGloo: invalid rank ", rank, " for world size ",
             size);
  GLIA_CHECK(o.timeout.count() > 0, InvalidArgument, "ProcessGroupGloo: timeout must be positive, got ",
             o.timeout.count(), " ms");
  Ref<Store> group = make_ref<PrefixStore>(o.group_name, store);
  group->set_timeout(o.timeout);
  check_rendezvous(*group, rank, size, o.group_name, "ProcessGroupGloo");
  return make_ref<ProcessGroupGloo>(make_ref<PrefixStore>("gloo", group), rank, size, o);
}

#endif

}  // namespace glia::dist
