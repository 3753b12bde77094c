"""The documentation site reads offline: formulas become MathML when it is built (no script from a
CDN: offline, MathJax left every formula as raw ``\\( ... \\)``), no remote script or font is
loaded, and the API pages show no raw Sphinx roles (``:func:``)."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", flags=re.S)


def _hook(name: str):
    spec = importlib.util.spec_from_file_location(f"docs_hook_{name}", ROOT / "docs_hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _config() -> str:
    return (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_the_site_loads_no_remote_script_or_font():
    config = _config()
    assert not re.search(r"https?://\S+\.js", config), "a script from the network"
    assert "extra_javascript" not in config
    assert re.search(r"^\s+font: false", config, flags=re.M), "the theme's fonts come from a font service"
    hooks = re.search(r"^hooks:\n((?:\s+- .+\n)+)", config, flags=re.M)
    assert hooks and {"docs_hooks/mathml.py", "docs_hooks/roles.py"} <= set(re.findall(r"- (\S+)", hooks.group(1)))


def test_a_formula_becomes_mathml():
    pytest.importorskip("latex2mathml")
    mathml = _hook("mathml")
    page = ('<p>a <span class="arithmatex">\\(h = \\lfloor m/2 \\rfloor &lt; n\\)</span> b</p>'
            '<div class="arithmatex">\\[\\sum_{i} (q_i - \\alpha) x_i \\ge 0\\]</div>')
    out = mathml.to_mathml(page)
    assert "arithmatex" not in out and "\\(" not in out and "\\[" not in out
    assert out.count("<math") == 2 and 'display="block"' in out
    assert "&#x0230A;" in out or "\u230a" in out  # the floor brackets survive
    assert "<mo>&#x0003C;</mo>" in out or "<mo>&lt;</mo>" in out  # '<' read as TeX, not as HTML


def test_an_aligned_block_becomes_a_table():
    pytest.importorskip("latex2mathml")
    mathml = _hook("mathml")
    out = mathml.to_mathml('<div class="arithmatex">\\[\\begin{aligned} \\max\\quad & x \\\\ '
                           '\\text{s.t.}\\quad & x \\le 1 && \\text{(a bound)} \\end{aligned}\\]</div>')
    assert out.count("<mtr>") == 2 and out.count("<mtd") == 2 + 4 and ">&<" not in out


def test_an_unreadable_formula_fails_the_build_naming_it():
    pytest.importorskip("latex2mathml")
    mathml = _hook("mathml")
    with pytest.raises(ValueError, match=r"cannot render the formula 'x\^' as MathML"):
        mathml.to_mathml('<span class="arithmatex">\\(x^\\)</span>')
    with pytest.raises(ValueError, match=r"as MathML: unknown command \\notacommand$"):
        mathml.to_mathml('<span class="arithmatex">\\(\\notacommand x\\)</span>')


@pytest.mark.parametrize("page", sorted((ROOT / "docs").glob("*.md")), ids=lambda p: p.name)
def test_every_formula_of_the_docs_renders(page):
    pytest.importorskip("latex2mathml")
    mathml = _hook("mathml")
    for m in MATH.finditer(page.read_text(encoding="utf-8")):
        kind, tex = ("\\(", m.group(1)) if m.group(1) is not None else ("\\[", m.group(2))
        tag = "span" if kind == "\\(" else "div"
        end = "\\)" if kind == "\\(" else "\\]"
        out = mathml.to_mathml(f'<{tag} class="arithmatex">{kind}{tex}{end}</{tag}>')
        assert out.startswith("<math"), tex
        # paired delimiters (a '\\rfloor' once became a line end and 'floor')
        for left, right in (("\\lfloor", "\\rfloor"), ("\\lceil", "\\rceil"), ("\\left", "\\right")):
            assert tex.count(left) == tex.count(right), tex


def test_sphinx_roles_show_as_code():
    roles = _hook("roles")
    page = ('see :func:<code>~subsel.models.evaluate</code>, :class:<code>subsel.SubsetSelectionProblem</code> '
            'and :py:meth:<code>~subsel.bandits.Policy.select</code>; <code>:keep:</code>')
    assert roles.drop_roles(page) == ("see <code>evaluate</code>, <code>subsel.SubsetSelectionProblem</code> "
                                      "and <code>select</code>; <code>:keep:</code>")
