import os
import sys

# The package under test is the one in this checkout, and the library the one scripts/test.sh
# (or GLIA_BUILD_DIR) names: tests never pick up an installed glia by accident.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
if "GLIA_LIBRARY" not in os.environ:
    build = os.environ.get("GLIA_BUILD_DIR", os.path.join(HERE, "..", "..", "..", "build", "release"))
    os.environ["GLIA_LIBRARY"] = os.path.join(build, "src", "libglia.so")
