// safetensors (https://github.com/huggingface/safetensors), read and written to
// the letter of the format. The reference implementation (the Rust crate behind
// the Python package) decides every question the format description leaves open;
// where glia is stricter, the comment says why.
//
// Reading:
// - u64 LE header length N; N <= kMaxHeaderBytes and 8 + N <= file size.
// - The header is valid UTF-8 as a whole (the reference checks the whole string,
//   padding included) and one JSON value followed only by whitespace. Leading
//   whitespace is accepted, as the reference accepts it.
// - It is a JSON object of tensor entries {"dtype", "shape", "data_offsets"} plus
//   an optional "__metadata__" object of string values (null means none, as the
//   reference's Option<HashMap> reads it). Unknown fields inside a tensor entry are
//   skipped, as the reference (serde without deny_unknown_fields) skips them; a
//   missing field is an error.
// - Duplicate keys are errors at every level. The reference rejects a duplicate
//   field of an entry and a duplicate "__metadata__" (serde's duplicate_field), and
//   keeps the last of duplicate tensor names (a HashMap insert), which then fails
//   its coverage check unless both entries are identical; an ambiguous header is
//   rejected here outright. Duplicate metadata keys, which the reference silently
//   collapses, are rejected for the same reason.
// - The JSON is parsed with nlohmann's SAX interface straight into entries: no DOM,
//   nesting counted against kMaxNesting (the parser itself keeps its stack on the
//   heap, but a 100k-deep value inside an unknown field must still stop early), and
//   errors thrown from the handler carry the tensor name.
// - Offsets: begin <= end <= buffer size, end - begin == numel * itemsize (with
//   overflow checks), and sorted by (begin, end) the ranges tile the data buffer
//   exactly: no overlap, no hole, no trailing byte (the reference's
//   MetadataIncompleteBuffer).
// - BOOL bytes must be 0 or 1: the kernels read them as C++ bool, where any other
//   byte is undefined behaviour. This is the only pass over tensor data, and only
//   for BOOL tensors (the reference does not check).
//
// Order: the dict lists tensors in the order the header lists them. For files the
// reference writes, that is also the order of their data offsets (it serialises
// the header in offset order); for files glia writes, it is the order of the dict
// that was saved, so a round trip keeps the order (see write_safetensors).
//
// Tensors are contiguous views of the source, Note [Zero-copy loading].
#include "io/safetensors.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "io/checkpoint.h"
#include "io/text.h"

namespace glia::io {

namespace {

using json = nlohmann::json;

// The 10 dtypes glia has, by their safetensors names.
struct DTypeName {
  const char* name;
  DType dtype;
};
constexpr DTypeName kDTypes[] = {
    {"F64", DType::Float64}, {"F32", DType::Float32}, {"F16", DType::Float16}, {"BF16", DType::BFloat16},
    {"I64", DType::Int64},   {"I32", DType::Int32},   {"I16", DType::Int16},   {"I8", DType::Int8},
    {"U8", DType::UInt8},    {"BOOL", DType::Bool},
};
// Dtypes the format defines that glia (and torch 1.13) has no type for, with their
// bits per element: the header is checked as for any dtype, then loading fails with
// GLIA_ERR_UNSUPPORTED naming the tensor and the dtype.
struct ForeignDType {
  const char* name;
  uint32_t bits;
};
constexpr ForeignDType kForeignDTypes[] = {{"U16", 16},    {"U32", 32}, {"U64", 64},    {"F8_E4M3", 8}, {"F8_E5M2", 8},
                                           {"F8_E8M0", 8}, {"F4", 4},   {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"C64", 64}};

const char* safetensors_name(DType t) {
  for (const DTypeName& d : kDTypes)
    if (d.dtype == t) return d.name;
  return "?";
}

constexpr const char* kSupported = "F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL";

// `s` in double quotes for messages, control characters escaped as JSON escapes
// them (a name may hold "\u0000", which would cut a C string short).
std::string in_quotes(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string q = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20) {
      q += "\\u00";
      q += kHex[c >> 4];
      q += kHex[c & 15];
    } else {
      q += ch;
    }
  }
  q += '"';
  return q;
}

// One tensor entry of the header.
struct Entry {
  std::string name;
  DType dtype = DType::Float32;
  const ForeignDType* foreign = nullptr;  // a dtype glia has not (dtype is then meaningless)
  Dims shape;
  uint64_t begin = 0, end = 0;
  uint64_t nbytes = 0;
  bool has_dtype = false, has_shape = false, has_offsets = false;
  int offsets_seen = 0;
};

// SAX handler that turns the header into entries and metadata, and throws
// Error(Format) on the first thing that is not a well-formed safetensors header.
class HeaderParser {
 public:
  std::vector<Entry> entries;
  std::vector<std::pair<std::string, std::string>> metadata;

  bool null() {
    if (where_ == Where::Top && top_key_is_metadata_) return true;  // "__metadata__": null is no metadata
    return scalar("null");
  }
  bool boolean(bool) { return scalar("boolean"); }
  bool number_integer(json::number_integer_t v) {
    if (v >= 0) return number_unsigned(static_cast<uint64_t>(v));
    return scalar("number", std::to_string(v));
  }
  bool number_unsigned(json::number_unsigned_t v) {
    if (where_ == Where::Shape) {
      Entry& e = entries.back();
      GLIA_CHECK(e.shape.size() < static_cast<size_t>(kMaxDims), Format, "safetensors: tensor ", in_quotes(e.name),
                 ": shape has more than ", kMaxDims, " dimensions");
      GLIA_CHECK(v <= static_cast<uint64_t>(INT64_MAX), Format, "safetensors: tensor ", in_quotes(e.name),
                 ": shape dimension ", v, " is larger than 2^63 - 1");
      e.shape.push_back(static_cast<int64_t>(v));
      return true;
    }
    if (where_ == Where::Offsets) {
      Entry& e = entries.back();
      GLIA_CHECK(e.offsets_seen < 2, Format, "safetensors: tensor ", in_quotes(e.name),
                 ": data_offsets must be [begin, end], got more than 2 numbers");
      (e.offsets_seen == 0 ? e.begin : e.end) = v;
      ++e.offsets_seen;
      return true;
    }
    return scalar("number", std::to_string(v));
  }
  bool number_float(json::number_float_t, const json::string_t& text) { return scalar("number", text); }
  bool string(json::string_t& s) {
    if (where_ == Where::Tensor && field_ == Field::DType) {
      Entry& e = entries.back();
      for (const DTypeName& d : kDTypes) {
        if (s == d.name) {
          e.dtype = d.dtype;
          return true;
        }
      }
      for (const ForeignDType& f : kForeignDTypes) {
        if (s == f.name) {
          e.foreign = &f;
          return true;
        }
      }
      fail(Code::Format, "safetensors: tensor ", in_quotes(e.name), ": unknown dtype ", in_quotes(s),
           " (supported: ", kSupported, ")");
    }
    if (where_ == Where::Metadata) {
      metadata.back().second = std::move(s);
      return true;
    }
    return scalar("string", in_quotes(s));
  }
  bool binary(json::binary_t&) { return scalar("binary value"); }

  bool start_object(std::size_t) {
    enter();
    switch (where_) {
      case Where::Root:
        where_ = Where::Top;
        return true;
      case Where::Top:
        where_ = top_key_is_metadata_ ? Where::Metadata : Where::Tensor;
        field_ = Field::None;
        return true;
      case Where::Skip:
        ++skip_depth_;
        return true;
      case Where::Tensor:
        if (field_ == Field::Unknown) return start_skip();
        break;
      default:
        break;
    }
    return unexpected("an object");
  }
  bool start_array(std::size_t) {
    enter();
    if (where_ == Where::Skip) {
      ++skip_depth_;
      return true;
    }
    if (where_ == Where::Tensor) {
      if (field_ == Field::Shape) {
        where_ = Where::Shape;
        return true;
      }
      if (field_ == Field::Offsets) {
        where_ = Where::Offsets;
        return true;
      }
      if (field_ == Field::Unknown) return start_skip();
    }
    return unexpected("an array");
  }
  bool end_array() {
    --depth_;
    if (where_ == Where::Skip) return end_skip();
    if (where_ == Where::Offsets) {
      Entry& e = entries.back();
      GLIA_CHECK(e.offsets_seen == 2, Format, "safetensors: tensor ", in_quotes(e.name),
                 ": data_offsets must be [begin, end], got ", e.offsets_seen, " number",
                 e.offsets_seen == 1 ? "" : "s");
    }
    where_ = Where::Tensor;  // Shape or Offsets: the only arrays entered outside Skip
    return true;
  }
  bool end_object() {
    --depth_;
    switch (where_) {
      case Where::Skip:
        return end_skip();
      case Where::Tensor: {
        const Entry& e = entries.back();
        const char* missing = !e.has_dtype     ? "dtype"
                              : !e.has_shape   ? "shape"
                              : !e.has_offsets ? "data_offsets"
                                               : nullptr;
        GLIA_CHECK(!missing, Format, "safetensors: tensor ", in_quotes(e.name), ": entry has no \"", missing,
                   "\" (expected {\"dtype\", \"shape\", \"data_offsets\"})");
        where_ = Where::Top;
        return true;
      }
      case Where::Metadata:
        where_ = Where::Top;
        return true;
      default:  // Top: the header's object is complete
        where_ = Where::Done;
        return true;
    }
  }
  bool key(json::string_t& k) {
    switch (where_) {
      case Where::Top:
        GLIA_CHECK(seen_top_.insert(k).second, Format, "safetensors: key ", in_quotes(k),
                   " appears twice in the header");
        top_key_is_metadata_ = k == "__metadata__";
        if (!top_key_is_metadata_) {
          GLIA_CHECK(k.find('\0') == std::string::npos, Format, "safetensors: tensor name ", in_quotes(k),
                     " contains a NUL character");
          entries.emplace_back();
          entries.back().name = std::move(k);
        }
        return true;
      case Where::Tensor: {
        Entry& e = entries.back();
        field_ = k == "dtype"          ? Field::DType
                 : k == "shape"        ? Field::Shape
                 : k == "data_offsets" ? Field::Offsets
                                       : Field::Unknown;
        bool* seen = field_ == Field::DType     ? &e.has_dtype
                     : field_ == Field::Shape   ? &e.has_shape
                     : field_ == Field::Offsets ? &e.has_offsets
                                                : nullptr;
        if (seen) {
          GLIA_CHECK(!*seen, Format, "safetensors: tensor ", in_quotes(e.name), ": field ", in_quotes(k),
                     " appears twice");
          *seen = true;
        }
        return true;
      }
      case Where::Metadata:
        GLIA_CHECK(k.find('\0') == std::string::npos, Format, "safetensors: __metadata__ key ", in_quotes(k),
                   " contains a NUL character");
        for (const auto& [mk, mv] : metadata)
          GLIA_CHECK(mk != k, Format, "safetensors: __metadata__ key ", in_quotes(k), " appears twice");
        metadata.emplace_back(std::move(k), std::string());
        return true;
      default:  // keys of skipped objects
        return true;
    }
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    // ex.what() is "[json.exception.parse_error.101] parse error at line 1, column 7: ...".
    std::string what = ex.what();
    size_t colon = what.find("parse error");
    fail(Code::Format, "safetensors: the header is not valid JSON (",
         what.substr(colon == std::string::npos ? 0 : colon), "; header byte ", position, ")");
  }

  bool done() const { return where_ == Where::Done; }

 private:
  enum class Where { Root, Top, Tensor, Metadata, Shape, Offsets, Skip, Done };
  enum class Field { None, DType, Shape, Offsets, Unknown };

  void enter() {
    GLIA_CHECK(++depth_ <= kMaxNesting, Format, "safetensors: the header nests deeper than ", kMaxNesting, " levels");
  }
  bool start_skip() {
    where_ = Where::Skip;
    skip_depth_ = 1;
    return true;
  }
  bool end_skip() {
    if (--skip_depth_ == 0) where_ = Where::Tensor;
    return true;
  }
  // A value that is not an object or array; `text` is what it was, for messages.
  bool scalar(const char* kind, const std::string& text = {}) {
    if (where_ == Where::Skip) return true;
    if (where_ == Where::Tensor && field_ == Field::Unknown) return true;  // a skipped scalar field
    std::string what = std::string("a ") + kind + (text.empty() ? "" : " " + text);
    if (where_ == Where::Shape || where_ == Where::Offsets) {
      const Entry& e = entries.back();
      fail(Code::Format, "safetensors: tensor ", in_quotes(e.name), ": ",
           where_ == Where::Shape ? "shape" : "data_offsets", " must hold non-negative integers, got ",
           std::strcmp(kind, "number") == 0 ? text : what);
    }
    return unexpected(what.c_str());
  }
  // `what` ("an array", "a number 3") appeared where the format allows no such value.
  bool unexpected(const char* what) {
    switch (where_) {
      case Where::Root:
        fail(Code::Format, "safetensors: the header must be a JSON object, got ", what);
      case Where::Top:
        if (top_key_is_metadata_)
          fail(Code::Format, "safetensors: __metadata__ must be an object of strings, got ", what);
        fail(Code::Format, "safetensors: tensor ", in_quotes(entries.back().name),
             ": entry must be an object {\"dtype\", \"shape\", \"data_offsets\"}, got ", what);
      case Where::Tensor: {
        const char* field = field_ == Field::DType   ? "dtype must be a string"
                            : field_ == Field::Shape ? "shape must be an array"
                                                     : "data_offsets must be an array";
        fail(Code::Format, "safetensors: tensor ", in_quotes(entries.back().name), ": ", field, ", got ", what);
      }
      case Where::Metadata:
        fail(Code::Format, "safetensors: __metadata__ value of key ", in_quotes(metadata.back().first),
             " must be a string, got ", what);
      case Where::Shape:
      case Where::Offsets:
        fail(Code::Format, "safetensors: tensor ", in_quotes(entries.back().name), ": ",
             where_ == Where::Shape ? "shape" : "data_offsets", " must hold non-negative integers, got ", what);
      default:
        fail(Code::Format, "safetensors: unexpected ", what, " in the header");
    }
  }

  Where where_ = Where::Root;
  Field field_ = Field::None;
  bool top_key_is_metadata_ = false;
  int depth_ = 0;
  int skip_depth_ = 0;
  std::unordered_set<std::string> seen_top_;
};

std::string offsets_text(const Entry& e) { return detail::concat('[', e.begin, ", ", e.end, ']'); }

}  // namespace

Ref<nn::TensorDict> read_safetensors(const Ref<ByteSource>& src) {
  const uint8_t* data = src->data();
  const uint64_t size = src->size();
  GLIA_CHECK(size >= 8, Format, "safetensors: the file has ", size, " bytes, fewer than the 8 of the header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];
  GLIA_CHECK(n <= kMaxHeaderBytes, Format, "safetensors: header length ", n, " is larger than the limit of ",
             kMaxHeaderBytes, " bytes");
  GLIA_CHECK(n <= size - 8, Format, "safetensors: header length ", n, " runs past the end of the file (", size - 8,
             " bytes after the length)");
  std::string_view header(reinterpret_cast<const char*>(data + 8), n);
  size_t bad = invalid_utf8_at(header);
  GLIA_CHECK(bad == std::string_view::npos, Format, "safetensors: the header is not valid UTF-8 (byte ", bad,
             " of the header)");
  // JSON has no raw NUL (strings escape it), and nlohmann's lexer would take one
  // for the end of input and accept "{}\0garbage".
  size_t nul = header.find('\0');
  GLIA_CHECK(nul == std::string_view::npos, Format, "safetensors: the header is not valid JSON (a NUL byte at byte ",
             nul, " of the header)");

  HeaderParser parser;
  try {
    json::sax_parse(header.begin(), header.end(), &parser);
  } catch (const json::exception& e) {  // the SAX parser reports through parse_error; this is a safety net
    fail(Code::Format, "safetensors: the header is not valid JSON (", e.what(), ")");
  }
  GLIA_CHECK(parser.done(), Internal, "safetensors: the header parser stopped early");

  const uint64_t buffer_start = 8 + n;
  const uint64_t buffer_size = size - buffer_start;
  std::vector<Entry>& entries = parser.entries;
  for (Entry& e : entries) {
    uint64_t numel = 1;
    for (int64_t d : e.shape)
      GLIA_CHECK(!__builtin_mul_overflow(numel, static_cast<uint64_t>(d), &numel), Format, "safetensors: tensor ",
                 in_quotes(e.name), ": shape ", e.shape, " has more elements than fit in 64 bits");
    const char* dtype_text = e.foreign ? e.foreign->name : safetensors_name(e.dtype);
    const uint64_t bits = e.foreign ? e.foreign->bits : 8 * uint64_t(itemsize(e.dtype));
    // Sub-byte dtypes (F4, F6_*) pack their elements: numel * bits must be whole bytes.
    const uint64_t unit = bits % 8 == 0 ? bits / 8 : bits;
    uint64_t n = 0;
    GLIA_CHECK(numel <= static_cast<uint64_t>(INT64_MAX) && !__builtin_mul_overflow(numel, unit, &n), Format,
               "safetensors: tensor ", in_quotes(e.name), ": dtype ", dtype_text, " and shape ", e.shape,
               " need more bytes than fit in 64 bits");
    GLIA_CHECK(bits % 8 == 0 || n % 8 == 0, Format, "safetensors: tensor ", in_quotes(e.name), ": dtype ", dtype_text,
               " and shape ", e.shape, " do not fill a whole number of bytes");
    e.nbytes = bits % 8 == 0 ? n : n / 8;
    GLIA_CHECK(e.begin <= e.end, Format, "safetensors: tensor ", in_quotes(e.name), ": data_offsets ", offsets_text(e),
               " end before they begin");
    GLIA_CHECK(e.end - e.begin == e.nbytes, Format, "safetensors: tensor ", in_quotes(e.name), ": data_offsets ",
               offsets_text(e), " hold ", e.end - e.begin, " bytes, but dtype ", dtype_text, " and shape ", e.shape,
               " need ", e.nbytes);
    GLIA_CHECK(e.end <= buffer_size, Format, "safetensors: tensor ", in_quotes(e.name), ": data_offsets ",
               offsets_text(e), " run past the end of the data buffer (", buffer_size, " bytes)");
  }

  // Sorted by (begin, end), the ranges must follow each other without gaps; empty
  // tensors sort before a non-empty one at the same offset and fit anywhere on a
  // boundary.
  std::vector<size_t> order(entries.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(entries[a].begin, entries[a].end) < std::tie(entries[b].begin, entries[b].end);
  });
  uint64_t cursor = 0;
  const Entry* previous = nullptr;
  for (size_t i : order) {
    const Entry& e = entries[i];
    GLIA_CHECK(e.begin >= cursor, Format, "safetensors: tensor ", in_quotes(e.name), ": data_offsets ", offsets_text(e),
               " overlap those of tensor ", in_quotes(previous ? previous->name : ""), " ",
               previous ? offsets_text(*previous) : "");
    GLIA_CHECK(e.begin == cursor, Format, "safetensors: bytes [", cursor, ", ", e.begin,
               ") of the data buffer belong to no tensor (a hole before tensor ", in_quotes(e.name), ")");
    cursor = e.end;
    previous = &e;
  }
  GLIA_CHECK(cursor == buffer_size, Format, "safetensors: the data buffer has ", buffer_size,
             " bytes, but the tensors cover only ", cursor, " (", buffer_size - cursor, " trailing bytes)");

  // A well-formed file, but with a dtype glia cannot hold: the first such tensor is named.
  for (const Entry& e : entries)
    GLIA_CHECK(!e.foreign, Unsupported, "safetensors: tensor ", in_quotes(e.name), ": dtype ", e.foreign->name,
               " is not supported by glia (torch 1.13 has no such dtype either; supported: ", kSupported, ")");

  for (const Entry& e : entries) {
    if (e.dtype != DType::Bool || e.nbytes == 0) continue;
    const uint8_t* p = data + buffer_start + e.begin;
    for (uint64_t k = 0; k < e.nbytes; ++k)
      GLIA_CHECK(p[k] <= 1, Format, "safetensors: tensor ", in_quotes(e.name), ": BOOL element ", k, " is byte ",
                 int(p[k]), ", expected 0 or 1");
  }

  Ref<nn::TensorDict> dict = make_ref<nn::TensorDict>();
  for (const Entry& e : entries) {
    // A view when the start is aligned to the element size, else a copy
    // (ByteSource::storage): files written by glia or the reference are aligned.
    Ref<Storage> storage = src->storage(buffer_start + e.begin, e.nbytes, itemsize(e.dtype));
    dict->set(e.name,
              Tensor(make_ref<TensorImpl>(std::move(storage), 0, e.shape, contiguous_strides(e.shape), e.dtype)));
  }
  dict->metadata = std::move(parser.metadata);
  return dict;
}

// ---- writing -------------------------------------------------------------------

namespace {

// JSON string literal, escaped as serde_json (the reference) escapes: \" \\ \b \f
// \n \r \t, other control characters as \u00xx, everything else verbatim.
void append_json_string(std::string& out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void check_text(std::string_view s, const char* what) {
  size_t bad = invalid_utf8_at(s);
  GLIA_CHECK(bad == std::string_view::npos, InvalidArgument, "safetensors: ", what, " ", in_quotes(s),
             " is not valid UTF-8 (byte ", bad, "), which a JSON header cannot hold");
}

// Names and metadata keys: as check_text, and no NUL (the reader refuses one: such a
// name could not be looked up through the C ABI).
void check_name(std::string_view s, const char* what) {
  check_text(s, what);
  GLIA_CHECK(s.find('\0') == std::string_view::npos, InvalidArgument, "safetensors: ", what, " ", in_quotes(s),
             " contains a NUL character");
}

}  // namespace

// Layout: the header lists tensors in dict order (so reading gives the dict back
// in its order), and the data buffer holds them sorted by element size, largest
// first, dict order among equals. The header is padded with spaces so that the
// buffer starts at a multiple of 64 bytes from the file start; since every tensor
// is a whole number of elements, each tensor then starts at a multiple of its own
// element size (not of 64: the format allows no gaps between tensors), which is
// what a zero-copy load needs (Note [Zero-copy loading]). The reference writer
// sorts the same way (by dtype, then name) and pads to 8.
// Tensors that share storage each get their own bytes: the format cannot express
// sharing.
void write_safetensors(const nn::TensorDict& dict, Sink& out) {
  const size_t count = dict.size();
  std::vector<Tensor> host(count);
  for (size_t i = 0; i < count; ++i) {
    const std::string& name = dict.key_at(i);
    check_name(name, "tensor name");
    GLIA_CHECK(name != "__metadata__", InvalidArgument,
               "safetensors: a tensor cannot be named \"__metadata__\", the key the format reserves for metadata");
    const Tensor& t = dict.value_at(i);
    GLIA_CHECK(t.defined(), InvalidArgument, "safetensors: tensor ", in_quotes(name), " is undefined");
    if (t.device().is_cpu() && t.is_contiguous()) {
      host[i] = t;
    } else {  // strided views and device tensors: one contiguous host copy each
      host[i] = empty(t.shape(), t.dtype(), Device{});
      copy_into(host[i], t);
    }
  }
  for (const auto& [k, v] : dict.metadata) {
    check_name(k, "metadata key");
    check_text(v, "metadata value");
  }

  std::vector<size_t> layout(count);
  std::iota(layout.begin(), layout.end(), size_t(0));
  std::stable_sort(layout.begin(), layout.end(),
                   [&](size_t a, size_t b) { return itemsize(host[a].dtype()) > itemsize(host[b].dtype()); });
  std::vector<uint64_t> begin(count);
  uint64_t offset = 0;
  for (size_t i : layout) {
    begin[i] = offset;
    offset += static_cast<uint64_t>(host[i].numel()) * itemsize(host[i].dtype());
  }

  std::string header = "{";
  if (!dict.metadata.empty()) {
    header += "\"__metadata__\":{";
    for (size_t i = 0; i < dict.metadata.size(); ++i) {
      if (i) header += ',';
      append_json_string(header, dict.metadata[i].first);
      header += ':';
      append_json_string(header, dict.metadata[i].second);
    }
    header += '}';
    if (count) header += ',';
  }
  for (size_t i = 0; i < count; ++i) {
    const Tensor& t = host[i];
    if (i) header += ',';
    append_json_string(header, dict.key_at(i));
    header += ":{\"dtype\":\"";
    header += safetensors_name(t.dtype());
    header += "\",\"shape\":[";
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d) header += ',';
      header += std::to_string(t.size(d));
    }
    header += "],\"data_offsets\":[";
    header += std::to_string(begin[i]);
    header += ',';
    header += std::to_string(begin[i] + static_cast<uint64_t>(t.numel()) * itemsize(t.dtype()));
    header += "]}";
  }
  header += '}';
  header.append((64 - (8 + header.size()) % 64) % 64, ' ');
  GLIA_CHECK(header.size() <= kMaxHeaderBytes, InvalidArgument, "safetensors: the header would be ", header.size(),
             " bytes, more than readers accept (", kMaxHeaderBytes, ")");

  uint8_t length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<uint8_t>(static_cast<uint64_t>(header.size()) >> (8 * i));
  out.write(length, sizeof length);
  out.write(header.data(), header.size());
  for (size_t i : layout) {
    const Tensor& t = host[i];
    size_t nbytes = static_cast<size_t>(t.numel()) * itemsize(t.dtype());
    if (nbytes) out.write(t.data(), nbytes);
  }
}

}  // namespace glia::io
