"""The case library: cases, their organisations, sources, steps, taxonomy terms and links.

One module a job; `from cases.models import Case` reads them all from here:

- `case`: a case, its columns and constraints, and the queries that read cases;
- `links`: a case's terms and related cases; `sources`: what it cites; `steps`: its
  remediation and action items;
- `terms`: the taxonomy; `organisations`;
- `fields`: the columns' validators and the bilingual text columns; `addresses`: the rule of
  an address and its forms; `rules`: what no column says alone (a case's links, texts that
  must show something); `recurrence`: the recurrence chain;
- `history`: deleted cases and each import's changes; `library`: the library's generation;
  `facet_counts`: the counts the database keeps, and a case's keys in them; `similar`: each
  case's similar cases, kept by the worker.
"""

from cases.models.addresses import (
    UNREADABLE_HOST,
    address_forms,
    validate_http_url,
    validate_http_url_shape,
)
from cases.models.case import BILINGUAL_FIELDS, REVIEWED, Case, CaseQuerySet, DateKind
from cases.models.facet_counts import (
    DRAFT_KEY,
    REVIEWED_KEY,
    WHOLE_LIBRARY,
    FacetCount,
)
from cases.models.fields import (
    DURATION_MAX_LENGTH,
    TEXT_MAX_LENGTH,
    english_text,
    korean_text,
    validate_case_id,
    validate_duration,
    validate_slug,
)
from cases.models.history import DeletedCase, ImportedChange
from cases.models.library import Library, LibraryState
from cases.models.links import CaseTerm, RelatedCase
from cases.models.organisations import Organisation
from cases.models.recurrence import in_link_order, recurrence_loops
from cases.models.rules import (
    NOTHING_SHOWN,
    OWN_RECURRENCE,
    RECURRENCE_LOOP,
    RELATED_TO_ITSELF,
    REVIEW_BOTH_OR_NEITHER,
    REVIEWER_NOT_SHOWN,
    SHOWN_TEXTS,
    shown_problems,
    shows_something,
)
from cases.models.similar import SimilarCases
from cases.models.sources import SOURCE_KIND_LABELS, Source
from cases.models.steps import ActionItem, CaseStep, RemediationStep
from cases.models.terms import (
    LIST_FACETS,
    MOST_SEVERE_FIRST,
    SEVERITIES,
    Facet,
    Term,
    TermIndex,
)

__all__ = [
    "BILINGUAL_FIELDS",
    "DRAFT_KEY",
    "DURATION_MAX_LENGTH",
    "LIST_FACETS",
    "MOST_SEVERE_FIRST",
    "NOTHING_SHOWN",
    "OWN_RECURRENCE",
    "RECURRENCE_LOOP",
    "RELATED_TO_ITSELF",
    "REVIEWED",
    "REVIEWED_KEY",
    "REVIEWER_NOT_SHOWN",
    "REVIEW_BOTH_OR_NEITHER",
    "SEVERITIES",
    "SHOWN_TEXTS",
    "SOURCE_KIND_LABELS",
    "TEXT_MAX_LENGTH",
    "UNREADABLE_HOST",
    "WHOLE_LIBRARY",
    "ActionItem",
    "Case",
    "CaseQuerySet",
    "CaseStep",
    "CaseTerm",
    "DateKind",
    "DeletedCase",
    "Facet",
    "FacetCount",
    "ImportedChange",
    "Library",
    "LibraryState",
    "Organisation",
    "RelatedCase",
    "RemediationStep",
    "SimilarCases",
    "Source",
    "Term",
    "TermIndex",
    "address_forms",
    "english_text",
    "in_link_order",
    "korean_text",
    "recurrence_loops",
    "shown_problems",
    "shows_something",
    "validate_case_id",
    "validate_duration",
    "validate_http_url",
    "validate_http_url_shape",
    "validate_slug",
]
