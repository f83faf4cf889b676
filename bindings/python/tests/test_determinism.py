"""glia.use_deterministic_algorithms and glia.backends.{cuda.matmul,cudnn} (h-cudnn): torch 1.13's defaults,
round trips through the C API, and torch's errors for values that are not bools. What the flags change runs
on a GPU (cuDNN's algorithms, TF32 math; docs/cuda.md)."""

import pytest

import glia
from glia._ffi import C


@pytest.fixture(autouse=True)
def torch_defaults():
    yield
    glia.use_deterministic_algorithms(False)
    glia.backends.cudnn.deterministic = False
    glia.backends.cuda.matmul.allow_tf32 = False
    glia.backends.cudnn.allow_tf32 = True


def test_defaults_are_torchs():
    # torch 1.13: False, False, False, True (and warn_only False).
    assert glia.are_deterministic_algorithms_enabled() is False
    assert glia.is_deterministic_algorithms_warn_only_enabled() is False
    assert glia.backends.cudnn.deterministic is False
    assert glia.backends.cuda.matmul.allow_tf32 is False
    assert glia.backends.cudnn.allow_tf32 is True


def test_use_deterministic_algorithms_round_trip():
    glia.use_deterministic_algorithms(True)
    assert glia.are_deterministic_algorithms_enabled() is True
    assert C.glia_get_deterministic_algorithms() == 1
    assert glia.backends.cudnn.deterministic is False  # torch's two flags are separate
    glia.use_deterministic_algorithms(True, warn_only=True)
    assert glia.is_deterministic_algorithms_warn_only_enabled() is True
    glia.use_deterministic_algorithms(False)
    assert glia.are_deterministic_algorithms_enabled() is False
    assert glia.is_deterministic_algorithms_warn_only_enabled() is False
    assert C.glia_get_deterministic_algorithms() == 0


def test_backend_flags_round_trip():
    glia.backends.cuda.matmul.allow_tf32 = True
    assert glia.backends.cuda.matmul.allow_tf32 is True
    assert glia.backends.cudnn.allow_tf32 is True
    glia.backends.cudnn.allow_tf32 = False
    assert glia.backends.cudnn.allow_tf32 is False
    assert glia.backends.cuda.matmul.allow_tf32 is True
    glia.backends.cudnn.deterministic = True
    assert glia.backends.cudnn.deterministic is True
    assert C.glia_get_cudnn_deterministic() == 1
    assert glia.are_deterministic_algorithms_enabled() is False


def test_not_bools_are_torchs_errors_and_change_nothing():
    with pytest.raises(TypeError, match=r"^_set_deterministic_algorithms\(\): argument 'mode' \(position 1\) "
                       r"must be bool, not int$"):
        glia.use_deterministic_algorithms(1)
    with pytest.raises(TypeError, match="must be bool, not str"):
        glia.use_deterministic_algorithms("yes")
    assert glia.are_deterministic_algorithms_enabled() is False
    with pytest.raises(RuntimeError, match=r"^set_allow_tf32_cublas expects a bool, but got int$"):
        glia.backends.cuda.matmul.allow_tf32 = 1
    assert glia.backends.cuda.matmul.allow_tf32 is False
    with pytest.raises(RuntimeError, match=r"^set_allow_tf32_cublas expects a bool, but got int$"):
        glia.backends.cudnn.allow_tf32 = 0
    assert glia.backends.cudnn.allow_tf32 is True
    with pytest.raises(RuntimeError, match=r"^set_deterministic_cudnn expects a bool, but got int$"):
        glia.backends.cudnn.deterministic = 1
    assert glia.backends.cudnn.deterministic is False


def test_unknown_matmul_attribute_is_torchs_assertion():
    with pytest.raises(AssertionError, match="^Unknown attribute foo$"):
        glia.backends.cuda.matmul.foo
    with pytest.raises(AssertionError, match="^Unknown attribute foo$"):
        glia.backends.cuda.matmul.foo = 1
