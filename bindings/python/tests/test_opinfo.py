"""torch 1.13's OpInfo samples replayed on glia (issues 20 and 21); see _opinfo.py and docs/testing.md.

Ops glia lacks and samples that fail do not fail this test: every result goes to a results file
($GLIA_OPINFO_RESULTS, default $GLIA_BUILD_DIR/opinfo_results.json), which scripts/coverage.py reads.
What fails it: a sample that tests/golden/opinfo/expected.txt lists as passing and that no longer
passes (a regression), and an expectation file that does not match the fixtures.
"""

import os
import tempfile
import warnings

import _opinfo


def _results_path():
    path = os.environ.get("GLIA_OPINFO_RESULTS")
    if path:
        return path
    build = os.environ.get("GLIA_BUILD_DIR", "")
    return os.path.join(build if os.path.isdir(build) else tempfile.gettempdir(), "opinfo_results.json")


def test_expectations_cover_every_fixture():
    expected = _opinfo.read_expected()
    keys = _opinfo.fixture_keys()
    assert sorted(expected) == keys, "expected.txt lists %s; the fixtures are %s" % (
        sorted(set(expected) ^ set(keys))[:20], "regenerate it: python3 scripts/coverage.py --update")
    for key in keys:
        header, recs = _opinfo.load(key)
        assert sorted(expected[key]) == sorted(_opinfo.code_keys(header)), key
        for d in _opinfo.code_keys(header):
            assert len(expected[key][d]) == len(recs), "%s %s: %d codes for %d samples" % (
                key, d, len(expected[key][d]), len(recs))


def test_opinfo_replay_has_no_regression():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = _opinfo.run_all()
    path = _results_path()
    _opinfo.write_results(results, path)
    bad = _opinfo.regressions(results, _opinfo.read_expected())
    if os.environ.get("GLIA_OPINFO_UPDATE") == "1":  # scripts/coverage.py --update: rewrite, still report
        _opinfo.write_expected(results)
    assert not bad, "%d samples listed as passing in tests/golden/opinfo/expected.txt fail now (results: %s):\n%s" % (
        len(bad), path, "\n".join(bad[:50]))


def test_coverage_doc_is_current():
    """docs/coverage.md is what scripts/coverage.py writes from the committed inputs and this glia."""
    import importlib.util

    import glia
    from _repo import ROOT

    spec = importlib.util.spec_from_file_location("glia_coverage", os.path.join(ROOT, "scripts", "coverage.py"))
    cov = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cov)
    text = cov.build(glia, _opinfo.read_expected())
    with open(cov.DOC) as f:
        assert f.read() == text, "docs/coverage.md is out of date: run /usr/bin/python3 scripts/coverage.py --update"


def test_function_forms_of_tensor_methods_check_their_input():
    """glia.ravel & co. (glia/_aliases.py): torch's message for a non-tensor input; values are the replay's."""
    import pytest

    import glia

    for fn, args in ((glia.ravel, ()), (glia.reciprocal, ()), (glia.unbind, ()), (glia.clamp_max, (1.0,)),
                     (glia.clamp_min, (1.0,)), (glia.masked_fill, (glia.tensor([True]), 1.0))):
        with pytest.raises(TypeError, match=r"^%s\(\): argument 'input' \(position 1\) must be Tensor, not list$"
                           % fn.__name__):
            fn([1.0], *args)
    assert [t.tolist() for t in glia.unbind(glia.tensor([[1.0, 2.0], [3.0, 4.0]]), 1)] == [[1.0, 3.0], [2.0, 4.0]]
