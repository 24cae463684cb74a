"""A time given in a query string (`updated_since`, the API's `since`): one rule for every
address that takes one (cases/moments.py). An offset past ±14:00, or a moment whose year
leaves 1 to 9999 once read in UTC or the server's zone, is a 400 naming the parameter
(JSON on the API), never a 500 from PostgreSQL or Python."""

import pytest

from .library import six_cases, store

pytestmark = pytest.mark.django_db

# Each address that takes a time, and the parameter it takes it as.
ADDRESSES = [
    ("/api/cases/", "updated_since"),
    ("/api/cases/deleted/", "since"),
    ("/cases/", "updated_since"),
    ("/feed/", "updated_since"),
    ("/stats/", "updated_since"),
    ("/stats/severity.csv", "updated_since"),
    ("/stats/years.csv", "updated_since"),
    ("/orgs/acme/", "updated_since"),
    ("/taxonomy/domain/web/", "updated_since"),
]
# The probe's three: past PostgreSQL's offsets, and past year 9999 and before year 1 in UTC.
OUT_OF_RANGE = [
    "2026-01-01T00:00:00+16:00",
    "9999-12-31T23:59:59-14:00",
    "0001-01-01T00:00:00+00:01",
]


@pytest.fixture
def library(tmp_path):
    store(tmp_path, *six_cases())


@pytest.mark.parametrize(("path", "param"), ADDRESSES)
@pytest.mark.parametrize("value", OUT_OF_RANGE)
def test_a_time_out_of_range_is_a_400_naming_its_parameter(client, library, path, param, value):
    response = client.get(path, {param: value})
    assert response.status_code == 400, response.content[:300]
    if path.startswith("/api/"):
        assert response["Content-Type"] == "application/json"
        assert list(response.json()["parameters"]) == [param]
    else:
        assert param in response.content.decode()


@pytest.mark.parametrize(("path", "param"), ADDRESSES)
@pytest.mark.parametrize(
    "value", ["2026-01-01T00:00:00+14:00", "2026-01-01T00:00:00-12:00", "0001-01-02T00:00:00Z"]
)
def test_a_time_within_range_is_taken(client, library, path, param, value):
    assert client.get(path, {param: value}).status_code == 200


def test_the_refusal_says_what_is_allowed_in_the_readers_language(client, library):
    def problems(value, **more):
        answer = client.get("/api/cases/", {"updated_since": value, **more}).json()
        return answer["parameters"]["updated_since"]

    assert problems(OUT_OF_RANGE[0]) == ["Give a time-zone offset from -14:00 to +14:00."]
    assert problems(OUT_OF_RANGE[1], lang="ko") == [
        "UTC와 서버의 시간대 모두에서 1년부터 9999년 사이의 시각을 주세요."
    ]
