"""A Korean search word reduced to what it is about: `스토리지가` to `스토리지`, `포화시켰다` to
`포화`, so that it finds what the bare word finds (search.py matches Korean words as prefixes,
so the stem finds the inflected forms too, and nothing the reader's word would not mean).

Kiwi (kiwipiepy, with the model its package ships) analyses the word. Only a trailing run of
particles (조사) and endings is cut, with a suffix that makes a verb of a noun (하다, 되다,
시키다), the copula (이다) or the plural 들 written out before them, or after a verb's stem
where the ending is written apart from it (`멈추|다`, `끊기|지`). What a word begins with
is never changed, but where endings fuse with a verb's stem (`멈췄다`, `멈춰서`: 멈추 with
었, with 어서): the word is then read as the verb (멈추). A verb's stem also finds the forms
in which the past or a connective ending fuses with it (`멈추다` finds 멈췄다 and 멈춰서 as
well as 멈추지, `모르다` 몰랐다: conjugations). A word Kiwi reads otherwise (`스토리지` as
스토리 + 이 + 지) is left whole: a cut is made only where the cut-off part starts with a
morpheme written in the word. The analyser is loaded once per process, on the first Korean
search (2 to 5 s and about 500 MB: bench/korean_search.py; gunicorn.conf.py loads it in each
worker before its first request), never on other requests.
"""

import re
import threading
import warnings
from functools import lru_cache
from typing import NamedTuple

from cases.languages import HANGUL

# A word with a Hangul syllable, as the search text separates them (Latin and digits may lead:
# `S3가`, `NFS의`, cut to `S3`, `NFS`).
KOREAN_WORD = re.compile(f"[0-9A-Za-z]*[{HANGUL}][0-9A-Za-z{HANGUL}]*")
# Morphemes cut from the end of a word: particles (J...), endings (E...), and the verb-making
# suffixes and copula before them.
TRAILING = re.compile(r"^(J|E|XSV|XSA|VCP|VCN)")
# What a cut must begin with: a particle, or a suffix or copula that is written in the word.
CUT_STARTS = re.compile(r"^(J|XSV|XSA|VCP)")
# What an ending may be cut after: a verb's or an adjective's stem (or an ending of tense
# before it, 었 of 끊겼다).
VERB_STEM = re.compile(r"^(VV|VA|VX|EP)")
# A stem whose last syllable may fuse with an ending: a verb's, an adjective's or an
# auxiliary's (regular or not: VV-I of 돕다).
FUSES = re.compile(r"^(VV|VA|VX)")
# The endings that fuse with such a stem, whose forms a reader of the stem looks for too: the
# past 었 (멈추 to 멈췄, 모르 to 몰랐) and the connective 어 (멈춰, 도와); Kiwi picks 았 or 어.
FUSING_ENDINGS = (("었", "EP"), ("어", "EC"))
# A verb's or adjective's stem of one syllable (`잡` of `잡았는데`, `없` of `없으면`) is too short
# to search for by itself (as a prefix, it begins too many words); it is searched for in the
# forms these endings make of it that are two syllables or more (잡았, 잡아, 잡고, 잡지, ...),
# where Kiwi joins them (`줄` and 어: 줄어; `뜨` and 었: 떴, one syllable, left out).
SHORT_STEM_ENDINGS = (
    ("었", "EP"),
    ("어", "EC"),
    ("고", "EC"),
    ("지", "EC"),
    ("게", "EC"),
    ("으면", "EC"),
    ("다", "EF"),
)
# A noun of one syllable typed with a particle (`앱이`), likewise: in these forms.
SHORT_NOUN_PARTICLES = (
    ("이", "JKS"),
    ("을", "JKO"),
    ("은", "JX"),
    ("의", "JKG"),
    ("에", "JKB"),
    ("도", "JX"),
    ("으로", "JKB"),
    ("과", "JC"),
    ("만", "JX"),
)
# Nouns (common, proper) of which a compound is made.
NOUNS = ("NNG", "NNP")
# The plural suffix (`고객들이` is about 고객): the one noun suffix cut, since the others
# (`가용성`, `효율적`) make a word of another meaning.
PLURAL = ("들", "XSN")
# A stem shorter than this is not cut to: a single syllable matches only itself.
SHORTEST_STEM = 2

_lock = threading.Lock()
_kiwi = None


def analyser():
    """The process's Kiwi, loaded on first use, whole: Kiwi() reads its model in about 1 s,
    and its first analysis reads the rest in 2 s more; both are done here, so that a process
    forked afterwards (gunicorn's workers) has all of it."""
    global _kiwi
    if _kiwi is None:
        with _lock:
            if _kiwi is None:
                from kiwipiepy import Kiwi

                # No threads of its own (num_workers=0; by default it starts one per core
                # at its first analysis): a query is a few words, and a fork carries no thread.
                with warnings.catch_warnings():  # that 0 means so since kiwipiepy 0.21
                    warnings.simplefilter("ignore", DeprecationWarning)
                    kiwi = Kiwi(num_workers=0)
                kiwi.tokenize("스토리지가")
                _kiwi = kiwi
    return _kiwi


def _plural(token):
    return (token.form, token.tag) == PLURAL


def _cut_at(word, tokens, index):
    """Whether the word may be cut before tokens[index]: a particle, a suffix, the copula or
    the plural written in the word; or an ending written after a verb's or adjective's stem
    (`멈추|다`, `끊겼|다`), not fused with it (`멈췄다`'s 었 is in 췄, `몰랐다`'s changed 모르
    to 몰: the cut goes after)."""
    token = tokens[index]
    if token.len == 0:
        return False
    if CUT_STARTS.match(token.tag) or _plural(token):
        return True
    before = tokens[index - 1] if index else None
    return (
        token.tag.startswith("E")
        and before is not None
        and VERB_STEM.match(before.tag) is not None
        and not _fused(word, tokens, index)
    )


class Reading(NamedTuple):
    """What a search looks for of a Korean word."""

    stem: str  # the word without its trailing particles and endings, or the word itself
    # The forms, other than the stem, that begin a verb's conjugations: of `멈추다`, (`멈췄`,
    # `멈춰`); none of a word that is not a verb's or adjective's stem with an ending cut, or
    # whose conjugations all begin with the stem (`만들다`: 만들었, 만들어).
    fused: tuple = ()
    # The nouns of a compound (`헬스체크`: `헬스`, `체크`), which a text may write apart.
    spaced: tuple = ()


def stem(word):
    """The word without its trailing particles and endings, or the word itself."""
    return analysed(word).stem


def fused_forms(word):
    """The forms other than its stem that begin the word's conjugations (Reading.fused)."""
    return analysed(word).fused


@lru_cache(maxsize=4096)
def analysed(word):
    """The Reading of the word."""
    tokens = analyser().tokenize(word)
    stemmed, fused, count = _stemmed(word, tokens)
    return Reading(stemmed, fused, _compound(stemmed, tokens[:count]))


def _stemmed(word, tokens):
    """(stem, fused forms, how many of the tokens the stem is made of)."""
    first = len(tokens)
    while first > 0 and (TRAILING.match(tokens[first - 1].tag) or _plural(tokens[first - 1])):
        first -= 1
    if (
        0 < first < len(tokens)
        and FUSES.match(tokens[first - 1].tag)
        and _fused(word, tokens, first)
    ):
        # Endings fused with a verb's stem (`멈췄다`: 멈추 and 었 in 췄): the word is the verb.
        morphemes = _morphemes(tokens[:first])
        return *_conjugated(word, analyser().join(morphemes), morphemes), first
    # The cut must start at a particle, suffix or copula written in the word itself.
    cut = first
    while cut < len(tokens) and not _cut_at(word, tokens, cut):
        cut += 1
    if cut == len(tokens) or cut == 0:
        return word, (), len(tokens)
    stemmed = word[: tokens[cut].start]
    morphemes = _morphemes(tokens[:cut])
    if analyser().join(morphemes) != stemmed:
        return _shortest(word, stemmed), (), cut
    return *_conjugated(word, stemmed, morphemes), cut


def _compound(stemmed, tokens):
    """The nouns the stem is written of, if it is two or more of them, each of two syllables
    or more, written as themselves one after the other (`데이터센터`; not `서버실`, which Kiwi
    reads as one noun, nor `재시도`, 재 being a prefix)."""
    if len(tokens) < 2 or "".join(token.form for token in tokens) != stemmed:
        return ()
    if all(token.tag in NOUNS and len(token.form) >= SHORTEST_STEM for token in tokens):
        return tuple(token.form for token in tokens)
    return ()


def _morphemes(tokens):
    return [(token.form, token.tag) for token in tokens]


def _shortest(word, stemmed):
    """The stem, or the word where the stem is too short to search for. A Latin or number
    stem (`NFS의` to `NFS`, `S3가` to `S3`) is searched as an English word, which the search
    vector holds for the leading Latin run of a Korean word too: `NFS` finds `NFS가` and
    English `NFS` alike."""
    return word if len(stemmed) < SHORTEST_STEM else stemmed


def _conjugated(word, stemmed, morphemes):
    """(stem, fused forms) of a stem, its morphemes given: the forms only of a verb's stem.
    A stem too short to search for (one syllable) leaves the word as typed, searched for
    with the forms of that stem (SHORT_STEM_ENDINGS, SHORT_NOUN_PARTICLES)."""
    if len(stemmed) < SHORTEST_STEM and len(morphemes) == 1 and HANGUL_ONLY.fullmatch(stemmed):
        return word, _short_forms(word, morphemes[0])
    stemmed = _shortest(word, stemmed)
    if stemmed == word or not FUSES.match(morphemes[-1][1]):
        return stemmed, ()
    forms = (analyser().join([*morphemes, ending]) for ending in FUSING_ENDINGS)
    return stemmed, tuple(dict.fromkeys(form for form in forms if not form.startswith(stemmed)))


HANGUL_ONLY = re.compile(f"[{HANGUL}]+")
# Verbs that say little by themselves (`하고`, `되어`: do, become), whose forms would find most
# of the library: searched as typed.
LIGHT_VERBS = ("하", "되")


def _short_forms(word, morpheme):
    """The forms of a stem of one syllable that are searched for (SHORT_STEM_ENDINGS), other
    than the word typed and of two syllables or more; none of a stem neither a verb's, an
    adjective's nor a noun's."""
    if morpheme[0] in LIGHT_VERBS:
        return ()
    if FUSES.match(morpheme[1]):
        endings = SHORT_STEM_ENDINGS
    elif morpheme[1] in NOUNS:
        endings = SHORT_NOUN_PARTICLES
    else:
        return ()
    forms = (analyser().join([morpheme, ending]) for ending in endings)
    return tuple(
        dict.fromkeys(
            form for form in forms if len(form) >= SHORTEST_STEM and not form.startswith(word)
        )
    )


def _fused(word, tokens, index):
    """Whether tokens[index] changed how the token before it is written: it shares its last
    syllable (멈추 and 었 in 멈췄), or that token, a stem, is not written as itself (모르 as
    몰 of 몰랐)."""
    before = tokens[index - 1]
    end = before.start + before.len
    return tokens[index].start < end or (
        FUSES.match(before.tag) is not None and word[before.start : end] != before.form
    )


# A stem in Latin letters and digits only (`NFS` of `NFS의`).
LATIN_STEM = re.compile(r"[0-9A-Za-z]+")


def stem_parts(text):
    """The search text as parts, in order: text (as written, or a Korean word's stem), and
    for a word whose stem is in Latin letters (`NFS의`), (stem, word): the stem is searched
    only if the English search looks for it (`IT` is a stopword, `OR` is syntax), a choice
    search.py leaves to PostgreSQL."""
    if not re.search(f"[{HANGUL}]", text or ""):
        return [text]
    parts, written, end = [], "", 0
    for match in KOREAN_WORD.finditer(text):
        word, stemmed = match.group(0), stem(match.group(0))
        written += text[end : match.start()]
        end = match.end()
        if stemmed != word and LATIN_STEM.fullmatch(stemmed):
            parts += [written, (stemmed, word)]
            written = ""
        else:
            written += stemmed
    return [*parts, written + text[end:]]


def readings(text):
    """{stem: Reading} of the search text's Korean words that are searched for in more than
    one form (fused forms of a verb, or the nouns of a compound written apart)."""
    found = (analysed(word) for word in KOREAN_WORD.findall(text or ""))
    return {reading.stem: reading for reading in found if reading.fused or reading.spaced}


# A quoted phrase of the search text.
QUOTED = re.compile(r'"([^"]*)"')


def phrase_compounds(text):
    """{nouns: compound} of the search text's quoted phrases that are the nouns of a compound
    written apart (`"헬스 체크"`: 헬스체크, which a text may write together), as Kiwi reads that
    compound (_compound): not `"체크 후"`, nor `"서버 실"` (서버실 is one noun)."""
    found = {}
    for phrase in QUOTED.findall(text or ""):
        nouns = tuple(stems(phrase).split())
        if len(nouns) > 1 and all(HANGUL_ONLY.fullmatch(noun) for noun in nouns):
            compound = "".join(nouns)
            if analysed(compound).spaced == nouns:
                found[nouns] = compound
    return found


def stems(text):
    """The search text with each Korean word reduced to its stem; the rest as written."""
    return "".join(part if isinstance(part, str) else part[0] for part in stem_parts(text))


# Morphemes that say little by themselves: particles, endings, suffixes, the copula, auxiliary
# verbs, dependent nouns (것, 수, 때) and pronouns; with the verbs and adverbs below.
FUNCTION_TAGS = re.compile(r"^(J|E|XS|VCP|VCN|VX|NNB|NP)")
# Verbs and adverbs that say little by themselves: do, become (하다, 되다), not (안, 못), and
# the degree of a thing (잘, 더, 좀, 너무, 아주, 많이, 다, 또, 아예).
SAY_LITTLE = {
    ("하", "VV"),
    ("되", "VV"),
    *((word, "MAG") for word in ("안", "못", "잘", "더", "좀", "너무", "아주", "많이", "다")),
    *((word, "MAG") for word in ("또", "아예", "전부", "모두", "다시", "이미", "계속")),
}


def says_little(word):
    """Whether a word of the search (a run without spaces) is Korean made only of morphemes
    that say little by themselves (`안`, `못`, `하고`, `너무`): a word too common in Korean
    to tell cases apart, as `the` is in English."""
    if not HANGUL_ONLY.fullmatch(word or ""):
        return False
    tokens = analyser().tokenize(word)
    return bool(tokens) and all(
        FUNCTION_TAGS.match(token.tag) or (token.form, token.tag.split("-")[0]) in SAY_LITTLE
        for token in tokens
    )
