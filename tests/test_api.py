"""The JSON API: cases in the exchange format, the taxonomy, the bulk download, JSON errors."""

import json

import jsonschema
import pytest
from django.test import Client
from django.utils import timezone

from cases.exchange.format import case_schema
from cases.models import Term

from .conftest import exported, import_cases, seed_case, write_json
from .library import REVIEWED, plain_case, six_cases, store

pytestmark = pytest.mark.django_db


@pytest.fixture
def library(tmp_path):
    store(tmp_path, *six_cases())


def ids(body):
    return [case["id"] for case in body["results"]]


def test_the_api_lists_cases_in_the_exchange_format(client, tmp_path):
    import_cases(write_json(tmp_path / "seed.json", seed_case()))
    response = client.get("/api/cases/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["total"] == 1 and body["page"] == 1 and body["pages"] == 1
    assert body["next"] is None and body["previous"] is None
    (result,) = body["results"]
    assert {**result, "modified": None} == {**seed_case(), "modified": None}
    jsonschema.validate(result, case_schema())


def test_each_case_gives_the_time_the_library_last_changed_it(client, tmp_path):
    """OSV's `modified`: the library's own time of its last write, beside the file's
    updated_at, which an import keeps as its file says."""
    from cases.exchange.format import parse_timestamp
    from cases.models import Case

    path = write_json(tmp_path / "seed.json", seed_case())
    import_cases(path)
    first = client.get("/api/cases/").json()["results"][0]
    case = Case.objects.get(id="IL-0137")
    assert parse_timestamp(first["modified"]) == case.changed_at
    assert first["updated_at"] == seed_case()["updated_at"]
    changed = seed_case()
    changed["lessons"]["en"] = "A lesson corrected, updated_at left as it was."
    before = timezone.now()
    import_cases(write_json(path, changed))
    again = client.get("/api/cases/").json()["results"][0]
    assert again["updated_at"] == first["updated_at"]
    assert parse_timestamp(again["modified"]) >= before > parse_timestamp(first["modified"])
    page = client.get("/cases/IL-0137.json").json()
    assert page["modified"] == again["modified"]
    line = json.loads(b"".join(client.get("/api/cases.jsonl").streaming_content))
    assert line["modified"] == again["modified"]


def test_the_api_takes_the_parameters_of_the_case_list(client, library):
    assert ids(client.get("/api/cases/?severity=critical").json()) == ["A-4", "A-3"]
    assert ids(client.get("/api/cases/?symptoms=errors&reviewed=yes").json()) == ["A-3", "A-1"]
    assert ids(client.get("/api/cases/?org=acme&org=initech&year_from=2021").json()) == [
        "A-6",
        "A-5",
        "A-2",
    ]
    assert ids(client.get("/api/cases/?q=failed&domain=ml").json()) == ["A-3", "A-2"]
    assert client.get("/api/cases/?q=A-4").json()["results"][0]["id"] == "A-4"


def test_api_pages_have_a_total_and_next_and_previous_links(client, library):
    first = client.get("/api/cases/?per_page=4&domain=web&domain=storage&domain=network").json()
    assert first["total"] == 5 and first["pages"] == 2 and first["per_page"] == 4
    assert ids(first) == ["A-6", "A-5", "A-4", "A-2"]
    assert first["previous"] is None
    assert first["next"] == (
        "http://testserver/api/cases/?per_page=4&domain=web&domain=storage&domain=network&page=2"
    )
    second = client.get(first["next"]).json()
    assert ids(second) == ["A-1"] and second["next"] is None
    # The same page, read a moment later (only the time it is complete up to differs).
    again = client.get(second["previous"]).json()
    assert again.pop("synced_at") >= first.pop("synced_at")
    assert again == first


@pytest.mark.django_db(transaction=True)  # two imports that replace cases: one each
def test_updated_since_gives_what_the_library_changed_latest_change_first(
    client, tmp_path, library
):
    # Changed by the library after `before`: A-5, then A-2 (whatever updated_at they give).
    before = timezone.now()
    store(
        tmp_path,
        plain_case("A-5", review=REVIEWED, title={"en": "New", "ko": None}),
        name="a5.json",
    )
    between = timezone.now()
    store(
        tmp_path,
        plain_case("A-2", updated_at="2001-01-01T00:00:00Z"),
        name="a2.json",
        replace_newer=True,
    )

    def since(moment):
        return ids(client.get("/api/cases/", {"updated_since": moment.isoformat()}).json())

    assert since(before) == ["A-2", "A-5"]
    assert since(between) == ["A-2"]
    assert since(timezone.now()) == []
    assert client.get("/api/cases/?updated_since=2999-01-01").json()["total"] == 0


@pytest.mark.parametrize(
    ("query", "status", "parameter"),
    [
        ("?severity=bogus", 400, "severity"),
        ("?components=database&components=nope", 400, "components"),
        ("?year_from=abc", 400, "year_from"),
        ("?year_to=99999", 400, "year_to"),
        ("?reviewed=maybe", 400, "reviewed"),
        ("?org=Acme%20Inc", 400, "org"),
        ("?org=hooli", 400, "org"),
        ("?org=acme&org=hooli", 400, "org"),
        ("?updated_since=yesterday", 400, "updated_since"),
        ("?sort=random", 400, "sort"),
        ("?page=abc", 400, "page"),
        ("?page=0", 400, "page"),
        ("?page=-1", 400, "page"),
        ("?per_page=1000", 400, "per_page"),
        ("?per_page=", 400, "per_page"),
        ("?colour=red", 400, "colour"),
        ("?q=" + "x" * 300, 400, "q"),
        ("?q=%00", 400, "q"),
        ("?page=99", 404, "page"),
        ("?page=99999999999999999999999", 404, "page"),
    ],
)
def test_api_errors_are_json_with_a_4xx_status(client, library, query, status, parameter):
    response = client.get(f"/api/cases/{query}")
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["error"] and parameter in body["parameters"]


@pytest.mark.parametrize(
    ("url", "parameter"),
    [
        ("/api/taxonomy/?colour=red", "colour"),
        ("/api/taxonomy/?page=2", "page"),  # not paged
        ("/api/cases.jsonl?colour=red", "colour"),
        ("/api/cases.jsonl?updated_since=2026-01-01T00:00:00Z", "updated_since"),
        ("/api/cases/deleted/?colour=red", "colour"),
    ],
)
@pytest.mark.django_db(transaction=True)  # committed: the answers go through the cache
def test_every_api_address_names_a_parameter_it_does_not_take(client, library, url, parameter):
    response = client.get(url)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert list(response.json()["parameters"]) == [parameter]
    assert "ETag" not in response and "no-cache" in response["Cache-Control"]
    # `lang` is taken everywhere: it chooses the language of the messages.
    plain = client.get(url.split("?")[0] + "?lang=ko")
    assert plain.status_code == 200
    # Not a 304 for the ETag of the plain answer either: the parameter is checked first.
    named = client.get(url, HTTP_IF_NONE_MATCH=plain["ETag"])
    assert named.status_code == 400 and list(named.json()["parameters"]) == [parameter]


@pytest.mark.parametrize("url", ["/api/", "/api/nothing", "/api/cases/IL-0137"])
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_an_address_under_the_api_that_does_not_exist_is_a_json_404(url, method):
    response = getattr(Client(enforce_csrf_checks=True), method)(url)
    assert response.status_code == 404 and response.json()["error"]
    # Kept by no shared cache, as every other 404.
    assert "no-cache" in response["Cache-Control"] and "Accept-Language" in response["Vary"]


@pytest.mark.parametrize("url", ["/api/cases/", "/api/taxonomy/", "/api/cases.jsonl"])
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete", "options"])
def test_a_method_other_than_get_is_a_json_405_without_a_csrf_page(library, url, method):
    # As curl sends it: no CSRF cookie or token.
    response = getattr(Client(enforce_csrf_checks=True), method)(url)
    assert response.status_code == 405
    assert response["Content-Type"] == "application/json"
    assert response["Allow"] == "GET, HEAD"
    assert response.json()["error"] == "The API only reads: use GET or HEAD."
    korean = getattr(Client(enforce_csrf_checks=True), method)(f"{url}?lang=ko")
    assert korean.status_code == 405 and korean.json()["error"] != response.json()["error"]


@pytest.mark.parametrize("url", ["/api/cases/", "/api/taxonomy/", "/api/cases.jsonl"])
def test_head_is_answered_like_get(client, library, url):
    assert client.head(url).status_code == 200


def test_the_taxonomy_api_lists_facets_terms_labels_and_counts(client, library):
    Term.objects.filter(facet="components", slug="dns").update(
        label_ko="DNS", description_en="Name resolution.", description_ko="이름 풀이."
    )
    body = client.get("/api/taxonomy/").json()
    facets = {facet["facet"]: facet for facet in body["facets"]}
    assert list(facets) == [
        "domain",
        "symptoms",
        "components",
        "root_cause",
        "contributing",
        "severity",
        "fix",
    ]
    assert facets["components"]["label"] == {"en": "Components", "ko": "구성 요소"}
    dns = [t for t in facets["components"]["terms"] if t["slug"] == "dns"][0]
    assert dns == {
        "slug": "dns",
        "label": {"en": "Dns", "ko": "DNS"},
        "needs_label": True,  # made by the import, from its slug
        "description": {"en": "Name resolution.", "ko": "이름 풀이."},
        "cases": 2,
        "url": "http://testserver/taxonomy/components/dns/",
        "cases_url": "http://testserver/api/cases/?components=dns",
    }
    assert client.get(dns["cases_url"]).json()["total"] == 2


def test_the_bulk_download_streams_every_case_as_json_lines(client, tmp_path, library):
    import_cases(write_json(tmp_path / "seed.json", seed_case()))
    response = client.get("/api/cases.jsonl")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("application/jsonl")
    assert "attachment" in response["Content-Disposition"]
    lines = b"".join(response.streaming_content).decode().splitlines()
    cases = [json.loads(line) for line in lines]
    assert [case["id"] for case in cases] == ["A-1", "A-2", "A-3", "A-4", "A-5", "A-6", "IL-0137"]
    for case in cases:
        jsonschema.validate(case, case_schema())
        del case["modified"]  # the library's own time of its last write, the API's alone
        assert case == exported(case["id"])


def test_the_bulk_download_can_be_imported_back(client, tmp_path, library):
    lines = b"".join(client.get("/api/cases.jsonl").streaming_content)
    (tmp_path / "all.jsonl").write_bytes(lines)
    import_cases(tmp_path / "all.jsonl", dry_run=True)
    # Into the library it came from: every case the same (`modified` read and left out).
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("import_cases", str(tmp_path / "all.jsonl"), stdout=out)
    assert "0 created, 0 updated, 6 unchanged" in out.getvalue()


def test_the_home_page_links_the_bulk_download_and_the_api(client, library):
    html = client.get("/").content.decode()
    assert 'href="/api/cases.jsonl"' in html and 'href="/api/cases/"' in html
