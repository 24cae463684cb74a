"""The README is the front door and the manual lives in docs/: the README stays short, opens
with the two commands CI runs, and every relative link of the documentation leads somewhere."""

import re
from urllib.parse import unquote

import pytest

from .conftest import ROOT

README = ROOT / "README.md"
# The README and docs/ say how things are; the changelog and the results also say how they were.
MANUAL = [README, *sorted((ROOT / "docs").glob("*.md"))]
DOCUMENTS = [*MANUAL, ROOT / "CHANGELOG.md", ROOT / "bench" / "RESULTS.md"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def prose(text):
    """The text without its fenced code blocks and code spans, where a link is not a link."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path):
    """The anchors GitHub gives a Markdown file's headings (a repeated one gets -1, -2, ...)."""
    seen = {}
    found = set()
    text = prose(path.read_text(encoding="utf-8"))
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


def relative_links(path):
    for target in LINK.findall(prose(path.read_text(encoding="utf-8"))):
        if not re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: are not ours
            yield target


def test_the_readme_stays_within_300_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 300


def test_the_readme_opens_with_the_two_commands_that_ci_runs():
    text = README.read_text(encoding="utf-8")
    before_the_first_section = text.split("\n## ", 1)[0]
    (first_block,) = re.findall(r"^```sh\n(.*?)^```", before_the_first_section, re.M | re.S)[:1]
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()]
    assert commands == ["make run", "make test"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test\n" in ci and "make run >" in ci


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(document):
    assert document.is_file()
    broken = []
    for target in relative_links(document):
        address, _, fragment = target.partition("#")
        linked = (document.parent / unquote(address)).resolve() if address else document
        if not linked.exists() or ROOT not in [linked, *linked.parents]:
            broken.append(target)
        elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
            broken.append(target)
    assert broken == []


def test_the_readme_links_every_page_of_the_manual():
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in relative_links(README)}
    assert sorted((ROOT / "docs").glob("*.md"))
    assert [page.name for page in sorted((ROOT / "docs").glob("*.md")) if page not in linked] == []


def test_every_setting_of_env_example_is_documented():
    """.env.example lists every variable the code reads (tests/test_settings.py); each is
    explained in the README's configuration or a page of docs/."""
    listed = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M))
    documented = " ".join(path.read_text(encoding="utf-8") for path in DOCUMENTS)
    assert len(listed) > 40
    assert sorted(name for name in listed if f"`{name}`" not in documented) == []


@pytest.mark.parametrize("document", MANUAL, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_file_the_manual_names_exists(document):
    """A module, test or folder named in code (`cases/ranking.py`) is one a reader can open: a
    refactoring that moves it moves the manual's words too."""
    top_level = {path.name for path in ROOT.iterdir() if path.is_dir()}
    named = re.findall(r"`((?:[\w.-]+/)+[\w.*-]*)`", document.read_text(encoding="utf-8"))
    missing = {
        name
        for name in named
        if name.split("/")[0] in top_level and not list(ROOT.glob(name.rstrip("/")))
    }
    assert sorted(missing) == []


# Where the code and the configuration send a reader: (README, "Configuration"), or
# (docs/caching.md, "The planner told what a match costs").
POINTER = re.compile(r"\b(README|docs/[\w-]+\.md), \"([^\"]+)\"")


def test_every_section_the_code_and_configuration_point_at_is_there():
    """A comment that sends the reader to a part of the README or of docs/ names a file and a
    part of it (a heading, or a point in bold) that exist: the manual moved, its pointers too."""
    files = [ROOT / name for name in ("compose.yaml", ".env.example", "Makefile", "Dockerfile")]
    files += [ROOT / "gunicorn.conf.py", ROOT / "manage.py"]
    for package in ("cases", "incidentlib", "ingest", "meaning", "deploy", "bench"):
        files += sorted((ROOT / package).rglob("*.py"))
    broken = []
    for path in files:
        for document, part in POINTER.findall(path.read_text(encoding="utf-8")):
            target = ROOT / ("README.md" if document == "README" else document)
            text = target.read_text(encoding="utf-8") if target.is_file() else ""
            headings = re.findall(r"^#{1,6} +(.+?) *$", text, re.M)
            if part not in headings and f"**{part}" not in text:
                broken.append(f"{path.relative_to(ROOT)}: {document}, {part!r}")
    assert broken == []


def test_no_test_module_imports_another():
    """docs/development.md: helpers that several test files use live in tests/conftest.py and
    tests/library.py; no test module imports another (it would run its tests' imports, and
    tie a feature's tests to another's file)."""
    importing = re.compile(
        r"^\s*(?:from\s+(?:tests\.|\.+)(?:admin\.)?test_\w*|import\s+tests\.\S*test_)", re.M
    )
    found = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if importing.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
