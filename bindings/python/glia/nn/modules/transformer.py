"""torch.nn's attention modules (torch 1.13): MultiheadAttention over glia_nn_multihead_attention, and the
Transformer family composed in Python over glia's MultiheadAttention, Linear, LayerNorm and Dropout, as torch
composes them in torch/nn/modules/transformer.py.

Constructor arguments and defaults, parameter names, state-dict keys, reprs, init and error texts are torch's.
MultiheadAttention.forward is the library's (F.multi_head_attention_forward composed in C); its forward hooks
see the inputs (query, key, value, key_padding_mask, attn_mask), None where not given.

torch's inference fast paths (torch._transformer_encoder_layer_fwd, torch._native_multi_head_attention; taken in
eval mode without autograd) compute the same values as the ordinary path here; the one visible difference, the
nested-tensor TransformerEncoder (zeros at padded positions, the output cut to the longest sequence), is
reproduced under the same conditions.
"""

import copy

from ... import _autograd
from ... import _cdefs as _cd
from ..._ffi import C, byref, c_int64, c_void_p, check
from ..._tensor import Tensor
from .. import functional as F
from .builtin import Dropout, LayerNorm, Linear, _Builtin, _factory
from .container import ModuleList
from .module import Module

__all__ = ["MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
           "TransformerEncoderLayer", "TransformerDecoderLayer"]

_MHA_ERRORS = {_cd.GLIA_ERR_INVALID_ARGUMENT: AssertionError}


def _is_float_or_bool(t):
    return t.is_floating_point() or str(t.dtype) == "torch.bool"


def _check_padding_mask(mask):
    if mask is not None and not _is_float_or_bool(mask):
        raise AssertionError("only bool and floating types of key_padding_mask are supported")


class NonDynamicallyQuantizableLinear(Linear):
    """torch.nn.modules.linear.NonDynamicallyQuantizableLinear: MultiheadAttention's out_proj (a Linear)."""


class MultiheadAttention(_Builtin):
    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0., bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        self_kdim = kdim if kdim is not None else embed_dim
        self_vdim = vdim if vdim is not None else embed_dim
        same = self_kdim == embed_dim and self_vdim == embed_dim
        head_dim = embed_dim // num_heads  # torch's ZeroDivisionError for num_heads=0
        assert head_dim * num_heads == embed_dim, "embed_dim must be divisible by num_heads"
        o = _cd.glia_nn_multihead_attention_options()
        C.glia_nn_multihead_attention_options_init(byref(o))
        o.dropout = float(dropout)
        o.bias = int(bool(bias))
        o.add_bias_kv = int(bool(add_bias_kv))
        o.add_zero_attn = int(bool(add_zero_attn))
        o.kdim = self_kdim
        o.vdim = self_vdim
        o.batch_first = int(bool(batch_first))
        none = ("q_proj_weight", "k_proj_weight", "v_proj_weight") if same else ("in_proj_weight",)
        if not bias:
            none += ("in_proj_bias",)
        self._make(C.glia_nn_multihead_attention, embed_dim, num_heads, byref(o), _factory(device, dtype),
                   none_params=none)
        self._adopt_out_proj(embed_dim, bias)
        self.embed_dim, self.kdim, self.vdim = embed_dim, self_kdim, self_vdim
        self._qkv_same_embed_dim = same
        self.num_heads, self.dropout, self.batch_first, self.head_dim = num_heads, dropout, batch_first, head_dim
        self.add_zero_attn = add_zero_attn
        if not add_bias_kv:
            object.__setattr__(self, "bias_k", None)
            object.__setattr__(self, "bias_v", None)

    def _adopt_out_proj(self, embed_dim, bias):
        """The C module's child out_proj, as the Python Linear that wraps it."""
        n = c_int64()
        check(C.glia_module_named_children(self._h, None, None, 0, byref(n)))
        arr = (c_void_p * max(1, n.value))()
        check(C.glia_module_named_children(self._h, arr, None, n.value, byref(n)))
        for i in range(1, n.value):
            C.glia_error_free(C.glia_module_release(arr[i]))
        child = NonDynamicallyQuantizableLinear.__new__(NonDynamicallyQuantizableLinear)
        child.__dict__["_ctor"] = ((embed_dim, embed_dim), {"bias": bias})
        child._adopt(arr[0], none_params=() if bias else ("bias",))
        child.in_features = child.out_features = embed_dim
        self._modules["out_proj"] = child

    def __call__(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                 average_attn_weights=True):
        _check_padding_mask(key_padding_mask)
        if attn_mask is not None and str(attn_mask.dtype) == "torch.uint8":
            import warnings
            warnings.warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor "
                          "instead.")
        out, w = c_void_p(), c_void_p()
        check(C.glia_nn_multihead_attention_forward(
            self._h, query._h, key._h, value._h, key_padding_mask._h if key_padding_mask is not None else None,
            int(bool(need_weights)), attn_mask._h if attn_mask is not None else None,
            int(bool(average_attn_weights)), byref(out), byref(w)), codes=_MHA_ERRORS)
        return Tensor._wrap(out.value), (Tensor._wrap(w.value) if w.value else None)

    forward = __call__

    def _reset_parameters(self):
        from .. import init
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.)
            init.constant_(self.out_proj.bias, 0.)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def __deepcopy__(self, memo):
        new = _Builtin.__deepcopy__(self, memo)
        # The constructor drew a new out_proj: give it copies of this one's parameters.
        for name, p in self.out_proj._parameters.items():
            if p is not None:
                setattr(new.out_proj, name, copy.deepcopy(p, memo))
        return new


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    elif activation == "gelu":
        return F.gelu
    raise RuntimeError("activation should be relu/gelu, not {}".format(activation))


def _relu_or_gelu(activation):
    from .builtin import GELU, ReLU
    if activation is F.relu or isinstance(activation, ReLU):
        return 1
    if activation is F.gelu or isinstance(activation, GELU):
        return 2
    return 0


class Transformer(Module):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, **factory_kwargs)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, **factory_kwargs)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None):
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        elif self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        output = self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                              tgt_key_padding_mask=tgt_key_padding_mask,
                              memory_key_padding_mask=memory_key_padding_mask)
        return output

    @staticmethod
    def generate_square_subsequent_mask(sz, device="cpu"):
        import glia
        return glia.triu(glia.full((sz, sz), float("-inf"), device=device), diagonal=1)

    def _reset_parameters(self):
        from .. import init
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)


class TransformerEncoder(Module):
    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def _nested_lengths(self, src, mask, src_key_padding_mask):
        """The sequence lengths when torch 1.13 would run the layers on a nested tensor (its sparsity fast
        path: eval mode, no autograd, ...), else None."""
        first = self.layers[0]
        if (not isinstance(first, TransformerEncoderLayer) or first.norm_first or first.training
                or not first.self_attn.batch_first or not first.self_attn._qkv_same_embed_dim
                or not first.activation_relu_or_gelu or first.norm1.eps != first.norm2.eps or src.dim() != 3
                or not self.enable_nested_tensor or src_key_padding_mask is None or mask is not None
                or first.self_attn.num_heads % 2 == 1):
            return None
        valid = src_key_padding_mask.logical_not()
        lengths = valid.sum(1)
        if self.mask_check:
            # left aligned: each row's valid positions come first
            import glia
            s = valid.size(1)
            pos = glia.arange(s).unsqueeze(0).expand(valid.size(0), s)
            if not bool((valid == (pos < lengths.unsqueeze(1))).all()):
                return None
        attn = first.self_attn
        args = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
                first.norm1.weight, first.norm1.bias, first.norm2.weight, first.norm2.bias, first.linear1.weight,
                first.linear1.bias, first.linear2.weight, first.linear2.bias)
        if _autograd.is_grad_enabled() and any(x is not None and x.requires_grad for x in args):
            return None
        return lengths

    def forward(self, src, mask=None, src_key_padding_mask=None):
        _check_padding_mask(src_key_padding_mask)
        lengths = self._nested_lengths(src, mask, src_key_padding_mask)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        if lengths is not None:
            # torch: to_padded_tensor(0.) of the nested result
            output = output.masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0)
            longest = int(lengths.max())
            if longest < output.size(1):
                output = output[:, :longest]
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerEncoderLayer(Module):
    __constants__ = ["batch_first", "norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                            **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation_relu_or_gelu = _relu_or_gelu(activation)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None):
        _check_padding_mask(src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    __constants__ = ["batch_first", "norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                            **factory_kwargs)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if isinstance(activation, str):
            self.activation = _get_activation_fn(activation)
        else:
            self.activation = activation

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)
