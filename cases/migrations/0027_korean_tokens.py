"""The Korean search vector made by one implementation: the database's.

cases_korean_tsvector (0001) made a Korean text's vector, and the import made the same vector
again in Python (cases/exchange/vectors.py), for speed: it derives each word's tokens once per
run instead of once per text. The rule now lives here only, in three parts that both use:

- cases_korean_words: the words of a text, as the 'simple' parser finds them in its first
  100,000 characters;
- cases_korean_endings: whether those words give their endings (a text of at most 20,000);
- cases_korean_tokens: the tokens of a set of words, each at the word's positions.

cases_korean_tsvector joins them into a text's vector (the trigger's); the import asks
cases_korean_tokens for the words it has not seen yet in its run, and writes each text's
vector from them.
"""

import re

from django.db import migrations

from cases.migrations._0001_sql import SEARCH_VECTOR

KOREAN_TOKENS = r"""
-- The words of a Korean text: up to its first 100,000 characters, the longest a case text
-- may be (the remediation steps, joined, may be longer).
CREATE FUNCTION cases_korean_words(body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT to_tsvector('simple'::regconfig, left(coalesce(body, ''), 100000))
$$;

-- A tsvector holds at most 1 MB, and the endings of every word of a long text would pass it:
-- only the words of a text of at most 20,000 characters give their endings.
CREATE FUNCTION cases_korean_endings(body text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT char_length(body) <= 20000
$$;

-- The tokens of each word (a lexeme of cases_korean_words), at the word's positions: the word
-- as written; with `endings`, of a word of at most 32 characters, every ending that starts
-- with a Hangul syllable, from its second character to its last but one, so that a prefix
-- query ('데이터':*) finds a word inside its inflected forms (스토리지의) and compounds
-- (메타데이터가); and of a word holding Hangul that starts with something else (NFS의, S3가,
-- timeouts가), that leading run (nfs, s3, timeouts) and its 'english' lexemes (timeout).
CREATE FUNCTION cases_korean_tokens(words tsvector, endings boolean)
RETURNS TABLE (word text, token text, at smallint[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH given AS (
        SELECT lexeme, positions FROM unnest(words)
    ), lead AS (
        SELECT given.lexeme, substring(given.lexeme FROM '^[^가-힣]+') AS run, given.positions
        FROM given
        WHERE given.lexeme ~ '[가-힣]'
    )
    SELECT given.lexeme, given.lexeme, given.positions FROM given
    UNION ALL
    SELECT given.lexeme, substr(given.lexeme, start), given.positions
    FROM given, generate_series(2, char_length(given.lexeme) - 1) AS start
    WHERE endings
      AND substr(given.lexeme, start, 1) ~ '[가-힣]'
      AND char_length(given.lexeme) <= 32
    UNION ALL
    SELECT lead.lexeme, lead.run, lead.positions FROM lead WHERE lead.run IS NOT NULL
    UNION ALL
    SELECT lead.lexeme, stem.lexeme, lead.positions
    FROM lead, unnest(to_tsvector('english'::regconfig, lead.run)) AS stem
    WHERE lead.run IS NOT NULL
$$;

-- A Korean text's vector: the tokens of its words, each at its word's positions.
CREATE OR REPLACE FUNCTION cases_korean_tsvector(body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(
        string_agg(
            '''' || replace(replace(token, '\', '\\'), '''', '''''') || ''':'
                || array_to_string(at, ','),
            ' '
        ),
        ''
    )::tsvector
    FROM cases_korean_tokens(cases_korean_words(body), cases_korean_endings(body))
$$;
"""


def _squashed_korean_tsvector():
    """Back to 0026: cases_korean_tsvector as the squashed migration wrote it, taken from its
    text (a migration's own, never changed), not written a second time here."""
    function = re.search(
        r"CREATE FUNCTION cases_korean_tsvector\(.*?\$\$;", SEARCH_VECTOR, re.S
    )[0]
    return function.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


class Migration(migrations.Migration):
    dependencies = [
        ("cases", "0026_similar_cases"),
    ]

    operations = [
        migrations.RunSQL(
            KOREAN_TOKENS,
            _squashed_korean_tsvector()
            + """
            DROP FUNCTION cases_korean_tokens(tsvector, boolean), cases_korean_words(text),
                cases_korean_endings(text);
            """,
        ),
    ]
