"""Small wording helpers shared by every layer's messages (imports nothing of ours)."""
from __future__ import annotations

import math

__all__ = ["counted", "exact_text", "number_text", "number_text_near"]


def counted(n: int, noun: str) -> str:
    """``"1 agent"``, ``"3 agents"``: a count and its noun, plural (an added ``s``) unless ``n == 1``.

    Examples
    --------
    >>> counted(1, "agent"), counted(3, "unit")
    ('1 agent', '3 units')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def exact_text(v: float) -> str:
    """``v`` as the user gave it: the shortest text that reads back to the same double (``repr``),
    a whole number without its ``.0`` (how a budget or a threshold is echoed in a message).

    Examples
    --------
    >>> exact_text(313850.14), exact_text(40.0), exact_text(0.8), exact_text(1e20)
    ('313850.14', '40', '0.8', '1e+20')
    """
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)


def number_text(v: float | None, digits: int = 10) -> str:
    """``v`` with ``digits`` significant digits (``%g``), or ``-`` for None or NaN: how the command
    line and the report print a number."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{digits}g}"


def number_text_near(v: float, threshold: float, digits: int = 6) -> str:
    """``v`` with ``digits`` significant digits, or as many as it takes to show on which side of
    ``threshold`` it lies (an average quality 1e-10 below alpha is not printed as alpha).

    Examples
    --------
    >>> number_text_near(0.8 - 1e-10, 0.8)
    '0.7999999999'
    """
    text = number_text(v, digits)
    if math.isfinite(v) and v != threshold and text == number_text(threshold, digits):
        for more in range(digits + 1, 18):
            text = number_text(v, more)
            if text != number_text(threshold, more):
                break
    return text
