"""The case list's bulk review actions: approve, or return to draft, the selected cases.

Each asks first on a page showing each case's version, then acts on those still as shown
(cases/review/workflow.py), one write a case, and says what it did to which. The two differ
only in what they do to a case and what they say (BulkReview): the rule is review_selected.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy

from cases.models import Case
from cases.review import workflow as review


def shown_version(request, case):
    """The version of `case` its confirmation page showed (ReviewActions.confirmation)."""
    return request.POST.get(f"version-{case.pk}")


def approve(case, request):
    """Approve `case` as shown; a reviewed case only if "approve again" was ticked."""
    review.approve(
        case.pk,
        request.user,
        seen_version=shown_version(request, case),
        again=bool(request.POST.get("approve_again")),
    )


def return_to_draft(case, request):
    """Return `case` to draft as shown."""
    review.return_to_draft(case.pk, request.user, seen_version=shown_version(request, case))


@dataclass(frozen=True)
class BulkReview:
    """What one bulk review action does to each case, and what it says then.

    `act(case, request)` does it to one case, or raises `already` if the case already was
    as asked; `left` is said of those, `done` of the cases acted on (each with their count
    and ids), `refused` of each refusal.
    """

    confirmation_template: str
    title: str
    act: Callable
    already: type[Exception]
    left: str
    done: str
    refused: str
    # Whether `done` is said, as a warning, of no case at all (each deleted meanwhile).
    says_none_done: bool = False


BULK_APPROVAL = BulkReview(
    confirmation_template="approve_selected_confirmation.html",
    title=gettext_lazy("Approve cases"),
    act=approve,
    already=review.AlreadyReviewed,
    left=gettext_lazy("Already reviewed, left as they were: %(ids)s."),
    done=ngettext_lazy(
        "%(count)d case approved: %(ids)s.",
        "%(count)d cases approved: %(ids)s.",
        "count",
    ),
    refused=gettext_lazy("%(refusal)s It was not approved."),
)

BULK_RETURN = BulkReview(
    confirmation_template="return_selected_confirmation.html",
    title=gettext_lazy("Return cases to draft"),
    act=return_to_draft,
    already=review.AlreadyDraft,
    left=ngettext_lazy(
        "%(count)d case was already a draft, left as it was: %(ids)s.",
        "%(count)d cases were already drafts, left as they were: %(ids)s.",
        "count",
    ),
    done=ngettext_lazy(
        "%(count)d case returned to draft: %(ids)s.",
        "%(count)d cases returned to draft: %(ids)s.",
        "count",
    ),
    refused=gettext_lazy("%(refusal)s It was not returned to draft."),
    says_none_done=True,
)


def cases_named(ids):
    """What a bulk review's messages say of some cases: their count and ids."""
    return {"count": len(ids), "ids": ", ".join(ids) or "-"}


class ReviewActions:
    """The bulk review actions of CaseAdmin, which holds `has_review_permission`."""

    @admin.action(permissions=["review"], description=gettext_lazy("Approve the selected cases"))
    def approve_selected(self, request, queryset):
        """Ask first, showing each case's version; then approve those still as shown."""
        return self.review_selected(request, queryset, BULK_APPROVAL)

    @admin.action(
        permissions=["review"], description=gettext_lazy("Return the selected cases to draft")
    )
    def return_selected_to_draft(self, request, queryset):
        """Ask first, showing each case's version; then return those still as shown."""
        return self.review_selected(request, queryset, BULK_RETURN)

    def review_selected(self, request, queryset, action):
        """The rule of both bulk review actions: ask first, showing each case's version;
        then do `action` (a BulkReview) to those still as shown, and say what was done to
        which."""
        cases = self.chosen(request, queryset)
        if cases is None:
            return None
        if not request.POST.get("post"):
            return self.confirmation(
                request, action.confirmation_template, str(action.title), cases
            )
        done, left, refused = review.for_each(
            cases, lambda case: action.act(case, request), action.already
        )
        if done or (action.says_none_done and not (left or refused)):
            self.message_user(
                request,
                action.done % cases_named(done),
                messages.SUCCESS if done else messages.WARNING,
            )
        if left:
            self.message_user(request, action.left % cases_named(left), messages.INFO)
        for refusal in refused:
            self.message_user(request, action.refused % {"refusal": refusal}, messages.ERROR)
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
