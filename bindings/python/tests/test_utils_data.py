"""glia.utils.data: torch.utils.data's datasets, samplers and DataLoader (torch 1.13's rules and messages,
which the expected strings below are copied from)."""

import collections

import numpy as np
import pytest

import glia
from glia.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, DistributedSampler,
                             IterableDataset, RandomSampler, SequentialSampler, Subset, SubsetRandomSampler,
                             TensorDataset, WeightedRandomSampler, default_collate, random_split)


def _xy(n=10):
    x = glia.arange(n * 2, dtype=glia.float32).reshape(n, 2)
    y = glia.arange(n)
    return TensorDataset(x, y)


def test_tensor_dataset_batches_in_order_with_last_partial_batch():
    dl = DataLoader(_xy(), batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3
    xb, yb = batches[0]
    assert xb.shape == (4, 2) and yb.tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(xb.numpy(), np.arange(8, dtype=np.float32).reshape(4, 2))
    assert batches[-1][1].tolist() == [8, 9]
    assert [b[1].tolist() for b in DataLoader(_xy(), batch_size=4, drop_last=True)] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(DataLoader(_xy(), batch_size=4, drop_last=True)) == 2


def test_shuffle_is_a_permutation_reproducible_by_seed_and_generator():
    ds = _xy(50)
    glia.manual_seed(3)
    a = [i for _, y in DataLoader(ds, batch_size=7, shuffle=True) for i in y.tolist()]
    glia.manual_seed(3)
    b = [i for _, y in DataLoader(ds, batch_size=7, shuffle=True) for i in y.tolist()]
    assert a == b and sorted(a) == list(range(50)) and a != list(range(50))
    g1, g2 = glia.Generator().manual_seed(11), glia.Generator().manual_seed(11)
    c = [i for _, y in DataLoader(ds, batch_size=5, shuffle=True, generator=g1) for i in y.tolist()]
    d = [i for _, y in DataLoader(ds, batch_size=5, shuffle=True, generator=g2) for i in y.tolist()]
    assert c == d and sorted(c) == list(range(50))
    # a second epoch of the same loader is another permutation
    dl = DataLoader(ds, batch_size=50, shuffle=True, generator=glia.Generator().manual_seed(1))
    e1, e2 = next(iter(dl))[1].tolist(), next(iter(dl))[1].tolist()
    assert e1 != e2 and sorted(e1) == sorted(e2)


def test_generator_state_round_trip_and_randperm():
    g = glia.Generator().manual_seed(5)
    assert g.initial_seed() == 5
    st = g.get_state()
    p1 = glia.randperm(20, generator=g).tolist()
    g.set_state(st)
    assert glia.randperm(20, generator=g).tolist() == p1 and sorted(p1) == list(range(20))
    glia.manual_seed(0)
    q = glia.randperm(1000)
    assert q.dtype == glia.int64 and sorted(q.tolist()) == list(range(1000))
    glia.manual_seed(0)
    assert glia.randperm(1000).tolist() == q.tolist()
    assert glia.randperm(0).tolist() == []
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[-1\]"):
        glia.randperm(-1)


def test_default_collate_structures():
    Point = collections.namedtuple("Point", "x y")
    out = default_collate([(1, 2.0, "a"), (3, 4.0, "b")])
    assert out[0].dtype == glia.int64 and out[0].tolist() == [1, 3]
    assert out[1].dtype == glia.float64 and out[1].tolist() == [2.0, 4.0]
    assert tuple(out[2]) == ("a", "b")
    d = default_collate([{"a": glia.ones(2), "b": np.zeros(3, np.float32)}, {"a": glia.zeros(2), "b": np.ones(3, np.float32)}])
    assert d["a"].shape == (2, 2) and d["b"].shape == (2, 3) and d["b"].dtype == glia.float32
    p = default_collate([Point(1, 2), Point(3, 4)])
    assert isinstance(p, Point) and p.x.tolist() == [1, 3]
    assert default_collate([np.float64(1.5), np.float64(2.5)]).tolist() == [1.5, 2.5]
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [1]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, "
                                        "dicts or lists; found <class 'object'>"):
        default_collate([object()])


def test_custom_dataset_collate_fn_and_batch_size_none():
    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"i": i, "sq": glia.tensor([float(i * i)])}

    batches = list(DataLoader(Squares(), batch_size=2, collate_fn=lambda b: [s["i"] for s in b]))
    assert batches == [[0, 1], [2, 3], [4]]
    single = list(DataLoader(Squares(), batch_size=None))
    assert len(single) == 5 and single[3]["sq"].tolist() == [9.0] and single[3]["i"] == 3


def test_iterable_dataset_batches():
    class Count(IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7

    assert [b.tolist() for b in DataLoader(Count(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Count(), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    assert len(DataLoader(Count(), batch_size=3)) == 3
    with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected unspecified shuffle option, "
                                         "but got shuffle=True"):
        DataLoader(Count(), shuffle=True)


def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    glia.manual_seed(1)
    r = list(RandomSampler(range(6)))
    assert sorted(r) == list(range(6))
    rr = list(RandomSampler(range(6), replacement=True, num_samples=100))
    assert len(rr) == 100 and set(rr) <= set(range(6))
    assert len(list(RandomSampler(range(4), num_samples=10))) == 10
    assert sorted(SubsetRandomSampler([3, 7, 9])) == [3, 7, 9]
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(BatchSampler(range(7), 3, True)) == 2
    glia.manual_seed(2)
    w = list(WeightedRandomSampler([0.0, 1.0, 3.0], 4000))
    counts = np.bincount(w, minlength=3)
    assert counts[0] == 0 and abs(counts[2] / 4000 - 0.75) < 0.03
    nr = list(WeightedRandomSampler([1.0, 0.0, 2.0, 5.0], 3, replacement=False))
    assert sorted(nr) == [0, 2, 3]


def test_sampler_and_loader_errors_are_torchs():
    ds = _xy()
    cases = [
        (lambda: DataLoader(ds, sampler=[0], shuffle=True), "sampler option is mutually exclusive with shuffle"),
        (lambda: DataLoader(ds, batch_sampler=[[0]], batch_size=2),
         "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"),
        (lambda: DataLoader(ds, batch_size=None, drop_last=True),
         "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"),
        (lambda: DataLoader(ds, num_workers=-1),
         "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."),
        (lambda: BatchSampler(range(3), 0, False), "batch_size should be a positive integer value, but got batch_size=0"),
        (lambda: RandomSampler(ds, num_samples=0),
         "num_samples should be a positive integer value, but got num_samples=0"),
        (lambda: random_split(ds, [3, 3]), "Sum of input lengths does not equal the length of the input dataset!"),
    ]
    for fn, text in cases:
        with pytest.raises(ValueError) as e:
            fn()
        assert str(e.value) == text


def test_random_split_subset_and_concat():
    ds = _xy(10)
    a, b, c = random_split(ds, [0.3, 0.3, 0.4], generator=glia.Generator().manual_seed(4))
    assert (len(a), len(b), len(c)) == (3, 3, 4)  # torch's floors and remainder rule
    seen = sorted(int(s[1]) for part in (a, b, c) for s in part)
    assert seen == list(range(10))
    assert [len(s) for s in random_split(range(11), [0.5, 0.5])] == [6, 5]
    sub = Subset(ds, [9, 0])
    assert int(sub[0][1]) == 9 and len(sub) == 2
    cat = ConcatDataset([ds, _xy(3)])
    assert len(cat) == 13 and int(cat[11][1]) == 1 and int(cat[-1][1]) == 2
    assert len(ds + _xy(2)) == 12


def test_distributed_sampler_shards_pad_and_epochs():
    ds = list(range(10))
    shards = [list(DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # padded to 12 with the first indices
    dropped = [list(DistributedSampler(ds, num_replicas=3, rank=r, shuffle=False, drop_last=True)) for r in range(3)]
    assert dropped == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    s0, s1 = DistributedSampler(ds, 2, 0, seed=7), DistributedSampler(ds, 2, 1, seed=7)
    e0 = list(s0) + list(s1)
    assert sorted(e0) == list(range(10))  # one permutation, split between the ranks
    s0.set_epoch(1)
    s1.set_epoch(1)
    e1 = list(s0) + list(s1)
    assert sorted(e1) == list(range(10)) and e1 != e0
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(ds, num_replicas=2, rank=2)


def test_training_loop_over_a_loader():
    glia.manual_seed(0)
    x = glia.randn(64, 3)
    y = x @ glia.tensor([[1.0], [-2.0], [0.5]]) + 0.1
    model = glia.nn.Linear(3, 1)
    opt = glia.optim.SGD(model.parameters(), lr=0.1)
    dl = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    first = None
    for _ in range(20):
        for xb, yb in dl:
            loss = glia.nn.functional.mse_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            first = float(loss) if first is None else first
    assert float(loss) < first * 0.01
