"""Login throttling: an account and an address are locked after a few failed logins, behind
the proxy too, with a message in both languages, until the time passes or an admin unlocks."""

import ipaddress

import pytest
from axes.models import AccessAttempt
from django.test import Client, RequestFactory

from incidentlib.logins import client_address

from .conftest import STAFF_PASSWORD, make_staff

pytestmark = pytest.mark.django_db

LIMIT = 5


@pytest.fixture(autouse=True)
def throttling(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.INCIDENTLIB_TRUSTED_PROXIES = [ipaddress.ip_network("10.0.0.0/8")]


def log_in(username, password, address="192.0.2.1", **headers):
    return Client(REMOTE_ADDR=address, **headers).post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}
    )


def logged_in(response):
    return response.status_code == 302 and response["Location"] == "/admin/"


def test_thirty_wrong_passwords_then_the_right_one_is_refused(db):
    make_staff("rita", reviewer=True)
    answers = [log_in("rita", f"guess {n}").status_code for n in range(30)]
    assert answers[: LIMIT - 1] == [200] * (LIMIT - 1)  # the form again, "wrong password"
    assert set(answers[LIMIT:]) == {429}
    refused = log_in("rita", STAFF_PASSWORD)
    assert refused.status_code == 429 and not logged_in(refused)
    page = refused.content.decode()
    assert "Too many failed logins" in page and "로그인 실패가 너무 많습니다" in page
    assert "15 minutes" in page and "15분" in page
    assert refused["Retry-After"] == str(15 * 60)
    assert "no-store" in refused["Cache-Control"]


def test_an_account_is_locked_whatever_addresses_the_guesses_come_from(db):
    make_staff("rita", reviewer=True)
    for n in range(LIMIT):
        log_in("rita", "wrong", address=f"198.51.100.{n + 1}")
    assert log_in("rita", STAFF_PASSWORD, address="203.0.113.9").status_code == 429
    # Another account is not locked by them.
    make_staff("ed")
    assert logged_in(log_in("ed", STAFF_PASSWORD, address="203.0.113.9"))


def test_an_address_is_locked_whatever_accounts_it_tries(db):
    make_staff("rita", reviewer=True)
    for n in range(LIMIT):
        log_in(f"someone-{n}", "wrong", address="198.51.100.7")
    assert log_in("rita", STAFF_PASSWORD, address="198.51.100.7").status_code == 429
    assert logged_in(log_in("rita", STAFF_PASSWORD, address="198.51.100.8"))


def test_another_accounts_login_from_the_same_address_does_not_clear_the_guesses(db):
    """axes' own reset cleared every failure of the login's address: an editor logging in
    between guesses at a reviewer's password let the guessing go on without limit."""
    make_staff("rita", reviewer=True)
    make_staff("eve")
    for n in range(LIMIT - 1):
        log_in("rita", f"guess {n}", address="198.51.100.7")
    assert logged_in(log_in("eve", STAFF_PASSWORD, address="198.51.100.7"))
    log_in("rita", "one guess more", address="198.51.100.7")
    assert log_in("rita", STAFF_PASSWORD, address="203.0.113.1").status_code == 429
    assert log_in("eve", STAFF_PASSWORD, address="198.51.100.7").status_code == 429


def test_an_editor_logging_in_from_the_guessing_address_clears_only_their_own_failures(db):
    make_staff("rita", reviewer=True)
    make_staff("eve")
    log_in("eve", "typo", address="198.51.100.7")
    for n in range(LIMIT - 2):
        log_in("rita", f"guess {n}", address="198.51.100.7")
    assert logged_in(log_in("eve", STAFF_PASSWORD, address="198.51.100.7"))
    assert not AccessAttempt.objects.filter(username="eve").exists()  # her typo is forgiven
    # rita's guesses stay: two more, from elsewhere, lock her account.
    for n in range(2):
        log_in("rita", f"guess {n}", address="198.51.100.8")
    assert log_in("rita", STAFF_PASSWORD, address="203.0.113.1").status_code == 429


def test_a_login_clears_its_own_failures(db):
    make_staff("rita", reviewer=True)
    for n in range(LIMIT - 1):
        log_in("rita", f"guess {n}")
    assert logged_in(log_in("rita", STAFF_PASSWORD))
    for n in range(LIMIT - 1):
        log_in("rita", f"guess {n}")
    assert logged_in(log_in("rita", STAFF_PASSWORD))


def test_behind_the_proxy_the_client_is_the_address_the_proxy_saw(db):
    make_staff("rita", reviewer=True)
    # The guesser sends a different X-Forwarded-For each time; the proxy appends its peer.
    for n in range(LIMIT):
        log_in(
            f"someone-{n}",
            "wrong",
            address="10.0.0.2",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, 198.51.100.7",
        )
    assert (
        log_in("rita", STAFF_PASSWORD, "10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.7").status_code
        == 429
    )
    # Another client behind the same proxy is not locked out.
    assert logged_in(
        log_in("rita", STAFF_PASSWORD, "10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.8")
    )


@pytest.mark.parametrize(
    ("remote", "forwarded", "client"),
    [
        ("192.0.2.1", "", "192.0.2.1"),
        # Not from a trusted proxy: the header is the client's own text, not believed.
        ("192.0.2.1", "198.51.100.7", "192.0.2.1"),
        ("10.0.0.2", "198.51.100.7", "198.51.100.7"),
        ("10.0.0.2", "203.0.113.1, 198.51.100.7", "198.51.100.7"),
        ("10.0.0.2", "198.51.100.7, 10.1.2.3", "198.51.100.7"),
        ("10.0.0.2", "not an address, 10.1.2.3", "10.0.0.2"),
        ("10.0.0.2", "", "10.0.0.2"),
        ("10.0.0.2", "2001:db8::1", "2001:db8::1"),
    ],
)
def test_the_client_address(remote, forwarded, client):
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    assert client_address(request) == client


def test_an_admin_unlocks_a_locked_account(db, django_user_model):
    make_staff("rita", reviewer=True)
    for _ in range(LIMIT):
        log_in("rita", "wrong")
    assert log_in("rita", STAFF_PASSWORD, address="203.0.113.9").status_code == 429
    root = django_user_model.objects.create_superuser("root", password="a long password 1")
    admin = Client(REMOTE_ADDR="203.0.113.50")
    admin.force_login(root)
    listing = admin.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200 and "rita" in listing.content.decode()
    for attempt in AccessAttempt.objects.filter(username="rita"):
        deleted = admin.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})
        assert deleted.status_code == 302
    assert logged_in(log_in("rita", STAFF_PASSWORD, address="203.0.113.9"))
