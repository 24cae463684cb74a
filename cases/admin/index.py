"""The admin's index page, with the translation queue's counts (templates/admin/index.html):
the cases whose Korean is stale or missing, and the terms needing a label."""

from django.db.models import Count

from cases import translations
from cases.admin.filters import TERMS_NEEDING_LABELS
from cases.caching import cached_value
from cases.models import Case, Term


def translation_queue_counts(request=None):
    """{'stale': cases, 'missing': cases, 'terms_needing_labels': terms}, as the admin index
    shows them: computed once per library generation (cases/caching.py), since the stale
    condition hashes every English text of the library, and any write to a case or a term
    gives a new generation."""

    def compute():
        counts = Case.objects.aggregate(
            stale=Count("pk", filter=translations.CASES_BY_STATE[translations.STALE]),
            missing=Count("pk", filter=translations.CASES_BY_STATE[translations.MISSING]),
        )
        counts["terms_needing_labels"] = Term.objects.filter(
            TERMS_NEEDING_LABELS["missing"]
        ).count()
        return counts

    return cached_value("admin-translation-queue", compute, request)


def with_translation_queue(index):
    """The admin index view `index`, with the translation queue's counts."""

    def index_view(request, extra_context=None):
        counts = translation_queue_counts(request)
        return index(
            request,
            {
                "terms_needing_labels": counts["terms_needing_labels"],
                "translation_counts": counts,
                **(extra_context or {}),
            },
        )

    return index_view
