"""Login throttling (django-axes): who the client is behind the proxy, and what a locked-out
login is told.

An account is locked after LOGIN_FAILURE_LIMIT failed logins in a row, whatever address they
come from, and so is an address, whatever accounts it tries, each for LOGIN_LOCKOUT_MINUTES.
The failures are kept in the database (axes' AccessAttempt), so every app server counts the
same ones; a superuser unlocks an account or an address by deleting its row under "Access
attempts" in the admin (or `manage.py axes_reset_username NAME` / `axes_reset_ip ADDRESS`).
"""

import ipaddress

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers


def _address(text):
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def _trusted(address):
    return address is not None and any(
        address in network for network in settings.INCIDENTLIB_TRUSTED_PROXIES
    )


def client_address(request):
    """The client's address: REMOTE_ADDR, unless that is a trusted proxy (TRUSTED_PROXIES).

    Behind trusted proxies, each of which appends the address it was reached from to
    X-Forwarded-For, the client is the right-most address there that is not a trusted
    proxy: what is left of it may be anything the client chose to send.
    """
    remote = request.META.get("REMOTE_ADDR", "")
    if not _trusted(_address(remote)):
        return remote
    forwarded = [_address(item) for item in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    for address in reversed(forwarded):
        if address is None:
            break  # not written by a proxy of ours: the client's own text
        if not _trusted(address):
            return str(address)
    return remote


def locked_out(request, original_response=None, credentials=None):
    """The page a locked-out login gets (429), in both languages, never cached."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    response = render(request, "locked_out.html", {"minutes": seconds // 60}, status=429)
    response["Retry-After"] = str(seconds)
    add_never_cache_headers(response)
    return response


class OwnFailuresHandler(AxesDatabaseHandler):
    """axes' database handler, but a successful login clears the failures of its own account
    only. axes clears every failure matching the login's account *or its address*: an
    editor logging in from the address where someone guessed a reviewer's password wiped
    those guesses, and could guess on without limit."""

    def reset_user_attempts(self, request, credentials=None):
        username = get_client_username(request, credentials)
        count, _deleted = AccessAttempt.objects.filter(username=username).delete()
        return count
