"""Small wording helpers shared by every layer's messages (imports nothing of ours)."""
from __future__ import annotations

__all__ = ["counted"]


def counted(n: int, noun: str) -> str:
    """``"1 agent"``, ``"3 agents"``: a count and its noun, plural (an added ``s``) unless ``n == 1``.

    Examples
    --------
    >>> counted(1, "agent"), counted(3, "unit")
    ('1 agent', '3 units')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
