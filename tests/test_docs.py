"""The project's docs hold together: every `docs/PAGE.md "Heading"` citation in the
code names a page and a heading that exist, every link between the docs lands on a
page and an anchor that exist, and nothing cites the design notes a clone does not
have (docs/README.md, "Citing the docs in code")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from tests.conftest import REPO

DOCS = REPO / "docs"
# Where citations live: the package, the page's files, the tests, the tools.
SOURCES = ("hollywood_gin", "static", "templates", "tests", "scripts", "benchmarks", "deploy")
SUFFIXES = {".py", ".js", ".mjs", ".html", ".css", ".toml", ".cfg", ".yml", ".yaml", ".md"}
TOP_FILES = ("pyproject.toml", "README.md", "CHANGELOG.md", "Dockerfile")

CITATION = re.compile(r"docs/([\w./-]+?\.md),? \"([^\"\n]*)(\"?)")
WRAPPED = re.compile(r"docs/[\w./-]+?\.md,?\s*$")
PAGE = re.compile(r"(?<![\w/.-])docs/([\w./-]+?\.md)\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
# The design notes outside the repository: a clone has none of them.
OUTSIDE = re.compile(r"\b(PROTOCOL|RULES|ARCHITECTURE|SCALE|PRODUCT)\.md\b")


def source_files() -> Iterable[Path]:
    for top in SOURCES:
        for path in sorted((REPO / top).rglob("*")):
            wanted = path.suffix in SUFFIXES and "__pycache__" not in path.parts
            # Not this file: its own examples of bad citations.
            if wanted and path.is_file() and path != Path(__file__):
                yield path
    for name in TOP_FILES:
        if (REPO / name).exists():
            yield REPO / name


def headings(page: Path) -> list[str]:
    """The heading texts of a markdown page, code blocks skipped."""
    found, fenced = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if match:
            found.append(match.group(2))
    return found


def plain(text: str) -> str:
    return text.replace("`", "").strip()


def names(heading: str, cited: str) -> bool:
    """Whether a citation names this heading: all of it, or its start up to a
    colon or a parenthesis ("Round 3" names "Round 3: spend the delay")."""
    heading, cited = plain(heading), plain(cited)
    return heading == cited or (
        heading.startswith(cited) and heading[len(cited) :].lstrip()[:1] in (":", "(")
    )


def slug(text: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = plain(text).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for text in headings(page):
        base = slug(text)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def citation_problems(path: Path, docs: Path = DOCS) -> list[str]:
    """What is wrong with the docs citations of one file (empty: nothing)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    problems = []
    for number, line in enumerate(lines, 1):
        after = lines[number].lstrip(" #/*") if number < len(lines) else ""
        if WRAPPED.search(line) and after.startswith('"'):
            problems.append(f"{path.name}:{number}: a docs citation is cut after its page")
        where = f"{path.name}:{number}"
        for match in PAGE.finditer(line):
            if not (docs / match.group(1)).is_file():
                problems.append(f"{where}: docs/{match.group(1)} does not exist")
        for match in CITATION.finditer(line):
            page, section, closed = match.groups()
            if not closed:
                problems.append(f"{where}: the heading cited from docs/{page} is not on one line")
                continue
            target = docs / page
            if target.is_file() and not any(names(h, section) for h in headings(target)):
                problems.append(f'{where}: docs/{page} has no heading "{section}"')
    return problems


def link_problems(page: Path) -> list[str]:
    """Relative links of a markdown page that land on no file or on no heading."""
    problems, fenced = [], False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        if fenced:
            continue
        for match in LINK.finditer(line):
            href = match.group(1)
            if re.match(r"^[a-z]+:", href):
                continue  # https:, mailto:
            target, _, anchor = href.partition("#")
            path = (page.parent / target).resolve() if target else page
            if not path.exists():
                problems.append(f"{page.name}:{number}: {href}: no such file")
            elif anchor and path.suffix == ".md" and anchor not in anchors(path):
                problems.append(f"{page.name}:{number}: {href}: no such heading")
    return problems


def test_every_docs_citation_names_a_page_and_a_heading_that_exist() -> None:
    problems = [p for path in source_files() for p in citation_problems(path)]
    assert problems == []


def test_nothing_cites_the_design_notes_a_clone_does_not_have() -> None:
    found = []
    for path in source_files():
        for number, line in enumerate(
            path.read_text(encoding="utf-8", errors="replace").splitlines(), 1
        ):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == [], "cite docs/... instead"


def test_every_link_between_the_docs_lands() -> None:
    pages = [*sorted(DOCS.rglob("*.md")), REPO / "README.md"]
    assert [p for page in pages for p in link_problems(page)] == []


def test_the_docs_index_lists_every_page() -> None:
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for page in sorted(DOCS.glob("*.md")):
        if page.name != "README.md":
            assert f"]({page.name})" in index, page.name


@pytest.mark.parametrize(
    ("line", "wanted"),
    [
        ('# see docs/rules.md "Cards"', ""),
        ('# see docs/rules.md "Round 3"', ""),
        ('# see docs/rules.md, "Round 3"', ""),
        ('# see docs/rules.md, "Round…"', 'has no heading "Round…"'),
        ('# see docs/rules.md "Round"', 'has no heading "Round"'),
        ('# see docs/rules.md "No such heading"', 'has no heading "No such heading"'),
        ('# see docs/nowhere.md "Cards"', "docs/nowhere.md does not exist"),
        ("# see docs/nowhere.md", "docs/nowhere.md does not exist"),
        ('# see docs/rules.md "Scoring', "not on one line"),
        ('# see docs/rules.md\n# "Cards"', "cut after its page"),
    ],
)
def test_the_citation_check_can_fail(tmp_path: Path, line: str, wanted: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rules.md").write_text(
        "# Rules\n\n## Cards\n\n### Round 3: more\n\n```\n## Not a heading\n```\n"
    )
    source = tmp_path / "code.py"
    source.write_text(line + "\n")
    problems = citation_problems(source, docs)
    assert (problems == []) if not wanted else (wanted in " ".join(problems))


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "# A\n\n## Two words\n\n[ok](#two-words) [bad](b.md) [no](#three)\n"
    )
    assert [p.split(": ", 1)[1] for p in link_problems(tmp_path / "a.md")] == [
        "b.md: no such file",
        "#three: no such heading",
    ]


def test_the_protocol_guide_names_every_word_of_the_wire() -> None:
    """A new action kind, reaction or error code is written up in the guide too."""
    from typing import get_args

    from hollywood_gin.engine.vocabulary import ACTION_KINDS, PHASES, REACTIONS
    from hollywood_gin.web.http.bodies import HttpErrorCode
    from hollywood_gin.web.socket.messages import ErrorCode

    guide = (DOCS / "protocol-guide.md").read_text(encoding="utf-8")
    words = {*ACTION_KINDS, *PHASES, *REACTIONS, *get_args(ErrorCode), *get_args(HttpErrorCode)}
    assert sorted(w for w in words if f"`{w}`" not in guide) == []
