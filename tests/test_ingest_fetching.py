"""Fetching a followed source safely (ingest/fetching.py): SSRF refusals, over real HTTP."""

import pytest

from ingest.fetching import USER_AGENT, FetchError, Refused, fetch

EXAMPLE = "/statuspage/api/v2/incidents.json"


def test_an_allowed_host_is_fetched_conditionally(served):
    answer = fetch(served.url(EXAMPLE))
    assert answer.status == 200 and answer.body == served.files[EXAMPLE] and answer.etag
    again = fetch(served.url(EXAMPLE), etag=answer.etag, last_modified=answer.last_modified)
    assert again.status == 304 and again.body == b""
    assert served.requests[-1][1]["User-Agent"] == USER_AGENT


def test_a_name_resolving_to_a_loopback_address_is_refused(served):
    with pytest.raises(Refused, match=r"localhost is refused: it resolves to (127\.0\.0\.1|::1)"):
        fetch(served.url(EXAMPLE).replace("127.0.0.1", "localhost"))
    assert served.requests == []  # not even asked


@pytest.mark.parametrize(
    "address",
    [
        "http://169.254.169.254/latest/meta-data/",  # the cloud metadata address
        "http://10.0.0.7/",
        "http://192.168.1.1/",
        "http://[::1]/",
        "http://0.0.0.0/",
        "http://[::ffff:127.0.0.1]/",
    ],
)
def test_private_link_local_and_loopback_addresses_are_refused(settings, address):
    settings.INGEST_ALLOWED_HOSTS = []
    with pytest.raises(Refused, match="a loopback, private, link-local or reserved address"):
        fetch(address)


def test_a_redirect_to_a_private_address_is_refused(served, settings):
    settings.INGEST_ALLOWED_HOSTS = ["localhost"]  # the first hop's host only
    served.behave["/moved"] = ("redirect", served.url(EXAMPLE))  # to 127.0.0.1
    with pytest.raises(Refused, match=r"127\.0\.0\.1 is refused: it resolves to 127\.0\.0\.1"):
        fetch(served.url("/moved").replace("127.0.0.1", "localhost"))
    # Followed when the target is allowed too.
    settings.INGEST_ALLOWED_HOSTS = ["localhost", "127.0.0.1"]
    answer = fetch(served.url("/moved").replace("127.0.0.1", "localhost"))
    assert answer.status == 200 and answer.url == served.url(EXAMPLE)


def test_only_http_and_https_are_fetched():
    with pytest.raises(Refused, match="only http:// and https:// addresses are fetched"):
        fetch("file:///etc/passwd")


def test_a_redirect_loop_ends(served):
    served.behave["/loop"] = ("redirect", "/loop")
    with pytest.raises(FetchError, match="more than 5 redirects"):
        fetch(served.url("/loop"))
