"""The docstrings' Sphinx roles shown as code, not as raw text, on the API pages.

The docstrings are numpydoc and cross-reference with Sphinx roles (``:func:`~subsel.solve```);
mkdocstrings leaves such a role as the text ``:func:`` before the code span.  This hook drops the role
and, for ``~``, keeps only the last component of the name, as Sphinx displays it.

Registered in ``mkdocs.yml`` under ``hooks``.
"""
from __future__ import annotations

import re

#: A role left in the HTML: ``:func:<code>~subsel.models.evaluate</code>``.
_ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj|const|ref|term):<code>(~?)([^<]*)</code>")


def drop_roles(page_html: str) -> str:
    """``page_html`` with every Sphinx role's text removed and a ``~`` name shortened."""
    def shown(m: re.Match[str]) -> str:
        name = m.group(2)
        return f"<code>{name.rsplit('.', 1)[-1] if m.group(1) else name}</code>"

    return _ROLE.sub(shown, page_html)


def on_page_content(html: str, page, config, files) -> str:  # noqa: ANN001 - MkDocs' hook signature
    """MkDocs hook: the page without raw Sphinx roles."""
    return drop_roles(html)
