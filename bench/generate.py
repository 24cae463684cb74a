"""Generate realistic bilingual cases in the exchange format, for benchmarks.

    .venv/bin/python bench/generate.py N FILE [--seed 1] [--check]
    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/generate.py 100000 /tmp/b.jsonl

Writes N cases G-1 .. G-N to FILE: JSON Lines when FILE ends in .jsonl, else a JSON array
(one case a line). The output depends only on N and --seed: the same bytes every run. Cases
are streamed to the file one at a time, so memory stays flat whatever N is; 100,000 cases
(about 6 KB of JSON each) take well under a minute.

What the cases look like:
- English and Korean texts assembled from sentence templates, filled with technical terms
  whose frequency falls off like Zipf's law: "storage"/"스토리지" is in about 80% of the
  cases, the tail terms in well under 1%, and each case names an internal service (a code
  name such as "Varnok") that only a handful of cases share: rare words for search.
  Korean is missing (null, sometimes "") from some fields of some cases, and from every
  field of about 5% of them.
- min(2000, max(10, N // 50)) organisations (real names first: "Tarsnap", "crates.io",
  "TUI Airways", then made-up ones), a few of them with most of the cases.
- taxonomy slugs of fixtures/taxonomy.json, skewed; 1 to 4 sources, some shared by many
  cases; `related` to up to 3 earlier cases; about 5% recurrences of an earlier case (no
  loops, since they always point back); half the cases reviewed, half drafts; dates from
  2000 to 2026.

--check validates every case against cases/schema/case.schema.json (slow; for testing the
generator, not for benchmarks).

What the cases are made of has a module each: the words (bench/generate_words.py), the
sentence templates (bench/generate_sentences.py) and the organisations (bench/generate_orgs.py).
"""

import argparse
import datetime
import json
import random
import sys
import time
from itertools import accumulate, product
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))  # run as a script, or loaded from its file by a test

from generate_orgs import REAL_ORGS, organisations  # noqa: E402, F401 (a test reads REAL_ORGS)
from generate_sentences import (  # noqa: E402
    ACTION_ITEMS,
    DETECTION,
    IMPACT_SCOPES,
    LESSONS,
    REMEDIATION,
    SUMMARY,
    SYMPTOMS,
    TITLES,
    TRIGGERS,
)
from generate_words import (  # noqa: E402
    CODE_HEADS,
    CODE_MIDS,
    CODE_TAILS,
    REGIONS,
    TERM_PAIRS,
    TERM_WEIGHTS,
    english_forms,
    korean_forms,
)

TAXONOMY = ROOT / "fixtures" / "taxonomy.json"
SCHEMA = ROOT / "cases" / "schema" / "case.schema.json"

# --- The generator ---------------------------------------------------------------------------

REVIEWERS = ["rita", "seojun", "hana", "tom", "minji"]
WRITERS = ["session", "alex", "jkim", "curator", None]
SOURCE_KINDS = ["postmortem"] * 5 + ["blog"] * 3 + ["news"] * 3 + ["status-page", "paper", "talk"]
LICENSES = [None, None, "unknown", "CC BY 4.0", "CC BY-SA 4.0", "all rights reserved"]
NEWS_SITES = (
    "www.theregister.com arstechnica.com www.bleepingcomputer.com news.ycombinator.com "
    "www.zdnet.co.kr www.etnews.com www.bbc.co.uk/news techcrunch.com"
).split()
DATE_KINDS = ["occurred"] * 6 + ["detected", "reported", "published", "published"]
FIRST_DAY = datetime.date(2000, 1, 1).toordinal()
LAST_DAY = datetime.date(2026, 11, 30).toordinal()


def zipf_cum_weights(count, exponent):
    return list(accumulate(1 / rank**exponent for rank in range(1, count + 1)))


def duration(minutes):
    """ISO 8601 duration: 45 -> PT45M, 3060 -> P2DT3H."""
    days, rest = divmod(minutes, 1440)
    hours, minutes = divmod(rest, 60)
    time_part = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    return "P" + (f"{days}D" if days else "") + (f"T{time_part}" if time_part else "")


class Generator:
    def __init__(self, count, seed=1):
        self.count = count
        self.rng = rng = random.Random(seed)
        self.terms = [(english_forms(en), korean_forms(ko)) for en, ko in TERM_PAIRS]
        heads, mids, tails = CODE_HEADS.split(), CODE_MIDS.split(), CODE_TAILS.split()
        code_names = sorted(
            {h + m + t for h, m, t in product(heads, mids, tails)}
            | {h + m + m2 + t for h, m, m2, t in product(heads, mids, mids, tails)}
        )
        rng.shuffle(code_names)
        # About four cases per code name, whatever N (up to 88,000 cases: 22,000 names).
        code_names = code_names[: max(10, count // 4)]
        self.code_names = [(english_forms(name), korean_forms(name)) for name in code_names]
        self.orgs = organisations(min(2000, max(10, count // 50)), rng)
        self.org_weights = zipf_cum_weights(len(self.orgs), 1.0)
        self.last_case_of_org = {}
        self.facets = self.taxonomy(rng)
        self.shared_sources = [self.shared_source(k) for k in range(max(10, count // 20))]
        self.shared_weights = zipf_cum_weights(len(self.shared_sources), 0.8)

    @staticmethod
    def taxonomy(rng):
        """Each facet's slugs in a fixed random order, with Zipf-like cumulative weights."""
        facets = {}
        for term in json.loads(TAXONOMY.read_text(encoding="utf-8")):
            facets.setdefault(term["facet"], []).append(term["slug"])
        result = {}
        for facet, slugs in facets.items():
            if facet == "severity":
                slugs = ["high", "medium", "critical", "low", "unknown"]
            else:
                rng.shuffle(slugs)
            result[facet] = (slugs, zipf_cum_weights(len(slugs), 1.1))
        return result

    def shared_source(self, k):
        rng = self.rng
        site = NEWS_SITES[k % len(NEWS_SITES)]
        year = rng.randint(2000, 2026)
        words = "-".join(rng.choice(TERM_PAIRS)[0].replace(" ", "-").lower() for _ in range(3))
        return f"https://{site}/{year}/{rng.randint(1, 12):02d}/{words}-outage-{k}/"

    def pick_slugs(self, facet, low, high):
        slugs, weights = self.facets[facet]
        wanted = self.rng.randint(low, high)
        chosen = []
        while len(chosen) < wanted:
            (slug,) = self.rng.choices(slugs, cum_weights=weights)
            if slug not in chosen:
                chosen.append(slug)
        return chosen

    def fill(self, templates, count, slots, case_terms, cursor):
        """`count` sentences (English list, Korean list) from random templates; the terms of
        the case are used in turn, so each of them appears somewhere in the case."""
        rng, english, korean = self.rng, [], []
        en_slots, ko_slots = slots
        size = len(case_terms)
        for en, ko in rng.sample(templates, count):
            a_en, a_ko = case_terms[cursor[0] % size]
            b_en, b_ko = case_terms[(cursor[0] + 1) % size]
            cursor[0] += 2
            numbers = {
                "n": rng.randint(2, 400),
                "k": rng.randint(500, 90000),
                "m": rng.randint(2, 59),
                "h": rng.randint(1, 30),
                "pct": rng.randint(3, 99),
            }
            en_slots.update(numbers, a=a_en, b=b_en)
            ko_slots.update(numbers, a=a_ko, b=b_ko)
            english.append(en.format_map(en_slots))
            korean.append(ko.format_map(ko_slots))
        return english, korean

    def case(self, n):
        rng = self.rng
        org_index = rng.choices(range(len(self.orgs)), cum_weights=self.org_weights)[0]
        org, org_slug, domain = self.orgs[org_index]
        case_id = f"G-{n}"

        # The case's terms: each with its Zipf-like probability, at least three.
        case_terms = [t for t, p in zip(self.terms, TERM_WEIGHTS, strict=True) if rng.random() < p]
        while len(case_terms) < 3:
            extra = rng.choice(self.terms)
            if extra not in case_terms:
                case_terms.append(extra)
        rng.shuffle(case_terms)
        code_en, code_ko = rng.choice(self.code_names)
        region = rng.choice(REGIONS)
        day = FIRST_DAY + int((LAST_DAY - FIRST_DAY) * rng.random() ** 0.6)
        date = datetime.date.fromordinal(day)
        common = {
            "org": org,
            "region": region,
            "t": f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
            "ver": f"{rng.randint(1, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
        }
        slots = ({**common, "x": code_en}, {**common, "x": code_ko})
        cursor = [0]

        def text(templates, count, joiner=" ", paragraphs=1):
            en_parts, ko_parts = [], []
            for _ in range(paragraphs):
                en, ko = self.fill(templates, count, slots, case_terms, cursor)
                en_parts.append(" ".join(en))
                ko_parts.append(" ".join(ko))
            return joiner.join(en_parts), joiner.join(ko_parts)

        no_korean = rng.random() < 0.05

        def bilingual(pair, required=False):
            en, ko = pair
            if no_korean:
                ko = None
            else:
                r = rng.random()
                if r < 0.06:
                    ko = None
                elif r < 0.08 and not required:
                    ko = ""
            return {"en": en, "ko": ko}

        title = bilingual(text(TITLES, 1), required=True)
        summary = bilingual(text(SUMMARY, rng.randint(3, 5), "\n\n", paragraphs=3), True)
        trigger = bilingual(text(TRIGGERS, rng.randint(1, 2)))
        symptoms_text = bilingual(text(SYMPTOMS, rng.randint(2, 4), "\n\n", paragraphs=2))
        detection = bilingual(text(DETECTION, rng.randint(2, 3)))
        lessons = bilingual(text(LESSONS, rng.randint(2, 4)))
        remediation = [
            {"text": bilingual(text(REMEDIATION, 1), True)} for _ in range(rng.randint(2, 5))
        ]
        action_items = [
            {"text": bilingual(text(ACTION_ITEMS, 1), True)} for _ in range(rng.randint(1, 3))
        ]

        sources = []
        for index in range(rng.randint(1, 4)):
            if index and rng.random() < 0.5:
                (url,) = rng.choices(self.shared_sources, cum_weights=self.shared_weights)
            else:
                url = f"https://{domain}/blog/{date.year}/{code_en['w'].lower()}-{n}-{index}"
            if any(source["url"] == url for source in sources):
                continue
            archived = None
            if rng.random() < 0.3:
                archived = f"https://web.archive.org/web/{date:%Y%m%d}000000/{url}"
            sources.append(
                {
                    "url": url,
                    "kind": rng.choice(SOURCE_KINDS),
                    "license": rng.choice(LICENSES),
                    "archived": archived,
                }
            )

        related = []
        if n > 1:
            for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
                other = f"G-{rng.randint(max(1, n - 5000), n - 1)}"
                if other not in related:
                    related.append(other)
        recurrence_of = None
        if n > 1 and rng.random() < 0.05:
            recurrence_of = self.last_case_of_org.get(org_slug) or f"G-{rng.randint(1, n - 1)}"
        self.last_case_of_org[org_slug] = case_id

        detected = rng.choice((None, rng.randint(1, 240)))
        resolved = rng.choice((None, (detected or 0) + rng.randint(10, 4000)))
        review_day = min(day + rng.randint(1, 400), LAST_DAY)
        reviewed = rng.random() < 0.5
        reviewed_at = (
            f"{datetime.date.fromordinal(review_day)}T{rng.randint(0, 23):02d}:"
            f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
        )
        updated_day = min(review_day + rng.randint(0, 30), LAST_DAY + 1)
        updated_at = (
            f"{datetime.date.fromordinal(updated_day)}T{rng.randint(0, 23):02d}:"
            f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999999):06d}Z"
        )
        impact_slots = {
            "x": code_en["w"],
            "a": case_terms[0][0]["w"],
            "region": region[0],
            "pct": rng.randint(3, 99),
            "k": rng.randint(100, 100000),
        }
        docs = []
        if rng.random() < 0.03:
            docs = [
                {
                    "kind": "timeline",
                    "entries": [
                        {"at": f"{date}T{hour:02d}:00:00Z", "text": f"step {hour}"}
                        for hour in range(rng.randint(1, 4))
                    ],
                }
            ]
        return {
            "id": case_id,
            "org": org,
            "org_slug": org_slug,
            "date": date.isoformat(),
            "date_kind": rng.choice(DATE_KINDS),
            "title": title,
            "summary": summary,
            "trigger": trigger,
            "symptoms_text": symptoms_text,
            "detection": detection,
            "lessons": lessons,
            "impact": {
                "scope": rng.choice(IMPACT_SCOPES).format_map(impact_slots)
                if rng.random() < 0.8
                else None,
                "users": rng.choice(("unknown", f"about {impact_slots['k']} users", None)),
                "region": rng.choice((region[0], "global", "unknown", None)),
            },
            "severity": self.pick_slugs("severity", 1, 1)[0],
            "root_cause": self.pick_slugs("root_cause", 1, 1)[0],
            "domain": self.pick_slugs("domain", 1, 2),
            "symptoms": self.pick_slugs("symptoms", 1, 3),
            "components": self.pick_slugs("components", 1, 3),
            "contributing": self.pick_slugs("contributing", 0, 3),
            "timeline": {
                "detected_after": None if detected is None else duration(detected),
                "resolved_after": None if resolved is None else duration(resolved),
            },
            "remediation": remediation,
            "action_items": action_items,
            "sources": sources,
            "docs": docs,
            "related": related,
            "recurrence_of": recurrence_of,
            "review": {
                "written_by": rng.choice(WRITERS),
                "reviewed_by": rng.choice(REVIEWERS) if reviewed else None,
                "reviewed_at": reviewed_at if reviewed else None,
            },
            "updated_at": updated_at,
            "url": f"https://{domain}/incidents/{n}" if rng.random() < 0.6 else None,
        }

    def __iter__(self):
        for n in range(1, self.count + 1):
            yield self.case(n)


def write(count, path, seed=1):
    """Write `count` cases to `path` (.jsonl: JSON Lines, otherwise a JSON array)."""
    lines = path.suffix == ".jsonl"
    with open(path, "w", encoding="utf-8", buffering=1 << 20) as out:
        if not lines:
            out.write("[\n")
        for index, case in enumerate(Generator(count, seed)):
            if not lines and index:
                out.write(",\n")
            out.write(json.dumps(case, ensure_ascii=False))
            if lines:
                out.write("\n")
        if not lines:
            out.write("\n]\n")


def check(path):
    """Validate every case of `path` against the schema; print the first problems."""
    from jsonschema import Draft202012Validator

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    text = path.read_text(encoding="utf-8")
    cases = (
        [json.loads(line) for line in text.splitlines()]
        if path.suffix == ".jsonl"
        else json.loads(text)
    )
    bad = 0
    for case in cases:
        for error in validator.iter_errors(case):
            bad += 1
            if bad <= 10:
                print(f"{case.get('id')}: {list(error.absolute_path)}: {error.message}")
    print(f"checked {len(cases)} cases: {bad} problems")
    return bad == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, metavar="N")
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", action="store_true", help="validate every case afterwards")
    args = parser.parse_args()
    started = time.perf_counter()
    write(args.count, args.file, args.seed)
    seconds = time.perf_counter() - started
    size = args.file.stat().st_size
    print(
        f"{args.count} cases to {args.file} in {seconds:.1f} s: {size / 1e6:.1f} MB, "
        f"{size / max(args.count, 1) / 1000:.1f} KB a case"
    )
    if args.check and not check(args.file):
        sys.exit(1)


if __name__ == "__main__":
    main()
