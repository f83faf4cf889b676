// glia::to_string against torch 1.13's repr (tests/golden/gen_core.py).
#include "core/print.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "support/test_support.h"

namespace {

using glia::DType;
using glia::Tensor;
using nlohmann::json;

DType dtype_named(const std::string& name) {
  for (int i = 0; i < glia::kNumDTypes; ++i) {
    if (name == glia::dtype_name(static_cast<DType>(i))) return static_cast<DType>(i);
  }
  ADD_FAILURE() << "unknown dtype " << name;
  return DType::Float32;
}

double number(const json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    ADD_FAILURE() << "bad number " << s;
  }
  return v.get<double>();
}

// storage.as_strided(shape, strides, offset) as the fixture describes it.
Tensor build(const json& c) {
  DType dt = dtype_named(c["dtype"].get<std::string>());
  const json& values = c["storage"];
  int64_t n = static_cast<int64_t>(values.size());
  Tensor storage = glia::empty({&n, 1}, dt, glia::Device{});
  glia::dispatch_all(dt, [&](auto tag) {
    using T = decltype(tag);
    T* p = storage.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) {
      const json& v = values[static_cast<size_t>(i)];
      if constexpr (std::is_same_v<T, bool>)
        p[i] = v.get<bool>();
      else if constexpr (std::is_integral_v<T>)
        p[i] = static_cast<T>(v.get<int64_t>());
      else
        p[i] = glia::convert<T, double>(number(v));  // the values are exact in T
    }
  });
  auto shape = c["shape"].get<std::vector<int64_t>>();
  auto strides = c["strides"].get<std::vector<int64_t>>();
  return glia::make_view(storage, shape, strides, c["offset"].get<int64_t>());
}

json load_cases() { return json::parse(glia_test::read_file(glia_test::data_path("golden/core/print.json"))); }

TEST(Print, MatchesTorchRepr) {
  json cases = load_cases();
  ASSERT_GT(cases.size(), 100u);
  for (size_t i = 0; i < cases.size(); ++i) {
    const json& c = cases[i];
    Tensor t = build(c);
    EXPECT_EQ(glia::to_string(t, c["suffix"].get<std::string>()), c["repr"].get<std::string>())
        << "case " << i << " (" << c["dtype"] << ", shape " << c["shape"] << ", strides " << c["strides"] << ")";
  }
}

// The fixture covers the layouts this test relies on.
TEST(Print, FixtureCoversEveryDTypeAndLayout) {
  json cases = load_cases();
  std::vector<bool> seen(glia::kNumDTypes);
  bool scalar = false, empty = false, summarised = false, strided = false, suffix = false;
  for (const json& c : cases) {
    Tensor t = build(c);
    seen[static_cast<size_t>(t.dtype())] = true;
    scalar |= t.dim() == 0;
    empty |= t.numel() == 0;
    summarised |= t.numel() > 1000;
    strided |= !t.is_contiguous();
    suffix |= !c["suffix"].get<std::string>().empty();
  }
  for (int i = 0; i < glia::kNumDTypes; ++i) EXPECT_TRUE(seen[static_cast<size_t>(i)]) << glia::dtype_name(DType(i));
  EXPECT_TRUE(scalar && empty && summarised && strided && suffix);
}

TEST(Print, ElidedElementsDoNotWidenColumns) {
  // The formatter sees only what get_summarized_data keeps.
  Tensor t = glia::zeros(std::vector<int64_t>{100, 100}, DType::Int32, glia::Device{});
  t.data_ptr<int32_t>()[5050] = 123456;
  EXPECT_EQ(glia::to_string(t),
            "tensor([[0, 0, 0,  ..., 0, 0, 0],\n"
            "        [0, 0, 0,  ..., 0, 0, 0],\n"
            "        [0, 0, 0,  ..., 0, 0, 0],\n"
            "        ...,\n"
            "        [0, 0, 0,  ..., 0, 0, 0],\n"
            "        [0, 0, 0,  ..., 0, 0, 0],\n"
            "        [0, 0, 0,  ..., 0, 0, 0]], dtype=torch.int32)");
}

TEST(Print, SeveralSuffixesWrapOneByOne) {
  // _add_suffixes puts each part on a new line once the line would pass 80 columns.
  Tensor t = glia::arange(0, 9, 1, DType::Float64, glia::Device{});
  EXPECT_EQ(glia::to_string(t, ", requires_grad=True, names=('N',)"),
            "tensor([0., 1., 2., 3., 4., 5., 6., 7., 8.], dtype=torch.float64,\n"
            "       requires_grad=True, names=('N',))");
}

}  // namespace
