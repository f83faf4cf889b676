// glia-test-ops: backend parity. For every op case of tests/golden/ops/*.json
// (through the same adapters as the golden tests), runs the op on the CPU
// and on a backend's device with the same inputs and compares the results
// (ggml's test-backend-ops is the model).
//
//   glia-test-ops --backend testdevice|cuda|PATH [--op NAME] [--seed N] [--verbose]
//
// Inputs: the case's shapes, dtypes, views (transposed) and arguments, with
// random floating values (integer and bool inputs keep the fixture's values:
// they are indices, targets, masks). Each case runs three ways: as the
// fixture lays it out, with every input an offset view into a larger buffer,
// and with the fixture's values (size-zero and one-element cases come from
// the fixtures). A case passes when both devices fail with the same error
// code, or both succeed with outputs of the same dtype and shape, the device's
// on the device, and values equal within the dtype's tolerance (NaN matches
// NaN). An op fails on the device for want of a kernel: "unsupported".
// Writes past the end of a device buffer are caught by the test device's
// guard bytes (Note [Test device memory]).
//
// Prints one line per op (PASS, FAIL with the first difference, UNSUPPORTED)
// and a summary; exit status 1 when any op fails, 77 when the backend has no
// device, 0 otherwise.
//
// It is the ops_tests binary run with --backend (this file holds its main();
// without --backend it runs the GoogleTest suite); the build links
// glia-test-ops to it, so the adapters are compiled once.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ops/golden_support.h"

using glia_ops_test::Adapter;
using glia_ops_test::Call;
using glia_ops_test::json;

namespace {

struct Owned {
  std::vector<glia_tensor*> ts;
  glia_tensor* add(glia_tensor* t) {
    if (t) ts.push_back(t);
    return t;
  }
  ~Owned() {
    for (auto it = ts.rbegin(); it != ts.rend(); ++it) glia_error_free(glia_tensor_release(*it));
  }
};

// Throws the message of a failed setup call (not of the op under test).
void check(glia_error* e, const char* what) {
  if (!e) return;
  std::string m = std::string(what) + ": " + glia_error_message(e);
  glia_error_free(e);
  throw std::runtime_error(m);
}

bool is_float(glia_dtype d) {
  return d == GLIA_FLOAT32 || d == GLIA_FLOAT64 || d == GLIA_FLOAT16 || d == GLIA_BFLOAT16;
}

// One input: values as float64, converted to its dtype, placed on `dev`
// (offset: as a view starting one element into a larger buffer), transposed when asked.
glia_tensor* build(Owned& o, const std::vector<double>& v, std::vector<int64_t> shape, glia_dtype dt, bool transposed,
                   bool offset, glia_device dev) {
  if (transposed) std::swap(shape[0], shape[1]);
  std::vector<double> buf = v;
  if (offset) buf.insert(buf.begin(), 12345.0);
  int64_t n = static_cast<int64_t>(buf.size());
  glia_tensor *t = nullptr, *c = nullptr;
  check(glia_tensor_from_data(buf.data(), buf.size() * sizeof(double), &n, 1, GLIA_FLOAT64, &t), "from_data");
  o.add(t);
  check(glia_tensor_to(t, &dev, &dt, &c), "to device");
  o.add(c);
  if (offset) {
    glia_tensor* s = nullptr;
    check(glia_slice(c, 0, 1, n, 1, &s), "slice");
    c = o.add(s);
  }
  glia_tensor* r = nullptr;
  check(glia_view(c, shape.data(), static_cast<int64_t>(shape.size()), &r), "view");
  c = o.add(r);
  if (!transposed) return c;
  glia_tensor* tt = nullptr;
  check(glia_transpose(c, 0, 1, &tt), "transpose");
  return o.add(tt);
}

struct Outcome {
  enum glia_error_code code = GLIA_OK;
  std::string message;
  std::vector<glia_tensor*> outs;
};

Outcome run(const Adapter& a, const json& c, const std::vector<std::vector<double>>& vals, bool offset, glia_device dev,
            Owned& o) {
  Call call{c["args"], {}, {}, dev.type == GLIA_CPU ? nullptr : &dev};
  const json& ins = c["inputs"];
  for (size_t k = 0; k < ins.size(); ++k) {
    if (ins[k].is_null()) {
      call.in.push_back(nullptr);
      continue;
    }
    call.in.push_back(build(o, vals[k], ins[k]["shape"].get<std::vector<int64_t>>(),
                            glia_test::dtype_named(ins[k]["dtype"]), ins[k]["transposed"].get<bool>(), offset, dev));
  }
  Outcome out;
  glia_error* e = a(call);
  for (glia_tensor* t : call.outs) o.add(t);
  if (e) {
    out.code = glia_error_code(e);
    out.message = glia_error_message(e);
    glia_error_free(e);
    return out;
  }
  out.outs = call.outs;
  return out;
}

std::vector<double> host_values(glia_tensor* t) {
  Owned o;
  glia_tensor *f = nullptr, *c = nullptr;
  check(glia_tensor_to(t, ptr_to(glia_device{GLIA_CPU, 0}), ptr_to(GLIA_FLOAT64), &f), "to host");
  o.add(f);
  check(glia_tensor_contiguous(f, &c), "contiguous");
  o.add(c);
  int64_t n = 0;
  check(glia_tensor_numel(c, &n), "numel");
  std::vector<double> v(static_cast<size_t>(n));
  check(glia_tensor_copy_to_host(c, v.data(), v.size() * sizeof(double)), "copy_to_host");
  return v;
}

// "" when the two outcomes agree, else what differs.
std::string compare(const Outcome& cpu, const Outcome& dev, glia_device device, double tol_case) {
  if (cpu.code != dev.code)
    return std::string("cpu: ") + glia_error_code_name(cpu.code) + " " + cpu.message +
           "; device: " + glia_error_code_name(dev.code) + " " + dev.message;
  if (cpu.code != GLIA_OK) return "";
  if (cpu.outs.size() != dev.outs.size()) return "number of outputs differs";
  for (size_t k = 0; k < cpu.outs.size(); ++k) {
    if (!cpu.outs[k] || !dev.outs[k]) {
      if (cpu.outs[k] != dev.outs[k]) return "output " + std::to_string(k) + " missing on one side";
      continue;
    }
    glia_dtype a{}, b{};
    check(glia_tensor_dtype(cpu.outs[k], &a), "dtype");
    check(glia_tensor_dtype(dev.outs[k], &b), "dtype");
    if (a != b) return "output " + std::to_string(k) + " dtype " + glia_dtype_name(b) + ", cpu " + glia_dtype_name(a);
    if (glia_test::shape(cpu.outs[k]) != glia_test::shape(dev.outs[k]))
      return "output " + std::to_string(k) + " shape differs";
    glia_device d{};
    check(glia_tensor_device(dev.outs[k], &d), "device");
    if (d.type != device.type) return "output " + std::to_string(k) + " is not on the device";
    const double tol = tol_case >= 0 ? tol_case : glia_test::default_tolerance(a);
    std::vector<double> x = host_values(cpu.outs[k]), y = host_values(dev.outs[k]);
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(x[i]) && std::isnan(y[i])) continue;
      if (x[i] == y[i]) continue;
      if (std::fabs(x[i] - y[i]) <= tol * (1 + std::fabs(x[i]))) continue;
      char buf[160];
      std::snprintf(buf, sizeof buf, "output %zu element %zu: device %.17g, cpu %.17g", k, i, y[i], x[i]);
      return buf;
    }
  }
  return "";
}

}  // namespace

namespace {
int test_ops(int argc, char** argv) {
  std::string backend, only;
  uint64_t seed = 0x5eed;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc)
      backend = argv[++i];
    else if (a == "--op" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--seed" && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--verbose")
      verbose = true;
    else {
      std::fprintf(stderr, "usage: %s --backend testdevice|cuda|PATH [--op NAME] [--seed N] [--verbose]\n", argv[0]);
      return 2;
    }
  }
  if (backend.empty()) {
    std::fprintf(stderr, "glia-test-ops: --backend is required\n");
    return 2;
  }
  std::string path = backend;
#ifdef GLIA_TESTDEVICE_PATH
  if (backend == "testdevice") path = GLIA_TESTDEVICE_PATH;
#endif
#ifdef GLIA_CUDA_BACKEND_PATH
  if (backend == "cuda") path = GLIA_CUDA_BACKEND_PATH;
#endif
  glia_device_type type = backend == "cuda" ? GLIA_CUDA : GLIA_PRIVATEUSE1;
  if (glia_error* e = glia_backend_load(path.c_str())) {
    std::fprintf(stderr, "glia-test-ops: cannot load backend %s: %s\n", backend.c_str(), glia_error_message(e));
    glia_error_free(e);
    return 2;
  }
  int32_t ndev = 0;
  char why[512];
  size_t len = 0;
  glia_error_free(glia_backend_status(type, &ndev, why, sizeof why, &len));
  if (ndev == 0) {
    std::printf("glia-test-ops: SKIPPED: backend %s has no device (%s)\n", backend.c_str(), why);
    return 77;
  }
  const glia_device dev{type, 0};

  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(glia_test::data_path("golden/ops")))
    if (f.path().extension() == ".json") files.push_back(f.path().filename().string());
  std::sort(files.begin(), files.end());

  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(-2.0, 2.0);
  struct OpResult {
    int cases = 0, passed = 0, unsupported = 0, failed = 0;
    std::string first_failure;
  };
  std::map<std::string, OpResult> results;
  for (const std::string& file : files) {
    json fixture = glia_ops_test::load_fixture(file);
    if (!fixture.contains("cases")) continue;
    for (const json& c : fixture["cases"]) {
      const std::string op = c["op"];
      if (!only.empty() && op != only) continue;
      const Adapter* a = glia_ops_test::find_adapter(op);
      if (!a) continue;
      OpResult& r = results[op];
      const json& ins = c["inputs"];
      std::vector<std::vector<double>> fixture_vals, random_vals;
      for (const json& in : ins) {
        std::vector<double> v = in.is_null() ? std::vector<double>{} : glia_test::decode_all(in["values"]);
        fixture_vals.push_back(v);
        if (!in.is_null() && is_float(glia_test::dtype_named(in["dtype"])))
          for (double& x : v) x = uni(rng);
        random_vals.push_back(v);
      }
      const double tol = c.contains("tol") ? c["tol"].get<double>() : -1;
      struct Variant {
        const char* name;
        const std::vector<std::vector<double>>* vals;
        bool offset;
      } variants[] = {
          {"random", &random_vals, false}, {"random offset", &random_vals, true}, {"fixture", &fixture_vals, false}};
      for (const Variant& v : variants) {
        ++r.cases;
        try {
          Owned o;
          Outcome cpu = run(*a, c, *v.vals, v.offset, glia_device{GLIA_CPU, 0}, o);
          Outcome dv = run(*a, c, *v.vals, v.offset, dev, o);
          if (dv.code == GLIA_ERR_UNSUPPORTED && cpu.code != GLIA_ERR_UNSUPPORTED) {
            ++r.unsupported;
            continue;
          }
          std::string diff = compare(cpu, dv, dev, tol);
          if (diff.empty()) {
            ++r.passed;
            continue;
          }
          // An output left on the CPU by an op that has no kernel yet (a size-zero case) is unsupported too.
          if (diff.find("is not on the device") != std::string::npos) {
            ++r.unsupported;
            continue;
          }
          ++r.failed;
          if (r.first_failure.empty())
            r.first_failure = file + ": " + std::string(c["name"]) + " (" + v.name + "): " + diff;
        } catch (const std::exception& e) {
          ++r.failed;
          if (r.first_failure.empty())
            r.first_failure = file + ": " + std::string(c["name"]) + " (" + v.name + "): setup: " + e.what();
        }
      }
    }
  }
  int pass = 0, fail = 0, unsupported = 0;
  for (const auto& [op, r] : results) {
    const char* status = r.failed ? "FAIL" : r.unsupported ? "UNSUPPORTED" : "PASS";
    if (r.failed)
      ++fail;
    else if (r.unsupported)
      ++unsupported;
    else
      ++pass;
    if (r.failed || verbose || r.unsupported)
      std::printf("%-28s %-11s %d/%d cases%s%s\n", op.c_str(), status, r.passed, r.cases,
                  r.first_failure.empty() ? "" : "  ", r.first_failure.c_str());
  }
  std::printf("glia-test-ops --backend %s: %zu ops: %d pass, %d unsupported, %d fail\n", backend.c_str(),
              results.size(), pass, unsupported, fail);
  return fail ? 1 : 0;
}
}  // namespace

int main(int argc, char** argv) {
  const std::string self = argv[0];
  bool tool = self.size() >= 13 && self.compare(self.size() - 13, 13, "glia-test-ops") == 0;
  for (int i = 1; i < argc; ++i) tool |= std::strcmp(argv[i], "--backend") == 0;
  if (tool) return test_ops(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
