// A port of torch/_tensor_str.py (torch 1.13) for strided CPU tensors with the
// default print options; function names in comments refer to that file.
#include "core/print.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

namespace glia {
namespace {

constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kLineWidth = 80;

// Python's format(float, ".{p}f") / ".{p}e": correctly rounded like
// std::to_chars, but NaN is "nan" whatever its sign bit.
std::string py_format(double v, std::chars_format fmt, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[400];  // DBL_MAX in fixed notation needs 309 digits plus sign, point and precision
  auto r = std::to_chars(buf, buf + sizeof(buf), v, fmt, precision);
  return std::string(buf, r.ptr);
}

// Element access by element offset from t.data(); strides may be anything.
class Elements {
 public:
  explicit Elements(const Tensor& t)
      : base_(static_cast<const char*>(t.data())),
        itemsize_(static_cast<int64_t>(t.impl()->itemsize())),
        dtype_(t.dtype()) {}

  double as_double(int64_t off) const {
    return dispatch_all(dtype_, [&](auto tag) { return convert<double>(load<decltype(tag)>(off)); });
  }
  int64_t as_int(int64_t off) const {
    return dispatch_all(dtype_, [&](auto tag) { return convert<int64_t>(load<decltype(tag)>(off)); });
  }

 private:
  template <class T>
  T load(int64_t off) const {
    T v;
    std::memcpy(&v, base_ + off * itemsize_, sizeof(T));
    return v;
  }

  const char* base_;
  int64_t itemsize_;
  DType dtype_;
};

// _Formatter: decides between integer, fixed and scientific notation from the
// values it is shown and pads every element to the widest of them.
class Formatter {
 public:
  Formatter(const Elements& el, DType dtype, const std::vector<int64_t>& offsets)
      : floating_(is_floating(dtype)), bool_(dtype == DType::Bool) {
    if (!floating_) {
      for (int64_t off : offsets) max_width_ = std::max(max_width_, format_integral(el.as_int(off)).size());
      return;
    }
    std::vector<double> vals;
    for (int64_t off : offsets) {
      double v = el.as_double(off);
      if (std::isfinite(v) && v != 0) vals.push_back(v);
    }
    if (vals.empty()) return;
    double lo = std::abs(vals[0]), hi = lo;
    for (double v : vals) {
      lo = std::min(lo, std::abs(v));
      hi = std::max(hi, std::abs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    if (int_mode_) {
      sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8;
    } else {
      sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || lo < 1.0e-4;
    }
    for (double v : vals) {
      size_t w;
      if (sci_mode_)
        w = py_format(v, std::chars_format::scientific, kPrecision).size();
      else if (int_mode_)
        w = py_format(v, std::chars_format::fixed, 0).size() + 1;  // the "." format() appends
      else
        w = py_format(v, std::chars_format::fixed, kPrecision).size();
      max_width_ = std::max(max_width_, w);
    }
  }

  int64_t width() const { return static_cast<int64_t>(max_width_); }

  std::string format(const Elements& el, int64_t off) const {
    std::string s;
    if (floating_) {
      double v = el.as_double(off);
      if (sci_mode_) {
        s = py_format(v, std::chars_format::scientific, kPrecision);
      } else if (int_mode_) {
        s = py_format(v, std::chars_format::fixed, 0);
        if (std::isfinite(v)) s += '.';
      } else {
        s = py_format(v, std::chars_format::fixed, kPrecision);
      }
    } else {
      s = format_integral(el.as_int(off));
    }
    if (s.size() < max_width_) s.insert(0, max_width_ - s.size(), ' ');
    return s;
  }

 private:
  std::string format_integral(int64_t v) const {
    if (bool_) return v ? "True" : "False";
    return std::to_string(v);
  }

  bool floating_;
  bool bool_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t max_width_ = 1;
};

class Printer {
 public:
  explicit Printer(const Tensor& t) : t_(t), el_(t), summarize_(t.numel() > kThreshold) {}

  // _tensor_str for a non-empty tensor.
  std::string str(int64_t indent) {
    std::vector<int64_t> offsets;
    collect(0, 0, offsets);
    Formatter fmt(el_, t_.dtype(), offsets);
    return str_with_formatter(fmt, 0, 0, indent);
  }

 private:
  // Whether dimension d shows only its edge items, either side of "...".
  bool elided(int64_t d) const { return summarize_ && t_.size(d) > 2 * kEdgeItems; }

  template <class F>
  void for_each_shown(int64_t d, F&& f) const {
    int64_t n = t_.size(d);
    if (elided(d)) {
      for (int64_t i = 0; i < kEdgeItems; ++i) f(i);
      for (int64_t i = n - kEdgeItems; i < n; ++i) f(i);
    } else {
      for (int64_t i = 0; i < n; ++i) f(i);
    }
  }

  // The elements get_summarized_data keeps (all of them without summarisation).
  void collect(int64_t d, int64_t off, std::vector<int64_t>& out) const {
    if (d == t_.dim()) {
      out.push_back(off);
      return;
    }
    for_each_shown(d, [&](int64_t i) { collect(d + 1, off + i * t_.stride(d), out); });
  }

  std::string vector_str(const Formatter& fmt, int64_t off, int64_t indent) const {
    int64_t element_length = fmt.width() + 2;
    auto per_line = static_cast<int64_t>(
        std::floor(static_cast<double>(kLineWidth - indent) / static_cast<double>(element_length)));
    per_line = std::max<int64_t>(1, per_line);
    int64_t d = t_.dim() - 1;
    std::vector<std::string> data;
    for_each_shown(d, [&](int64_t i) {
      if (elided(d) && i == t_.size(d) - kEdgeItems) data.emplace_back(" ...");
      data.push_back(fmt.format(el_, off + i * t_.stride(d)));
    });
    std::string s = "[";
    for (size_t i = 0; i < data.size(); ++i) {
      if (i > 0) {
        if (i % static_cast<size_t>(per_line) == 0) {
          s += ",\n";
          s.append(static_cast<size_t>(indent + 1), ' ');
        } else {
          s += ", ";
        }
      }
      s += data[i];
    }
    return s + "]";
  }

  std::string str_with_formatter(const Formatter& fmt, int64_t d, int64_t off, int64_t indent) const {
    int64_t remaining = t_.dim() - d;
    if (remaining == 0) return fmt.format(el_, off);
    if (remaining == 1) return vector_str(fmt, off, indent);
    std::string sep = ",";
    sep.append(static_cast<size_t>(remaining - 1), '\n');
    sep.append(static_cast<size_t>(indent + 1), ' ');
    std::string s = "[";
    bool first = true;
    for_each_shown(d, [&](int64_t i) {
      if (!first) s += sep;
      if (elided(d) && i == t_.size(d) - kEdgeItems) {
        s += "...";
        s += sep;
      }
      first = false;
      s += str_with_formatter(fmt, d + 1, off + i * t_.stride(d), indent + 1);
    });
    return s + "]";
  }

  const Tensor& t_;
  Elements el_;
  bool summarize_;
};

std::string shape_tuple(const Dims& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

std::string to_string(const Tensor& t, const std::string& suffixes) {
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> parts;
  std::string body;
  std::string dtype_part = std::string("dtype=torch.") + dtype_name(t.dtype());
  if (!t.device().is_cpu()) {
    // torch names a non-default device first; the values print from a host copy.
    std::ostringstream d;
    d.exceptions(std::ios::badbit);  // out of memory is thrown, not swallowed into a shorter text
    d << "device='" << t.device() << "'";
    parts.push_back(d.str());
  }
  if (t.numel() == 0) {
    // Nothing to infer the dtype from, so only float32 (the default dtype) goes unnamed.
    if (t.dim() != 1) parts.push_back("size=" + shape_tuple(t.shape()));
    if (t.dtype() != DType::Float32) parts.push_back(dtype_part);
    body = "[]";
  } else {
    DType dt = t.dtype();
    if (dt != DType::Float32 && dt != DType::Int64 && dt != DType::Bool) parts.push_back(dtype_part);
    body = Printer(t.device().is_cpu() ? t : to_device(t, Device{})).str(indent);
  }
  // The caller's parts come pre-formatted as ", key=value" each.
  for (size_t pos = 0; pos < suffixes.size();) {
    size_t next = suffixes.find(", ", pos);
    if (next == std::string::npos) next = suffixes.size();
    if (next > pos) parts.push_back(suffixes.substr(pos, next - pos));
    pos = next == suffixes.size() ? next : next + 2;
  }

  // _add_suffixes, including its count of the last line's length, which runs
  // two above the real one.
  std::string s = prefix + body;
  size_t nl = s.rfind('\n');
  int64_t last_line_len =
      static_cast<int64_t>(s.size()) - (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const std::string& part : parts) {
    int64_t len = static_cast<int64_t>(part.size());
    if (last_line_len + len + 2 > kLineWidth) {
      s += ",\n" + std::string(static_cast<size_t>(indent), ' ') + part;
      last_line_len = indent + len;
    } else {
      s += ", " + part;
      last_line_len += len + 2;
    }
  }
  return s + ")";
}

}  // namespace glia
