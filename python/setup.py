# Records where the trainsim source tree is (the folder above this one, or
# $TRAINSIM_SOURCE_DIR for a copy of python/ built elsewhere), so that the
# installed package finds the library built there (build/libtrainsim.so) or
# builds it with CMake. Everything else is in pyproject.toml.
# SPDX-License-Identifier: MIT
import os

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    def run(self):
        super().run()
        root = os.environ.get("TRAINSIM_SOURCE_DIR") or os.path.dirname(
            os.path.dirname(os.path.abspath(__file__)))
        target = os.path.join(self.build_lib, "trainsim", "_where.py")
        with open(target, "w") as f:
            f.write("# written when the package was built\nSOURCE_DIR = %r\n" % root)


setup(cmdclass={"build_py": BuildPy})
