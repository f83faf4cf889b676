// The restricted unpickler on hand-made pickles: the opcodes torch writes, the
// flattening rules, and a hostile corpus that must be Error(Format) naming the
// opcode and byte position, without crashing, hanging or allocating much.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/error.h"
#include "core/tensor.h"
#include "io/checkpoint.h"
#include "io/pickle.h"

using namespace glia;
using namespace glia::io;
using namespace std::string_literals;

namespace {

// Pickle building blocks (protocol 2 unless noted).
std::string u32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string u64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
std::string str(const std::string& s) { return "X" + u32(static_cast<uint32_t>(s.size())) + s; }
std::string i64(int64_t v) { return "\x8a\x08" + u64(static_cast<uint64_t>(v)); }
std::string tuple(std::initializer_list<int64_t> vs) {
  std::string s = "(";
  for (int64_t v : vs) s += i64(v);
  return s + "t";
}
const std::string kProto = "\x80\x02";
// ('storage', torch.<type>, key, 'cpu', numel) as BINPERSID.
std::string storage(const std::string& key, int64_t numel, const std::string& type = "FloatStorage") {
  return "(" + str("storage") + "ctorch\n" + type + "\n" + str(key) + str("cpu") + i64(numel) + "tQ";
}
// _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict())
std::string tensor(const std::string& storage_pid, int64_t offset, const std::string& size, const std::string& stride,
                   bool requires_grad = false) {
  return "ctorch._utils\n_rebuild_tensor_v2\n(" + storage_pid + i64(offset) + size + stride +
         std::string(requires_grad ? "\x88" : "\x89") + "ccollections\nOrderedDict\n)Rt" + "R";
}
// {k0: v0, ...} as EMPTY_DICT MARK ... SETITEMS, then STOP.
std::string dict_of(std::initializer_list<std::pair<std::string, std::string>> kv) {
  std::string s = "}(";
  for (auto& [k, v] : kv) s += str(k) + v;
  return s + "u";
}
std::string pickle(const std::string& body) { return kProto + body + "."; }

Ref<nn::TensorDict> load(const std::string& p, uint64_t max_bytes = 1 << 20) {
  return unpickle_state_dict(reinterpret_cast<const uint8_t*>(p.data()), p.size(), max_bytes);
}

// Expects Error(code) whose message contains `text`.
void expect_error(const std::string& p, const std::string& text, Code code = Code::Format) {
  try {
    load(p);
    ADD_FAILURE() << "no error; expected: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.message();
    EXPECT_NE(e.message().find(text), std::string::npos) << e.message() << "\n  expected to contain: " << text;
  }
}

TEST(Unpickler, ReadsATensorWithItsGeometry) {
  auto d = load(pickle(dict_of({{"w", tensor(storage("0", 24), 2, tuple({3, 4}), tuple({1, 5}))}})));
  ASSERT_EQ(d->size(), 1u);
  const Tensor& w = d->value_at(0);
  EXPECT_EQ(d->key_at(0), "w");
  EXPECT_EQ(w.dtype(), DType::Float32);
  EXPECT_EQ(std::vector<int64_t>(w.shape().begin(), w.shape().end()), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(std::vector<int64_t>(w.strides().begin(), w.strides().end()), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(w.offset(), 2);
  EXPECT_EQ(w.impl()->storage()->nbytes(), 96u);
  EXPECT_FALSE(w.requires_grad());
}

TEST(Unpickler, SharedStoragesAndMemoizedTensors) {
  // Two tensors over storage "0" and one tensor reached twice through the memo.
  std::string a = tensor(storage("0", 6), 0, tuple({6}), tuple({1})) + "q\x01";
  std::string b = tensor(storage("0", 6), 3, tuple({3}), tuple({1}));
  auto d = load(pickle(dict_of({{"a", a}, {"b", b}, {"c", "h\x01"}})));
  ASSERT_EQ(d->size(), 3u);
  EXPECT_EQ(d->find("a")->impl()->storage().get(), d->find("b")->impl()->storage().get());
  EXPECT_TRUE(d->find("a")->is_same(*d->find("c")));
  EXPECT_FALSE(d->find("a")->is_same(*d->find("b")));
}

TEST(Unpickler, FlattensNestedContainersAndNumbers) {
  std::string inner = dict_of({{"fc.weight", tensor(storage("0", 2), 0, tuple({2}), tuple({1}))}});
  std::string list = "](" + i64(7) + "G" + std::string("\x3f\xf8\0\0\0\0\0\0", 8) + "\x88" + "N" + str("s") + "e";
  auto d = load(pickle(dict_of({{"model", inner}, {"l", list}, {"epoch", "K\x03"}})));
  std::vector<std::string> keys;
  for (size_t i = 0; i < d->size(); ++i) keys.push_back(d->key_at(i));
  EXPECT_EQ(keys, (std::vector<std::string>{"model.fc.weight", "l.0", "l.1", "l.2", "epoch"}));
  EXPECT_EQ(d->find("l.0")->dtype(), DType::Int64);
  EXPECT_EQ(item_int64(*d->find("l.0")), 7);
  EXPECT_EQ(d->find("l.1")->dtype(), DType::Float64);
  EXPECT_EQ(item_double(*d->find("l.1")), 1.5);
  EXPECT_EQ(d->find("l.2")->dtype(), DType::Bool);
  EXPECT_EQ(d->find("epoch")->dim(), 0);
}

TEST(Unpickler, IntKeysAndBigIntsAndProtocol4) {
  // Protocol 4: FRAME, SHORT_BINUNICODE, MEMOIZE, int keys, a LONG1 beyond int64 (skipped).
  std::string body =
      "}\x94(K\x00"s + i64(-5) + "\x8c\x01z" + "\x8a\x09" + std::string("\0\0\0\0\0\0\0\0\x01", 9) + "u.";
  std::string p = std::string("\x80\x04\x95") + u64(body.size()) + body;
  auto d = load(p);
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ(d->key_at(0), "0");
  EXPECT_EQ(item_int64(d->value_at(0)), -5);
}

TEST(Unpickler, ParametersFollowTheirRequiresGrad) {
  std::string t = tensor(storage("0", 2), 0, tuple({2}), tuple({1}));
  std::string p = "ctorch._utils\n_rebuild_parameter\n(" + t + "\x88" + "ccollections\nOrderedDict\n)Rt" + "R";
  auto d = load(pickle(dict_of({{"p", p}, {"t", tensor(storage("1", 2), 0, tuple({2}), tuple({1}), true)}})));
  EXPECT_TRUE(d->find("p")->requires_grad());
  EXPECT_TRUE(d->find("t")->requires_grad());
}

TEST(Unpickler, OrderedDictMetadataIsDropped) {
  // torch's state_dict(): OrderedDict() with items, then BUILD {'_metadata': OrderedDict(...)}.
  std::string od = "ccollections\nOrderedDict\n)R";
  std::string body = od + "(" + str("w") + tensor(storage("0", 1), 0, tuple({1}), tuple({1})) + "u" + "}" +
                     str("_metadata") + od + str("") + "}" + str("version") + "K\x01" + "ss" + "sb";
  auto d = load(pickle(body));
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ(d->key_at(0), "w");
}

TEST(Unpickler, LaterSetItemReplacesButCrossLevelCollisionsFail) {
  std::string t0 = tensor(storage("0", 1), 0, tuple({1}), tuple({1}));
  std::string t1 = tensor(storage("1", 2), 0, tuple({2}), tuple({1}));
  auto d = load(pickle(dict_of({{"a", t0}, {"b", "K\x01"}, {"a", t1}})));
  ASSERT_EQ(d->size(), 2u);
  EXPECT_EQ(d->key_at(0), "a");
  EXPECT_EQ(d->find("a")->numel(), 2);
  expect_error(pickle(dict_of({{"a.b", t0}, {"a", dict_of({{"b", t1}})}})), "two entries flatten to the key \"a.b\"");
}

// ---- hostile corpus ---------------------------------------------------------

TEST(UnpicklerHostile, DisallowedGlobals) {
  expect_error(pickle("cposix\nsystem\n(" + str("echo pwned") + "tR"),
               "GLOBAL at byte 2 of data.pkl: global \"posix.system\" is not allowed (only the globals of a state dict "
               "are; no code runs)");
  expect_error("\x80\x04" +
                   std::string("\x8c\x08"
                               "builtins\x8c\x04"
                               "eval\x93") +
                   "\x8c\x03"
                   "1+1\x85R.",
               "STACK_GLOBAL at byte 18 of data.pkl: global \"builtins.eval\" is not allowed");
  expect_error(pickle("cos\nsystem\n."), "global \"os.system\" is not allowed");
  expect_error(pickle("c__builtin__\ngetattr\n."), "not allowed");
  expect_error(pickle("ctorch\nload\n."), "global \"torch.load\" is not allowed");
}

TEST(UnpicklerHostile, CallsOnlyAllowedCallables) {
  expect_error(pickle("K\x01)R"), "REDUCE at byte 5 of data.pkl: an int is not callable");
  expect_error(pickle("ctorch\nfloat32\n)R"), "calling a torch dtype is not allowed");
  expect_error(pickle("ctorch\nFloatStorage\n)R"), "calling a storage type is not allowed");
  expect_error(pickle("ctorch\nTensor\n)\x81"), "NEWOBJ at byte");
  expect_error(pickle("]K\x01"
                      "b"),
               "BUILD of a list is not allowed");
  expect_error(pickle("(cos\nsystem\ni"), "not allowed");  // INST refused at its GLOBAL-like module line
  expect_error(pickle("(o"), "OBJ at byte 3 of data.pkl: creating class instances is not allowed");
  expect_error(pickle("\x82\x01"), "EXT1 at byte 2");
  expect_error(pickle("P0\n"), "PERSID at byte 2");
  expect_error(pickle("(" + str("module") + "tQ"), "only ('storage', ...) persistent ids are allowed");
}

TEST(UnpicklerHostile, CyclesAndDeepNesting) {
  // l = []; l.append(l); {'l': l}
  expect_error(pickle("}" + str("l") + "]q\x00h\x00"s + "as"), "a cycle");
  // d = {}; d['d'] = d
  expect_error(pickle("}q\x00"s + str("d") + "h\x00s"s), "a cycle");
  // 100k nested lists: EMPTY_LIST then (EMPTY_LIST, APPEND) inverted: build inside-out with memo-free opcodes.
  std::string deep = "}" + str("x");
  for (int i = 0; i < 100000; ++i) deep += "]";
  for (int i = 0; i < 99999; ++i) deep += "a";
  deep += "s";
  expect_error(pickle(deep), "nested deeper than 1000");
  std::string marks(100000, '(');
  expect_error(pickle(marks), "MARK at byte 1002 of data.pkl: more than 1000 nested MARKs");
}

TEST(UnpicklerHostile, ExponentialSharingIsCapped) {
  // d0 = {'a': None}; d(i+1) = {'x': di, 'y': di}: 2^40 leaves through the memo.
  std::string p = "}(" + str("a") + "Nuq\x00"s;
  for (int i = 0; i < 40; ++i) {
    std::string get = "j" + u32(static_cast<uint32_t>(i));
    p += "}(" + str("x") + get + str("y") + get + "ur" + u32(static_cast<uint32_t>(i + 1));
  }
  std::string root = "}" + str("r") + "j" + u32(40) + "s";
  expect_error(pickle(p + "0" + root), "objects to flatten (shared too often)");
}

TEST(UnpicklerHostile, MemoAndStack) {
  expect_error(pickle("r\xff\xff\xff\xff"), "LONG_BINPUT at byte 2 of data.pkl: stack underflow");
  expect_error(pickle("N"
                      "r\xff\xff\xff\xff"
                      "j\xfe\xff\xff\xff"),
               "LONG_BINGET at byte 8 of data.pkl: memo index 4294967294 was never set");
  expect_error(pickle("h\x05"), "memo index 5 was never set");
  expect_error(pickle("0"), "POP at byte 2 of data.pkl: stack underflow");
  expect_error(pickle("(R"), "REDUCE at byte 3 of data.pkl: stack underflow");  // cannot pop through a MARK
  expect_error(pickle("s"), "stack underflow");
  expect_error(kProto + ".", "STOP at byte 2 of data.pkl: STOP with an empty stack");
  expect_error(pickle("t"), "no MARK to pop to");
  expect_error(pickle("NK\x01"
                      "a"),
               "APPEND at byte 5 of data.pkl: cannot append to None");
  expect_error(pickle("\xff"), "unknown opcode 0xff");
  expect_error("\x80\x06}.", "protocol 6");
}

TEST(UnpicklerHostile, LengthsPastTheEnd) {
  expect_error(kProto + "}", "the pickle ends without STOP (truncated)");
  expect_error(kProto + "X\xff\xff\xff\xff" + "abc",
               "BINUNICODE at byte 2 of data.pkl: needs 4294967295 bytes, only 3 left");
  expect_error(kProto + "\x8b\x00\x00\x00\x80"s, "LONG4 at byte 2 of data.pkl: negative length");
  expect_error(kProto + "\x8b\xff\xff\xff\x7f", "needs 2147483647 bytes");
  expect_error("\x80\x04\x95" + u64(1000) + "}.", "FRAME at byte 2 of data.pkl: a frame of 1000 bytes, only 2 left");
  expect_error(kProto + "\x8e" + u64(~uint64_t{0}), "needs 18446744073709551615 bytes");
  expect_error(kProto + "J\x01", "BININT at byte 2 of data.pkl: needs 4 bytes, only 1 left");
  expect_error(kProto + "cos\nsys", "no end of line");
  expect_error("", "the pickle ends without STOP");
}

TEST(UnpicklerHostile, TensorGeometry) {
  auto one = [](const std::string& size, const std::string& stride, int64_t offset = 0, int64_t numel = 6) {
    return pickle(dict_of({{"w", tensor(storage("0", numel), offset, size, stride)}}));
  };
  expect_error(one(tuple({3, 3}), tuple({3, 1})), "reaches element 8 of storage \"0\", which has 6 elements");
  expect_error(one(tuple({2, 3}), tuple({3, 1}), 1), "reaches element 6");
  expect_error(one(tuple({int64_t{1} << 32, int64_t{1} << 32}), tuple({1, 1})), "overflows");
  expect_error(one(tuple({int64_t{1} << 62}), tuple({4})), "overflows");
  expect_error(one(tuple({-1}), tuple({1})), "negative size");
  expect_error(one(tuple({2}), tuple({-1}), 1), "negative stride");
  expect_error(one(tuple({2}), tuple({1}), -1), "negative storage offset");
  expect_error(one(tuple({0}), tuple({1}), 7), "storage offset 7 is past the end");
  expect_error(one(tuple({2, 3}), tuple({1})), "size has 2 dimensions, stride 1");
  std::string huge = "(" + std::string("\x8a\x09") + std::string("\0\0\0\0\0\0\0\0\x01", 9) + "t";
  expect_error(one(huge, tuple({1})), "a size does not fit in int64");
  std::string dims = "(";
  for (int i = 0; i < 65; ++i) dims += "K\x01";
  expect_error(one(dims + "t", dims + "t"), "a tensor of 65 dimensions");
  expect_error(pickle(dict_of({{"w", tensor(storage("0", int64_t{1} << 62), 0, tuple({1}), tuple({1}))}})),
               "storage \"0\" of 4611686018427387904 float32 elements overflows");
  expect_error(pickle(dict_of({{"w", tensor(storage("0", -1), 0, tuple({1}), tuple({1}))}})), "negative size -1");
  // The same key declared with two dtypes.
  std::string a = tensor(storage("0", 4), 0, tuple({1}), tuple({1}));
  std::string b = tensor(storage("0", 4, "LongStorage"), 0, tuple({1}), tuple({1}));
  expect_error(pickle(dict_of({{"a", a}, {"b", b}})), "is declared as 4 float32 elements and as 4 int64 elements");
  // Integer tensors cannot require grad.
  expect_error(pickle(dict_of({{"w", tensor(storage("0", 1, "LongStorage"), 0, tuple({1}), tuple({1}), true)}})),
               "only tensors of floating point dtype can require gradients");
}

TEST(UnpicklerHostile, StorageTypes) {
  expect_error(pickle(dict_of({{"w", tensor(storage("0", 1, "QInt8Storage"), 0, tuple({1}), tuple({1}))}})),
               "torch.QInt8Storage (qint8) is not supported", Code::Unsupported);
  expect_error(pickle(dict_of({{"w", tensor(storage("0", 1, "NopeStorage"), 0, tuple({1}), tuple({1}))}})),
               "global \"torch.NopeStorage\" is not allowed");
  expect_error(pickle(dict_of({{"w", "(" + str("storage") + "K\x01" + str("0") + str("cpu") + "K\x01tQ"}})),
               "the storage type must be a torch storage class, got an int");
}

TEST(UnpicklerHostile, StorageLimitAndTopLevel) {
  std::string p = pickle(dict_of({{"w", tensor(storage("0", 1 << 20), 0, tuple({1}), tuple({1}))}}));
  EXPECT_THROW(load(p, 1000), Error);
  expect_error(pickle("]"), "the top-level object is a list, expected a dict");
  expect_error(pickle(tensor(storage("0", 1), 0, tuple({1}), tuple({1}))), "the top-level object is a tensor");
}

TEST(UnpicklerHostile, ManyObjectsAreCapped) {
  std::string p = kProto + std::string(Unpickler::kMaxValues + 1, 'N') + ".";
  expect_error(p, "more than 8388608 objects");
}

TEST(UnpicklerHostile, EveryPrefixOfAValidPickleFails) {
  std::string t = tensor(storage("0", 6), 1, tuple({2, 2}), tuple({2, 1}));
  std::string p = pickle(dict_of({{"a", t}, {"b", tensor(storage("1", 1), 0, tuple({}), tuple({}))}}));
  load(p);
  for (size_t cut = 0; cut < p.size(); ++cut) {
    try {
      load(p.substr(0, cut));
      ADD_FAILURE() << "prefix of " << cut << " bytes loaded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Code::Format) << e.message();
    }
  }
}

}  // namespace

TEST(Unpickler, TextLongsReadAsLong1Would) {
  // Protocols 0 and 1 write ints beyond int64 as text (LONG, "L<digits>L\n"); they
  // must read as the bytes LONG1 holds (values and encodings from Python's pickle),
  // which is how legacy torch.save files of those protocols show their magic number.
  struct Case {
    const char* text;
    const char* hex;
  };
  const Case cases[] = {
      {"9223372036854775808", "000000000000008000"},
      {"-9223372036854775809", "ffffffffffffff7fff"},
      {"18446744073709551616", "000000000000000001"},
      {"-18446744073709551616", "0000000000000000ff"},
      {"119547037146038801333356", "6cfc9c46f9206aa85019"},
      {"-2361183241434822606848", "000000000000000080"},
      {"2361183241434822606847", "ffffffffffffffff7f"},
      {"1000000000000000000000000000000", "00000040eaed7446d09c2c9f0c"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    std::string p = "L"s + c.text + "L\n.";
    Unpickler u(reinterpret_cast<const uint8_t*>(p.data()), p.size(), "text long");
    ASSERT_EQ(u.kind(u.root()), Unpickler::Kind::BigInt);
    std::string hex;
    for (unsigned char b : u.bytes(u.root())) hex += "0123456789abcdef"[b >> 4], hex += "0123456789abcdef"[b & 15];
    EXPECT_EQ(hex, c.hex);
  }
  // Small values stay ints; junk is an error naming the text.
  std::string small = "L-42L\n.";
  Unpickler u(reinterpret_cast<const uint8_t*>(small.data()), small.size(), "small");
  EXPECT_EQ(u.kind(u.root()), Unpickler::Kind::Int);
  EXPECT_EQ(u.int_value(u.root()), -42);
  std::string junk = "L12x45678901234567890123L\n.";
  try {
    Unpickler bad(reinterpret_cast<const uint8_t*>(junk.data()), junk.size(), "junk");
    FAIL() << "accepted a text long with a letter in it";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::Format);
    EXPECT_NE(std::string(e.what()).find("\"12x45678901234567890123\" is not an int"), std::string::npos) << e.what();
  }
}

TEST(Unpickler, LegacyMagicOfEveryProtocolIsRecognised) {
  const std::string long1 = "\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19"s;
  auto legacy = [](const std::string& s) {
    return is_legacy_torch(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  EXPECT_TRUE(legacy("L119547037146038801333356L\n."));          // protocols 0 and 1
  EXPECT_TRUE(legacy("\x80\x02"s + long1 + "."));                // 2
  EXPECT_TRUE(legacy("\x80\x03"s + long1 + "."));                // 3
  EXPECT_TRUE(legacy("\x80\x04\x95"s + u64(13) + long1 + "."));  // 4 and 5: a FRAME first
  EXPECT_TRUE(legacy("\x80\x05\x95"s + u64(13) + long1 + "."));
  EXPECT_FALSE(legacy("\x80\x06"s + long1 + "."));  // no such protocol
  EXPECT_FALSE(legacy("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x18."s));
  EXPECT_FALSE(legacy("L119547037146038801333357L\n."));
  EXPECT_FALSE(legacy("\x80\x04\x95"s));
}

namespace {

// Protocol 0's {'w': tensor} (no PROTO), with a PERSID line of our choosing.
std::string text_pid_pickle(const std::string& pid, const std::string& size = "(I4\nt") {
  return "(dp0\nVw\np1\nctorch._utils\n_rebuild_tensor_v2\np2\n(P" + pid + "\nI0\n" + size +
         "(I1\ntI00\nccollections\nOrderedDict\n(tRtRs.";
}

}  // namespace

TEST(Unpickler, TextPersistentIdsOfProtocol0) {
  // torch.save(..., pickle_protocol=0) writes str(pid); Note [Text persistent ids].
  auto d = load(text_pid_pickle("('storage', <class 'torch.FloatStorage'>, '0', 'cpu', 4)"));
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ(d->value_at(0).dtype(), DType::Float32);
  EXPECT_EQ(d->value_at(0).numel(), 4);
  d = load(text_pid_pickle("('storage', <class 'torch.cuda.LongStorage'>, '94', 'cuda:0', 4, None)"));
  EXPECT_EQ(d->value_at(0).dtype(), DType::Int64);
  // A legacy view: elements [1, 3) of an 8-element storage.
  d = load(text_pid_pickle("('storage', <class 'torch.DoubleStorage'>, '7', 'cpu', 8, ('8', 1, 2))", "(I2\nt"));
  EXPECT_EQ(d->value_at(0).offset(), 1);
  EXPECT_EQ(d->value_at(0).impl()->storage()->nbytes(), 64u);
}

TEST(UnpicklerHostile, TextPersistentIdsAreParsedNotEvaluated) {
  const std::string not_tuple = "is not a storage tuple";
  for (const char* pid :
       {"__import__('os').system('touch x')",
        "('storage', <class 'torch.FloatStorage'>, '0', 'cpu')",         // a field short
        "('storage', <class 'torch.FloatStorage'>, '0', 'cpu', 4) ",     // trailing text
        "('storage', <class 'torch.FloatStorage'>, '0', 'cpu', 4, 5)",   // view neither None nor a tuple
        "('storage', <class 'torch.FloatStorage'>, 'a\\'b', 'cpu', 4)",  // an escape in a key
        "('storage', <class 'torch.FloatStorage'>, \"0\", 'cpu', 4)",    // another quote
        "('storage', <class 'torch.FloatStorage'>, '0', 'cpu', 4x)",     // not an int
        "('storage', <class 'torch.FloatStorage'>, '0', 'cpu', 123456789012345678901234)",
        "('storage', <class 'FloatStorage'>, '0', 'cpu', 4)",       // no module
        "('storage', torch.FloatStorage, '0', 'cpu', 4)",           // not a class repr
        "('storage',<class 'torch.FloatStorage'>,'0','cpu',4)"}) {  // not str()'s spacing
    SCOPED_TRACE(pid);
    expect_error(text_pid_pickle(pid), "PERSID at byte ");
    expect_error(text_pid_pickle(pid), not_tuple);
  }
  expect_error(text_pid_pickle("('storage', <class 'os.system'>, '0', 'cpu', 4)"),
               "PERSID at byte 48 of data.pkl: global \"os.system\" is not allowed");
  expect_error(text_pid_pickle("('storage', <class 'builtins.eval'>, '0', 'cpu', 4)"),
               "global \"builtins.eval\" is not allowed");
  expect_error(text_pid_pickle("('module', <class 'torch.FloatStorage'>, '0', 'cpu', 4)"),
               "only ('storage', ...) persistent ids are allowed");
  expect_error(text_pid_pickle("('storage', <class 'torch.FloatStorage'>, '0', 'cpu', -4)"), "negative size");
  expect_error(text_pid_pickle("('storage', <class 'torch.FloatStorage'>, '8', 'cpu', 8, ('8', 7, 2))"),
               "is outside storage");
}

TEST(Unpickler, Protocol0UnicodeIsRawUnicodeEscape) {
  // Keys as protocol 0 writes them: Latin-1 bytes, \uXXXX / \UXXXXXXXX escapes (pickle
  // escapes '\\' and '\n' so), and an escape only after an odd run of backslashes.
  auto d = load(
      "(dp0\nVa\\u000ab\\u005c\xe9\np1\nI1\nsVsnow\\u2603 \\U0001f600\np2\nI2\nsV\\\\u0041\np3\nI3\n"
      "sV\\\\\\u0041\np4\nI4\ns.");
  ASSERT_EQ(d->size(), 4u);
  EXPECT_EQ(d->key_at(0), "a\nb\\\xc3\xa9");
  EXPECT_EQ(d->key_at(1), "snow\xe2\x98\x83 \xf0\x9f\x98\x80");
  EXPECT_EQ(d->key_at(2), "\\\\u0041");
  EXPECT_EQ(d->key_at(3), "\\\\A");
  expect_error("(dp0\nV\\u00\np1\nI1\ns.", "UNICODE at byte 5 of data.pkl: a truncated \\u escape");
  expect_error("(dp0\nV\\u00zz\np1\nI1\ns.", "a malformed \\u escape");
  expect_error("(dp0\nV\\ud800\np1\nI1\ns.", "\\u escape of code point 55296 in a UNICODE string is not a character");
  expect_error("(dp0\nV\\U00110000\np1\nI1\ns.", "is not a character");
}

TEST(Unpickler, AnyPickleGoesToTheTorchReader) {
  // So that a legacy magic number made by a call is refused by the call's global.
  auto detect = [](const std::string& s) {
    return detect_format(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  EXPECT_EQ(detect("\x80\x02"
                   "c__builtin__\neval\nq\x00."s),
            Format::Torch);
  EXPECT_EQ(detect("\x80\x04\x95"s + u64(20) +
                   "\x8c\x08"
                   "builtins"),
            Format::Torch);
  EXPECT_EQ(detect("c__builtin__\neval\nq\x00(X"s), Format::Torch);  // protocols 0 and 1
  EXPECT_EQ(detect("ctorch._utils\n_rebuild_tensor_v2\n"), Format::Torch);
  EXPECT_EQ(detect("cat and dog\n"), Format::Auto);  // text, not a GLOBAL
  EXPECT_EQ(detect("c1\nx\n"), Format::Auto);
  EXPECT_EQ(detect("cmodule\n"), Format::Auto);
  EXPECT_EQ(detect("\x80\x06"s), Format::Auto);
  // A truncated safetensors file whose header length starts 0x80 0x02: not a pickle.
  EXPECT_EQ(detect("\x80\x02\0\0\0\0\0\0{\"a\""s), Format::Auto);
}
