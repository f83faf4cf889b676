#include "support/test_support.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace glia_test {

std::string data_path(const std::string& relative) { return std::string(GLIA_TEST_DATA_DIR) + "/" + relative; }

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

ErrorInfo take(glia_error* e) {
  ErrorInfo info{glia_error_code(e), glia_error_message(e)};
  glia_error_free(e);
  return info;
}

}  // namespace glia_test
