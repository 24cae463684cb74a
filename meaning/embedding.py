"""What of a case is embedded, and the pass that makes stale vectors anew.

A case's vector embeds its English texts (the English title and summary every case has, and
its other English texts), which the multilingual encoder places near a Korean or an English
search that says the same thing. Beside it, whether the case lacks a Korean translation of
some part its English has (`untranslated`): a draft from an English source lacks it all, a
case's Korean may lack its lessons. A Korean search cannot find such a part by its words; it
finds it by meaning (nearest.py).

The worker runs `embed_stale` after every write (tasks.py); a vector made from an older
version of its case is stale, so that nothing is left out, whatever wrote the case.
"""

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Prefetch

from cases.models import BILINGUAL_FIELDS, Case, Library, RemediationStep
from meaning import encoder
from meaning.models import GENERATION_SEQUENCE, CaseMeaning

# The texts embedded, in this order, and how many characters of them at most: the encoder
# reads a text's first few hundred words, and the start of a case says what it is about.
EMBEDDED = ("title", "summary", "symptoms_text", "trigger", "detection", "lessons")
MAX_CHARACTERS = 2000
# Cases embedded in one transaction.
BATCH = 32


def embedded_text(case):
    """The English texts of a case that its vector embeds, joined."""
    texts = [getattr(case, f"{name}_en") for name in EMBEDDED]
    return "\n".join(text for text in texts if text)[:MAX_CHARACTERS]


def untranslated(case):
    """Whether the case lacks a Korean text of some part its English has."""
    steps = [(step.text_en, step.text_ko) for step in case.remediation_steps.all()]
    fields = [(getattr(case, f"{n}_en"), getattr(case, f"{n}_ko")) for n in BILINGUAL_FIELDS]
    return any(english and not korean for english, korean in fields + steps)


def stale():
    """The cases whose vector is missing or was made from an older version."""
    made = CaseMeaning.objects.filter(case=OuterRef("pk"), version=OuterRef("version"))
    return Case.objects.filter(~Exists(made))


def embed(cases):
    """Make and store the vectors of these cases (one transaction)."""
    vectors = encoder.encode([embedded_text(case) for case in cases])
    values = [
        (case.pk, "en", case.version, encoder.to_bytes(vector), untranslated(case))
        for case, vector in zip(cases, vectors, strict=True)
    ]
    table = CaseMeaning._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(
            f"""INSERT INTO {table}
                       (case_id, language, version, vector, untranslated, generation, made_at)
                VALUES (%s, %s, %s, %s, %s, nextval('{GENERATION_SEQUENCE}'), now())
                ON CONFLICT (case_id, language) DO UPDATE
                SET version = EXCLUDED.version, vector = EXCLUDED.vector,
                    untranslated = EXCLUDED.untranslated,
                    generation = EXCLUDED.generation, made_at = EXCLUDED.made_at""",
            values,
        )
        # What searches find has changed: no cached list may show what they found before.
        Library.objects.raise_generation()
    return len(cases)


def embed_stale(limit=None):
    """Bring the stale vectors up to date, BATCH cases a transaction; how many were made.
    A case written meanwhile is stale again, and made again by the next pass."""
    made = 0
    steps = Prefetch("remediation_steps", queryset=RemediationStep.objects.order_by("position"))
    columns = [f"{name}_{language}" for name in BILINGUAL_FIELDS for language in ("en", "ko")]
    while limit is None or made < limit:
        size = BATCH if limit is None else min(BATCH, limit - made)
        cases = list(
            stale().order_by().only("id", "version", *columns).prefetch_related(steps)[:size]
        )
        if not cases:
            break
        made += embed(cases)
    return made
