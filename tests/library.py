"""Plain cases for the browsing, search, facet, feed and API tests.

The seed case's long texts mention storage, metadata, nodes and much else; `plain_case`
replaces them with a few neutral words, so that a search finds only what a test writes.
"""

import re

from cases.translations import source_hash

from .conftest import import_cases, make_case, seed_case, write_json

REVIEWED = {"written_by": "session", "reviewed_by": "mina", "reviewed_at": "2026-01-02T03:04:05Z"}
DRAFT = {"written_by": "session", "reviewed_by": None, "reviewed_at": None}


# What a search adds to a page's queries (the query budgets): whether sentence vectors were
# written since the process last looked (meaning/nearest.py; a second query reads them when
# some were), and, for a search of several words, how many cases have each word (one query for
# every word at once), and when all its words are common, how many cases have all of them or
# all but one (one more query).
SEARCH_QUERIES = 4


def no_text():
    return {"en": None, "ko": None}


def plain_case(case_id, **changes):
    """A valid case with short neutral texts and a few tags; `changes` replace fields."""
    case = make_case(
        case_id,
        title={"en": "An incident", "ko": "장애 하나"},
        summary={"en": "Something failed.", "ko": "무언가 실패했다."},
        trigger=no_text(),
        symptoms_text=no_text(),
        detection=no_text(),
        lessons=no_text(),
        remediation=[],
        action_items=[],
        sources=[],
        related=[],
        recurrence_of=None,
        org="Example Org",
        org_slug="example-org",
        domain=["web"],
        symptoms=["errors"],
        components=["database"],
        contributing=[],
        severity="medium",
        root_cause="config",
        review=dict(DRAFT),
        url=None,
    )
    case.update(changes)
    return case


def store(tmp_path, *cases, name="library.json", **options):
    import_cases(write_json(tmp_path / name, list(cases)), **options)


def listed_ids(html):
    """The case ids a list page shows, in order."""
    return re.findall(r'class="case-title" href="/cases/([^"?]+)"', html)


def facet_counts(html):
    """{'param=value': count} as the sidebar of a list page shows them."""
    return {
        key: int(count)
        for key, count in re.findall(
            r'data-value="([^"]+)".*?<span class="count"[^>]*>(\d+)</span>', html, re.S
        )
    }


def six_cases():
    """Six cases, each differing from the others in a few facets.

    id   domain   symptoms        components  root_cause  contributing    severity org     year rev.
    A-1  web      errors          database    config      change-mgmt     high     acme    2019 yes
    A-2  web, ml  latency         cache       capacity    -               medium   acme    2021 no
    A-3  ml       errors, latency gpu         capacity    monitoring-gap  critical globex  2022 yes
    A-4  storage  data-loss       database    bug         change-mgmt     critical globex  2023 no
    A-5  storage  latency         cache, dns  config      -               low      initech 2024 yes
    A-6  network  errors          dns         dependency  monitoring-gap  high     initech 2025 no
    """
    acme = {"org": "Acme", "org_slug": "acme"}
    globex = {"org": "Globex", "org_slug": "globex"}
    initech = {"org": "Initech", "org_slug": "initech"}
    cases = [
        plain_case(
            "A-1",
            domain=["web"],
            symptoms=["errors"],
            components=["database"],
            root_cause="config",
            contributing=["change-mgmt"],
            severity="high",
            date="2019-03-01",
            review=REVIEWED,
            **acme,
        ),
        plain_case(
            "A-2",
            domain=["web", "ml"],
            symptoms=["latency"],
            components=["cache"],
            root_cause="capacity",
            severity="medium",
            date="2021-05-01",
            **acme,
        ),
        plain_case(
            "A-3",
            domain=["ml"],
            symptoms=["errors", "latency"],
            components=["gpu"],
            root_cause="capacity",
            contributing=["monitoring-gap"],
            severity="critical",
            date="2022-07-01",
            review=REVIEWED,
            **globex,
        ),
        plain_case(
            "A-4",
            domain=["storage"],
            symptoms=["data-loss"],
            components=["database"],
            root_cause="bug",
            contributing=["change-mgmt"],
            severity="critical",
            date="2023-09-01",
            **globex,
        ),
        plain_case(
            "A-5",
            domain=["storage"],
            symptoms=["latency"],
            components=["cache", "dns"],
            root_cause="config",
            severity="low",
            date="2024-11-01",
            review=REVIEWED,
            **initech,
        ),
        plain_case(
            "A-6",
            domain=["network"],
            symptoms=["errors"],
            components=["dns"],
            root_cause="dependency",
            contributing=["monitoring-gap"],
            severity="high",
            date="2025-12-01",
            **initech,
        ),
    ]
    return cases


# Korean words of several syllables each, as a summary is written: with the browser's default
# breaking, a line ends inside one of them on nearly every line.
KOREAN_SUMMARY = (
    "60노드 학습 클러스터에서 노드들의 작은 랜덤 입출력이 스토리지의 메타데이터 서비스를 "
    "포화시켜 학습 초기화가 여덟 시간 넘게 걸렸다. 파이프라인 설정을 바꾸고 데이터 파일을 "
    "노드별로 나누어 다시 배포하자 초기화는 몇 분 만에 끝났다. 운영팀은 사전 부하 시험에서 "
    "메타데이터 요청량을 측정하지 않았고 모니터링 대시보드에도 해당 지표가 없었다."
)


def long_case(case_id="LONG-1"):
    case = make_case(case_id)
    case["summary"]["ko"] = "\n\n".join([KOREAN_SUMMARY] * 3)
    case["lessons"]["ko"] = "\n\n".join([KOREAN_SUMMARY] * 6)
    case["sources"] = [
        {
            "url": f"https://example.com/postmortems/2026/a-rather-long-path-segment/{n}"
            "?with=query&and=more-parameters-that-make-it-long",
            "kind": "blog",
            "license": "unknown",
            "archived": None,
        }
        for n in range(12)
    ]
    return case


# The note a Korean page shows beside a text translated from an English that changed since.
STALE_NOTE_KO = "번역 이후 영어 원문이 바뀌었습니다"


def stale_and_missing_case():
    """IL-0137 with a stale summary, a missing trigger and a stale second remediation step
    (also the browser tests' case)."""
    case = seed_case()
    case["trigger"] = {"en": case["trigger"]["en"], "ko": None}
    case["translations"] = {
        "summary": {
            "source": source_hash("What the English said before"),
            "at": "2026-11-01T00:00:00Z",
            "english_at": "2026-12-01T09:00:00Z",
        },
        "remediation[1]": {"source": source_hash("An older step")},
    }
    return case
