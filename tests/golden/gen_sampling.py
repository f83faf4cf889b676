#!/usr/bin/python3
"""Golden fixtures of random sampling (issue 20, torch 1.13): ops/sampling.json

  bernoulli, bernoulli_scalar, bernoulli_, bernoulli_scalar_, multinomial, normal (tensor mean and std),
  normal_tensor_scalar, normal_scalar_tensor, poisson, uniform_, normal_, cauchy_, exponential_,
  geometric_, log_normal_, random_

glia's generator is not torch's, so the cases with values are the ones whose result does not depend on
the draws: probabilities 0 and 1, std 0, one-hot rows, rate 0, from == to, a one-value range, p next to
1; they check shapes, dtypes and broadcasting. The distributions themselves are tested by statistics in
tests/ops/sampling_test.cpp and bindings/python/tests/test_sampling.py. The errors are torch's, with
its messages. Format: golden.py. One case per line; append new cases at the end.

    cd tests/golden && /usr/bin/python3 gen_sampling.py
"""

import json
import os

import torch

from golden import Fixture, T, rnd

HERE = os.path.dirname(os.path.abspath(__file__))
f64, f32 = "float64", "float32"
IA, SH, DT = "GLIA_ERR_INVALID_ARGUMENT", "GLIA_ERR_SHAPE", "GLIA_ERR_DTYPE"


def _fill(method, *keys):
    def f(xs, a):
        t = xs[0].clone()
        getattr(t, method)(*[float(a[k]) for k in keys if k in a])
        return t
    return f


def _random(xs, a):
    t = xs[0].clone()
    if "from" in a:
        t.random_(a["from"], a.get("to"))
    elif "to" in a:
        t.random_(a["to"])
    else:
        t.random_()
    return t


def _bernoulli_(xs, a):
    t = xs[0].clone()
    t.bernoulli_(xs[1])
    return t


OPS = {
    "bernoulli": lambda xs, a: torch.bernoulli(xs[0]),
    "bernoulli_scalar": lambda xs, a: torch.bernoulli(xs[0], a["p"]),
    "bernoulli_": _bernoulli_,
    "bernoulli_scalar_": lambda xs, a: xs[0].clone().bernoulli_(a["p"]),
    "multinomial": lambda xs, a: torch.multinomial(xs[0], a["num_samples"], a.get("replacement", False)),
    "normal": lambda xs, a: torch.normal(xs[0], xs[1]),
    "normal_tensor_scalar": lambda xs, a: torch.normal(xs[0], float(a["std"])),
    "normal_scalar_tensor": lambda xs, a: torch.normal(a["mean"], xs[0]),
    "poisson": lambda xs, a: torch.poisson(xs[0]),
    "uniform_": _fill("uniform_", "from", "to"),
    "normal_": _fill("normal_", "mean", "std"),
    "cauchy_": _fill("cauchy_", "median", "sigma"),
    "exponential_": _fill("exponential_", "lambd"),
    "geometric_": _fill("geometric_", "p"),
    "log_normal_": _fill("log_normal_", "mean", "std"),
    "random_": _random,
}


class Fx(Fixture):
    def write(self, filename):
        assert torch.__version__.startswith("1.13"), torch.__version__
        with open(os.path.join(HERE, "ops", filename), "w") as f:
            f.write('{"cases": [\n')
            f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in self.cases))
            f.write('\n], "errors": [\n')
            f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in self.errors))
            f.write("\n]}\n")


def t(v, dtype=torch.float64):
    return torch.tensor(v, dtype=dtype)


def main():
    fx = Fx(OPS)
    c, e = fx.case, fx.error
    zo = [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]

    # bernoulli(p): p 0 or 1
    c("bernoulli 0 1", "bernoulli", [t(zo)])
    c("bernoulli f32", "bernoulli", [t(zo, torch.float32)])
    c("bernoulli 0-dim", "bernoulli", [t(1.0)])
    c("bernoulli empty", "bernoulli", [t([[]])])
    c("bernoulli transposed", "bernoulli", [T(t(zo))])
    e("bernoulli p above 1", "bernoulli", [t([0.5, 1.5])], IA)
    e("bernoulli p negative", "bernoulli", [t([0.5, -0.5])], IA)
    e("bernoulli p nan", "bernoulli", [t([0.5, float("nan")])], IA)
    e("bernoulli int", "bernoulli", [t([1, 0], torch.int64)], DT)
    e("bernoulli half", "bernoulli", [t([1.0, 0.0], torch.float16)], DT)

    # bernoulli(input, p): input's shape and dtype
    c("bernoulli_scalar p 0", "bernoulli_scalar", [rnd([2, 3])], p=0.0)
    c("bernoulli_scalar p 1 f32", "bernoulli_scalar", [rnd([4], f32)], p=1.0)
    c("bernoulli_scalar p 1 int", "bernoulli_scalar", [rnd([3, 2], "int64")], p=1.0)
    c("bernoulli_scalar p 1 bool", "bernoulli_scalar", [rnd([3], "bool")], p=1.0)
    e("bernoulli_scalar p 1.3", "bernoulli_scalar", [rnd([3], f32)], IA, p=1.3)
    e("bernoulli_scalar p -0.1", "bernoulli_scalar", [rnd([3], f32)], IA, p=-0.1)

    # Tensor.bernoulli_(p tensor)
    c("bernoulli_ broadcast", "bernoulli_", [rnd([2, 3]), t([0.0, 1.0, 1.0])])
    c("bernoulli_ int self", "bernoulli_", [rnd([3], "int64"), t([1.0, 0.0, 1.0], torch.float32)])
    c("bernoulli_ bool self", "bernoulli_", [rnd([3], "bool"), t([1.0, 0.0, 1.0])])
    c("bernoulli_ transposed self", "bernoulli_", [T(rnd([2, 3])), t(zo)])
    e("bernoulli_ expand", "bernoulli_", [rnd([3]), t([0.5, 0.5])], SH)
    e("bernoulli_ p int", "bernoulli_", [rnd([3]), t([1, 0, 1], torch.int64)], DT)
    e("bernoulli_ p out of range", "bernoulli_", [rnd([2]), t([0.5, 2.0])], IA)
    e("bernoulli_ half self", "bernoulli_", [rnd([2], "float16"), t([0.5, 1.0])], DT)

    # Tensor.bernoulli_(p float)
    c("bernoulli_scalar_ p 1", "bernoulli_scalar_", [rnd([2, 3])], p=1.0)
    c("bernoulli_scalar_ p 0 uint8", "bernoulli_scalar_", [rnd([4], "uint8")], p=0.0)
    c("bernoulli_scalar_ p 1 transposed", "bernoulli_scalar_", [T(rnd([2, 3], f32))], p=1.0)
    e("bernoulli_scalar_ p 2", "bernoulli_scalar_", [rnd([3])], IA, p=2.0)
    e("bernoulli_scalar_ half", "bernoulli_scalar_", [rnd([3], "float16")], DT, p=0.5)

    # multinomial: one-hot rows
    onehot = t([[0.0, 0.0, 2.0, 0.0], [0.5, 0.0, 0.0, 0.0]])
    c("multinomial 1-D one sample", "multinomial", [t([0.0, 3.0, 0.0])], num_samples=1)
    c("multinomial 2-D replacement", "multinomial", [onehot], num_samples=3, replacement=True)
    c("multinomial 2-D f32 one sample", "multinomial", [onehot.float()], num_samples=1)
    c("multinomial 1-D replacement", "multinomial", [t([0.0, 0.0, 1e-3])], num_samples=5, replacement=True)
    c("multinomial zero rows", "multinomial", [torch.zeros(0, 3, dtype=torch.float64)], num_samples=2)
    c("multinomial bfloat16", "multinomial", [t([0.0, 1.0], torch.bfloat16)], num_samples=1)
    c("multinomial transposed", "multinomial", [T(onehot)], num_samples=2, replacement=True)
    e("multinomial too many", "multinomial", [t([0.5, 0.5])], IA, num_samples=3)
    e("multinomial zero samples", "multinomial", [t([0.5, 0.5])], IA, num_samples=0)
    e("multinomial negative", "multinomial", [t([0.5, -0.5])], IA, num_samples=1)
    e("multinomial negative replacement", "multinomial", [t([0.5, -0.5])], IA, num_samples=2, replacement=True)
    e("multinomial inf", "multinomial", [t([0.5, float("inf")])], IA, num_samples=1)
    e("multinomial inf replacement", "multinomial", [t([0.5, float("inf")])], IA, num_samples=1, replacement=True)
    e("multinomial nan", "multinomial", [t([0.5, float("nan")])], IA, num_samples=1)
    e("multinomial zero sum", "multinomial", [t([[0.0, 0.0], [1.0, 1.0]])], IA, num_samples=1)
    e("multinomial zero sum replacement", "multinomial", [t([0.0, 0.0])], IA, num_samples=2, replacement=True)
    e("multinomial no categories", "multinomial", [torch.zeros(2, 0, dtype=torch.float64)], IA, num_samples=1,
      replacement=True)
    e("multinomial int", "multinomial", [t([1, 2], torch.int64)], DT, num_samples=1)
    e("multinomial 3-D", "multinomial", [torch.ones(2, 2, 2, dtype=torch.float64)], SH, num_samples=1)
    e("multinomial 0-dim", "multinomial", [t(1.0)], SH, num_samples=1)
    e("multinomial half", "multinomial", [t([1.0, 0.0], torch.float16)], DT, num_samples=1)

    # normal(Tensor, Tensor): std 0
    c("normal std 0", "normal", [rnd([2, 3]), torch.zeros(2, 3, dtype=torch.float64)])
    c("normal broadcast", "normal", [rnd([2, 1]), torch.zeros(3, dtype=torch.float64)])
    c("normal f32 mean f64 std", "normal", [rnd([3], f32), torch.zeros(3, 1, dtype=torch.float64)])
    c("normal f64 mean f32 std", "normal", [rnd([3]), torch.zeros(3, dtype=torch.float32)])
    c("normal int std", "normal", [rnd([2], f32), torch.zeros(2, dtype=torch.int64)])
    c("normal empty", "normal", [rnd([0, 2]), torch.zeros(2, dtype=torch.float64)])
    c("normal transposed", "normal", [T(rnd([2, 3])), torch.zeros(2, 3, dtype=torch.float64)])
    e("normal negative std", "normal", [rnd([3]), t([1.0, -1.0, 1.0])], IA)
    e("normal nan std", "normal", [rnd([2], f32), t([float("nan"), 1.0], torch.float32)], IA)
    e("normal shapes", "normal", [rnd([6]), torch.ones(2, 3, dtype=torch.float64)], SH)
    e("normal int mean", "normal", [rnd([3], "int64"), torch.ones(3)], DT)

    # normal(Tensor, float)
    c("normal_tensor_scalar std 0", "normal_tensor_scalar", [rnd([2, 3])], std=0.0)
    c("normal_tensor_scalar f32", "normal_tensor_scalar", [rnd([4], f32)], std=0.0)
    c("normal_tensor_scalar 0-dim", "normal_tensor_scalar", [t(1.5)], std=0.0)
    e("normal_tensor_scalar negative std", "normal_tensor_scalar", [rnd([3])], IA, std=-1.0)
    e("normal_tensor_scalar nan std", "normal_tensor_scalar", [rnd([3])], IA, std="nan")
    e("normal_tensor_scalar int", "normal_tensor_scalar", [rnd([3], "int64")], DT, std=1.0)

    # normal(float, Tensor)
    c("normal_scalar_tensor std 0", "normal_scalar_tensor", [torch.zeros(2, 3, dtype=torch.float64)], mean=1.25)
    c("normal_scalar_tensor f32", "normal_scalar_tensor", [torch.zeros(4)], mean=-3.0)
    e("normal_scalar_tensor negative std", "normal_scalar_tensor", [t([1.0, -1.0])], IA, mean=0.0)
    e("normal_scalar_tensor int", "normal_scalar_tensor", [torch.ones(2, dtype=torch.int64)], DT, mean=0.0)

    # poisson: rate 0
    c("poisson rate 0", "poisson", [torch.zeros(2, 3, dtype=torch.float64)])
    c("poisson rate 0 f32", "poisson", [torch.zeros(4)])
    c("poisson empty", "poisson", [torch.zeros(0, dtype=torch.float64)])
    e("poisson negative", "poisson", [t([1.0, -1.0])], IA)
    e("poisson nan", "poisson", [t([1.0, float("nan")])], IA)
    e("poisson int", "poisson", [t([1, 2], torch.int64)], DT)
    e("poisson half", "poisson", [t([1.0], torch.float16)], DT)

    # in-place fills with a one-point distribution
    c("uniform_ from == to", "uniform_", [rnd([2, 3])], **{"from": 2.0, "to": 2.0})
    c("uniform_ f32 transposed", "uniform_", [T(rnd([2, 3], f32))], **{"from": -1.5, "to": -1.5})
    c("uniform_ empty", "uniform_", [rnd([0, 3])], **{"from": 0.0, "to": 1.0})
    e("uniform_ from > to", "uniform_", [rnd([3])], IA, **{"from": 2.0, "to": 1.0})
    e("uniform_ int", "uniform_", [rnd([3], "int64")], DT, **{"from": 0.0, "to": 1.0})
    c("normal_ std 0", "normal_", [rnd([2, 3])], mean=0.5, std=0.0)
    c("normal_ std 0 f32", "normal_", [rnd([4], f32)], mean=-2.0, std=0.0)
    e("normal_ negative std", "normal_", [rnd([3])], IA, mean=0.0, std=-1.0)
    e("normal_ int", "normal_", [rnd([3], "int64")], DT, mean=0.0, std=1.0)
    c("cauchy_ sigma 0", "cauchy_", [rnd([2, 3])], median=1.5, sigma=0.0)
    e("cauchy_ int", "cauchy_", [rnd([3], "int64")], DT)
    c("exponential_ lambda inf", "exponential_", [rnd([2, 3])], lambd="inf")
    e("exponential_ negative", "exponential_", [rnd([3])], IA, lambd=-1.0)
    e("exponential_ int", "exponential_", [rnd([3], "int64")], DT)
    c("geometric_ p near 1", "geometric_", [rnd([2, 3])], p=1.0 - 2.0 ** -53)
    c("geometric_ p near 1 int", "geometric_", [rnd([4], "int64")], p=1.0 - 2.0 ** -53)
    e("geometric_ p 0", "geometric_", [rnd([3])], IA, p=0.0)
    e("geometric_ p 1", "geometric_", [rnd([3])], IA, p=1.0)
    e("geometric_ bool", "geometric_", [rnd([3], "bool")], DT, p=0.5)
    c("log_normal_ tiny std", "log_normal_", [rnd([2, 3])], mean=0.5, std=1e-300)
    e("log_normal_ std 0", "log_normal_", [rnd([3])], IA, mean=1.0, std=0.0)
    e("log_normal_ int", "log_normal_", [rnd([3], "int64")], DT)
    c("random_ one value", "random_", [rnd([2, 3])], **{"from": 7, "to": 8})
    c("random_ one value int", "random_", [rnd([4], "int64")], **{"from": -3, "to": -2})
    c("random_ to 1", "random_", [rnd([3], "int32")], to=1)
    c("random_ bool to 1", "random_", [rnd([3], "bool")], to=1)
    c("random_ uint8 top", "random_", [rnd([3], "uint8")], **{"from": 255})
    c("random_ int8 top", "random_", [rnd([3], "int8")], **{"from": 127, "to": None})
    e("random_ from >= to", "random_", [rnd([3])], IA, **{"from": 5, "to": 2})
    e("random_ to 0", "random_", [rnd([3])], IA, to=0)
    e("random_ uint8 from", "random_", [rnd([3], "uint8")], IA, **{"from": -1, "to": 5})
    e("random_ uint8 to", "random_", [rnd([3], "uint8")], IA, **{"from": 0, "to": 257})
    e("random_ bool to", "random_", [rnd([3], "bool")], IA, **{"from": 0, "to": 3})
    e("random_ uint8 from no to", "random_", [rnd([3], "uint8")], IA, **{"from": 300})
    e("random_ float from above 2^24", "random_", [rnd([3], f32)], IA, **{"from": 2 ** 25})
    fx.write("sampling.json")


if __name__ == "__main__":
    main()
