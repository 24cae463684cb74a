"""The two languages case text is written in, the reader's among them, and how a text falls
back from one to the other."""

from dataclasses import dataclass

from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

CONTENT_LANGUAGES = ("en", "ko")
FALLBACK_LANGUAGE = "en"
# A Hangul syllable, inside a regular expression's character class: what the search takes for
# Korean (a word holding one gets its endings; cases/migrations/ writes the same range),
# and what a name written in Korean begins with (the organisations, 가나다 first in Korean).
HANGUL = "가-힣"


def content_language(language_code):
    """The content language for an interface language code such as 'ko' or 'en-us'."""
    code = (language_code or "").split("-")[0].lower()
    return code if code in CONTENT_LANGUAGES else FALLBACK_LANGUAGE


def reader_language():
    """The content language of the request's reader: that of the interface language the
    middleware chose (cases/language_choice.py)."""
    return content_language(get_language())


@dataclass(frozen=True)
class LocalizedText:
    """A text as shown to a reader: its words, their language, and whether it fell back."""

    text: str
    lang: str
    is_fallback: bool

    def __str__(self):
        return self.text

    def __bool__(self):
        return bool(self.text)


def pick(values, language):
    """Choose from {'en': ..., 'ko': ...}: the reader's language, else English, else nothing."""
    wanted = content_language(language)
    if values.get(wanted):
        return LocalizedText(values[wanted], wanted, False)
    if values.get(FALLBACK_LANGUAGE):
        return LocalizedText(
            values[FALLBACK_LANGUAGE], FALLBACK_LANGUAGE, wanted != FALLBACK_LANGUAGE
        )
    return LocalizedText("", wanted, False)


# Impact values and licences written in the exchange format as these English words are
# shown in the reader's language; any other value is shown as written, marked English.
KNOWN_VALUES = {
    "unknown": _("unknown"),
    "none": _("none"),
    "global": _("global"),
    "worldwide": _("worldwide"),
    "all users": _("all users"),
    "internal": _("internal"),
    # Licences (a licence's own name, `CC BY 4.0`, is shown as written)
    "all rights reserved": _("all rights reserved"),
    "public domain": _("public domain"),
    "public domain (us government work)": _("public domain (US government work)"),
}


def known_value(value):
    """An impact value or licence as a LocalizedText: a known word translated, else English."""
    language = reader_language()
    known = KNOWN_VALUES.get((value or "").strip().lower())
    if known is not None:
        return LocalizedText(str(known), language, False)
    return LocalizedText(value, FALLBACK_LANGUAGE, language != FALLBACK_LANGUAGE)
