"""Seed handling shared by every layer: one rule for what a ``seed`` argument may be.

subsel never touches numpy's global random state: every random function takes a ``seed`` (or
``rng`` / ``random_state``) and turns it into a :class:`numpy.random.Generator` here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

import numpy as np

__all__ = ["as_generator", "check_seed"]

if TYPE_CHECKING:  # for annotations only: at load it would import numpy.random, a fifth of numpy's import
    #: What a public ``seed`` argument may be.
    SeedLike = Union[int, np.integer, np.random.Generator, np.random.SeedSequence, None]


def check_seed(seed: Any, name: str = "seed", random_state: bool = False) -> None:
    """Raise unless ``seed`` is a non-negative integer, a Generator, a SeedSequence or None.

    Parameters
    ----------
    seed : object
        The argument to check.
    name : str, default "seed"
        Its name, for the message.
    random_state : bool, default False
        Also accept a legacy :class:`numpy.random.RandomState` (scikit-learn's convention).

    Raises
    ------
    TypeError
        ``seed`` is of another kind (a float, a string, a boolean...).
    ValueError
        ``seed`` is a negative integer.
    """
    if seed is None or isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        return
    if random_state and isinstance(seed, np.random.RandomState):
        return
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        kinds = "a numpy.random.Generator, a RandomState" if random_state else "a numpy.random.Generator"
        raise TypeError(f"{name} must be a non-negative integer, {kinds} or None; "
                        f"got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {seed!r}")


def as_generator(seed: Any, name: str = "seed", random_state: bool = False) -> np.random.Generator:
    """Normalise a public seed argument to a :class:`numpy.random.Generator`.

    A Generator is returned as it is (shared, not copied); an integer, a SeedSequence or None
    (fresh entropy from the operating system) seed a new PCG64 generator through
    :func:`numpy.random.default_rng`; with ``random_state=True`` a legacy ``RandomState`` seeds
    one from its next 31-bit integer.

    Parameters
    ----------
    seed : int >= 0, numpy.random.Generator, numpy.random.SeedSequence or None
    name : str, default "seed"
        Name used in messages.
    random_state : bool, default False
        Also accept a ``numpy.random.RandomState``.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    TypeError, ValueError
        As :func:`check_seed`.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    check_seed(seed, name, random_state)
    if isinstance(seed, np.random.RandomState):
        return np.random.default_rng(seed.randint(0, np.iinfo(np.int32).max))
    if isinstance(seed, np.integer):
        seed = int(seed)
    return np.random.default_rng(seed)
