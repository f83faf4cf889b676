// torch.nn.functional.pad: constant (torch's constant_pad_nd, negative pads
// crop: a fill and a copy) and reflect / replicate / circular (torch 1.13's
// checks), one copy kernel driven by per-dim source index maps, and its
// backward kernel. Meta parts (glia::ops) and CPU kernels (glia::cpu).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/checked.h"
#include "core/dispatch.h"
#include "core/scalar.h"
#include "ops/cpu/loops.h"
#include "ops/index.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

const char* mode_name(PadMode m) {
  switch (m) {
    case PadMode::Reflect:
      return "reflect";
    case PadMode::Replicate:
      return "replicate";
    case PadMode::Circular:
      return "circular";
    default:
      return "constant";
  }
}

// "[ torch.FloatTensor{1,2,0} ]" as torch prints a tensor's type and sizes in its checks.
std::string tensor_desc(const Tensor& t) {
  std::string s = std::string("[ torch.") + scalar_type_name(t.dtype()) + "Tensor{";
  for (int64_t d = 0; d < t.dim(); ++d) s += (d ? "," : "") + std::to_string(t.shape()[d]);
  return s + "} ]";
}

// Source index along one dim for each output position (-1: none).
std::vector<int64_t> index_map(PadMode mode, int64_t size, int64_t pl, int64_t pr, int64_t out) {
  // circular (torch's _pad_circular): the cropped centre [c_lo, c_lo + len) repeats with period len.
  const int64_t c_lo = std::max<int64_t>(-pl, 0), len = size - c_lo - std::max<int64_t>(-pr, 0);
  std::vector<int64_t> m(static_cast<size_t>(std::max<int64_t>(out, 0)));
  for (int64_t o = 0; o < out; ++o) {
    int64_t i = o - pl;
    if (mode == PadMode::Reflect) {
      if (i < 0) i = -i;
      if (i >= size) i = 2 * (size - 1) - i;
    } else if (mode == PadMode::Replicate) {
      i = std::min(std::max<int64_t>(i, 0), size - 1);
    } else {
      i = len > 0 ? c_lo + ((o - std::max<int64_t>(pl, 0)) % len + len) % len : 0;
    }
    m[static_cast<size_t>(o)] = i;
  }
  return m;
}

struct PadGeom {
  int64_t k = 0;                // padded dims (1..3)
  int64_t planes = 1;           // product of the leading dims
  Dims in, out;                 // sizes of the k padded dims
  std::vector<int64_t> map[3];  // per padded dim
};

PadGeom geometry(IntSpan in_shape, IntSpan pad, PadMode mode) {
  PadGeom g;
  int64_t nd = static_cast<int64_t>(in_shape.size());
  g.k = static_cast<int64_t>(pad.size()) / 2;
  for (int64_t d = 0; d < nd - g.k; ++d) g.planes *= in_shape[d];
  for (int64_t j = 0; j < g.k; ++j) {
    int64_t d = nd - g.k + j;
    int64_t pi = 2 * (g.k - 1 - j);
    int64_t size = in_shape[d], o = size + pad[pi] + pad[pi + 1];
    g.in.push_back(size);
    g.out.push_back(o);
    g.map[j] = index_map(mode, size, pad[pi], pad[pi + 1], o);
  }
  return g;
}

void check_non_constant(const Tensor& t, IntSpan pad, PadMode mode) {
  int64_t nd = t.dim(), k = static_cast<int64_t>(pad.size()) / 2;
  auto sz = [&](int64_t d) { return t.shape()[d]; };
  if (mode == PadMode::Circular) {
    GLIA_CHECK(static_cast<int64_t>(pad.size()) + 4 == nd * 2, InvalidArgument, "Invalid padding size, expected ",
               (nd - 2) * 2, " but got ", pad.size());
    for (int64_t i = 0; i < k; ++i) {
      int64_t pl = pad[2 * (k - i - 1)], pr = pad[2 * (k - i - 1) + 1], size = sz(2 + i);
      GLIA_CHECK(pl <= size && pr <= size, InvalidArgument, "Padding value causes wrapping around more than once.");
      GLIA_CHECK(size + pl + pr >= 0, InvalidArgument, "Negative padding value is resulting in an empty dimension");
    }
    return;
  }
  const bool batch = nd == k + 2;
  if (mode == PadMode::Reflect && k == 1) {
    GLIA_CHECK((nd == 2 && sz(1) != 0) || (nd == 3 && sz(1) != 0 && sz(2) != 0), Shape,
               "2D or 3D (batch mode) tensor expected for input, but got: ", tensor_desc(t));
  } else if (mode == PadMode::Reflect && k == 2) {
    bool valid = sz(1) != 0 && sz(2) != 0;
    GLIA_CHECK((nd == 3 && valid) || (nd == 4 && valid && sz(3) != 0), Shape,
               "3D or 4D (batch mode) tensor expected for input, but got: ", tensor_desc(t));
  } else {
    bool ok = true;
    for (int64_t d = batch ? 1 : 0; d < nd; ++d) ok = ok && sz(d) != 0;
    GLIA_CHECK(ok, Shape, "Expected ", k + 1, "D or ", k + 2,
               "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: ",
               t.shape());
  }
  GLIA_CHECK(t.dtype() == DType::Float32 || t.dtype() == DType::Float64, DType, "\"",
             mode == PadMode::Reflect ? "reflection_pad" : "replication_pad", k,
             mode == PadMode::Reflect ? "d" : "d_cpu", "\" not implemented for '", scalar_type_name(t.dtype()), "'");
  if (mode == PadMode::Reflect) {
    static const char* arg[] = {"#4", "#6", "#8"};
    for (int64_t j = 0; j < k; ++j) {  // j = 0: the last dim
      int64_t d = nd - 1 - j;
      int64_t pl = pad[2 * j], pr = pad[2 * j + 1], size = sz(d);
      if (k == 2) {
        GLIA_CHECK(pl < size && pr < size, InvalidArgument, "Argument ", arg[j],
                   ": Padding size should be less than the corresponding input dimension, but got: padding (", pl, ", ",
                   pr, ") at dimension ", d, " of input ", nd);
      } else {
        GLIA_CHECK(pl < size && pr < size, InvalidArgument, "Argument ", arg[j],
                   ": Padding size should be less than the corresponding input dimension, but got: padding (", pl, ", ",
                   pr, ") at dimension ", d, " of input ", t.shape());
      }
    }
  }
  // Output sizes of the padded dims, outermost first; torch's "too small" checks (1-D: the size must be >= 1;
  // 2-D / 3-D: at least one of them), then no size may be negative.
  Dims o;
  for (int64_t j = 0; j < k; ++j) {
    int64_t d = nd - k + j, pi = 2 * (k - 1 - j);
    o.push_back(sz(d) + pad[pi] + pad[pi + 1]);
  }
  const int64_t w = sz(nd - 1), ow = o[k - 1];
  if (k == 1) {
    GLIA_CHECK(ow >= 1, Shape, "input (W: ", w, mode == PadMode::Reflect ? ")is" : ") is",
               " too small. Calculated output W: ", ow);
  } else {
    bool any = false;
    for (int64_t v : o) any = any || v >= 1;
    const int64_t h = sz(nd - 2), oh = o[k - 2];
    if (k == 2) {
      GLIA_CHECK(any, Shape, "input (H: ", h, ", W: ", w, mode == PadMode::Reflect ? ")is" : " ) is",
                 " too small. Calculated output H: ", oh, " W: ", ow);
    } else {
      GLIA_CHECK(any, Shape, "input (D: ", sz(nd - 3), " H: ", h, ", W: ", w,
                 ") is too small. Calculated output D: ", o[0], " H: ", oh, " W: ", ow);
    }
  }
  for (int64_t v : o)
    GLIA_CHECK(v >= 0, Shape, "Trying to create tensor with negative dimension ", v, ": padded sizes ", o);
}

// out[p, o...] = in[p, map(o)...] for contiguous in/out.
template <class U>
void pad_copy(const U* in, U* out, const PadGeom& g) {
  const int64_t k = g.k;
  const int64_t ow = g.out[k - 1], iw = g.in[k - 1];
  const int64_t oh = k >= 2 ? g.out[k - 2] : 1, od = k >= 3 ? g.out[0] : 1;
  const int64_t ih = k >= 2 ? g.in[k - 2] : 1, id = k >= 3 ? g.in[0] : 1;
  const std::vector<int64_t>& mw = g.map[k - 1];
  // The interior run where the map is the identity shifted: copied with memcpy.
  int64_t lo = 0, hi = 0;
  // The longest run where mw[o] - o is constant (the interior).
  for (int64_t o = 0; o < ow;) {
    int64_t e = o + 1;
    while (e < ow && mw[e] - e == mw[o] - o) ++e;
    if (e - o > hi - lo) {
      lo = o;
      hi = e;
    }
    o = e;
  }
  const int64_t rows = g.planes * od * oh;
  parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(ow, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      int64_t h = r % oh, rest = r / oh;
      int64_t dd = rest % od, p = rest / od;
      int64_t sh = k >= 2 ? g.map[k - 2][h] : 0;
      int64_t sd = k >= 3 ? g.map[0][dd] : 0;
      const U* src = in + ((p * id + sd) * ih + sh) * iw;
      U* dst = out + r * ow;
      for (int64_t o = 0; o < lo; ++o) dst[o] = src[mw[o]];
      if (hi > lo) std::memcpy(dst + lo, src + mw[lo], static_cast<size_t>(hi - lo) * sizeof(U));
      for (int64_t o = hi; o < ow; ++o) dst[o] = src[mw[o]];
    }
  });
}

}  // namespace

Tensor pad(const Tensor& t, IntSpan pad, PadMode mode, double value) {
  const int64_t nd = t.dim();
  GLIA_CHECK(pad.size() % 2 == 0, InvalidArgument, "Padding length must be divisible by 2");
  GLIA_CHECK(static_cast<int64_t>(pad.size()) <= nd * 2, InvalidArgument, "Padding length too large");
  // Note [Checked sizes]: every padded size, and every negated padding, below fits in int64.
  for (size_t pi = 0; pi < pad.size(); pi += 2) {
    const int64_t size = t.shape()[static_cast<size_t>(nd) - 1 - pi / 2];
    (void)(Checked(size, "pad") + pad[pi] + pad[pi + 1]);
    (void)(Checked(0, "pad") - pad[pi] - pad[pi + 1]);
  }
  if (mode == PadMode::Constant) {
    const int64_t lp = static_cast<int64_t>(pad.size()) / 2, ldiff = nd - lp;
    Tensor c = t;
    bool non_positive = true;
    for (int64_t i = ldiff; i < nd; ++i) {
      int64_t pi = 2 * (nd - i - 1);
      if (pad[pi] < 0)
        c = narrow(c, i, -pad[pi], c.shape()[i] + pad[pi]);
      else if (pad[pi] != 0)
        non_positive = false;
      if (pad[pi + 1] < 0)
        c = narrow(c, i, 0, c.shape()[i] + pad[pi + 1]);
      else if (pad[pi + 1] != 0)
        non_positive = false;
    }
    if (non_positive) return clone(c);
    Scalar::from_fill_value(value).check_fits(t.dtype());  // torch's fill_ check
    Dims shape;
    for (int64_t i = 0; i < ldiff; ++i) shape.push_back(t.shape()[i]);
    for (int64_t i = 0; i < lp; ++i) {
      int64_t pi = static_cast<int64_t>(pad.size()) - (i + 1) * 2;
      int64_t n = t.shape()[ldiff + i] + pad[pi] + pad[pi + 1];
      GLIA_CHECK(n > 0, Shape, "The input size ", t.shape()[ldiff + i], ", plus negative padding ", pad[pi], " and ",
                 pad[pi + 1], " resulted in a negative output size, which is invalid. Check dimension ", ldiff + i,
                 " of your input.");
      shape.push_back(n);
    }
    Tensor out = empty(shape, t.dtype(), t.device());
    fill(out, value);
    Tensor co = out;
    for (int64_t i = ldiff; i < nd; ++i) {
      int64_t pi = 2 * (nd - i - 1);
      if (pad[pi] > 0) co = narrow(co, i, pad[pi], co.shape()[i] - pad[pi]);
      if (pad[pi + 1] > 0) co = narrow(co, i, 0, co.shape()[i] - pad[pi + 1]);
    }
    copy_strided(co, c);
    return out;
  }
  GLIA_CHECK(value == 0, InvalidArgument, "Padding mode \"", mode_name(mode), "\" doesn't take in value argument");
  const int64_t k = static_cast<int64_t>(pad.size()) / 2;
  bool supported =
      (k == 1 && (nd == 2 || nd == 3)) || (k == 2 && (nd == 3 || nd == 4)) || (k == 3 && (nd == 4 || nd == 5));
  GLIA_CHECK(supported, Unsupported, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  check_non_constant(t, pad, mode);
  // The output first: its allocation refuses a huge size before the index maps (one entry per
  // output position along each padded dim) are built.
  Dims shape = t.shape();
  for (int64_t j = 0; j < k; ++j) {
    const int64_t pi = 2 * (k - 1 - j);
    shape[nd - k + j] = t.shape()[nd - k + j] + pad[pi] + pad[pi + 1];  // checked above
  }
  Tensor out = empty(shape, t.dtype(), t.device());
  if (out.numel() == 0) return out;
  Tensor c = contiguous(t);
  run_kernel(KernelId::pad, t.device(), {&c}, {&out}, {attr_ints(pad), attr_i(static_cast<int64_t>(mode))});
  return out;
}

Tensor pad_backward(const Tensor& grad, IntSpan in_shape, IntSpan pad, PadMode mode) {
  Tensor gi = empty(in_shape, grad.dtype(), grad.device());
  if (gi.numel() == 0) return gi;
  if (grad.numel() == 0) {
    fill(gi, 0.0);
    return gi;
  }
  Tensor gc = contiguous(grad);
  run_kernel(KernelId::pad_backward, grad.device(), {&gc}, {&gi}, {attr_ints(pad), attr_i(static_cast<int64_t>(mode))});
  return gi;
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

namespace {
ops::PadGeom pad_geometry(const Tensor& in, const KernelArgs& k) {
  const Attr& p = k.attr(0);
  return ops::geometry(in.shape(), IntSpan(p.ints, static_cast<size_t>(p.n_ints)), static_cast<PadMode>(k.attr(1).i));
}
}  // namespace

void pad_kernel(const KernelArgs& k) {
  const Tensor &c = k.input(0), &out = k.output(0);
  const ops::PadGeom g = pad_geometry(c, k);
  ops::dispatch_size(itemsize(c.dtype()), [&](auto tag) {
    using U = decltype(tag);
    ops::pad_copy(static_cast<const U*>(c.data()), static_cast<U*>(out.data()), g);
  });
}

void pad_backward_kernel(const KernelArgs& k) {
  const Tensor &gc = k.input(0), &gi = k.output(0);
  const ops::PadGeom g = pad_geometry(gi, k);
  const int64_t kd = g.k;
  const int64_t ow = g.out[kd - 1], iw = g.in[kd - 1];
  const int64_t oh = kd >= 2 ? g.out[kd - 2] : 1, od = kd >= 3 ? g.out[0] : 1;
  const int64_t ih = kd >= 2 ? g.in[kd - 2] : 1, id = kd >= 3 ? g.in[0] : 1;
  const int64_t plane_out = od * oh * ow, plane_in = id * ih * iw;
  dispatch_floating(gc.dtype(), "pad backward", [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    const T* go = gc.data_ptr<T>();
    T* gin = gi.data_ptr<T>();
    // Planes are independent; within a plane several outputs map to one input.
    parallel_for(0, g.planes, std::max<int64_t>(1, ops::kGrain / std::max<int64_t>(plane_out, 1)),
                 [&](int64_t b, int64_t e) {
                   std::fill(gin + b * plane_in, gin + e * plane_in, T(0.0f));
                   for (int64_t p = b; p < e; ++p) {
                     for (int64_t dd = 0; dd < od; ++dd) {
                       int64_t sd = kd >= 3 ? g.map[0][dd] : 0;
                       for (int64_t h = 0; h < oh; ++h) {
                         int64_t sh = kd >= 2 ? g.map[kd - 2][h] : 0;
                         T* dst = gin + ((p * id + sd) * ih + sh) * iw;
                         const T* src = go + ((p * od + dd) * oh + h) * ow;
                         for (int64_t o = 0; o < ow; ++o) {
                           int64_t i = g.map[kd - 1][o];
                           dst[i] = static_cast<T>(static_cast<A>(dst[i]) + static_cast<A>(src[o]));
                         }
                       }
                     }
                   }
                 });
  });
}

}  // namespace glia::cpu
