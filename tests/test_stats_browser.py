"""/stats/ on a phone, in Debian's Chromium: every chart's labels and counts are HTML text at
the body's size, the numbers the CSV gives, and nothing is wider than the 390 px screen, in
English and in Korean; without JavaScript too; and in print.

The charts were SVG drawings scaled to the width of the page: at 390 px their labels were
about 7 px tall, and cut at 28 characters. Screenshots and the PDFs are left in
the run's screenshots folder (tests/conftest.py) to be looked at.
"""

import csv
import io
from io import StringIO

import pytest
from django.core.management import call_command

from .conftest import SCREENSHOTS, import_cases, make_case, needs_chromium, pdf_text, write_json

PHONE = {"width": 390, "height": 844}
# An organisation's name with no space to break at, and one that is markup.
LONG_NAME = "Andromeda-Interplanetary-Telecommunications-Consortium-GmbH"
MARKUP_NAME = '<script>alert("org")</script><b>Bold</b>'


@pytest.fixture
def library(tmp_path, settings):
    """The demo library, and three cases of the two organisations above."""
    call_command("load_demo", stdout=StringIO(), stderr=StringIO())
    extra = [
        make_case("LONG-1", org=LONG_NAME, org_slug="andromeda"),
        make_case("LONG-2", org=LONG_NAME, org_slug="andromeda"),
        make_case("MARKUP-1", org=MARKUP_NAME, org_slug="markup"),
    ]
    import_cases(write_json(tmp_path / "extra.json", extra))


# Each chart's rows as the reader sees them: the label's and the count's text, whether each is
# HTML (not an SVG <text>), its font size and the height its glyphs are drawn at, and the
# right-hand edge of everything in the chart.
CHART_ROWS = """
() => {
  const XHTML = "http://www.w3.org/1999/xhtml";
  const drawn = (element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    const boxes = [...range.getClientRects()].filter((box) => box.width > 0);
    return {
      text: element.textContent.trim(),
      html: element.namespaceURI === XHTML && !element.closest("svg"),
      fontSize: parseFloat(getComputedStyle(element).fontSize),
      height: Math.min(...boxes.map((box) => box.height)),
      right: Math.max(...boxes.map((box) => box.right)),
    };
  };
  const charts = {};
  for (const figure of document.querySelectorAll("figure.chart")) {
    const labels = [...figure.querySelectorAll(".bar-label")].map(drawn);
    const counts = [...figure.querySelectorAll(".bar-count")].map(drawn);
    const right = Math.max(
      ...[...figure.querySelectorAll("*")].filter((e) => e.getClientRects().length)
        .map((e) => e.getBoundingClientRect().right));
    charts[figure.id.replace("chart-", "")] = {labels, counts, right};
  }
  return charts;
}
"""


def csv_rows(page, base, chart, lang):
    """[(label, cases)] of one chart's CSV: what its bars must say."""
    response = page.request.get(f"{base}/stats/{chart}.csv?lang={lang}")
    assert response.ok
    rows = list(csv.reader(io.StringIO(response.body().decode("utf-8-sig"))))
    return [(label, int(cases)) for _key, label, cases in rows[1:]]


def assert_readable_charts(page, base, lang, width, smallest=16):
    charts = page.evaluate(CHART_ROWS)
    assert len(charts) == 9
    for chart, rows in charts.items():
        expected = csv_rows(page, base, chart, lang)
        shown = [(label["text"], int(count["text"])) for label, count in zip(
            rows["labels"], rows["counts"], strict=True)]  # fmt: skip
        # The first bars of the chart (long ones show the first 10 or 12), every one in full.
        assert shown and shown == expected[: len(shown)], chart
        for text in (*rows["labels"], *rows["counts"]):
            assert text["html"], (chart, text)
            assert text["fontSize"] >= smallest and text["height"] >= smallest, (chart, text)
            assert text["right"] <= width, (chart, text)
        assert rows["right"] <= width, chart
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    return charts


@needs_chromium
@pytest.mark.usefixtures("library")
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_on_a_phone_every_label_and_count_is_readable_text(live_server, browser, lang):
    page = browser.new_page(viewport=PHONE, locale="ko-KR" if lang == "ko" else "en-GB")
    page.set_default_timeout(20_000)
    page.goto(f"{live_server.url}/stats/?lang={lang}")
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"stats-{lang}-390.png", full_page=True)
    for chart in ("years", "organisations"):
        page.locator(f"#chart-{chart}").screenshot(
            path=SCREENSHOTS / f"stats-{chart}-{lang}-390.png"
        )
    charts = assert_readable_charts(page, live_server.url, lang, PHONE["width"])
    organisations = [label["text"] for label in charts["organisations"]["labels"]]
    # The long name is all there, wrapped within the screen; the markup is text.
    assert LONG_NAME in organisations and MARKUP_NAME in organisations
    assert page.locator("figure.chart script, figure.chart b").count() == 0
    severity = [label["text"] for label in charts["severity"]["labels"]]
    assert severity[0] == {"en": "Critical", "ko": "심각"}[lang]
    # A bar's link is named by its text, which says what it counts in the page's language:
    # the visible label and count, then the unit, hidden from the eye (Chromium reads a
    # space before it).
    cases = {"en": "2 cases", "ko": "2 건"}[lang]
    link = page.locator("#chart-organisations").get_by_role(
        "link", name=f"{LONG_NAME} {cases}", exact=True
    )
    assert link.count() == 1 and link.get_attribute("aria-label") is None


@needs_chromium
@pytest.mark.usefixtures("library")
def test_the_charts_need_no_javascript_and_fit_a_wide_screen(live_server, browser):
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{live_server.url}/stats/?lang=ko")
    assert_readable_charts(page, live_server.url, "ko", PHONE["width"])
    # On a wide screen the label, the bar and the count of a row are side by side.
    page.set_viewport_size({"width": 1280, "height": 900})
    row = page.locator("#chart-years .bar-row").first
    label, bar, count = (
        row.locator(part).bounding_box() for part in (".bar-label", ".bar", ".bar-count")
    )
    assert label["x"] + label["width"] <= bar["x"] < bar["x"] + bar["width"] <= count["x"]
    assert abs(label["y"] - count["y"]) < 10
    page.screenshot(path=SCREENSHOTS / "stats-ko-1280.png", full_page=True)
    context.close()


@needs_chromium
@pytest.mark.usefixtures("library")
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_charts_print_as_text_with_their_bars(live_server, browser, lang):
    page = browser.new_page()
    page.goto(f"{live_server.url}/stats/?lang={lang}")
    page.emulate_media(media="print")
    # The introduction's links, tables and CSV are not on paper: nor is it.
    assert page.locator(".stats-help").is_hidden()
    # A printed page (A4 less its margins) is about 720 px wide: the charts fit it.
    page.set_viewport_size({"width": 720, "height": 1000})
    # At the printed page's body size, 11 pt.
    assert_readable_charts(page, live_server.url, lang, 720, smallest=14.6)
    SCREENSHOTS.mkdir(exist_ok=True)
    pdf = SCREENSHOTS / f"stats-{lang}.pdf"
    pdf.write_bytes(page.pdf(format="A4", print_background=False))
    lines = [" ".join(line.split()) for line in pdf_text(pdf).splitlines()]
    # Each row prints as its label and its count on one line (the bar drawn between them).
    for label, cases in csv_rows(page, live_server.url, "severity", lang):
        assert any(line == f"{label} {cases}" for line in lines), (label, cases)
    # The markup in a name prints as the text it is.
    assert any(line.startswith(MARKUP_NAME[:29]) for line in lines)


@pytest.fixture
def library_of_many_years(library, tmp_path):
    """A case from 1970 as well: the chart of years has a row for each year since."""
    import_cases(write_json(tmp_path / "old.json", make_case("OLD-1", date="1970-06-01")))


@needs_chromium
@pytest.mark.usefixtures("library_of_many_years")
def test_a_chart_taller_than_what_is_left_of_a_printed_page_starts_on_it(live_server, browser):
    """A chart was kept whole in print: one a little shorter than a page went to the next,
    and the first page held the introduction alone. Rows are kept whole, and a chart's
    heading with its first row, but a chart may go on over a page."""
    page = browser.new_page()
    page.goto(f"{live_server.url}/stats/?lang=en")
    assert page.locator("#chart-years .bar-row").count() >= 57  # 1970 to 2026
    pdf = SCREENSHOTS / "stats-many-years.pdf"
    SCREENSHOTS.mkdir(exist_ok=True)
    pdf.write_bytes(page.pdf(format="A4", print_background=False))
    first = [" ".join(line.split()) for line in pdf_text(pdf).split("\f")[0].splitlines()]
    assert "Cases per year" in first
    assert "1970 1" in first  # the chart's first row, under its heading
    assert len([line for line in first if line]) >= 25  # a page's worth, not an introduction


UNBROKEN_NAME = "Internationalbusinessmachinescorporationholdings"


@pytest.fixture
def library_with_an_unbroken_name(library, tmp_path):
    case = make_case("UNBROKEN-1", org=UNBROKEN_NAME, org_slug="unbroken")
    import_cases(write_json(tmp_path / "unbroken.json", case))


@needs_chromium
@pytest.mark.usefixtures("library_with_an_unbroken_name")
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_name_without_a_place_to_break_fits_the_numbers_at_320_px(live_server, browser, lang):
    """A chart's numbers list each label as its row's heading: an organisation's name
    without a space or hyphen breaks rather than widen the page."""
    page = browser.new_page(viewport={"width": 320, "height": 800})
    page.goto(f"{live_server.url}/stats/?lang={lang}")
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    assert page.locator("th", has_text=UNBROKEN_NAME).count()
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
