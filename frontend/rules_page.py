"""The rules page: docs/rules.md, the project's public contract, rendered once per process.

The page is the document itself (one text for players, programs and the repository), with
an id on every section heading so that the client can link to "How to play" and "How
scores are checked". Links to the repository's other documents (``engine.md``) are kept as
text: the site does not serve them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.conf import settings
from django.utils.text import slugify
from markdown_it import MarkdownIt
from markdown_it.token import Token


def rules_file() -> Path:
    return Path(settings.BASE_DIR) / "docs" / "rules.md"


@dataclass(frozen=True)
class RulesPage:
    title: str
    sections: tuple[tuple[str, str], ...]  # (id, title) of each `##` section, in order
    body_html: str  # the document below its title


def _is_repository_link(href: str) -> bool:
    return "://" not in href and not href.startswith(("/", "#", "mailto:"))


def _unlink_repository_documents(inline: Token) -> None:
    children = inline.children or []
    kept: list[Token] = []
    skip_close = 0
    for child in children:
        if child.type == "link_open" and _is_repository_link(str(child.attrGet("href") or "")):
            skip_close += 1
            continue
        if child.type == "link_close" and skip_close:
            skip_close -= 1
            continue
        kept.append(child)
    inline.children = kept


# Blocks the page lets scroll sideways (site.css, .rules table and pre); a fence's attributes
# go on its <code>, the focusable content of its scrolling <pre>.
SCROLLING_BLOCKS = {"table_open", "fence", "code_block"}


@cache
def rules_page() -> RulesPage:
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = markdown.parse(rules_file().read_text(encoding="utf-8"))
    title = ""
    sections: list[tuple[str, str]] = []
    for index, token in enumerate(tokens):
        if token.type == "inline":
            _unlink_repository_documents(token)
        if token.type in SCROLLING_BLOCKS:
            # A table or code block wider than a phone scrolls sideways: a tab stop lets the
            # keyboard scroll it too (axe: scrollable-region-focusable).
            token.attrSet("tabindex", "0")
        if token.type != "heading_open":
            continue
        text = tokens[index + 1].content
        if token.tag == "h1" and not title:
            title = text
        token.attrSet("id", slugify(text))
        if token.tag == "h2":
            sections.append((slugify(text), text))
    # The document's own title is the page's heading (the template's), not repeated.
    first_h1 = next((i for i, t in enumerate(tokens) if t.tag == "h1"), None)
    if first_h1 is not None:
        tokens = tokens[:first_h1] + tokens[first_h1 + 3 :]
    body = markdown.renderer.render(tokens, markdown.options, {})
    return RulesPage(title=title or "The rules", sections=tuple(sections), body_html=body)
