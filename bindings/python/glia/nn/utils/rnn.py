"""glia.nn.utils.rnn: torch.nn.utils.rnn's PackedSequence and its functions over glia_nn_utils_rnn_*."""

from collections import namedtuple

import numpy as np

from ... import _ffi
from ..._ffi import C, check, c_void_p, c_int64, byref
from ..._tensor import Tensor
from .. import _util

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

_PackedSequence = namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def invert_permutation(permutation):
    if permutation is None:
        return None
    p = np.asarray(permutation.tolist(), dtype=np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size, dtype=np.int64)
    return _util.from_numpy(inv)


class PackedSequence(_PackedSequence):
    """torch's PackedSequence (data, batch_sizes, sorted_indices, unsorted_indices)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            data, batch_sizes = data[0], data[1]
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return self.data.is_pinned()

    def _c(self):
        """A glia_packed_sequence borrowing this sequence's handles."""
        s = _ffi.glia_packed_sequence()
        s.data, s.batch_sizes = self.data._h, self.batch_sizes._h
        s.sorted_indices = self.sorted_indices._h if self.sorted_indices is not None else None
        s.unsorted_indices = self.unsorted_indices._h if self.unsorted_indices is not None else None
        return s

    @classmethod
    def _adopt(cls, s):
        """Takes over the new references of a glia_packed_sequence the library filled."""
        return super().__new__(cls, _util.wrap(s.data), _util.wrap(s.batch_sizes), _util.wrap(s.sorted_indices),
                               _util.wrap(s.unsorted_indices))


def _lengths(lengths):
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got %dD cpu tensor"
                               % lengths.dim())
        lengths = lengths.tolist()
    vals = [int(v) for v in lengths]
    return (c_int64 * max(1, len(vals)))(*vals), len(vals)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    arr, n = _lengths(lengths)
    s = _ffi.glia_packed_sequence()
    check(C.glia_nn_utils_rnn_pack_padded_sequence(input._h, arr, n, int(bool(batch_first)), int(bool(enforce_sorted)),
                                                   byref(s)))
    return PackedSequence._adopt(s)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None and total_length < max_seq_length:
        raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but got "
                         "total_length={} and max sequence length being {}".format(total_length, max_seq_length))
    total = c_int64(total_length) if total_length is not None else None
    out, lens = c_void_p(), c_void_p()
    check(C.glia_nn_utils_rnn_pad_packed_sequence(byref(sequence._c()), int(bool(batch_first)), float(padding_value),
                                                  byref(total) if total is not None else None, byref(out),
                                                  byref(lens)))
    return _util.wrap(out), _util.wrap(lens)


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    arr, n = _util.handles(list(sequences))
    out = c_void_p()
    check(C.glia_nn_utils_rnn_pad_sequence(arr, n, int(bool(batch_first)), float(padding_value), byref(out)))
    return _util.wrap(out)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    lens = lengths.tolist() if isinstance(lengths, Tensor) else list(lengths)
    return [padded_sequences[i][:int(n)] for i, n in enumerate(lens)]


def pack_sequence(sequences, enforce_sorted=True):
    lengths = [v.size(0) for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
