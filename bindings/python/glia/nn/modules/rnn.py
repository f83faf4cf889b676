"""torch.nn's recurrent modules over glia_nn_rnn_cell / lstm_cell / gru_cell / rnn / lstm / gru.

Signatures, defaults, attributes and return values are torch's: a cell returns h' (LSTMCell: the pair
(h', c')), a layer returns (output, h_n) (LSTM: (output, (h_n, c_n))); hx may be None. Through the C
API the state pair travels flattened (Note [Recurrent modules through glia_module_forward] in
src/nn/modules/rnn.h), so forward hooks see (input, h_0, c_0) for an LSTM given a state.
"""

import math
import numbers

from ... import _ffi
from ..._ffi import C, byref, c_void_p, check
from .. import _util
from ..utils import rnn as _rnn_utils
from .builtin import _Builtin, _factory
from .module import Module

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNN", "LSTM", "GRU"]


class RNNCellBase(_Builtin):
    _name = None

    def _init_cell(self, fn, input_size, hidden_size, bias, extra, device, dtype):
        self._make(fn, input_size, hidden_size, int(bool(bias)), *extra, _factory(device, dtype),
                   none_params=() if bias else ("bias_ih", "bias_hh"))
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias

    def _check_input(self, input):
        if input.dim() not in (1, 2):
            raise AssertionError("%s: Expected input to be 1-D or 2-D but received %d-D tensor"
                                 % (type(self).__name__, input.dim()))

    def __call__(self, input, hx=None):
        self._check_input(input)
        return Module.__call__(self, input) if hx is None else Module.__call__(self, input, hx)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        from .. import init
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        self._init_cell(C.glia_nn_rnn_cell, input_size, hidden_size, bias, (nonlinearity.encode(),), device, dtype)
        self.nonlinearity = nonlinearity


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        self._init_cell(C.glia_nn_lstm_cell, input_size, hidden_size, bias, (), device, dtype)

    def __call__(self, input, hx=None):
        self._check_input(input)
        if hx is None:
            return tuple(Module.__call__(self, input))
        return tuple(Module.__call__(self, input, hx[0], hx[1]))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        self._init_cell(C.glia_nn_gru_cell, input_size, hidden_size, bias, (), device, dtype)


class RNNBase(_Builtin):
    """torch's RNNBase: the stacked, optionally bidirectional layers (mode "RNN_TANH", "RNN_RELU",
    "LSTM" or "GRU")."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        # torch's checks and texts, in its order (the library repeats them for C callers).
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in ("RNN_TANH", "RNN_RELU", "LSTM", "GRU"):
            raise ValueError("Unrecognized RNN mode: " + mode)
        o = _ffi.glia_nn_rnn_options()
        C.glia_nn_rnn_options_init(byref(o))
        o.num_layers = num_layers
        o.bias = int(bool(bias))
        o.batch_first = int(bool(batch_first))
        o.dropout = float(dropout)
        o.bidirectional = int(bool(bidirectional))
        o.proj_size = proj_size
        if mode == "RNN_RELU":
            o.nonlinearity = b"relu"
        fn = {"RNN_TANH": C.glia_nn_rnn, "RNN_RELU": C.glia_nn_rnn, "LSTM": C.glia_nn_lstm, "GRU": C.glia_nn_gru}
        self._make(fn[mode], input_size, hidden_size, byref(o), _factory(device, dtype))
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(2 if bidirectional else 1):
                suffix = "_reverse" if direction == 1 else ""
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    names += ["weight_hr_l{}{}"]
                names = [x.format(layer, suffix) for x in names]
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self):
        """torch's cuDNN weight packing: nothing to do."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        from .. import init
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def __call__(self, input, hx=None):
        if isinstance(input, _rnn_utils.PackedSequence):
            return self._forward_packed(input, hx)
        if hx is None:
            outs = Module.__call__(self, input)
        elif self.mode == "LSTM":
            outs = Module.__call__(self, input, hx[0], hx[1])
        else:
            outs = Module.__call__(self, input, hx)
        if self.mode == "LSTM":
            return outs[0], (outs[1], outs[2])
        return outs[0], outs[1]

    def _forward_packed(self, input, hx):
        """glia_nn_rnn_forward_packed (module hooks are not called on packed input)."""
        h0, c0 = (hx if self.mode == "LSTM" else (hx, None)) if hx is not None else (None, None)
        out = _ffi.glia_packed_sequence()
        h_n, c_n = c_void_p(), c_void_p()
        check(C.glia_nn_rnn_forward_packed(self._h, byref(input._c()), h0._h if h0 is not None else None,
                                           c0._h if c0 is not None else None, byref(out), byref(h_n), byref(c_n)))
        output = _rnn_utils.PackedSequence._adopt(out)
        if self.mode == "LSTM":
            return output, (_util.wrap(h_n), _util.wrap(c_n))
        return output, _util.wrap(h_n)


def _no_proj(kwargs):
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        _no_proj(kwargs)
        self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError("Unknown nonlinearity '{}'".format(self.nonlinearity))
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        _no_proj(kwargs)
        super().__init__("GRU", *args, **kwargs)
