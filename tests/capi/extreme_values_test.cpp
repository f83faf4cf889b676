// Extreme values through the size-, stride- and option-taking arguments of the C
// ABI (issue 24): 0, -1, INT64_MAX, INT64_MIN, 2^31, 2^62 (and NaN, +-inf for
// floating options) must give an error or a correct result, never undefined
// behaviour. A host allocator that refuses single requests above 256 MiB keeps
// huge-but-legal sizes from really allocating: they give GLIA_ERR_OUT_OF_MEMORY.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "support/fixture.h"

using namespace glia_test;

namespace {

const glia_device kCpu = {GLIA_CPU, 0};
constexpr size_t kAllocLimit = size_t{256} << 20;
constexpr double kSlowCallSeconds = 2.0;

const std::vector<int64_t> kInts = {
    0, -1, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), 1LL << 31, 1LL << 62};
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
const std::vector<double> kDoubles = {0.0,
                                      -1.0,
                                      static_cast<double>(std::numeric_limits<int64_t>::max()),
                                      static_cast<double>(std::numeric_limits<int64_t>::min()),
                                      static_cast<double>(1LL << 31),
                                      static_cast<double>(1LL << 62),
                                      kNaN,
                                      kInf,
                                      -kInf};

std::string int_name(int64_t v) {
  if (v == std::numeric_limits<int64_t>::max()) return "INT64_MAX";
  if (v == std::numeric_limits<int64_t>::min()) return "INT64_MIN";
  if (v == (1LL << 31)) return "2^31";
  if (v == (1LL << 62)) return "2^62";
  return std::to_string(v);
}

std::string double_name(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  char buf[32];
  snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void* limited_alloc(void*, size_t size, size_t alignment) {
  if (size > kAllocLimit) return nullptr;
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  size_t rounded = (size + alignment - 1) / alignment * alignment;
  if (rounded == 0) rounded = alignment;
  return aligned_alloc(alignment, rounded);
}
void limited_free(void*, void* ptr, size_t) { free(ptr); }

class ExtremeValues : public ::testing::Test {
 protected:
  void SetUp() override {
    glia_allocator a;
    glia_allocator_init(&a);
    a.alloc = limited_alloc;
    a.free = limited_free;
    GLIA_OK_(glia_set_allocator(&a));
  }
  void TearDown() override { glia_error_free(glia_set_allocator(nullptr)); }
};

int64_t g_sweep_calls = 0;

// Prints how many sweep calls ran (functions x arguments x values).
class SweepCountReporter : public ::testing::Environment {
 public:
  void TearDown() override {
    if (g_sweep_calls > 0) printf("[ExtremeValues] %lld sweep calls\n", static_cast<long long>(g_sweep_calls));
  }
};
[[maybe_unused]] ::testing::Environment* const g_reporter = ::testing::AddGlobalTestEnvironment(new SweepCountReporter);

// e != NULL: a proper error (not INTERNAL, with a message). e == NULL: `out` is a
// well-formed tensor (sizes >= 0, numel the product of the sizes, readable when small).
// Frees e and releases out.
void expect_error_or_valid(glia_error* e, glia_tensor* out, const std::string& what) {
  ++g_sweep_calls;
  if (e) {
    ErrorInfo info = take(e);
    EXPECT_NE(info.code, GLIA_ERR_INTERNAL) << what << ": " << info.message;
    EXPECT_FALSE(info.message.empty()) << what;
    if (out) glia_error_free(glia_tensor_release(out));
    return;
  }
  if (!out) {
    ADD_FAILURE() << what << ": succeeded without an output tensor";
    return;
  }
  std::vector<int64_t> s = shape(out);
  int64_t product = 1;
  bool overflow = false;
  for (int64_t d : s) {
    EXPECT_GE(d, 0) << what << ": negative size in the result";
    if (d < 0) overflow = true;
    if (!overflow && d != 0 && product > std::numeric_limits<int64_t>::max() / d) overflow = true;
    if (!overflow) product *= d;
  }
  int64_t numel = -1;
  ok(glia_tensor_numel(out, &numel), "numel");
  EXPECT_FALSE(overflow && numel != 0) << what << ": the sizes' product overflows int64";
  if (!overflow) EXPECT_EQ(numel, product) << what;
  if (!overflow && numel >= 0 && numel < 1000000) {
    std::vector<double> v = values(out);
    EXPECT_EQ(static_cast<int64_t>(v.size()), numel) << what;
  }
  glia_error_free(glia_tensor_release(out));
}

// Multi-output variant (split/chunk): every output checked.
void expect_error_or_valid_many(glia_error* e, glia_tensor** outs, int64_t n, const std::string& what) {
  if (e) {
    expect_error_or_valid(e, nullptr, what);
    return;
  }
  if (n == 0) ++g_sweep_calls;
  for (int64_t i = 0; i < n; ++i) expect_error_or_valid(nullptr, outs[i], what + " output " + std::to_string(i));
  g_sweep_calls -= n > 1 ? n - 1 : 0;  // one call, however many outputs
}

using TensorCall = std::function<glia_error*(glia_tensor**)>;

// One sweep call: runs `call` and checks it with expect_error_or_valid.
void check(const std::string& what, const TensorCall& call, bool read_values = true) {
  SCOPED_TRACE(what);
  glia_tensor* out = nullptr;
  auto t0 = std::chrono::steady_clock::now();
  glia_error* e = call(&out);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Every sweep input is tiny: an error or a small result should come at once.
  EXPECT_LT(secs, kSlowCallSeconds) << what << ": took " << secs << " s";
  if (!read_values && !e) {
    // Only the metadata: the values may lie outside memory the test owns.
    ++g_sweep_calls;
    std::vector<int64_t> s = shape(out);
    for (int64_t d : s) EXPECT_GE(d, 0) << what;
    glia_error_free(glia_tensor_release(out));
    return;
  }
  expect_error_or_valid(e, out, what);
}

// A call without a tensor result: error (not INTERNAL, with a message) or success.
void check_status(const std::string& what, glia_error* e) {
  SCOPED_TRACE(what);
  ++g_sweep_calls;
  if (!e) return;
  ErrorInfo info = take(e);
  EXPECT_NE(info.code, GLIA_ERR_INTERNAL) << what << ": " << info.message;
  EXPECT_FALSE(info.message.empty()) << what;
}

// A module constructor: error, or a module whose repr can be printed.
void check_module(const std::string& what, const std::function<glia_error*(glia_module**)>& make_module) {
  SCOPED_TRACE(what);
  ModuleHandle m;
  glia_error* e = make_module(m.out());
  if (e) {
    check_status(what, e);
    return;
  }
  ++g_sweep_calls;
  ASSERT_NE(m.get(), nullptr) << what;
  EXPECT_FALSE(module_repr(m).empty()) << what;
}

glia_tensor_options opts(glia_dtype d = GLIA_FLOAT32) {
  glia_tensor_options o;
  glia_tensor_options_init(&o);
  o.dtype = d;
  return o;
}

std::vector<double> iota(size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 0.25 * static_cast<double>(i) - 1.0;
  return v;
}

glia_tensor* make_i64(Handles& h, std::vector<int64_t> v, std::vector<int64_t> shp = {}) {
  if (shp.empty()) shp = {static_cast<int64_t>(v.size())};
  glia_tensor* t = nullptr;
  ok(glia_tensor_from_data(v.data(), v.size() * sizeof(int64_t), shp.data(), static_cast<int64_t>(shp.size()),
                           GLIA_INT64, &t),
     "from_data int64");
  return h.add(t);
}

std::vector<int64_t> read_i64(glia_tensor* t) {
  int64_t n = 0;
  ok(glia_tensor_numel(t, &n), "numel");
  std::vector<int64_t> v(static_cast<size_t>(n));
  ok(glia_tensor_copy_to_host(t, v.data(), v.size() * sizeof(int64_t)), "copy_to_host");
  return v;
}

// "name arg=value"
std::string label(const std::string& fn, const std::string& arg, int64_t v) {
  return fn + " " + arg + "=" + int_name(v);
}
std::string labeld(const std::string& fn, const std::string& arg, double v) {
  return fn + " " + arg + "=" + double_name(v);
}

// ---- sweeps: factories ----------------------------------------------------------------------

TEST_F(ExtremeValues, SweepFactories) {
  using Factory = std::function<glia_error*(const int64_t*, int64_t, glia_tensor**)>;
  glia_tensor_options o = opts();
  const std::vector<std::pair<std::string, Factory>> factories = {
      {"glia_tensor_empty",
       [&](const int64_t* s, int64_t n, glia_tensor** out) { return glia_tensor_empty(s, n, &o, out); }},
      {"glia_tensor_zeros",
       [&](const int64_t* s, int64_t n, glia_tensor** out) { return glia_tensor_zeros(s, n, &o, out); }},
      {"glia_tensor_ones",
       [&](const int64_t* s, int64_t n, glia_tensor** out) { return glia_tensor_ones(s, n, &o, out); }},
      {"glia_tensor_full",
       [&](const int64_t* s, int64_t n, glia_tensor** out) { return glia_tensor_full(s, n, 2.5, &o, out); }},
      {"glia_tensor_rand",
       [&](const int64_t* s, int64_t n, glia_tensor** out) { return glia_tensor_rand(s, n, &o, out); }},
      {"glia_tensor_randn",
       [&](const int64_t* s, int64_t n, glia_tensor** out) { return glia_tensor_randn(s, n, &o, out); }},
  };
  for (const auto& [name, f] : factories) {
    for (int64_t v : kInts) {
      for (size_t pos = 0; pos < 3; ++pos) {
        check(label(name, "shape[" + std::to_string(pos) + "]", v), [&](glia_tensor** out) {
          std::vector<int64_t> s = {2, 3, 4};
          s[pos] = v;
          return f(s.data(), 3, out);
        });
      }
      // Two equal sizes and a zero: numel 0, but the sizes' product may overflow.
      check(label(name, "shape=[v,v,0] v", v), [&](glia_tensor** out) {
        const int64_t s[] = {v, v, 0};
        return f(s, 3, out);
      });
      // ndim (only values that cannot read past the 3-entry array when accepted).
      if (v <= 3 || v > 64) {
        check(label(name, "ndim", v), [&](glia_tensor** out) {
          const int64_t s[] = {2, 3, 4};
          return f(s, v, out);
        });
      }
    }
  }
  // The fill value of glia_tensor_full, every dtype.
  for (glia_dtype d : {GLIA_FLOAT32, GLIA_FLOAT64, GLIA_FLOAT16, GLIA_BFLOAT16, GLIA_INT64, GLIA_INT32, GLIA_UINT8,
                       GLIA_BOOL, GLIA_INT8, GLIA_INT16}) {
    for (double v : kDoubles) {
      check(labeld("glia_tensor_full dtype " + std::to_string(d), "value", v), [&](glia_tensor** out) {
        glia_tensor_options od = opts(d);
        const int64_t s[] = {2};
        return glia_tensor_full(s, 1, v, &od, out);
      });
    }
  }
}

TEST_F(ExtremeValues, SweepArange) {
  const char* const kArgs[] = {"start", "end", "step"};
  for (int arg = 0; arg < 3; ++arg) {
    for (double v : kDoubles) {
      double a[3] = {0.0, 5.0, 1.0};
      a[arg] = v;
      for (int which = 0; which < 3; ++which) {
        glia_dtype d = which == 1 ? GLIA_INT64 : GLIA_FLOAT32;
        std::string fn = std::string("glia_tensor_arange") + (which == 0 ? "" : which == 1 ? " int64" : " float32");
        check(labeld(fn, kArgs[arg], v), [&](glia_tensor** out) {
          glia_tensor_options o = opts(d);
          return glia_tensor_arange(a[0], a[1], a[2], which == 0 ? nullptr : &o, out);
        });
      }
    }
  }
}

int g_deleter_calls = 0;
void count_deleter(void*, void*) { ++g_deleter_calls; }

TEST_F(ExtremeValues, SweepFromBlobAndFromData) {
  alignas(64) static float buf[16] = {};
  for (int64_t v : kInts) {
    for (int arg = 0; arg < 5; ++arg) {
      std::string argname = arg < 2   ? "shape[" + std::to_string(arg) + "]"
                            : arg < 4 ? "strides[" + std::to_string(arg - 2) + "]"
                                      : "ndim";
      if (arg == 4 && !(v <= 2 || v > 64)) continue;
      g_deleter_calls = 0;
      // Accepted views may point outside buf (the caller's business): only their metadata is read.
      check(
          label("glia_tensor_from_blob", argname, v),
          [&](glia_tensor** out) {
            int64_t s[2] = {2, 2}, st[2] = {2, 1};
            int64_t nd = 2;
            if (arg < 2) s[arg] = v;
            if (arg >= 2 && arg < 4) st[arg - 2] = v;
            if (arg == 4) nd = v;
            return glia_tensor_from_blob(buf, s, st, nd, GLIA_FLOAT32, kCpu, count_deleter, nullptr, out);
          },
          /*read_values=*/false);
      EXPECT_EQ(g_deleter_calls, 1) << label("glia_tensor_from_blob", argname, v) << ": deleter calls";
    }
    for (int pos = 0; pos < 2; ++pos) {
      check(label("glia_tensor_from_data", "shape[" + std::to_string(pos) + "]", v), [&](glia_tensor** out) {
        int64_t s[2] = {2, 2};
        s[pos] = v;
        return glia_tensor_from_data(buf, sizeof(float) * 4, s, 2, GLIA_FLOAT32, out);
      });
    }
    check(label("glia_tensor_from_data", "nbytes", v), [&](glia_tensor** out) {
      const int64_t s[2] = {2, 2};
      return glia_tensor_from_data(buf, static_cast<size_t>(v), s, 2, GLIA_FLOAT32, out);
    });
    if (v <= 2 || v > 64) {
      check(label("glia_tensor_from_data", "ndim", v), [&](glia_tensor** out) {
        const int64_t s[2] = {2, 2};
        return glia_tensor_from_data(buf, sizeof(float) * 4, s, v, GLIA_FLOAT32, out);
      });
    }
  }
}

// ---- sweeps: shape and indexing -------------------------------------------------------------

TEST_F(ExtremeValues, SweepShapeOps) {
  Handles h;
  glia_tensor* a = make(h, iota(6), {2, 3}, GLIA_FLOAT32);
  glia_tensor* row = make(h, iota(3), {1, 3}, GLIA_FLOAT32);
  glia_tensor* sq = make(h, iota(9), {3, 3}, GLIA_FLOAT32);
  for (int64_t v : kInts) {
    for (int pos = 0; pos < 2; ++pos) {
      std::string arg = "shape[" + std::to_string(pos) + "]";
      auto with = [&](std::vector<int64_t> s) {
        s[pos] = v;
        return s;
      };
      check(label("glia_expand [1,3]", arg, v), [&](glia_tensor** out) {
        auto s = with({2, 3});
        return glia_expand(row, s.data(), 2, out);
      });
      check(label("glia_reshape [2,3]", arg, v), [&](glia_tensor** out) {
        auto s = with({3, 2});
        return glia_reshape(a, s.data(), 2, out);
      });
      check(label("glia_reshape [2,3] with -1", arg, v), [&](glia_tensor** out) {
        auto s = with({-1, -1});
        s[1 - pos] = 3;
        return glia_reshape(a, s.data(), 2, out);
      });
      check(label("glia_view [2,3]", arg, v), [&](glia_tensor** out) {
        auto s = with({3, 2});
        return glia_view(a, s.data(), 2, out);
      });
      check(label("glia_view [2,3] with -1", arg, v), [&](glia_tensor** out) {
        auto s = with({-1, -1});
        s[1 - pos] = 2;
        return glia_view(a, s.data(), 2, out);
      });
      check(label("glia_permute [2,3]", "dims[" + std::to_string(pos) + "]", v), [&](glia_tensor** out) {
        auto s = with({1, 0});
        return glia_permute(a, s.data(), 2, out);
      });
      check(label("glia_unflatten [2,3] dim 1", "sizes[" + std::to_string(pos) + "]", v), [&](glia_tensor** out) {
        auto s = with({3, 1});
        return glia_unflatten(a, 1, s.data(), 2, out);
      });
      check(label("glia_transpose", pos == 0 ? "dim0" : "dim1", v),
            [&](glia_tensor** out) { return pos == 0 ? glia_transpose(a, v, 1, out) : glia_transpose(a, 0, v, out); });
      check(label("glia_flatten", pos == 0 ? "start_dim" : "end_dim", v),
            [&](glia_tensor** out) { return pos == 0 ? glia_flatten(a, v, -1, out) : glia_flatten(a, 0, v, out); });
      check(label("glia_select", pos == 0 ? "dim" : "index", v),
            [&](glia_tensor** out) { return pos == 0 ? glia_select(sq, v, 1, out) : glia_select(sq, 1, v, out); });
    }
    for (int arg = 0; arg < 4; ++arg) {
      const char* const names[] = {"dim", "start", "end", "step"};
      check(label("glia_slice [3,3]", names[arg], v), [&](glia_tensor** out) {
        int64_t p[4] = {0, 0, 3, 1};
        p[arg] = v;
        return glia_slice(sq, p[0], p[1], p[2], p[3], out);
      });
    }
    for (int arg = 0; arg < 3; ++arg) {
      const char* const names[] = {"dim", "start", "length"};
      check(label("glia_narrow [3,3]", names[arg], v), [&](glia_tensor** out) {
        int64_t p[3] = {0, 1, 2};
        p[arg] = v;
        return glia_narrow(sq, p[0], p[1], p[2], out);
      });
    }
    check(label("glia_unsqueeze", "dim", v), [&](glia_tensor** out) { return glia_unsqueeze(a, v, out); });
    check(label("glia_squeeze [1,3]", "dims[0]", v), [&](glia_tensor** out) {
      const int64_t d[] = {v};
      return glia_squeeze(row, d, 1, out);
    });
    check(label("glia_unflatten [2,3]", "dim", v), [&](glia_tensor** out) {
      const int64_t s[] = {1, 3};
      return glia_unflatten(a, v, s, 2, out);
    });
    check(label("glia_cat", "dim", v), [&](glia_tensor** out) {
      const glia_tensor* ts[] = {a, a};
      return glia_cat(ts, 2, v, out);
    });
    check(label("glia_stack", "dim", v), [&](glia_tensor** out) {
      const glia_tensor* ts[] = {a, a};
      return glia_stack(ts, 2, v, out);
    });
    if (v <= 0) {  // a count larger than the array is the caller's error
      check(label("glia_cat", "n", v), [&](glia_tensor** out) {
        const glia_tensor* ts[] = {a, a};
        return glia_cat(ts, v, 0, out);
      });
      check(label("glia_stack", "n", v), [&](glia_tensor** out) {
        const glia_tensor* ts[] = {a, a};
        return glia_stack(ts, v, 0, out);
      });
    }
    // split / chunk / split_with_sizes: outputs into an 8-entry array.
    auto many = [&](const std::string& what, const std::function<glia_error*(glia_tensor**, int64_t*)>& f) {
      SCOPED_TRACE(what);
      glia_tensor* outs[8] = {};
      int64_t n = 0;
      glia_error* e = f(outs, &n);
      if (!e) {
        EXPECT_GE(n, 0) << what;
        EXPECT_LE(n, 8) << what;
      }
      expect_error_or_valid_many(e, outs, e ? 0 : std::min<int64_t>(n, 8), what);
    };
    many(label("glia_split [2,3]", "split_size", v),
         [&](glia_tensor** o, int64_t* n) { return glia_split(a, v, 1, o, 8, n); });
    many(label("glia_split [2,3]", "dim", v),
         [&](glia_tensor** o, int64_t* n) { return glia_split(a, 1, v, o, 8, n); });
    if (v <= 8) {
      many(label("glia_split [2,3]", "capacity", v),
           [&](glia_tensor** o, int64_t* n) { return glia_split(a, 1, 1, o, v, n); });
      many(label("glia_chunk [2,3]", "capacity", v),
           [&](glia_tensor** o, int64_t* n) { return glia_chunk(a, 3, 1, o, v, n); });
    }
    many(label("glia_chunk [2,3]", "chunks", v),
         [&](glia_tensor** o, int64_t* n) { return glia_chunk(a, v, 1, o, 8, n); });
    many(label("glia_chunk [2,3]", "dim", v),
         [&](glia_tensor** o, int64_t* n) { return glia_chunk(a, 2, v, o, 8, n); });
    for (int pos = 0; pos < 2; ++pos) {
      many(label("glia_split_with_sizes [2,3]", "sizes[" + std::to_string(pos) + "]", v),
           [&](glia_tensor** o, int64_t* n) {
             int64_t s[2] = {1, 2};
             s[pos] = v;
             return glia_split_with_sizes(a, s, 2, 1, o, 8, n);
           });
    }
    many(label("glia_split_with_sizes [2,3]", "dim", v), [&](glia_tensor** o, int64_t* n) {
      const int64_t s[2] = {1, 1};
      return glia_split_with_sizes(a, s, 2, v, o, 8, n);
    });
  }
}

// Counts of dims arrays (n_dims / ndim): the arrays hold 65 valid entries, so a
// library that accepts a count of at most 65 reads only memory the test owns.
TEST_F(ExtremeValues, SweepDimCounts) {
  Handles h;
  glia_tensor* a = make(h, iota(6), {2, 3}, GLIA_FLOAT32);
  std::vector<int64_t> zeros(65, 0), ones(65, 1);
  for (int64_t v : kInts) {
    check(label("glia_sum", "n_dims", v), [&](glia_tensor** out) { return glia_sum(a, zeros.data(), v, 0, out); });
    check(label("glia_mean", "n_dims", v), [&](glia_tensor** out) { return glia_mean(a, zeros.data(), v, 0, out); });
    check(label("glia_squeeze", "n_dims", v), [&](glia_tensor** out) { return glia_squeeze(a, zeros.data(), v, out); });
    check(label("glia_permute", "n_dims", v), [&](glia_tensor** out) { return glia_permute(a, zeros.data(), v, out); });
    check(label("glia_reshape", "ndim", v), [&](glia_tensor** out) { return glia_reshape(a, ones.data(), v, out); });
    check(label("glia_view", "ndim", v), [&](glia_tensor** out) { return glia_view(a, ones.data(), v, out); });
    check(label("glia_expand", "ndim", v), [&](glia_tensor** out) { return glia_expand(a, ones.data(), v, out); });
    check(label("glia_unflatten", "n", v),
          [&](glia_tensor** out) { return glia_unflatten(a, 1, ones.data(), v, out); });
    check(label("glia_pad", "n_pad", v),
          [&](glia_tensor** out) { return glia_pad(a, zeros.data(), v, GLIA_PAD_CONSTANT, 0.0, out); });
    check(label("glia_tensor_empty", "ndim", v),
          [&](glia_tensor** out) { return glia_tensor_empty(ones.data(), v, nullptr, out); });
  }
}

// ---- sweeps: reductions ---------------------------------------------------------------------

TEST_F(ExtremeValues, SweepReductionDims) {
  Handles h;
  glia_tensor* a = make(h, iota(6), {2, 3}, GLIA_FLOAT32);
  for (int64_t v : kInts) {
    const int64_t d[] = {v};
    check(label("glia_sum", "dims[0]", v), [&](glia_tensor** out) { return glia_sum(a, d, 1, 0, out); });
    check(label("glia_mean", "dims[0]", v), [&](glia_tensor** out) { return glia_mean(a, d, 1, 1, out); });
    check(label("glia_prod", "dims[0]", v), [&](glia_tensor** out) { return glia_prod(a, d, 1, 0, out); });
    check(label("glia_var", "dims[0]", v), [&](glia_tensor** out) { return glia_var(a, d, 1, 1.0, 0, out); });
    check(label("glia_logsumexp", "dims[0]", v), [&](glia_tensor** out) { return glia_logsumexp(a, d, 1, 0, out); });
    check(label("glia_norm", "dims[0]", v), [&](glia_tensor** out) { return glia_norm(a, 2.0, d, 1, 0, out); });
    check(label("glia_argmax", "dim", v), [&](glia_tensor** out) { return glia_argmax(a, d, 0, out); });
    check(label("glia_softmax", "dim", v), [&](glia_tensor** out) { return glia_softmax(a, v, out); });
    check(label("glia_log_softmax", "dim", v), [&](glia_tensor** out) { return glia_log_softmax(a, v, out); });
    check(label("glia_max", "dim", v), [&](glia_tensor** out) {
      glia_tensor* idx = nullptr;
      glia_error* e = glia_max(a, v, 0, out, &idx);
      glia_error_free(glia_tensor_release(idx));
      return e;
    });
  }
  for (double v : kDoubles) {
    const int64_t d[] = {1};
    check(labeld("glia_var", "correction", v), [&](glia_tensor** out) { return glia_var(a, d, 1, v, 0, out); });
    check(labeld("glia_std", "correction", v), [&](glia_tensor** out) { return glia_std(a, d, 1, v, 0, out); });
    check(labeld("glia_norm", "p", v), [&](glia_tensor** out) { return glia_norm(a, v, d, 1, 0, out); });
  }
}

// ---- sweeps: convolution, pooling, padding --------------------------------------------------

TEST_F(ExtremeValues, SweepConvolution) {
  Handles h;
  glia_tensor* x = make(h, iota(50), {1, 2, 5, 5}, GLIA_FLOAT32);
  glia_tensor* w = make(h, iota(36), {2, 2, 3, 3}, GLIA_FLOAT32);
  glia_tensor* b = make(h, {0.5, -0.5}, {2}, GLIA_FLOAT32);
  for (int64_t v : kInts) {
    const char* const names[] = {"stride[0]",   "stride[1]",   "padding[0]", "padding[1]",
                                 "dilation[0]", "dilation[1]", "groups"};
    for (int arg = 0; arg < 7; ++arg) {
      check(label("glia_conv2d", names[arg], v), [&](glia_tensor** out) {
        glia_conv2d_options o;
        glia_conv2d_options_init(&o);
        int64_t* f[] = {&o.stride[0],   &o.stride[1],   &o.padding[0], &o.padding[1],
                        &o.dilation[0], &o.dilation[1], &o.groups};
        *f[arg] = v;
        return glia_conv2d(x, w, b, &o, out);
      });
    }
    for (glia_padding_kind pm : {GLIA_PADDING_VALID, GLIA_PADDING_SAME}) {
      for (int arg : {4, 5}) {
        check(label(std::string("glia_conv2d padding_kind ") + std::to_string(pm), names[arg], v),
              [&](glia_tensor** out) {
                glia_conv2d_options o;
                glia_conv2d_options_init(&o);
                o.padding_kind = pm;
                o.dilation[arg - 4] = v;
                return glia_conv2d(x, w, b, &o, out);
              });
      }
    }
    const char* const tnames[] = {"stride[0]",         "stride[1]", "padding[0]",  "padding[1]", "output_padding[0]",
                                  "output_padding[1]", "groups",    "dilation[0]", "dilation[1]"};
    for (int arg = 0; arg < 9; ++arg) {
      check(label("glia_conv_transpose2d", tnames[arg], v), [&](glia_tensor** out) {
        glia_conv_transpose2d_options o;
        glia_conv_transpose2d_options_init(&o);
        int64_t* f[] = {&o.stride[0],         &o.stride[1], &o.padding[0],  &o.padding[1], &o.output_padding[0],
                        &o.output_padding[1], &o.groups,    &o.dilation[0], &o.dilation[1]};
        *f[arg] = v;
        if (arg == 4 || arg == 5) o.stride[arg - 4] = 2;  // output_padding must stay below stride
        return glia_conv_transpose2d(x, w, b, &o, out);
      });
    }
  }
}

TEST_F(ExtremeValues, SweepPooling) {
  Handles h;
  glia_tensor* x = make(h, iota(25), {1, 1, 5, 5}, GLIA_FLOAT32);
  for (int64_t v : kInts) {
    const char* const names[] = {"kernel_size[0]", "kernel_size[1]", "stride[0]",   "stride[1]",
                                 "padding[0]",     "padding[1]",     "dilation[0]", "dilation[1]"};
    for (int arg = 0; arg < 8; ++arg) {
      for (int ceil_mode = 0; ceil_mode < 2; ++ceil_mode) {
        std::string sfx = ceil_mode ? " ceil_mode" : "";
        check(label("glia_max_pool2d" + sfx, names[arg], v), [&](glia_tensor** out) {
          glia_max_pool2d_options o;
          glia_max_pool2d_options_init(&o);
          o.kernel_size[0] = o.kernel_size[1] = 2;
          o.ceil_mode = ceil_mode;
          int64_t* f[] = {&o.kernel_size[0], &o.kernel_size[1], &o.stride[0],   &o.stride[1],
                          &o.padding[0],     &o.padding[1],     &o.dilation[0], &o.dilation[1]};
          *f[arg] = v;
          glia_tensor* idx = nullptr;
          glia_error* e = glia_max_pool2d(x, &o, out, &idx);
          glia_error_free(glia_tensor_release(idx));
          return e;
        });
        if (arg >= 6) continue;  // avg_pool2d has no dilation
        check(label("glia_avg_pool2d" + sfx, names[arg], v), [&](glia_tensor** out) {
          glia_avg_pool2d_options o;
          glia_avg_pool2d_options_init(&o);
          o.kernel_size[0] = o.kernel_size[1] = 2;
          o.ceil_mode = ceil_mode;
          int64_t* f[] = {&o.kernel_size[0], &o.kernel_size[1], &o.stride[0],
                          &o.stride[1],      &o.padding[0],     &o.padding[1]};
          *f[arg] = v;
          return glia_avg_pool2d(x, &o, out);
        });
      }
    }
    check(label("glia_avg_pool2d", "divisor_override", v), [&](glia_tensor** out) {
      glia_avg_pool2d_options o;
      glia_avg_pool2d_options_init(&o);
      o.kernel_size[0] = o.kernel_size[1] = 2;
      o.divisor_override = v;
      return glia_avg_pool2d(x, &o, out);
    });
    check(label("glia_adaptive_avg_pool2d", "out_h", v),
          [&](glia_tensor** out) { return glia_adaptive_avg_pool2d(x, v, 2, out); });
    check(label("glia_adaptive_avg_pool2d", "out_w", v),
          [&](glia_tensor** out) { return glia_adaptive_avg_pool2d(x, 2, v, out); });
  }
}

// Replicate padding by extreme amounts (its own test: a slow failure here should not hide the others).
TEST_F(ExtremeValues, SweepPadReplicate) {
  Handles h;
  glia_tensor* x = make(h, iota(18), {1, 2, 3, 3}, GLIA_FLOAT32);
  for (int64_t v : kInts) {
    for (int pos = 0; pos < 4; ++pos) {
      check(label("glia_pad replicate", "pad[" + std::to_string(pos) + "]", v), [&](glia_tensor** out) {
        int64_t p[4] = {1, 1, 1, 1};
        p[pos] = v;
        return glia_pad(x, p, 4, GLIA_PAD_REPLICATE, 0.0, out);
      });
    }
  }
}

TEST_F(ExtremeValues, SweepPad) {
  Handles h;
  glia_tensor* x = make(h, iota(18), {1, 2, 3, 3}, GLIA_FLOAT32);
  for (glia_pad_mode mode : {GLIA_PAD_CONSTANT, GLIA_PAD_REFLECT, GLIA_PAD_CIRCULAR}) {
    for (int64_t v : kInts) {
      for (int pos = 0; pos < 4; ++pos) {
        check(label("glia_pad mode " + std::to_string(mode), "pad[" + std::to_string(pos) + "]", v),
              [&](glia_tensor** out) {
                int64_t p[4] = {1, 1, 1, 1};
                p[pos] = v;
                return glia_pad(x, p, 4, mode, 0.0, out);
              });
      }
    }
  }
  for (double v : kDoubles) {
    check(labeld("glia_pad constant", "value", v), [&](glia_tensor** out) {
      const int64_t p[2] = {1, 1};
      return glia_pad(x, p, 2, GLIA_PAD_CONSTANT, v, out);
    });
  }
  Handles hi;
  glia_tensor* xi = make(hi, iota(9), {3, 3}, GLIA_INT64);
  for (double v : kDoubles) {
    check(labeld("glia_pad constant int64", "value", v), [&](glia_tensor** out) {
      const int64_t p[2] = {1, 1};
      return glia_pad(xi, p, 2, GLIA_PAD_CONSTANT, v, out);
    });
  }
}

// ---- sweeps: embedding, losses --------------------------------------------------------------

TEST_F(ExtremeValues, SweepEmbeddingAndLosses) {
  Handles h;
  glia_tensor* logits = make(h, iota(6), {2, 3}, GLIA_FLOAT32);
  for (int64_t v : kInts) {
    check(label("glia_embedding", "indices[0]", v), [&](glia_tensor** out) {
      Handles hh;
      glia_tensor* w = make(hh, iota(12), {4, 3}, GLIA_FLOAT32);
      glia_tensor* idx = make_i64(hh, {v, 1});
      return glia_embedding(w, idx, nullptr, nullptr, 2.0, out);
    });
    check(label("glia_embedding", "padding_idx", v), [&](glia_tensor** out) {
      Handles hh;
      glia_tensor* w = make(hh, iota(12), {4, 3}, GLIA_FLOAT32);
      glia_tensor* idx = make_i64(hh, {0, 1});
      return glia_embedding(w, idx, &v, nullptr, 2.0, out);
    });
    check(label("glia_nll_loss", "target[0]", v), [&](glia_tensor** out) {
      Handles hh;
      glia_tensor* t = make_i64(hh, {v, 1});
      return glia_nll_loss(logits, t, nullptr, out);
    });
    check(label("glia_nll_loss", "ignore_index", v), [&](glia_tensor** out) {
      Handles hh;
      glia_tensor* t = make_i64(hh, {v, 1});
      glia_nll_loss_options o;
      glia_nll_loss_options_init(&o);
      o.ignore_index = v;
      return glia_nll_loss(logits, t, &o, out);
    });
    check(label("glia_cross_entropy", "target[0]", v), [&](glia_tensor** out) {
      Handles hh;
      glia_tensor* t = make_i64(hh, {v, 1});
      return glia_cross_entropy(logits, t, nullptr, out);
    });
    check(label("glia_cross_entropy", "ignore_index", v), [&](glia_tensor** out) {
      Handles hh;
      glia_tensor* t = make_i64(hh, {v, 1});
      glia_cross_entropy_options o;
      glia_cross_entropy_options_init(&o);
      o.ignore_index = v;
      o.label_smoothing = 0.1;
      return glia_cross_entropy(logits, t, &o, out);
    });
  }
  for (double v : kDoubles) {
    check(labeld("glia_embedding", "max_norm", v), [&](glia_tensor** out) {
      Handles hh;
      glia_tensor* w = make(hh, iota(12), {4, 3}, GLIA_FLOAT32);
      glia_tensor* idx = make_i64(hh, {0, 3});
      return glia_embedding(w, idx, nullptr, &v, 2.0, out);
    });
    check(labeld("glia_embedding max_norm 1", "norm_type", v), [&](glia_tensor** out) {
      Handles hh;
      glia_tensor* w = make(hh, iota(12), {4, 3}, GLIA_FLOAT32);
      glia_tensor* idx = make_i64(hh, {0, 3});
      const double mn = 1.0;
      return glia_embedding(w, idx, nullptr, &mn, v, out);
    });
    check(labeld("glia_cross_entropy", "label_smoothing", v), [&](glia_tensor** out) {
      Handles hh;
      glia_tensor* t = make_i64(hh, {0, 2});
      glia_cross_entropy_options o;
      glia_cross_entropy_options_init(&o);
      o.label_smoothing = v;
      return glia_cross_entropy(logits, t, &o, out);
    });
  }
}

// ---- sweeps: scalar options of activations and arithmetic -----------------------------------

TEST_F(ExtremeValues, SweepScalarOptions) {
  Handles h;
  glia_tensor* a = make(h, iota(6), {2, 3}, GLIA_FLOAT32);
  glia_tensor* ai = make(h, {-3, -1, 0, 1, 2, 5}, {2, 3}, GLIA_INT64);
  for (double v : kDoubles) {
    check(labeld("glia_leaky_relu", "negative_slope", v),
          [&](glia_tensor** out) { return glia_leaky_relu(a, v, out); });
    check(labeld("glia_elu", "alpha", v), [&](glia_tensor** out) { return glia_elu(a, v, 1.0, 1.0, out); });
    check(labeld("glia_elu", "scale", v), [&](glia_tensor** out) { return glia_elu(a, 1.0, v, 1.0, out); });
    check(labeld("glia_elu", "input_scale", v), [&](glia_tensor** out) { return glia_elu(a, 1.0, 1.0, v, out); });
    check(labeld("glia_hardtanh", "min_val", v), [&](glia_tensor** out) { return glia_hardtanh(a, v, 1.0, out); });
    check(labeld("glia_hardtanh", "max_val", v), [&](glia_tensor** out) { return glia_hardtanh(a, -1.0, v, out); });
    check(labeld("glia_hardtanh int64", "min_val", v),
          [&](glia_tensor** out) { return glia_hardtanh(ai, v, 1.0, out); });
    check(labeld("glia_softplus", "beta", v), [&](glia_tensor** out) { return glia_softplus(a, v, 20.0, out); });
    check(labeld("glia_softplus", "threshold", v), [&](glia_tensor** out) { return glia_softplus(a, 1.0, v, out); });
    check(labeld("glia_dropout", "p", v), [&](glia_tensor** out) { return glia_dropout(a, v, 1, out); });
    for (glia_tensor* t : {a, ai}) {
      std::string sfx = t == ai ? " int64" : " float32";
      check(labeld("glia_clamp" + sfx, "min (float)", v), [&](glia_tensor** out) {
        glia_scalar s = glia_scalar_float(v);
        return glia_clamp(t, &s, nullptr, out);
      });
      check(labeld("glia_clamp" + sfx, "max (float)", v), [&](glia_tensor** out) {
        glia_scalar s = glia_scalar_float(v);
        return glia_clamp(t, nullptr, &s, out);
      });
      check(labeld("glia_add_scalar" + sfx, "s (float)", v),
            [&](glia_tensor** out) { return glia_add_scalar(t, glia_scalar_float(v), 1.0, out); });
      check(labeld("glia_add_scalar" + sfx + " s=int 1", "alpha", v),
            [&](glia_tensor** out) { return glia_add_scalar(t, glia_scalar_int(1), v, out); });
      check(labeld("glia_add" + sfx, "alpha", v), [&](glia_tensor** out) { return glia_add(t, t, v, out); });
      check(labeld("glia_mul_scalar" + sfx, "s (float)", v),
            [&](glia_tensor** out) { return glia_mul_scalar(t, glia_scalar_float(v), out); });
      check(labeld("glia_pow_scalar" + sfx, "exponent (float)", v),
            [&](glia_tensor** out) { return glia_pow_scalar(t, glia_scalar_float(v), out); });
    }
  }
  for (int64_t v : kInts) {
    for (glia_tensor* t : {a, ai}) {
      std::string sfx = t == ai ? " int64" : " float32";
      check(label("glia_clamp" + sfx, "min (int)", v), [&](glia_tensor** out) {
        glia_scalar s = glia_scalar_int(v);
        return glia_clamp(t, &s, nullptr, out);
      });
      check(label("glia_add_scalar" + sfx, "s (int)", v),
            [&](glia_tensor** out) { return glia_add_scalar(t, glia_scalar_int(v), 1.0, out); });
      check(label("glia_mul_scalar" + sfx, "s (int)", v),
            [&](glia_tensor** out) { return glia_mul_scalar(t, glia_scalar_int(v), out); });
      check(label("glia_pow_scalar" + sfx, "exponent (int)", v),
            [&](glia_tensor** out) { return glia_pow_scalar(t, glia_scalar_int(v), out); });
    }
  }
}

// Integer division by every extreme value, 0 included (torch: "ZeroDivisionError"), in every rounding mode.
TEST_F(ExtremeValues, SweepIntegerDivision) {
  Handles h;
  std::vector<int64_t> nums = kInts;
  nums.push_back(7);
  glia_tensor* a = make_i64(h, nums);
  for (int64_t v : kInts) {
    for (const char* mode : {static_cast<const char*>(nullptr), "trunc", "floor"}) {
      std::string m = mode ? mode : "true";
      check(label("glia_div int64 " + m, "divisor", v), [&](glia_tensor** out) {
        Handles hh;
        glia_tensor* d = make_i64(hh, std::vector<int64_t>(nums.size(), v));
        return glia_div(a, d, mode, out);
      });
      check(label("glia_div_scalar int64 " + m, "s (int)", v),
            [&](glia_tensor** out) { return glia_div_scalar(a, glia_scalar_int(v), mode, out); });
    }
  }
}

// Float-to-integer conversions of NaN, +-inf and out-of-range values.
TEST_F(ExtremeValues, SweepFloatToIntConversions) {
  for (double v : kDoubles) {
    Handles h;
    glia_tensor* f = make(h, {v, 1.5}, {2}, GLIA_FLOAT64);
    for (glia_dtype d : {GLIA_INT64, GLIA_INT32, GLIA_UINT8, GLIA_BOOL, GLIA_FLOAT16, GLIA_BFLOAT16, GLIA_FLOAT32}) {
      check(labeld("glia_tensor_to dtype " + std::to_string(d), "value", v),
            [&](glia_tensor** out) { return glia_tensor_to(f, &kCpu, &d, out); });
    }
    glia_tensor* one = make(h, {v}, {1}, GLIA_FLOAT64);
    int64_t i = 0;
    check_status(labeld("glia_tensor_item_int64", "value", v), glia_tensor_item_int64(one, &i));
  }
}

// ---- sweeps: index tensors and container indices --------------------------------------------

TEST_F(ExtremeValues, SweepIndexValues) {
  Handles h;
  glia_tensor* a = make(h, iota(6), {2, 3}, GLIA_FLOAT32);
  glia_tensor* src = make(h, iota(6), {2, 3}, GLIA_FLOAT32);
  for (int64_t v : kInts) {
    check(label("glia_index_select", "index[0]", v), [&](glia_tensor** out) {
      Handles hh;
      return glia_index_select(a, 1, make_i64(hh, {v, 0}), out);
    });
    check(label("glia_index_select", "dim", v), [&](glia_tensor** out) {
      Handles hh;
      return glia_index_select(a, v, make_i64(hh, {1, 0}), out);
    });
    check(label("glia_gather", "index[0][0]", v), [&](glia_tensor** out) {
      Handles hh;
      return glia_gather(a, 0, make_i64(hh, {v, 0, 1, 1, 0, 0}, {2, 3}), out);
    });
    check(label("glia_gather", "dim", v), [&](glia_tensor** out) {
      Handles hh;
      return glia_gather(a, v, make_i64(hh, {1, 0, 1, 1, 0, 0}, {2, 3}), out);
    });
    check(label("glia_scatter", "index[0][0]", v), [&](glia_tensor** out) {
      Handles hh;
      return glia_scatter(a, 0, make_i64(hh, {v, 0, 1, 1, 0, 0}, {2, 3}), src, out);
    });
    check(label("glia_scatter_add", "index[0][0]", v), [&](glia_tensor** out) {
      Handles hh;
      return glia_scatter_add(a, 0, make_i64(hh, {v, 0, 1, 1, 0, 0}, {2, 3}), src, out);
    });
    check(label("glia_scatter_value", "index[0][0]", v), [&](glia_tensor** out) {
      Handles hh;
      return glia_scatter_value(a, 0, make_i64(hh, {v, 0, 1, 1, 0, 0}, {2, 3}), glia_scalar_float(2.0), out);
    });
  }
}

TEST_F(ExtremeValues, SweepContainerIndices) {
  struct Kind {
    const char* name;
    glia_error* (*make)(glia_module* const*, int64_t, glia_module**);
    glia_error* (*get)(glia_module*, int64_t, glia_module**);
    glia_error* (*set)(glia_module*, int64_t, glia_module*);
    glia_error* (*insert)(glia_module*, int64_t, glia_module*);
    glia_error* (*slice)(glia_module*, int64_t, int64_t, int64_t, glia_module**);
    glia_error* (*pop)(glia_module*, int64_t, glia_module**);
  };
  const Kind kinds[] = {
      {"glia_nn_sequential", glia_nn_sequential, glia_nn_sequential_get, glia_nn_sequential_set,
       glia_nn_sequential_insert, glia_nn_sequential_slice, glia_nn_sequential_pop},
      {"glia_nn_module_list", glia_nn_module_list, glia_nn_module_list_get, glia_nn_module_list_set,
       glia_nn_module_list_insert, glia_nn_module_list_slice, glia_nn_module_list_pop},
  };
  const int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  for (const Kind& k : kinds) {
    const std::string n = k.name;
    for (int64_t v : kInts) {
      ModuleHandle r0, r1, r2, extra;
      GLIA_OK_(glia_nn_relu(nullptr, r0.out()));
      GLIA_OK_(glia_nn_tanh(nullptr, r1.out()));
      GLIA_OK_(glia_nn_sigmoid(nullptr, r2.out()));
      GLIA_OK_(glia_nn_silu(nullptr, extra.out()));
      glia_module* children[] = {r0, r1, r2};
      auto fresh = [&](ModuleHandle& c) { GLIA_OK_(k.make(children, 3, c.out())); };
      {
        ModuleHandle c;
        fresh(c);
        check_module(label(n + "_get", "index", v), [&](glia_module** m) { return k.get(c, v, m); });
      }
      {
        ModuleHandle c;
        fresh(c);
        check_status(label(n + "_set", "index", v), k.set(c, v, extra));
      }
      {
        ModuleHandle c;
        fresh(c);
        check_status(label(n + "_insert", "index", v), k.insert(c, v, extra));
      }
      {
        ModuleHandle c;
        fresh(c);
        check_module(label(n + "_pop", "index", v), [&](glia_module** m) { return k.pop(c, v, m); });
      }
      for (int arg = 0; arg < 3; ++arg) {
        const char* const names[] = {"start", "stop", "step"};
        for (int64_t step : {1LL, -1LL}) {
          if (arg == 2 && step == -1) continue;
          ModuleHandle c;
          fresh(c);
          int64_t p[3] = {step > 0 ? kMin : kMax, step > 0 ? kMax : kMin, step};
          p[arg] = v;
          check_module(label(n + "_slice" + (step > 0 ? "" : " step -1"), names[arg], v),
                       [&](glia_module** m) { return k.slice(c, p[0], p[1], p[2], m); });
        }
      }
    }
  }
}

// ---- sweeps: module constructors ------------------------------------------------------------

TEST_F(ExtremeValues, SweepModuleConstructors) {
  for (int skip = 0; skip < 2; ++skip) {
    glia_factory_options fo;
    glia_factory_options_init(&fo);
    fo.skip_init = skip;
    const std::string sfx = skip ? " skip_init" : "";
    for (int64_t v : kInts) {
      check_module(label("glia_nn_linear" + sfx, "in_features", v),
                   [&](glia_module** m) { return glia_nn_linear(v, 3, 1, &fo, m); });
      check_module(label("glia_nn_linear" + sfx, "out_features", v),
                   [&](glia_module** m) { return glia_nn_linear(3, v, 1, &fo, m); });
      for (int arg = 0; arg < 3; ++arg) {
        const char* const names[] = {"in1_features", "in2_features", "out_features"};
        check_module(label("glia_nn_bilinear" + sfx, names[arg], v), [&](glia_module** m) {
          int64_t p[3] = {2, 2, 2};
          p[arg] = v;
          return glia_nn_bilinear(p[0], p[1], p[2], 1, &fo, m);
        });
      }
      for (int arg = 0; arg < 4; ++arg) {
        const char* const names[] = {"in_channels", "out_channels", "kernel_h", "kernel_w"};
        check_module(label("glia_nn_conv2d" + sfx, names[arg], v), [&](glia_module** m) {
          int64_t p[4] = {2, 2, 3, 3};
          p[arg] = v;
          return glia_nn_conv2d(p[0], p[1], p[2], p[3], nullptr, &fo, m);
        });
        check_module(label("glia_nn_conv_transpose2d" + sfx, names[arg], v), [&](glia_module** m) {
          int64_t p[4] = {2, 2, 3, 3};
          p[arg] = v;
          return glia_nn_conv_transpose2d(p[0], p[1], p[2], p[3], nullptr, &fo, m);
        });
      }
      const char* const onames[] = {"stride[0]",   "stride[1]",   "padding[0]", "padding[1]",
                                    "dilation[0]", "dilation[1]", "groups"};
      for (int arg = 0; arg < 7; ++arg) {
        check_module(label("glia_nn_conv2d" + sfx, onames[arg], v), [&](glia_module** m) {
          glia_nn_conv2d_options o;
          glia_nn_conv2d_options_init(&o);
          int64_t* f[] = {&o.stride[0],   &o.stride[1],   &o.padding[0], &o.padding[1],
                          &o.dilation[0], &o.dilation[1], &o.groups};
          *f[arg] = v;
          return glia_nn_conv2d(2, 2, 3, 3, &o, &fo, m);
        });
      }
      check_module(label("glia_nn_embedding" + sfx, "num_embeddings", v),
                   [&](glia_module** m) { return glia_nn_embedding(v, 3, nullptr, nullptr, 2.0, &fo, m); });
      check_module(label("glia_nn_embedding" + sfx, "embedding_dim", v),
                   [&](glia_module** m) { return glia_nn_embedding(4, v, nullptr, nullptr, 2.0, &fo, m); });
      check_module(label("glia_nn_embedding" + sfx, "padding_idx", v),
                   [&](glia_module** m) { return glia_nn_embedding(4, 3, &v, nullptr, 2.0, &fo, m); });
      check_module(label("glia_nn_batch_norm1d" + sfx, "num_features", v),
                   [&](glia_module** m) { return glia_nn_batch_norm1d(v, nullptr, &fo, m); });
      check_module(label("glia_nn_batch_norm2d" + sfx, "num_features", v),
                   [&](glia_module** m) { return glia_nn_batch_norm2d(v, nullptr, &fo, m); });
      for (int pos = 0; pos < 2; ++pos) {
        check_module(label("glia_nn_layer_norm" + sfx, "normalized_shape[" + std::to_string(pos) + "]", v),
                     [&](glia_module** m) {
                       int64_t s[2] = {2, 3};
                       s[pos] = v;
                       return glia_nn_layer_norm(s, 2, 1e-5, 1, 1, &fo, m);
                     });
      }
      check_module(label("glia_nn_group_norm" + sfx, "num_groups", v),
                   [&](glia_module** m) { return glia_nn_group_norm(v, 4, 1e-5, 1, &fo, m); });
      check_module(label("glia_nn_group_norm" + sfx, "num_channels", v),
                   [&](glia_module** m) { return glia_nn_group_norm(2, v, 1e-5, 1, &fo, m); });
    }
  }
  for (int64_t v : kInts) {
    check_module(label("glia_nn_softmax", "dim", v), [&](glia_module** m) { return glia_nn_softmax(v, nullptr, m); });
    check_module(label("glia_nn_log_softmax", "dim", v),
                 [&](glia_module** m) { return glia_nn_log_softmax(v, nullptr, m); });
    check_module(label("glia_nn_flatten", "start_dim", v),
                 [&](glia_module** m) { return glia_nn_flatten(v, -1, nullptr, m); });
    check_module(label("glia_nn_flatten", "end_dim", v),
                 [&](glia_module** m) { return glia_nn_flatten(1, v, nullptr, m); });
    check_module(label("glia_nn_adaptive_avg_pool2d", "out_h", v),
                 [&](glia_module** m) { return glia_nn_adaptive_avg_pool2d(v, 2, nullptr, m); });
    const char* const names[] = {"kernel_size[0]", "kernel_size[1]", "stride[0]",   "stride[1]",
                                 "padding[0]",     "padding[1]",     "dilation[0]", "dilation[1]"};
    for (int arg = 0; arg < 8; ++arg) {
      check_module(label("glia_nn_max_pool2d", names[arg], v), [&](glia_module** m) {
        glia_max_pool2d_options o;
        glia_max_pool2d_options_init(&o);
        o.kernel_size[0] = o.kernel_size[1] = 2;
        int64_t* f[] = {&o.kernel_size[0], &o.kernel_size[1], &o.stride[0],   &o.stride[1],
                        &o.padding[0],     &o.padding[1],     &o.dilation[0], &o.dilation[1]};
        *f[arg] = v;
        return glia_nn_max_pool2d(&o, nullptr, m);
      });
      if (arg >= 6) continue;
      check_module(label("glia_nn_avg_pool2d", names[arg], v), [&](glia_module** m) {
        glia_avg_pool2d_options o;
        glia_avg_pool2d_options_init(&o);
        o.kernel_size[0] = o.kernel_size[1] = 2;
        int64_t* f[] = {&o.kernel_size[0], &o.kernel_size[1], &o.stride[0], &o.stride[1], &o.padding[0], &o.padding[1]};
        *f[arg] = v;
        return glia_nn_avg_pool2d(&o, nullptr, m);
      });
    }
  }
  for (double v : kDoubles) {
    check_module(labeld("glia_nn_dropout", "p", v), [&](glia_module** m) { return glia_nn_dropout(v, nullptr, m); });
    check_module(labeld("glia_nn_leaky_relu", "negative_slope", v),
                 [&](glia_module** m) { return glia_nn_leaky_relu(v, nullptr, m); });
    check_module(labeld("glia_nn_elu", "alpha", v), [&](glia_module** m) { return glia_nn_elu(v, nullptr, m); });
    check_module(labeld("glia_nn_embedding", "max_norm", v),
                 [&](glia_module** m) { return glia_nn_embedding(4, 3, nullptr, &v, 2.0, nullptr, m); });
    check_module(labeld("glia_nn_embedding", "norm_type", v),
                 [&](glia_module** m) { return glia_nn_embedding(4, 3, nullptr, nullptr, v, nullptr, m); });
    check_module(labeld("glia_nn_group_norm", "eps", v),
                 [&](glia_module** m) { return glia_nn_group_norm(2, 4, v, 1, nullptr, m); });
    check_module(labeld("glia_nn_layer_norm", "eps", v), [&](glia_module** m) {
      const int64_t s[] = {3};
      return glia_nn_layer_norm(s, 1, v, 1, 1, nullptr, m);
    });
    for (int field = 0; field < 2; ++field) {
      check_module(labeld("glia_nn_batch_norm2d", field == 0 ? "eps" : "momentum", v), [&](glia_module** m) {
        glia_batch_norm_options o;
        glia_batch_norm_options_init(&o);
        (field == 0 ? o.eps : o.momentum) = v;
        return glia_nn_batch_norm2d(3, &o, nullptr, m);
      });
    }
  }
}

// ---- sweeps: optimizers ---------------------------------------------------------------------

// Creates an optimizer over one float32 parameter with a grad; when that works, one step.
void check_optimizer(const std::string& what,
                     const std::function<glia_error*(glia_tensor* const*, glia_optimizer**)>& make_opt) {
  SCOPED_TRACE(what);
  Handles h;
  glia_tensor* p = make(h, {1.0, -2.0, 3.0}, {3}, GLIA_FLOAT32);
  ok(glia_tensor_set_requires_grad(p, 1), "requires_grad");
  glia_tensor* g = make(h, {0.5, 0.5, -0.5}, {3}, GLIA_FLOAT32);
  ok(glia_tensor_set_grad(p, g), "set_grad");
  OptHandle opt;
  glia_error* e = make_opt(&p, opt.out());
  if (e) {
    check_status(what, e);
    return;
  }
  check_status(what + " step", glia_optimizer_step(opt));
  check_status(what + " second step", glia_optimizer_step(opt));
}

TEST_F(ExtremeValues, SweepOptimizerOptions) {
  for (double v : kDoubles) {
    const char* const sgd_names[] = {"lr", "momentum", "dampening", "weight_decay"};
    for (int f = 0; f < 4; ++f) {
      check_optimizer(labeld("glia_optim_sgd", sgd_names[f], v), [&](glia_tensor* const* p, glia_optimizer** o) {
        glia_sgd_options so;
        glia_sgd_options_init(&so);
        if (f != 1) so.momentum = 0.9;
        double* fs[] = {&so.lr, &so.momentum, &so.dampening, &so.weight_decay};
        *fs[f] = v;
        return glia_optim_sgd(p, 1, &so, o);
      });
    }
    const char* const adam_names[] = {"lr", "betas[0]", "betas[1]", "eps", "weight_decay"};
    for (int f = 0; f < 5; ++f) {
      for (int amsgrad = 0; amsgrad < 2; ++amsgrad) {
        check_optimizer(labeld(amsgrad ? "glia_optim_adam amsgrad" : "glia_optim_adam", adam_names[f], v),
                        [&](glia_tensor* const* p, glia_optimizer** o) {
                          glia_adam_options ao;
                          glia_adam_options_init(&ao);
                          ao.amsgrad = amsgrad;
                          double* fs[] = {&ao.lr, &ao.betas[0], &ao.betas[1], &ao.eps, &ao.weight_decay};
                          *fs[f] = v;
                          return glia_optim_adam(p, 1, &ao, o);
                        });
      }
      check_optimizer(labeld("glia_optim_adamw", adam_names[f], v), [&](glia_tensor* const* p, glia_optimizer** o) {
        glia_adamw_options ao;
        glia_adamw_options_init(&ao);
        double* fs[] = {&ao.lr, &ao.betas[0], &ao.betas[1], &ao.eps, &ao.weight_decay};
        *fs[f] = v;
        return glia_optim_adamw(p, 1, &ao, o);
      });
    }
    const char* const rms_names[] = {"lr", "alpha", "eps", "weight_decay", "momentum"};
    for (int f = 0; f < 5; ++f) {
      check_optimizer(labeld("glia_optim_rmsprop centered", rms_names[f], v),
                      [&](glia_tensor* const* p, glia_optimizer** o) {
                        glia_rmsprop_options ro;
                        glia_rmsprop_options_init(&ro);
                        ro.centered = 1;
                        double* fs[] = {&ro.lr, &ro.alpha, &ro.eps, &ro.weight_decay, &ro.momentum};
                        *fs[f] = v;
                        return glia_optim_rmsprop(p, 1, &ro, o);
                      });
    }
    check_optimizer(labeld("glia_optimizer_set_lr (sgd)", "lr", v), [&](glia_tensor* const* p, glia_optimizer** o) {
      glia_error* e = glia_optim_sgd(p, 1, nullptr, o);
      if (e) return e;
      return glia_optimizer_set_lr(*o, 0, v);
    });
  }
  for (int64_t v : kInts) {
    check_optimizer(label("glia_optimizer_set_lr (sgd)", "group", v), [&](glia_tensor* const* p, glia_optimizer** o) {
      glia_error* e = glia_optim_sgd(p, 1, nullptr, o);
      if (e) return e;
      return glia_optimizer_set_lr(*o, v, 0.1);
    });
    check_optimizer(label("glia_optimizer_get_lr (sgd)", "group", v), [&](glia_tensor* const* p, glia_optimizer** o) {
      glia_error* e = glia_optim_sgd(p, 1, nullptr, o);
      if (e) return e;
      double lr = 0;
      return glia_optimizer_get_lr(*o, v, &lr);
    });
    if (v <= 1) {  // a count larger than the array is the caller's error
      check_optimizer(label("glia_optim_sgd", "n_params", v),
                      [&](glia_tensor* const* p, glia_optimizer** o) { return glia_optim_sgd(p, v, nullptr, o); });
    }
  }
}

// ---- named regression cases ------------------------------------------------------------------

TEST_F(ExtremeValues, LinearWithHugeFeaturesIsAnError) {
  {
    ModuleHandle m;
    glia_error* e = glia_nn_linear(1LL << 31, 1LL << 31, 1, nullptr, m.out());
    EXPECT_NE(e, nullptr) << "Linear(2^31, 2^31) accepted";
    glia_error_free(e);
  }
  {
    glia_factory_options fo;
    glia_factory_options_init(&fo);
    fo.skip_init = 1;
    ModuleHandle m;
    glia_error* e = glia_nn_linear(1LL << 31, 1LL << 31, 1, &fo, m.out());
    EXPECT_NE(e, nullptr) << "Linear(2^31, 2^31) with skip_init accepted";
    glia_error_free(e);
  }
}

// A view of 2^62 elements is fine; anything that materialises it must fail cleanly.
TEST_F(ExtremeValues, ExpandedHugeViewCannotBeMaterialised) {
  Handles h;
  glia_tensor* one = make(h, {1.5}, {1}, GLIA_FLOAT32);
  const int64_t big[] = {1LL << 62};
  glia_tensor* v = nullptr;
  GLIA_OK_(glia_expand(one, big, 1, &v));
  h.add(v);
  EXPECT_EQ(shape(v), std::vector<int64_t>{1LL << 62});
  struct Case {
    const char* name;
    std::function<glia_error*(glia_tensor**)> call;
  };
  const Case cases[] = {
      {"glia_tensor_clone", [&](glia_tensor** o) { return glia_tensor_clone(v, o); }},
      {"glia_add", [&](glia_tensor** o) { return glia_add(v, v, 1.0, o); }},
      {"glia_exp", [&](glia_tensor** o) { return glia_exp(v, o); }},
      {"glia_tensor_contiguous", [&](glia_tensor** o) { return glia_tensor_contiguous(v, o); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    glia_tensor* out = nullptr;
    glia_error* e = c.call(&out);
    h.add(out);
    ASSERT_NE(e, nullptr) << c.name << " of a 2^62-element view succeeded";
    ErrorInfo info = take(e);
    EXPECT_TRUE(info.code == GLIA_ERR_OUT_OF_MEMORY || info.code == GLIA_ERR_SHAPE)
        << "code " << info.code << ": " << info.message;
  }
}

TEST_F(ExtremeValues, SumOverZeroRowsOfHugeColumnsIsAnError) {
  const int64_t s[] = {0, 1LL << 62};
  glia_tensor_options o = opts(GLIA_FLOAT32);
  Handles h;
  glia_tensor* t = nullptr;
  GLIA_OK_(glia_tensor_empty(s, 2, &o, &t));
  h.add(t);
  const int64_t d[] = {0};
  glia_tensor* out = nullptr;
  glia_error* e = glia_sum(t, d, 1, 0, &out);
  h.add(out);
  EXPECT_NE(e, nullptr) << "sum to a [2^62] result succeeded";
  glia_error_free(e);
}

TEST_F(ExtremeValues, Conv2dWithPaddingInt64MaxIsAnError) {
  Handles h;
  glia_tensor* x = make(h, iota(9), {1, 1, 3, 3}, GLIA_FLOAT32);
  // A 1x1 kernel too: 2 * INT64_MAX used to wrap to -2, and 3 - 2 >= 1 gave a [1, 1, 2, 3] result.
  for (int64_t k : {1, 2})
    for (int dim = 0; dim < 2; ++dim) {
      SCOPED_TRACE(dim);
      SCOPED_TRACE(k);
      glia_tensor* w = make(h, iota(static_cast<size_t>(k * k)), {1, 1, k, k}, GLIA_FLOAT32);
      glia_conv2d_options o;
      glia_conv2d_options_init(&o);
      o.padding[dim] = std::numeric_limits<int64_t>::max();
      glia_tensor* out = nullptr;
      glia_error* e = glia_conv2d(x, w, nullptr, &o, &out);
      h.add(out);
      EXPECT_NE(e, nullptr) << "padding INT64_MAX accepted";
      glia_error_free(e);
    }
}

// nn.Conv2d(padding="same") pads dilation * (kernel - 1) in all; torch builds the module whatever
// that comes to (Python integers) and fails in forward. glia computed it in the constructor: signed
// overflow for a 3x3 kernel and a dilation of 2^62, or the fuzzer's -7998110363721662465
// (regress-conv2d-same-overflow).
TEST_F(ExtremeValues, Conv2dSamePaddingOverflowIsAnErrorInForward) {
  Handles h;
  glia_tensor* x = make(h, iota(16), {1, 1, 4, 4}, GLIA_FLOAT32);
  for (int64_t dilation : {int64_t{1} << 62, int64_t{-7998110363721662465}})
    for (glia_pad_mode mode : {GLIA_PAD_CONSTANT, GLIA_PAD_REFLECT}) {
      SCOPED_TRACE(dilation);
      SCOPED_TRACE(mode);
      glia_nn_conv2d_options o;
      glia_nn_conv2d_options_init(&o);
      o.padding_kind = GLIA_PADDING_SAME;
      o.dilation[0] = o.dilation[1] = dilation;
      o.padding_mode = mode;
      glia_module* m = nullptr;
      GLIA_OK_(glia_nn_conv2d(1, 1, 3, 3, &o, nullptr, &m));  // as torch: built
      glia_tensor* out = nullptr;
      int64_t n = 0;
      const glia_tensor* in[] = {x};
      glia_error* e = glia_module_forward(m, in, 1, &out, 1, &n);
      EXPECT_EQ(out, nullptr);
      ASSERT_NE(e, nullptr) << "forward succeeded";
      ErrorInfo info = take(e);
      if (mode == GLIA_PAD_REFLECT) {
        // The padding itself: d * 2 does not fit.
        EXPECT_EQ(info.code, GLIA_ERR_SHAPE) << info.message;
        EXPECT_NE(info.message.find("Conv2d: integer overflow computing " + std::to_string(dilation) + " * 2"),
                  std::string::npos)
            << info.message;
      } else {
        // conv2d's checks: a negative dilation, or the same product.
        EXPECT_NE(info.message.find(dilation < 0 ? "non-positive dilation is not supported" : "integer overflow"),
                  std::string::npos)
            << info.message;
      }
      glia_error_free(glia_module_release(m));
    }
}

TEST_F(ExtremeValues, SliceWithInt64MaxEndAndStep) {
  Handles h;
  glia_tensor* a = make(h, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3}, GLIA_FLOAT32);
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  glia_tensor* out = nullptr;
  GLIA_OK_(glia_slice(a, 0, 0, kMax, kMax, &out));
  h.add(out);
  EXPECT_EQ(shape(out), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values(out), (std::vector<double>{1, 2, 3}));
}

TEST_F(ExtremeValues, AvgPoolWithHugeKernel) {
  Handles h;
  glia_tensor* x = make(h, iota(9), {1, 1, 3, 3}, GLIA_FLOAT32);
  {
    glia_avg_pool2d_options o;
    glia_avg_pool2d_options_init(&o);
    o.kernel_size[0] = o.kernel_size[1] = 1LL << 40;
    glia_tensor* out = nullptr;
    glia_error* e = glia_avg_pool2d(x, &o, &out);
    h.add(out);
    EXPECT_NE(e, nullptr) << "kernel 2^40 without padding accepted";
    glia_error_free(e);
  }
  {
    glia_avg_pool2d_options o;
    glia_avg_pool2d_options_init(&o);
    o.kernel_size[0] = o.kernel_size[1] = 1LL << 40;
    o.padding[0] = o.padding[1] = 1LL << 39;
    auto t0 = std::chrono::steady_clock::now();
    glia_tensor* out = nullptr;
    glia_error* e = glia_avg_pool2d(x, &o, &out);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(secs, 5.0);
    if (e) {
      check_status("avg_pool2d kernel 2^40 padding 2^39", e);
    } else {
      h.add(out);
      EXPECT_EQ(shape(out), (std::vector<int64_t>{1, 1, 1, 1}));
      std::vector<double> v = values(out);
      ASSERT_EQ(v.size(), 1u);
      EXPECT_TRUE(std::isfinite(v[0])) << v[0];
    }
  }
}

TEST_F(ExtremeValues, MaxPoolWithHugeKernelIsFast) {
  Handles h;
  glia_tensor* x = make(h, iota(9), {1, 1, 3, 3}, GLIA_FLOAT32);
  glia_max_pool2d_options o;
  glia_max_pool2d_options_init(&o);
  o.kernel_size[0] = o.kernel_size[1] = 1LL << 62;
  o.padding[0] = o.padding[1] = 1LL << 61;
  auto t0 = std::chrono::steady_clock::now();
  glia_tensor* out = nullptr;
  glia_error* e = glia_max_pool2d(x, &o, &out, nullptr);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  expect_error_or_valid(e, out, "max_pool2d kernel 2^62 padding 2^61");
  EXPECT_LT(secs, 5.0);
}

TEST_F(ExtremeValues, FromBlobWithOverflowingStrideIsAnError) {
  alignas(64) static float buf[4] = {1, 2, 3, 4};
  const int64_t s[] = {2, 2};
  const int64_t st[] = {1LL << 62, 1};
  g_deleter_calls = 0;
  glia_tensor* out = nullptr;
  glia_error* e = glia_tensor_from_blob(buf, s, st, 2, GLIA_FLOAT32, kCpu, count_deleter, nullptr, &out);
  EXPECT_NE(e, nullptr) << "stride 2^62 accepted";
  glia_error_free(e);
  glia_error_free(glia_tensor_release(out));
  EXPECT_EQ(g_deleter_calls, 1);
}

TEST_F(ExtremeValues, FromBlobMisalignedIsAnError) {
  alignas(64) static float buf[8] = {};
  const int64_t s[] = {2};
  g_deleter_calls = 0;
  glia_tensor* out = nullptr;
  void* p = reinterpret_cast<char*>(buf) + 1;
  glia_error* e = glia_tensor_from_blob(p, s, nullptr, 1, GLIA_FLOAT32, kCpu, count_deleter, nullptr, &out);
  if (!e) {
    ADD_FAILURE() << "a misaligned float32 blob was accepted";
    glia_error_free(glia_tensor_release(out));
  } else {
    ErrorInfo info = take(e);
    EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT) << info.message;
    EXPECT_NE(info.message.find("not aligned"), std::string::npos) << info.message;
  }
  EXPECT_EQ(g_deleter_calls, 1);
}

TEST_F(ExtremeValues, ExpandToNegativeOrOverflowingSizes) {
  Handles h;
  glia_tensor* row = make(h, {1, 2, 3}, {1, 3}, GLIA_FLOAT32);
  {
    const int64_t s[] = {-2, 3};
    glia_tensor* out = nullptr;
    glia_error* e = glia_expand(row, s, 2, &out);
    h.add(out);
    ASSERT_NE(e, nullptr) << "expand to [-2, 3] accepted";
    ErrorInfo info = take(e);
    EXPECT_NE(info.code, GLIA_ERR_INTERNAL);
    EXPECT_NE(info.message.find("negative dimension -2"), std::string::npos) << info.message;
  }
  {
    glia_tensor* one = make(h, {1}, {1, 1}, GLIA_FLOAT32);
    const int64_t s[] = {1LL << 62, 1LL << 62};
    glia_tensor* out = nullptr;
    glia_error* e = glia_expand(one, s, 2, &out);
    h.add(out);
    EXPECT_NE(e, nullptr) << "expand to [2^62, 2^62] (numel 2^124) accepted";
    glia_error_free(e);
  }
}

TEST_F(ExtremeValues, EmptyWithZeroAndTwoHugeSizesIsAnError) {
  const int64_t s[] = {0, INT64_MAX, INT64_MAX};
  glia_tensor* out = nullptr;
  glia_error* e = glia_tensor_empty(s, 3, nullptr, &out);
  EXPECT_NE(e, nullptr) << "shape [0, INT64_MAX, INT64_MAX] accepted";
  glia_error_free(e);
  glia_error_free(glia_tensor_release(out));
}

TEST_F(ExtremeValues, IntegerWrapAroundLikeTorch) {
  // Int64 tensors read back exactly (values() goes through double).
  auto i64 = [](Handles& h, std::vector<int64_t> v) { return make_i64(h, std::move(v)); };
  auto read64 = [](glia_tensor* t) { return read_i64(t); };
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  Handles h;
  glia_tensor* a = i64(h, {kMin});
  glia_tensor* m1 = i64(h, {-1});
  for (const char* mode : {"trunc", "floor"}) {
    SCOPED_TRACE(mode);
    glia_tensor* q = nullptr;
    GLIA_OK_(glia_div(a, m1, mode, &q));
    h.add(q);
    EXPECT_EQ(read64(q), std::vector<int64_t>{kMin});
  }
  {
    glia_tensor* r = nullptr;
    GLIA_OK_(glia_neg(a, &r));
    h.add(r);
    EXPECT_EQ(read64(r), std::vector<int64_t>{kMin}) << "neg";
    r = nullptr;
    GLIA_OK_(glia_abs(a, &r));
    h.add(r);
    EXPECT_EQ(read64(r), std::vector<int64_t>{kMin}) << "abs";
  }
  {
    const int32_t v32 = std::numeric_limits<int32_t>::min();
    const int64_t n = 1;
    glia_tensor* t = nullptr;
    GLIA_OK_(glia_tensor_from_data(&v32, sizeof v32, &n, 1, GLIA_INT32, &t));
    h.add(t);
    for (int which = 0; which < 2; ++which) {
      glia_tensor* r = nullptr;
      GLIA_OK_(which == 0 ? glia_neg(t, &r) : glia_abs(t, &r));
      h.add(r);
      EXPECT_EQ(dtype(r), GLIA_INT32);
      int32_t got = 0;
      GLIA_OK_(glia_tensor_copy_to_host(r, &got, sizeof got));
      EXPECT_EQ(got, v32) << (which == 0 ? "neg" : "abs") << " of INT32_MIN";
    }
  }
  {
    glia_tensor* mx = i64(h, {kMax});
    glia_tensor* one = i64(h, {1});
    glia_tensor* two = i64(h, {2});
    glia_tensor* r = nullptr;
    GLIA_OK_(glia_add(mx, one, 1.0, &r));
    h.add(r);
    EXPECT_EQ(read64(r), std::vector<int64_t>{kMin}) << "INT64_MAX + 1";
    r = nullptr;
    GLIA_OK_(glia_mul(mx, two, &r));
    h.add(r);
    EXPECT_EQ(read64(r), std::vector<int64_t>{-2}) << "INT64_MAX * 2";
  }
}

TEST_F(ExtremeValues, FullRefusesValuesTheDtypeCannotHold) {
  const int64_t s[] = {2};
  struct Case {
    glia_dtype dtype;
    double value;
    const char* type_name;
  };
  const Case cases[] = {
      {GLIA_INT64, kNaN, "int64_t"},  {GLIA_INT64, kInf, "int64_t"}, {GLIA_INT64, -kInf, "int64_t"},
      {GLIA_INT64, 1e300, "int64_t"}, {GLIA_INT32, kNaN, "int"},     {GLIA_INT32, kInf, "int"},
      {GLIA_INT32, -kInf, "int"},     {GLIA_INT32, 1e300, "int"},    {GLIA_UINT8, 300.0, "uint8_t"},
      {GLIA_FLOAT32, 1e300, "float"},
  };
  for (const Case& c : cases) {
    std::string what = std::string("full ") + c.type_name + " " + double_name(c.value);
    SCOPED_TRACE(what);
    glia_tensor_options o = opts(c.dtype);
    glia_tensor* out = nullptr;
    glia_error* e = glia_tensor_full(s, 1, c.value, &o, &out);
    if (!e) {
      ADD_FAILURE() << what << " unexpectedly succeeded";
      glia_error_free(glia_tensor_release(out));
      continue;
    }
    ErrorInfo info = take(e);
    EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT) << info.message;
    EXPECT_EQ(info.message, std::string("value cannot be converted to type ") + c.type_name + " without overflow");
  }
  for (double v : {kNaN, kInf, -kInf}) {
    SCOPED_TRACE(double_name(v));
    glia_tensor_options o = opts(GLIA_FLOAT32);
    glia_tensor* out = nullptr;
    GLIA_OK_(glia_tensor_full(s, 1, v, &o, &out));
    Handles h;
    h.add(out);
    std::vector<double> got = values(out);
    ASSERT_EQ(got.size(), 2u);
    if (std::isnan(v))
      EXPECT_TRUE(std::isnan(got[0]) && std::isnan(got[1]));
    else
      EXPECT_EQ(got, (std::vector<double>{v, v}));
  }
}

// torch's constant_pad_nd fills with Tensor.fill_, which refuses a value the dtype cannot hold.
TEST_F(ExtremeValues, PadFillValueMustFitTheDtype) {
  Handles h;
  glia_tensor* xi = make_i64(h, {1, 2});
  for (double v : {kNaN, kInf, -kInf, 1e300}) {
    SCOPED_TRACE(double_name(v));
    const int64_t p[2] = {1, 1};
    glia_tensor* out = nullptr;
    glia_error* e = glia_pad(xi, p, 2, GLIA_PAD_CONSTANT, v, &out);
    h.add(out);
    if (!e) {
      ADD_FAILURE() << "pad of an int64 tensor with value " << double_name(v)
                    << " succeeded: " << ::testing::PrintToString(read_i64(out));
      continue;
    }
    ErrorInfo info = take(e);
    EXPECT_EQ(info.code, GLIA_ERR_INVALID_ARGUMENT) << info.message;
    EXPECT_NE(info.message.find("value cannot be converted to type int64_t without overflow"), std::string::npos)
        << info.message;
  }
}

}  // namespace
