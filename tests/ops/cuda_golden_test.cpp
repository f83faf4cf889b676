// The golden cases of the ops the CUDA backend covers (tests/cuda/golden_ops.txt), on cuda:0: outputs and
// gradients against torch's fixture values, as Note [Golden cases on every device] runs them on the test
// device, with no unsupported kernel accepted. Without a usable GPU the test is skipped (GTEST_SKIP, "no CUDA
// device: <the backend's status>"), never passed; ctest's cuda.golden (label cuda) runs it in
// scripts/gpu-check.sh's golden-cuda stage.
#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ops/golden_support.h"

namespace {

#ifdef GLIA_CUDA_BACKEND_PATH
// Why cuda:0 cannot run the cases ("" when it can). ops_tests links the core statically, so the backend is
// loaded by path (as glia-test-ops --backend cuda does).
std::string cuda_unavailable() {
  if (glia_error* e = glia_backend_load(GLIA_CUDA_BACKEND_PATH)) {
    std::string why = std::string("the CUDA backend does not load: ") + glia_error_message(e);
    glia_error_free(e);
    return why;
  }
  if (glia_cuda_is_available()) return "";
  int32_t n = 0;
  char buf[512] = {};
  size_t len = 0;
  glia_error_free(glia_backend_status(GLIA_CUDA, &n, buf, sizeof buf, &len));
  return buf[0] ? buf : "glia_cuda_is_available() is 0";
}
#endif

}  // namespace

TEST(CudaGolden, CoveredOps) {
#ifndef GLIA_CUDA_BACKEND_PATH
  GTEST_SKIP() << "no CUDA device: this build has no CUDA backend";
#else
  const std::string why = cuda_unavailable();
  if (!why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
  std::set<std::string> ops, forward_only;
  std::istringstream in(glia_test::read_file(glia_test::data_path("cuda/golden_ops.txt")));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find(' ');
    const std::string op = line.substr(0, sp);
    ops.insert(op);
    if (sp != std::string::npos) {
      ASSERT_EQ(line.substr(sp + 1), "forward") << "tests/cuda/golden_ops.txt: " << line;
      forward_only.insert(op);
    }
  }
  ASSERT_FALSE(ops.empty());
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(glia_test::data_path("golden/ops")))
    if (f.path().extension() == ".json") files.push_back(f.path().filename().string());
  std::sort(files.begin(), files.end());
  const glia_device dev{GLIA_CUDA, 0};
  std::set<std::string> seen;
  int cases = 0;
  for (const std::string& file : files) {
    const glia_ops_test::json fixture = glia_ops_test::load_fixture(file);
    if (!fixture.contains("cases")) continue;
    for (const auto& c : fixture["cases"])
      if (ops.count(c["op"].get<std::string>())) seen.insert(c["op"].get<std::string>());
    cases += glia_ops_test::run_cases_on(file.c_str(), &dev, "cuda:0", ops, forward_only);
  }
  for (const std::string& op : ops)
    EXPECT_TRUE(seen.count(op)) << "tests/cuda/golden_ops.txt names " << op << ", which has no golden case";
  EXPECT_GT(cases, 0);
#endif
}
