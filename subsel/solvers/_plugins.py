"""Plug-in solvers of the registry: the entry points of the ``subsel.solvers`` group.

Read once per process by :mod:`subsel.solvers.registry` when a name is not one of this package's
backends (or when the whole table is listed), so that a solve by a built-in name (``subsel solve``)
neither loads this module nor reads any distribution's metadata.  See the registry's docstring for
the three sources of solvers and for why a source tree reads its own ``pyproject.toml``.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Container, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .registry import _Entry

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*['"]([^'"]+)['"]""")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _source_tree_project() -> dict[str, Any] | None:
    """The ``[project]`` table of the source tree this package runs from, or None when installed."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if not pyproject.is_file():
        return None
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the tomli backport, when installed
        try:
            import tomli as tomllib
        except ImportError:
            return None
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, ValueError):
        return None
    return project if project.get("name") == "subsel" else None


def _extra_requirements(requires: Iterable[str], extras: Iterable[str], own: str) -> list[str]:
    """Distribution names that ``extras`` of a distribution named ``own`` pull in.

    ``requires`` are ``Requires-Dist`` lines (``scikit-learn>=1.3; extra == "evolution"``); a line
    naming the distribution itself (``subsel[bandits]; extra == "all"``) is followed recursively.
    """
    lines = list(requires)
    todo, seen, out = list(extras), set(), []
    while todo:
        extra = todo.pop(0)
        if extra in seen:
            continue
        seen.add(extra)
        for line in lines:
            req, _, marker = line.partition(";")
            wanted = _EXTRA_MARKER.search(marker)
            if wanted is None or wanted.group(1) != extra:
                continue
            m = _REQUIREMENT.match(req)
            if m is None:
                continue
            if _canonical(m.group(1)) == _canonical(own):
                todo.extend(e.strip() for e in (m.group(2) or "").split(",") if e.strip())
            elif m.group(1) not in out:
                out.append(m.group(1))
    return out


def _parse_target(value: str) -> tuple[str, tuple[str, ...]]:
    """``"module:Class [extra1, extra2]"`` -> ``("module:Class", ("extra1", "extra2"))``."""
    target, _, rest = value.partition("[")
    extras = tuple(e.strip() for e in rest.rstrip().rstrip("]").split(",") if e.strip())
    return target.strip(), extras


def _plugin_entry(entry: type[_Entry], name: str, value: str, requires: Iterable[str], own: str) -> _Entry:
    target, extras = _parse_target(value)
    return entry(name.strip().lower(), target, (target.partition(".")[0].partition(":")[0],),
                  tuple(_extra_requirements(requires, extras, own)),
                  extras[0] if extras else None, probe=False, origin=f"entry point of {own}")


def read_plugins(group: str, entry: type[_Entry], taken: Container[str], valid: re.Pattern[str]
                 ) -> tuple[_Entry, ...]:
    """Entry points of the ``group`` of solvers: the source tree's own table when running from one,
    then the installed distributions' (a name that is ``taken`` or does not match ``valid`` is warned
    about and ignored).  The registry passes its group, its entry type and its names in (it imports
    this module, not the other way round)."""
    from importlib import metadata

    found: list[_Entry] = []
    tree = _source_tree_project()
    if tree is not None:  # running from a source tree: its pyproject.toml is the truth for us
        optional = tree.get("optional-dependencies", {})
        requires = [f"{req}; extra == \"{extra}\"" for extra, reqs in optional.items() for req in reqs]
        for name, value in tree.get("entry-points", {}).get(group, {}).items():
            found.append(_plugin_entry(entry, name, value, requires, "subsel"))
    for ep in metadata.entry_points(group=group):
        dist = getattr(ep, "dist", None)
        own = dist.metadata["Name"] if dist is not None else ""
        if tree is not None and _canonical(own or "") == "subsel":
            continue  # this package's installed metadata, superseded by the tree's table
        found.append(_plugin_entry(entry, ep.name, ep.value, (dist.requires or []) if dist is not None else [], own))
    out: dict[str, _Entry] = {}
    for plugin in sorted(found, key=lambda e: e.name):
        if plugin.name in taken or plugin.name in out or not valid.match(plugin.name):
            import warnings

            warnings.warn(f"solver plug-in {plugin.name!r} ({plugin.origin}) ignored: the name is taken or "
                          "invalid", RuntimeWarning, stacklevel=2)
            continue
        out[plugin.name] = plugin
    return tuple(out.values())
