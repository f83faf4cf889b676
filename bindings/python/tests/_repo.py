"""Where the tests find the checkout's files, and which glia they test.

In the checkout (bindings/python/tests), the repository is three directories up and the glia under
test is bindings/python/glia with the library of GLIA_BUILD_DIR (conftest.py). Copied out of the
tree, as scripts/wheel-test.sh does to test an installed wheel, the tests import the installed glia,
which finds its own library, and GLIA_SOURCE_DIR names the checkout whose files they read (the
header, tests/golden fixtures, examples, docs).
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
IN_TREE = os.path.isfile(os.path.join(HERE, "..", "glia", "__init__.py"))
if IN_TREE:
    ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
else:
    ROOT = os.environ.get("GLIA_SOURCE_DIR", "")
    if not os.path.isfile(os.path.join(ROOT, "include", "glia", "glia.h")):
        raise RuntimeError("bindings/python/tests outside the checkout (%s) need GLIA_SOURCE_DIR, the checkout they "
                           "come from; got %r" % (HERE, ROOT))


def python_env():
    """The environment for a child Python that must import the same glia as the tests."""
    env = dict(os.environ)
    if IN_TREE:
        env["PYTHONPATH"] = os.path.join(ROOT, "bindings", "python") + os.pathsep + env.get("PYTHONPATH", "")
    return env
