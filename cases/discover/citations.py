"""A case as a reference: BibTeX, RIS and CSL-JSON (/cases/<id>.bib, .ris, .csl.json), and the
Highwire Press `citation_*` meta tags of the case page, which Google Scholar and Zotero read.

Each carries the title in the reader's language (and the English one beside it where the
format has a place for it), the organisation as author, the case's date, its stable address
(without `?lang`), the date it was last updated and its review. Each format escapes in its
own way: BibTeX's special characters get backslashes (`\\%`, `\\&`, `\\_`, `\\{`), RIS has no
escapes but one value per line (line breaks become spaces), and CSL-JSON is JSON.
"""

import json
import re
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import override

PUBLISHER = "incidentlib"

# Content types: BibTeX and RIS have no registered type; these are what reference managers
# and browsers' helpers recognise.
CONTENT_TYPES = {
    "bib": "application/x-bibtex; charset=utf-8",
    "ris": "application/x-research-info-systems; charset=utf-8",
    "csl.json": "application/vnd.citationstyles.csl+json; charset=utf-8",
}

LANGUAGE_NAMES = {"en": "english", "ko": "korean"}


@dataclass(frozen=True)
class Reference:
    """What a citation of one case says, in one language."""

    key: str
    title: str
    english_title: str  # "" when the title is already the English one
    author: str
    date: object  # datetime.date
    address: str
    updated: object  # datetime.datetime
    review_note: str
    abstract: str
    language: str  # the language the title and abstract are written in
    page_language: str  # the reader's, which the note is written in

    @property
    def note(self):
        updated = self.updated.date().isoformat()
        with override(self.page_language):
            return _("Last updated %(date)s.") % {"date": updated} + " " + self.review_note


def reference(case, address, language):
    """The Reference of a case (loaded with its organisation) in `language` ('en' or 'ko')."""
    title = case.text("title", language)
    summary = case.text("summary", language)
    with override(language):
        if case.is_draft:
            review_note = _("Draft: not yet reviewed.")
        else:
            review_note = _("Reviewed by %(reviewer)s on %(date)s.") % {
                "reviewer": case.reviewed_by,
                "date": case.reviewed_at.date().isoformat(),
            }
    return Reference(
        key=case.id,
        title=title.text,
        english_title="" if title.lang == "en" else case.title_en,
        author=case.organisation.name,
        date=case.date,
        address=address,
        updated=case.updated_at,
        review_note=review_note,
        abstract=summary.text,
        # The language the title and abstract are written in (English when not translated).
        language=title.lang,
        page_language=language,
    )


# BibTeX -----------------------------------------------------------------------------------

BIBTEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "_": r"\_",
    "#": r"\#",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
BIBTEX_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in BIBTEX_SPECIAL))


def bibtex_text(text):
    """Text for a braced BibTeX value: LaTeX's special characters escaped, one line."""
    one_line = " ".join((text or "").split())
    return BIBTEX_SPECIAL_RE.sub(lambda match: BIBTEX_SPECIAL[match.group(0)], one_line)


def to_bibtex(ref):
    # Double braces keep the title's capitals and make the organisation one name, not a
    # "Last, First" to be split.
    fields = [
        ("title", f"{{{bibtex_text(ref.title)}}}"),
        ("origtitle", f"{{{bibtex_text(ref.english_title)}}}" if ref.english_title else ""),
        ("author", f"{{{bibtex_text(ref.author)}}}"),
        ("year", str(ref.date.year)),
        ("month", str(ref.date.month)),
        ("date", ref.date.isoformat()),
        ("publisher", PUBLISHER),
        ("howpublished", bibtex_text(PUBLISHER)),
        ("url", ref.address),
        ("urldate", ref.updated.date().isoformat()),
        ("note", bibtex_text(ref.note)),
        ("abstract", bibtex_text(ref.abstract)),
        ("language", LANGUAGE_NAMES[ref.language]),
    ]
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@misc{{{ref.key},\n{body}\n}}\n"


# RIS --------------------------------------------------------------------------------------


def ris_text(text):
    """A RIS value: one line (RIS has no escapes; a line break would end the value)."""
    return " ".join((text or "").split())


def to_ris(ref):
    lines = [
        ("TY", "ELEC"),
        ("ID", ref.key),
        ("TI", ris_text(ref.title)),
        ("TT", ris_text(ref.english_title)),
        ("AU", ris_text(ref.author)),
        ("PY", str(ref.date.year)),
        ("DA", ref.date.strftime("%Y/%m/%d/")),
        ("PB", PUBLISHER),
        ("UR", ref.address),
        ("Y2", ref.updated.date().strftime("%Y/%m/%d/")),
        ("N1", ris_text(ref.note)),
        ("AB", ris_text(ref.abstract)),
        ("LA", LANGUAGE_NAMES[ref.language]),
    ]
    text = "".join(f"{tag}  - {value}\r\n" for tag, value in lines if value)
    return text + "ER  - \r\n"


# CSL-JSON ---------------------------------------------------------------------------------


def _date_parts(date):
    return {"date-parts": [[date.year, date.month, date.day]]}


def to_csl(ref):
    item = {
        "id": ref.key,
        "type": "webpage",
        "title": ref.title,
        "author": [{"literal": ref.author}],
        "issued": _date_parts(ref.date),
        "publisher": PUBLISHER,
        "container-title": PUBLISHER,
        "URL": ref.address,
        "accessed": _date_parts(ref.updated.date()),
        "note": ref.note,
        "abstract": ref.abstract,
        "language": ref.language,
    }
    if ref.english_title:
        item["original-title"] = ref.english_title
    return json.dumps([item], ensure_ascii=False, indent=2) + "\n"


FORMATTERS = {"bib": to_bibtex, "ris": to_ris, "csl.json": to_csl}


def highwire_tags(ref):
    """(name, content) pairs of the Highwire Press meta tags for the case page."""
    tags = [
        ("citation_title", ref.title),
        ("citation_author", ref.author),
        ("citation_publication_date", ref.date.strftime("%Y/%m/%d")),
        ("citation_online_date", ref.updated.date().strftime("%Y/%m/%d")),
        ("citation_publisher", PUBLISHER),
        ("citation_abstract_html_url", ref.address),
        ("citation_public_url", ref.address),
        ("citation_language", ref.language),
    ]
    return [(name, ris_text(content)) for name, content in tags if content]
