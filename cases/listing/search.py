"""Full-text search over the library, English and Korean at once, done by PostgreSQL.

Each case carries a search vector that the database keeps (cases/migrations/): its
English texts stemmed by the 'english' configuration, its Korean texts as written words plus
their endings and, for a word such as `NFS의` or `S3가`, its leading Latin or number part
(`nfs`, `s3`) and that part's English stem, weighted so that the title counts most. A
reader's words become tsqueries (tsquery.py), one of each unit and one of the whole, which
the GIN index on the vector answers; their order is the library's one ranking (Search).
"""

import re
import unicodedata
from functools import cached_property

from django import forms
from django.contrib.postgres.search import SearchHeadline, SearchRank
from django.db import connections, router
from django.db.models import (
    BooleanField,
    ExpressionWrapper,
    F,
    FloatField,
    Func,
    Q,
    TextField,
    Value,
    When,
)
from django.db.models import Case as DbCase
from django.db.models.expressions import OrderBy, RawSQL, Window
from django.db.models.functions import Rank
from django.db.models.lookups import GreaterThan
from django.utils.html import escape
from django.utils.safestring import mark_safe

from cases import ranking
from cases.languages import LocalizedText
from cases.listing import korean
from cases.listing.tsquery import AnyOfQuery, LibraryQuery, tsquery_sql, units, web_search_parts
from cases.models import Case
from cases.patterns import any_case_id
from meaning import nearest

MAX_QUERY_LENGTH = 200
# Matches up to which a search is ordered by rank (see by_relevance).
RANK_ALL = 1000

# What a keyboard may type for what the search reads: full-width Latin letters, digits and
# signs (ＮＦＳ), the ideographic space and the other spaces (a no-break space, which macOS
# types with Option-Space, made two words one), and the curly quotation marks of a phrase (a
# Korean or macOS keyboard types “메타데이터 서비스”).
AS_TYPED = str.maketrans(
    {chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)}
    | dict.fromkeys(
        [
            "\u3000",
            "\u00a0",
            "\u202f",
            "\u205f",
            "\u2028",
            "\u2029",
            "\u0085",
            *map(chr, range(0x2000, 0x200B)),
        ],
        " ",
    )
    | dict.fromkeys("“”„‟«»", '"')
)


def as_searched(text):
    """The reader's words as the search reads them: composed (NFC: decomposed Hangul, as
    macOS may send it, is the Hangul of the texts), full-width forms and curly quotes as
    their plain ones. (Not NFKC: it would turn ㅋ into a jamo no text holds.)"""
    return unicodedata.normalize("NFC", text).translate(AS_TYPED)


class SearchField(forms.CharField):
    """A search box's words, as the search reads them (as_searched)."""

    def __init__(self, **kwargs):
        super().__init__(max_length=MAX_QUERY_LENGTH, **kwargs)

    def to_python(self, value):
        return as_searched(super().to_python(value))


# Private-use characters that cannot be mistaken for case text mark the matched words
# in PostgreSQL's headline; `snippet_html` turns them into <mark> after escaping the rest.
MATCH_START, MATCH_END = "\ue000", "\ue001"

# The texts a snippet is taken from, in the order they are read on the case page.
SNIPPET_TEXTS = ("summary", "trigger", "symptoms_text", "detection", "lessons")
# Between the passages of a snippet.
FRAGMENT_DELIMITER = " … "
# How far a passage is widened to the end of a word it begins or ends in (a longer run
# without a space, an address, is left as PostgreSQL cut it).
WORD_EDGE = 40


def unsearchable(text):
    """Why the text matches nothing whatever the library holds, or None: "punctuation" (not
    a letter or digit in it: `%`, `--`), "common" (only words too common to be in any search
    vector: `the`, `and`). A page that found nothing says so (one small query, made only
    then, for text with letters)."""
    if not re.search(r"[^\W_]", text):  # no letter or digit (`_` is not one)
        return "punctuation"
    sql, params = tsquery_sql(web_search_parts(text))
    with connections[router.db_for_read(Case)].cursor() as cursor:
        cursor.execute(f"SELECT numnode({sql}) = 0", params)
        return "common" if cursor.fetchone()[0] else None


def case_id_in(text):
    """The case id the search text consists of, upper-cased, or None: a search for it goes
    to the case."""
    return any_case_id(text)


# A unit found in more cases than this is common: with rarer units beside it, it only weighs in
# the order and finds no case of its own (a word in half the library would otherwise make every
# long search read half the library). With no rarer unit, the common ones find the cases.
COMMON = 300
# Units weighed one by one, at most (the rest are still part of the all-words match).
MAX_UNITS = 16
# How much a title match weighs beside the rest of a case, ts_rank's weights D, C, B, A.
WEIGHTS = [0.1, 0.2, 0.4, 1.0]
# How much the rank by meaning (meaning/nearest.py) weighs beside the rank by words, and
# reciprocal rank fusion's constant (Search.score).
MEANING_WEIGHT = 0.5
FUSION_K = 10

# How many times COMMON + 1 cases PostgreSQL's statistics must estimate a word in, for the word
# to count as common without counting its cases (common_by_statistics): ANALYZE samples 30,000
# cases, whose estimate of a word in thrice as many cases as COMMON is never off by as much.
STATISTICS_MARGIN = 3

# The most common words of the search vectors and the share of the cases having each, as
# ANALYZE last sampled them (the 1,000 most common, with the statistics target of 100).
STATISTICS_SQL = f"""
    SELECT most_common_elems::text::text[] AS lexemes, most_common_elem_freqs AS freqs
      FROM pg_stats
     WHERE schemaname = current_schema() AND tablename = '{Case._meta.db_table}'
       AND attname = 'search_vector'
"""
# A quoted lexeme of a tsquery's text form, and whether it is a prefix (`'배포':*`).
QUOTED_LEXEME = r"'((?:[^']|'')*)'(:\*)?"


def common_by_statistics(tsquery_sql, params):
    """(SQL, params) of whether the statistics (the `statistics` and `library` of
    Search._counts) show that more than COMMON cases have the tsquery: a query of one word or
    prefix, or of alternatives (`'멈추':* | '멈췄':*`, nothing else), one of which is a word
    that STATISTICS_MARGIN times COMMON + 1 cases have, or a prefix of such a word. Reading
    the catalog costs nothing, where counting a common word's cases read hundreds of them.
    Statistics of a small library (fewer than COMMON * 10 cases) are not read: counting
    costs little there, and the statistics may be of other cases."""
    sql = f"""EXISTS (
        SELECT 1
          FROM (SELECT {tsquery_sql} AS text) AS query,
               statistics,
               unnest(statistics.lexemes, statistics.freqs[1:cardinality(statistics.lexemes)])
                   AS common(lexeme, freq),
               regexp_matches(query.text, %s, 'g') AS asked
         WHERE regexp_replace(query.text, %s, '', 'g') ~ '^[[:space:]|()]*$'
           AND common.freq * (SELECT GREATEST(kept, counted) FROM library)
               >= {STATISTICS_MARGIN * (COMMON + 1)}
           AND (common.lexeme = replace(asked[1], '''''', '''')
                OR (asked[2] IS NOT NULL
                    AND starts_with(common.lexeme, replace(asked[1], '''''', '''')))))"""
    return sql, [*params, QUOTED_LEXEME, QUOTED_LEXEME]


class Search:
    """One search of the library: what it finds and in which order (the library's one
    ranking, cases/ranking.py, weighs its units).

    A case is found when it has any wanted unit (a word, a quoted phrase, words joined by
    `or`; units()) and none of the excluded ones, so that a description in a reader's own
    words finds the cases sharing its meaningful words; or when the texts it lacks in the
    search's language are among the nearest in meaning to the words (meaning/nearest.py: a
    Korean search finds a case not yet translated), unless the search is precise (a quoted
    phrase, `or`). The cases having every unit (what
    `websearch_to_tsquery` finds for the whole text: LibraryQuery) come first; then the
    score, a BM25-like sum over the units of their rarity in the library (inverse document
    frequency) times how well the case has them (ts_rank: the title weighs most, repeats add
    less and less). How many cases have a unit is counted through the GIN index, stopping
    past COMMON: one query for every unit at once, made only for a search of several units;
    a unit that PostgreSQL's statistics show to be common is not counted (_counts).
    """

    def __init__(self, text):
        self.text = text
        wanted, self.excluded = units(text)
        self.said = wanted[:MAX_UNITS]
        # The words that tell cases apart weigh; Korean ones that say little (`안`, `하고`)
        # only count in the match of every word, as English stop words do not at all.
        self.wanted = [unit for unit in self.said if not korean.says_little(unit)] or self.said

    @cached_property
    def every_unit(self):
        """The query of the whole text: every unit, none of the excluded ones."""
        return LibraryQuery(self.text)

    @property
    def several(self):
        return len(self.wanted) > 1

    @property
    def precise(self):
        return '"' in self.text or any(" or " in unit for unit in self.wanted)

    @cached_property
    def meaning(self):
        """The Meaning of the words (meaning/nearest.py): none for a precise search."""
        if self.precise or not self.wanted:
            return nearest.Meaning()
        return nearest.meaning(" ".join(self.said))

    def found_through(self, case_id):
        """Whether the search found a case by meaning alone, through its English texts that
        have no Korean translation yet."""
        return case_id in self.meaning.found

    def _counts(self, queries, limit=None, lazily=False):
        """How many cases each tsquery finds, up to COMMON + 1 (or `limit`), through the GIN
        index, and the library's size: one query.

        A query that PostgreSQL's statistics of the search vectors show to be common
        (common_by_statistics) is not counted: its count is COMMON + 1, as counting would give.
        With `lazily`, a query is counted only when every one before it finds no case (its count
        is None otherwise)."""
        table = Case._meta.db_table
        connection = connections[router.db_for_read(Case)]
        limit = limit or COMMON + 1
        ctes, params = [], []
        for n, query in enumerate(queries):
            sql, query_params = query.as_sql(None, connection)
            count = (
                f"(SELECT count(*) FROM (SELECT 1 FROM {table} WHERE search_vector @@ {sql}"
                f" LIMIT {int(limit)}) AS unit)"
            )
            if lazily and n:
                # CASE reads a subquery only when it reaches it.
                none_yet = " AND ".join(f"(SELECT n FROM count_{k}) = 0" for k in range(n))
                count = f"CASE WHEN {none_yet} THEN {count} END"
                params += query_params
            elif limit == COMMON + 1 and not lazily:
                common_sql, common_params = common_by_statistics(f"({sql})::text", query_params)
                count = f"CASE WHEN {common_sql} THEN {COMMON + 1} ELSE {count} END"
                params += [*common_params, *query_params]
            else:
                params += query_params
            ctes.append(f"count_{n} AS (SELECT {count} AS n)")
        columns = "".join(f", (SELECT n FROM count_{n})" for n in range(len(queries)))
        with connection.cursor() as cursor:
            cursor.execute(
                f"""WITH library AS (
                        SELECT (SELECT reltuples FROM pg_class WHERE oid = %s::regclass) AS kept,
                               (SELECT count(*) FROM (SELECT 1 FROM {table} LIMIT {COMMON * 10})
                                    AS c) AS counted
                    ), statistics AS (
                        SELECT lexemes, freqs FROM ({STATISTICS_SQL}) AS s
                         WHERE (SELECT counted FROM library) >= {COMMON * 10}
                    ), {", ".join(ctes)}
                    SELECT GREATEST(kept, counted){columns} FROM library""",
                [table, *params],
            )
            size, *found = cursor.fetchone()
        return max(int(size), *(n for n in found if n is not None), 1), found

    @cached_property
    def frequencies(self):
        """(library size, [how many cases have each wanted unit, counted up to COMMON + 1])."""
        if not self.several:
            return 1, [1] * len(self.wanted)
        return self._counts([LibraryQuery(unit) for unit in self.wanted])

    def query(self):
        """The tsquery of the cases found (GIN-indexed): those having any rare unit. When
        every unit some case has is common, those having all of them, else all but one, else
        any (counted in one more query): a handful of common words would otherwise find most
        of the library."""
        return self._found[0]

    @cached_property
    def _found(self):
        """(the query of the cases found, how many cases it finds at least, at most: None
        when not known from the counts made to choose it)."""
        if not self.several:
            return self.every_unit, 0, None
        _, found = self.frequencies
        rare = [u for u, count in zip(self.wanted, found, strict=True) if 0 < count <= COMMON]
        if rare:
            # Cases having any rare unit: no more than the sum of their counts.
            at_most = sum(count for count in found if 0 < count <= COMMON)
            return AnyOfQuery.any_of(rare, self.excluded), 0, at_most
        present = [u for u, count in zip(self.wanted, found, strict=True) if count]
        if len(present) < 2:
            at_most = sum(found) if max(found, default=0) <= COMMON else None
            return AnyOfQuery.any_of(present or self.wanted, self.excluded), 0, at_most
        return self._most_of(present)

    def _most_of(self, present):
        """The cases having every present unit, else all but one of them (more than two), else
        any: one query counts the first, and the second only when no case has every unit,
        each up to RANK_ALL + 1 (what ordered() needs to know)."""
        every = AnyOfQuery([present], self.excluded)
        most = AnyOfQuery.all_but_one(present, self.excluded)
        counted = [every, most] if len(present) > 2 else [every]
        _, (with_every, *with_most) = self._counts(counted, limit=RANK_ALL + 1, lazily=True)
        if with_every:
            return every, with_every, with_every if with_every <= RANK_ALL else None
        if with_most and with_most[0]:
            (count,) = with_most
            return most, count, count if count <= RANK_ALL else None
        return AnyOfQuery.any_of(present, self.excluded), 0, None

    def few(self):
        """Whether the search finds at most RANK_ALL cases (ordered()), when the counts made to
        choose its query tell (the cases found by meaning added), else None."""
        _, at_least, at_most = self._found
        if at_least > RANK_ALL:
            return False
        if at_most is not None and at_most + len(self.meaning.found) <= RANK_ALL:
            return True
        return None

    def highlighted(self):
        """The tsquery whose words a snippet marks: any wanted unit."""
        return AnyOfQuery.any_of(self.wanted) if self.several else self.every_unit

    def condition(self):
        found = Q(search_vector=self.query())
        if self.meaning.found:
            by_meaning = Q(pk__in=list(self.meaning.found))
            for unit in self.excluded:
                by_meaning &= Q(search_vector=LibraryQuery(unit))
            found |= by_meaning
        return found

    def meaning_score(self):
        """What a case's similarity in meaning to the words adds to its score: reciprocal rank
        fusion, 1 / (FUSION_K + its rank among the cases nearest in meaning), times
        MEANING_WEIGHT (0 for a case not among them)."""
        similar = self.meaning.similar | self.meaning.found
        nearest_first = sorted(similar, key=lambda pk: -similar[pk])
        return DbCase(
            *[
                When(pk=pk, then=Value(MEANING_WEIGHT / (FUSION_K + rank)))
                for rank, pk in enumerate(nearest_first, 1)
            ],
            default=Value(0.0),
            output_field=FloatField(),
        )

    def score(self):
        """The case's score: its words' BM25-like score (see the class); when some cases are
        near the words in meaning, the words' and the meaning's ranks fused instead (reciprocal
        rank fusion: each adds 1 / (FUSION_K + the case's rank by it), so that neither scale
        swamps the other)."""
        words = self.words_score()
        if not (self.meaning.similar or self.meaning.found):
            return words
        by_words = Window(Rank(), order_by=OrderBy(words, descending=True))
        # A case whose words a Korean search cannot read (it lacks their Korean) is ranked by
        # meaning in their place: its rank among the cases found so.
        found = sorted(self.meaning.found, key=lambda pk: -self.meaning.found[pk])
        words_part = DbCase(
            When(GreaterThan(words, 0), then=Value(1.0) / (Value(FUSION_K) + by_words)),
            *[When(pk=pk, then=Value(1.0 / (FUSION_K + rank))) for rank, pk in enumerate(found, 1)],
            default=Value(0.0),
            output_field=FloatField(),
        )
        return words_part + self.meaning_score()

    def words_score(self):
        if not self.several:
            return SearchRank(F("search_vector"), self.every_unit, weights=WEIGHTS)
        size, found = self.frequencies
        return sum(
            (
                ranking.saturated(
                    SearchRank(
                        F("search_vector"),
                        query,
                        weights=WEIGHTS,
                        normalization=Value(ranking.BY_LENGTH),
                    ),
                    query.operands,
                )
                * Value(ranking.idf(count, size))
                for query, count in zip(map(LibraryQuery, self.wanted), found, strict=True)
                if count
            ),
            Value(0.0, output_field=FloatField()),
        )

    def ordered(self, cases):
        """The cases in order of relevance.

        With at most RANK_ALL cases found in the library, those having every unit first, then
        by score, then the newest. Beyond that (common words alone), scoring would read every
        case found whole; the order is then the title matches first (their own small, indexed
        vector), each group newest first. Which of the two applies is known from the counts
        that chose the search's query (few()), else found by one count that stops at
        RANK_ALL + 1."""
        few = self.few()
        if few is None:
            matches = Case.objects.filter(self.condition()).order_by().values("id")
            matches_sql, params = matches[: RANK_ALL + 1].query.sql_with_params()
            few = RawSQL(
                f"(SELECT count(*) <= %s FROM ({matches_sql}) AS matches)",
                [RANK_ALL, *params],
                output_field=BooleanField(),
            )
        else:
            few = Value(few, output_field=BooleanField())
        every = Q(search_vector=self.every_unit) if self.several else Q(pk__isnull=False)
        return cases.annotate(
            every_unit=DbCase(When(few, then=ExpressionWrapper(every, BooleanField()))),
            rank=DbCase(
                When(few, then=self.score()),
                default=self.meaning_score() if self.meaning.found else None,
            ),
            title_match=ExpressionWrapper(
                Q(title_vector=self.every_unit if not self.several else self.highlighted()),
                output_field=BooleanField(),
            ),
        ).order_by(
            F("every_unit").desc(nulls_last=True),
            F("rank").desc(nulls_last=True),
            F("title_match").desc(),
            "-date",
            "id",
        )


def as_search(text):
    """The Search of a text (or the Search given: a page makes one, and counts once)."""
    return text if isinstance(text, Search) else Search(text)


def condition(text):
    """The condition a case found by the text meets (Search)."""
    return as_search(text).condition()


def every_word(text):
    """The condition of a case having every word of the text (web search syntax), as an
    exact search of the admin's asks."""
    return Q(search_vector=LibraryQuery(text))


def matching(cases, text):
    """The cases found by the text (the GIN index answers it)."""
    return cases.filter(condition(text))


def by_relevance(cases, text):
    """The cases in order of relevance to the text (Search.ordered)."""
    return as_search(text).ordered(cases)


def _joined_texts(language):
    columns = [F(f"{name}_{language}") for name in SNIPPET_TEXTS]
    return Func(Value("\n\n"), *columns, function="concat_ws", output_field=TextField())


def with_snippets(cases, text, languages):
    """Annotate `snippet_<language>`: a few short passages around the matches, per language."""
    configs = {"en": "english", "ko": "simple"}
    return cases.annotate(
        **{
            f"snippet_{language}": SearchHeadline(
                _joined_texts(language),
                as_search(text).highlighted(),
                config=configs[language],
                start_sel=MATCH_START,
                stop_sel=MATCH_END,
                max_words=24,
                min_words=12,
                max_fragments=2,
                fragment_delimiter=FRAGMENT_DELIMITER,
            )
            for language in languages
        }
    )


def add_snippets(cases, text, language):
    """Give each case of one page its `snippet` (cases/listing/query.py): one query that
    highlights only those cases, in both languages (words of either may be what matched)."""
    text = as_search(text)
    headlines = {
        row["id"]: row
        for row in with_snippets(
            Case.objects.filter(id__in=[case.id for case in cases]), text, ["en", "ko"]
        )
        .annotate(text_en=_joined_texts("en"), text_ko=_joined_texts("ko"))
        .order_by()
        .values("id", "snippet_en", "snippet_ko", "text_en", "text_ko")
    }
    for case in cases:
        row = headlines.get(case.id, {})
        case.snippet_en = as_read(row.get("snippet_en"), row.get("text_en"))
        case.snippet_ko = as_read(row.get("snippet_ko"), row.get("text_ko"))
        case.snippet = pick_snippet(case, language)
        words_found = has_match(case.snippet_en) or has_match(case.snippet_ko)
        case.found_through = None if words_found else text.found_through(case.id)


def as_read(headline, text):
    """The headline as a reader reads it: each passage widened to the whole words it begins
    and ends in (words between spaces), and marked "…" where it cuts into the text.

    PostgreSQL's parser splits a word at its punctuation and where letters meet digits, so
    a passage may begin or end inside what a reader sees as one word: `부터 us-east-1` of
    `오전 9시 37분(PST)부터 us-east-1`, `Kakao` of `Kakao's`. A passage is found in the text
    it was taken from (`text`, the joined texts of `_joined_texts`) and given the rest of
    its first and last word; a passage ending before punctuation alone (`꺼졌다` of
    `꺼졌다.`) is given that punctuation. The passages are joined by " … "; the first begins
    with "…" unless it begins the text or a paragraph, the last ends with one unless it ends
    the text, a paragraph or a sentence.
    """
    if not headline or not text:
        return headline
    passages, searched_from, first_at, last_end = [], 0, None, None
    for passage in headline.split(FRAGMENT_DELIMITER):
        plain = passage.replace(MATCH_START, "").replace(MATCH_END, "")
        at = text.find(plain, searched_from) if plain else -1
        if at < 0 and plain:
            at = text.find(plain)
        if at < 0:
            passages.append(passage)
            first_at, last_end = (0 if first_at is None else first_at), len(text)
            continue
        end = at + len(plain)
        head = re.search(r"\S*\Z", text[max(0, at - WORD_EDGE - 1) : at]).group()
        tail = re.match(r"\S*", text[end : end + WORD_EDGE + 1]).group()
        if len(head) > WORD_EDGE or plain[0].isspace():
            head = ""
        if len(tail) > WORD_EDGE or plain[-1].isspace():
            tail = ""
        passages.append(f"{head}{passage}{tail}")
        first_at = at - len(head) if first_at is None else first_at
        searched_from = last_end = end + len(tail)
    shown = FRAGMENT_DELIMITER.join(passages)
    if first_at > 0 and text[first_at - 1] != "\n":
        shown = "…" + shown
    ends_sentence = re.search(r"[.!?。…][\"'”’)\]]*\Z", text[:last_end])
    if last_end < len(text) and text[last_end] != "\n" and not ends_sentence:
        shown += "…"
    return shown


def snippet_html(headline):
    """A headline from PostgreSQL as safe HTML: the text escaped, the matches in <mark>."""
    parts, in_match = [], False
    for piece in re.split(f"([{MATCH_START}{MATCH_END}])", headline or ""):
        if piece == MATCH_START:
            if not in_match:
                parts.append("<mark>")
            in_match = True
        elif piece == MATCH_END:
            if in_match:
                parts.append("</mark>")
            in_match = False
        else:
            parts.append(escape(piece))
    if in_match:
        parts.append("</mark>")
    return mark_safe("".join(parts))


def has_match(headline):
    return MATCH_START in (headline or "")


def pick_snippet(case, language):
    """The snippet to show a reader: the one of their language if it shows a match, else the
    other language's if that one does (a Korean search on an English page), else theirs.

    A snippet not in the reader's language is marked as a fallback, for its `lang`.
    """
    other = "ko" if language == "en" else "en"
    snippets = [(getattr(case, f"snippet_{code}", None), code) for code in (language, other)]
    snippets = [(headline, code) for headline, code in snippets if headline]
    if not snippets:
        return None
    # The first with a match, else the reader's language (min keeps the first of equals).
    headline, code = min(snippets, key=lambda pair: not has_match(pair[0]))
    return LocalizedText(snippet_html(headline), code, code != language)
