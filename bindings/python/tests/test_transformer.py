"""glia.nn's attention modules against torch 1.13 through the binding: the golden cases of
tests/golden/modules/transformer.json (tests/golden/gen_transformer.py) for MultiheadAttention and the
Transformer family (values, gradients of inputs and parameters, reprs, state-dict keys), torch's errors, a
torch checkpoint of a TransformerEncoder, and F.multi_head_attention_forward's torch-compatible surface."""

import copy
import json
import os

import numpy as np
import pytest

import glia
import glia.nn.functional as F
from glia import nn

from _repo import ROOT

with open(os.path.join(ROOT, "tests", "golden", "modules", "transformer.json")) as _f:
    FIX = json.load(_f)

_NP = {"float32": np.float32, "float64": np.float64, "bool": np.bool_, "int64": np.int64}
_DT = {"float32": glia.float32, "float64": glia.float64}


def T(enc):
    if enc["dtype"] == "bool":
        v = np.array(enc["values"], dtype=np.bool_)
    elif enc["dtype"] == "int64":
        v = np.array(enc["values"], dtype=np.int64)
    else:
        v = np.array([float(x) for x in enc["values"]], dtype=np.float64).astype(_NP[enc["dtype"]])
    return glia.from_numpy(v.reshape(enc["shape"]).copy())


def activation(a):
    if isinstance(a, str) and a.startswith("callable:"):
        return getattr(F, a.split(":", 1)[1])
    return a


def make(module, args, dtype):
    a = dict(args)
    if module == "MultiheadAttention":
        return nn.MultiheadAttention(a.pop("embed_dim"), a.pop("num_heads"), **a, dtype=dtype)
    if module in ("TransformerEncoderLayer", "TransformerDecoderLayer", "Transformer"):
        if "activation" in a:
            a["activation"] = activation(a["activation"])
        return getattr(nn, module)(**a, dtype=dtype)
    layer_cls = "TransformerEncoderLayer" if module == "TransformerEncoder" else "TransformerDecoderLayer"
    layer = make(layer_cls, a["layer"], dtype)
    norm = nn.LayerNorm(a["layer"]["d_model"], dtype=dtype) if a.get("norm") else None
    return getattr(nn, module)(layer, a["num_layers"], norm)


MASKS = ("mask", "key_padding_mask", "attn_mask")


def close(t, enc, tol, where):
    assert list(t.shape) == enc["shape"], "%s: shape %s != %s" % (where, list(t.shape), enc["shape"])
    want = np.array([float(x) for x in enc["values"]]).reshape(enc["shape"])
    got = t.detach().numpy().astype(np.float64)
    assert np.all(np.abs(got - want) <= tol * (1 + np.abs(want))), "%s: max diff %g" % (
        where, np.max(np.abs(got - want)) if got.size else 0)


@pytest.mark.parametrize("c", FIX["cases"], ids=[c["name"] for c in FIX["cases"]])
def test_golden(c):
    dtype = _DT[c["dtype"]]
    m = make(c["module"], c["args"], dtype)
    assert repr(m) == c["repr"]
    assert [[k, list(v.shape)] for k, v in m.state_dict().items()] == c["keys"]
    m.load_state_dict({p["name"]: T(p["value"]) for p in c["params"]})
    m.train(c["train"])
    kwargs = {}
    xs = []
    for kw, enc in c["inputs"]:
        t = None if enc is None else T(enc)
        if t is not None and t.is_floating_point() and not kw.endswith(MASKS) and not c["no_grad"]:
            t.requires_grad_()
            xs.append((kw, t))
        kwargs[kw] = t
    if c["same"] == "qkv":
        kwargs["key"] = kwargs["value"] = kwargs["query"]
    elif c["same"] == "kv":
        kwargs["value"] = kwargs["key"]
    kwargs.update(c["flags"])
    if c["no_grad"]:
        with glia.no_grad():
            out = m(**kwargs)
    else:
        out = m(**kwargs)
    outs = list(out) if isinstance(out, tuple) else [out]
    assert len(outs) == len(c["outs"])
    tol = c["tol"]
    for k, (o, want) in enumerate(zip(outs, c["outs"])):
        if want is None:
            assert o is None, "out%d should be None" % k
        else:
            close(o, want, tol, "out%d" % k)
    if c["no_grad"]:
        return
    loss = None
    for o, w in zip(outs, c["w"]):
        if w is not None:
            term = (o * T(w)).sum()
            loss = term if loss is None else loss + term
    loss.backward()
    for kw, x in xs:
        close(x.grad, c["grads"]["input:" + kw], tol, "grad of " + kw)
    for name, p in m.named_parameters():
        close(p.grad, c["grads"][name], tol, "grad of " + name)


@pytest.mark.parametrize("e", FIX["errors"], ids=[e["name"] for e in FIX["errors"]])
def test_errors(e):
    exc = {"AssertionError": AssertionError, "RuntimeError": RuntimeError}[e["type"]]
    if not e["call"]:
        with pytest.raises(exc) as info:
            make(e["module"], e["args"], glia.float32)
    else:
        m = make(e["module"], e["args"], glia.float32)
        inputs = [None if x is None else T(x) for x in e["inputs"]]
        with pytest.raises(exc) as info:
            m(*inputs)
    assert str(info.value) == e["message"]


def test_torch_checkpoint_loads():
    ck = FIX["checkpoint"]
    m = make("TransformerEncoder", ck["args"], glia.float32)
    m.load_state_dict(glia.load(os.path.join(ROOT, "tests", "golden", "modules", ck["file"])))
    m.eval()
    out = m(T(ck["input"]), src_key_padding_mask=T(ck["src_key_padding_mask"]))
    close(out, ck["out"], 2e-5, "out")


def test_multihead_attention_module_surface():
    m = nn.MultiheadAttention(8, 2, kdim=4, vdim=6, bias=False, add_bias_kv=True)
    assert [n for n, _ in m.named_parameters()] == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k",
                                                    "bias_v", "out_proj.weight"]
    assert m.in_proj_weight is None and m.in_proj_bias is None and m.out_proj.bias is None
    assert (m.embed_dim, m.kdim, m.vdim, m.num_heads, m.head_dim) == (8, 4, 6, 2, 4)
    assert not m._qkv_same_embed_dim and not m.batch_first
    m2 = nn.MultiheadAttention(4, 2)
    assert m2.bias_k is None and m2.bias_v is None
    # torch's init: zero biases, xavier_uniform_ in_proj_weight (bound sqrt(6 / (4 + 12)))
    assert float(m2.in_proj_bias.abs().sum()) == 0.0 and float(m2.out_proj.bias.abs().sum()) == 0.0
    assert float(m2.in_proj_weight.abs().max()) <= (6.0 / 16) ** 0.5
    assert float(m2.in_proj_weight.std()) > 0.1
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)


def test_deepcopy_keeps_out_proj():
    layer = nn.TransformerEncoderLayer(4, 2, 8)
    enc = nn.TransformerEncoder(layer, 2)
    for i in range(2):
        for (n1, p1), (n2, p2) in zip(layer.named_parameters(), enc.layers[i].named_parameters()):
            assert n1 == n2
            assert np.array_equal(p1.detach().numpy(), p2.detach().numpy()), n1
            assert p1 is not p2
    clone = copy.deepcopy(layer.self_attn)
    assert np.array_equal(clone.out_proj.weight.detach().numpy(), layer.self_attn.out_proj.weight.detach().numpy())


def test_forward_hooks_see_masks():
    m = nn.MultiheadAttention(4, 2)
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append((len(args), args[3] is None, args[4] is not None)))
    q = glia.randn(3, 2, 4)
    mask = glia.zeros(3, 3, dtype=glia.bool)
    out, w = m(q, q, q, attn_mask=mask, need_weights=False)
    assert w is None and list(out.shape) == [3, 2, 4]
    assert seen == [(5, True, True)]


def test_functional_errors_are_torchs():
    q = glia.randn(3, 2, 4)
    w = glia.randn(12, 4)
    ow = glia.randn(4, 4)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 5, but got 4"):
        F.multi_head_attention_forward(q, q, q, 5, 2, w, None, None, None, False, 0.0, ow, None)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is torch.Size\(\[2, 2\]\), but should be "
                                           r"\(3, 3\)."):
        F.multi_head_attention_forward(q, q, q, 4, 2, w, None, None, None, False, 0.0, ow, None,
                                       attn_mask=glia.zeros(2, 2))
    out, weights = F.multi_head_attention_forward(q, q, q, 4, 2, w, None, None, None, False, 0.0, ow, None,
                                                  need_weights=False)
    assert weights is None and list(out.shape) == [3, 2, 4]


def test_generate_square_subsequent_mask():
    m = nn.Transformer.generate_square_subsequent_mask(3)
    inf = float("inf")
    assert m.tolist() == [[0.0, -inf, -inf], [0.0, 0.0, -inf], [0.0, 0.0, 0.0]]


def test_dropout_in_training_changes_weights():
    glia.manual_seed(0)
    m = nn.MultiheadAttention(4, 2, dropout=0.5)
    q = glia.randn(3, 2, 4)
    _, w_train = m(q, q, q)
    m.eval()
    _, w_eval = m(q, q, q)
    # eval: rows of averaged weights sum to 1; training drops and rescales some
    assert np.allclose(w_eval.sum(-1).detach().numpy(), 1.0)
    assert not np.allclose(w_train.detach().numpy(), w_eval.detach().numpy())
