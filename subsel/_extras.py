"""Optional dependencies: which extra provides what, and one clear error when it is missing.

The core install (``pip install subsel``) holds the modelling library and the solvers: numpy,
pandas, PuLP, OR-Tools and HiGHS.  Everything else comes with an extra::

    pip install "subsel[bandits]"      # bandit simulations' progress and figures, state file locks
    pip install "subsel[evolution]"    # EMSCO: scikit-learn, SciPy, threadpoolctl, joblib, matplotlib,
                                       # LightGBM (the GreedyMiser baseline)
    pip install "subsel[experiments]"  # reproduce the papers: joblib, tqdm, matplotlib, pymoo, pyarrow
    pip install "subsel[dask]"         # run experiment grids on a Dask cluster
    pip install "subsel[all]"          # all of the above

Code that needs an optional library calls :func:`require` before any work; a missing library is a
:class:`MissingExtraError` (an :class:`ImportError`) whose one-line message names the
``pip install`` command to run.  This module imports nothing of ours, so every layer may use it.
"""
from __future__ import annotations

import importlib
import importlib.util
import types
from typing import Any

__all__ = ["MODULE_EXTRA", "MissingExtraError", "install_hint", "lazy_attribute", "missing_modules", "require"]

#: Top-level module of an optional library -> (its distribution name, the extra that installs it).
#: Used to name the right ``pip install`` in an error when no call site said which extra it wanted.
MODULE_EXTRA: dict[str, tuple[str, str]] = {
    "sklearn": ("scikit-learn", "evolution"),
    "scipy": ("scipy", "evolution"),
    "threadpoolctl": ("threadpoolctl", "evolution"),
    "lightgbm": ("lightgbm", "evolution"),
    "joblib": ("joblib", "evolution"),
    "tqdm": ("tqdm", "bandits"),
    "matplotlib": ("matplotlib", "bandits"),
    "filelock": ("filelock", "bandits"),
    "pymoo": ("pymoo", "experiments"),
    "pyarrow": ("pyarrow", "experiments"),
    "dask": ("dask[distributed]", "dask"),
    "distributed": ("dask[distributed]", "dask"),
}


class MissingExtraError(ImportError):
    """An optional library is not installed; the message names the ``pip install`` that adds it.

    Subclasses :class:`ImportError`, so ``except ImportError`` keeps working; the command line
    prints it as one line and exits with code 2.
    """


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install "subsel[extra]"``."""
    return f'pip install "subsel[{extra}]"'


def missing_modules(*modules: str) -> list[str]:
    """The top-level modules among ``modules`` that cannot be imported here (none is imported).

    A module already imported counts as present (also when a test replaced it in ``sys.modules``);
    one set to ``None`` in ``sys.modules`` counts as missing, as it does for ``import``.
    """
    import sys

    missing = []
    for name in modules:
        top = name.partition(".")[0]
        if top in sys.modules:
            if sys.modules[top] is None:
                missing.append(top)
            continue
        try:
            found = importlib.util.find_spec(top) is not None
        except (ImportError, ValueError):  # a broken or half-installed package
            found = False
        if not found:
            missing.append(top)
    return missing


def require(*modules: str, extra: str, feature: str) -> None:
    """Raise :class:`MissingExtraError` unless every one of ``modules`` can be imported.

    Parameters
    ----------
    *modules : str
        Top-level import names, e.g. ``"sklearn"``, ``"matplotlib"``.
    extra : str
        The extra of ``subsel`` that installs them, e.g. ``"evolution"``.
    feature : str
        What needs them, for the message, e.g. ``"EMSCO (subsel.evolution)"``.

    Raises
    ------
    MissingExtraError
        ``"<feature> needs <distributions>, which are not installed: pip install "subsel[<extra>]""``.

    Examples
    --------
    >>> require("numpy", extra="evolution", feature="this example")
    """
    missing = missing_modules(*modules)
    if missing:
        names = ", ".join(MODULE_EXTRA.get(m, (m, extra))[0] for m in missing)
        verb = "is" if len(missing) == 1 else "are"
        raise MissingExtraError(f"{feature} needs {names}, which {verb} not installed: {install_hint(extra)}",
                                name=missing[0])


def lazy_attribute(package: str, lazy: dict[str, str], namespace: dict[str, Any], name: str) -> object:
    """A package face's name loaded from its module on first use (the body of a PEP 562 ``__getattr__``).

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    lazy : dict of str to str
        Exported name -> the module of ``package`` that defines it (relative, without the dot).
    namespace : dict
        The package's ``globals()``: the names of the loaded module are stored there, so the next
        access is a plain lookup (and a submodule named as one of them, as ``compare``, does not shadow it).
    name : str
        The attribute asked for.

    Raises
    ------
    AttributeError
        ``name`` is not one of ``lazy``.
    """
    if name not in lazy:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module = importlib.import_module(f".{lazy[name]}", package)
    # Every name of that module at once: importing it bound the module itself to its name in the package.
    namespace.update({other: getattr(module, other) for other, home in lazy.items() if home == lazy[name]})
    return namespace[name]


def face_dir(namespace: dict[str, Any], names: list[str]) -> list[str]:
    """A package face's ``dir()`` (the body of a PEP 562 ``__dir__``): the names it exports, loaded
    or not, and its submodules already loaded (so ``help()`` and tab completion list the names that
    load on first use, not the helpers the face imports)."""
    inside = f"{namespace['__name__']}."
    loaded = {name for name, value in namespace.items() if not name.startswith("_")
              and isinstance(value, types.ModuleType) and value.__name__.startswith(inside)}
    return sorted(set(names) | loaded)
