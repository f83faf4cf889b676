#include "core/log.h"

#include <atomic>
#include <mutex>

namespace glia {

namespace {
struct LogState {
  std::mutex mu;
  LogFn fn = nullptr;
  void* user_data = nullptr;
  void (*free_user_data)(void*) = nullptr;
  std::atomic<int> min_level{100};  // nothing is logged without a callback
  ~LogState() {
    if (free_user_data) free_user_data(user_data);
  }
};
LogState& state() {
  static LogState s;
  return s;
}
}  // namespace

void set_log_callback(LogFn fn, LogLevel min_level, void* user_data, void (*free_user_data)(void*)) {
  LogState& s = state();
  void (*old_free)(void*) = nullptr;
  void* old_user = nullptr;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    old_free = s.free_user_data;
    old_user = s.user_data;
    s.fn = fn;
    s.user_data = user_data;
    s.free_user_data = free_user_data;
    s.min_level.store(fn ? static_cast<int>(min_level) : 100);
  }
  if (old_free) old_free(old_user);
}

bool log_enabled(LogLevel level) {
  return static_cast<int>(level) >= state().min_level.load(std::memory_order_relaxed);
}

void log(LogLevel level, const std::string& message) {
  if (!log_enabled(level)) return;
  LogState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.fn) s.fn(s.user_data, static_cast<int>(level), message.c_str());
}

}  // namespace glia
