// The one exception type of the core and the GLIA_CHECK macro that throws it.
// src/capi/ turns it into a glia_error; nothing else catches it.
#pragma once

#include <cstdint>
#include <exception>
#include <span>
#include <sstream>
#include <string>
#include <utility>

namespace glia {

// Mirrors enum glia_error_code of glia.h value for value.
enum class Code : int32_t {
  Ok = 0,
  InvalidArgument = 1,
  InvalidHandle = 2,
  Shape = 3,
  DType = 4,
  Device = 5,
  OutOfMemory = 6,
  IO = 7,
  Format = 8,
  NotFound = 9,
  State = 10,
  Callback = 11,
  Unsupported = 12,
  Internal = 13,
};

class Error : public std::exception {
 public:
  Error(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  Code code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  Code code_;
  std::string message_;
};

namespace detail {
template <class T>
void put(std::ostream& os, const T& v) {
  os << v;
}
// Sizes print as torch prints them in messages: [2, 3].
inline void put(std::ostream& os, std::span<const int64_t> s) {
  os << '[';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << ']';
}
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (put(os, args), ...);
  return os.str();
}
}  // namespace detail

template <class... Args>
[[noreturn]] __attribute__((cold, noinline)) void fail(Code code, const Args&... args) {
  throw Error(code, detail::concat(args...));
}

}  // namespace glia

// Throws glia::Error(code, message pieces concatenated) when cond is false.
#define GLIA_CHECK(cond, code, ...)                  \
  do {                                               \
    if (__builtin_expect(!(cond), 0)) {              \
      ::glia::fail(::glia::Code::code, __VA_ARGS__); \
    }                                                \
  } while (0)
