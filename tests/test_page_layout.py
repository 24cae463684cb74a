"""The pages' layout in a real browser (Debian's Chromium): Korean lines break between words,
never inside one; on a phone the filters, separators, short words and forms fit.

Screenshots are left in the run's screenshots folder (tests/conftest.py) to be looked at.
"""

import pytest

from .conftest import (
    BREAKS_INSIDE_WORDS,
    SCREENSHOTS,
    import_cases,
    make_case,
    needs_chromium,
    write_json,
)
from .library import long_case


@pytest.fixture
def long_case_stored(tmp_path):
    import_cases(write_json(tmp_path / "long.json", long_case()))


@pytest.fixture
def phone_page(browser):
    page = browser.new_page(viewport={"width": 390, "height": 844}, locale="ko-KR")
    page.set_default_timeout(20_000)
    return page


@pytest.mark.usefixtures("long_case_stored")
@needs_chromium
def test_no_korean_line_ends_inside_a_word(live_server, phone_page):
    page = phone_page
    page.goto(f"{live_server.url}/cases/LONG-1?lang=ko")
    measured = page.evaluate(BREAKS_INSIDE_WORDS, "#summary .prose, #lessons .prose, h1")
    assert measured["lines"] > 20  # many lines at 390 px: the measure measures something
    assert measured["found"] == []
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "case-ko-390-line-breaks.png", full_page=False)
    # The measure tells: with the browser's default breaking the same text breaks in words.
    # Set through the CSSOM: the Content Security Policy refuses an added <style> element.
    page.evaluate(
        """document.querySelectorAll(':lang(ko)').forEach(
            (element) => element.style.setProperty('word-break', 'normal', 'important'))"""
    )
    default = page.evaluate(BREAKS_INSIDE_WORDS, "#summary .prose, #lessons .prose, h1")
    assert default["found"]


@pytest.mark.usefixtures("long_case_stored")
@needs_chromium
def test_a_source_address_breaks_but_the_korean_around_it_does_not(live_server, phone_page):
    page = phone_page
    page.goto(f"{live_server.url}/cases/LONG-1?lang=ko")
    # No horizontal scrolling at 390 px: long addresses wrap.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    measured = page.evaluate(BREAKS_INSIDE_WORDS, ".sources li")
    assert measured["found"] == []


LONG_WORD = "https://status.example.com/incidents/an-unbroken-address-of-the-report-2026-04-01"


@pytest.fixture
def case_titled_with_an_address(tmp_path):
    title = {"en": f"Outage described at {LONG_WORD}", "ko": f"{LONG_WORD} 에 적힌 장애"}
    import_cases(write_json(tmp_path / "address.json", make_case("URL-1", title=title)))


@needs_chromium
@pytest.mark.usefixtures("case_titled_with_an_address")
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_word_longer_than_a_phone_wraps_in_either_language(live_server, phone_page, lang):
    """An address in a title or in the search box's chip breaks rather than widen the page."""
    page = phone_page
    for path in ("/cases/URL-1", "/cases/", f"/cases/?q={LONG_WORD}", "/"):
        page.goto(f"{live_server.url}{path}{'&' if '?' in path else '?'}lang={lang}")
        assert LONG_WORD in page.inner_text("main"), path  # the long word is on the page
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path


@pytest.fixture
def listed_cases(tmp_path):
    from .library import six_cases, store

    store(tmp_path, *six_cases())


@needs_chromium
@pytest.mark.usefixtures("listed_cases")
def test_on_a_phone_the_filters_open_at_the_top_with_targets_24_px_tall(live_server, phone_page):
    page = phone_page
    page.goto(f"{live_server.url}/cases/?severity=high&lang=en")
    control = page.locator(".filters > summary")
    assert control.inner_text() == "Filters (1)"
    assert control.is_visible() and not page.locator("aside.facets").is_visible()
    assert control.bounding_box()["y"] < page.locator(".case-row").first.bounding_box()["y"]
    control.click()
    assert page.locator("aside.facets").is_visible()
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "list-en-390-filters-open.png")
    heights = page.eval_on_selector_all(
        "aside.facets .facet-value a, aside.facets summary, .filters > summary, .pagination a",
        "elements => elements.filter(e => e.getClientRects().length)"
        ".map(e => e.getBoundingClientRect().height)",
    )
    assert heights and min(heights) >= 24


@needs_chromium
@pytest.mark.usefixtures("listed_cases")
def test_on_a_wide_screen_the_filters_are_open_beside_the_results(live_server, phone_page):
    page = phone_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/cases/?severity=high&lang=ko")
    assert not page.locator(".filters > summary").is_visible()
    facets = page.locator("aside.facets")
    assert facets.is_visible()
    assert facets.bounding_box()["x"] > page.locator(".results").bounding_box()["x"] + 400
    page.screenshot(path=SCREENSHOTS / "list-ko-1280.png")


# Where a line of `selector`'s text starts with the separator "·" (a dot that wrapped away from
# the word before it). In a row of links (`.inline-items`) the dot is drawn after each item but
# the last, the item's last box: that box must not start a line, and no box may stick out of
# the row (an item that cannot wrap pushes its dot past the edge).
SEPARATORS_STARTING_LINES = """
(selector) => {
  const found = [];
  let dots = 0;
  for (const element of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let previousTop = null, node;
    while ((node = walker.nextNode())) {
      for (let i = 0; i < node.length; i++) {
        if (/\\s/.test(node.data[i])) continue;
        const range = document.createRange();
        range.setStart(node, i); range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (!box) continue;
        if (node.data[i] === "·") {
          dots++;
          const startsLine = previousTop !== null && box.top > previousTop + 2;
          if (startsLine) found.push(node.data.slice(i, i + 20));
        }
        previousTop = box.top;
      }
    }
  }
  const stranded = [], hanging = [];
  const items = [...document.querySelectorAll(".inline-items > li:not(:last-child)")];
  for (const item of items) {
    const row = item.parentElement.getBoundingClientRect();
    const boxes = [...item.getClientRects()];
    if (boxes.at(-1).left <= row.left + 1) stranded.push(item.textContent);
    if (boxes.some((box) => box.right > row.right + 1)) hanging.push(item.textContent);
  }
  return {found, dots, items: items.length, stranded, hanging};
}
"""


@needs_chromium
@pytest.mark.usefixtures("listed_cases")
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_on_a_phone_no_line_starts_with_a_separator(live_server, phone_page, lang):
    page = phone_page
    for path in ("/", "/cases/A-1", "/cases/?severity=high"):
        page.goto(f"{live_server.url}{path}{'&' if '?' in path else '?'}lang={lang}")
        measured = page.evaluate(SEPARATORS_STARTING_LINES, "main")
        assert measured["found"] == [], (path, measured)
        assert measured["stranded"] == [] and measured["hanging"] == [], (path, measured)
        if path == "/":  # the measure measures something: the home page's rows of links
            assert measured["items"] >= 3 and measured["dots"] >= 6, measured
            SCREENSHOTS.mkdir(exist_ok=True)
            page.screenshot(path=SCREENSHOTS / f"home-{lang}-390-separators.png", full_page=True)


# Elements in Korean whose own text the browser sets in italic (a sheared Hangul).
SLANTED_KOREAN = """
() => [...document.querySelectorAll("main *")]
  .filter((e) => e.matches(":lang(ko)") && getComputedStyle(e).fontStyle !== "normal")
  .filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.data.trim()))
  .map((e) => e.outerHTML.slice(0, 80))
"""


@pytest.fixture
def english_only_case(tmp_path):
    from .library import plain_case, store

    english_only = {"en": "Only in English", "ko": None}
    store(
        tmp_path,
        plain_case("F-1", title=english_only, summary=english_only),
        plain_case("T-1"),  # translated: its Korean title cited in <cite>
    )


@needs_chromium
@pytest.mark.usefixtures("english_only_case")
def test_no_korean_text_is_slanted(live_server, phone_page):
    page = phone_page
    for path in ("/cases/?lang=ko", "/cases/F-1?lang=ko", "/cases/F-1/both?lang=ko"):
        page.goto(f"{live_server.url}{path}")
        assert page.locator(".fallback-note, .both-missing").count(), path  # notes to look at
        assert page.evaluate(SLANTED_KOREAN) == [], path
    page.goto(f"{live_server.url}/cases/T-1?lang=ko")
    assert page.locator("cite").inner_text() == "장애 하나"
    assert page.evaluate(SLANTED_KOREAN) == []


# Where a line ends inside a word of a run of fewer than 20 characters without a space (a
# short word broken, as a button's "Sea/rch"); after a hyphen, a slash or a "·", or before
# "(", is a place to break. A longer run (an address) may break anywhere.
SHORT_WORDS_BROKEN = """
() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    for (const run of node.data.matchAll(/\\S+/g)) {
      if (run[0].length >= 20) continue;
      for (const word of run[0].matchAll(/[^\\-\\/(·]{2,}/g)) {
        const start = run.index + word.index;
        const range = document.createRange();
        range.setStart(node, start); range.setEnd(node, start + word[0].length);
        const lines = new Set([...range.getClientRects()].filter((box) => box.width > 0)
          .map((box) => Math.round(box.top)));
        if (lines.size > 1) found.push(`${word[0]} in <${node.parentElement.tagName}>`);
      }
    }
  }
  return found;
}
"""


@pytest.fixture
def demo_library():
    from io import StringIO

    from django.core.management import call_command

    call_command("load_demo", stdout=StringIO(), stderr=StringIO())


@needs_chromium
@pytest.mark.usefixtures("demo_library", "case_titled_with_an_address")
@pytest.mark.parametrize("width", [390, 320])
def test_on_a_narrow_phone_no_short_word_breaks(live_server, phone_page, width):
    """A long address breaks anywhere, but the page's own words (a button, a table's
    heading) never do: at 320 px too, the width WCAG's reflow asks for."""
    page = phone_page
    page.set_viewport_size({"width": width, "height": 800})
    for path in ("/", "/cases/", "/stats/", "/cases/IL-0137", "/diagnose/", "/taxonomy/",
                 "/orgs/", "/cases/URL-1"):  # fmt: skip
        for lang in ("en", "ko"):
            page.goto(f"{live_server.url}{path}?lang={lang}")
            assert page.evaluate(SHORT_WORDS_BROKEN) == [], (path, lang, width)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (path, lang)


FORM_CONTROLS = """
() => [...document.querySelectorAll(
    "main form input:not([type=checkbox]):not([type=hidden]), main form button")]
  .filter((e) => e.getClientRects().length)
  .map((e) => ({name: e.name || e.textContent.trim(), field: e.tagName === "INPUT",
                fontSize: parseFloat(getComputedStyle(e).fontSize),
                height: e.getBoundingClientRect().height, width: e.getBoundingClientRect().width}))
"""


@needs_chromium
@pytest.mark.usefixtures("listed_cases")
@pytest.mark.parametrize("path", ["/sources/", "/diagnose/", "/cases/", "/"])
def test_on_a_phone_every_form_reads_at_16_px_with_targets_a_finger_can_press(
    live_server, phone_page, path
):
    """A phone zooms into a field whose text is under 16 px; a browser's default button is
    13 px text, 25 px tall (a button in the sidebar is in its smaller text)."""
    page = phone_page
    page.goto(f"{live_server.url}{path}?lang=ko")
    controls = page.evaluate(FORM_CONTROLS)
    assert controls, path
    for control in controls:
        smallest = 16 if control["field"] else 14
        assert control["fontSize"] >= smallest and control["height"] >= 40, (path, control)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    if path == "/sources/":
        field = next(c for c in controls if c["name"] == "url")
        assert field["width"] >= 200, field  # the address has room
