"""Argument checks shared by every layer: numbers and arrays, with messages that name the field.

One place for the rules "a finite number", "an array of numbers in [low, high]", "a positive
integer capacity", so that the problem model (:class:`subsel.models.SubsetSelectionProblem`), its
batched form (:class:`subsel.models.ProblemBatch`), the bandit policies and the evolutionary
estimator say the same thing about the same mistake.  Messages name the field, the first offending
index (``cost[3]``, or ``quality[2, 5]`` for a row of a batch) and the value.

Private: the public contract is the messages of the classes that use these helpers.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Mapping, MappingView
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np

from ._files import InputError

__all__ = ["as_float_array", "check_array_range", "check_capacity", "check_scalar", "readonly"]


def _reject_booleans(value: Any, field_name: str) -> None:
    # Booleans are numbers to numpy (True -> 1.0) but never a quality, a cost or a capacity.  And an
    # iterator (a generator), a set or a mapping is one object to numpy, not a sequence of entries:
    # named here, before numpy reads it as a 0-d array ("got shape ()" would not say why); a masked
    # array's masked entries would be read as the numbers under the mask.
    if isinstance(value, (Iterator, AbstractSet, Mapping, MappingView)):
        raise TypeError(f"{field_name} must be a list, tuple or array of numbers; got a {type(value).__name__} "
                        "(an iterator, set or mapping is not read as a sequence: pass list(...))")
    # (A masked array exists only once numpy.ma is loaded: not loaded, there is none to check, and
    # reading ``np.ma`` would load it, 35 ms of every command's start-up.)
    ma = sys.modules.get("numpy.ma")
    if ma is not None and isinstance(value, ma.MaskedArray) and ma.is_masked(value):   # numpy reads under a mask
        raise TypeError(f"{field_name} has masked entries; fill or drop them first (.filled(...) or .compressed())")
    if isinstance(value, (list, tuple)):
        # One pass over the element types at C speed; the element-by-element search below (for
        # the index of the message) only when a boolean or a nested sequence is among them.
        kinds = set(map(type, value))
        if not any(issubclass(t, (bool, np.bool_, list, tuple)) for t in kinds):
            return
        for i, v in enumerate(value):
            if isinstance(v, (bool, np.bool_)):
                raise TypeError(f"{field_name}[{i}] must be a number, not a boolean; got {v!r}")
            if isinstance(v, (list, tuple)):
                for k, w in enumerate(v):
                    if isinstance(w, (bool, np.bool_)):
                        raise TypeError(f"{field_name}[{i}, {k}] must be a number, not a boolean; "
                                        f"got {w!r}")
    elif getattr(value, "dtype", None) == np.dtype(bool):
        raise TypeError(f"{field_name} must be an array of numbers, not booleans; got {value!r}")


def _entry_error(field_name: str, mask: np.ndarray, values: np.ndarray, rule: str, value: Any = None
                 ) -> ValueError:
    """The error for the first True entry of ``mask``: ``field[i] must ...; got v``.

    An entry of a 1-D array gives a :class:`subsel.models.InputError` (a ``ValueError`` that
    knows the field and index, so a file reader can point at the line); a 0-d value or a 2-D entry
    ``field[j, i]`` a plain ``ValueError`` with the same wording.
    """
    flat = int(np.argmax(mask.ravel()))
    got = values.ravel()[flat] if value is None else value
    if mask.ndim == 1:
        return InputError(rule, column=field_name, row=flat, value=got)
    got_text = str(got.item()) if isinstance(got, np.generic) else str(got)
    if mask.ndim == 0:
        return ValueError(f"{field_name} {rule}; got {got_text}")
    idx = ", ".join(str(int(i)) for i in np.unravel_index(flat, mask.shape))
    return ValueError(f"{field_name}[{idx}] {rule}; got {got_text}")


def as_float_array(value: Any, field_name: str, ndim: tuple[int, ...] = (1,)) -> np.ndarray:
    """``value`` as a new, finite float64 array whose number of dimensions is in ``ndim``.

    Parameters
    ----------
    value : array-like of numbers
    field_name : str
        Name used in messages.
    ndim : tuple of int, default (1,)
        Accepted numbers of dimensions.

    Returns
    -------
    ndarray of float64
        A fresh (owned, writable) copy.

    Raises
    ------
    TypeError
        Not numbers at all, or booleans.
    ValueError
        Wrong number of dimensions, or a NaN / infinite entry (naming its index and value).
    """
    _reject_booleans(value, field_name)
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{field_name} must be an array of numbers; got {value!r}") from exc
    if arr.ndim not in ndim:
        if ndim == (1,):
            raise ValueError(f"{field_name} must be one-dimensional; got shape {arr.shape}")
        dims = " or ".join(str(d) for d in ndim)
        raise ValueError(f"{field_name} must have {dims} dimensions; got shape {arr.shape}")
    if arr.size and not np.isfinite(arr).all():  # one fused pass; details only on failure
        raise _entry_error(field_name, ~np.isfinite(arr), arr, "must be a finite number")
    return arr


def check_array_range(arr: np.ndarray, field_name: str, low: float = -math.inf, high: float = math.inf,
                      rule: str = "") -> np.ndarray:
    """Check ``low <= arr <= high`` elementwise (``arr`` finite); return ``arr``.

    Raises
    ------
    ValueError
        ``"{field}[i] must be {rule}; got {value}"`` for the first entry outside the range.
    """
    if arr.size and (arr.min() < low or arr.max() > high):
        raise _entry_error(field_name, (arr < low) | (arr > high), arr, f"must be {rule}")
    return arr


def check_capacity(value: Any, field_name: str = "capacity", ndim: tuple[int, ...] = (1,), *,
                   limit: int) -> np.ndarray:
    """Units per agent: integers in ``[1, limit]``, returned as a fresh int64 array.

    ``limit`` is the model's largest exact integer, ``2**53`` (:data:`subsel.models.MAX_EXACT_INT`,
    passed in: this module sits below the model).  Integers are checked exactly (a Python int
    beyond 2**53 is never rounded through float first).

    Raises
    ------
    TypeError, ValueError
        As :func:`as_float_array`; an entry below 1, not an integer, or above ``2**53`` (naming
        its index).
    """
    _reject_booleans(value, field_name)
    raw = value if isinstance(value, np.ndarray) else None
    if raw is None:
        try:
            raw = np.asarray(value)
            if raw.dtype.kind == "f" and raw.size and not float(np.abs(raw).max()) < limit:
                raw = np.array(value, dtype=object)   # a Python int beyond 2^53 next to a float: never rounded
        except (TypeError, ValueError):
            raw = None
    if raw is not None and raw.dtype.kind in "iu" and raw.ndim in ndim and raw.size \
            and raw.min() >= 1 and raw.max() <= limit:
        return raw.astype(np.int64)  # integers in range: two passes and a copy, nothing to report
    if raw is not None and raw.dtype.kind in "iuO" and raw.ndim in ndim:
        if raw.dtype.kind == "O":
            flat = raw.ravel().tolist()
            for v in flat:
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                    raise TypeError(f"{field_name} must be an array of numbers; got {value!r}")
            big = np.array([isinstance(v, (int, np.integer)) and v > limit for v in flat],
                           dtype=bool).reshape(raw.shape)
        else:
            big = raw > limit
        if big.any():
            got = raw.ravel()[int(np.argmax(big.ravel()))]
            raise _entry_error(field_name, big, raw, f"must be at most 2^53 = {limit} (the largest "
                               "integer subsel handles exactly)", int(got))
    kf = as_float_array(value, field_name, ndim)
    if kf.size and (kf.min() < 1 or kf.max() > limit or not (kf == np.round(kf)).all()):
        bad = (kf < 1) | (kf != np.round(kf))
        if bad.any():
            v = float(kf[bad][0])
            raise _entry_error(field_name, bad, kf, "must be a positive integer",
                               int(v) if v == round(v) else v)
        big = kf > limit
        raise _entry_error(field_name, big, kf, f"must be at most 2^53 = {limit} (the largest "
                           "integer subsel handles exactly)", int(kf[big][0]))
    return kf.astype(np.int64)


def _shown(value: Any) -> str:
    """``value`` as messages print it: numpy scalars as their Python value (``1.5``, not
    ``np.float64(1.5)``), everything else by ``repr``."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def check_scalar(value: Any, name: str, target_type: type[int] | type[float] = float, *, min_val: float | None = None,
                 max_val: float | None = None, include_boundaries: str = "both", unit: str = "") -> Any:
    """A scalar argument checked for type and range, returned as a Python ``float`` or ``int``.

    The one argument check of subsel, after scikit-learn's ``utils.validation.check_scalar``: every
    layer says the same thing about the same mistake, ``<name> must be <what>; got <value>``, e.g.
    ``threads must be an integer in [1, 64]; got 0`` or ``time_limit_s must be a number > 0
    (seconds); got -1``.

    Parameters
    ----------
    value : object
        The argument as given.
    name : str
        The argument's name, as the caller spells it.
    target_type : {float, int}, default float
        ``float``: any real number (an int or a numpy number included), finite; ``int``: an integer
        (Python or numpy).  Booleans are neither.
    min_val, max_val : float, optional
        Bounds of the accepted range; None leaves that side open.
    include_boundaries : {"both", "left", "right", "neither"}, default "both"
        Which bounds are allowed values.
    unit : str, optional
        Unit named in the message (``"seconds"``).

    Returns
    -------
    float or int
        ``float(value)`` or ``int(value)``.

    Raises
    ------
    TypeError
        ``value`` is a boolean, or not a real number (``float``) or an integer (``int``).
    ValueError
        ``value`` is NaN or infinite, or outside the range; an infinity on a side the range leaves
        open is said to be one (``time_limit_s must be a finite number > 0 (seconds); got inf``).
    """
    if type(value) is float and min_val is None and max_val is None and target_type is not int \
            and math.isfinite(value):
        return value  # the common case (a finite Python float, no range): no type dispatch
    integer = target_type is int
    left = include_boundaries in ("both", "left")
    right = include_boundaries in ("both", "right")
    number = value if not isinstance(value, (bool, np.bool_)) else None
    if integer and isinstance(number, (int, np.integer)):
        v: float = int(number)
    elif not integer and isinstance(number, (int, float, np.integer, np.floating)):
        v = float(number)
    else:
        raise TypeError(_scalar_message(value, name, integer, min_val, max_val, left, right, unit)
                        .replace("a finite number", "a number"))
    if (not integer and not math.isfinite(v)) \
            or (min_val is not None and (v < min_val if left else v <= min_val)) \
            or (max_val is not None and (v > max_val if right else v >= max_val)):
        raise ValueError(_scalar_message(value, name, integer, min_val, max_val, left, right, unit))
    return v


def _scalar_message(value: Any, name: str, integer: bool, min_val: float | None, max_val: float | None,
                    left: bool, right: bool, unit: str) -> str:
    """:func:`check_scalar`'s error message, written only for an error (a valid argument costs no
    formatting and no closure)."""
    def bound(b: float) -> str:
        return str(b) if isinstance(b, int) else f"{b:g}"

    if min_val is not None and max_val is not None:
        what = f" in {'[' if left else '('}{bound(min_val)}, {bound(max_val)}{']' if right else ')'}"
    elif min_val is not None:
        what = f" {'>=' if left else '>'} {bound(min_val)}"
    elif max_val is not None:
        what = f" {'<=' if right else '<'} {bound(max_val)}"
    else:
        what = ""
    # An infinity on a side the range leaves open is refused for being infinite: say so.
    unbounded = not integer and isinstance(value, (float, np.floating)) and math.isinf(value) \
        and (max_val if value > 0 else min_val) is None
    kind = "an integer" if integer else ("a number" if what and not unbounded else "a finite number")
    return f"{name} must be {kind}{what}{f' ({unit})' if unit else ''}; got {_shown(value)}"


def readonly(arr: np.ndarray, copy: bool = True) -> np.ndarray:
    """A read-only array: a copy of ``arr`` (or ``arr`` itself when ``copy=False`` and it is ours)."""
    out = np.array(arr, copy=True) if copy else arr
    out.setflags(write=False)
    return out
