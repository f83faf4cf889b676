// libFuzzer harness: the C API as a program (capi_support.h says what every call must
// do). One opcode byte per call, then its arguments: handles picked from a table of 16
// tensors, 4 modules, 2 optimizers and 2 tensor dicts (or NULL, a released handle, a
// handle of another type, a made-up token), sizes, dims, dtypes and reals drawn from
// Reader (mostly small, sometimes at the edges of int64 or invalid).
//
// Checked on top of "an error or success": a factory with a valid dtype and sizes
// answers success, GLIA_ERR_OUT_OF_MEMORY past the allocation cap, or GLIA_ERR_SHAPE
// when the size overflows; releasing a released or made-up handle is
// GLIA_ERR_INVALID_HANDLE; a blob's deleter and a hook's free_user_data run exactly once.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "capi_support.h"

namespace {

using glia::fuzz::capi_finding;
using glia::fuzz::check;
using glia::fuzz::check_out;
using glia::fuzz::kMaxNumel;
using glia::fuzz::Reader;

constexpr int kT = 16, kM = 4, kO = 2, kD = 2, kDead = 8;

int g_live_blobs = 0;      // blobs handed to glia_tensor_from_blob and not yet deleted
int g_live_hook_data = 0;  // hook user_data not yet freed

struct State {
  glia_tensor* t[kT] = {};
  glia_module* m[kM] = {};
  glia_optimizer* o[kO] = {};
  glia_tensor_dict* d[kD] = {};
  void* dead[kDead] = {};  // tokens of released handles (any type)
  int next_dead = 0;
  uint64_t hooks[8] = {};
  int next_hook = 0;
};

bool holds(const State& s, const void* h) {
  for (auto* x : s.t)
    if (x == h) return true;
  for (auto* x : s.m)
    if (x == h) return true;
  for (auto* x : s.o)
    if (x == h) return true;
  for (auto* x : s.d)
    if (x == h) return true;
  return false;
}

// After the table's reference to `h` was dropped: remember it if it is now dead.
void bury(State& s, void* h) {
  if (!h || holds(s, h)) return;
  s.dead[s.next_dead++ % kDead] = h;
}

void drop_tensor(State& s, int k) {
  glia_tensor* h = s.t[k];
  if (!h) return;
  s.t[k] = nullptr;
  glia::fuzz::must_release(glia_tensor_release(h), "glia_tensor_release");
  bury(s, h);
}
void drop_module(State& s, int k) {
  glia_module* h = s.m[k];
  if (!h) return;
  s.m[k] = nullptr;
  glia::fuzz::must_release(glia_module_release(h), "glia_module_release");
  bury(s, h);
}
void drop_optimizer(State& s, int k) {
  glia_optimizer* h = s.o[k];
  if (!h) return;
  s.o[k] = nullptr;
  glia::fuzz::must_release(glia_optimizer_release(h), "glia_optimizer_release");
  bury(s, h);
}
void drop_dict(State& s, int k) {
  glia_tensor_dict* h = s.d[k];
  if (!h) return;
  s.d[k] = nullptr;
  glia::fuzz::must_release(glia_tensor_dict_release(h), "glia_tensor_dict_release");
  bury(s, h);
}

// Keeps a new tensor reference in slot k (the old one released), or drops it when the
// view reaches more than kMaxNumel elements.
void keep(State& s, int k, glia_tensor* t) {
  if (!t) return;
  int64_t n = 0;
  if (check(glia_tensor_numel(t, &n), "glia_tensor_numel")) capi_finding("numel of a new tensor failed", "keep");
  if (n < 0) capi_finding("negative numel", "keep");
  glia_tensor* old = s.t[k];
  s.t[k] = t;  // first: `old` may be the same handle (glia returns one handle per object)
  if (old) {
    glia::fuzz::must_release(glia_tensor_release(old), "glia_tensor_release");
    bury(s, old);
  }
  if (n > kMaxNumel) drop_tensor(s, k);
}
template <class H>
void keep_in(State& s, H** table, int k, H* h, glia_error* (*release)(H*), const char* fn) {
  if (!h) return;
  H* old = table[k];
  table[k] = h;
  if (old) {
    glia::fuzz::must_release(release(old), fn);
    bury(s, old);
  }
}
void keep_module(State& s, int k, glia_module* m) { keep_in(s, s.m, k, m, glia_module_release, "glia_module_release"); }
void keep_dict(State& s, int k, glia_tensor_dict* d) {
  keep_in(s, s.d, k, d, glia_tensor_dict_release, "glia_tensor_dict_release");
}
void keep_optimizer(State& s, int k, glia_optimizer* o) {
  keep_in(s, s.o, k, o, glia_optimizer_release, "glia_optimizer_release");
}

// A tensor argument: mostly a slot (maybe empty: NULL), sometimes a released handle,
// a handle of another type or a made-up token.
glia_tensor* T(State& s, Reader& r) {
  uint8_t b = r.u8();
  if (glia::fuzz::trace()) std::fprintf(stderr, "   tensor arg %d\n", b);
  if (b < 232) {
    if (glia::fuzz::trace() && s.t[b % kT]) glia::fuzz::trace_shape(s.t[b % kT]);
    return s.t[b % kT];
  }
  if (b < 240) return nullptr;
  if (b < 248) return static_cast<glia_tensor*>(s.dead[b % kDead]);
  if (b == 248) return reinterpret_cast<glia_tensor*>(s.m[0]);
  if (b == 249) return reinterpret_cast<glia_tensor*>(s.d[0]);
  return reinterpret_cast<glia_tensor*>(static_cast<uintptr_t>(r.u64()));
}
glia_module* M(State& s, Reader& r) {
  uint8_t b = r.u8();
  if (b < 240) return s.m[b % kM];
  if (b < 244) return nullptr;
  if (b < 252) return static_cast<glia_module*>(s.dead[b % kDead]);
  if (b == 252) return reinterpret_cast<glia_module*>(s.t[0]);
  return reinterpret_cast<glia_module*>(static_cast<uintptr_t>(r.u64()));
}
glia_optimizer* O(State& s, Reader& r) {
  uint8_t b = r.u8();
  if (b < 240) return s.o[b % kO];
  if (b < 248) return static_cast<glia_optimizer*>(s.dead[b % kDead]);
  return nullptr;
}
glia_tensor_dict* D(State& s, Reader& r) {
  uint8_t b = r.u8();
  if (b < 240) return s.d[b % kD];
  if (b < 248) return static_cast<glia_tensor_dict*>(s.dead[b % kDead]);
  return nullptr;
}
int slot(Reader& r) { return r.u8() % kT; }

// A shape: ndim mostly 0..4, sometimes 65 or negative.
struct Shape {
  int64_t v[66] = {};
  int64_t n = 0;
};
Shape shape(Reader& r) {
  Shape sh;
  uint8_t b = r.u8();
  sh.n = b < 250 ? b % 5 : b == 250 ? 65 : b == 251 ? 64 : b == 252 ? -1 : 6;
  for (int64_t i = 0; i < std::min<int64_t>(sh.n, 65); ++i) sh.v[i] = r.size();
  return sh;
}
struct Dims {
  int64_t v[8] = {};
  int64_t n = 0;
  bool null = false;
};
Dims dims(Reader& r) {
  Dims d;
  uint8_t b = r.u8();
  d.n = b % 5;
  d.null = b >= 250;
  for (int64_t i = 0; i < d.n; ++i) d.v[i] = r.small();
  return d;
}
const int64_t* ptr(const Dims& d) { return d.null ? nullptr : d.v; }

glia_scalar scalar(Reader& r) {
  uint8_t b = r.u8();
  glia_scalar s = b % 3 == 0   ? glia_scalar_float(r.real())
                  : b % 3 == 1 ? glia_scalar_int(r.small())
                               : glia_scalar_bool(r.flag());
  if (b >= 250) s.type = static_cast<glia_scalar_type>(b);  // invalid type
  return s;
}

const char* word(Reader& r) {
  static const char* const words[] = {"weight",
                                      "bias",
                                      "0.weight",
                                      "0.bias",
                                      "1.weight",
                                      "running_mean",
                                      "num_batches_tracked",
                                      "",
                                      ".",
                                      "0",
                                      "1",
                                      "0.",
                                      "weight.x",
                                      "none",
                                      "tanh",
                                      "floor",
                                      "trunc",
                                      "lr",
                                      "momentum",
                                      "betas",
                                      "eps",
                                      "weight_decay",
                                      "foo",
                                      "\xff\xfe",
                                      nullptr};
  return words[r.u8() % (sizeof words / sizeof *words)];
}

// ---- factories ------------------------------------------------------------------------

// What a factory must answer for a valid dtype and ndim and no negative size.
void expect_factory(const char* fn, const Shape& sh, glia_dtype dt, int code) {
  std::string detail = "code " + std::to_string(code) + ", dtype " + std::to_string(dt) + ", sizes";
  for (int64_t i = 0; i < std::min<int64_t>(sh.n, 65); ++i) detail += " " + std::to_string(sh.v[i]);
  if (sh.n < 0 || sh.n > 64 || static_cast<uint32_t>(dt) > GLIA_BOOL) return;
  __int128 nonzero = 1, numel = 1;
  bool overflow = false;
  for (int64_t i = 0; i < sh.n; ++i) {
    if (sh.v[i] < 0) return;
    if (sh.v[i] == 0) {
      numel = 0;
      continue;
    }
    nonzero *= sh.v[i];
    if (nonzero > INT64_MAX) overflow = true, nonzero = INT64_MAX;
    if (numel) numel = nonzero;
  }
  __int128 bytes = numel * glia_dtype_size(dt);
  // glia's check_shape refuses an element count whose 8-byte size overflows, whatever the dtype.
  if (numel * 8 > INT64_MAX) overflow = true;
  if (overflow) {
    if (code != GLIA_ERR_SHAPE) capi_finding("an overflowing size was not GLIA_ERR_SHAPE", fn, detail.c_str());
  } else if (bytes > static_cast<__int128>(glia::fuzz::kAllocCap)) {
    if (code != GLIA_ERR_OUT_OF_MEMORY)
      capi_finding("an allocation past the cap was not GLIA_ERR_OUT_OF_MEMORY", fn, detail.c_str());
  } else if (bytes * 5 / 4 + 64 <= static_cast<__int128>(glia::fuzz::kAllocCap) && code != 0) {
    capi_finding("a factory with valid arguments failed", fn, detail.c_str());
  }
}

// Uninitialised bytes are no bools (ASan fills new blocks with 0xbe): an empty bool tensor
// is zeroed before the program reads it.
void zero_if_bool(glia_tensor* t) {
  glia_dtype dt;
  if (t && !check(glia_tensor_dtype(t, &dt), "glia_tensor_dtype") && dt == GLIA_BOOL)
    check(glia_zero_(t), "glia_zero_");
}

void blob_deleter(void* ctx, void* data) {
  if (ctx != data && ctx != static_cast<char*>(data) - 1) capi_finding("blob deleter got another pointer", "deleter");
  --g_live_blobs;
  std::free(ctx);
}

void op_factory(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  int k = slot(r);
  uint8_t kind = r.u8();
  Shape sh = shape(r);
  glia_tensor_options opt;
  glia_tensor_options_init(&opt);
  opt.dtype = r.dtype();
  const glia_tensor_options* o = r.u8() < 240 ? &opt : nullptr;
  glia_dtype dt = o ? opt.dtype : GLIA_FLOAT32;
  int c = 0;
  switch (kind % 12) {
    case 0:
      c = check_out(glia_tensor_empty(sh.v, sh.n, o, &out), "glia_tensor_empty", out);
      expect_factory("glia_tensor_empty", sh, dt, c);
      zero_if_bool(out);
      break;
    case 1:
      c = check_out(glia_tensor_zeros(sh.v, sh.n, o, &out), "glia_tensor_zeros", out);
      expect_factory("glia_tensor_zeros", sh, dt, c);
      break;
    case 2:
      c = check_out(glia_tensor_ones(sh.v, sh.n, o, &out), "glia_tensor_ones", out);
      expect_factory("glia_tensor_ones", sh, dt, c);
      break;
    case 3:
      check_out(glia_tensor_full(sh.v, sh.n, r.real(), o, &out), "glia_tensor_full", out);
      break;
    case 4:
      check_out(glia_tensor_rand(sh.v, sh.n, o, &out), "glia_tensor_rand", out);
      break;
    case 5:
      check_out(glia_tensor_randn(sh.v, sh.n, o, &out), "glia_tensor_randn", out);
      break;
    case 6: {
      double a = r.real(), b = r.real(), st = r.real();
      check_out(glia_tensor_arange(a, b, st, o, &out), "glia_tensor_arange", out);
      break;
    }
    case 7: {
      int64_t rows = r.small(), cols = r.small();
      check_out(glia_tensor_eye(rows, cols, o, &out), "glia_tensor_eye", out);
      break;
    }
    case 8: {
      double a = r.real(), b = r.real();
      int64_t n = r.small();
      check_out(glia_tensor_linspace(a, b, n, o, &out), "glia_tensor_linspace", out);
      break;
    }
    case 9: {
      int64_t lo = r.small(), hi = r.small();
      check_out(glia_tensor_randint(lo, hi, sh.v, sh.n, o, &out), "glia_tensor_randint", out);
      break;
    }
    case 10: {  // from_data: the bytes come from the program
      size_t want = 1;
      for (int64_t i = 0; i < std::min<int64_t>(sh.n, 65); ++i)
        want = sh.v[i] >= 0 && sh.v[i] < 4096 ? want * static_cast<size_t>(sh.v[i]) : size_t(1) << 40;
      want *= glia_dtype_size(dt);
      size_t nbytes = r.u8() < 224 ? want : r.u8();
      if (nbytes > 65536) nbytes = 65536 + 8;
      std::vector<uint8_t> bytes(nbytes);
      // A bool byte other than 0 and 1 is not a bool (reading it is undefined, in glia as in torch).
      for (auto& x : bytes) x = dt == GLIA_BOOL ? r.u8() & 1 : r.u8();
      check_out(glia_tensor_from_data(nbytes ? bytes.data() : nullptr, nbytes, sh.v, sh.n, dt, &out),
                "glia_tensor_from_data", out);
      break;
    }
    case 11: {  // from_blob: strides from the program, a buffer exactly as large as the view reaches
      int64_t strides[66] = {};
      bool neg = false;
      __int128 span = 0;
      bool empty = false, huge = false;
      bool row_major = r.u8() >= 240;  // strides NULL
      int64_t inner = 1;
      for (int64_t i = std::min<int64_t>(sh.n, 65); i-- > 0;) {
        strides[i] = inner;
        inner = sh.v[i] > 0 && sh.v[i] < (int64_t(1) << 20) && inner < (int64_t(1) << 40) ? inner * sh.v[i] : inner;
      }
      for (int64_t i = 0; i < std::min<int64_t>(sh.n, 65); ++i) {
        if (!row_major) strides[i] = r.u8() < 240 ? r.u8() % 9 : r.small();
        if (strides[i] < 0) neg = true;
        if (sh.v[i] == 0) empty = true;
        if (sh.v[i] > (int64_t(1) << 40) || strides[i] > (int64_t(1) << 40) || strides[i] < -(int64_t(1) << 40))
          huge = true;
        else if (sh.v[i] > 0)
          span += static_cast<__int128>(sh.v[i] - 1) * strides[i];
      }
      if (huge) span = int64_t(1) << 50;
      bool misalign = r.u8() >= 248 && glia_dtype_size(dt) > 1;
      size_t item = glia_dtype_size(dt) ? glia_dtype_size(dt) : 1;
      __int128 bytes = empty ? 0 : (span + 1) * item;
      if (bytes < 0 || bytes > 65536)
        bytes = 64;  // glia must refuse (negative strides) or never reach it (checked below)
      bool fits = !neg && !empty && (span + 1) * item <= 65536;
      void* mem = std::calloc(static_cast<size_t>(bytes) + 1, 1);  // zeros: valid in every dtype, bool included
      void* data = misalign ? static_cast<char*>(mem) + 1 : mem;
      ++g_live_blobs;
      glia_device cpu{GLIA_CPU, 0};
      c = check_out(
          glia_tensor_from_blob(data, sh.v, row_major ? nullptr : strides, sh.n, dt, cpu, blob_deleter, mem, &out),
          "glia_tensor_from_blob", out);
      if (c == 0 && neg) capi_finding("negative strides were accepted", "glia_tensor_from_blob");
      if (c == 0 && misalign) capi_finding("a misaligned blob was accepted", "glia_tensor_from_blob");
      if (c == 0 && !fits && !empty) {
        // Made-up strides reach past the buffer: glia cannot know; the harness must not keep it.
        glia::fuzz::must_release(glia_tensor_release(out), "glia_tensor_release");
        out = nullptr;
      }
      break;
    }
  }
  keep(s, k, out);
}

void op_like(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  glia_tensor_options opt;
  glia_tensor_options_init(&opt);
  opt.dtype = r.dtype();
  const glia_tensor_options* o = r.flag() ? &opt : nullptr;
  switch (r.u8() % 6) {
    case 0:
      check_out(glia_tensor_empty_like(a, o, &out), "glia_tensor_empty_like", out);
      zero_if_bool(out);
      break;
    case 1:
      check_out(glia_tensor_zeros_like(a, o, &out), "glia_tensor_zeros_like", out);
      break;
    case 2:
      check_out(glia_tensor_ones_like(a, o, &out), "glia_tensor_ones_like", out);
      break;
    case 3:
      check_out(glia_tensor_full_like(a, r.real(), o, &out), "glia_tensor_full_like", out);
      break;
    case 4:
      check_out(glia_tensor_rand_like(a, o, &out), "glia_tensor_rand_like", out);
      break;
    case 5:
      check_out(glia_tensor_randn_like(a, o, &out), "glia_tensor_randn_like", out);
      break;
  }
  keep(s, k, out);
}

// ---- views and shape ops --------------------------------------------------------------

void op_view(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  switch (r.u8() % 16) {
    case 0: {
      Shape sh = shape(r);
      for (int64_t i = 0; i < std::min<int64_t>(sh.n, 65); ++i)
        if (sh.v[i] == 7) sh.v[i] = -1;
      check_out(glia_view(a, sh.v, sh.n, &out), "glia_view", out);
      break;
    }
    case 1: {
      Shape sh = shape(r);
      for (int64_t i = 0; i < std::min<int64_t>(sh.n, 65); ++i)
        if (sh.v[i] == 7) sh.v[i] = -1;
      check_out(glia_reshape(a, sh.v, sh.n, &out), "glia_reshape", out);
      break;
    }
    case 2: {
      Dims d = dims(r);
      check_out(glia_permute(a, ptr(d), d.n, &out), "glia_permute", out);
      break;
    }
    case 3: {
      int64_t d0 = r.small(), d1 = r.small();
      check_out(glia_transpose(a, d0, d1, &out), "glia_transpose", out);
      break;
    }
    case 4: {
      Shape sh = shape(r);
      for (int64_t i = 0; i < std::min<int64_t>(sh.n, 65); ++i)
        if (sh.v[i] == 7) sh.v[i] = -1;
      check_out(glia_expand(a, sh.v, sh.n, &out), "glia_expand", out);
      break;
    }
    case 5: {
      int64_t d = r.small(), st = r.small(), en = r.small(), step = r.small();
      check_out(glia_slice(a, d, st, en, step, &out), "glia_slice", out);
      break;
    }
    case 6: {
      int64_t d = r.small(), st = r.small(), len = r.small();
      check_out(glia_narrow(a, d, st, len, &out), "glia_narrow", out);
      break;
    }
    case 7: {
      int64_t d = r.small(), i = r.small();
      check_out(glia_select(a, d, i, &out), "glia_select", out);
      break;
    }
    case 8: {
      int64_t d = r.small(), size = r.small(), step = r.small();
      check_out(glia_unfold(a, d, size, step, &out), "glia_unfold", out);
      break;
    }
    case 9: {
      int64_t d = r.small();
      check_out(glia_unsqueeze(a, d, &out), "glia_unsqueeze", out);
      break;
    }
    case 10: {
      Dims d = dims(r);
      check_out(glia_squeeze(a, ptr(d), d.n, &out), "glia_squeeze", out);
      break;
    }
    case 11: {
      int64_t st = r.small(), en = r.small();
      check_out(glia_flatten(a, st, en, &out), "glia_flatten", out);
      break;
    }
    case 12: {
      int64_t d = r.small();
      Dims sz = dims(r);
      check_out(glia_unflatten(a, d, ptr(sz), sz.n, &out), "glia_unflatten", out);
      break;
    }
    case 13: {
      int64_t off = r.small(), d1 = r.small(), d2 = r.small();
      check_out(glia_diagonal(a, off, d1, d2, &out), "glia_diagonal", out);
      break;
    }
    case 14: {
      Dims src = dims(r), dst = dims(r);
      check_out(glia_movedim(a, ptr(src), src.n, ptr(dst), dst.n, &out), "glia_movedim", out);
      break;
    }
    case 15: {
      glia_dtype dt = r.dtype();
      check_out(glia_tensor_to(a, nullptr, r.flag() ? &dt : nullptr, &out), "glia_tensor_to", out);
      break;
    }
  }
  keep(s, k, out);
}

void op_shape(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  switch (r.u8() % 14) {
    case 0:
    case 1: {
      const glia_tensor* ts[5];
      int64_t n = r.u8() % 6;
      for (int64_t i = 0; i < n; ++i) ts[i] = i == 0 ? a : T(s, r);
      int64_t d = r.small();
      if (r.flag())
        check_out(glia_cat(n ? ts : nullptr, n, d, &out), "glia_cat", out);
      else
        check_out(glia_stack(n ? ts : nullptr, n, d, &out), "glia_stack", out);
      break;
    }
    case 2:
    case 3: {
      glia_tensor* outs[4] = {};
      int64_t count = -7;
      int64_t cap = r.u8() % 5, v = r.small(), d = r.small();
      int c;
      uint8_t which = r.u8() % 3;
      if (which == 0)
        c = check(glia_split(a, v, d, outs, cap, &count), "glia_split");
      else if (which == 1)
        c = check(glia_chunk(a, v, d, outs, cap, &count), "glia_chunk");
      else
        c = check(glia_tensor_split(a, v, d, outs, cap, &count), "glia_tensor_split");
      if (c == 0) {
        if (count < 0) capi_finding("split gave a negative count", "glia_split");
        for (int64_t i = 0; i < std::min<int64_t>(count, cap); ++i) {
          if (!outs[i]) capi_finding("split left an output NULL", "glia_split");
          keep(s, (k + i) % kT, outs[i]);
        }
      } else {
        for (auto* o : outs)
          if (o) capi_finding("a failed split wrote outputs", "glia_split");
      }
      break;
    }
    case 4: {
      int64_t d = r.small();
      check_out(glia_index_select(a, d, T(s, r), &out), "glia_index_select", out);
      break;
    }
    case 5: {
      int64_t d = r.small();
      check_out(glia_gather(a, d, T(s, r), &out), "glia_gather", out);
      break;
    }
    case 6: {
      int64_t d = r.small();
      glia_tensor* idx = T(s, r);
      glia_tensor* src = T(s, r);
      if (r.flag())
        check_out(glia_scatter(a, d, idx, src, &out), "glia_scatter", out);
      else
        check_out(glia_scatter_add(a, d, idx, src, &out), "glia_scatter_add", out);
      break;
    }
    case 7:
      check_out(glia_masked_select(a, T(s, r), &out), "glia_masked_select", out);
      break;
    case 8: {
      Dims d = dims(r);
      check_out(glia_flip(a, ptr(d), d.n, &out), "glia_flip", out);
      break;
    }
    case 9: {
      Dims sh = dims(r), d = dims(r);
      check_out(glia_roll(a, ptr(sh), sh.n, ptr(d), d.n, &out), "glia_roll", out);
      break;
    }
    case 10: {
      Dims d = dims(r);
      check_out(glia_repeat(a, ptr(d), d.n, &out), "glia_repeat", out);
      break;
    }
    case 11: {
      Dims d = dims(r);
      glia_pad_mode mode = static_cast<glia_pad_mode>(r.u8() % 5);
      check_out(glia_pad(a, ptr(d), d.n, mode, r.real(), &out), "glia_pad", out);
      break;
    }
    case 12: {
      int64_t diag = r.small();
      check_out(glia_tril(a, diag, &out), "glia_tril", out);
      break;
    }
    case 13:
      check_out(glia_take(a, T(s, r), &out), "glia_take", out);
      break;
  }
  keep(s, k, out);
}

// ---- elementwise ------------------------------------------------------------------------

void op_binary(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  glia_tensor* b = T(s, r);
  switch (r.u8() % 20) {
    case 0:
      check_out(glia_add(a, b, r.real(), &out), "glia_add", out);
      break;
    case 1:
      check_out(glia_sub(a, b, r.real(), &out), "glia_sub", out);
      break;
    case 2:
      check_out(glia_mul(a, b, &out), "glia_mul", out);
      break;
    case 3:
      check_out(glia_div(a, b, word(r), &out), "glia_div", out);
      break;
    case 4:
      check_out(glia_pow(a, b, &out), "glia_pow", out);
      break;
    case 5:
      check_out(glia_maximum(a, b, &out), "glia_maximum", out);
      break;
    case 6:
      check_out(glia_atan2(a, b, &out), "glia_atan2", out);
      break;
    case 7:
      check_out(glia_fmod(a, b, &out), "glia_fmod", out);
      break;
    case 8:
      check_out(glia_remainder(a, b, &out), "glia_remainder", out);
      break;
    case 9:
      check_out(glia_bitwise_and(a, b, &out), "glia_bitwise_and", out);
      break;
    case 10:
      check_out(glia_bitwise_left_shift(a, b, &out), "glia_bitwise_left_shift", out);
      break;
    case 11:
      check_out(glia_bitwise_right_shift(a, b, &out), "glia_bitwise_right_shift", out);
      break;
    case 12:
      check_out(glia_eq(a, b, &out), "glia_eq", out);
      break;
    case 13:
      check_out(glia_lt(a, b, &out), "glia_lt", out);
      break;
    case 14:
      check_out(glia_logical_xor(a, b, &out), "glia_logical_xor", out);
      break;
    case 15:
      check_out(glia_where(a, b, T(s, r), &out), "glia_where", out);
      break;
    case 16:
      check_out(glia_xlogy(a, b, &out), "glia_xlogy", out);
      break;
    case 17:
      check_out(glia_isclose(a, b, r.real(), r.real(), r.flag(), &out), "glia_isclose", out);
      break;
    case 18:
      check_out(glia_lerp(a, b, T(s, r), &out), "glia_lerp", out);
      break;
    case 19:
      check_out(glia_clamp_tensor(a, b, T(s, r), &out), "glia_clamp_tensor", out);
      break;
  }
  keep(s, k, out);
}

void op_unary(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  switch (r.u8() % 24) {
    case 0:
      check_out(glia_neg(a, &out), "glia_neg", out);
      break;
    case 1:
      check_out(glia_abs(a, &out), "glia_abs", out);
      break;
    case 2:
      check_out(glia_exp(a, &out), "glia_exp", out);
      break;
    case 3:
      check_out(glia_log(a, &out), "glia_log", out);
      break;
    case 4:
      check_out(glia_sqrt(a, &out), "glia_sqrt", out);
      break;
    case 5:
      check_out(glia_sin(a, &out), "glia_sin", out);
      break;
    case 6:
      check_out(glia_relu(a, &out), "glia_relu", out);
      break;
    case 7:
      check_out(glia_gelu(a, word(r), &out), "glia_gelu", out);
      break;
    case 8:
      check_out(glia_sigmoid(a, &out), "glia_sigmoid", out);
      break;
    case 9:
      check_out(glia_tanh(a, &out), "glia_tanh", out);
      break;
    case 10:
      check_out(glia_round(a, r.small(), &out), "glia_round", out);
      break;
    case 11:
      check_out(glia_logit(a, r.real(), &out), "glia_logit", out);
      break;
    case 12: {
      double p = r.real(), n = r.real();
      check_out(glia_nan_to_num(a, r.real(), r.flag() ? &p : nullptr, r.flag() ? &n : nullptr, &out), "glia_nan_to_num",
                out);
      break;
    }
    case 13:
      check_out(glia_bitwise_not(a, &out), "glia_bitwise_not", out);
      break;
    case 14:
      check_out(glia_isnan(a, &out), "glia_isnan", out);
      break;
    case 15:
      check_out(glia_logical_not(a, &out), "glia_logical_not", out);
      break;
    case 16:
      check_out(glia_sign(a, &out), "glia_sign", out);
      break;
    case 17:
      check_out(glia_erfinv(a, &out), "glia_erfinv", out);
      break;
    case 18:
      check_out(glia_lgamma(a, &out), "glia_lgamma", out);
      break;
    case 19:
      check_out(glia_digamma(a, &out), "glia_digamma", out);
      break;
    case 20:
      check_out(glia_leaky_relu(a, r.real(), &out), "glia_leaky_relu", out);
      break;
    case 21:
      check_out(glia_softplus(a, r.real(), r.real(), &out), "glia_softplus", out);
      break;
    case 22:
      check_out(glia_hardtanh(a, r.real(), r.real(), &out), "glia_hardtanh", out);
      break;
    case 23:
      check_out(glia_frac(a, &out), "glia_frac", out);
      break;
  }
  keep(s, k, out);
}

void op_scalar(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  glia_scalar x = scalar(r);
  switch (r.u8() % 10) {
    case 0:
      check_out(glia_add_scalar(a, x, r.real(), &out), "glia_add_scalar", out);
      break;
    case 1:
      check_out(glia_rsub_scalar(a, x, r.real(), &out), "glia_rsub_scalar", out);
      break;
    case 2:
      check_out(glia_mul_scalar(a, x, &out), "glia_mul_scalar", out);
      break;
    case 3:
      check_out(glia_div_scalar(a, x, word(r), &out), "glia_div_scalar", out);
      break;
    case 4:
      check_out(glia_pow_scalar(a, x, &out), "glia_pow_scalar", out);
      break;
    case 5:
      check_out(glia_scalar_pow(x, a, &out), "glia_scalar_pow", out);
      break;
    case 6: {
      glia_scalar y = scalar(r);
      check_out(glia_clamp(a, r.flag() ? &x : nullptr, r.flag() ? &y : nullptr, &out), "glia_clamp", out);
      break;
    }
    case 7:
      check_out(glia_eq_scalar(a, x, &out), "glia_eq_scalar", out);
      break;
    case 8:
      check_out(glia_ge_scalar(a, x, &out), "glia_ge_scalar", out);
      break;
    case 9:
      check_out(glia_scatter_value(a, r.small(), T(s, r), x, &out), "glia_scatter_value", out);
      break;
  }
  keep(s, k, out);
}

void op_inplace(State& s, Reader& r) {
  glia_tensor* a = T(s, r);
  glia_tensor* b = T(s, r);
  glia_scalar x = scalar(r);
  switch (r.u8() % 14) {
    case 0:
      check(glia_add_(a, b, r.real()), "glia_add_");
      break;
    case 1:
      check(glia_mul_(a, b), "glia_mul_");
      break;
    case 2:
      check(glia_sub_(a, b, r.real()), "glia_sub_");
      break;
    case 3:
      check(glia_div_(a, b), "glia_div_");
      break;
    case 4:
      check(glia_zero_(a), "glia_zero_");
      break;
    case 5:
      check(glia_fill_(a, x), "glia_fill_");
      break;
    case 6:
      check(glia_copy_(a, b), "glia_copy_");
      break;
    case 7: {
      glia_scalar y = scalar(r);
      check(glia_clamp_(a, r.flag() ? &x : nullptr, r.flag() ? &y : nullptr), "glia_clamp_");
      break;
    }
    case 8:
      check(glia_relu_(a), "glia_relu_");
      break;
    case 9:
      check(glia_sin_(a), "glia_sin_");
      break;
    case 10:
      check(glia_add_scalar_(a, x, r.real()), "glia_add_scalar_");
      break;
    case 11:
      check(glia_addcmul_(a, b, T(s, r), x), "glia_addcmul_");
      break;
    case 12:
      check(glia_round_(a, r.small()), "glia_round_");
      break;
    case 13:
      check(glia_nn_init_orthogonal_(a, r.real()), "glia_nn_init_orthogonal_");
      break;
  }
}

// ---- reductions ---------------------------------------------------------------------------

void op_reduce(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  glia_tensor* out2 = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  Dims d = dims(r);
  int32_t keepdim = r.flag();
  int64_t dim = r.small();
  switch (r.u8() % 24) {
    case 0:
      check_out(glia_sum(a, ptr(d), d.n, keepdim, &out), "glia_sum", out);
      break;
    case 1:
      check_out(glia_mean(a, ptr(d), d.n, keepdim, &out), "glia_mean", out);
      break;
    case 2:
      check_out(glia_prod(a, ptr(d), d.n, keepdim, &out), "glia_prod", out);
      break;
    case 3:
      check_out(glia_amax(a, ptr(d), d.n, keepdim, &out), "glia_amax", out);
      break;
    case 4:
      check_out(glia_var(a, ptr(d), d.n, r.real(), keepdim, &out), "glia_var", out);
      break;
    case 5:
      check_out(glia_std(a, ptr(d), d.n, r.real(), keepdim, &out), "glia_std", out);
      break;
    case 6:
      check_out(glia_logsumexp(a, ptr(d), d.n, keepdim, &out), "glia_logsumexp", out);
      break;
    case 7:
      check_out(glia_norm(a, r.real(), ptr(d), d.n, keepdim, &out), "glia_norm", out);
      break;
    case 8:
      check_out(glia_all(a, ptr(d), d.n, keepdim, &out), "glia_all", out);
      break;
    case 9:
      check_out(glia_count_nonzero(a, ptr(d), d.n, &out), "glia_count_nonzero", out);
      break;
    case 10:
      check(glia_max(a, dim, keepdim, &out, &out2), "glia_max");
      break;
    case 11:
      check_out(glia_argmax(a, r.flag() ? &dim : nullptr, keepdim, &out), "glia_argmax", out);
      break;
    case 12:
      check(glia_sort(a, dim, r.flag(), r.flag(), &out, &out2), "glia_sort");
      break;
    case 13:
      check(glia_topk(a, r.small(), dim, r.flag(), r.flag(), &out, &out2), "glia_topk");
      break;
    case 14:
      check(glia_kthvalue(a, r.small(), dim, keepdim, &out, &out2), "glia_kthvalue");
      break;
    case 15:
      check(glia_median_dim(a, dim, keepdim, &out, &out2), "glia_median_dim");
      break;
    case 16:
      check(glia_mode(a, dim, keepdim, &out, &out2), "glia_mode");
      break;
    case 17: {
      glia_dtype dt = r.dtype();
      check_out(glia_cumsum(a, dim, r.flag() ? &dt : nullptr, &out), "glia_cumsum", out);
      break;
    }
    case 18:
      check_out(glia_cumprod(a, dim, nullptr, &out), "glia_cumprod", out);
      break;
    case 19:
      check_out(glia_softmax(a, dim, &out), "glia_softmax", out);
      break;
    case 20:
      check_out(glia_log_softmax(a, dim, &out), "glia_log_softmax", out);
      break;
    case 21:
      check_out(glia_logcumsumexp(a, dim, &out), "glia_logcumsumexp", out);
      break;
    case 22: {
      glia_quantile_interpolation in = static_cast<glia_quantile_interpolation>(r.u8() % 6);
      check_out(glia_quantile(a, T(s, r), r.flag() ? &dim : nullptr, keepdim, in, &out), "glia_quantile", out);
      break;
    }
    case 23:
      check(glia_cummax(a, dim, &out, &out2), "glia_cummax");
      break;
  }
  if ((out == nullptr) != (out2 == nullptr) && out2) capi_finding("one of two outputs written", "reduce");
  keep(s, k, out);
  keep(s, (k + 1) % kT, out2);
}

// ---- linear algebra, nn functions, losses --------------------------------------------------

void op_nn(State& s, Reader& r) {
  glia_tensor* out = nullptr;
  glia_tensor* out2 = nullptr;
  int k = slot(r);
  glia_tensor* a = T(s, r);
  glia_tensor* b = T(s, r);
  switch (r.u8() % 20) {
    case 0:
      check_out(glia_matmul(a, b, &out), "glia_matmul", out);
      break;
    case 1:
      check_out(glia_mm(a, b, &out), "glia_mm", out);
      break;
    case 2:
      check_out(glia_bmm(a, b, &out), "glia_bmm", out);
      break;
    case 3:
      check_out(glia_addmm(T(s, r), a, b, r.real(), r.real(), &out), "glia_addmm", out);
      break;
    case 4:
      check_out(glia_linear(a, b, T(s, r), &out), "glia_linear", out);
      break;
    case 5: {
      glia_conv2d_options o;
      glia_conv2d_options_init(&o);
      o.stride[0] = r.small(), o.stride[1] = r.small();
      o.padding[0] = r.small(), o.padding[1] = r.small();
      o.dilation[0] = r.small(), o.dilation[1] = r.small();
      o.groups = r.small();
      o.padding_kind = static_cast<glia_padding_kind>(r.u8() % 4);
      check_out(glia_conv2d(a, b, T(s, r), r.flag() ? &o : nullptr, &out), "glia_conv2d", out);
      break;
    }
    case 6: {
      glia_max_pool2d_options o;
      glia_max_pool2d_options_init(&o);
      o.kernel_size[0] = r.small(), o.kernel_size[1] = r.small();
      o.stride[0] = r.small(), o.stride[1] = r.small();
      o.padding[0] = r.small(), o.padding[1] = r.small();
      o.dilation[0] = r.small(), o.dilation[1] = r.small();
      o.ceil_mode = r.flag();
      check(glia_max_pool2d(a, &o, &out, r.flag() ? &out2 : nullptr), "glia_max_pool2d");
      break;
    }
    case 7: {
      glia_avg_pool2d_options o;
      glia_avg_pool2d_options_init(&o);
      o.kernel_size[0] = r.small(), o.kernel_size[1] = r.small();
      o.stride[0] = r.small(), o.stride[1] = r.small();
      o.padding[0] = r.small(), o.padding[1] = r.small();
      o.ceil_mode = r.flag();
      o.count_include_pad = r.flag();
      o.divisor_override = r.small();
      check_out(glia_avg_pool2d(a, &o, &out), "glia_avg_pool2d", out);
      break;
    }
    case 8: {
      int64_t h = r.small(), w = r.small();
      check_out(glia_adaptive_avg_pool2d(a, h, w, &out), "glia_adaptive_avg_pool2d", out);
      break;
    }
    case 9: {
      glia_tensor* rm = T(s, r);
      glia_tensor* rv = T(s, r);
      check_out(glia_batch_norm(a, rm, rv, b, T(s, r), r.flag(), r.real(), r.real(), &out), "glia_batch_norm", out);
      break;
    }
    case 10: {
      Dims d = dims(r);
      check_out(glia_layer_norm(a, ptr(d), d.n, b, T(s, r), r.real(), &out), "glia_layer_norm", out);
      break;
    }
    case 11: {
      int64_t g = r.small();
      check_out(glia_group_norm(a, g, b, T(s, r), r.real(), &out), "glia_group_norm", out);
      break;
    }
    case 12: {
      int64_t pad = r.small();
      double mn = r.real();
      check_out(glia_embedding(a, b, r.flag() ? &pad : nullptr, r.flag() ? &mn : nullptr, r.real(), &out),
                "glia_embedding", out);
      break;
    }
    case 13:
      check_out(glia_dropout(a, r.real(), r.flag(), &out), "glia_dropout", out);
      break;
    case 14: {
      glia_reduction red = static_cast<glia_reduction>(r.u8() % 4);
      check_out(glia_mse_loss(a, b, red, &out), "glia_mse_loss", out);
      break;
    }
    case 15: {
      glia_reduction red = static_cast<glia_reduction>(r.u8() % 4);
      check_out(glia_smooth_l1_loss(a, b, red, r.real(), &out), "glia_smooth_l1_loss", out);
      break;
    }
    case 16: {
      glia_cross_entropy_options o;
      glia_cross_entropy_options_init(&o);
      o.weight = r.flag() ? T(s, r) : nullptr;
      o.ignore_index = r.small();
      o.reduction = static_cast<glia_reduction>(r.u8() % 4);
      o.label_smoothing = r.real();
      check_out(glia_cross_entropy(a, b, r.flag() ? &o : nullptr, &out), "glia_cross_entropy", out);
      break;
    }
    case 17: {
      glia_nll_loss_options o;
      glia_nll_loss_options_init(&o);
      o.weight = r.flag() ? T(s, r) : nullptr;
      o.ignore_index = r.small();
      o.reduction = static_cast<glia_reduction>(r.u8() % 4);
      check_out(glia_nll_loss(a, b, r.flag() ? &o : nullptr, &out), "glia_nll_loss", out);
      break;
    }
    case 18: {
      glia_reduction red = static_cast<glia_reduction>(r.u8() % 4);
      check_out(glia_binary_cross_entropy(a, b, r.flag() ? T(s, r) : nullptr, red, &out), "glia_binary_cross_entropy",
                out);
      break;
    }
    case 19: {
      double mean[4], stdv[4];
      int64_t nm = r.u8() % 5, ns = r.u8() % 5;
      for (auto& x : mean) x = r.real();
      for (auto& x : stdv) x = r.real();
      check_out(glia_normalize(a, mean, nm, stdv, ns, &out), "glia_normalize", out);
      break;
    }
  }
  keep(s, k, out);
  keep(s, (k + 1) % kT, out2);
}

// ---- queries ---------------------------------------------------------------------------------

void op_query(State& s, Reader& r) {
  glia_tensor* a = T(s, r);
  switch (r.u8() % 12) {
    case 0: {
      int64_t buf[8];
      int64_t cap = r.u8() % 9;
      check(glia_tensor_shape(a, cap, buf), "glia_tensor_shape");
      check(glia_tensor_strides(a, cap, buf), "glia_tensor_strides");
      break;
    }
    case 1: {
      int64_t n;
      int32_t c;
      glia_dtype dt;
      glia_device dev;
      check(glia_tensor_ndim(a, &n), "glia_tensor_ndim");
      check(glia_tensor_storage_offset(a, &n), "glia_tensor_storage_offset");
      check(glia_tensor_is_contiguous(a, &c), "glia_tensor_is_contiguous");
      check(glia_tensor_dtype(a, &dt), "glia_tensor_dtype");
      check(glia_tensor_device(a, &dev), "glia_tensor_device");
      check(glia_tensor_requires_grad(a, &c), "glia_tensor_requires_grad");
      check(glia_tensor_is_leaf(a, &c), "glia_tensor_is_leaf");
      break;
    }
    case 2: {
      double d;
      int64_t i;
      check(glia_tensor_item_double(a, &d), "glia_tensor_item_double");
      check(glia_tensor_item_int64(a, &i), "glia_tensor_item_int64");
      break;
    }
    case 3: {  // copy_to_host into a heap buffer of exactly the size asked (ASan sees an overrun)
      int64_t n = 0;
      glia_dtype dt = GLIA_FLOAT32;
      if (check(glia_tensor_numel(a, &n), "glia_tensor_numel") || check(glia_tensor_dtype(a, &dt), "glia_tensor_dtype"))
        break;
      size_t nbytes = static_cast<size_t>(n) * glia_dtype_size(dt);
      if (r.u8() >= 224) nbytes = r.u8();
      void* buf = std::malloc(nbytes ? nbytes : 1);
      int c = check(glia_tensor_copy_to_host(a, buf, nbytes), "glia_tensor_copy_to_host");
      if (c && nbytes == static_cast<size_t>(n) * glia_dtype_size(dt))
        capi_finding("copy_to_host failed with the right size", "glia_tensor_copy_to_host");
      std::free(buf);
      break;
    }
    case 4: {  // to_string with a small buffer, then the right one
      size_t cap = r.u8() % 40, len = 0;
      char* buf = static_cast<char*>(std::malloc(cap ? cap : 1));
      int c = check(glia_tensor_to_string(a, cap ? buf : nullptr, cap, &len), "glia_tensor_to_string");
      std::free(buf);
      if (c == 0) {
        buf = static_cast<char*>(std::malloc(len + 1));
        size_t len2 = 0;
        check(glia_tensor_to_string(a, buf, len + 1, &len2), "glia_tensor_to_string");
        if (len2 != len || std::strlen(buf) != len) capi_finding("to_string length changed", "glia_tensor_to_string");
        std::free(buf);
      }
      break;
    }
    case 5: {  // data: read the first and last byte of the view's span
      void* p = nullptr;
      int64_t n = 0;
      if (check(glia_tensor_data(a, &p), "glia_tensor_data") == 0 &&
          check(glia_tensor_numel(a, &n), "glia_tensor_numel") == 0 && n > 0) {
        int32_t contig = 0;
        glia_dtype dt;
        if (!check(glia_tensor_is_contiguous(a, &contig), "glia_tensor_is_contiguous") && contig &&
            !check(glia_tensor_dtype(a, &dt), "glia_tensor_dtype")) {
          volatile const uint8_t* q = static_cast<const uint8_t*>(p);
          (void)q[0];
          (void)q[static_cast<size_t>(n) * glia_dtype_size(dt) - 1];
        }
      }
      break;
    }
    case 6: {
      glia_tensor* out = nullptr;
      int k = slot(r);
      check_out(glia_tensor_contiguous(a, &out), "glia_tensor_contiguous", out);
      keep(s, k, out);
      break;
    }
    case 7: {
      glia_tensor* out = nullptr;
      int k = slot(r);
      check_out(glia_tensor_clone(a, &out), "glia_tensor_clone", out);
      keep(s, k, out);
      break;
    }
    case 8: {
      glia_tensor* out = nullptr;
      int k = slot(r);
      check_out(glia_tensor_detach(a, &out), "glia_tensor_detach", out);
      keep(s, k, out);
      break;
    }
    case 9:
      check(glia_tensor_set_requires_grad(a, r.u8() % 3), "glia_tensor_set_requires_grad");
      break;
    case 10: {
      glia_tensor* out = nullptr;
      int k = slot(r);
      check(glia_tensor_grad(a, &out), "glia_tensor_grad");
      keep(s, k, out);
      break;
    }
    case 11: {
      glia_tensor* root = a;
      glia_tensor* g = T(s, r);
      check(glia_tensor_backward(root, r.flag() ? g : nullptr, r.flag()), "glia_tensor_backward");
      break;
    }
  }
}

// ---- modules and hooks ----------------------------------------------------------------------

struct HookData {
  uint8_t mode;
};
HookData* hook_data(Reader& r) {
  ++g_live_hook_data;
  return new HookData{r.u8()};
}
void free_hook_data(void* p) {
  --g_live_hook_data;
  delete static_cast<HookData*>(p);
}

// What a hook does with what it receives (mode % 8): keep, fail, replace with nothing,
// replace with clones, replace with NULLs, claim more than the capacity, a negative count
// other than -1, replace with a tensor of another shape.
glia_error* hook_answer(uint8_t mode, const glia_tensor* const* xs, int64_t n, glia_tensor** rep, int64_t cap,
                        int64_t* count) {
  switch (mode % 8) {
    case 0:
      return nullptr;
    case 1:
      return glia_error_new(static_cast<enum glia_error_code>(mode % 16), mode & 16 ? "fuzz hook failed" : "");
    case 2:
      *count = 0;
      return nullptr;
    case 3:
      *count = std::min(n, cap);
      for (int64_t i = 0; i < *count; ++i) {
        rep[i] = nullptr;
        if (xs[i]) {
          glia_error* e = glia_tensor_clone(xs[i], &rep[i]);
          if (e) glia_error_free(e);
        }
      }
      return nullptr;
    case 4:
      *count = std::min(n, cap);
      for (int64_t i = 0; i < *count; ++i) rep[i] = nullptr;
      return nullptr;
    case 5:
      *count = cap + 1;
      return nullptr;
    case 6:
      *count = -5;
      return nullptr;
    default: {
      *count = n > 0 ? 1 : 0;
      if (*count) {
        int64_t sh[1] = {3};
        glia_error* e = glia_tensor_zeros(sh, 1, nullptr, &rep[0]);
        if (e) glia_error_free(e), rep[0] = nullptr;
      }
      return nullptr;
    }
  }
}

glia_error* fwd_pre_hook(void* ud, glia_module*, const glia_tensor* const* in, int64_t n, glia_tensor** rep,
                         int64_t cap, int64_t* count) {
  return hook_answer(static_cast<HookData*>(ud)->mode, in, n, rep, cap, count);
}
glia_error* fwd_hook(void* ud, glia_module*, const glia_tensor* const*, int64_t, const glia_tensor* const* outs,
                     int64_t n_outs, glia_tensor** rep, int64_t cap, int64_t* count) {
  return hook_answer(static_cast<HookData*>(ud)->mode, outs, n_outs, rep, cap, count);
}
glia_error* bwd_pre_hook(void* ud, glia_module*, const glia_tensor* const* go, int64_t n, glia_tensor** rep,
                         int64_t cap, int64_t* count) {
  return hook_answer(static_cast<HookData*>(ud)->mode, go, n, rep, cap, count);
}
glia_error* bwd_hook(void* ud, glia_module*, const glia_tensor* const* gi, int64_t n_gi, const glia_tensor* const*,
                     int64_t, glia_tensor** rep, int64_t cap, int64_t* count) {
  return hook_answer(static_cast<HookData*>(ud)->mode, gi, n_gi, rep, cap, count);
}
glia_error* sd_hook(void* ud, glia_module*, glia_tensor_dict* dict, const char* prefix) {
  uint8_t mode = static_cast<HookData*>(ud)->mode;
  if (mode % 4 == 1) return glia_error_new(GLIA_ERR_STATE, "fuzz state dict hook failed");
  if (mode % 4 == 2) {
    glia_error* e = glia_tensor_dict_remove(dict, (std::string(prefix) + "weight").c_str());
    if (e) glia_error_free(e);
  }
  if (mode % 4 == 3) {
    glia_error* e = glia_tensor_dict_set_metadata(dict, "fuzz", prefix);
    if (e) glia_error_free(e);
  }
  return nullptr;
}
glia_error* load_hook(void* ud, glia_module*, glia_load_report* rep) {
  uint8_t mode = static_cast<HookData*>(ud)->mode;
  if (mode % 3 == 1) return glia_error_new(GLIA_ERR_STATE, "fuzz load hook failed");
  if (mode % 3 == 2) {
    glia_error* e = glia_load_report_remove(rep, GLIA_KEYS_MISSING, "weight");
    if (e) glia_error_free(e);
  }
  return nullptr;
}

void op_module_new(State& s, Reader& r) {
  glia_module* out = nullptr;
  int k = r.u8() % kM;
  glia_factory_options f;
  glia_factory_options_init(&f);
  f.dtype = r.float_dtype();
  f.skip_init = r.flag();
  const glia_factory_options* fo = r.flag() ? &f : nullptr;
  switch (r.u8() % 10) {
    case 0: {
      int64_t in = r.small(), o = r.small();
      check_out(glia_nn_linear(in, o, r.flag(), fo, &out), "glia_nn_linear", out);
      break;
    }
    case 1: {
      glia_nn_conv2d_options o;
      glia_nn_conv2d_options_init(&o);
      int64_t ci = r.small(), co = r.small(), kh = r.small(), kw = r.small();
      o.stride[0] = r.small(), o.stride[1] = r.small();
      o.padding[0] = r.small(), o.padding[1] = r.small();
      o.dilation[0] = r.small(), o.dilation[1] = r.small();
      o.groups = r.small();
      o.bias = r.flag();
      o.padding_kind = static_cast<glia_padding_kind>(r.u8() % 4);
      o.padding_mode = static_cast<glia_pad_mode>(r.u8() % 5);
      check_out(glia_nn_conv2d(ci, co, kh, kw, r.flag() ? &o : nullptr, fo, &out), "glia_nn_conv2d", out);
      break;
    }
    case 2:
      check_out(glia_nn_relu(fo, &out), "glia_nn_relu", out);
      break;
    case 3:
      check_out(glia_nn_tanh(fo, &out), "glia_nn_tanh", out);
      break;
    case 4: {
      int64_t a = r.small(), b = r.small();
      check_out(glia_nn_flatten(a, b, fo, &out), "glia_nn_flatten", out);
      break;
    }
    case 5:
      check_out(glia_nn_dropout(r.real(), fo, &out), "glia_nn_dropout", out);
      break;
    case 6: {
      glia_batch_norm_options o;
      glia_batch_norm_options_init(&o);
      o.eps = r.real();
      o.momentum = r.real();
      o.momentum_none = r.flag();
      o.affine = r.flag();
      o.track_running_stats = r.flag();
      int64_t nf = r.small();
      check_out(glia_nn_batch_norm2d(nf, r.flag() ? &o : nullptr, fo, &out), "glia_nn_batch_norm2d", out);
      break;
    }
    case 7: {
      Dims d = dims(r);
      check_out(glia_nn_layer_norm(ptr(d), d.n, r.real(), r.flag(), r.flag(), fo, &out), "glia_nn_layer_norm", out);
      break;
    }
    case 8: {
      int64_t n = r.small(), dim = r.small(), pad = r.small();
      double mn = r.real();
      check_out(glia_nn_embedding(n, dim, r.flag() ? &pad : nullptr, r.flag() ? &mn : nullptr, r.real(), fo, &out),
                "glia_nn_embedding", out);
      break;
    }
    case 9: {
      glia_module* ms[4];
      int64_t n = r.u8() % 5;
      for (int64_t i = 0; i < n; ++i) ms[i] = M(s, r);
      check_out(glia_nn_sequential(n ? ms : nullptr, n, &out), "glia_nn_sequential", out);
      break;
    }
  }
  keep_module(s, k, out);
}

void op_module_use(State& s, Reader& r) {
  glia_module* m = M(s, r);
  switch (r.u8() % 16) {
    case 0:
    case 1: {  // forward
      const glia_tensor* in[3];
      int64_t n = r.u8() % 4;
      for (int64_t i = 0; i < n; ++i) in[i] = T(s, r);
      glia_tensor* outs[GLIA_MODULE_MAX_OUTPUTS] = {};
      int64_t cap = r.u8() < 200 ? 2 : r.u8() % 3, count = -7;
      int k = slot(r);
      int c = check(glia_module_forward(m, n ? in : nullptr, n, outs, cap, &count), "glia_module_forward");
      if (c == 0) {
        if (count < 0 || count > cap) capi_finding("forward count out of range", "glia_module_forward");
        for (int64_t i = 0; i < count; ++i) keep(s, (k + i) % kT, outs[i]);
      } else {
        for (auto* o : outs)
          if (o) capi_finding("a failed forward wrote outputs", "glia_module_forward");
      }
      break;
    }
    case 2: {  // hooks
      uint64_t id = 0;
      HookData* ud = hook_data(r);
      uint32_t flags = r.u8() % 5;
      int c = 0;
      switch (r.u8() % 6) {
        case 0:
          c = check(glia_module_add_forward_pre_hook(m, fwd_pre_hook, ud, free_hook_data, flags, &id),
                    "glia_module_add_forward_pre_hook");
          break;
        case 1:
          c = check(glia_module_add_forward_hook(m, fwd_hook, ud, free_hook_data, flags, &id),
                    "glia_module_add_forward_hook");
          break;
        case 2:
          c = check(glia_module_add_backward_pre_hook(m, bwd_pre_hook, ud, free_hook_data, flags, &id),
                    "glia_module_add_backward_pre_hook");
          break;
        case 3:
          c = check(glia_module_add_backward_hook(m, bwd_hook, ud, free_hook_data, flags, &id),
                    "glia_module_add_backward_hook");
          break;
        case 4:
          c = check(glia_module_add_state_dict_hook(m, sd_hook, ud, free_hook_data, &id),
                    "glia_module_add_state_dict_hook");
          break;
        case 5:
          c = check(glia_module_add_load_state_dict_post_hook(m, load_hook, ud, free_hook_data, &id),
                    "glia_module_add_load_state_dict_post_hook");
          break;
      }
      if (c == 0) s.hooks[s.next_hook++ % 8] = id;
      break;
    }
    case 3: {
      uint8_t b = r.u8();
      uint64_t id = b < 240 ? s.hooks[b % 8] : r.u64();
      check(glia_module_remove_hook(m, id), "glia_module_remove_hook");
      break;
    }
    case 4: {
      glia_tensor_dict* out = nullptr;
      int k = r.u8() % kD;
      check_out(glia_module_state_dict(m, &out), "glia_module_state_dict", out);
      keep_dict(s, k, out);
      break;
    }
    case 5: {
      glia_load_report* rep = nullptr;
      glia_tensor_dict* d = D(s, r);
      int32_t strict = r.flag(), assign = r.flag();
      int c = check(glia_module_load_state_dict(m, d, strict, assign, r.flag() ? &rep : nullptr),
                    "glia_module_load_state_dict");
      if (rep) {
        if (c) capi_finding("a failed load wrote a report", "glia_module_load_state_dict");
        int64_t n = 0;
        char buf[64];
        size_t len;
        check(glia_load_report_count(rep, static_cast<glia_report_keys>(r.u8() % 3), &n), "glia_load_report_count");
        check(glia_load_report_key(rep, GLIA_KEYS_MISSING, r.small(), buf, sizeof buf, &len), "glia_load_report_key");
        glia::fuzz::must_release(glia_load_report_release(rep), "glia_load_report_release");
      }
      break;
    }
    case 6:
      check(glia_module_train(m, r.u8() % 3), "glia_module_train");
      break;
    case 7:
      check(glia_module_zero_grad(m, r.flag()), "glia_module_zero_grad");
      break;
    case 8:
      check(glia_module_requires_grad(m, r.u8() % 3), "glia_module_requires_grad");
      break;
    case 9: {
      size_t cap = r.u8() % 64, len = 0;
      char* buf = static_cast<char*>(std::malloc(cap ? cap : 1));
      check(glia_module_to_string(m, cap ? buf : nullptr, cap, &len), "glia_module_to_string");
      std::free(buf);
      break;
    }
    case 10: {
      glia_tensor* out = nullptr;
      int k = slot(r);
      check_out(glia_module_get_parameter(m, word(r), &out), "glia_module_get_parameter", out);
      keep(s, k, out);
      break;
    }
    case 11: {
      glia_tensor_dict* out = nullptr;
      int k = r.u8() % kD;
      check_out(glia_module_named_parameters(m, word(r), r.flag(), r.flag(), &out), "glia_module_named_parameters",
                out);
      keep_dict(s, k, out);
      break;
    }
    case 12:
      check(glia_nn_sequential_append(m, M(s, r)), "glia_nn_sequential_append");
      break;
    case 13:
      check(glia_nn_sequential_insert(m, r.small(), M(s, r)), "glia_nn_sequential_insert");
      break;
    case 14: {
      glia_module* out = nullptr;
      int k = r.u8() % kM;
      if (r.flag())
        check_out(glia_nn_sequential_get(m, r.small(), &out), "glia_nn_sequential_get", out);
      else
        check_out(glia_nn_sequential_pop(m, r.small(), &out), "glia_nn_sequential_pop", out);
      keep_module(s, k, out);
      break;
    }
    case 15: {
      glia_dtype dt = r.float_dtype();
      check(glia_module_to(m, nullptr, r.flag() ? &dt : nullptr), "glia_module_to");
      break;
    }
  }
}

// ---- tensor dicts -------------------------------------------------------------------------

void op_dict(State& s, Reader& r) {
  int k = r.u8() % kD;
  glia_tensor_dict* d = D(s, r);
  switch (r.u8() % 9) {
    case 0: {
      glia_tensor_dict* out = nullptr;
      check_out(glia_tensor_dict_create(&out), "glia_tensor_dict_create", out);
      keep_dict(s, k, out);
      break;
    }
    case 1:
      check(glia_tensor_dict_set(d, word(r), T(s, r)), "glia_tensor_dict_set");
      break;
    case 2:
      check(glia_tensor_dict_remove(d, word(r)), "glia_tensor_dict_remove");
      break;
    case 3: {
      glia_tensor* out = nullptr;
      int t = slot(r);
      if (r.flag())
        check_out(glia_tensor_dict_get(d, word(r), &out), "glia_tensor_dict_get", out);
      else
        check_out(glia_tensor_dict_value_at(d, r.small(), &out), "glia_tensor_dict_value_at", out);
      keep(s, t, out);
      break;
    }
    case 4: {
      char buf[16];
      size_t len = 0, cap = r.u8() % 17;
      int64_t n = 0;
      check(glia_tensor_dict_size(d, &n), "glia_tensor_dict_size");
      check(glia_tensor_dict_key_at(d, r.small(), cap ? buf : nullptr, cap, &len), "glia_tensor_dict_key_at");
      break;
    }
    case 5:
      check(glia_tensor_dict_set_metadata(d, word(r), word(r)), "glia_tensor_dict_set_metadata");
      break;
    case 6:
    case 7: {  // save to memory and load back, in either format; or load program bytes
      void* data = nullptr;
      size_t size = 0;
      glia_format fmt = static_cast<glia_format>(r.u8() % 4);
      glia_tensor_dict* out = nullptr;
      if (check(glia_tensor_dict_save_buffer(d, fmt, &data, &size), "glia_tensor_dict_save_buffer") == 0) {
        if (size && r.u8() >= 200) static_cast<uint8_t*>(data)[r.u16() % size] ^= r.u8();  // a flipped byte
        check_out(glia_tensor_dict_load_buffer(data, size, static_cast<glia_format>(r.u8() % 4), &out),
                  "glia_tensor_dict_load_buffer", out);
        glia_buffer_free(data);
      } else if (data) {
        capi_finding("a failed save wrote a buffer", "glia_tensor_dict_save_buffer");
      }
      keep_dict(s, k, out);
      break;
    }
    case 8: {
      glia_tensor_dict* out = nullptr;
      int64_t n = r.u8();
      std::vector<uint8_t> bytes(n);
      for (auto& x : bytes) x = r.u8();
      check_out(glia_tensor_dict_load_buffer(bytes.data(), bytes.size(), GLIA_FORMAT_AUTO, &out),
                "glia_tensor_dict_load_buffer", out);
      keep_dict(s, k, out);
      break;
    }
  }
}

// ---- optimizers ------------------------------------------------------------------------------

void op_optim(State& s, Reader& r) {
  int k = r.u8() % kO;
  glia_optimizer* o = O(s, r);
  switch (r.u8() % 10) {
    case 0:
    case 1: {
      glia_tensor* ps[4];
      int64_t n = r.u8() % 5;
      for (int64_t i = 0; i < n; ++i) ps[i] = T(s, r);
      glia_optimizer* out = nullptr;
      bool opts = r.u8() < 200;
      switch (r.u8() % 4) {
        case 0: {
          glia_sgd_options so;
          glia_sgd_options_init(&so);
          so.lr = r.real(), so.momentum = r.real(), so.dampening = r.real(), so.weight_decay = r.real();
          so.nesterov = r.flag(), so.maximize = r.flag();
          check_out(glia_optim_sgd(n ? ps : nullptr, n, opts ? &so : nullptr, &out), "glia_optim_sgd", out);
          break;
        }
        case 1:
        case 2: {
          glia_adam_options ao;
          glia_adam_options_init(&ao);
          ao.lr = r.real(), ao.betas[0] = r.real(), ao.betas[1] = r.real(), ao.eps = r.real(),
          ao.weight_decay = r.real(), ao.amsgrad = r.flag(), ao.maximize = r.flag();
          if (r.flag())
            check_out(glia_optim_adam(n ? ps : nullptr, n, opts ? &ao : nullptr, &out), "glia_optim_adam", out);
          else
            check_out(glia_optim_adamw(n ? ps : nullptr, n, opts ? &ao : nullptr, &out), "glia_optim_adamw", out);
          break;
        }
        case 3: {
          glia_rmsprop_options ro;
          glia_rmsprop_options_init(&ro);
          ro.lr = r.real(), ro.alpha = r.real(), ro.eps = r.real(), ro.weight_decay = r.real(), ro.momentum = r.real(),
          ro.centered = r.flag(), ro.maximize = r.flag();
          check_out(glia_optim_rmsprop(n ? ps : nullptr, n, opts ? &ro : nullptr, &out), "glia_optim_rmsprop", out);
          break;
        }
      }
      keep_optimizer(s, k, out);
      break;
    }
    case 2:
    case 3:
      check(glia_optimizer_step(o), "glia_optimizer_step");
      break;
    case 4:
      check(glia_optimizer_zero_grad(o, r.flag()), "glia_optimizer_zero_grad");
      break;
    case 5:
      check(glia_optimizer_set_lr(o, r.small(), r.real()), "glia_optimizer_set_lr");
      break;
    case 6: {
      double v = 0;
      int64_t g = r.small();
      const char* name = word(r);
      check(glia_optimizer_get_option(o, g, name, &v), "glia_optimizer_get_option");
      check(glia_optimizer_set_option(o, g, name, r.real()), "glia_optimizer_set_option");
      break;
    }
    case 7: {
      glia_tensor_dict* out = nullptr;
      int kd = r.u8() % kD;
      check_out(glia_optimizer_state_dict(o, &out), "glia_optimizer_state_dict", out);
      keep_dict(s, kd, out);
      break;
    }
    case 8:
      check(glia_optimizer_load_state_dict(o, D(s, r)), "glia_optimizer_load_state_dict");
      break;
    case 9: {
      glia_tensor* ps[3];
      int64_t n = r.u8() % 4;
      for (int64_t i = 0; i < n; ++i) ps[i] = T(s, r);
      glia_sgd_options so;
      glia_sgd_options_init(&so);
      so.lr = r.real();
      check(glia_optimizer_add_param_group(o, n ? ps : nullptr, n, r.flag() ? &so : nullptr),
            "glia_optimizer_add_param_group");
      double total = 0;
      check(glia_nn_utils_clip_grad_norm_(n ? ps : nullptr, n, r.real(), r.real(), r.flag(), &total),
            "glia_nn_utils_clip_grad_norm_");
      break;
    }
  }
}

// ---- handles ------------------------------------------------------------------------------------

void op_handles(State& s, Reader& r) {
  switch (r.u8() % 8) {
    case 0:
      drop_tensor(s, slot(r));
      break;
    case 1:
      drop_module(s, r.u8() % kM);
      break;
    case 2:
      drop_optimizer(s, r.u8() % kO);
      break;
    case 3:
      drop_dict(s, r.u8() % kD);
      break;
    case 4: {  // releasing a released handle, as any type
      void* h = s.dead[r.u8() % kDead];
      if (!h) break;
      int c;
      switch (r.u8() % 4) {
        case 0:
          c = check(glia_tensor_release(static_cast<glia_tensor*>(h)), "glia_tensor_release");
          break;
        case 1:
          c = check(glia_module_release(static_cast<glia_module*>(h)), "glia_module_release");
          break;
        case 2:
          c = check(glia_optimizer_release(static_cast<glia_optimizer*>(h)), "glia_optimizer_release");
          break;
        default:
          c = check(glia_tensor_dict_release(static_cast<glia_tensor_dict*>(h)), "glia_tensor_dict_release");
          break;
      }
      if (c != GLIA_ERR_INVALID_HANDLE) capi_finding("a double release was not GLIA_ERR_INVALID_HANDLE", "release");
      break;
    }
    case 5: {  // NULL is accepted; a made-up token is not (unless it happens to be live)
      if (check(glia_tensor_release(nullptr), "glia_tensor_release")) capi_finding("release(NULL) failed", "release");
      uint64_t tok = r.u64();
      if (!holds(s, reinterpret_cast<void*>(tok)) && tok > 0xffffffffu)
        check(glia_module_retain(reinterpret_cast<glia_module*>(tok)), "glia_module_retain");
      break;
    }
    case 6: {  // a second reference in another slot
      int from = slot(r), to = slot(r);
      if (!s.t[from] || from == to) break;
      if (check(glia_tensor_retain(s.t[from]), "glia_tensor_retain"))
        capi_finding("retain of a live tensor failed", "retain");
      keep(s, to, s.t[from]);
      break;
    }
    case 7: {
      uint8_t b = r.u8();
      if (b < 128)
        glia_grad_mode_set(b & 1);
      else if (b < 160)
        glia_inference_mode_set(b & 1);
      else
        glia_manual_seed(b);
      break;
    }
  }
}

void run(Reader& r) {
  State s;
  int budget = 256;
  while (!r.done() && budget-- > 0) {
    uint8_t op = r.u8();
    if (glia::fuzz::trace()) std::fprintf(stderr, "-- op %d at byte %zu\n", op % 16, r.i - 1);
    switch (op % 16) {
      case 0:
        op_factory(s, r);
        break;
      case 1:
        op_like(s, r);
        break;
      case 2:
        op_view(s, r);
        break;
      case 3:
        op_shape(s, r);
        break;
      case 4:
        op_binary(s, r);
        break;
      case 5:
        op_unary(s, r);
        break;
      case 6:
        op_scalar(s, r);
        break;
      case 7:
        op_inplace(s, r);
        break;
      case 8:
        op_reduce(s, r);
        break;
      case 9:
        op_nn(s, r);
        break;
      case 10:
        op_query(s, r);
        break;
      case 11:
        op_module_new(s, r);
        break;
      case 12:
        op_module_use(s, r);
        break;
      case 13:
        op_dict(s, r);
        break;
      case 14:
        op_optim(s, r);
        break;
      case 15:
        op_handles(s, r);
        break;
    }
  }
  glia_grad_mode_set(1);
  glia_inference_mode_set(0);
  for (int i = 0; i < kO; ++i) drop_optimizer(s, i);
  for (int i = 0; i < kD; ++i) drop_dict(s, i);
  for (int i = 0; i < kM; ++i) drop_module(s, i);
  // A leaf's .grad made with create_graph would hold the graph that holds the leaf (torch's cycle).
  for (int i = 0; i < kT; ++i)
    if (s.t[i]) check(glia_tensor_set_grad(s.t[i], nullptr), "glia_tensor_set_grad");
  for (int i = 0; i < kT; ++i) drop_tensor(s, i);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  glia::fuzz::install_cap_allocator();
  if (glia_error* e = glia_set_num_threads(1)) glia_error_free(e);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  run(r);
  glia::fuzz::check_nothing_live("capi");
  if (g_live_blobs != 0) capi_finding("a blob deleter did not run exactly once", "glia_tensor_from_blob");
  if (g_live_hook_data != 0) capi_finding("a hook's free_user_data did not run exactly once", "hooks");
  return 0;
}
