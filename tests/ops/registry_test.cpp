// Walks the op registry (src/capi/ops.def): every op must be exported, have an
// adapter, a golden forward case, a finite-difference gradient check when it
// is differentiable and a second-order one when it is GRAD2; and every op the
// fixtures or adapters name must be in the registry.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "capi/op_registry.h"
#include "ops/golden_support.h"

namespace {

using glia::capi::op_registry;
using glia::capi::OpGrad;
using glia_ops_test::json;

struct Coverage {
  int forward = 0;              // cases
  int grad = 0;                 // float64 cases with gradients and a finite-difference check
  std::set<std::string> files;  // the fixtures holding its cases
};

std::map<std::string, Coverage> scan_fixtures() {
  std::map<std::string, Coverage> cov;
  std::filesystem::path dir = glia_test::data_path("golden/ops");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    json f = glia_ops_test::load_fixture(entry.path().filename().string());
    for (const json& c : f["cases"]) {
      Coverage& k = cov[c["op"].get<std::string>()];
      ++k.forward;
      k.files.insert(entry.path().stem().string());
      if (c.contains("grads") && c.value("gradcheck", true)) ++k.grad;
    }
    for (const json& c : f["errors"]) cov[c["op"].get<std::string>()];
  }
  return cov;
}

std::set<std::string> exported_symbols() {
  std::ifstream f(glia_test::data_path("../abi/glia.symbols"));
  EXPECT_TRUE(f.good()) << "cannot read abi/glia.symbols";
  std::set<std::string> s;
  for (std::string line; std::getline(f, line);) s.insert(line);
  return s;
}

TEST(OpRegistry, EveryOpIsExportedAdaptedAndCovered) {
  std::map<std::string, Coverage> cov = scan_fixtures();
  std::set<std::string> syms = exported_symbols();
  std::set<std::string> names;
  for (const auto& op : op_registry()) {
    SCOPED_TRACE(op.name);
    EXPECT_TRUE(names.insert(op.name).second) << "listed twice in ops.def";
    EXPECT_TRUE(syms.count(std::string("glia_") + op.name)) << "glia_" << op.name << " is not in abi/glia.symbols";
    EXPECT_NE(glia_ops_test::find_adapter(op.name), nullptr) << "no adapter in tests/ops/";
    auto it = cov.find(op.name);
    EXPECT_TRUE(it != cov.end() && it->second.forward > 0) << "no golden forward case in tests/golden/ops/";
    if (it != cov.end() && it->second.forward > 0) {
      // int_dtypes.json (gen_int_dtypes.py) holds the int8/int16 cases of every family besides.
      std::set<std::string> files = it->second.files;
      files.erase("int_dtypes");
      EXPECT_EQ(files, std::set<std::string>{op.fixture})
          << "ops.def names fixture " << op.fixture << ".json; the cases are elsewhere";
    }
    if (op.grad != OpGrad::None)
      EXPECT_TRUE(it != cov.end() && it->second.grad > 0)
          << "differentiable but no float64 case with gradients and a finite-difference check";
  }
  for (const auto& [op, c] : cov) EXPECT_TRUE(names.count(op)) << "fixture op " << op << " is not in ops.def";
  for (const auto& [op, a] : glia_ops_test::adapters())
    EXPECT_TRUE(names.count(op)) << "adapter " << op << " is not in ops.def";
}

}  // namespace
