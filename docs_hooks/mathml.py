"""Formulas rendered when the site is built: the TeX that ``pymdownx.arithmatex`` (generic mode)
leaves in the pages becomes MathML, which browsers display themselves, so no script is fetched and
the formulas read with no network (MathJax from a CDN left raw ``\\( ... \\)`` offline).

Registered in ``mkdocs.yml`` under ``hooks``; ``latex2mathml`` (the ``docs`` extra) converts.
"""
from __future__ import annotations

import html
import re

#: arithmatex's generic output: inline ``<span class="arithmatex">\(...\)</span>`` and display
#: ``<div class="arithmatex">\[...\]</div>`` (TeX HTML-escaped).
_MATH = re.compile(r'<(span|div) class="arithmatex">\s*(\\\(|\\\[)(.*?)(\\\)|\\\])\s*</\1>', re.S)

#: A TeX command, or an alignment ``&``, that reached the MathML as text (``<mi>\notacommand</mi>``).
_UNKNOWN = re.compile(r">(\\[A-Za-z]+|&)<")


#: amsmath's ``aligned``, which latex2mathml reads as one line with its ``&`` left as text.
_ALIGNED = re.compile(r"\\begin\{aligned\}(.*?)\\end\{aligned\}", re.S)


def _as_array(m: re.Match[str]) -> str:
    """An ``aligned`` block as the ``array`` latex2mathml lays out as a table: columns alternately
    right- and left-aligned, as amsmath aligns them."""
    body = m.group(1)
    columns = max(row.count("&") for row in re.split(r"\\\\", body)) + 1
    return f"\\begin{{array}}{{{('rl' * columns)[:columns]}}}{body}\\end{{array}}"


def to_mathml(page_html: str) -> str:
    """``page_html`` with every arithmatex formula replaced by its MathML.

    Raises
    ------
    ValueError
        A formula latex2mathml cannot read, quoting it (the build then fails, as under --strict).
    """
    from latex2mathml.converter import convert

    def render(m: re.Match[str]) -> str:
        tex = _ALIGNED.sub(_as_array, html.unescape(m.group(3)))
        display = "block" if m.group(2) == "\\[" else "inline"
        try:
            out = convert(tex, display=display)
        except Exception as exc:  # latex2mathml raises its own error types
            raise ValueError(f"cannot render the formula {tex!r} as MathML: {exc or type(exc).__name__}") from None
        unknown = _UNKNOWN.search(out)  # a command latex2mathml does not know, left as text
        if unknown:
            raise ValueError(f"cannot render the formula {tex!r} as MathML: unknown command {unknown.group(1)}")
        return out

    return _MATH.sub(render, page_html)


def on_page_content(html: str, page, config, files) -> str:  # noqa: ANN001 - MkDocs' hook signature
    """MkDocs hook: every page's formulas as MathML."""
    return to_mathml(html)
