// conv1d, conv3d, conv_transpose1d, conv_transpose3d, im2col (F.unfold) and col2im (F.fold) against
// tests/golden/gen_convnd.py's fixtures.
#include "ops/golden_support.h"

using namespace glia_ops_test;

namespace {
void fill(const Call& c, const char* key, int64_t* dst, int n, int64_t def) {
  std::vector<int64_t> v = c.ints(key);
  for (int i = 0; i < n; ++i) dst[i] = v.empty() ? def : v[static_cast<size_t>(i)];
}
glia_padding_kind kind(const Call& c) {
  std::string mode = c.str("padding_mode", "");
  return mode == "same" ? GLIA_PADDING_SAME : mode == "valid" ? GLIA_PADDING_VALID : GLIA_PADDING_EXPLICIT;
}
glia_convnd_options conv_opts(const Call& c, int n) {
  glia_convnd_options o;
  glia_convnd_options_init(&o);
  fill(c, "stride", o.stride, n, 1);
  fill(c, "padding", o.padding, n, 0);
  fill(c, "dilation", o.dilation, n, 1);
  o.groups = c.integer("groups", 1);
  o.padding_kind = kind(c);
  return o;
}
glia_conv_transposend_options convt_opts(const Call& c, int n) {
  glia_conv_transposend_options o;
  glia_conv_transposend_options_init(&o);
  fill(c, "stride", o.stride, n, 1);
  fill(c, "padding", o.padding, n, 0);
  fill(c, "output_padding", o.output_padding, n, 0);
  fill(c, "dilation", o.dilation, n, 1);
  o.groups = c.integer("groups", 1);
  return o;
}
glia_fold_options fold_opts(const Call& c) {
  glia_fold_options o;
  glia_fold_options_init(&o);
  fill(c, "kernel_size", o.kernel_size, 2, 1);
  fill(c, "dilation", o.dilation, 2, 1);
  fill(c, "padding", o.padding, 2, 0);
  fill(c, "stride", o.stride, 2, 1);
  return o;
}
}  // namespace

GLIA_ADAPTER(conv1d) {
  glia_convnd_options o = conv_opts(c, 1);
  return glia_conv1d(c.in[0], c.in[1], c.in[2], &o, c.out());
}
GLIA_ADAPTER(conv3d) {
  glia_convnd_options o = conv_opts(c, 3);
  return glia_conv3d(c.in[0], c.in[1], c.in[2], &o, c.out());
}
GLIA_ADAPTER(conv_transpose1d) {
  glia_conv_transposend_options o = convt_opts(c, 1);
  return glia_conv_transpose1d(c.in[0], c.in[1], c.in[2], &o, c.out());
}
GLIA_ADAPTER(conv_transpose3d) {
  glia_conv_transposend_options o = convt_opts(c, 3);
  return glia_conv_transpose3d(c.in[0], c.in[1], c.in[2], &o, c.out());
}
GLIA_ADAPTER(im2col) {
  glia_fold_options o = fold_opts(c);
  return glia_im2col(c.in[0], &o, c.out());
}
GLIA_ADAPTER(col2im) {
  glia_fold_options o = fold_opts(c);
  std::vector<int64_t> s = c.ints("output_size");
  return glia_col2im(c.in[0], s[0], s[1], &o, c.out());
}

TEST(ConvNd, Golden) { run_cases("convnd.json"); }
TEST(ConvNd, Errors) { run_errors("convnd.json"); }
