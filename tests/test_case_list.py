"""/cases/: filters as plain GET parameters, alone and together, chips, sorting, pagination."""

import re

import pytest

from .library import facet_counts, listed_ids, six_cases, store

pytestmark = pytest.mark.django_db


def listed(client, query=""):
    response = client.get(f"/cases/{query}")
    assert response.status_code == 200, response.content.decode()[:2000]
    return listed_ids(response.content.decode())


@pytest.fixture
def library(tmp_path):
    cases = six_cases()
    store(tmp_path, *cases)
    return cases


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?domain=ml", ["A-3", "A-2"]),
        ("?symptoms=latency", ["A-5", "A-3", "A-2"]),
        ("?components=dns", ["A-6", "A-5"]),
        ("?root_cause=capacity", ["A-3", "A-2"]),
        ("?contributing=change-mgmt", ["A-4", "A-1"]),
        ("?severity=critical", ["A-4", "A-3"]),
        ("?org=globex", ["A-4", "A-3"]),
        ("?year_from=2022&year_to=2023", ["A-4", "A-3"]),
        ("?year_from=2024", ["A-6", "A-5"]),
        ("?year_to=2019", ["A-1"]),
        ("?reviewed=yes", ["A-5", "A-3", "A-1"]),
        ("?reviewed=no", ["A-6", "A-4", "A-2"]),
    ],
)
def test_each_filter_alone(client, library, query, expected):
    assert listed(client, query) == expected


def test_without_filters_every_case_is_listed_newest_first(client, library):
    assert listed(client) == ["A-6", "A-5", "A-4", "A-3", "A-2", "A-1"]


def test_several_values_of_one_filter_mean_any_of_them(client, library):
    assert listed(client, "?severity=low&severity=medium") == ["A-5", "A-2"]
    assert listed(client, "?components=gpu&components=dns") == ["A-6", "A-5", "A-3"]
    assert listed(client, "?org=acme&org=initech") == ["A-6", "A-5", "A-2", "A-1"]


def test_filters_of_different_facets_all_apply(client, library):
    assert listed(client, "?symptoms=errors&reviewed=yes") == ["A-3", "A-1"]
    assert listed(client, "?symptoms=errors&severity=high&org=initech") == ["A-6"]
    assert listed(client, "?domain=storage&components=database&components=dns") == ["A-5", "A-4"]
    assert listed(client, "?domain=web&year_from=2020") == ["A-2"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("&domain=ml", ["A-3"]),
        ("&symptoms=latency", ["A-5", "A-3"]),
        ("&components=gpu", ["A-3"]),
        ("&root_cause=config", ["A-5"]),
        ("&contributing=monitoring-gap", ["A-6", "A-3"]),
        ("&severity=low", ["A-5"]),
        ("&org=globex", ["A-3"]),
        ("&year_from=2023", ["A-6", "A-5"]),
        ("&reviewed=no", ["A-6"]),
    ],
)
def test_each_filter_combined_with_search(client, tmp_path, library, query, expected):
    # mention a resolver; the filter then narrows them. (The file carries a
    # later review of the reviewed ones: changed text would otherwise return them to draft.)
    def rewritten(case):
        review = case["review"]
        if review["reviewed_by"]:
            review = dict(review, reviewed_at="2026-06-01T00:00:00Z")
        return dict(case, summary={"en": "The resolver failed.", "ko": None}, review=review)

    store(
        tmp_path,
        *[rewritten(case) for case in library if case["id"] in ("A-3", "A-5", "A-6")],
        name="resolver.json",
    )
    assert listed(client, "?q=resolver&sort=date") == ["A-6", "A-5", "A-3"]
    assert listed(client, f"?q=resolver&sort=date{query}") == expected


def test_rows_show_title_organisation_date_severity_main_tags_and_draft(client, library):
    html = client.get("/cases/?org=acme").content.decode()
    first, second = html.split('class="case-row"')[1:3]
    assert "A-2" in first and "Acme" in first and "May 1, 2021" in first
    assert "Medium" in first and "Draft" in first
    for tag in (
        'href="/cases/?domain=web"',
        'href="/cases/?domain=ml"',
        'href="/cases/?components=cache"',
        'href="/cases/?symptoms=latency"',
        'href="/cases/?root_cause=capacity"',
    ):
        assert tag in first, tag
    assert "Draft" not in second  # A-1 is reviewed


def test_the_tag_links_of_a_case_page_lead_to_the_filtered_list(client, library):
    page = client.get("/cases/A-5").content.decode()
    links = set(re.findall(r'href="(/cases/\?[a-z_]+=[a-z0-9-]+)"', page))
    assert "/cases/?components=dns" in links and len(links) >= 6
    for link in links:
        facet, slug = link.split("?")[1].split("=")
        ids = listed(client, link[len("/cases/") :])
        assert "A-5" in ids, link


def test_the_result_count_and_chips_that_remove_themselves(client, library):
    html = client.get(
        "/cases/?severity=critical&severity=high&org=globex&year_from=2020"
    ).content.decode()
    assert '<strong id="result-count">2 cases</strong>' in html
    chips = dict(
        (label, href.replace("&amp;", "&"))
        for href, label in re.findall(
            r'<a class="chip" href="([^"]+)".*?<span[^>]*>([^<]+)</span> <span aria-hidden',
            html,
            re.S,
        )
    )
    assert chips == {
        "Critical": "/cases/?severity=high&org=globex&year_from=2020",
        "High": "/cases/?severity=critical&org=globex&year_from=2020",
        "Globex": "/cases/?severity=critical&severity=high&year_from=2020",
        "2020": "/cases/?severity=critical&severity=high&org=globex",
    }
    assert listed(client, chips["Globex"][len("/cases/") :]) == ["A-6", "A-4", "A-3"]


@pytest.mark.parametrize(
    ("since", "lang", "shown"),
    [
        ("2026-01-01T00:00:00Z", "en", "Jan. 1, 2026"),
        ("2026-01-01T00:00:00Z", "ko", "2026년 1월 1일"),
        ("2026-01-01T15:30:00Z", "en", "Jan. 1, 2026, 3:30 p.m. UTC"),
        ("2026-01-01T15:30:00Z", "ko", "2026년 1월 1일 오후 3:30 UTC"),
    ],
)
def test_the_updated_since_chip_names_the_time_in_the_pages_language(
    client, library, since, lang, shown
):
    html = client.get("/cases/", {"updated_since": since, "lang": lang}).content.decode()
    chip = html.split('<a class="chip"')[1].split("</a>")[0]
    assert f"<span>{shown}</span>" in chip, chip
    assert "T00:00" not in html.split('<ul class="chips"')[1].split("</ul>")[0]


def test_choosing_a_facet_value_keeps_the_rest_of_the_selection(client, library):
    html = client.get("/cases/?q=failed&severity=critical").content.decode()
    assert 'href="/cases/?q=failed&amp;severity=critical&amp;severity=high"' in html
    assert 'href="/cases/?q=failed&amp;severity=critical&amp;org=globex"' in html


def test_the_empty_state_suggests_removing_a_filter(client, library):
    html = client.get("/cases/?severity=low&org=globex").content.decode()
    assert '<strong id="result-count">0 cases</strong>' in html
    empty = html.split('class="empty-state"')[1].split("</div>")[0]
    assert "No case matches all of these filters." in empty
    # Without severity=low: Globex's two cases; without org=globex: the one low case.
    assert 'href="/cases/?org=globex">Remove “Severity: Low”</a> (2 cases)' in empty
    assert 'href="/cases/?severity=low">Remove “Organisation: Globex”</a> (1 case)' in empty


def empty_state(client, url):
    html = client.get(url).content.decode()
    assert listed_ids(html) == [], url
    return html.split('class="empty-state"')[1].split("</div>")[0].replace("&amp;", "&")


def test_the_empty_state_counts_what_removing_the_search_or_a_year_gives(client, library):
    # No case mentions a resolver; Globex has two cases.
    empty = empty_state(client, "/cases/?q=resolver&org=globex")
    assert 'href="/cases/?org=globex">Remove “Search: resolver”</a> (2 cases)' in empty
    assert "Globex" not in empty  # removing it would find nothing: not suggested
    # Acme's cases are from 2019 and 2021; two cases are from 2024 on.
    empty = empty_state(client, "/cases/?year_from=2024&org=acme")
    assert 'href="/cases/?org=acme">Remove “From year: 2024”</a> (2 cases)' in empty
    assert 'href="/cases/?year_from=2024">Remove “Organisation: Acme”</a> (2 cases)' in empty


def test_the_empty_state_says_when_no_single_removal_would_help(client, library):
    empty = empty_state(client, "/cases/?q=resolver&year_from=2030&severity=low&severity=high")
    assert "No case matches all of these filters." in empty
    assert "Removing any one of them would not find a case either." in empty
    assert "Try removing one" not in empty and "Remove “" not in empty
    assert 'href="/cases/">Start again with every case</a>' in empty


def test_the_empty_state_of_an_organisation_page_counts_removing_the_organisation(client, library):
    empty = empty_state(client, "/orgs/acme/?year_from=2024")
    assert 'href="/cases/?year_from=2024">Remove “Organisation: Acme”</a> (2 cases)' in empty
    assert 'href="/orgs/acme/">Remove “From year: 2024”</a> (2 cases)' in empty


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("date", ["A-6", "A-5", "A-4", "A-3", "A-2", "A-1"]),
        ("updated", ["A-2", "A-4", "A-6", "A-1", "A-3", "A-5"]),
    ],
)
def test_sort_by_date_or_last_update(client, tmp_path, library, sort, expected):
    updated = {
        "A-2": "2027-03-01T00:00:00Z",
        "A-4": "2027-02-01T00:00:00Z",
        "A-6": "2027-01-01T00:00:00Z",
        "A-1": "2026-12-01T00:00:00Z",
        "A-3": "2026-11-01T00:00:00Z",
        "A-5": "2026-10-01T00:00:00Z",
    }
    store(
        tmp_path,
        *[dict(c, updated_at=updated[c["id"]]) for c in library],
        name="u.json",
        replace_newer=True,
    )
    assert listed(client, f"?sort={sort}") == expected


def current_sort(html):
    sort = html.split('class="sort"')[1]
    return re.findall(r'<strong aria-current="true">([^<]+)</strong>', sort)


CHANGED = ("latest change in the library", "라이브러리의 최근 변경")


@pytest.mark.parametrize(
    ("query", "english", "korean"),
    [
        ("?updated_since=2000-01-01", *CHANGED),
        ("?updated_since=2000-01-01&q=failed", *CHANGED),
        ("?updated_since=2000-01-01&sort=date", "date", "날짜"),
        ("?q=failed", "relevance", "관련도"),
    ],
)
def test_the_sort_shown_as_current_is_the_lists_order(client, library, query, english, korean):
    """updated_since without sort orders by the library's latest change (tests/test_api.py):
    the page says so, in both languages, rather than naming a date or relevance it does not
    follow."""
    assert current_sort(client.get(f"/cases/{query}").content.decode()) == [english]
    korean_page = client.get(f"/cases/{query}&lang=ko").content.decode()
    assert current_sort(korean_page) == [korean]


def test_pagination_keeps_every_parameter(client, library, settings):
    settings.INCIDENTLIB_PAGE_SIZE = 2
    query = "?domain=web&domain=ml&domain=storage&sort=date&q=failed"
    html = client.get(f"/cases/{query}").content.decode()
    assert listed_ids(html) == ["A-5", "A-4"]
    assert '<strong id="result-count">5 cases</strong>' in html
    pages = html.split('class="pagination"')[1].split("</nav>")[0].replace("&amp;", "&")
    next_link = re.search(r'href="([^"]+)" rel="next"', pages).group(1)
    assert next_link == f"/cases/{query}&page=2"
    assert listed(client, next_link[len("/cases/") :]) == ["A-3", "A-2"]
    assert listed(client, f"{query}&page=3") == ["A-1"]
    assert 'rel="next"' not in client.get(f"/cases/{query}&page=3").content.decode()


@pytest.mark.parametrize(
    ("lang", "said", "not_said"),
    [
        ("en", "This list has no such page.", "It may not exist"),
        ("ko", "목록에 그런 쪽이 없습니다.", "존재하지 않는 사례이거나"),
    ],
)
def test_a_page_past_the_last_is_not_found_and_says_so(client, library, lang, said, not_said):
    for page in ("2", "99999999999999999999999"):
        response = client.get("/cases/", {"page": page, "lang": lang})
        assert response.status_code == 404
        html = response.content.decode()
        # The reason, not the general one of an unknown address.
        assert said in html and not_said not in html
    # An address that names no case still says that the case may not exist.
    html = client.get("/cases/NO-1", {"lang": lang}).content.decode()
    assert not_said in html and said not in html


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("/orgs/no-such-org/", "There is no such organisation in the library."),
        ("/taxonomy/nope/x/", "There is no such facet."),
        ("/no/such/address/", "There is no page at this address."),
    ],
)
def test_an_address_that_is_no_case_does_not_speak_of_a_case(client, library, url, said):
    html = client.get(url, {"lang": "en"}).content.decode()
    assert said in html and "case" not in html.split("<h1>")[1].split("</main>")[0].split("<a")[0]


@pytest.mark.parametrize(
    "url",
    [
        "/cases/?severity=bogus",
        "/cases/?sort=bogus",
        "/stats/?reviewed=bogus",
        "/diagnose/?root_cause=bogus",
        "/diagnose/?symptoms=bogus",
        "/cases/?org=bogus",
    ],
)
def test_a_value_that_is_none_of_a_parameters_reads_well_in_korean(client, library, url):
    """Django's own message read "bogus 이/가 선택가능항목에 없습니다": no particle fits
    every value."""
    response = client.get(f"{url}&lang=ko")
    assert response.status_code == 400, url
    html = response.content.decode()
    assert "고를 수 있는 값이 아닙니다: “bogus”" in html, html
    assert "이/가" not in html
    english = client.get(f"{url}&lang=en").content.decode()
    assert "“bogus” is not one of the values to choose from." in english


@pytest.mark.parametrize(
    "url",
    [
        "/cases/?reviewed=yes&reviewed=no",
        "/cases/?sort=date&sort=title",
        "/stats/?year_from=2020&year_from=2021",
        "/api/cases/?reviewed=yes&reviewed=no",
        "/feed/?detected_after=under-15m&detected_after=unknown",
        "/diagnose/?symptoms=errors&root_cause=config&root_cause=bug",
    ],
)
def test_a_parameter_of_one_value_given_twice_is_refused_by_name(client, library, url):
    """It was read as its last value, quietly: `reviewed=yes&reviewed=no` listed drafts."""
    response = client.get(f"{url}&lang=en")
    assert response.status_code == 400, url
    assert "is given more than once: give one value" in response.content.decode()
    if not url.startswith(("/api/", "/feed/")):
        korean = client.get(f"{url}&lang=ko").content.decode()
        assert "값을 두 번 이상 주었습니다" in korean, korean
    # Several values of a parameter that takes several stay alternatives.
    assert client.get("/cases/?severity=high&severity=low").status_code == 200


def test_the_search_box_of_an_error_page_leaves_the_refused_parameter_out(client, library):
    html = client.get("/cases/?reviewed=yes&reviewed=no&severity=high&lang=en").content.decode()
    form = html.split('class="search-form"')[1].split("</form>")[0]
    assert 'name="severity" value="high"' in form and 'name="reviewed"' not in form


@pytest.mark.parametrize("page", ["x", "0", "-1"])
@pytest.mark.parametrize("url", ["/cases/", "/diagnose/", "/taxonomy/components/dns/"])
def test_a_malformed_page_number_is_a_400_naming_it_as_everywhere(client, library, url, page):
    """As the API and /diagnose/ do: a malformed value is a 400, a page past the last a 404."""
    response = client.get(url, {"page": page, "lang": "en"})
    assert response.status_code == 400, (url, page)
    html = response.content.decode()
    assert "Page" in html and ("whole number" in html or "greater than or equal" in html)


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("?severity=bogus", "bogus"),
        ("?components=database&components=no-such-part", "no-such-part"),
        ("?year_from=twenty", "From year"),
        ("?reviewed=maybe", "maybe"),
        ("?org=Not%20A%20Slug", "Not A Slug"),
        ("?org=acme&org=hooli", "hooli"),
        ("?updated_since=yesterday", "Updated since"),
        ("?sort=random", "random"),
    ],
)
def test_a_filter_value_that_cannot_be_used_gets_a_400_page_naming_it(
    client, library, query, named
):
    response = client.get(f"/cases/{query}")
    assert response.status_code == 400
    html = response.content.decode()
    errors = html.split('class="filter-errors"')[1].split("</section>")[0]
    assert named in errors and "Remove this filter" in errors


def test_facet_counts_sit_beside_every_value(client, library):
    counts = facet_counts(client.get("/cases/").content.decode())
    assert counts["severity=critical"] == 2 and counts["org=initech"] == 2
    assert counts["reviewed=yes"] == 3


def test_a_refused_sort_is_named_in_the_readers_language(client, library):
    response = client.get("/cases/?lang=ko&sort=random")
    assert response.status_code == 400
    errors = response.content.decode().split('class="filter-errors"')[1].split("</section>")[0]
    assert "<strong>정렬 기준</strong> (random)" in errors
    assert "<strong>sort</strong>" not in errors
