#!/usr/bin/python3
"""Writes tests/golden/modules/rnn.json and rnn_lstm.pt: the recurrent
modules (RNNCell, LSTMCell, GRUCell, RNN, LSTM, GRU) of tests/nn/rnn_test.cpp
and bindings/python/tests/test_rnn.py against torch.nn (torch 1.13).

Run from tests/golden with a Python that has torch:
    /usr/bin/python3 gen_rnn.py
The output is committed; CI has no torch.

{"cases": [...], "errors": [...], "forward_errors": [...], "checkpoint": {...}}
one case, error or forward error per line.

A case is {name, module, args, dtype, train, params, inputs, outs, w, grads,
repr, keys, tol}:
  module, args: which constructor (RNNCell, LSTMCell, GRUCell, RNN, LSTM,
        GRU) and its torch keyword arguments (torch's defaults where absent)
  params: [{name, value}] the torch module's parameters (torch's init from the
        case's seed) in registration order; the test copies them into glia's
  inputs: forward's tensors flattened as glia_module_forward takes them
        (input, then h / h_0, then c / c_0 for the LSTMs), null for a state
        that is not given; all require grad
  outs: the outputs flattened the same way (output, h_n[, c_n]; h'[, c'])
  w: one weight per output; grads: {"input<i>", "<param name>"}: the
        gradients of sum_k sum(outs[k] * w[k])
  repr: repr(module); keys: [[key, shape]] of module.state_dict()
  tol: relative tolerance (|glia - torch| <= tol * (1 + |torch|))
Each case draws from its own generator (seeded from its name), so adding a
case changes no other.

An error is {name, module, args, message}: constructing fails with
GLIA_ERR_INVALID_ARGUMENT and a message containing torch's str(exception).
A forward error is {name, module, args, inputs, message}: the call fails with
GLIA_ERR_SHAPE and torch's text.

checkpoint: {file, module, args, input, outs}: rnn_lstm.pt is torch.save of
an LSTM's state_dict(); loaded into glia's LSTM, forward on `input` gives outs.
"""

import json
import os
import zlib

import torch
import torch.nn as nn

from golden import encode

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "modules")

CTORS = {"RNNCell": nn.RNNCell, "LSTMCell": nn.LSTMCell, "GRUCell": nn.GRUCell,
         "RNN": nn.RNN, "LSTM": nn.LSTM, "GRU": nn.GRU}
CELLS = ("RNNCell", "LSTMCell", "GRUCell")


def enc(t):
    if t is None:
        return None
    t = t.detach()
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
            "values": [encode(v) for v in t.reshape(-1).tolist()]}


def make(module, args):
    a = dict(args)
    pos = [a.pop("input_size"), a.pop("hidden_size")]
    return CTORS[module](*pos, **a)


def flat_inputs(module, xs):
    """torch's forward arguments for the flattened inputs [input, h?, c?]."""
    x = xs[0]
    if module == "LSTMCell" or module == "LSTM":
        hx = (xs[1], xs[2]) if len(xs) > 1 and xs[1] is not None else None
    else:
        hx = xs[1] if len(xs) > 1 else None
    return (x,) if hx is None else (x, hx)


def flat_outputs(module, out):
    if module in ("RNNCell", "GRUCell"):
        return [out]
    if module == "LSTMCell":
        return list(out)
    if module == "LSTM":
        return [out[0], out[1][0], out[1][1]]
    return [out[0], out[1]]


cases = []


def case(name, module, args, shapes, dtype=torch.float64, train=False, tol=None):
    """shapes: the input's shape, then the states' shapes (None: not given)."""
    name = name + ("" if dtype == torch.float64 else "_f32")
    g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
    torch.manual_seed(zlib.crc32(name.encode()))
    m = make(module, args).to(dtype)
    m.train(train)
    xs = []
    for s in shapes:
        if s is None:
            xs.append(None)
        else:
            xs.append(torch.randn(*s, generator=g, dtype=torch.float64).to(dtype).requires_grad_(True))
    params0 = [{"name": n, "value": enc(p)} for n, p in m.named_parameters()]
    outs = flat_outputs(module, m(*flat_inputs(module, xs)))
    ws = [torch.randn(*o.shape, generator=g, dtype=torch.float64).to(dtype) for o in outs]
    loss = sum((o * w).sum() for o, w in zip(outs, ws))
    diff = [x for x in xs if x is not None] + list(m.parameters())
    gs = torch.autograd.grad(loss, diff, allow_unused=True)
    grads = {}
    k = 0
    for i, x in enumerate(xs):
        if x is not None:
            grads[f"input{i}"] = enc(gs[k])
            k += 1
    for (n, p), gr in zip(m.named_parameters(), gs[k:]):
        grads[n] = enc(gr if gr is not None else torch.zeros_like(p))
    if tol is None:
        tol = 1e-10 if dtype == torch.float64 else 5e-5
    cases.append({
        "name": name, "module": module, "args": args, "dtype": str(dtype).replace("torch.", ""), "train": train,
        "params": params0, "inputs": [enc(x) for x in xs], "outs": [enc(o) for o in outs],
        "w": [enc(w) for w in ws], "grads": grads, "repr": repr(m),
        "keys": [[k, list(v.shape)] for k, v in m.state_dict().items()], "tol": tol,
    })


def both(*a, **kw):
    case(*a, dtype=torch.float64, **kw)
    case(*a, dtype=torch.float32, **kw)


cell = lambda i, h, **kw: dict({"input_size": i, "hidden_size": h}, **kw)

# Cells: batched and unbatched, with and without a state, bias, relu.
both("rnn_cell", "RNNCell", cell(3, 4), [(5, 3)])
case("rnn_cell_relu_nobias_state", "RNNCell", cell(3, 4, bias=False, nonlinearity="relu"), [(5, 3), (5, 4)])
case("rnn_cell_unbatched_state", "RNNCell", cell(3, 4), [(3,), (4,)])
both("lstm_cell_state", "LSTMCell", cell(3, 4), [(5, 3), (5, 4), (5, 4)])
case("lstm_cell", "LSTMCell", cell(4, 3), [(2, 4)])
case("lstm_cell_unbatched_nobias", "LSTMCell", cell(3, 4, bias=False), [(3,), (4,), (4,)])
case("lstm_cell_unbatched", "LSTMCell", cell(3, 2), [(3,)])
both("gru_cell_state", "GRUCell", cell(3, 4), [(5, 3), (5, 4)])
case("gru_cell_unbatched", "GRUCell", cell(3, 4), [(3,)])
case("gru_cell_nobias", "GRUCell", cell(2, 3, bias=False), [(4, 2), (4, 3)])

# Layers: [seq, batch, feature] unless batch_first; states [layers * dirs, batch, hidden].
both("rnn", "RNN", cell(3, 4), [(5, 2, 3)])
case("rnn_relu_2layers_bidir_state", "RNN", cell(3, 4, num_layers=2, nonlinearity="relu", bidirectional=True),
     [(4, 2, 3), (4, 2, 4)])
case("rnn_batch_first_nobias", "RNN", cell(3, 4, batch_first=True, bias=False), [(2, 5, 3), (1, 2, 4)])
case("rnn_unbatched_state", "RNN", cell(3, 4, num_layers=2), [(5, 3), (2, 4)])
both("lstm", "LSTM", cell(3, 4), [(5, 2, 3)])
both("lstm_2layers_state", "LSTM", cell(3, 4, num_layers=2), [(4, 3, 3), (2, 3, 4), (2, 3, 4)])
case("lstm_bidir_batch_first", "LSTM", cell(3, 4, bidirectional=True, batch_first=True), [(2, 5, 3)])
both("lstm_proj_2layers_bidir", "LSTM", cell(3, 5, num_layers=2, bidirectional=True, proj_size=2),
     [(4, 2, 3), (4, 2, 2), (4, 2, 5)])
case("lstm_proj_unbatched_batch_first", "LSTM", cell(3, 4, proj_size=3, batch_first=True), [(5, 3)])
case("lstm_unbatched_state", "LSTM", cell(3, 4, num_layers=2), [(5, 3), (2, 4), (2, 4)])
case("lstm_nobias_3layers", "LSTM", cell(2, 3, num_layers=3, bias=False), [(3, 2, 2)])
case("lstm_dropout_eval", "LSTM", cell(3, 4, num_layers=2, dropout=0.5), [(4, 2, 3)])
case("lstm_seq1", "LSTM", cell(3, 4, bidirectional=True), [(1, 3, 3)])
both("gru_2layers_bidir", "GRU", cell(3, 4, num_layers=2, bidirectional=True), [(4, 2, 3), (4, 2, 4)])
case("gru_batch_first_state", "GRU", cell(3, 4, batch_first=True), [(2, 5, 3), (1, 2, 4)])
case("gru_unbatched", "GRU", cell(3, 4, batch_first=True), [(5, 3)])

errors = []


def error(name, module, args):
    try:
        make(module, args)
    except Exception as e:  # noqa: BLE001
        errors.append({"name": name, "module": module, "args": args, "message": str(e)})
        return
    raise AssertionError(name + " did not fail")


error("rnn_nonlinearity", "RNN", cell(3, 4, nonlinearity="sigmoid"))
error("rnn_proj", "RNN", cell(3, 4, proj_size=2))
error("gru_proj", "GRU", cell(3, 4, proj_size=2))
error("lstm_proj_large", "LSTM", cell(3, 4, proj_size=4))
error("lstm_proj_negative", "LSTM", cell(3, 4, proj_size=-1))
error("lstm_dropout_high", "LSTM", cell(3, 4, dropout=1.5))
error("gru_dropout_negative", "GRU", cell(3, 4, dropout=-0.5))
error("lstm_hidden_zero", "LSTM", cell(3, 0))
error("gru_hidden_negative", "GRU", cell(3, -1))
error("rnn_input_negative", "RNN", cell(-3, 4))
error("rnn_cell_hidden_negative", "RNNCell", cell(3, -4))
error("lstm_cell_input_negative", "LSTMCell", cell(-2, 4))


def cell_nonlinearity():
    # torch checks RNNCell's nonlinearity at the first call; glia at construction.
    try:
        nn.RNNCell(3, 4, nonlinearity="sigmoid")(torch.zeros(1, 3))
    except RuntimeError as e:
        errors.append({"name": "rnn_cell_nonlinearity", "module": "RNNCell",
                       "args": cell(3, 4, nonlinearity="sigmoid"), "message": str(e)})


cell_nonlinearity()

forward_errors = []


def ferror(name, module, args, inputs):
    xs = [None if s is None else torch.zeros(s) for s in inputs]
    try:
        make(module, args)(*flat_inputs(module, xs))
    except Exception as e:  # noqa: BLE001
        forward_errors.append({"name": name, "module": module, "args": args, "message": str(e),
                               "inputs": [enc(x) for x in xs]})
        return
    raise AssertionError(name + " did not fail")


ferror("rnn_cell_3d", "RNNCell", cell(3, 4), [(2, 1, 3)])
ferror("lstm_cell_3d", "LSTMCell", cell(3, 4), [(2, 1, 3)])
ferror("gru_cell_0d", "GRUCell", cell(3, 4), [()])
ferror("rnn_cell_input_size", "RNNCell", cell(3, 4), [(2, 5)])
ferror("rnn_cell_hidden_batch", "RNNCell", cell(3, 4), [(2, 3), (3, 4)])
ferror("gru_cell_hidden_size", "GRUCell", cell(3, 4), [(2, 3), (2, 5)])
ferror("lstm_cell_c_size", "LSTMCell", cell(3, 4), [(2, 3), (2, 4), (2, 5)])
ferror("lstm_cell_c_batch", "LSTMCell", cell(3, 4), [(2, 3), (2, 4), (3, 4)])
ferror("rnn_cell_unbatched_hidden", "RNNCell", cell(3, 4), [(3,), (2, 4)])
ferror("lstm_input_size", "LSTM", cell(3, 4, num_layers=2), [(5, 2, 4)])
ferror("lstm_4d", "LSTM", cell(3, 4), [(5, 2, 3, 1)])
ferror("lstm_1d", "LSTM", cell(3, 4), [(5,)])
ferror("lstm_empty_seq", "LSTM", cell(3, 4), [(0, 2, 3)])
ferror("lstm_c_size", "LSTM", cell(3, 4, num_layers=2), [(5, 2, 3), (2, 2, 4), (2, 3, 4)])
ferror("lstm_h_size", "LSTM", cell(3, 4, num_layers=2, bidirectional=True), [(5, 2, 3), (2, 2, 4), (4, 2, 4)])
ferror("lstm_proj_h_size", "LSTM", cell(3, 4, proj_size=2), [(5, 2, 3), (1, 2, 4), (1, 2, 4)])
ferror("lstm_batched_2d_state", "LSTM", cell(3, 4), [(5, 2, 3), (2, 4), (1, 2, 4)])
ferror("lstm_unbatched_3d_state", "LSTM", cell(3, 4), [(5, 3), (1, 1, 4), (1, 1, 4)])
ferror("rnn_unbatched_3d_state", "RNN", cell(3, 4), [(5, 3), (1, 1, 4)])
ferror("gru_batched_2d_state", "GRU", cell(3, 4), [(5, 2, 3), (1, 4)])
ferror("rnn_hidden_size", "RNN", cell(3, 4), [(5, 2, 3), (2, 2, 4)])
ferror("gru_batch_first_hidden", "GRU", cell(3, 4, batch_first=True), [(2, 5, 3), (1, 5, 4)])

# Packed sequences (torch.nn.utils.rnn) through the layers.
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence  # noqa: E402

packed = []


def packed_case(name, module, args, steps, lengths, enforce_sorted=True, state=False, dtype=torch.float64,
                train=False, tol=None):
    name = name + ("" if dtype == torch.float64 else "_f32")
    g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
    torch.manual_seed(zlib.crc32(name.encode()))
    m = make(module, args).to(dtype)
    m.train(train)
    bf = args.get("batch_first", False)
    shape = (len(lengths), steps, args["input_size"]) if bf else (steps, len(lengths), args["input_size"])
    x = torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype).requires_grad_(True)
    dirs = 2 if args.get("bidirectional") else 1
    layers = args.get("num_layers", 1)
    real = args.get("proj_size", 0) or args["hidden_size"]
    xs = [x]
    hx = None
    if state:
        h0 = torch.randn(layers * dirs, len(lengths), real, generator=g, dtype=torch.float64).to(dtype)
        xs.append(h0.requires_grad_(True))
        if module == "LSTM":
            c0 = torch.randn(layers * dirs, len(lengths), args["hidden_size"], generator=g,
                             dtype=torch.float64).to(dtype)
            xs.append(c0.requires_grad_(True))
            hx = (h0, c0)
        else:
            hx = h0
    params0 = [{"name": n, "value": enc(p)} for n, p in m.named_parameters()]
    p = pack_padded_sequence(x, lengths, batch_first=bf, enforce_sorted=enforce_sorted)
    out, hidden = m(p) if hx is None else m(p, hx)
    padded, out_lengths = pad_packed_sequence(out, batch_first=bf)
    outs = [padded] + (list(hidden) if module == "LSTM" else [hidden])
    ws = [torch.randn(*o.shape, generator=g, dtype=torch.float64).to(dtype) for o in outs]
    loss = sum((o * w).sum() for o, w in zip(outs, ws))
    gs = torch.autograd.grad(loss, xs + list(m.parameters()))
    grads = {f"input{i}": enc(gr) for i, gr in enumerate(gs[:len(xs)])}
    for (n, _), gr in zip(m.named_parameters(), gs[len(xs):]):
        grads[n] = enc(gr)
    if tol is None:
        tol = 1e-10 if dtype == torch.float64 else 5e-5
    packed.append({
        "name": name, "module": module, "args": args, "dtype": str(dtype).replace("torch.", ""), "train": train,
        "params": params0, "inputs": [enc(t) for t in xs], "lengths": lengths, "enforce_sorted": enforce_sorted,
        "packed": [enc(p.data), enc(p.batch_sizes), enc(p.sorted_indices), enc(p.unsorted_indices)],
        "out_data": enc(out.data), "outs": [enc(o) for o in outs], "out_lengths": enc(out_lengths),
        "w": [enc(w) for w in ws], "grads": grads, "tol": tol,
    })


packed_case("packed_lstm", "LSTM", cell(3, 4), 5, [5, 3, 2])
packed_case("packed_lstm", "LSTM", cell(3, 4), 5, [5, 3, 2], dtype=torch.float32)
packed_case("packed_lstm_unsorted_state", "LSTM", cell(3, 4, num_layers=2), 4, [2, 4, 1, 4], enforce_sorted=False,
            state=True)
packed_case("packed_lstm_proj_bidir_batch_first", "LSTM",
            cell(3, 5, num_layers=2, bidirectional=True, proj_size=2, batch_first=True), 5, [3, 5, 1],
            enforce_sorted=False, state=True)
packed_case("packed_gru_bidir", "GRU", cell(2, 3, bidirectional=True), 4, [4, 4, 2, 1])
packed_case("packed_rnn_relu_unsorted", "RNN", cell(3, 4, nonlinearity="relu", num_layers=2), 3, [1, 3, 2],
            enforce_sorted=False, state=True)
packed_case("packed_gru_unsorted_bidir_batch_first", "GRU", cell(3, 4, bidirectional=True, batch_first=True), 4,
            [2, 4, 4, 3], enforce_sorted=False, state=True)

# pad_sequence and pad_packed_sequence(total_length) on their own.
utils = []
ug = torch.Generator().manual_seed(99)
seqs = [torch.randn(n, 2, generator=ug, dtype=torch.float64) for n in (2, 4, 1)]
for bf in (False, True):
    utils.append({"name": "pad_sequence_bf%d" % bf, "fn": "pad_sequence", "sequences": [enc(q) for q in seqs],
                  "batch_first": bf, "padding_value": -1.5,
                  "out": enc(pad_sequence(seqs, batch_first=bf, padding_value=-1.5))})
ps = pack_padded_sequence(pad_sequence(seqs), [2, 4, 1], enforce_sorted=False)
for bf in (False, True):
    padded, lens = pad_packed_sequence(ps, batch_first=bf, padding_value=7.0, total_length=6)
    utils.append({"name": "pad_packed_total_bf%d" % bf, "fn": "pad_packed_sequence", "sequences": [enc(q) for q in seqs],
                  "batch_first": bf, "padding_value": 7.0, "total_length": 6, "out": enc(padded),
                  "lengths": enc(lens)})

utils_errors = []


def uerror(name, f, **case):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        utils_errors.append(dict({"name": name, "message": str(e)}, **case))
        return
    raise AssertionError(name + " did not fail")


ux = torch.zeros(5, 3, 2)
uerror("pack_unsorted", lambda: pack_padded_sequence(ux, [5, 3, 4]), fn="pack_padded_sequence", input=enc(ux),
       lengths=[5, 3, 4], enforce_sorted=True)
uerror("pack_lengths_count", lambda: pack_padded_sequence(ux, [5, 3]), fn="pack_padded_sequence", input=enc(ux),
       lengths=[5, 3], enforce_sorted=True)
uerror("pack_zero_length", lambda: pack_padded_sequence(ux, [5, 3, 0]), fn="pack_padded_sequence", input=enc(ux),
       lengths=[5, 3, 0], enforce_sorted=True)
uerror("pack_negative_unsorted", lambda: pack_padded_sequence(ux, [5, -1, 3], enforce_sorted=False),
       fn="pack_padded_sequence", input=enc(ux), lengths=[5, -1, 3], enforce_sorted=False)
uerror("pack_empty", lambda: pack_padded_sequence(torch.zeros(0, 3, 2), [1, 1, 1]), fn="pack_padded_sequence",
       input=enc(torch.zeros(0, 3, 2)), lengths=[1, 1, 1], enforce_sorted=True)
uerror("pad_packed_total_length", lambda: pad_packed_sequence(ps, total_length=3), fn="pad_packed_sequence",
       sequences=[enc(q) for q in seqs], total_length=3)
uerror("pad_sequence_empty", lambda: pad_sequence([]), fn="pad_sequence", sequences=[])

# A torch checkpoint: LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2).state_dict().
torch.manual_seed(2024)
ck_args = cell(3, 5, num_layers=2, bidirectional=True, proj_size=2)
ck = make("LSTM", ck_args)
torch.save(ck.state_dict(), os.path.join(OUT, "rnn_lstm.pt"))
ck_x = torch.randn(4, 2, 3, generator=torch.Generator().manual_seed(7))
with torch.no_grad():
    ck_outs = flat_outputs("LSTM", ck(ck_x))
checkpoint = {"file": "rnn_lstm.pt", "module": "LSTM", "args": ck_args, "input": enc(ck_x),
              "outs": [enc(o) for o in ck_outs], "keys": list(ck.state_dict().keys())}


def dump_lines(items):
    return "[\n" + ",\n".join(json.dumps(x, separators=(",", ":")) for x in items) + "\n]"


with open(os.path.join(OUT, "rnn.json"), "w") as f:
    f.write('{"cases": ' + dump_lines(cases) + ',\n"errors": ' + dump_lines(errors) + ',\n"forward_errors": ' +
            dump_lines(forward_errors) + ',\n"packed": ' + dump_lines(packed) + ',\n"utils": ' + dump_lines(utils) +
            ',\n"utils_errors": ' + dump_lines(utils_errors) + ',\n"checkpoint": ' + json.dumps(checkpoint, separators=(",", ":")) +
            "}\n")
print("rnn.json", len(cases), "cases,", len(errors), "errors,", len(forward_errors), "forward errors,", len(packed),
      "packed,", len(utils), "utils,", len(utils_errors), "utils errors")
