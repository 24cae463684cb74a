"""The admin, for reviewers: the case form and the case list laid out for a 1280 px window in
both languages (measured in Debian's Chromium), every input of a case's lists named for screen
readers, a forged review button refused with a page saying why, and /api/taxonomy/ saying which
terms need a label. axe-core on the same form is in tests/test_accessibility.py."""

from io import StringIO

import pytest
from django.core.management import call_command

from cases.models import Case, Term

from ..conftest import (
    BREAKS_INSIDE_WORDS,
    SCREENSHOTS,
    admin_page,
    change_url,
    import_cases,
    logged_in,
    make_case,
    needs_chromium,
    open_case,
    write_json,
)

LANGUAGES = ["en", "ko"]

# The boxes of the title and of the buttons beside it, in the page's coordinates.
TITLE_AND_TOOLS = """() => {
  const box = (element) => {
    const r = element.getBoundingClientRect();
    return {text: element.textContent.trim().slice(0, 30),
            left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  };
  return {
    titles: [...document.querySelectorAll('#content > h1, #content > h2')].map(box),
    tools: [...document.querySelectorAll('.object-tools a')].map(box),
  };
}"""


def overlap(a, b):
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and (a["top"] < b["bottom"] and b["top"] < a["bottom"])
    )


@pytest.fixture
def long_titled_case(demo_library):
    """IL-0137's English title is 213 characters: it takes three lines at 1280 px."""
    case = Case.objects.get(pk="IL-0137")
    assert len(case.title_en) > 200
    return case


@needs_chromium
@pytest.mark.usefixtures("long_titled_case", "rita")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_history_and_view_on_site_never_cover_a_long_title(live_server, browser, lang):
    page = admin_page(browser, live_server, lang, change_url("IL-0137"))
    boxes = page.evaluate(TITLE_AND_TOOLS)
    assert len(boxes["tools"]) == 2 and len(boxes["titles"]) == 2  # History, View on site
    assert boxes["titles"][1]["bottom"] - boxes["titles"][1]["top"] > 40  # several lines
    covered = [
        (tool["text"], title["text"])
        for tool in boxes["tools"]
        for title in boxes["titles"]
        if overlap(tool, title)
    ]
    assert covered == []


@needs_chromium
@pytest.mark.usefixtures("demo_library", "rita")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_case_form_and_its_sources_fit_a_1280_px_window(live_server, browser, lang):
    page = admin_page(browser, live_server, lang, change_url("IL-0137"))
    assert page.evaluate("document.documentElement.scrollWidth") == 1280
    # Each list's table inside its section (the sources' was 1,636 px wide).
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('.inline-group')].map((group) => {
             const table = group.querySelector('table').getBoundingClientRect();
             const fieldset = group.querySelector('fieldset').getBoundingClientRect();
             return [group.id, Math.round(table.right), Math.round(fieldset.right)];
           }).filter(([id, table, fieldset]) => table > fieldset)"""
    )
    assert overflowing == []
    address = page.locator("#id_sources-0-url").bounding_box()
    assert address["width"] >= 250  # the address column is the widest, not squeezed


@needs_chromium
@pytest.mark.usefixtures("demo_library", "rita")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_case_list_shows_every_column_clear_of_the_filters(live_server, browser, lang):
    page = admin_page(browser, live_server, lang, "/admin/cases/case/")
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"admin-list-{lang}-1280.png")
    measured = page.evaluate(
        """() => {
          const box = (element) => {
            const r = element.getBoundingClientRect();
            return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
          };
          const results = document.querySelector('#changelist-form .results');
          return {
            width: document.documentElement.scrollWidth,
            scrolls: results.scrollWidth > results.clientWidth,
            results: box(results),
            filters: box(document.querySelector('#changelist-filter')),
            columns: Object.fromEntries([...document.querySelectorAll('#result_list thead th')]
              .map((th) => [th.className.match(/column-(\\w+)/)?.[1] || 'checkbox', box(th)])),
          };
        }"""
    )
    assert measured["width"] == 1280 and not measured["scrolls"]
    # Status, Reviewed by and Updated were under the filters, reached only by scrolling.
    assert {"status", "reviewed_by", "updated_at"} <= measured["columns"].keys()
    hidden = [
        name
        for name, column in measured["columns"].items()
        if column["right"] > measured["results"]["right"] + 0.5
        or overlap(column, measured["filters"])
    ]
    assert hidden == []
    # The titles are still readable, not a word a line.
    title = page.locator("#result_list td.field-title_en").first.bounding_box()
    assert title["width"] >= 140


@needs_chromium
@pytest.mark.usefixtures("demo_library", "rita")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_on_a_390_px_phone_the_case_list_scrolls_inside_its_box(live_server, browser, lang):
    """The page stays as wide as the screen: the search, the actions and the filters in
    view, the table scrolling sideways in its own box (it made the page 684 to 771 px wide,
    the search and "Go" buttons off the screen)."""
    page = admin_page(browser, live_server, lang, "/admin/cases/case/", width=390)
    page.screenshot(path=SCREENSHOTS / f"admin-list-{lang}-390.png", full_page=True)
    measured = page.evaluate(
        """() => {
          const right = (selector) => document.querySelector(selector)
            .getBoundingClientRect().right;
          const results = document.querySelector('#changelist-form .results');
          return {
            width: document.documentElement.scrollWidth,
            search: right('#changelist-search input[type=submit]'),
            go: right('.actions button[type=submit]'),
            scrolls: results.scrollWidth > results.clientWidth,
          };
        }"""
    )
    assert measured["width"] == 390
    assert measured["search"] <= 390 and measured["go"] <= 390
    assert measured["scrolls"]  # the table's own box scrolls


@needs_chromium
@pytest.mark.usefixtures("demo_library", "rita")
def test_sorted_korean_column_headings_break_between_words(live_server, browser):
    # Sorted by five columns: each heading has its buttons (priority, direction) beside it.
    page = admin_page(browser, live_server, "ko", "/admin/cases/case/?o=3.4.5.6.7")
    page.screenshot(path=SCREENSHOTS / "admin-list-ko-1280-sorted.png")
    assert page.locator("#result_list thead th.sorted").count() == 5
    measured = page.evaluate(BREAKS_INSIDE_WORDS, "#result_list thead th")
    assert measured["found"] == []
    # The measure tells: with the browser's default breaking, the same headings break inside
    # words ("날/짜", "검/토자"). Set through the CSSOM: the Content Security Policy refuses
    # an added <style> element.
    page.evaluate(
        """document.querySelectorAll(':lang(ko)').forEach(
            (element) => element.style.setProperty('word-break', 'normal', 'important'))"""
    )
    assert page.evaluate(BREAKS_INSIDE_WORDS, "#result_list thead th")["found"]


@needs_chromium
@pytest.mark.usefixtures("demo_library", "rita")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_autocomplete_box_is_named_by_its_field_even_when_empty(live_server, browser, lang):
    page = admin_page(browser, live_server, lang, change_url("IL-0137"))
    recurrence = "Recurrence of" if lang == "en" else "재발 대상"
    empty_tag = "Taxonomy term (new tag)" if lang == "en" else "분류 용어 (새 태그)"
    assert page.get_by_role("combobox", name=recurrence, exact=True).count() == 1
    # A box with a choice says both.
    organisation = "Organisation Lablup Inc" if lang == "en" else "조직 Lablup Inc"
    assert page.get_by_role("combobox", name=organisation, exact=True).count() == 1
    assert page.get_by_role("combobox", name=empty_tag, exact=True).count() == 1
    # A row added with "Add another" gets its name too.
    before = page.get_by_role("combobox", name=empty_tag, exact=True).count()
    page.locator("#case_terms-group .add-row a").click()
    page.wait_for_function(
        """(name) => [...document.querySelectorAll(
                       '#case_terms-group .select2-selection__rendered')]
                     .filter((shown) => shown.getAttribute('aria-label') === name).length > 1""",
        arg=empty_tag,
    )
    assert page.get_by_role("combobox", name=empty_tag, exact=True).count() == before + 1


# Without a browser ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "names"),
    [
        ("en", ["Order (tag 1)", "Taxonomy term (tag 1)", "Delete (tag 1)", "Order (new tag)"]),
        ("ko", ["순서 (태그 1)", "분류 용어 (태그 1)", "삭제 (태그 1)", "순서 (새 태그)"]),
    ],
)
def test_each_input_of_a_list_row_is_named_by_its_column_and_row(
    client, seeded, reviewer, lang, names
):
    html = logged_in(client, reviewer).get(change_url("IL-0137"), HTTP_ACCEPT_LANGUAGE=lang)
    html = html.content.decode()
    for name in names:
        assert f'aria-label="{name}"' in html, name
    source = "Address (source 1)" if lang == "en" else "주소 (출처 1)"
    assert f'aria-label="{source}"' in html


@pytest.mark.parametrize(
    ("lang", "says"),
    [
        ("en", ["Not allowed", "Only reviewers may approve a case", "Nothing was saved"]),
        ("ko", ["허용되지 않습니다", "검토자만", "아무것도 저장되지 않았습니다"]),
    ],
)
@pytest.mark.parametrize("button", ["_approve", "_return_to_draft"])
def test_an_editors_forged_review_button_gets_a_page_saying_why(
    client, seeded, editor, lang, says, button
):
    logged_in(client, editor)
    data = open_case(client, "IL-0137")
    data["title_en"] = "Changed along with the approval"
    data[button] = "yes"
    response = client.post(change_url("IL-0137"), data, HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 403
    html = response.content.decode()
    assert f'<html lang="{lang}">' in html
    for words in says:
        assert words in html, words
    assert Case.objects.get(pk="IL-0137").title_en != "Changed along with the approval"


def test_a_forbidden_page_without_a_reason_still_says_what_happened(client, seeded):
    from django.contrib.auth.models import User

    visitor = User.objects.create_user("vic", password="x", is_staff=True)
    response = logged_in(client, visitor).get(change_url("IL-0137"), HTTP_ACCEPT_LANGUAGE="ko")
    assert response.status_code == 403
    assert "이 계정으로는 이 페이지를 보거나 이 일을 할 수 없습니다." in response.content.decode()


def test_the_taxonomy_api_says_which_terms_need_a_label(client, db, tmp_path):
    call_command("load_taxonomy", "fixtures/taxonomy.json", stdout=StringIO())
    import_cases(write_json(tmp_path / "a.json", make_case("A-1", components=["cdn-edge"])))
    answer = client.get("/api/taxonomy/").json()
    terms = {
        (facet["facet"], term["slug"]): term
        for facet in answer["facets"]
        for term in facet["terms"]
    }
    assert terms[("components", "cdn-edge")]["needs_label"] is True
    assert terms[("domain", "cdn")]["needs_label"] is False
    # Loaded into another library, the term made from its slug is still marked.
    Term.objects.update(needs_label=False)
    call_command("load_taxonomy", str(write_json(tmp_path / "t.json", answer)), stdout=StringIO())
    assert list(Term.objects.filter(needs_label=True).values_list("slug", flat=True)) == [
        "cdn-edge"
    ]
