// Type promotion against torch 1.13 (tests/golden/gen_core.py, core/promotion.json): promote_types for
// every pair of the 10 dtypes, and result_type of a tensor with a 0-dim tensor and with Python scalars.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/tensor.h"
#include "ops/iter.h"
#include "support/test_support.h"

namespace {

using glia::DType;
using glia::Tensor;
using nlohmann::json;

DType dtype_named(const std::string& name) {
  for (int i = 0; i < glia::kNumDTypes; ++i)
    if (name == glia::dtype_name(static_cast<DType>(i))) return static_cast<DType>(i);
  ADD_FAILURE() << "unknown dtype " << name;
  return DType::Float32;
}

json load_rows() { return json::parse(glia_test::read_file(glia_test::data_path("golden/core/promotion.json"))); }

// A Python scalar as torch wraps it: a 0-dim tensor marked as a wrapped number.
Tensor wrapped(const std::string& kind) {
  if (kind != "bool") return glia::ops::wrapped_scalar(kind == "int" ? 3 : 1.5, kind == "int");
  Tensor t = glia::empty({}, DType::Bool, glia::Device{});
  *t.data_ptr<bool>() = true;
  t.impl()->wrapped_number = true;
  return t;
}

TEST(Promotion, EveryPairAndScalarAsTorch) {
  const json rows = load_rows();
  int pairs = 0, scalars = 0;
  bool seen[glia::kNumDTypes] = {};
  for (const json& r : rows) {
    const DType a = dtype_named(r["a"].get<std::string>());
    seen[static_cast<int>(a)] = true;
    Tensor ta = glia::empty(r.value("zero_dim_a", false) ? glia::Dims{} : glia::Dims{2}, a, glia::Device{});
    if (r.contains("b")) {
      const DType b = dtype_named(r["b"].get<std::string>());
      EXPECT_EQ(glia::dtype_name(glia::ops::promote_types(a, b)), r["promote"].get<std::string>())
          << r["a"] << " + " << r["b"];
      Tensor tb = glia::empty({}, b, glia::Device{});
      EXPECT_EQ(glia::dtype_name(glia::ops::result_type(ta, tb)), r["zero_dim"].get<std::string>())
          << r["a"] << " tensor + 0-dim " << r["b"];
      ++pairs;
    } else {
      Tensor s = wrapped(r["scalar"].get<std::string>());
      EXPECT_EQ(glia::dtype_name(glia::ops::result_type(ta, s)), r["result"].get<std::string>())
          << r["a"] << (r.value("zero_dim_a", false) ? " 0-dim" : "") << " + Python " << r["scalar"];
      ++scalars;
    }
  }
  EXPECT_EQ(pairs, glia::kNumDTypes * glia::kNumDTypes);
  EXPECT_EQ(scalars, glia::kNumDTypes * 6);
  for (int i = 0; i < glia::kNumDTypes; ++i) EXPECT_TRUE(seen[i]) << glia::dtype_name(static_cast<DType>(i));
}

}  // namespace
