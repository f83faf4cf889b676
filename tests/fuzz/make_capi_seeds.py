#!/usr/bin/python3
"""Writes the C-API fuzzers' seed corpora (tests/fuzz/corpus/capi, corpus/autograd)
and their dictionaries (tests/fuzz/capi.dict, autograd.dict).

    /usr/bin/python3 tests/fuzz/make_capi_seeds.py

An input of capi_fuzzer.cpp / autograd_fuzzer.cpp is a program: one opcode byte, then
the bytes its arguments read (capi_support.h's Reader). The helpers below spell the
instructions the way the harnesses read them (clang evaluates a call's arguments left to
right, which the harnesses rely on), so that each seed reaches a deep path at once: a
model trained one step, hooks that fail, a state dict round trip, a double release, an
allocation past the cap, a graph differentiated twice. The regression seeds
(regress-*, the inputs of fixed findings) are kept as they are.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def real(v):  # Reader::real: (b - 100) / 16 for b < 200
    b = int(round(v * 16)) + 100
    assert 0 <= b < 200
    return bytes([b])


def small(v):  # Reader::small: b % 16 - 2 for b < 240
    assert -2 <= v <= 13
    return bytes([v + 2])


INT64_MAX, BIG20 = bytes([240]), bytes([246])  # small(): INT64_MAX, 1 << 20


def size(v):  # Reader::size: b % 8 for b < 224; 224 then small() otherwise
    if isinstance(v, bytes):
        return bytes([224]) + v
    return bytes([v]) if 0 <= v < 8 else bytes([224]) + small(v)


def shape(*sizes):
    return bytes([len(sizes)]) + b"".join(size(s) for s in sizes)


def dims(*ds):
    return bytes([len(ds)]) + b"".join(small(d) for d in ds)


F32, F64, I64 = 0, 1, 4


class Capi:
    """capi_fuzzer.cpp: tensors 0..15, modules 0..3, optimizers 0..1, dicts 0..1."""

    def __init__(self):
        self.b = b""

    def op(self, *parts):
        self.b += b"".join(p if isinstance(p, bytes) else bytes([p]) for p in parts)
        return self

    def zeros(self, k, *sizes, dtype=F32):
        return self.op(0, k, 1, shape(*sizes), dtype, 0)

    def randn(self, k, *sizes, dtype=F32):
        return self.op(0, k, 5, shape(*sizes), dtype, 0)

    def randint(self, k, lo, hi, *sizes):
        return self.op(0, k, 9, shape(*sizes), I64, 0, small(lo), small(hi))

    def add(self, k, a, b, alpha=1.0):
        return self.op(4, k, a, b, 0, real(alpha))

    def matmul(self, k, a, b):
        return self.op(9, k, a, b, 0)

    def sum(self, k, a, *ds):
        return self.op(8, k, a, dims(*ds), 0, small(0), 0)

    def permute(self, k, a, *ds):
        return self.op(2, k, a, 2, dims(*ds))

    def expand(self, k, a, *sizes):
        return self.op(2, k, a, 4, shape(*sizes))

    def slice(self, k, a, d, st, en, step):
        return self.op(2, k, a, 5, small(d), small(st), small(en), small(step))

    def contiguous(self, k, a):
        return self.op(10, a, 6, k)

    def to_string(self, a):
        return self.op(10, a, 4, 20)

    def backward(self, a):
        return self.op(10, a, 11, 232, 0, 0)  # grad: NULL (flag 0), retain 0

    def linear(self, m, i, o):
        return self.op(11, m, 0, 0, 1, 0, small(i), small(o), 1)

    def conv2d(self, m, ci, co, kh, kw):
        return self.op(11, m, 0, 0, 0, 1, small(ci), small(co), small(kh), small(kw), small(1), small(1), small(0),
                       small(0), small(1), small(1), small(1), 1, 0, 0, 1)

    def relu(self, m):
        return self.op(11, m, 0, 0, 0, 2)

    def sequential(self, m, *ms):
        return self.op(11, m, 0, 0, 0, 9, len(ms), *ms)

    def forward(self, m, k, *xs):
        return self.op(12, m, 0, len(xs), *xs, 0, k)

    def hook(self, m, kind, mode, flags=0):  # kind: 0 pre, 1 forward, 2 backward pre, 3 backward, 4 sd, 5 load
        return self.op(12, m, 2, mode, flags, kind)

    def param(self, m, k, name):  # name: 0 "weight", 1 "bias"
        return self.op(12, m, 10, k, name)

    def state_dict(self, m, d):
        return self.op(12, m, 4, d)

    def load_state_dict(self, m, d, strict=1):
        return self.op(12, m, 5, d, strict, 0, 1, 0, small(0))

    def sgd(self, o, *params, lr=0.125):
        return self.op(14, o, 0, 0, len(params), *params, 0, 0, real(lr), real(0.5), real(0), real(0), 0, 0)

    def adam(self, o, *params):
        # options NULL (the reals and flags are read all the same), Adam
        return self.op(14, o, 0, 0, len(params), *params, 220, 1, real(0.125), real(0.5), real(0.5), real(0.0625),
                       real(0), 0, 0, 1)

    def step(self, o):
        return self.op(14, 0, o, 2)

    def zero_grad(self, o):
        return self.op(14, 0, o, 4, 1)

    def save_load(self, d, fmt):
        return self.op(13, d, d, 6, fmt, 0, fmt)

    def drop(self, k):
        return self.op(15, 0, k)

    def release_dead(self, i, as_type=0):
        return self.op(15, 4, i, as_type)


class Autograd:
    """autograd_fuzzer.cpp: tensors 0..11."""

    def __init__(self):
        self.b = b""

    def op(self, *parts):
        self.b += b"".join(p if isinstance(p, bytes) else bytes([p]) for p in parts)
        return self

    def leaf(self, k, *sizes, dtype=0, requires_grad=True):  # dtype byte: even F32, odd F64
        return self.op(0, k, len(sizes), *sizes, dtype, 1, 0 if requires_grad else 255)

    def unary(self, k, a, which):  # 0 exp, 1 tanh, 2 sigmoid, 3 relu, 4 sin, 5 log, 11 clone, 12 detach
        return self.op(2, k, a, which)

    def binary(self, k, a, b, which, *extra):  # 0 add, 2 mul, 7 matmul, 9 mse, 10 conv2d, 12 cross_entropy
        return self.op(3, k, a, b, which, *extra)

    def sum(self, k, a):
        return self.op(4, k, a, 0, 0, 3, 0)

    def softmax(self, k, a, dim):
        return self.op(4, k, a, 0, 0, dim + 3, 7)

    def transpose(self, k, a):
        return self.op(5, k, a, 0, 3, 4, 3)

    def expand(self, k, a):
        return self.op(5, k, a, 0, 3, 3, 4, 1, 2)

    def inplace_mul(self, a, b):
        return self.op(6, a, b, 1)

    def custom(self, k, mode, *ins, n_outs=1):
        return self.op(7, 1, mode, len(ins), *ins, n_outs, k)

    def hook(self, a, mode):
        return self.op(8, a, 0, mode)

    def post_hook(self, a, mode):
        return self.op(8, a, 2, mode)

    def retain_grad(self, a):
        return self.op(8, a, 4)

    def backward(self, a, retain=0):
        return self.op(9, 0, a, 0, retain)

    def autograd_backward(self, roots, retain=0, create=0):
        return self.op(9, 2, len(roots), *[bytes([r, 0]) for r in roots], retain, create, 0)

    def grad(self, k, outs, ins, retain=0, create=0, unused=0):
        return self.op(9, 4, len(outs), len(ins), *[bytes([o, 0]) for o in outs], *ins, retain, create, unused, k, 0)

    def read_grad(self, k, a):
        return self.op(9, 6, a, k, 0, 32)

    def probe(self, retain=0):
        return self.op(11, 2, 1, 0, retain)


def capi_seeds():
    s = {}
    s["factories"] = (Capi().zeros(0, 2, 3).randn(1, 2, 3).add(2, 0, 1, 0.5).sum(3, 2).to_string(3)
                      .randint(4, 0, 5, 3).op(0, 5, 6, shape(), F32, 0, real(0), real(4), real(0.5)).b)
    s["views"] = (Capi().randn(0, 2, 3, 4).permute(1, 0, 2, 0, 1).expand(2, 1, 4, 2, 3).slice(3, 0, 1, 0, 3, 2)
                  .contiguous(4, 3).op(2, 5, 0, 0, shape(6, 4)).b)
    s["huge"] = (Capi().zeros(0, BIG20, BIG20).zeros(1, INT64_MAX, 2).zeros(2, BIG20, 4, dtype=F64)
                 .expand(3, 0, INT64_MAX, 2).b)
    s["train_linear"] = (Capi().linear(0, 3, 2).randn(0, 4, 3).forward(0, 1, 0).sum(2, 1).backward(2)
                         .param(0, 3, 0).param(0, 4, 1).sgd(0, 3, 4).step(0).zero_grad(0)
                         .forward(0, 5, 0).sum(6, 5).backward(6).step(0).b)
    s["adam_state"] = (Capi().linear(0, 3, 2).param(0, 3, 0).param(0, 4, 1).adam(1, 3, 4).randn(0, 2, 3)
                       .forward(0, 1, 0).sum(2, 1).backward(2).step(1).op(14, 0, 1, 7, 0)
                       .op(14, 0, 1, 8, 0).b)
    s["hooks"] = (Capi().linear(0, 3, 3).hook(0, 0, 3).hook(0, 1, 17).hook(0, 3, 5).randn(0, 2, 3)
                  .forward(0, 1, 0).hook(0, 1, 0).forward(0, 2, 0).sum(3, 2).backward(3).op(12, 0, 3, 0).b)
    s["sequential"] = (Capi().conv2d(0, 1, 2, 3, 3).relu(1).sequential(2, 0, 1).randn(0, 1, 1, 5, 5)
                       .forward(2, 1, 0).op(12, 2, 12, 2).op(12, 2, 14, 1, 2, small(0)).b)
    s["state_dict"] = (Capi().linear(0, 2, 2).state_dict(0, 0).save_load(0, 1).load_state_dict(0, 0)
                       .save_load(0, 2).hook(0, 4, 2).state_dict(0, 1).load_state_dict(0, 1).b)
    s["double_release"] = (Capi().zeros(0, 2).zeros(1, 3).drop(0).release_dead(0).release_dead(0, 1)
                           .linear(0, 2, 2).op(15, 1, 0).release_dead(1, 1).release_dead(1, 0).b)
    s["blob"] = Capi().op(0, 0, 11, shape(2, 3), F32, 0, 0, 0, 1, 0, 3, 0).contiguous(1, 0).b
    return s


def autograd_seeds():
    s = {}
    A = Autograd
    s["probe"] = A().probe(0).probe(1).b
    s["mlp"] = (A().leaf(0, 4, 3).leaf(1, 2, 3).leaf(2, 2).binary(3, 0, 1, 8, 1, 2).unary(4, 3, 1).sum(5, 4)
                .backward(5).read_grad(6, 1).b)
    s["grad_create_graph"] = (A().leaf(0, 3).unary(1, 0, 0).binary(2, 1, 1, 2).sum(3, 2)
                              .grad(4, [3], [0], retain=1, create=1).sum(5, 4).backward(5).read_grad(6, 0).b)
    s["second_backward"] = A().leaf(0, 3).binary(1, 0, 0, 2).sum(2, 1).backward(2).backward(2).backward(2, 1).b
    s["hooks"] = (A().leaf(0, 3).hook(0, 2).hook(0, 1).post_hook(0, 2).binary(1, 0, 0, 2).sum(2, 1)
                  .backward(2, 1).hook(0, 3).backward(2).b)
    s["custom"] = (A().leaf(0, 2, 2).custom(1, 16, 0).sum(2, 1).backward(2).custom(3, 4 + 16, 0, 0, n_outs=2)
                   .sum(4, 3).backward(4).b)
    s["inplace_saved"] = A().leaf(0, 3).unary(1, 0, 11).unary(2, 1, 0).inplace_mul(2, 2).sum(3, 2).backward(3).b
    s["views_softmax"] = (A().leaf(0, 2, 3).transpose(1, 0).softmax(2, 1, 1).expand(3, 2).sum(4, 3)
                          .autograd_backward([4], retain=1, create=1).b)
    s["conv"] = (A().leaf(0, 1, 4, 4).leaf(1, 2, 3, 3).op(5, 1, 1, 0, 4, 3, 7).binary(2, 0, 1, 10, 0, 0, 0, 0, 0, 0)
                 .sum(3, 2).backward(3).b)
    s["retain_grad"] = (A().leaf(0, 3).unary(1, 0, 2).retain_grad(1).sum(2, 1).backward(2).read_grad(3, 1)
                        .read_grad(4, 0).b)
    return s


def dictionary(seeds):
    """The instructions of the seeds, each as one entry: mutations splice whole calls."""
    out = []
    for name, prog in sorted(seeds.items()):
        out.append('# %s' % name)
        out.append('"%s"' % "".join("\\x%02x" % c for c in prog[:24]))
    return "\n".join(out) + "\n"


def write(target, seeds, header):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(d):
        if not name.startswith("regress-"):
            os.remove(os.path.join(d, name))
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    with open(os.path.join(HERE, target + ".dict"), "w") as f:
        f.write(header + dictionary(seeds))
    print("%s: %d seeds" % (target, len(seeds)))


def main():
    write("capi", capi_seeds(), "# capi_fuzzer.cpp: the first instructions of each seed (make_capi_seeds.py)\n")
    write("autograd", autograd_seeds(), "# autograd_fuzzer.cpp: the first instructions of each seed (make_capi_seeds.py)\n")


if __name__ == "__main__":
    main()
