import os
import sys

from _repo import IN_TREE

# In the checkout, the package under test is the one in this checkout, and the library the one
# scripts/test.sh (or GLIA_BUILD_DIR) names: tests never pick up an installed glia by accident.
# Copied out of the tree (scripts/wheel-test.sh), they test the glia installed for this Python,
# with the library it finds itself (_repo.py).
HERE = os.path.dirname(os.path.abspath(__file__))
if IN_TREE:
    sys.path.insert(0, os.path.dirname(HERE))
    if "GLIA_LIBRARY" not in os.environ:
        build = os.environ.get("GLIA_BUILD_DIR", os.path.join(HERE, "..", "..", "..", "build", "release"))
        os.environ["GLIA_LIBRARY"] = os.path.join(build, "src", "libglia.so")


def pytest_report_header(config):
    try:
        import glia
    except ImportError as e:
        return "glia: %s" % e
    return "glia %s: %s, library %s (%s)" % (glia.__version__, os.path.dirname(glia.__file__), glia._ffi.lib_path,
                                             glia._ffi.lib_found_by)
