"""The admin, where editors write cases and reviewers approve them.

Editors are staff who may change cases; reviewers also hold `cases.review_case` (the
Reviewer group), which alone shows the "Approve" and "Return to draft" buttons and actions.
Nobody types a review by hand: `reviewed_by`, `reviewer` and `reviewed_at` are read-only
and set by cases/review/workflow.py, which also keeps concurrent edits from overwriting each other.

One module a job; this one registers the model admins and gives the index its counts:

- `case`: the cases' admin, its list and change form; `organisations`, `terms`: the others;
- `library_admin`: what every admin of the library shares; `busy_rows`: a write refused
  after a moment when an import holds the rows it needs;
- `filters`: the list filters; `inlines`: the lists of a case in its form; `sections`: the
  form's sections;
- `translations`: which Korean text translates which English, recorded at each save;
- `actions`: the bulk review actions (approve, return to draft);
- `index`: the index page's translation queue.
"""

from django.contrib import admin

from cases.admin.case import CaseAdmin
from cases.admin.index import with_translation_queue
from cases.admin.organisations import OrganisationAdmin
from cases.admin.terms import TermAdmin
from cases.models import Case, Organisation, Term

admin.site.site_header = admin.site.site_title = "incidentlib"
admin.site.register(Organisation, OrganisationAdmin)
admin.site.register(Term, TermAdmin)
admin.site.register(Case, CaseAdmin)
admin.site.index = with_translation_queue(admin.site.index)
