"""The side-by-side view (/cases/<id>/both) in Debian's Chromium: at 1280 px two columns,
each English text and its Korean starting at the same height, section by section; at 390 px
stacked, section by section, with nothing wider than the window; axe-core finds nothing
critical or serious, in either language, at either width.

Screenshots are left in the run's screenshots folder (tests/conftest.py) to be looked at.
"""

import re

import pytest

from cases.models import Term

from .conftest import (
    SCREENSHOTS,
    import_cases,
    needs_chromium,
    pdf_text,
    serious_violations,
    write_json,
)
from .library import STALE_NOTE_KO, stale_and_missing_case

BOTH = "/cases/IL-0137/both"

# Each section's heading and each row's English and Korean blocks, in the page's coordinates.
LAYOUT = """() => {
  const box = (element) => {
    const r = element.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top + scrollY, bottom: r.bottom + scrollY};
  };
  return {
    width: document.documentElement.scrollWidth,
    sections: [...document.querySelectorAll('.both-section')].map((section) => ({
      id: section.id,
      box: box(section),
      heading: box(section.querySelector('h2')),
      rows: [...section.querySelectorAll('.both-row')].map((row) => ({
        en: box(row.querySelector('.both-en')),
        ko: box(row.querySelector('.both-ko')),
      })),
    })),
  };
}"""


@pytest.fixture
def stale_and_missing(tmp_path):
    """IL-0137 with a stale summary, a missing trigger and a stale second remediation step."""
    import_cases(write_json(tmp_path / "seed.json", stale_and_missing_case()))


def layout(browser, live_server, width, lang="ko"):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_default_timeout(20_000)
    page.goto(f"{live_server.url}{BOTH}?lang={lang}")
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"both-{lang}-{width}.png", full_page=True)
    return page, page.evaluate(LAYOUT)


def rows_of(measured):
    return [row for section in measured["sections"] for row in section["rows"]]


@needs_chromium
@pytest.mark.usefixtures("stale_and_missing")
def test_at_1280_px_each_english_and_its_korean_start_at_the_same_height(live_server, browser):
    _page, measured = layout(browser, live_server, 1280)
    assert measured["width"] <= 1280
    ids = [section["id"] for section in measured["sections"]]
    assert {"summary", "trigger", "remediation", "lessons"} <= set(ids)
    rows = rows_of(measured)
    assert len(rows) >= 8
    for row in rows:
        assert abs(row["en"]["top"] - row["ko"]["top"]) <= 1, row  # aligned
        assert row["en"]["right"] <= row["ko"]["left"], row  # side by side, English first
    # Section by section: each section's rows below its heading, above the next section.
    for section, following in zip(measured["sections"], measured["sections"][1:], strict=False):
        for row in section["rows"]:
            assert section["heading"]["bottom"] <= row["en"]["top"]
            assert row["en"]["bottom"] <= following["heading"]["top"]


@needs_chromium
@pytest.mark.usefixtures("stale_and_missing")
def test_at_390_px_the_texts_stack_section_by_section_without_overflow(live_server, browser):
    page, measured = layout(browser, live_server, 390)
    assert measured["width"] <= 390  # no horizontal scrolling
    rows = rows_of(measured)
    assert len(rows) >= 8
    for row in rows:
        assert row["en"]["bottom"] <= row["ko"]["top"], row  # the Korean under its English
        assert row["en"]["right"] <= 390 and row["ko"]["right"] <= 390
    tops = [edge for row in rows for edge in (row["en"]["top"], row["ko"]["top"])]
    assert tops == sorted(tops)  # in reading order, section after section
    # No text wider than its block either (a long word or address would scroll inside it).
    assert page.evaluate(
        "[...document.querySelectorAll('.both-text')].every(e => e.scrollWidth <= e.clientWidth)"
    )


@needs_chromium
@pytest.mark.usefixtures("stale_and_missing")
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_axe_finds_nothing_serious_on_the_side_by_side_view(live_server, browser, lang, width):
    page, _measured = layout(browser, live_server, width, lang)
    assert page.locator(".both-stale").count() == 2 and page.locator(".both-missing").count() == 1
    assert serious_violations(page) == []


@pytest.fixture
def stale_with_a_kind_of_fix(tmp_path):
    case = stale_and_missing_case()
    case["remediation"][0]["kind"] = "roll-back"
    import_cases(write_json(tmp_path / "seed.json", case))
    Term.objects.filter(facet="fix", slug="roll-back").update(label_ko="롤백")
    return case


@needs_chromium
def test_a_printed_case_keeps_no_dangling_colon_and_sets_each_kind_of_fix_off(
    live_server, stale_with_a_kind_of_fix, browser
):
    """Print hides the stale note's link to the English: its colon went with it (it was
    "바뀌었습니다 (2026-12-01):" followed by nothing). A step's kind of fix, a pill on the
    screen, was run into the step's text ("롤백릴리스를 …")."""
    case = stale_with_a_kind_of_fix
    page = browser.new_page()
    page.goto(f"{live_server.url}/cases/IL-0137?lang=ko")
    SCREENSHOTS.mkdir(exist_ok=True)
    pdf = SCREENSHOTS / "case-ko-stale-printed.pdf"
    pdf.write_bytes(page.pdf(format="A4"))
    words = " ".join(pdf_text(pdf).split())
    assert words.count(f"{STALE_NOTE_KO} (2026-12-01)") == 1
    assert not re.search(rf"{STALE_NOTE_KO} \([0-9-]+\) ?:", words), words
    first_step = case["remediation"][0]["text"]["ko"]
    assert f"롤백: {first_step[:10]}" in words
