"""The case list's bulk review actions: approve, or return to draft, the selected cases.

Each asks first on a page showing each case's version, then acts on those still as shown
(cases/review/workflow.py), one write a case, and says what it did to which.
"""

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from cases.models import Case
from cases.review import workflow as review


class ReviewActions:
    """The bulk review actions of CaseAdmin, which holds `has_review_permission`."""

    @admin.action(permissions=["review"], description=gettext_lazy("Approve the selected cases"))
    def approve_selected(self, request, queryset):
        """Ask first, showing each case's version; then approve those still as shown."""
        cases = self.chosen(request, queryset)
        if cases is None:
            return None
        if not request.POST.get("post"):
            return self.confirmation(
                request, "approve_selected_confirmation.html", _("Approve cases"), cases
            )
        approved, kept, refused = review.for_each(
            cases,
            lambda case: review.approve(
                case.pk,
                request.user,
                seen_version=request.POST.get(f"version-{case.pk}"),
                again=bool(request.POST.get("approve_again")),
            ),
            review.AlreadyReviewed,
        )
        if approved:
            self.message_user(
                request,
                ngettext(
                    "%(count)d case approved: %(ids)s.",
                    "%(count)d cases approved: %(ids)s.",
                    len(approved),
                )
                % {"count": len(approved), "ids": ", ".join(approved)},
                messages.SUCCESS,
            )
        if kept:
            self.message_user(
                request,
                _("Already reviewed, left as they were: %(ids)s.") % {"ids": ", ".join(kept)},
                messages.INFO,
            )
        for refusal in refused:
            self.message_user(
                request,
                _("%(refusal)s It was not approved.") % {"refusal": refusal},
                messages.ERROR,
            )
        return None

    @admin.action(
        permissions=["review"], description=gettext_lazy("Return the selected cases to draft")
    )
    def return_selected_to_draft(self, request, queryset):
        """Ask first, showing each case's version; then return those still as shown."""
        cases = self.chosen(request, queryset)
        if cases is None:
            return None
        if not request.POST.get("post"):
            return self.confirmation(
                request, "return_selected_confirmation.html", _("Return cases to draft"), cases
            )
        returned, drafts, refused = review.for_each(
            cases,
            lambda case: review.return_to_draft(
                case.pk, request.user, seen_version=request.POST.get(f"version-{case.pk}")
            ),
            review.AlreadyDraft,
        )
        if returned or not (drafts or refused):
            self.message_user(
                request,
                ngettext(
                    "%(count)d case returned to draft: %(ids)s.",
                    "%(count)d cases returned to draft: %(ids)s.",
                    len(returned),
                )
                % {"count": len(returned), "ids": ", ".join(returned) or "-"},
                messages.SUCCESS if returned else messages.WARNING,
            )
        if drafts:
            self.message_user(
                request,
                ngettext(
                    "%(count)d case was already a draft, left as it was: %(ids)s.",
                    "%(count)d cases were already drafts, left as they were: %(ids)s.",
                    len(drafts),
                )
                % {"count": len(drafts), "ids": ", ".join(drafts)},
                messages.INFO,
            )
        for refusal in refused:
            self.message_user(
                request,
                _("%(refusal)s It was not returned to draft.") % {"refusal": refusal},
                messages.ERROR,
            )
        return None

    def chosen(self, request, queryset):
        """The cases an action acts on, or None (with a message) when they are more than
        review.BULK_LIMIT. Once confirmed: every case the confirmation listed (their ids are
        posted), whether or not it still matches the list's filters (Django filters the
        selection by them again): a case approved or edited meanwhile is then refused by
        name, not left out in silence."""
        if request.POST.get("post"):
            queryset = Case.objects.filter(
                pk__in=request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
            )
        count = queryset.count()
        if count > review.BULK_LIMIT:
            self.message_user(
                request,
                _(
                    "You chose %(count)s cases; a review action takes at most %(limit)s at a "
                    "time. Nothing was changed: narrow the list with its filters or its search, "
                    "or choose cases on one page."
                )
                % {"count": count, "limit": review.BULK_LIMIT},
                messages.ERROR,
            )
            return None
        cases = list(queryset.select_related("organisation").order_by("id"))
        if request.POST.get("post"):
            gone = sorted(
                set(request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)) - {c.id for c in cases}
            )
            if gone:
                self.message_user(
                    request,
                    ngettext(
                        "%(ids)s is no longer in the library (deleted meanwhile): nothing was "
                        "done to it.",
                        "%(ids)s are no longer in the library (deleted meanwhile): nothing was "
                        "done to them.",
                        len(gone),
                    )
                    % {"ids": ", ".join(gone)},
                    messages.ERROR,
                )
        return cases

    def confirmation(self, request, template, title, cases):
        """The page a bulk review action asks on, carrying the version of each case shown."""
        return TemplateResponse(
            request,
            f"admin/cases/case/{template}",
            {
                **self.admin_site.each_context(request),
                "title": title,
                "opts": self.opts,
                "drafts": [c for c in cases if c.is_draft],
                "reviewed": [c for c in cases if not c.is_draft],
                # The versions shown: the action refuses cases changed since.
                "selection": [(c, review.version_of(c)) for c in cases],
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "media": self.media,
            },
        )
