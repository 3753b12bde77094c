"""Build of the compiled knapsack kernel (Cython); everything else is in pyproject.toml."""
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

# The kernel's floats must be the operations written, in their order: no contraction of a * b + c
# into a fused multiply-add (GCC and Clang contract by default where the target has FMA).
_ARGS = [] if sys.platform == "win32" else ["-O3", "-ffp-contract=off", "-fno-fast-math"]

setup(ext_modules=cythonize(
    [Extension("subsel.solvers._knapsack_core", ["subsel/solvers/_knapsack_core.pyx"],
               include_dirs=[numpy.get_include()], extra_compile_args=_ARGS,
               define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")])],
    compiler_directives={"language_level": 3}))
