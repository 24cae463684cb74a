"""A time a query string gives (`updated_since`, the API's `since`): the one rule of every
address that takes one.

An ISO 8601 time (a date alone is its midnight; without an offset, the server's zone) whose
offset is at most ±14:00, the widest any place uses (PostgreSQL refuses from ±16:00), and
whose year stays from 1 to 9999 read in UTC and in the server's zone (Python's datetime
holds no other, so a page could not show it). Anything else is the parameter's error.
"""

from datetime import UTC, timedelta

from django.core.exceptions import ValidationError
from django.utils.timezone import localtime
from django.utils.translation import gettext_lazy as _
from django_filters import IsoDateTimeFilter
from django_filters.fields import IsoDateTimeField

WIDEST_OFFSET = timedelta(hours=14)


class MomentField(IsoDateTimeField):
    default_error_messages = {
        "offset": _("Give a time-zone offset from -14:00 to +14:00."),
        "year": _("Give a time from the year 1 to 9999, in UTC and in the server's time zone."),
    }

    def to_python(self, value):
        moment = super().to_python(value)
        if moment is None:
            return None
        if abs(moment.utcoffset()) > WIDEST_OFFSET:
            raise ValidationError(self.error_messages["offset"], code="offset")
        try:
            moment.astimezone(UTC)
            localtime(moment)
        except OverflowError:
            raise ValidationError(self.error_messages["year"], code="year") from None
        return moment


class MomentFilter(IsoDateTimeFilter):
    field_class = MomentField
