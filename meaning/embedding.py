"""Which texts of a case lack a translation, and the pass that makes stale vectors anew.

A case's vector in a language embeds the texts it has in that language and lacks in the other
(a whole case, for a draft from an English source; the lessons alone, for a case whose Korean
lacks them): what a reader of the other language cannot find by its words. The worker runs
`embed_stale` after every write (tasks.py); a vector made from an older version of its case is
stale, so that nothing is left out, whatever wrote the case.
"""

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Prefetch

from cases.exchange.format import BILINGUAL_FIELDS
from cases.models import Case, Library, RemediationStep
from meaning import encoder
from meaning.models import GENERATION_SEQUENCE, CaseMeaning

LANGUAGES = ("en", "ko")
OTHER = {"en": "ko", "ko": "en"}
# Characters of a case's texts embedded, at most: the encoder reads a text's first few
# hundred words, and the start of a case (its title and summary) says what it is about.
MAX_CHARACTERS = 3000
# Cases embedded in one transaction.
BATCH = 32


def lacking(case, language):
    """The texts the case has in `language` and lacks in the other, joined."""
    other = OTHER[language]
    texts = [
        getattr(case, f"{name}_{language}")
        for name in BILINGUAL_FIELDS
        if getattr(case, f"{name}_{language}") and not getattr(case, f"{name}_{other}")
    ]
    texts += [
        getattr(step, f"text_{language}")
        for step in case.remediation_steps.all()
        if getattr(step, f"text_{language}") and not getattr(step, f"text_{other}")
    ]
    return "\n".join(texts)[:MAX_CHARACTERS]


def stale():
    """The cases whose vectors are missing or were made from an older version."""
    made = CaseMeaning.objects.filter(
        case=OuterRef("pk"), language=LANGUAGES[0], version=OuterRef("version")
    )
    return Case.objects.filter(~Exists(made))


def embed(cases):
    """Make and store the vectors of these cases (both languages, one transaction)."""
    rows = [(case, language, lacking(case, language)) for case in cases for language in LANGUAGES]
    texts = [text for _, _, text in rows if text]
    vectors = iter(encoder.encode(texts)) if texts else iter(())
    values = [
        (case.pk, language, case.version, encoder.to_bytes(next(vectors)) if text else None)
        for case, language, text in rows
    ]
    table = CaseMeaning._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(
            f"""INSERT INTO {table} (case_id, language, version, vector, generation, made_at)
                VALUES (%s, %s, %s, %s, nextval('{GENERATION_SEQUENCE}'), now())
                ON CONFLICT (case_id, language) DO UPDATE
                SET version = EXCLUDED.version, vector = EXCLUDED.vector,
                    generation = EXCLUDED.generation, made_at = EXCLUDED.made_at""",
            values,
        )
        # What searches find has changed: no cached page may show what they found before.
        Library.objects.raise_generation()
    return len(cases)


def embed_stale(limit=None):
    """Bring the stale vectors up to date, BATCH cases a transaction; how many were made.
    A case written meanwhile is stale again, and made again by the next pass."""
    made = 0
    steps = Prefetch("remediation_steps", queryset=RemediationStep.objects.order_by("position"))
    while limit is None or made < limit:
        size = BATCH if limit is None else min(BATCH, limit - made)
        cases = list(
            stale()
            .order_by()
            .only("id", "version", *[f"{n}_{lang}" for n in BILINGUAL_FIELDS for lang in LANGUAGES])
            .prefetch_related(steps)[:size]
        )
        if not cases:
            break
        made += embed(cases)
    return made
