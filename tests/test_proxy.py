"""deploy/nginx.conf, checked by nginx itself and run in front of two gunicorns here.

Needs nginx (Debian's nginx-light; .ci/run installs it): without it these tests are skipped,
unless CI is set, where they fail.
"""

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from .conftest import ROOT, url_of_test_database

sys.path.insert(0, str(ROOT / "deploy"))
from local_stack import LocalStack, check_nginx_conf, get, nginx_binary, production_env  # noqa: E402

if nginx_binary() is None and not os.environ.get("CI"):
    pytest.skip("nginx is not installed (apt-get install nginx-light)", allow_module_level=True)


def test_the_proxy_configuration_passes_nginx_t():
    ok, output = check_nginx_conf()
    assert ok, output


@pytest.fixture
def stack(transactional_db, seeded):
    with LocalStack(production_env(url_of_test_database(), cache_max_age=60)) as running:
        yield running


def test_behind_a_tls_terminator_in_front_of_nginx_pages_are_served_not_redirected(
    transactional_db, seeded
):
    """compose.yaml: a TLS terminator in front of nginx's port says https in
    X-Forwarded-Proto; nginx passes it on (it replaced it with its own "http", and the app's
    redirect to https came back for ever). A reader who came over plain http is redirected."""
    env = production_env(
        url_of_test_database(),
        SECURE_SSL_REDIRECT="1",
        ALLOWED_HOSTS="127.0.0.1,incidents.example.org",
    )
    with LocalStack(env, app_servers=1, workers=1) as running:
        status, _headers, body = get(
            running.base + "/cases/IL-0137",
            headers={"X-Forwarded-Proto": "https", "Host": "incidents.example.org:8443"},
            follow_redirects=False,
        )
        assert status == 200, running.logs()
        assert 'href="https://incidents.example.org:8443/cases/IL-0137"' in body.decode()
        status, headers, _body = get(running.base + "/cases/IL-0137", follow_redirects=False)
        assert status == 301
        assert headers["Location"] == f"https://127.0.0.1:{running.port}/cases/IL-0137"


def test_two_app_servers_behind_the_proxy_serve_pages_and_static_files(stack):
    first = get(stack.base + "/cases/IL-0137")
    assert first[0] == 200 and first[1]["X-Proxy-Cache"] == "MISS"
    assert "max-age=60" in first[1]["Cache-Control"]
    # The copy is stored as nginx finishes with the answer, which on a loaded machine can be
    # just after the client has it all: one of the next requests is a hit.
    later = []
    for _ in range(3):
        later.append(get(stack.base + "/cases/IL-0137"))
        if later[-1][1]["X-Proxy-Cache"] == "HIT":
            break
        time.sleep(0.2)
    assert later[-1][1]["X-Proxy-Cache"] == "HIT", (dict(first[1]), stack.logs())
    assert all(answer[0] == 200 and answer[2] == first[2] for answer in later)

    status, headers, css = get(stack.base + "/static/css/site.css")
    assert status == 200 and "immutable" in headers["Cache-Control"]
    assert css == (ROOT / "static" / "css" / "site.css").read_bytes()

    for _ in range(4):  # never cached: reaches an app server each time, in turn
        assert get(stack.base + "/readyz")[0] == 200
    logs = [Path(stack.folder, f"app{n}.log").read_text() for n in (1, 2)]
    assert all('"path": "/readyz"' in log for log in logs), stack.logs()


def test_the_proxy_never_keeps_an_answer_that_sets_a_cookie_or_is_private(stack):
    for _ in range(3):  # the login page sets the CSRF cookie and is private
        status, headers, _body = get(stack.base + "/admin/login/")
        assert status == 200 and "Set-Cookie" in headers
        assert headers["X-Proxy-Cache"] != "HIT"
    for _ in range(2):  # a reader with a session: private pages, never from the proxy
        status, headers, _body = get(
            stack.base + "/cases/IL-0137", headers={"Cookie": "sessionid=someone"}
        )
        assert "private" in headers["Cache-Control"]
        assert headers["X-Proxy-Cache"] == "BYPASS"  # not looked for, nor waited for


def until_a_hit(url, headers):
    """The answers to `url` up to the first the proxy gives from its copy (failing if none of
    five is). nginx stores a copy as it finishes with the answer, which on a loaded machine
    can be just after the client has it all."""
    answers = []
    for _ in range(5):
        answers.append(get(url, headers=headers))
        if answers[-1][1]["X-Proxy-Cache"] == "HIT":
            return answers
        time.sleep(0.2)
    raise AssertionError((url, headers, [a[1]["X-Proxy-Cache"] for a in answers]))


def language_of(body):
    return "ko" if b'<html lang="ko">' in body else "en" if b'<html lang="en">' in body else None


def test_a_lang_page_is_kept_by_the_proxy_and_never_given_to_a_reader_of_the_other_language(
    stack,
):
    page = stack.base + "/cases/IL-0137"
    korean_cookie = {"Cookie": "incidentlib_language=ko"}
    answers = until_a_hit(page + "?lang=ko", korean_cookie)
    assert answers[0][1]["X-Proxy-Cache"] == "MISS"
    assert all(a[0] == 200 and language_of(a[2]) == "ko" for a in answers)
    assert all("Set-Cookie" not in a[1] for a in answers)

    # Readers of the other language, with the page above in the proxy: each gets their own.
    for headers, language in [
        ({}, "en"),
        ({"Accept-Language": "en-US,en;q=0.9"}, "en"),
        ({"Cookie": "incidentlib_language=en"}, "en"),
        ({"Cookie": "incidentlib_language=en", "Accept-Language": "ko"}, "en"),
        ({"Accept-Language": "ko-KR,ko;q=0.9"}, "ko"),
        (korean_cookie, "ko"),
    ]:
        for status, _answer_headers, body in until_a_hit(page, headers):
            assert status == 200 and language_of(body) == language, headers
        status, answer_headers, body = get(page + "?lang=en", headers=headers)
        assert status == 200 and language_of(body) == "en", headers

    # The one answer that remembers a new language (Set-Cookie) is not kept; it is Korean.
    switching = {"Cookie": "incidentlib_language=en"}
    for _ in range(2):
        status, headers, body = get(page + "?lang=ko", headers=switching)
        assert status == 200 and language_of(body) == "ko"
        assert "incidentlib_language=ko" in headers["Set-Cookie"]
        assert headers["X-Proxy-Cache"] != "HIT"


def test_readers_of_an_answer_the_proxy_cannot_keep_do_not_queue_behind_its_lock(stack):
    """Ten readers at once of a page whose answer sets a cookie: nginx's cache lock lets one
    through and, the answer not kept, the others one by one; none waits long for it."""
    page = stack.base + "/cases/IL-0137?lang=ko"
    switching = {"Cookie": "incidentlib_language=en"}
    assert get(page, headers=switching)[0] == 200  # the app's own cache holds the page

    def timed(_):
        started = time.monotonic()
        status, headers, _body = get(page, headers=switching)
        return status, "Set-Cookie" in headers, time.monotonic() - started

    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(timed, range(10)))
    assert all(status == 200 and cookie for status, cookie, _took in answers)
    assert max(took for _s, _c, took in answers) < 3, answers  # with a 5 s lock_timeout: 4 s


def test_the_request_id_of_the_client_reaches_the_app(stack):
    status, headers, _body = get(stack.base + "/healthz", headers={"X-Request-ID": "abcd-1234"})
    assert status == 200 and headers["X-Request-ID"] == "abcd-1234"
    status, headers, _body = get(stack.base + "/healthz")
    assert len(headers["X-Request-ID"]) == 32  # nginx's $request_id


def test_the_proxy_answers_no_date_with_a_304_only_the_etag(stack):
    """nginx answers If-Modified-Since itself from its copies, to the second: the app gives
    no Last-Modified, so a copy is never taken as current by its date (two writes within one
    second share one); If-None-Match with the copy's ETag still gets the 304."""
    page = stack.base + "/cases/IL-0137"
    answers = until_a_hit(page, {})
    assert all(status == 200 and "Last-Modified" not in h for status, h, _body in answers)
    headers = answers[0][1]
    future = {"If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"}
    assert get(page, headers=future)[0] == 200
    assert get(page, headers={"If-None-Match": headers["ETag"]})[0] == 304
