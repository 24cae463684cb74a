# Written by hand: the Korean search vector also holds the Latin or number part of a word
# that runs into a Korean ending (NFS의, S3가), so that `NFS` finds Korean-only text.

from django.db import migrations

# As in 0003, plus: a word holding Hangul that starts with something else (NFS의, S3가,
# timeouts가) also gives that leading run (nfs, s3, timeouts) and its lexemes under the
# 'english' configuration (timeout), as the query's 'english' configuration makes them, all
# at the word's position, so that phrases still match.
KOREAN_TSVECTOR_SQL = r"""
CREATE OR REPLACE FUNCTION cases_korean_tsvector(body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH word AS (
        SELECT lexeme, positions
        FROM unnest(to_tsvector('simple'::regconfig, coalesce(body, '')))
    ), lead AS (
        SELECT substring(word.lexeme FROM '^[^가-힣]+') AS run, word.positions
        FROM word
        WHERE word.lexeme ~ '[가-힣]'
    )
    SELECT coalesce(
        string_agg(
            '''' || replace(replace(token.lexeme, '\', '\\'), '''', '''''') || ''':'
                || array_to_string(token.positions, ','),
            ' '
        ),
        ''
    )::tsvector
    FROM (
        SELECT word.lexeme, word.positions FROM word
        UNION ALL
        SELECT substr(word.lexeme, start), word.positions
        FROM word, generate_series(2, char_length(word.lexeme) - 1) AS start
        WHERE substr(word.lexeme, start, 1) ~ '[가-힣]'
        UNION ALL
        SELECT lead.run, lead.positions FROM lead WHERE lead.run IS NOT NULL
        UNION ALL
        SELECT stem.lexeme, lead.positions
        FROM lead, unnest(to_tsvector('english'::regconfig, lead.run)) AS stem
        WHERE lead.run IS NOT NULL
    ) AS token
$$;

-- The cases already stored: touching a row makes its trigger rebuild the vector.
UPDATE cases_case SET search_vector = NULL;
"""

# The function as 0003 made it.
PREVIOUS_KOREAN_TSVECTOR_SQL = r"""
CREATE OR REPLACE FUNCTION cases_korean_tsvector(body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(
        string_agg(
            '''' || replace(replace(token.lexeme, '\', '\\'), '''', '''''') || ''':'
                || array_to_string(token.positions, ','),
            ' '
        ),
        ''
    )::tsvector
    FROM (
        SELECT word.lexeme, word.positions
        FROM unnest(to_tsvector('simple'::regconfig, coalesce(body, ''))) AS word
        UNION ALL
        SELECT substr(word.lexeme, start), word.positions
        FROM unnest(to_tsvector('simple'::regconfig, coalesce(body, ''))) AS word,
             generate_series(2, char_length(word.lexeme) - 1) AS start
        WHERE substr(word.lexeme, start, 1) ~ '[가-힣]'
    ) AS token
$$;

UPDATE cases_case SET search_vector = NULL;
"""


class Migration(migrations.Migration):

    dependencies = [
        ('cases', '0004_case_version'),
    ]

    operations = [
        migrations.RunSQL(KOREAN_TSVECTOR_SQL, PREVIOUS_KOREAN_TSVECTOR_SQL),
    ]
