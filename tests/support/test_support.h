// Helpers shared by the GoogleTest suites.
#pragma once

#include <string>

#include "glia/glia.h"

namespace glia_test {

// Path of a file under tests/ (e.g. "golden/core/print.json").
std::string data_path(const std::string& relative);
// Reads a whole file; fails the current test when it cannot.
std::string read_file(const std::string& path);

// Takes ownership of a glia_error: returns its code and message and frees it.
struct ErrorInfo {
  enum glia_error_code code;
  std::string message;
};
ErrorInfo take(glia_error* e);

}  // namespace glia_test

// The address of a value for the duration of a call: glia's optional
// arguments are pointers (glia_tensor_to(t, &kCpu, ptr_to(GLIA_FLOAT64), &out)).
template <class T>
const T* ptr_to(const T& v) {
  return &v;
}

// Asserts a glia call succeeded, printing the error message otherwise.
#define GLIA_OK_(call)                                                           \
  do {                                                                           \
    glia_error* glia_e_ = (call);                                                \
    ASSERT_EQ(glia_e_, nullptr) << #call << ": " << glia_error_message(glia_e_); \
  } while (0)
// Expects a glia call to fail with `code`; evaluates to nothing, frees the error.
#define EXPECT_GLIA_ERR(call, code)                                           \
  do {                                                                        \
    glia_error* glia_e_ = (call);                                             \
    EXPECT_NE(glia_e_, nullptr) << #call << " unexpectedly succeeded";        \
    EXPECT_EQ(glia_error_code(glia_e_), code) << glia_error_message(glia_e_); \
    glia_error_free(glia_e_);                                                 \
  } while (0)
// Expects a glia call to fail with `code` and a message containing `text`; frees the error.
#define EXPECT_GLIA_MSG(call, code, text)                                             \
  do {                                                                                \
    glia_error* glia_e_ = (call);                                                     \
    ASSERT_NE(glia_e_, nullptr) << #call << " unexpectedly succeeded";                \
    EXPECT_EQ(glia_error_code(glia_e_), code) << glia_error_message(glia_e_);         \
    EXPECT_NE(std::string(glia_error_message(glia_e_)).find(text), std::string::npos) \
        << glia_error_message(glia_e_) << "\n  expected to contain: " << (text);      \
    glia_error_free(glia_e_);                                                         \
  } while (0)
