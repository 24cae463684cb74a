"""A write that needs rows an import holds is refused after a moment, not left waiting.

A change form then comes back with what was typed, refused as busy; a delete or an action
on the list comes back with a message on the page it was sent from (cases/review/workflow.py
waits briefly for the rows).
"""

import copy

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.utils.translation import gettext_lazy

from cases.review import workflow as review

ROWS_BUSY = gettext_lazy(
    "Another write (an import, most likely) holds what this one needs, so nothing was "
    "changed. Try again in a moment."
)


def refused_as_busy_request(request):
    """A copy of a POST to a change form whose write found its rows held by an import,
    marked to show the form again, refused (RefusedWhenBusy._unless_busy, get_form)."""
    refused = copy.copy(request)
    refused.refused_as_busy = True
    return refused


def refused_as_busy(form_class):
    """`form_class`, every form of it refused with ROWS_BUSY, before any other check (the
    case form's own look at its row would wait again)."""

    class Refused(form_class):
        def clean(self):
            raise ValidationError(
                [ROWS_BUSY, gettext_lazy("Your input is kept below: try again in a moment.")],
                code="busy",
            )

    Refused.__name__ = form_class.__name__
    return Refused


class RefusedWhenBusy:
    """A model admin whose writes are refused after a moment when an import holds the rows
    they need (LibraryAdmin, cases/admin/library_admin.py)."""

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        return self._unless_busy(
            super().changeform_view,
            request,
            object_id,
            form_url,
            extra_context,
            form_again=True,
        )

    def delete_view(self, request, object_id, extra_context=None):
        return self._unless_busy(super().delete_view, request, object_id, extra_context)

    def changelist_view(self, request, extra_context=None):
        return self._unless_busy(super().changelist_view, request, extra_context)

    def _unless_busy(self, view, request, *args, form_again=False):
        """The view, its writes refused after a moment if an import holds rows they need:
        a form then comes back with what was typed (`form_again`), anything else with a
        message on the page it was sent from."""
        if request.method != "POST":
            return view(request, *args)
        # The messages the attempt queues: a wait at COMMIT (a deferred foreign key's check)
        # comes after the view has said "… was changed successfully".
        queued = getattr(getattr(request, "_messages", None), "_queued_messages", [])
        before = len(queued)
        try:
            with review.waiting_briefly_for_rows():
                return view(request, *args)
        except review.RowsBusy:
            del queued[before:]  # nothing was changed: no message may say otherwise
            if form_again:
                # The same view again, its form refused at once: it saves nothing and shows
                # what was typed, the main form's and the inlines'.
                return view(refused_as_busy_request(request), *args)
            self.message_user(request, ROWS_BUSY, messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return refused_as_busy(form) if getattr(request, "refused_as_busy", False) else form
