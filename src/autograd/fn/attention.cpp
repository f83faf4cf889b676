// torch 1.13's F.multi_head_attention_forward (torch/nn/functional.py), step by
// step: the same checks and texts in the same order, the same in-projection
// (one product for self-attention), the same mask merging and the same
// products, so values and gradients match torch's.
#include "autograd/fn/attention.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>

#include "autograd/fn/elementwise.h"
#include "autograd/fn/index.h"
#include "autograd/fn/linalg.h"
#include "autograd/fn/nn.h"
#include "autograd/fn/reduce.h"
#include "autograd/fn/shape.h"
#include "autograd/fn/shape_ops.h"
#include "core/log.h"
#include "core/scalar.h"

namespace glia {

namespace {

// Python's str of torch.Size: "torch.Size([2, 3])".
std::string torch_size(IntSpan d) {
  std::ostringstream s;
  s.exceptions(std::ios::badbit);
  s << "torch.Size([";
  for (size_t i = 0; i < d.size(); ++i) s << (i ? ", " : "") << d[i];
  s << "])";
  return s.str();
}

// Python's str of a tuple of ints: "(2, 3)".
std::string py_tuple(std::initializer_list<int64_t> d) {
  std::ostringstream s;
  s.exceptions(std::ios::badbit);
  s << '(';
  size_t i = 0;
  for (int64_t v : d) s << (i++ ? ", " : "") << v;
  s << (d.size() == 1 ? ",)" : ")");
  return s.str();
}

bool shape_is(const Tensor& t, std::initializer_list<int64_t> d) {
  if (t.dim() != static_cast<int64_t>(d.size())) return false;
  int64_t i = 0;
  for (int64_t v : d)
    if (t.size(i++) != v) return false;
  return true;
}

// F.pad(t, (0, 1)): one zero (False) appended to the last dimension.
Tensor pad_last(const Tensor& t) {
  Dims shape = t.shape();
  shape[shape.size() - 1] = 1;
  return cat({t, zeros(shape, t.dtype(), t.device())}, -1);
}

// torch's _mha_shape_check: whether the input is batched.
bool mha_shape_check(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
                     const Tensor& attn_mask, int64_t num_heads) {
  if (query.dim() == 3) {
    GLIA_CHECK(key.dim() == 3 && value.dim() == 3, InvalidArgument,
               "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found ", key.dim(), "-D and ",
               value.dim(), "-D tensors respectively");
    if (key_padding_mask.defined())
      GLIA_CHECK(key_padding_mask.dim() == 2, InvalidArgument,
                 "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found ",
                 key_padding_mask.dim(), "-D tensor instead");
    if (attn_mask.defined())
      GLIA_CHECK(attn_mask.dim() == 2 || attn_mask.dim() == 3, InvalidArgument,
                 "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ", attn_mask.dim(),
                 "-D tensor instead");
    return true;
  }
  GLIA_CHECK(query.dim() == 2, InvalidArgument, "query should be unbatched 2D or batched 3D tensor but received ",
             query.dim(), "-D query tensor");
  GLIA_CHECK(key.dim() == 2 && value.dim() == 2, InvalidArgument,
             "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found ", key.dim(), "-D and ",
             value.dim(), "-D tensors respectively");
  if (key_padding_mask.defined())
    GLIA_CHECK(key_padding_mask.dim() == 1, InvalidArgument,
               "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found ",
               key_padding_mask.dim(), "-D tensor instead");
  if (attn_mask.defined()) {
    GLIA_CHECK(attn_mask.dim() == 2 || attn_mask.dim() == 3, InvalidArgument,
               "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ", attn_mask.dim(),
               "-D tensor instead");
    if (attn_mask.dim() == 3)
      GLIA_CHECK(shape_is(attn_mask, {num_heads, query.size(0), key.size(0)}), InvalidArgument,
                 "Expected `attn_mask` shape to be ", py_tuple({num_heads, query.size(0), key.size(0)}), " but got ",
                 torch_size(attn_mask.shape()));
  }
  return false;
}

// torch's _in_projection's shape assertions.
void check_proj(const Tensor& w, std::initializer_list<int64_t> shape, const char* what) {
  GLIA_CHECK(shape_is(w, shape), InvalidArgument, "expecting ", what, " shape of ", py_tuple(shape), ", but got ",
             torch_size(w.shape()));
}

Tensor chunk_or_none(const Tensor& t, int64_t i) { return t.defined() ? chunk(t, 3, 0)[static_cast<size_t>(i)] : t; }

}  // namespace

std::pair<Tensor, Tensor> multi_head_attention_forward(const Tensor& query_in, const Tensor& key_in,
                                                       const Tensor& value_in, const MhaArgs& a) {
  const int64_t num_heads = a.num_heads;
  Tensor key_padding_mask = a.key_padding_mask, attn_mask = a.attn_mask;
  const bool is_batched = mha_shape_check(query_in, key_in, value_in, key_padding_mask, attn_mask, num_heads);
  // The same tensor passed twice stays one (torch's `k is v` / `q is k` projections).
  const bool k_is_v = key_in.is_same(value_in), q_is_k = query_in.is_same(key_in);
  Tensor query = query_in, key = key_in, value = value_in;
  if (!is_batched) {
    query = unsqueeze(query, 1);
    key = q_is_k ? query : unsqueeze(key, 1);
    value = k_is_v ? key : unsqueeze(value, 1);
    if (key_padding_mask.defined()) key_padding_mask = unsqueeze(key_padding_mask, 0);
  }
  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  if (key_padding_mask.defined())
    GLIA_CHECK(key_padding_mask.dtype() == DType::Bool || is_floating(key_padding_mask.dtype()), InvalidArgument,
               "only bool and floating types of key_padding_mask are supported");
  GLIA_CHECK(embed_dim == a.embed_dim_to_check, InvalidArgument, "was expecting embedding dimension of ",
             a.embed_dim_to_check, ", but got ", embed_dim);
  GLIA_CHECK(num_heads != 0, InvalidArgument, "integer division or modulo by zero");
  // Python's floor division.
  int64_t head_dim = embed_dim / num_heads;
  if ((embed_dim % num_heads != 0) && ((embed_dim < 0) != (num_heads < 0))) --head_dim;
  GLIA_CHECK(head_dim * num_heads == embed_dim, InvalidArgument, "embed_dim ", embed_dim,
             " not divisible by num_heads ", num_heads);
  if (a.use_separate_proj_weight) {
    GLIA_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1), InvalidArgument,
               "key's sequence and batch dims ", torch_size(Dims{key.size(0), key.size(1)}), " do not match value's ",
               torch_size(Dims{value.size(0), value.size(1)}));
  } else {
    GLIA_CHECK(key.shape() == value.shape(), InvalidArgument, "key shape ", torch_size(key.shape()),
               " does not match value shape ", torch_size(value.shape()));
  }

  // ---- in-projection
  Tensor q, k, v;
  if (!a.use_separate_proj_weight) {
    GLIA_CHECK(a.in_proj_weight.defined(), InvalidArgument,
               "use_separate_proj_weight is False but in_proj_weight is None");
    const Tensor& w = a.in_proj_weight;
    const Tensor& b = a.in_proj_bias;
    const int64_t e = query.size(-1);
    if (k_is_v && q_is_k) {
      std::vector<Tensor> qkv = chunk(linear(query, w, b), 3, -1);
      q = qkv[0], k = qkv[1], v = qkv[2];
    } else if (k_is_v) {
      std::vector<Tensor> ws = split_with_sizes(w, Dims{e, 2 * e}, 0);
      std::vector<Tensor> bs = b.defined() ? split_with_sizes(b, Dims{e, 2 * e}, 0) : std::vector<Tensor>(2);
      q = linear(query, ws[0], bs[0]);
      std::vector<Tensor> kv = chunk(linear(key, ws[1], bs[1]), 2, -1);
      k = kv[0], v = kv[1];
    } else {
      std::vector<Tensor> ws = chunk(w, 3, 0);
      q = linear(query, ws[0], chunk_or_none(b, 0));
      k = linear(key, ws[1], chunk_or_none(b, 1));
      v = linear(value, ws[2], chunk_or_none(b, 2));
    }
  } else {
    GLIA_CHECK(a.q_proj_weight.defined(), InvalidArgument,
               "use_separate_proj_weight is True but q_proj_weight is None");
    GLIA_CHECK(a.k_proj_weight.defined(), InvalidArgument,
               "use_separate_proj_weight is True but k_proj_weight is None");
    GLIA_CHECK(a.v_proj_weight.defined(), InvalidArgument,
               "use_separate_proj_weight is True but v_proj_weight is None");
    const int64_t eq = query.size(-1), ek = key.size(-1), ev = value.size(-1);
    check_proj(a.q_proj_weight, {eq, eq}, "query weights");
    check_proj(a.k_proj_weight, {eq, ek}, "key weights");
    check_proj(a.v_proj_weight, {eq, ev}, "value weights");
    Tensor b_q = chunk_or_none(a.in_proj_bias, 0), b_k = chunk_or_none(a.in_proj_bias, 1),
           b_v = chunk_or_none(a.in_proj_bias, 2);
    if (b_q.defined()) {
      check_proj(b_q, {eq}, "query bias");
      check_proj(b_k, {eq}, "key bias");
      check_proj(b_v, {eq}, "value bias");
    }
    q = linear(query, a.q_proj_weight, b_q);
    k = linear(key, a.k_proj_weight, b_k);
    v = linear(value, a.v_proj_weight, b_v);
  }
  int64_t src_len = key.size(0);

  // ---- attention mask: bool (uint8 with torch's warning) or floating, made 3-D
  if (attn_mask.defined()) {
    if (attn_mask.dtype() == DType::UInt8) {
      if (log_enabled(LogLevel::Warning))
        log(LogLevel::Warning,
            "Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.");
      attn_mask = to_dtype(attn_mask, DType::Bool);
    } else {
      GLIA_CHECK(is_floating(attn_mask.dtype()) || attn_mask.dtype() == DType::Bool, InvalidArgument,
                 "Only float, byte, and bool types are supported for attn_mask, not torch.",
                 dtype_name(attn_mask.dtype()));
    }
    if (attn_mask.dim() == 2) {
      GLIA_CHECK(shape_is(attn_mask, {tgt_len, src_len}), Shape, "The shape of the 2D attn_mask is ",
                 torch_size(attn_mask.shape()), ", but should be ", py_tuple({tgt_len, src_len}), ".");
      attn_mask = unsqueeze(attn_mask, 0);
    } else {
      GLIA_CHECK(shape_is(attn_mask, {bsz * num_heads, tgt_len, src_len}), Shape, "The shape of the 3D attn_mask is ",
                 torch_size(attn_mask.shape()), ", but should be ", py_tuple({bsz * num_heads, tgt_len, src_len}), ".");
    }
  }

  // ---- bias_k, bias_v: one more key and value position
  if (a.bias_k.defined() && a.bias_v.defined()) {
    GLIA_CHECK(!a.static_k.defined(), InvalidArgument, "bias cannot be added to static key.");
    GLIA_CHECK(!a.static_v.defined(), InvalidArgument, "bias cannot be added to static value.");
    k = cat({k, repeat(a.bias_k, Dims{1, bsz, 1})}, 0);
    v = cat({v, repeat(a.bias_v, Dims{1, bsz, 1})}, 0);
    if (attn_mask.defined()) attn_mask = pad_last(attn_mask);
    if (key_padding_mask.defined()) key_padding_mask = pad_last(key_padding_mask);
  } else {
    // torch: a bare `assert bias_k is None` / `assert bias_v is None`.
    GLIA_CHECK(!a.bias_k.defined() && !a.bias_v.defined(), InvalidArgument,
               "bias_k and bias_v must both be given or both be None");
  }

  // ---- heads: [bsz * num_heads, len, head_dim]
  q = transpose(reshape(q, Dims{tgt_len, bsz * num_heads, head_dim}), 0, 1);
  if (!a.static_k.defined()) {
    k = transpose(reshape(k, Dims{k.size(0), bsz * num_heads, head_dim}), 0, 1);
  } else {
    GLIA_CHECK(a.static_k.dim() == 3, InvalidArgument, "static_k must be 3-D, got ", a.static_k.dim(), "-D");
    GLIA_CHECK(a.static_k.size(0) == bsz * num_heads, InvalidArgument, "expecting static_k.size(0) of ",
               bsz * num_heads, ", but got ", a.static_k.size(0));
    GLIA_CHECK(a.static_k.size(2) == head_dim, InvalidArgument, "expecting static_k.size(2) of ", head_dim,
               ", but got ", a.static_k.size(2));
    k = a.static_k;
  }
  if (!a.static_v.defined()) {
    v = transpose(reshape(v, Dims{v.size(0), bsz * num_heads, head_dim}), 0, 1);
  } else {
    GLIA_CHECK(a.static_v.dim() == 3, InvalidArgument, "static_v must be 3-D, got ", a.static_v.dim(), "-D");
    GLIA_CHECK(a.static_v.size(0) == bsz * num_heads, InvalidArgument, "expecting static_v.size(0) of ",
               bsz * num_heads, ", but got ", a.static_v.size(0));
    GLIA_CHECK(a.static_v.size(2) == head_dim, InvalidArgument, "expecting static_v.size(2) of ", head_dim,
               ", but got ", a.static_v.size(2));
    v = a.static_v;
  }

  // ---- add_zero_attn: one more key and value position of zeros
  if (a.add_zero_attn) {
    const Dims zshape{bsz * num_heads, 1, head_dim};
    k = cat({k, zeros(zshape, k.dtype(), k.device())}, 1);
    v = cat({v, zeros(zshape, v.dtype(), v.device())}, 1);
    if (attn_mask.defined()) attn_mask = pad_last(attn_mask);
    if (key_padding_mask.defined()) key_padding_mask = pad_last(key_padding_mask);
  }
  src_len = k.size(1);

  // ---- merge key_padding_mask into attn_mask
  if (key_padding_mask.defined()) {
    GLIA_CHECK(shape_is(key_padding_mask, {bsz, src_len}), InvalidArgument, "expecting key_padding_mask shape of ",
               py_tuple({bsz, src_len}), ", but got ", torch_size(key_padding_mask.shape()));
    key_padding_mask =
        reshape(expand(view(key_padding_mask, Dims{bsz, 1, 1, src_len}), Dims{bsz, num_heads, 1, src_len}),
                Dims{bsz * num_heads, 1, src_len});
    if (!attn_mask.defined()) {
      attn_mask = key_padding_mask;
    } else if (attn_mask.dtype() == DType::Bool) {
      attn_mask = glia::logical(attn_mask, key_padding_mask, ops::Logic::Or);
    } else {
      if (key_padding_mask.dtype() != DType::Bool) {
        std::string name = scalar_type_name(key_padding_mask.dtype());  // torch prints "float", "double"
        for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        fail(Code::DType, "masked_fill_ only supports boolean masks, but got mask with dtype ", name);
      }
      attn_mask = where(key_padding_mask,
                        full(Dims{}, -std::numeric_limits<double>::infinity(), attn_mask.dtype(), attn_mask.device()),
                        attn_mask);
    }
  }
  // A bool mask becomes -inf where True, 0 elsewhere.
  if (attn_mask.defined() && attn_mask.dtype() == DType::Bool)
    attn_mask = where(attn_mask, full(Dims{}, -std::numeric_limits<double>::infinity(), q.dtype(), q.device()),
                      zeros(Dims{}, q.dtype(), q.device()));

  // ---- attention and out-projection
  const double dropout_p = a.training ? a.dropout_p : 0.0;
  const int64_t e = q.size(2);
  Tensor q_scaled = div_scalar(q, Scalar::from_double(std::sqrt(static_cast<double>(e))));
  Tensor kt = transpose(k, -2, -1);
  Tensor weights = attn_mask.defined() ? baddbmm(attn_mask, q_scaled, kt) : bmm(q_scaled, kt);
  weights = softmax(weights, -1);
  if (dropout_p > 0.0) weights = dropout(weights, dropout_p, true);
  Tensor out = bmm(weights, v);
  out = reshape(transpose(out, 0, 1), Dims{tgt_len * bsz, embed_dim});
  out = linear(out, a.out_proj_weight, a.out_proj_bias);
  out = view(out, Dims{tgt_len, bsz, out.size(1)});
  if (!a.need_weights) {
    if (!is_batched) out = squeeze(out, Dims{1}, false);
    return {out, Tensor()};
  }
  weights = view(weights, Dims{bsz, num_heads, tgt_len, src_len});
  if (a.average_attn_weights) weights = div_scalar(sum(weights, Dims{1}), Scalar::from_int(num_heads));
  if (!is_batched) {
    out = squeeze(out, Dims{1}, false);
    weights = squeeze(weights, Dims{0}, false);
  }
  return {out, weights};
}

}  // namespace glia
