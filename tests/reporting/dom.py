"""A small element tree built with the standard library's HTML parser, to read the report as a browser
would (elements, attributes, text), never by searching the raw text."""
from __future__ import annotations

from html.parser import HTMLParser

#: Elements that never have content (HTML5), so they never wait for an end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    """An element: its tag, attributes, children (nodes and strings) and parent."""

    def __init__(self, tag: str, attrs: dict[str, str | None], parent: Node | None = None):
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node | str] = []

    def text(self) -> str:
        """The text of the element and its descendants, spaces collapsed."""
        parts: list[str] = []

        def walk(node: Node) -> None:
            for c in node.children:
                if isinstance(c, str):
                    parts.append(c)
                else:
                    walk(c)
        walk(self)
        return " ".join("".join(parts).split())

    def iter(self, tag: str | None = None):
        """Every descendant element (depth first), or those of one tag."""
        for c in self.children:
            if isinstance(c, Node):
                if tag is None or c.tag == tag:
                    yield c
                yield from c.iter(tag)

    def find(self, tag: str, **attrs: str) -> Node | None:
        for node in self.iter(tag):
            if all(node.attrs.get(k) == v for k, v in attrs.items()):
                return node
        return None


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.current = self.root
        self.doctype: str | None = None

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, dict(attrs), self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent  # an element closed implicitly
        if node is self.root:
            raise AssertionError(f"end tag </{tag}> without a start tag")
        self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def parse(text: str) -> Node:
    """The document's tree; raises AssertionError on an end tag that closes nothing or an unclosed element."""
    b = _Builder()
    b.feed(text)
    b.close()
    assert b.current is b.root, f"unclosed element <{b.current.tag}>"
    b.root.attrs["doctype"] = b.doctype
    return b.root


def value(cell: Node) -> float:
    """The exact number a cell carries in its ``<data value="...">``."""
    data = cell.find("data")
    assert data is not None, f"no <data> in {cell.text()!r}"
    return float(data.attrs["value"])


def table(node: Node, caption_start: str) -> tuple[list[str], list[list[Node]]]:
    """(header texts, rows of cells) of the table under ``node`` whose caption starts with ``caption_start``."""
    for t in node.iter("table"):
        cap = t.find("caption")
        if cap is not None and cap.text().startswith(caption_start):
            head = [th.text() for th in t.find("thead").iter("th")]
            rows = [[c for c in tr.children if isinstance(c, Node) and c.tag in ("td", "th")]
                    for tr in t.find("tbody").iter("tr")]
            return head, rows
    raise AssertionError(f"no table captioned {caption_start!r}")


def pairs(node: Node, caption_start: str) -> dict[str, Node]:
    """A two-column table as {row header text: value cell}."""
    _, rows = table(node, caption_start)
    return {r[0].text(): r[1] for r in rows}
