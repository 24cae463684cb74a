"""A draft's likely duplicates on its admin change form (cases/review/duplicates.py): the cases
citing one of its source addresses as a reader may paste it, and those of its organisation
within a few days whose text is like its own, in either language; in a fixed number of
queries."""

import re

import pytest
from django.utils import timezone

from cases.models import Case
from cases.review.duplicates import DAYS_APART, LIKELY_DUPLICATES

from ..conftest import change_url, logged_in
from ..library import REVIEWED, plain_case, store

pytestmark = pytest.mark.django_db

ACME = {"org": "Acme", "org_slug": "acme"}
GLOBEX = {"org": "Globex", "org_slug": "globex"}


def source(url):
    return {"url": url, "kind": "blog", "license": None, "archived": None}


KAFKA = {
    "en": "Kafka rebalance storm stalls checkout queue",
    "ko": "카프카 리밸런스 폭주로 결제 대기열 멈춤",
}


@pytest.fixture
def library(tmp_path):
    """D-1, the draft: Acme's, 2026-03-10, citing its post with the host in capitals."""
    draft = plain_case(
        "D-1",
        date="2026-03-10",
        title=KAFKA,
        summary={
            "en": "Consumers of the checkout topic kept rejoining their group.",
            "ko": "결제 토픽의 컨슈머가 그룹에 계속 다시 참여했다.",
        },
        sources=[source("https://Blog.Example.com/postmortems/kafka")],
        **ACME,
    )
    store(
        tmp_path,
        draft,
        # Another organisation's, years apart, unlike in every word, citing the same post
        # with a trailing slash.
        plain_case(
            "S-1",
            date="2019-01-01",
            sources=[source("https://blog.example.com/postmortems/kafka/")],
            review=REVIEWED,
            **GLOBEX,
        ),
        # Acme's, two days later, telling the same in other words.
        plain_case(
            "N-1",
            date="2026-03-12",
            title={"en": "Checkout stalled by a Kafka consumer rebalance storm", "ko": None},
            **ACME,
        ),
        # Acme's, four days earlier, alike in its Korean title only.
        plain_case(
            "K-1",
            date="2026-03-06",
            title={"en": "An incident", "ko": "리밸런스 폭주"},
            **ACME,
        ),
        # The same words, but far from its date, or another organisation's, or unlike it.
        plain_case("F-1", date="2026-04-30", title=KAFKA, **ACME),
        plain_case("O-1", date="2026-03-10", title=KAFKA, **GLOBEX),
        plain_case("U-1", date="2026-03-11", **ACME),
    )


def panel(html):
    """[(case id, reasons)] of the likely duplicates the form shows, or None for no panel."""
    if 'id="likely-duplicates"' not in html:
        return None
    section = html[html.index('id="likely-duplicates"') :]
    section = section[: section.index("</section>")]
    return [
        (case_id, re.sub(r"\s+", " ", reasons).strip())
        for case_id, reasons in re.findall(
            r'<a href="/admin/cases/case/([^/]+)/change/">.*?'
            r'<span class="likely-duplicate-reasons">(.*?)</span>',
            section,
            re.S,
        )
    ]


def shown(client, case_id="D-1", query=""):
    response = client.get(change_url(case_id) + query)
    assert response.status_code == 200
    return panel(response.content.decode())


def test_a_draft_shows_the_cases_citing_its_address_then_its_organisations_alike_nearby(
    client, library, reviewer
):
    logged_in(client, reviewer)
    assert shown(client) == [
        ("S-1", "same source address"),
        ("N-1", "same organisation, 2 days apart, similar text"),
        ("K-1", "same organisation, 4 days apart, similar text"),
    ]


def test_far_dates_other_organisations_and_unlike_texts_are_not_shown(client, library, reviewer):
    logged_in(client, reviewer)
    ids = [case_id for case_id, _ in shown(client)]
    assert not {"F-1", "O-1", "U-1", "D-1"} & set(ids)
    # Just within the days apart, F-1 is shown.
    Case.objects.filter(pk="F-1").update(date="2026-03-17")
    assert DAYS_APART == 7
    assert ("F-1", "same organisation, 7 days apart, similar text") in shown(client)


def test_a_case_with_both_reasons_says_both(client, library, reviewer):
    from cases.models import Source

    Source.objects.create(
        case_id="N-1", url="https://blog.example.com/postmortems/kafka", kind="blog"
    )
    logged_in(client, reviewer)
    assert shown(client)[0] == (
        "N-1",
        "same source address; same organisation, 2 days apart, similar text",
    )


def test_at_most_five_are_shown(client, library, reviewer, tmp_path):
    store(
        tmp_path,
        *[plain_case(f"M-{n}", date="2026-03-09", title=KAFKA, **ACME) for n in range(8)],
        name="more.json",
    )
    logged_in(client, reviewer)
    found = shown(client)
    assert len(found) == LIKELY_DUPLICATES
    assert found[0] == ("S-1", "same source address")


def test_in_korean(client, library, reviewer):
    logged_in(client, reviewer)
    html = client.get(change_url("D-1") + "?lang=ko").content.decode()
    assert "중복일 수 있는 사례" in html
    assert panel(html)[:2] == [
        ("S-1", "같은 출처 주소"),
        ("N-1", "같은 조직, 2일 차이, 비슷한 내용"),
    ]
    # The titles in the admin's language, an English one marked as such.
    assert "리밸런스 폭주" in html
    assert '<span lang="en">Checkout stalled by a Kafka consumer rebalance storm</span>' in html


def test_titles_are_escaped(client, library, reviewer):
    Case.objects.filter(pk="S-1").update(title_en="<b>Bold</b> & co")
    logged_in(client, reviewer)
    html = client.get(change_url("D-1")).content.decode()
    assert "&lt;b&gt;Bold&lt;/b&gt; &amp; co" in html
    assert "<b>Bold</b>" not in html


def test_a_draft_with_none_says_so(client, library, reviewer):
    logged_in(client, reviewer)
    html = client.get(change_url("O-1")).content.decode()
    assert panel(html) == []
    assert (
        "No case cites the same source address, nor is of the same organisation within 7 days"
        in html
    )


def test_a_reviewed_case_shows_no_panel(client, library, reviewer):
    """A reviewed case was judged when it was approved; a later draft of the same incident
    shows it as its likely duplicate."""
    Case.objects.filter(pk="D-1").update(reviewed_at=timezone.now(), reviewed_by="olga")
    logged_in(client, reviewer)
    assert shown(client) is None
    assert shown(client, "N-1")[0] == ("D-1", "same organisation, 2 days apart, similar text")


def test_the_form_runs_a_fixed_number_of_queries(
    client, library, reviewer, tmp_path, django_assert_max_num_queries
):
    logged_in(client, reviewer)
    client.get(change_url("D-1"))  # the session, once
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        assert len(shown(client)) == 3
    store(
        tmp_path,
        *[
            plain_case(
                f"M-{n}",
                date="2026-03-09",
                title=KAFKA,
                sources=[source("https://blog.example.com/postmortems/kafka")],
                **ACME,
            )
            for n in range(30)
        ],
        name="more.json",
    )
    with CaptureQueriesContext(connection) as many:
        assert len(shown(client)) == LIKELY_DUPLICATES
    assert len(many) == len(few)
    with django_assert_max_num_queries(len(few)):
        shown(client)


def test_of_an_address_many_cite_the_nearest_in_date_are_weighed(
    client, library, reviewer, tmp_path
):
    """A page cited by thousands (a status page) would have them all scored: of the cases
    citing one address, the CITING nearest in date to the draft are, the rest never shown."""
    from cases.review.duplicates import CITING

    address = source("https://blog.example.com/postmortems/kafka")
    near = [
        plain_case(f"C-{n}", date=f"2026-03-{n + 1:02}", sources=[address], **GLOBEX)
        for n in range(CITING)
    ]
    far = [
        plain_case(f"L-{n}", date=f"2031-01-{n + 1:02}", sources=[address], **GLOBEX)
        for n in range(3)
    ]
    store(tmp_path, *near, *far, name="more.json")
    logged_in(client, reviewer)
    ids = [case_id for case_id, _ in shown(client)]
    assert len(ids) == LIKELY_DUPLICATES
    assert not any(case_id.startswith("L-") for case_id in ids)
