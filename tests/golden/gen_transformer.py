#!/usr/bin/python3
"""Golden fixtures of multi-head attention and the Transformer family (issue 21), from torch 1.13:

  ops/attention.json          F.multi_head_attention_forward as the op glia_multi_head_attention_forward
                              (format: golden.py; tests/ops/attention_test.cpp)
  modules/transformer.json    nn.MultiheadAttention, TransformerEncoderLayer, TransformerEncoder,
                              TransformerDecoderLayer, TransformerDecoder, Transformer
                              (bindings/python/tests/test_transformer.py)
  modules/transformer_encoder.pt  torch.save of a TransformerEncoder's state_dict (loaded into glia's)

Run from tests/golden with a Python that has torch:
    /usr/bin/python3 gen_transformer.py
The output is committed; CI has no torch. One case per line; append new cases at the end.

modules/transformer.json: {"cases": [...], "errors": [...], "checkpoint": {...}}. A case is
{name, module, args, dtype, train, no_grad, params, inputs, flags, same, outs, w, grads, repr, keys, tol}:
  module, args: the class and its constructor's keyword arguments (TransformerEncoder /
        TransformerDecoder: {"layer": <layer args>, "num_layers": n, "norm": bool}); "activation" is
        "relu", "gelu" or "callable:<name of a torch.nn.functional function>"
  params: [{name, value}] named_parameters() after torch's init (seeded from the case's name)
  inputs: [[keyword, tensor or null]] forward's tensor arguments by keyword, in the signature's order;
        floating non-mask inputs require grad
  flags: forward's other keyword arguments (MultiheadAttention's need_weights, average_attn_weights)
  same: MultiheadAttention only: "qkv" when query, key and value are one tensor, "kv" when key and value are
  outs: the outputs (MultiheadAttention: attn_output and the weights, null when need_weights=False)
  w, grads: the gradients of sum_k sum(outs[k] * w[k]) w.r.t. each input ("input:<keyword>") and
        parameter ("<name>")
  no_grad: the forward ran under torch.no_grad() (torch's inference fast paths; no w, grads)
Errors are {name, module, args, call?, message}: the constructor (or, with call, the forward) fails with
torch's message.
"""

import json
import os
import zlib

import torch
import torch.nn as nn
import torch.nn.functional as F

from golden import Fixture, rnd, smooth

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = os.path.join(HERE, "modules")
IA, SH, DT = "GLIA_ERR_INVALID_ARGUMENT", "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE"

# ---------------------------------------------------------------------------------------------
# ops/attention.json: the functional form. Inputs (null: None):
#  0 query, 1 key, 2 value, 3 in_proj_weight, 4 in_proj_bias, 5 bias_k, 6 bias_v, 7 out_proj_weight,
#  8 out_proj_bias, 9 key_padding_mask, 10 attn_mask, 11 q_proj_weight, 12 k_proj_weight,
#  13 v_proj_weight, 14 static_k, 15 static_v
# args: embed_dim, num_heads, add_zero_attn, dropout_p, training, need_weights,
#       use_separate_proj_weight, average_attn_weights


def _mha(xs, a):
    xs = list(xs) + [None] * (16 - len(xs))
    try:
        out, w = F.multi_head_attention_forward(
            xs[0], xs[1], xs[2], a["embed_dim"], a["num_heads"], xs[3], xs[4], xs[5], xs[6],
            a.get("add_zero_attn", False), a.get("dropout_p", 0.0), xs[7], xs[8], training=a.get("training", True),
            key_padding_mask=xs[9], need_weights=a.get("need_weights", True), attn_mask=xs[10],
            use_separate_proj_weight=a.get("use_separate_proj_weight", False), q_proj_weight=xs[11],
            k_proj_weight=xs[12], v_proj_weight=xs[13], static_k=xs[14], static_v=xs[15],
            average_attn_weights=a.get("average_attn_weights", True))
    except AssertionError as e:  # golden.Fixture.error records ValueError and friends
        raise ValueError(str(e))
    return (out, w) if w is not None else out


OPS = {"multi_head_attention_forward": _mha}


def mha_inputs(L, S, N, E, H, kdim=None, vdim=None, bias=True, kv=False, f="float64", batched=True):
    """query, key, value and the projections of one attention (packed unless kdim/vdim)."""
    s = (lambda shape: smooth(shape, f, -1.0, 1.0))
    q = s([L, N, E] if batched else [L, E])
    k = s([S, N, kdim or E] if batched else [S, kdim or E])
    v = s([S, N, vdim or E] if batched else [S, vdim or E])
    xs = [q, k, v, None if kdim or vdim else s([3 * E, E]), s([3 * E]) if bias else None, None, None,
          s([E, E]), s([E]) if bias else None, None, None, None, None, None, None, None]
    if kdim or vdim:
        xs[11], xs[12], xs[13] = s([E, E]), s([E, kdim or E]), s([E, vdim or E])
    return xs


def with_(xs, **kv):
    slots = {"in_proj_weight": 3, "in_proj_bias": 4, "bias_k": 5, "bias_v": 6, "out_proj_bias": 8,
             "key_padding_mask": 9, "attn_mask": 10, "static_k": 14, "static_v": 15}
    xs = list(xs)
    for k, v in kv.items():
        xs[slots[k]] = v
    return xs


def build_ops():
    fx = Fixture(OPS, OPS.keys())
    c, e = fx.case, fx.error
    op = "multi_head_attention_forward"
    A = lambda E, H, **kw: dict(embed_dim=E, num_heads=H, **kw)  # noqa: E731
    causal = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1)
    kpm = torch.tensor([[False, False, False, True], [False, True, False, False]])
    c("self attention 2 heads", op, mha_inputs(3, 3, 2, 4, 2), **A(4, 2))
    c("cross attention", op, mha_inputs(3, 4, 2, 4, 2), **A(4, 2))
    c("one head no bias", op, mha_inputs(2, 3, 3, 4, 1, bias=False), **A(4, 1))
    c("per-head weights", op, mha_inputs(3, 4, 2, 6, 3), **A(6, 3, average_attn_weights=False))
    c("no weights", op, mha_inputs(3, 4, 2, 4, 2), **A(4, 2, need_weights=False))
    c("unbatched", op, mha_inputs(3, 4, 1, 4, 2, batched=False), **A(4, 2))
    c("unbatched per-head", op, mha_inputs(2, 3, 1, 4, 2, batched=False), **A(4, 2, average_attn_weights=False))
    c("bool causal mask", op, with_(mha_inputs(3, 3, 2, 4, 2), attn_mask=causal), **A(4, 2))
    c("float mask 2-D", op, with_(mha_inputs(3, 4, 2, 4, 2), attn_mask=smooth([3, 4], lo=-1.0, hi=1.0)), **A(4, 2))
    c("float mask 3-D", op, with_(mha_inputs(3, 4, 2, 4, 2), attn_mask=smooth([4, 3, 4], lo=-1.0, hi=1.0)),
      **A(4, 2))
    c("bool mask 3-D", op, with_(mha_inputs(3, 4, 1, 4, 2), attn_mask=rnd([2, 3, 4], "bool") & ~torch.eye(
        3, 4, dtype=torch.bool).expand(2, 3, 4)), **A(4, 2))
    c("key padding mask", op, with_(mha_inputs(3, 4, 2, 4, 2), key_padding_mask=kpm), **A(4, 2))
    c("float key padding mask", op, with_(mha_inputs(3, 4, 2, 4, 2), key_padding_mask=smooth([2, 4])), **A(4, 2))
    c("key padding and bool mask", op, with_(mha_inputs(3, 4, 2, 4, 2), key_padding_mask=kpm,
                                             attn_mask=torch.tensor([[False, True, False, False]] * 3)), **A(4, 2))
    c("key padding and float mask", op, with_(mha_inputs(3, 4, 2, 4, 2), key_padding_mask=kpm,
                                              attn_mask=smooth([3, 4], lo=-1.0, hi=1.0)), **A(4, 2))
    c("unbatched key padding", op, with_(mha_inputs(3, 4, 1, 4, 2, batched=False),
                                         key_padding_mask=torch.tensor([False, True, False, False])), **A(4, 2))
    c("bias_k bias_v", op, with_(mha_inputs(3, 4, 2, 4, 2), bias_k=smooth([1, 1, 4]), bias_v=smooth([1, 1, 4])),
      **A(4, 2))
    c("bias_kv with masks", op, with_(mha_inputs(3, 4, 2, 4, 2), bias_k=smooth([1, 1, 4]), bias_v=smooth([1, 1, 4]),
                                      key_padding_mask=kpm, attn_mask=smooth([3, 4], lo=-1.0, hi=1.0)), **A(4, 2))
    c("add_zero_attn", op, mha_inputs(3, 4, 2, 4, 2), **A(4, 2, add_zero_attn=True))
    c("add_zero_attn masks", op, with_(mha_inputs(3, 4, 2, 4, 2), key_padding_mask=kpm,
                                       attn_mask=torch.tensor([[False, False, True, False]] * 3)),
      **A(4, 2, add_zero_attn=True))
    c("kdim vdim", op, mha_inputs(3, 4, 2, 4, 2, kdim=3, vdim=5), **A(4, 2, use_separate_proj_weight=True))
    c("separate same dims", op, mha_inputs(3, 4, 2, 4, 2, kdim=4, vdim=4), **A(4, 2, use_separate_proj_weight=True))
    c("separate no bias", op, mha_inputs(2, 3, 2, 4, 2, kdim=2, bias=False), **A(4, 2, use_separate_proj_weight=True))
    c("static k v", op, with_(mha_inputs(3, 4, 2, 4, 2), static_k=smooth([4, 5, 2]), static_v=smooth([4, 5, 2])),
      **A(4, 2))
    c("dropout off in eval", op, mha_inputs(3, 4, 2, 4, 2), **A(4, 2, dropout_p=0.5, training=False))
    c("float32", op, mha_inputs(3, 4, 2, 8, 4, f="float32"), **A(8, 4))
    c("float32 causal", op, with_(mha_inputs(3, 3, 2, 4, 2, f="float32"), attn_mask=causal), **A(4, 2))
    c("zero batch", op, mha_inputs(3, 4, 0, 4, 2), **A(4, 2))

    f32 = lambda shape: rnd(shape, "float32")  # noqa: E731
    x = mha_inputs(3, 4, 2, 4, 2, f="float32")
    e("query 4-D", op, [f32([1, 3, 2, 4])] + x[1:], IA, **A(4, 2))
    e("key 2-D for batched", op, [x[0], f32([4, 4]), x[2]] + x[3:], IA, **A(4, 2))
    e("unbatched key 3-D", op, [f32([3, 4]), x[1], x[2]] + x[3:], IA, **A(4, 2))
    e("key padding 3-D", op, with_(x, key_padding_mask=torch.zeros(2, 4, 1, dtype=torch.bool)), IA, **A(4, 2))
    e("attn_mask 1-D", op, with_(x, attn_mask=torch.zeros(4, dtype=torch.bool)), IA, **A(4, 2))
    e("unbatched attn_mask 3-D shape", op, with_(mha_inputs(3, 4, 1, 4, 2, f="float32", batched=False),
                                                 attn_mask=torch.zeros(3, 3, 4, dtype=torch.bool)), IA, **A(4, 2))
    e("key padding int", op, with_(x, key_padding_mask=torch.zeros(2, 4, dtype=torch.int64)), IA, **A(4, 2))
    e("embed_dim check", op, x, IA, **A(5, 2))
    e("not divisible", op, mha_inputs(3, 4, 2, 5, 2, f="float32"), IA, **A(5, 2))
    e("key value shapes", op, [x[0], x[1], f32([5, 2, 4])] + x[3:], IA, **A(4, 2))
    e("in_proj_weight None", op, with_(x, in_proj_weight=None), IA, **A(4, 2))
    e("attn_mask int", op, with_(x, attn_mask=torch.zeros(3, 4, dtype=torch.int64)), IA, **A(4, 2))
    e("attn_mask 2-D shape", op, with_(x, attn_mask=torch.zeros(3, 3)), SH, **A(4, 2))
    e("attn_mask 3-D shape", op, with_(x, attn_mask=torch.zeros(2, 3, 4)), SH, **A(4, 2))
    e("key padding shape", op, with_(x, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool)), IA, **A(4, 2))
    e("static_k size 0", op, with_(x, static_k=f32([3, 4, 2])), IA, **A(4, 2))
    e("static_v size 2", op, with_(x, static_v=f32([4, 4, 3])), IA, **A(4, 2))
    e("separate key weight shape", op, mha_inputs(3, 4, 2, 4, 2, kdim=3, f="float32")[:12] + [f32([4, 4])] +
      mha_inputs(3, 4, 2, 4, 2, kdim=3, f="float32")[13:], IA, **A(4, 2, use_separate_proj_weight=True))
    e("bias with static key", op, with_(x, bias_k=f32([1, 1, 4]), bias_v=f32([1, 1, 4]), static_k=f32([4, 4, 2])),
      IA, **A(4, 2))
    fx.write("attention.json")


# ---------------------------------------------------------------------------------------------
# modules/transformer.json


def enc(t):
    if t is None:
        return None
    t = t.detach()
    vals = t.reshape(-1).tolist()
    if t.is_floating_point():
        vals = [v if v == v and abs(v) != float("inf") else str(v) for v in vals]
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "values": vals}


def activation(a):
    if isinstance(a, str) and a.startswith("callable:"):
        return getattr(F, a.split(":", 1)[1])
    return a


def make(module, args):
    a = dict(args)
    if module == "MultiheadAttention":
        return nn.MultiheadAttention(a.pop("embed_dim"), a.pop("num_heads"), **a)
    if module in ("TransformerEncoderLayer", "TransformerDecoderLayer", "Transformer"):
        if "activation" in a:
            a["activation"] = activation(a["activation"])
        return getattr(nn, module)(**a)
    layer_cls = "TransformerEncoderLayer" if module == "TransformerEncoder" else "TransformerDecoderLayer"
    layer = make(layer_cls, a["layer"])
    norm = nn.LayerNorm(a["layer"]["d_model"]) if a.get("norm") else None
    extra = {k: a[k] for k in ("enable_nested_tensor",) if k in a}
    return getattr(nn, module)(layer, a["num_layers"], norm, **extra)


MASKS = ("key_padding_mask", "attn_mask", "src_mask", "tgt_mask", "memory_mask", "mask", "src_key_padding_mask",
         "tgt_key_padding_mask", "memory_key_padding_mask")

cases = []


def case(name, module, args, inputs, flags=None, same=None, dtype=torch.float64, train=False, no_grad=False,
         tol=None):
    """inputs: [(keyword, shape or tensor or None)]; shapes get random values (floating, requiring grad)."""
    flags = flags or {}
    seed = zlib.crc32(name.encode())
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    m = make(module, args).to(dtype)
    m.train(train)
    xs = []
    for kw, spec in inputs:
        if spec is None or isinstance(spec, torch.Tensor):
            t = spec
            if t is not None and t.is_floating_point():
                t = t.to(dtype)
        else:
            t = torch.randn(*spec, generator=g, dtype=torch.float64).to(dtype).requires_grad_(not no_grad)
        xs.append((kw, t))
    params0 = [{"name": n, "value": enc(p)} for n, p in m.named_parameters()]
    kwargs = dict(xs)
    if module == "MultiheadAttention":
        if same == "qkv":
            kwargs["key"] = kwargs["value"] = kwargs["query"]
        elif same == "kv":
            kwargs["value"] = kwargs["key"]
    kwargs.update(flags)
    with torch.set_grad_enabled(not no_grad):
        out = m(**kwargs)
    outs = list(out) if isinstance(out, tuple) else [out]
    c = {"name": name, "module": module, "args": args, "dtype": str(dtype).replace("torch.", ""), "train": train,
         "no_grad": no_grad, "params": params0, "inputs": [[kw, enc(t)] for kw, t in xs], "flags": flags,
         "same": same, "outs": [enc(o) for o in outs], "repr": repr(m),
         "keys": [[k, list(v.shape)] for k, v in m.state_dict().items()],
         "tol": tol or (1e-10 if dtype == torch.float64 else 5e-5)}
    if not no_grad:
        ws = [None if o is None else torch.randn(*o.shape, generator=g, dtype=torch.float64).to(dtype) for o in outs]
        loss = sum((o * w).sum() for o, w in zip(outs, ws) if o is not None)
        wrt = [(f"input:{kw}", t) for kw, t in xs if t is not None and t.requires_grad]
        wrt += list(m.named_parameters())
        gs = torch.autograd.grad(loss, [t for _, t in wrt], allow_unused=True)
        c["w"] = [enc(w) for w in ws]
        c["grads"] = {n: enc(gr if gr is not None else torch.zeros_like(t)) for (n, t), gr in zip(wrt, gs)}
    cases.append(c)


def mha(E, H, **kw):
    return dict(embed_dim=E, num_heads=H, **kw)


def layer(d, h, ff, **kw):
    return dict(d_model=d, nhead=h, dim_feedforward=ff, **kw)


def build_modules():
    causal3 = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1)
    kpm = torch.tensor([[False, False, False, True], [False, True, False, False]])
    kpm_left = torch.tensor([[False, False, False, True], [False, False, False, False]])
    # MultiheadAttention [L, N, E] (batch_first: [N, L, E])
    MH = "MultiheadAttention"
    case("mha_self", MH, mha(4, 2), [("query", (3, 2, 4)), ("key", None), ("value", None)], same="qkv")
    case("mha_cross", MH, mha(4, 2), [("query", (3, 2, 4)), ("key", (4, 2, 4)), ("value", (4, 2, 4))])
    case("mha_kv_same", MH, mha(4, 2), [("query", (3, 2, 4)), ("key", (4, 2, 4)), ("value", None)], same="kv")
    case("mha_batch_first_masks", MH, mha(4, 2, batch_first=True),
         [("query", (2, 3, 4)), ("key", (2, 4, 4)), ("value", (2, 4, 4)), ("key_padding_mask", kpm),
          ("attn_mask", torch.tensor([[False, False, True, False]] * 3))])
    case("mha_kdim_vdim", MH, mha(4, 2, kdim=3, vdim=5), [("query", (3, 2, 4)), ("key", (4, 2, 3)),
                                                        ("value", (4, 2, 5))])
    case("mha_bias_kv_zero_attn_no_bias", MH, mha(6, 3, bias=False, add_bias_kv=True, add_zero_attn=True),
         [("query", (2, 3, 6)), ("key", (4, 3, 6)), ("value", (4, 3, 6))])
    case("mha_unbatched_per_head", MH, mha(4, 2), [("query", (3, 4)), ("key", (5, 4)), ("value", (5, 4))],
         flags={"average_attn_weights": False})
    case("mha_no_weights_float_mask", MH, mha(4, 1), [("query", (3, 2, 4)), ("key", (3, 2, 4)),
                                                     ("value", (3, 2, 4)), ("attn_mask", torch.randn(
                                                         3, 3, generator=torch.Generator().manual_seed(7)))],
         flags={"need_weights": False})
    case("mha_dropout_eval_f32", MH, mha(8, 4, dropout=0.5), [("query", (3, 2, 8)), ("key", None), ("value", None)],
         same="qkv", dtype=torch.float32)

    EL, DL = "TransformerEncoderLayer", "TransformerDecoderLayer"
    case("encoder_layer", EL, layer(4, 2, 8), [("src", (3, 2, 4))])
    case("encoder_layer_norm_first_gelu_masks", EL, layer(4, 2, 6, activation="gelu", norm_first=True),
         [("src", (4, 2, 4)), ("src_mask", torch.triu(torch.full((4, 4), float("-inf")), 1)),
          ("src_key_padding_mask", kpm)])
    case("encoder_layer_batch_first_callable", EL, layer(6, 3, 5, activation="callable:silu", batch_first=True,
                                                         layer_norm_eps=1e-3),
         [("src", (2, 3, 6)), ("src_mask", causal3)])
    case("encoder_layer_unbatched", EL, layer(4, 2, 8), [("src", (3, 4))])
    case("encoder_layer_f32", EL, layer(8, 2, 16), [("src", (5, 3, 8))], dtype=torch.float32)
    case("decoder_layer", DL, layer(4, 2, 8), [("tgt", (3, 2, 4)), ("memory", (5, 2, 4)),
                                              ("tgt_mask", causal3)])
    case("decoder_layer_norm_first_masks", DL, layer(4, 2, 6, norm_first=True, activation="gelu", batch_first=True),
         [("tgt", (2, 3, 4)), ("memory", (2, 4, 4)), ("tgt_mask", causal3),
          ("memory_mask", torch.tensor([[False, True, False, False]] * 3)),
          ("tgt_key_padding_mask", torch.tensor([[False, False, True], [False, False, False]])),
          ("memory_key_padding_mask", kpm)])
    case("encoder", "TransformerEncoder", {"layer": layer(4, 2, 8), "num_layers": 2, "norm": True},
         [("src", (3, 2, 4)), ("mask", causal3)])
    case("encoder_padding_no_norm", "TransformerEncoder",
         {"layer": layer(4, 2, 8, batch_first=True), "num_layers": 3, "norm": False},
         [("src", (2, 4, 4)), ("src_key_padding_mask", kpm_left)])
    case("decoder", "TransformerDecoder", {"layer": layer(4, 2, 8), "num_layers": 2, "norm": True},
         [("tgt", (3, 2, 4)), ("memory", (4, 2, 4)), ("tgt_mask", causal3),
          ("memory_key_padding_mask", kpm)])
    case("transformer", "Transformer", dict(d_model=4, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                                            dim_feedforward=8),
         [("src", (4, 2, 4)), ("tgt", (3, 2, 4)), ("tgt_mask", nn.Transformer.generate_square_subsequent_mask(3)),
          ("src_key_padding_mask", kpm_left)])
    case("transformer_batch_first_norm_first", "Transformer",
         dict(d_model=6, nhead=3, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=4, batch_first=True,
              norm_first=True, activation="gelu", dropout=0.2),
         [("src", (2, 4, 6)), ("tgt", (2, 3, 6)), ("memory_mask", torch.zeros(3, 4))])
    case("transformer_unbatched", "Transformer", dict(d_model=4, nhead=2, num_encoder_layers=1,
                                                      num_decoder_layers=1, dim_feedforward=8),
         [("src", (4, 4)), ("tgt", (3, 4))])
    # torch's inference fast path (no grad, eval, batch_first, even heads): the nested-tensor
    # TransformerEncoder gives zeros at padded positions before its norm.
    case("encoder_fast_path_padding", "TransformerEncoder",
         {"layer": layer(4, 2, 8, batch_first=True), "num_layers": 2, "norm": True},
         [("src", (2, 4, 4)), ("src_key_padding_mask", kpm_left)], no_grad=True, tol=1e-6)
    case("encoder_fast_path_no_padding", "TransformerEncoder",
         {"layer": layer(4, 2, 8, batch_first=True), "num_layers": 2, "norm": False},
         [("src", (2, 4, 4))], no_grad=True, tol=1e-6)


errors = []


def error(name, module, args, call=None):
    try:
        m = make(module, args)
        if call is not None:
            m(*[torch.zeros(s) if isinstance(s, tuple) else s for s in call])
    except Exception as e:  # noqa: BLE001
        errors.append({"name": name, "module": module, "args": args, "call": call is not None,
                       "type": type(e).__name__, "message": str(e),
                       "inputs": None if call is None else [enc(torch.zeros(s)) if isinstance(s, tuple) else enc(s)
                                                            for s in call]})
        return
    raise AssertionError(name + " did not fail")


def build_errors():
    error("mha_not_divisible", "MultiheadAttention", mha(5, 2))
    error("activation_unknown", "TransformerEncoderLayer", layer(4, 2, 8, activation="tanh"))
    error("decoder_activation_unknown", "TransformerDecoderLayer", layer(4, 2, 8, activation="sigmoid"))
    error("transformer_batch_mismatch", "Transformer", dict(d_model=4, nhead=2, num_encoder_layers=1,
                                                             num_decoder_layers=1, dim_feedforward=8),
          call=[(3, 2, 4), (3, 3, 4)])
    error("transformer_feature_mismatch", "Transformer", dict(d_model=4, nhead=2, num_encoder_layers=1,
                                                               num_decoder_layers=1, dim_feedforward=8),
          call=[(3, 2, 4), (3, 2, 5)])
    error("encoder_layer_int_padding", "TransformerEncoderLayer", layer(4, 2, 8),
          call=[(3, 2, 4), None, torch.zeros(2, 3, dtype=torch.int64)])


def checkpoint():
    torch.manual_seed(21)
    m = make("TransformerEncoder", {"layer": layer(8, 2, 16, batch_first=True), "num_layers": 2, "norm": True})
    m.eval()
    torch.save(m.state_dict(), os.path.join(MODULES, "transformer_encoder.pt"))
    x = torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(5))
    kpm = torch.tensor([[False] * 5, [False, False, False, True, True]])
    out = m(x, src_key_padding_mask=kpm)  # grad enabled: torch's ordinary path
    return {"file": "transformer_encoder.pt", "args": {"layer": layer(8, 2, 16, batch_first=True),
                                                         "num_layers": 2, "norm": True},
            "input": enc(x), "src_key_padding_mask": enc(kpm), "out": enc(out)}


def write_modules(ckpt):
    os.makedirs(MODULES, exist_ok=True)
    with open(os.path.join(MODULES, "transformer.json"), "w") as f:
        f.write('{"cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write('\n], "errors": [\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in errors))
        f.write('\n], "checkpoint": ')
        f.write(json.dumps(ckpt, separators=(",", ":")))
        f.write("}\n")


if __name__ == "__main__":
    assert torch.__version__.startswith("1.13"), torch.__version__
    build_ops()
    build_modules()
    build_errors()
    write_modules(checkpoint())
