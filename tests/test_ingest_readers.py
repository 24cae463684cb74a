"""Each reader of ingest/readers/ turns its stored example (tests/data/ingest/) into drafts,
fetched from a local server as a followed source is."""

import pytest
from django.core.management import call_command

from cases.exchange.format import case_to_exchange
from cases.models import Case
from ingest import polling
from ingest.models import FollowedSource, Item


def drafts_of(served, kind, path, name="src", **options):
    call_command("follow_source", kind, served.url(path), name=name, **options)
    outcome = polling.poll(FollowedSource.objects.get(name=name))
    assert outcome.error == "" and outcome.refused == [], outcome.summary()
    cases = {}
    for item in Item.objects.filter(source__name=name).exclude(case=None):
        cases[item.item_id] = case_to_exchange(Case.objects.for_page().get(pk=item.case_id))
    return outcome, cases


@pytest.mark.django_db
def test_google_cloud_incidents(served):
    outcome, cases = drafts_of(served, "gcp", "/gcp/incidents.json")
    assert len(outcome.drafted) == 2
    case = cases["5fGQt4VbkDnr3Yp8PXPr"]
    assert case["org"] == "Google Cloud" and case["date"] == "2019-06-02"
    assert case["title"]["en"].startswith("We are experiencing high levels of network congestion")
    assert case["summary"]["en"].startswith("# ISSUE SUMMARY On Sunday 2 June, 2019")
    assert case["severity"] == "high" and case["timeline"]["resolved_after"] == "PT4H15M"
    assert case["impact"]["scope"] == "Google Compute Engine, Google Cloud Storage"
    assert case["impact"]["region"] == "South Carolina (us-east1), Northern Virginia (us-east4)"
    assert case["sources"][0]["url"] == (
        "https://status.cloud.google.com/incidents/5fGQt4VbkDnr3Yp8PXPr"
    )
    assert (
        case["symptoms_text"]["en"]
        .splitlines()[0]
        .startswith("2019-06-02 19:25 UTC, SERVICE_OUTAGE: We are experiencing")
    )


@pytest.mark.django_db
def test_slack_status_history_leaves_out_notices(served):
    outcome, cases = drafts_of(served, "slack", "/slack/history.json")
    assert (len(outcome.drafted), outcome.skipped) == (2, 1)
    case = cases["1131"]
    assert (case["org"], case["date"], case["severity"]) == ("Slack", "2021-01-04", "high")
    assert case["title"]["en"] == "Users may have trouble loading Slack"
    assert case["summary"]["en"].startswith("On January 4th, 2021 at around 6:00 AM PST")
    assert case["impact"]["scope"] == "Login/SSO, Messaging, Connectivity"
    assert case["timeline"]["resolved_after"] == "P1DT4H21M"
    assert cases["1120"]["severity"] == "medium"


@pytest.mark.django_db
def test_an_atom_feed_filtered_by_words_or_tags(served):
    outcome, cases = drafts_of(
        served, "feed", "/feed/atom.xml", words="postmortem,post mortem", licence="CC BY 4.0"
    )
    assert (len(outcome.drafted), outcome.skipped) == (2, 1)
    case = cases["https://blog.cloudflare.com/1-1-1-1-lookup-failures-on-october-4th-2023/"]
    assert (case["org"], case["date"], case["date_kind"]) == (
        "The Cloudflare Blog",
        "2023-10-04",
        "published",
    )
    assert case["summary"]["en"].endswith(
        "may have received SERVFAIL DNS responses to valid queries."
    )
    assert case["sources"][0] == {
        "url": "https://blog.cloudflare.com/1-1-1-1-lookup-failures-on-october-4th-2023/",
        "kind": "postmortem",
        "license": "CC BY 4.0",
        "archived": None,
    }
    assert case["title"]["ko"] is None  # an English source: in the translation queue


@pytest.mark.django_db
def test_a_korean_feed_s_text_goes_to_the_korean_fields(served):
    outcome, cases = drafts_of(served, "feed", "/feed/korean.rss", words="장애,회고", language="ko")
    assert len(outcome.drafted) == 1
    case = cases["https://tech.kakao.com/posts/pangyo-datacenter-fire-retrospective"]
    assert case["title"]["ko"] == "판교 데이터센터 화재 장애 회고"
    assert case["summary"]["ko"].startswith("2022년 10월 15일 판교 데이터센터 화재로")
    assert case["org"] == "카카오 기술 블로그"


@pytest.mark.django_db
def test_a_danluu_style_markdown_list(served):
    outcome, cases = drafts_of(served, "markdown", "/markdown/README.md")
    assert len(outcome.drafted) == 5
    allegro = cases["https://allegro.tech/2018/08/postmortem-why-allegro-went-down.html"]
    assert allegro["org"] == "Allegro" and allegro["root_cause"] == "config-change"
    assert (allegro["date"], allegro["date_kind"]) == ("2018-08-01", "published")
    assert allegro["title"]["en"].startswith("Allegro: E-commerce site went down after a sudden")
    amazon = cases["https://aws.amazon.com/message/67457/"]
    assert amazon["root_cause"] == "facility-failure" and amazon["date_kind"] == "reported"
    uncategorized = cases["https://allegro.tech/2015/01/allegro-cast-post-mortem.html"]
    assert uncategorized["root_cause"] == "unknown"


@pytest.mark.django_db
def test_the_ai_incident_database_snapshot_keeps_its_licence(served):
    outcome, cases = drafts_of(served, "aiid", "/aiid/incidents.csv")
    assert len(outcome.drafted) == 3
    case = cases["4"]
    assert (case["org"], case["date"]) == ("Uber", "2018-03-18")
    assert case["title"]["en"] == "Uber AV Killed Pedestrian in Arizona"
    assert case["impact"]["scope"] == "Elaine Herzberg, Pedestrians"
    assert all(c["sources"][0]["license"] == "CC BY-SA 4.0" for c in cases.values())
    assert case["sources"][0]["url"] == "https://incidentdatabase.ai/cite/4/"


@pytest.mark.django_db
def test_a_pasted_article_s_title_date_and_main_text(served):
    outcome, cases = drafts_of(served, "article", "/article/postmortem.html")
    assert len(outcome.drafted) == 1
    (case,) = cases.values()
    assert case["title"]["en"] == "Postmortem – why Allegro went down"
    assert (case["date"], case["date_kind"], case["org"]) == (
        "2018-08-31",
        "published",
        "allegro.tech",
    )
    assert case["summary"]["en"].startswith("We messed up. On July 18th, 2018, at 11:50")
    assert "All rights reserved" not in case["symptoms_text"]["en"]  # the page's chrome left out
    assert "We fixed the quota configuration" in case["symptoms_text"]["en"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "path", "body", "message"),
    [
        ("gcp", "/gcp/incidents.json", b'{"incidents": []}', "Google Cloud incidents.json: not a"),
        ("slack", "/slack/history.json", b"[{", "Slack status history: not JSON"),
        ("feed", "/feed/atom.xml", b"<html><body>not a feed", "Atom/RSS feed: not"),
        ("markdown", "/markdown/README.md", b"# Nothing", "Markdown list: no `[Organisation]"),
        ("aiid", "/aiid/incidents.csv", b"incident_id,date\n1,2020-01-01\n",
         "AIID incidents.csv: the column 'title' is missing"),
        ("article", "/article/postmortem.html", b"<html></html>", "Article: no main text found"),
    ],
)  # fmt: skip
def test_a_malformed_source_is_recorded_and_drafts_nothing(served, kind, path, body, message):
    served.files[path] = body
    call_command("follow_source", kind, served.url(path), name="bad")
    outcome = polling.poll(FollowedSource.objects.get(name="bad"))
    assert outcome.error.startswith(message), outcome.error
    assert FollowedSource.objects.get(name="bad").last_error.startswith(message)
    assert not Case.objects.exists()
