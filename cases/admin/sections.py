"""The case change form's sections, in the order the case page reads: the form's fieldsets
(cases/admin/case.py) and the lists shown in each (cases/admin/inlines.py)."""

from django.utils.translation import gettext_lazy

SUMMARY = gettext_lazy("Summary")
WHAT_HAPPENED = gettext_lazy("What happened")
WHY = gettext_lazy("Why")
FIX_AND_LESSONS = gettext_lazy("Fix and lessons")
SOURCES = gettext_lazy("Sources")
REVIEW = gettext_lazy("Review")
