"""An address a case or a source gives: the one rule of its shape, and the forms that name
the same page."""

from urllib.parse import urlsplit, urlunsplit

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

from cases.patterns import (
    HTTP_URL_PATTERN,
    whole,
)

validate_http_url_shape = RegexValidator(
    whole(HTTP_URL_PATTERN), _("Enter an http:// or https:// address without spaces.")
)

UNREADABLE_HOST = _("Enter an address whose host can be read: brackets must hold an IP address.")


def validate_http_url(value):
    """The one rule of an address a case or a source gives, for the import (its format's
    `http-url`, cases/exchange/checks.py), the admin and /sources/: the format's pattern
    (http or https, no spaces), and an address that `urlsplit` reads, as the pages do
    (address_forms): a host in brackets is an IP address (`https://[2001:db8::1]/`), its
    brackets closed; `https://[zz]/`, `http://[` and `https://[::1/` are not."""
    validate_http_url_shape(value)
    try:
        urlsplit(value)
    except ValueError:
        raise ValidationError(UNREADABLE_HOST, code="unreadable_host") from None


def address_forms(url):
    """The forms of an address that name the same page, as a reader may paste it: as given,
    with its scheme and host in small letters (they are case-blind), and each with or
    without a trailing slash when it has no query."""
    parts = urlsplit(url)
    lowered = urlunsplit(parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower()))
    forms = {url, lowered}
    if not parts.query and not parts.fragment:
        forms |= {form[:-1] if form.endswith("/") else form + "/" for form in forms}
    return sorted(forms)
