from django.db import models
from django.db.models.expressions import RawSQL

# Raised by every write of a vector (a sequence: never rolled back, never reused), so that a
# process keeping the vectors in memory reads only those written since it last looked.
GENERATION_SEQUENCE = "meaning_casemeaning_generation"


def next_generation():
    return RawSQL(f"nextval('{GENERATION_SEQUENCE}')", [])


class CaseMeaning(models.Model):
    """The sentence vector of a case's texts in `language` (English: embedding.py).

    `vector` is the encoder's 512 float32 numbers (little-endian bytes). `untranslated`: the
    case lacks a Korean text of some part its English has. `version` is the case's version it
    was made from: a vector of an older version is stale, and the worker makes it again.
    """

    case = models.ForeignKey("cases.Case", models.CASCADE, related_name="meanings")
    language = models.CharField(max_length=2)
    version = models.PositiveIntegerField()
    vector = models.BinaryField(null=True)
    untranslated = models.BooleanField(default=False)
    generation = models.BigIntegerField(db_index=True)
    made_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["case", "language"], name="meaning_case_language"),
            models.CheckConstraint(
                condition=models.Q(language__in=["en", "ko"]), name="meaning_language_is_known"
            ),
        ]

    def __str__(self):
        return f"{self.case_id} ({self.language}, version {self.version})"
