"""The reader's words as PostgreSQL's tsquery (search.py searches with them).

- web search syntax (`"a phrase"`, `-excluded`, `or`), parsed by `websearch_to_tsquery`
  with the 'english' configuration, so that `timeouts` looks for `timeout`;
- every Korean word of it of two characters or more then matches as a prefix
  (`'스토리지':*`), which, with the endings stored in the vector, finds it inside inflected
  forms (`스토리지의`) and compounds (`메타데이터가` for `데이터`); a single syllable, which
  would begin too many words and endings to mean anything (`가`), matches only itself, and a
  word of a stem of one syllable (`잡았는데`) is looked for in that stem's forms (korean.py).

The query is built from constants only, so PostgreSQL folds it once and the GIN index on
the vector answers `search_vector @@ query`.
"""

import re

from django.contrib.postgres.search import SearchQuery

from cases.languages import HANGUL
from cases.listing import glossary, korean

# A quoted lexeme of a tsquery's text form ('' is an escaped quote) of two characters or more
# (the lookahead), one of them a Hangul syllable.
KOREAN_LEXEME = rf"'(?=(?:[^']|''){{2}})(?:[^']|'')*[{HANGUL}](?:[^']|'')*'"


def web_search_parts(text):
    """The reader's words as `websearch_to_tsquery` reads them, in parts (korean.stem_parts):
    `|` outside a quoted phrase means `or`, as it does in PostgreSQL's own syntax (web search
    syntax would read it as a space, so as "and"), and a Korean word with a particle or
    ending is its stem, a Latin one (`NFS` of `NFS의`) where the search looks for it."""
    return korean.stem_parts(bars_as_or(text))


def outside_phrases(text, change):
    """The text with `change` made to what lies outside its quoted phrases."""
    parts = text.split('"')
    parts[::2] = [change(part) for part in parts[::2]]
    return '"'.join(parts)


# `|` between words, which reads as `or` (web_search_parts).
BAR = re.compile(r"\s*\|+\s*")


def bars_as_or(text):
    return outside_phrases(text, lambda part: BAR.sub(" or ", part))


def tsquery_sql(parts):
    """(SQL, params) of the tsquery of the search text's parts (web_search_parts), as
    `websearch_to_tsquery` with the 'english' configuration reads it: each Latin stem (`NFS`)
    where the English search looks for it, else its word as typed (`IT의`: `IT` is a
    stopword; `OR가`: `OR` is syntax), which is found by its prefix. Decided by PostgreSQL's
    own configuration, word by word, from constants only: the query folds it once."""
    sql, params = [], []
    for part in parts:
        if isinstance(part, str):
            sql.append("%s::text")
            params.append(part)
        else:
            stem, word = part
            sql.append(
                "(CASE WHEN lower(%s) <> 'or' AND numnode(plainto_tsquery('english', %s)) > 0"
                " THEN %s ELSE %s END)"
            )
            params += [stem, stem, stem, word]
    return f"websearch_to_tsquery('english'::regconfig, {' || '.join(sql)})", params


def _lexeme(word):
    """A Korean word in a tsquery's text form."""
    return "'" + word.replace("'", "''") + "'"


def _prefix(word):
    """A Korean word as a prefix in a tsquery's text form."""
    return _lexeme(word) + ":*"


def _alternatives(reading):
    """A Korean word's stem, in a tsquery's text form, with the forms it is also looked for in
    (korean.Reading): `('멈추':* | '멈췄':* | '멈춰':*)`, `('헬스체크':* | '헬스' <-> '체크':*)`."""
    forms = [_prefix(form) for form in (reading.stem, *reading.fused)]
    if reading.spaced:
        *nouns, last = reading.spaced
        forms.append(" <-> ".join([*map(_lexeme, nouns), _prefix(last)]))
    return f"({' | '.join(forms)})"


def _phrase(nouns):
    """A quoted phrase of Korean nouns in a tsquery's text form, each a prefix."""
    return " <-> ".join(map(_prefix, nouns))


class LibraryQuery(SearchQuery):
    """The reader's words as a tsquery: web search syntax, English stemmed, Korean as prefixes
    (a Latin word with a Korean particle as the Latin word, where it is searched), a verb's
    stem or any of its fused forms, a compound or its nouns written apart (_alternatives), a
    quoted phrase of nouns or their compound written together (`"헬스 체크"`: 헬스체크)."""

    def __init__(self, text):
        text = options_quoted(text)
        self.single_word = len(text.split()) == 1
        self.glossary = glossary.of_text(text)
        self.parts = web_search_parts(text)
        self.readings = korean.readings(text)
        self.compounds = korean.phrase_compounds(text)
        super().__init__(text, config="english", search_type="websearch")

    @property
    def operands(self):
        """How many alternatives a word is looked for in (_alternatives), among which ts_rank
        divides its rank: 1 for a phrase, an English word, or a word of one form."""
        if len(self.readings) != 1 or not self.single_word:
            return 1
        (reading,) = self.readings.values()
        return 1 + len(reading.fused) + len(reading.spaced)

    def as_sql(self, compiler, connection, function=None, template=None):
        sql, params = tsquery_sql(self.parts)
        sql = f"regexp_replace(({sql})::text, %s, %s, 'g')"
        params += [KOREAN_LEXEME, r"\&:*"]
        # The longest phrase first: a shorter one's form is inside it (`"헬스 체크"` in
        # `"서버 헬스 체크"`), and would be replaced there before it is.
        for nouns, compound in sorted(self.compounds.items(), key=lambda item: -len(item[0])):
            sql = f"replace({sql}, %s, %s)"
            params += [_phrase(nouns), f"({_phrase(nouns)} | {_prefix(compound)})"]
        # A lexeme of the 'english' parser holds no quote, so `'멈추':*` is found only whole.
        for stem, reading in self.readings.items():
            sql = f"replace({sql}, %s, %s)"
            # A stem of one syllable is not a prefix (KOREAN_LEXEME): its forms are.
            params += [_prefix(stem) if len(stem) > 1 else _lexeme(stem), _alternatives(reading)]
        # A word the glossary has is also looked for in its other forms: a Korean one by its
        # prefix, an English one as the English search reads it (PostgreSQL stems it).
        for stem, forms in self.glossary.items():
            korean_forms = [form for form in forms if korean.HANGUL_ONLY.fullmatch(form)]
            english_forms = [form for form in forms if form not in korean_forms]
            either = " || ".join(
                ["%s::tsquery"] * (1 + len(korean_forms))
                + ["plainto_tsquery('english'::regconfig, %s)"] * len(english_forms)
            )
            sql = f"replace({sql}, %s, '(' || ({either})::text || ')')"
            lexeme = _prefix(stem) if len(stem) > 1 else _lexeme(stem)
            params += [lexeme, lexeme, *map(_prefix, korean_forms), *english_forms]
        return f"({sql})::tsquery", params


# A unit of the reader's words (units): a quoted phrase, with a minus before it or not, or a
# run of characters up to a space.
UNIT = re.compile(r'-?"[^"]*"?|[^\s"]+')
# A command's option, which a minus begins but excludes nothing: `--force`, or a minus and one
# or two lower-case letters or digits (`rm -rf`, `kill -9`, `ls -l`). Leaving out a word of
# one or two letters would say nothing of a case; an engineer types them from a terminal.
OPTION = re.compile(r"--[0-9A-Za-z][\w-]*|-[0-9a-z]{1,2}")
# An option as a word of its own in the text.
OPTION_WORD = re.compile(rf"(?<!\S)({OPTION.pattern})(?!\S)")


def options_quoted(text):
    """The text with each command's option outside a quoted phrase quoted (OPTION), so that
    web search syntax reads it as the texts say it, not as a word left out."""
    return outside_phrases(text, lambda part: OPTION_WORD.sub(r'"\1"', part))


def units(text):
    """(wanted, excluded): the reader's words as the parts a loose search weighs one by one,
    each a piece of the text that `websearch_to_tsquery` reads as it reads the whole.

    A quoted phrase is one unit; words joined by `or` (or `|`) are one unit (either of them);
    a word or phrase with a minus before it is excluded (every case shown lacks it), but for a
    command's option (OPTION), which is wanted as it is written: quoted, so that the search
    reads it as the texts do (`"-rf"`: `rf`; `"-9"`: `-9`)."""
    wanted, excluded, joining = [], [], False
    for unit in UNIT.findall(bars_as_or(options_quoted(text))):
        if unit.lower() == "or":
            joining = bool(wanted)
            continue
        if unit.startswith("-") and len(unit) > 1:
            excluded.append(unit)
        elif joining:
            wanted[-1] = f"{wanted[-1]} or {unit}"
        else:
            wanted.append(unit)
        joining = False
    return wanted, excluded


class AnyOfQuery(SearchQuery):
    """Any of several groups of units, each group's units all (LibraryQuery each), with none
    of the excluded ones: `((q1 && q2) || (q3) || ...) && e1 && ...` as PostgreSQL combines
    tsqueries (an excluded unit reads as websearch reads `-word`: `!'word'`). Groups of one
    unit each (`any_of`): any of the units."""

    def __init__(self, groups, excluded=()):
        self.groups = [[LibraryQuery(unit) for unit in group] for group in groups]
        self.excluded = [LibraryQuery(unit) for unit in excluded]
        words = [unit for group in groups for unit in group]
        super().__init__(" ".join([*words, *excluded]), config="english")

    @classmethod
    def any_of(cls, units, excluded=()):
        return cls([[unit] for unit in units], excluded)

    @classmethod
    def all_but_one(cls, units, excluded=()):
        """Every unit but one, whichever it is."""
        return cls([units[:n] + units[n + 1 :] for n in range(len(units))], excluded)

    def as_sql(self, compiler, connection, function=None, template=None):
        groups, params = [], []
        for group in self.groups:
            sql = []
            for query in group:
                part_sql, part_params = query.as_sql(compiler, connection)
                sql.append(part_sql)
                params += part_params
            groups.append(f"({' && '.join(sql)})")
        combined = f"({' || '.join(groups)})"
        for query in self.excluded:
            part_sql, part_params = query.as_sql(compiler, connection)
            combined = f"({combined} && {part_sql})"
            params += part_params
        return combined, params
