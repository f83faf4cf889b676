// 1-D and 3-D convolutions, im2col / col2im (Note [N-d convolutions] in ops/convnd.h): meta parts
// (glia::ops) and the CPU kernels im2col_nd and col2im_nd (glia::cpu).
#include "ops/convnd.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/checked.h"
#include "core/dispatch.h"
#include "ops/cpu/loops.h"
#include "ops/elementwise.h"
#include "ops/linalg.h"
#include "ops/reduce.h"
#include "ops/shape.h"

namespace glia::ops {

namespace {

// torch's div_rtn: floor division.
inline int64_t div_rtn(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

// "a x b x c" of torch's convolution messages.
std::string by(const int64_t* v, int nd) {
  std::string s;
  for (int i = 0; i < nd; ++i) {
    if (i) s += " x ";
    s += std::to_string(v[i]);
  }
  return s;
}

void run_col(KernelId id, Device dev, const Tensor& in, const Tensor& out, const ColGeom& g) {
  const int nd = g.nd;
  const Attr attrs[5] = {attr_ints(IntSpan(g.k, nd)), attr_ints(IntSpan(g.d, nd)), attr_ints(IntSpan(g.p, nd)),
                         attr_ints(IntSpan(g.s, nd)), attr_ints(IntSpan(g.out, nd))};
  const Tensor* ins[1] = {&in};
  const Tensor* outs[1] = {&out};
  const KernelArgs k{ins, outs, attrs, 1, 1, 5};
  if (__builtin_expect(dev.is_cpu(), 1))
    kCpuKernels[static_cast<uint32_t>(id)](k);
  else
    run_kernel_external(id, dev, k);
}

// The shape [N, C, *in] of g.
Dims input_shape(const ColGeom& g) {
  Dims s{g.N, g.C};
  for (int i = 0; i < g.nd; ++i) s.push_back(g.in[i]);
  return s;
}

}  // namespace

Tensor im2col_nd(const Tensor& x_in, const ColGeom& g) {
  Tensor x = contiguous(x_in);
  int64_t shape[3] = {g.N, checked_mul(g.C, g.taps(), "im2col"), g.blocks()};
  Tensor cols = empty(shape, x.dtype(), x.device());
  if (cols.numel() == 0) return cols;
  run_col(KernelId::im2col_nd, x.device(), x, cols, g);
  return cols;
}

Tensor col2im_nd(const Tensor& cols_in, const ColGeom& g) {
  // float16 and bfloat16 accumulate in float32 (one rounding per element).
  const DType t = cols_in.dtype();
  const bool half = t == DType::Float16 || t == DType::BFloat16;
  Tensor cols = contiguous(half ? to_dtype(cols_in, DType::Float32) : cols_in);
  Tensor x = empty(input_shape(g), cols.dtype(), cols.device());
  if (x.numel() == 0) return half ? to_dtype(x, t) : x;
  if (cols.numel() == 0) return zeros(input_shape(g), t, cols.device());
  run_col(KernelId::col2im_nd, cols.device(), cols, x, g);
  return half ? to_dtype(x, t) : x;
}

ColGeom unfold_geom(const Tensor& x, const int64_t kernel[2], const int64_t dilation[2], const int64_t padding[2],
                    const int64_t stride[2]) {
  GLIA_CHECK(kernel[0] > 0 && kernel[1] > 0, InvalidArgument,
             "kernel size should be greater than zero, but got kernel_height: ", kernel[0],
             " kernel_width: ", kernel[1]);
  GLIA_CHECK(dilation[0] > 0 && dilation[1] > 0, InvalidArgument,
             "dilation should be greater than zero, but got dilation_height: ", dilation[0],
             " dilation_width: ", dilation[1]);
  GLIA_CHECK(padding[0] >= 0 && padding[1] >= 0, InvalidArgument,
             "padding should be non-negative, but got pad_height: ", padding[0], " pad_width: ", padding[1]);
  GLIA_CHECK(stride[0] > 0 && stride[1] > 0, InvalidArgument,
             "stride should be greater than zero, but got stride_height: ", stride[0], " stride_width: ", stride[1]);
  const int64_t nd = x.dim();
  // torch reads input.size(1) and input.size(2) before it checks the rank.
  if (nd == 0) fail(Code::InvalidArgument, "Dimension specified as 1 but tensor has no dimensions");
  if (nd < 3)
    fail(Code::InvalidArgument, "Dimension out of range (expected to be in range of [", -nd, ", ", nd - 1,
         "], but got ", nd, ")");
  const bool valid_dims = x.size(1) != 0 && x.size(2) != 0;
  GLIA_CHECK((nd == 3 && x.size(0) != 0 && valid_dims) || (nd == 4 && valid_dims && x.size(3) != 0), Shape,
             "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
             "input, but got: ",
             x.shape());
  GLIA_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64 || x.dtype() == DType::BFloat16 ||
                 x.dtype() == DType::Float16,
             DType, "\"im2col_out_cpu\" not implemented for '", scalar_type_name(x.dtype()), "'");
  const int64_t b = nd == 4 ? 1 : 0;
  ColGeom g;
  g.nd = 2;
  g.N = nd == 4 ? x.size(0) : 1;
  g.C = x.size(b);
  for (int i = 0; i < 2; ++i) {
    g.in[i] = x.size(b + 1 + i);
    g.k[i] = kernel[i], g.d[i] = dilation[i], g.p[i] = padding[i], g.s[i] = stride[i];
    const Checked span = Checked(dilation[i], "im2col") * (kernel[i] - 1) + 1;
    g.out[i] = div_rtn((Checked(g.in[i], "im2col") + Checked(2) * padding[i] - span).value(), stride[i]) + 1;
  }
  // (torch prints the input height twice.)
  GLIA_CHECK(g.out[0] >= 1 && g.out[1] >= 1, Shape, "Given input with spatial size (", g.in[0], ", ", g.in[0],
             "), kernel_size=(", kernel[0], ", ", kernel[1], "), dilation=(", dilation[0], ", ", dilation[1],
             "), padding=(", padding[0], ", ", padding[1], "), calculated shape of the array of sliding blocks as (",
             g.out[0], ", ", g.out[1], "), but its components must be at least one.");
  checked_mul(g.C, g.taps(), "im2col");
  return g;
}

ColGeom fold_geom(const Tensor& cols, const int64_t output_size[2], const int64_t kernel[2], const int64_t dilation[2],
                  const int64_t padding[2], const int64_t stride[2]) {
  GLIA_CHECK(kernel[0] > 0 && kernel[1] > 0, InvalidArgument,
             "kernel size should be greater than zero, but got kernel_height: ", kernel[0],
             " kernel_width: ", kernel[1]);
  GLIA_CHECK(stride[0] > 0 && stride[1] > 0, InvalidArgument,
             "stride should be greater than zero, but got stride_height: ", stride[0], " stride_width: ", stride[1]);
  GLIA_CHECK(dilation[0] > 0 && dilation[1] > 0, InvalidArgument,
             "dilation should be greater than zero, but got dilation_height: ", dilation[0],
             " dilation_width: ", dilation[1]);
  GLIA_CHECK(padding[0] >= 0 && padding[1] >= 0, InvalidArgument,
             "padding should be non-negative, but got pad_height: ", padding[0], " pad_width: ", padding[1]);
  const int64_t nd = cols.dim();
  GLIA_CHECK((nd == 2 && cols.size(0) != 0 && cols.size(1) != 0) || (nd == 3 && cols.size(1) != 0 && cols.size(2) != 0),
             Shape,
             "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for "
             "input, but got: ",
             cols.shape());
  const int64_t b = nd == 3 ? 1 : 0;
  const int64_t planes = cols.size(b);
  const int64_t taps = checked_mul(kernel[0], kernel[1], "col2im");
  GLIA_CHECK(planes % taps == 0, Shape,
             "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
             "input.size(1)=",
             planes, " and kernel_size=(", kernel[0], ", ", kernel[1], ").");
  const int64_t length = cols.size(b + 1);
  int64_t nb[2];
  for (int i = 0; i < 2; ++i)
    nb[i] = div_rtn((Checked(output_size[i], "col2im") + Checked(2) * padding[i] -
                     Checked(dilation[i]) * (kernel[i] - 1) - 1)
                        .value(),
                    stride[i]) +
            1;
  const int64_t blocks = nb[0] * nb[1];
  GLIA_CHECK(length == blocks, Shape, "Given output_size=(", output_size[0], ", ", output_size[1], "), kernel_size=(",
             kernel[0], ", ", kernel[1], "), dilation=(", dilation[0], ", ", dilation[1], "), padding=(", padding[0],
             ", ", padding[1], "), stride=(", stride[0], ", ", stride[1],
             "), expected size of input's dimension 2 to match the calculated number of sliding blocks ", nb[0], " * ",
             nb[1], " = ", blocks, ", but got input.size(2)=", length, ".");
  GLIA_CHECK(nb[0] >= 1 && nb[1] >= 1, Shape, "Given output_size=(", output_size[0], ", ", output_size[1],
             "), kernel_size=(", kernel[0], ", ", kernel[1], "), dilation=(", dilation[0], ", ", dilation[1],
             "), padding=(", padding[0], ", ", padding[1], "), stride=(", stride[0], ", ", stride[1],
             "), calculated shape of the array of sliding blocks as (", nb[0], ", ", nb[1],
             "), which is too small (non-positive)");
  GLIA_CHECK(output_size[0] >= 1 && output_size[1] >= 1, Shape,
             "Expected output spatial size to be positive, but got: output_size=(", output_size[0], ", ",
             output_size[1], ").");
  GLIA_CHECK(cols.dtype() == DType::Float32 || cols.dtype() == DType::Float64 || cols.dtype() == DType::BFloat16 ||
                 cols.dtype() == DType::Float16,
             DType, "\"col2im_out_cpu\" not implemented for '", scalar_type_name(cols.dtype()), "'");
  ColGeom g;
  g.nd = 2;
  g.N = nd == 3 ? cols.size(0) : 1;
  g.C = planes / taps;
  for (int i = 0; i < 2; ++i) {
    g.in[i] = output_size[i], g.out[i] = nb[i];
    g.k[i] = kernel[i], g.d[i] = dilation[i], g.p[i] = padding[i], g.s[i] = stride[i];
  }
  return g;
}

void check_convnd(const char* op, int nd, const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t* stride,
                  const int64_t* pad, const int64_t* dilation, int64_t groups, bool transposed,
                  const int64_t* output_padding) {
  (void)op;
  for (int i = 0; i < nd; ++i) {
    GLIA_CHECK(pad[i] >= 0, InvalidArgument, "negative padding is not supported");
    if (output_padding) GLIA_CHECK(output_padding[i] >= 0, InvalidArgument, "negative output_padding is not supported");
  }
  for (int i = 0; i < nd; ++i) GLIA_CHECK(stride[i] > 0, InvalidArgument, "non-positive stride is not supported");
  bool dilation_ok = true;
  for (int i = 0; i < nd; ++i) dilation_ok = dilation_ok && dilation[i] > 0;
  if (!dilation_ok) {
    // torch's texts (conv1d's is conv2d's; conv_transpose1d reports its unit-height view's values).
    GLIA_CHECK(transposed || nd != 1, InvalidArgument, "non-positive dilation is not supported");
    std::string got;
    if (!transposed) {
      got = "[";
      for (int i = 0; i < nd; ++i) got += (i ? ", " : "") + std::to_string(dilation[i]);
      got += "]";
    } else if (nd == 1) {
      got = "dilation_height: 1, dilation_width: " + std::to_string(dilation[0]);
    } else {
      got = "dilation_depth: " + std::to_string(dilation[0]) + ", dilation_height: " + std::to_string(dilation[1]) +
            ", dilation_width: " + std::to_string(dilation[2]);
    }
    fail(Code::InvalidArgument, "dilation should be greater than zero, but got ", got);
  }
  GLIA_CHECK(groups > 0, InvalidArgument, "non-positive groups is not supported");
  const int64_t k = x.dim();
  GLIA_CHECK(w.dim() == k, Shape, "Expected ", w.dim(), "-dimensional input for ", w.dim(), "-dimensional weight ",
             w.shape(), ", but got ", k, "-dimensional input of size ", x.shape(), " instead");
  GLIA_CHECK(w.size(0) >= groups, Shape, "Given groups=", groups, ", expected weight to be at least ", groups,
             " at dimension 0, but got weight of size ", w.shape(), " instead");
  GLIA_CHECK(w.size(0) % groups == 0, Shape, "Given groups=", groups, ", expected weight to be divisible by ", groups,
             " at dimension 0, but got weight of size [", w.shape(), "] instead");
  if (!transposed) {
    const int64_t in_c = checked_mul(w.size(1), groups, op);
    GLIA_CHECK(x.size(1) == in_c, Shape, "Given groups=", groups, ", weight of size ", w.shape(), ", expected input",
               x.shape(), " to have ", in_c, " channels, but got ", x.size(1), " channels instead");
    GLIA_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == w.size(0)), Shape, "Given weight of size ",
               w.shape(), ", expected bias to be 1-dimensional with ", w.size(0), " elements, but got bias of size ",
               bias.shape(), " instead");
    int64_t padded[3], span[3];
    bool ok = true;
    for (int i = 0; i < nd; ++i) {
      padded[i] = (Checked(x.size(2 + i), op) + Checked(2) * pad[i]).value();
      span[i] = (Checked(dilation[i], op) * (w.size(2 + i) - 1) + 1).value();
      ok = ok && padded[i] >= span[i];
    }
    GLIA_CHECK(ok, Shape, "Calculated padded input size per channel: (", by(padded, nd), "). Kernel size: (",
               by(span, nd), "). Kernel size can't be greater than actual input size");
  } else {
    GLIA_CHECK(x.size(1) == w.size(0), Shape, "Given transposed=1, weight of size ", w.shape(), ", expected input",
               x.shape(), " to have ", w.size(0), " channels, but got ", x.size(1), " channels instead");
    const int64_t out_c = checked_mul(w.size(1), groups, op);
    GLIA_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_c), Shape,
               "Given transposed=1, weight of size ", w.shape(), ", expected bias to be 1-dimensional with ", out_c,
               " elements, but got bias of size ", bias.shape(), " instead");
  }
}

namespace {

// The dtype checks of the slow convolutions (conv2d's, with the 3-D kernels' names).
void check_conv3d_dtypes(const Tensor& x, const Tensor& w, const Tensor& bias) {
  GLIA_CHECK(x.dtype() == w.dtype(), DType, "expected scalar type ", scalar_type_name(x.dtype()), " but found ",
             scalar_type_name(w.dtype()));
  GLIA_CHECK(x.device() == w.device(), Device, "Input type (", torch_tensor_type(x.dtype(), x.device()),
             ") and weight type (", torch_tensor_type(w.dtype(), w.device()), ") should be the same");
  if (bias.defined()) {
    GLIA_CHECK(bias.dtype() == x.dtype(), DType, "expected scalar type ", scalar_type_name(x.dtype()), " but found ",
               scalar_type_name(bias.dtype()));
    GLIA_CHECK(bias.device() == x.device(), Device, "Input type (", torch_tensor_type(x.dtype(), x.device()),
               ") and bias type (", torch_tensor_type(bias.dtype(), bias.device()), ") should be the same");
  }
}

// The dtypes of torch's CPU kernels: conv3d's vol2col (compute_columns3d) takes every real type but
// float16; slow_conv_transpose3d floating types, bfloat16 and int64.
void check_conv3d_kernel_dtype(DType t, bool transposed) {
  const bool floating = t == DType::Float32 || t == DType::Float64 || t == DType::BFloat16;
  if (transposed) {
    if (!floating && t != DType::Int64) not_implemented_for("slow_conv_transpose3d_out_cpu", t);
  } else if (!floating && t != DType::Int64 && t != DType::Int32 && t != DType::Int16 && t != DType::Int8 &&
             t != DType::UInt8) {
    not_implemented_for("compute_columns3d", t);
  }
}

// [1, C, 1...] view of a bias for adding to [N, C, *spatial].
Tensor bias_view(const Tensor& bias, int64_t dims) {
  Dims s(static_cast<size_t>(dims), 1);
  s[1] = bias.size(0);
  return view(contiguous(bias), s);
}

}  // namespace

ConvGeom conv1d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, int64_t stride, int64_t pad,
                     int64_t dilation, int64_t groups, int pad_mode) {
  GLIA_CHECK(pad_mode != 2 || stride == 1, InvalidArgument, "padding='same' is not supported for strided convolutions");
  int64_t p = pad_mode == 0 ? pad : 0;
  if (pad_mode == 2 && w.dim() == 3)
    p = (Checked(dilation, "conv1d") * (w.size(2) - 1)).value();  // never fails the size check
  check_convnd("conv1d", 1, x, w, bias, &stride, &p, &dilation, groups, false, nullptr);
  // torch's 1-D path reports a dtype mismatch as scalar types.
  GLIA_CHECK(x.dtype() == w.dtype(), DType, "expected scalar type ", scalar_type_name(x.dtype()), " but found ",
             scalar_type_name(w.dtype()));
  const int64_t s2[2] = {1, stride}, p2[2] = {0, pad}, d2[2] = {1, dilation};
  return conv2d_geom(unsqueeze(x, 2), unsqueeze(w, 2), bias, s2, p2, d2, groups, pad_mode);
}

ConvGeom conv_transpose1d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, int64_t stride, int64_t pad,
                               int64_t output_padding, int64_t dilation, int64_t groups) {
  check_convnd("conv_transpose1d", 1, x, w, bias, &stride, &pad, &dilation, groups, true, &output_padding);
  const int64_t s2[2] = {1, stride}, p2[2] = {0, pad}, o2[2] = {0, output_padding}, d2[2] = {1, dilation};
  return conv_transpose2d_geom(unsqueeze(x, 2), unsqueeze(w, 2), bias, s2, p2, o2, d2, groups);
}

Conv3dGeom conv3d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[3],
                       const int64_t pad[3], const int64_t dilation[3], int64_t groups, int pad_mode) {
  if (pad_mode == 2)
    for (int i = 0; i < 3; ++i)
      GLIA_CHECK(stride[i] == 1, InvalidArgument, "padding='same' is not supported for strided convolutions");
  // The padding the shape check sees ("same" never fails it).
  int64_t p[3], lo[3];
  for (int i = 0; i < 3; ++i) {
    p[i] = pad_mode == 0 ? pad[i] : 0;
    lo[i] = p[i];
    if (pad_mode == 2 && w.dim() == 5) {
      const int64_t total = (Checked(dilation[i], "conv3d") * (w.size(2 + i) - 1)).value();
      lo[i] = total / 2;
      p[i] = total - lo[i];
    }
  }
  check_convnd("conv3d", 3, x, w, bias, stride, p, dilation, groups, false, nullptr);
  check_conv3d_dtypes(x, w, bias);
  check_conv3d_kernel_dtype(x.dtype(), false);
  Conv3dGeom g;
  g.O = w.size(0), g.groups = groups;
  ColGeom& c = g.col;
  c.nd = 3, c.N = x.size(0), c.C = x.size(1);
  for (int i = 0; i < 3; ++i) {
    c.in[i] = x.size(2 + i), c.k[i] = w.size(2 + i), c.s[i] = stride[i], c.d[i] = dilation[i], c.p[i] = lo[i];
    // "same": the output has the input's size (the extra padding at the end only shapes it).
    const Checked total = pad_mode == 2 ? Checked(lo[i] + p[i], "conv3d") : Checked(2, "conv3d") * p[i];
    c.out[i] = ((total + c.in[i] - (Checked(c.d[i]) * (c.k[i] - 1) + 1)).value()) / c.s[i] + 1;
  }
  checked_mul(checked_mul(c.C, c.taps(), "conv3d"), c.blocks(), "conv3d");
  return g;
}

Conv3dGeom conv_transpose3d_geom(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[3],
                                 const int64_t pad[3], const int64_t output_padding[3], const int64_t dilation[3],
                                 int64_t groups) {
  check_convnd("conv_transpose3d", 3, x, w, bias, stride, pad, dilation, groups, true, output_padding);
  GLIA_CHECK(x.dtype() == w.dtype(), DType, "expected scalar type ", scalar_type_name(x.dtype()), " but found ",
             scalar_type_name(w.dtype()));
  check_conv3d_dtypes(x, w, bias);
  check_conv3d_kernel_dtype(x.dtype(), true);
  bool op_ok = true;
  for (int i = 0; i < 3; ++i) op_ok = op_ok && (output_padding[i] < stride[i] || output_padding[i] < dilation[i]);
  GLIA_CHECK(op_ok, InvalidArgument,
             "output padding must be smaller than either stride or dilation, but got output_padding_depth: ",
             output_padding[0], " output_padding_height: ", output_padding[1],
             " output_padding_width: ", output_padding[2], " stride_depth: ", stride[0], " stride_height: ", stride[1],
             " stride_width: ", stride[2], " dilation_depth: ", dilation[0], " dilation_height: ", dilation[1],
             " dilation_width: ", dilation[2]);
  Conv3dGeom g;
  g.O = x.size(1), g.groups = groups;
  ColGeom& c = g.col;
  c.nd = 3, c.N = x.size(0), c.C = checked_mul(w.size(1), groups, "conv_transpose3d");
  bool positive = true;
  for (int i = 0; i < 3; ++i) {
    c.out[i] = x.size(2 + i), c.k[i] = w.size(2 + i), c.s[i] = stride[i], c.d[i] = dilation[i], c.p[i] = pad[i];
    c.in[i] = ((Checked(c.out[i], "conv_transpose3d") - 1) * c.s[i] - Checked(2) * c.p[i] +
               Checked(c.d[i]) * (c.k[i] - 1) + output_padding[i] + 1)
                  .value();
    positive = positive && c.in[i] > 0;
  }
  GLIA_CHECK(positive, Shape, "Given input size per channel: (", by(c.out, 3),
             "). Calculated output size per channel: (", by(c.in, 3), "). Output size is too small");
  checked_mul(checked_mul(c.C, c.taps(), "conv_transpose3d"), c.blocks(), "conv_transpose3d");
  return g;
}

namespace {

// w [O, C / g, k...] as [g, O / g, C / g * taps] and its per-group transpose, both expanded over N: the
// batched operands [N * g, ...] of the GEMMs (contiguous copies; the weights are small).
Tensor weight_batch(const Tensor& w, const Conv3dGeom& g, bool transpose) {
  const int64_t G = g.groups, Og = g.O / G, K = g.col.C / G * g.col.taps();
  int64_t s3[3] = {G, Og, K};
  Tensor w3 = reshape(contiguous(w), s3);
  if (transpose) w3 = ops::transpose(w3, 1, 2);
  const int64_t r = w3.size(1), c = w3.size(2);
  int64_t s4[4] = {g.col.N, G, r, c};
  int64_t sb[3] = {g.col.N * G, r, c};
  return reshape(contiguous(expand(unsqueeze(w3, 0), s4)), sb);
}

}  // namespace

Tensor conv3d_forward(const Tensor& x, const Tensor& w_in, const Tensor& bias, const Conv3dGeom& g) {
  const Device dev = common_device("convolution", x, w_in, false);
  const ColGeom& c = g.col;
  int64_t yshape[5] = {c.N, g.O, c.out[0], c.out[1], c.out[2]};
  if (c.N == 0 || g.O == 0) return zeros(yshape, x.dtype(), dev);
  Tensor w = to_dtype(w_in, x.dtype());
  const int64_t G = g.groups, K = c.C / G * c.taps(), L = c.blocks();
  Tensor y;
  if (c.C == 0 || L == 0) {
    y = zeros(yshape, x.dtype(), dev);
  } else {
    Tensor cols = im2col_nd(x, c);  // [N, C * taps, L] = [N * g, K, L]
    int64_t cs[3] = {c.N * G, K, L};
    y = view(bmm(weight_batch(w, g, false), view(cols, cs)), yshape);
  }
  if (bias.defined()) y = add(y, bias_view(bias, 5), 1.0);
  return y;
}

Tensor conv3d_backward_input(const Tensor& gy_in, const Tensor& w_in, const Conv3dGeom& g, const Tensor& bias) {
  const Device dev = common_device("convolution_backward", gy_in, w_in, false);
  const ColGeom& c = g.col;
  const int64_t G = g.groups, Og = g.O / G, L = c.blocks();
  Tensor gx;
  if (c.N == 0 || c.C == 0 || g.O == 0 || L == 0) {
    gx = zeros(input_shape(c), gy_in.dtype(), dev);
  } else {
    Tensor w = to_dtype(w_in, gy_in.dtype());
    int64_t gs[3] = {c.N * G, Og, L};
    Tensor gcols = bmm(weight_batch(w, g, true), reshape(contiguous(gy_in), gs));  // [N * g, K, L]
    int64_t cs[3] = {c.N, c.C * c.taps(), L};
    gx = col2im_nd(view(gcols, cs), c);
  }
  if (bias.defined()) gx = add(gx, bias_view(bias, 5), 1.0);
  return gx;
}

Tensor conv3d_backward_weight(const Tensor& gy_in, const Tensor& x_in, const Conv3dGeom& g) {
  const Device dev = common_device("convolution_backward", gy_in, x_in, false);
  const ColGeom& c = g.col;
  const int64_t G = g.groups, Og = g.O / G, Cg = c.C / G, K = Cg * c.taps(), L = c.blocks();
  int64_t wshape[5] = {g.O, Cg, c.k[0], c.k[1], c.k[2]};
  if (c.N == 0 || c.C == 0 || g.O == 0 || L == 0) return zeros(wshape, gy_in.dtype(), dev);
  Tensor cols = im2col_nd(to_dtype(x_in, gy_in.dtype()), c);
  int64_t gs[3] = {c.N * G, Og, L}, cs[3] = {c.N * G, K, L};
  Tensor per_image = bmm(reshape(contiguous(gy_in), gs), ops::transpose(view(cols, cs), 1, 2));  // [N * g, Og, K]
  int64_t ps[2] = {c.N, G * Og * K};
  int64_t dim0[1] = {0};
  return reshape(sum(view(per_image, ps), dim0, false), wshape);
}

}  // namespace glia::ops

// ---- CPU kernels

namespace glia::cpu {

namespace {

using ops::ColGeom;

// The geometry from the attributes (kernel, dilation, padding, stride, out: .ints, nd each) and the
// shape of x [N, C, *in].
ColGeom col_geom(const Tensor& x, const KernelArgs& k) {
  ColGeom g;
  g.nd = static_cast<int>(x.dim()) - 2;
  g.N = x.size(0), g.C = x.size(1);
  // A 2-D geometry is a 3-D one with a unit leading dim.
  const int off = 3 - g.nd;
  for (int i = 0; i < g.nd; ++i) {
    g.in[off + i] = x.size(2 + i);
    g.k[off + i] = k.attr(0).ints[i], g.d[off + i] = k.attr(1).ints[i];
    g.p[off + i] = k.attr(2).ints[i], g.s[off + i] = k.attr(3).ints[i];
    g.out[off + i] = k.attr(4).ints[i];
  }
  g.nd = 3;
  return g;
}

// [lo, hi): the outputs o whose input position o * s - p + off lies in [0, n).
inline void valid_range(int64_t n, int64_t nout, int64_t s, int64_t p, int64_t off, int64_t& lo, int64_t& hi) {
  const int64_t a = p - off;  // o * s >= a
  lo = a <= 0 ? 0 : (a + s - 1) / s;
  const int64_t b = n + p - off;  // o * s < b
  hi = b <= 0 ? 0 : (b - 1) / s + 1;
  lo = std::min(lo, nout);
  hi = std::clamp(hi, lo, nout);
}

// One (image, channel) plane x [D, H, W] -> its taps' rows of cols, each [Do * Ho * Wo].
template <class T>
void im2col_plane(const T* __restrict x, const ColGeom& g, T* __restrict cols) {
  const int64_t L = g.blocks(), Wo = g.out[2];
  int64_t tap = 0;
  for (int64_t kd = 0; kd < g.k[0]; ++kd)
    for (int64_t kh = 0; kh < g.k[1]; ++kh)
      for (int64_t kw = 0; kw < g.k[2]; ++kw, ++tap) {
        T* row = cols + tap * L;
        int64_t w0, w1;
        valid_range(g.in[2], Wo, g.s[2], g.p[2], kw * g.d[2], w0, w1);
        for (int64_t od = 0; od < g.out[0]; ++od) {
          const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
          for (int64_t oh = 0; oh < g.out[1]; ++oh) {
            const int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
            T* __restrict d = row + (od * g.out[1] + oh) * Wo;
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
              std::fill(d, d + Wo, T(0));
              continue;
            }
            const T* __restrict src = x + (id * g.in[1] + ih) * g.in[2] + kw * g.d[2] - g.p[2];
            std::fill(d, d + w0, T(0));
            if (g.s[2] == 1) {
              std::copy(src + w0, src + w1, d + w0);
            } else {
              const int64_t sw = g.s[2];
              for (int64_t ow = w0; ow < w1; ++ow) d[ow] = src[ow * sw];
            }
            std::fill(d + w1, d + Wo, T(0));
          }
        }
      }
}

// The adjoint for one plane: x [D, H, W] = sum of its taps' rows at their window positions.
template <class T>
void col2im_plane(const T* __restrict cols, const ColGeom& g, T* __restrict x) {
  const int64_t L = g.blocks(), Wo = g.out[2];
  std::fill(x, x + g.in[0] * g.in[1] * g.in[2], T(0));
  int64_t tap = 0;
  for (int64_t kd = 0; kd < g.k[0]; ++kd)
    for (int64_t kh = 0; kh < g.k[1]; ++kh)
      for (int64_t kw = 0; kw < g.k[2]; ++kw, ++tap) {
        const T* row = cols + tap * L;
        int64_t w0, w1;
        valid_range(g.in[2], Wo, g.s[2], g.p[2], kw * g.d[2], w0, w1);
        for (int64_t od = 0; od < g.out[0]; ++od) {
          const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
          if (id < 0 || id >= g.in[0]) continue;
          for (int64_t oh = 0; oh < g.out[1]; ++oh) {
            const int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
            if (ih < 0 || ih >= g.in[1]) continue;
            T* __restrict d = x + (id * g.in[1] + ih) * g.in[2] + kw * g.d[2] - g.p[2];
            const T* __restrict s = row + (od * g.out[1] + oh) * Wo;
            if (g.s[2] == 1) {
              for (int64_t ow = w0; ow < w1; ++ow) d[ow] += s[ow];
            } else {
              const int64_t sw = g.s[2];
              for (int64_t ow = w0; ow < w1; ++ow) d[ow * sw] += s[ow];
            }
          }
        }
      }
}

// Runs body(plane index) over the N * C planes in parallel.
template <class F>
void for_planes(const ColGeom& g, F&& body) {
  const int64_t work = std::max<int64_t>(1, g.taps() * g.blocks());
  parallel_for(0, g.N * g.C, std::max<int64_t>(1, ops::kGrain / work), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) body(i);
  });
}

template <class T>
void im2col_typed(const KernelArgs& k) {
  const Tensor &x = k.input(0), &cols = k.output(0);
  const ColGeom g = col_geom(x, k);
  const T* xp = static_cast<const T*>(x.data());
  T* cp = static_cast<T*>(cols.data());
  const int64_t plane = g.in[0] * g.in[1] * g.in[2], rows = g.taps() * g.blocks();
  for_planes(g, [&](int64_t i) { im2col_plane(xp + i * plane, g, cp + i * rows); });
}

template <class T>
void col2im_typed(const KernelArgs& k) {
  const Tensor &cols = k.input(0), &x = k.output(0);
  const ColGeom g = col_geom(x, k);
  const T* cp = static_cast<const T*>(cols.data());
  T* xp = static_cast<T*>(x.data());
  const int64_t plane = g.in[0] * g.in[1] * g.in[2], rows = g.taps() * g.blocks();
  for_planes(g, [&](int64_t i) { col2im_plane(cp + i * rows, g, xp + i * plane); });
}

}  // namespace

void im2col_nd_kernel(const KernelArgs& k) {
  // Data movement only: dispatched on the element size.
  switch (itemsize(k.input(0).dtype())) {
    case 1:
      return im2col_typed<uint8_t>(k);
    case 2:
      return im2col_typed<uint16_t>(k);
    case 4:
      return im2col_typed<uint32_t>(k);
    case 8:
      return im2col_typed<uint64_t>(k);
    default:
      ops::not_implemented_for("im2col", k.input(0).dtype());
  }
}

void col2im_nd_kernel(const KernelArgs& k) {
  switch (k.input(0).dtype()) {
    case DType::Float32:
      return col2im_typed<float>(k);
    case DType::Float64:
      return col2im_typed<double>(k);
    case DType::Int64:
      return col2im_typed<int64_t>(k);
    case DType::Int32:
      return col2im_typed<int32_t>(k);
    default:
      ops::not_implemented_for("col2im", k.input(0).dtype());
  }
}

}  // namespace glia::cpu
