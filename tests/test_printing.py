"""A printed case list says what it shows: print hides the chips and the sort links, so a
line printed in their place names the filters (a parameter's values as alternatives), the
search and the order, in the page's language; each case's tags print on a line of their own.
A printed case keeps its date and first address, without the screen's own links, and a long
case prints to a clean PDF in both languages (left in the run's screenshots folder,
tests/conftest.py, to be looked at).
"""

import subprocess

import pytest

from cases.models import Term

from .conftest import (
    CHROMIUM_ARGS,
    SCREENSHOTS,
    chromium,
    import_cases,
    needs_chromium,
    pdf_text,
    write_json,
)
from .library import long_case, plain_case, six_cases, store

SELECTION = "severity=high&severity=critical&domain=ml&domain=web&q=failed&sort=date"


@pytest.fixture
def listed(tmp_path):
    store(tmp_path, *six_cases())
    Term.objects.filter(facet="severity", slug="high").update(label_ko="높음")
    Term.objects.filter(facet="severity", slug="critical").update(label_ko="심각")
    Term.objects.filter(facet="domain", slug="web").update(label_ko="웹")


def printed_selection(html):
    start = html.index('<p class="printed-selection">')
    return " ".join(html[start : html.index("</p>", start)].split())


@pytest.mark.django_db
@pytest.mark.usefixtures("listed")
@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            [
                "Filtered by: Domain: <span>Ml</span> or <span>Web</span>;",
                "Severity: <span>High</span> or <span>Critical</span>.",
                "Search: “failed”.",
                "Sorted by date.",
            ],
        ),
        (
            "ko",
            [
                # A term with no Korean label is marked English, as its chip is.
                '적용한 필터: 분야: <span lang="en">Ml</span> 또는 <span>웹</span>;',
                "심각도: <span>높음</span> 또는 <span>심각</span>.",
                "검색: “failed”.",
                "정렬: 날짜.",
            ],
        ),
    ],
)
def test_the_selection_is_written_out_for_print_in_the_pages_language(client, lang, expected):
    line = printed_selection(client.get(f"/cases/?{SELECTION}&lang={lang}").content.decode())
    for part in expected:
        assert part in line


@pytest.mark.django_db
@pytest.mark.usefixtures("listed")
def test_the_printed_selection_escapes_the_search_and_names_the_pages_own_filter(client):
    html = client.get("/orgs/acme/?q=%3Cb%3Efailed&lang=en").content.decode()
    line = printed_selection(html)
    assert "Filtered by: Organisation: <span>Acme</span>." in line
    assert "Search: “&lt;b&gt;failed”." in line
    assert "<b>" not in line


@pytest.mark.django_db
@pytest.mark.usefixtures("listed")
def test_an_unfiltered_list_prints_its_order_alone(client):
    line = printed_selection(client.get("/cases/?sort=updated&lang=en").content.decode())
    assert "Filtered by" not in line and "Search" not in line
    assert "Sorted by last update." in line


def print_to_pdf(url, name):
    SCREENSHOTS.mkdir(exist_ok=True)
    pdf = SCREENSHOTS / name
    pdf.unlink(missing_ok=True)
    subprocess.run(
        [str(chromium()), *CHROMIUM_ARGS, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", url],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return pdf_text(pdf)


PRINTED = {
    "en": (
        "Filtered by: Domain: Ml or Web; Severity: High or Critical.",
        "Search: “failed”.",
        "Sorted by date.",
    ),
    "ko": (
        "적용한 필터: 분야: Ml 또는 웹; 심각도: 높음 또는 심각.",
        "검색: “failed”.",
        "정렬: 날짜.",
    ),
}


@needs_chromium
@pytest.mark.usefixtures("listed")
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_printed_list_says_its_filters_search_and_order(live_server, lang):
    text = print_to_pdf(f"{live_server.url}/cases/?{SELECTION}&lang={lang}", f"list-{lang}.pdf")
    # pdftotext may space Korean words apart differently: compare without spaces.
    words = "".join(text.split())
    for printed in PRINTED[lang]:
        assert printed.replace(" ", "") in words, (printed, text)
    # The chips, the sort links and the filter form stay hidden.
    for hidden in ("Remove all", "모두 빼기", "last update", "최근 수정", "Filters (", "필터 ("):
        assert hidden.replace(" ", "") not in words, hidden


@needs_chromium
@pytest.mark.usefixtures("listed")
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_printed_case_has_its_tags_on_a_line_of_their_own(live_server, lang):
    text = print_to_pdf(f"{live_server.url}/cases/?domain=web&lang={lang}", f"tags-{lang}.pdf")
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    meta = [line for line in lines if line.startswith("A-1 · Acme")]
    assert len(meta) == 1, lines
    # The meta line ends with the severity; the tags (Web, Database, ...) follow below it.
    assert meta[0].endswith(("High", "높음")), meta[0]
    tags = lines[lines.index(meta[0]) + 1]
    assert tags.startswith(("Web, ", "웹, ")), tags


PRINTED_FOOTER = {
    "en": ("Last updated", "First published here", "English and Korean side by side"),
    "ko": ("마지막 수정", "처음 게시된 곳", "영어와 한국어 나란히 보기"),
}


@needs_chromium
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_printed_case_page_keeps_its_date_and_first_address_and_drops_the_screens_links(
    live_server, tmp_path, lang
):
    store(tmp_path, plain_case("A-1", url="https://status.example.com/incidents/1"))
    text = print_to_pdf(f"{live_server.url}/cases/A-1?lang={lang}", f"footer-{lang}.pdf")
    updated, first_published, side_by_side = PRINTED_FOOTER[lang]
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    # The last such line: the citation note above the footer starts with the date too.
    footer = [line for line in lines if line.startswith(updated)][-1]
    # The JSON link and the side-by-side page are for the screen, and so are their separators.
    assert footer.count("·") == 1 and "JSON" not in footer, footer
    assert first_published in footer, footer
    assert "https://status.example.com/incidents/1" in text
    assert side_by_side not in text
    # A case first published nowhere known: its date alone, no dot left hanging after it.
    store(tmp_path, plain_case("A-2", url=None), name="a2.json")
    text = print_to_pdf(f"{live_server.url}/cases/A-2?lang={lang}", f"footer-{lang}-2.pdf")
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    footer = [line for line in lines if line.startswith(updated)][-1]
    assert "·" not in footer and first_published not in footer, footer


@pytest.mark.django_db
@pytest.mark.parametrize(("lang", "expected"), [("en", "Page 2 of 3."), ("ko", "3쪽 중 2쪽.")])
def test_a_printed_page_of_several_says_which_it_is(client, tmp_path, lang, expected):
    store(tmp_path, *[plain_case(f"P-{n}", domain=["ml" if n < 5 else "web"]) for n in range(45)])
    assert expected in printed_selection(client.get(f"/cases/?page=2&lang={lang}").content.decode())
    one_page = printed_selection(client.get(f"/cases/?domain=ml&lang={lang}").content.decode())
    assert "Page" not in one_page and "쪽" not in one_page


@pytest.mark.django_db
@pytest.mark.usefixtures("listed")
def test_a_term_pages_own_value_is_printed_apart_from_the_others_of_its_facet(client):
    """/taxonomy/domain/web/?domain=ml lists the cases of both: not "Web or Ml"."""
    html = client.get("/taxonomy/domain/web/?domain=ml&lang=en").content.decode()
    assert "Filtered by: Domain: <span>Web</span>; Domain: <span>Ml</span>." in (
        printed_selection(html)
    )
    head = html.split("</head>")[0]
    assert 'title="incidentlib: reviewed cases. Filtered by: Domain: Web."' in head
    assert 'href="/feed/?lang=en&amp;domain=web"' in head


@pytest.fixture
def long_case_stored(tmp_path):
    import_cases(write_json(tmp_path / "long.json", long_case()))


@pytest.mark.usefixtures("long_case_stored")
@needs_chromium
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_long_case_prints_to_a_clean_pdf(live_server, lang):
    executable = chromium()
    SCREENSHOTS.mkdir(exist_ok=True)
    pdf = SCREENSHOTS / f"case-{lang}.pdf"
    pdf.unlink(missing_ok=True)
    subprocess.run(
        [
            str(executable),
            *CHROMIUM_ARGS,
            "--no-pdf-header-footer",
            f"--print-to-pdf={pdf}",
            f"{live_server.url}/cases/LONG-1?lang={lang}",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    text = pdf_text(pdf)
    pages = text.count("\f")
    assert pages >= 2
    words = " ".join(text.split())
    case = long_case()
    # pdftotext may space a number from the Korean word it begins: compare without spaces.
    assert case["title"][lang][:30].replace(" ", "") in words.replace(" ", "")
    # No navigation, language switcher, search or JSON link.
    for absent in ("Taxonomy", "분류 체계", "Organisations", "English · 한국어", "JSON"):
        assert absent not in words, absent
    # External links have their address written out; sources are their address already.
    assert "https://example.com/postmortems/2026/" in text.replace("\n", "")
    assert words.count("<https://example.com/postmortems") == 0
    if lang == "ko":
        assert "메타데이터" in words and "교훈" in words
    # No heading is the last line of a page.
    for page_text in text.split("\f")[:-1]:
        lines = [line.strip() for line in page_text.splitlines() if line.strip()]
        if lines:
            assert lines[-1] not in ("Lessons", "교훈", "Sources", "출처"), lines[-1]
