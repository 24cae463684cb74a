"""Benchmark: how well the library finds what a reader describes, in English, in Korean, and
in Korean for cases that have only English text (issue 32).

    .venv/bin/python bench/search_quality.py [--misses]

The corpus is the real cases of fixtures/cases/ and bench/search_quality/cases/ (well-known
public incidents, some with no Korean text at all, some with Korean for only some texts);
bench/search_quality/queries.json holds queries written as an engineer in the middle of an
incident would type them, each with the cases that answer it (the one it was written for
first); held_out.json (--queries) holds 40 more, written by a helper who saw only the cases,
not the search's code, its glossary or the other queries. The command makes its own database
(<DATABASE_URL's name>_search_quality, or one in the embedded PostgreSQL of
incidentlib/localdb.py when DATABASE_URL is unset), migrates it,
loads the taxonomy and imports the corpus with `import_cases`, runs ANALYZE, then asks each
query of:

- the search box: `/cases/?q=` through Django's test client, the case ids read from the
  page in the order shown (`/api/cases/?q=` is checked to give the same order);
- `/diagnose/?q=`, likewise;
- a BM25 baseline (bm25s) over the same texts of each case, both languages in one document:
  English words lowercased, stop words dropped, Snowball-stemmed (PyStemmer); Korean as
  kiwipiepy's content morphemes.

It prints one table: per system and group (English; Korean; Korean queries whose right case
has no Korean text), success@5 (a right case among the first five), MRR@10 and how many
queries got no result at all. --misses lists each query whose right case is not in the first
five. Pages are asked in the query's language (Accept-Language).

A test can load the same corpus into its own database with `load_corpus()`.
"""

import argparse
import io
import json
import logging
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HERE = ROOT / "bench" / "search_quality"
CASE_DIRS = [ROOT / "fixtures" / "cases", HERE / "cases"]
TAXONOMY = ROOT / "fixtures" / "taxonomy.json"
QUERIES = HERE / "queries.json"
TEXT_FIELDS = ("title", "summary", "trigger", "detection", "symptoms_text", "lessons")
GROUPS = (
    ("English", lambda q: q["language"] == "en"),
    ("Korean", lambda q: q["language"] == "ko" and not q["cross"]),
    ("Korean -> English-only", lambda q: q["cross"]),
)
SUCCESS_AT = 5
MRR_AT = 10
# The API's order is compared with the page's for every API_SAMPLE-th query (each costs a
# request as long as the page's).
API_SAMPLE = 4
CASE_ID = r"[A-Z][A-Z0-9]{0,9}-[0-9]{1,8}"


# --- the corpus -----------------------------------------------------------------------------


def corpus_files():
    return sorted(path for folder in CASE_DIRS for path in folder.glob("*.json"))


def corpus_cases():
    """Each case of the corpus as its exchange-format dict, by id."""
    cases = {}
    for path in corpus_files():
        case = json.loads(path.read_text(encoding="utf-8"))
        cases[case["id"]] = case
    return cases


def has_korean(case):
    return any((case[field]["ko"] or "").strip() for field in TEXT_FIELDS) or any(
        (item["text"]["ko"] or "").strip() for item in case["remediation"] + case["action_items"]
    )


def load_queries(cases=None, path=QUERIES):
    """The judged queries of `path`, checked against the corpus: every relevant id exists, and
    a query marked `cross` is Korean and its first case has no Korean text at all."""
    cases = cases if cases is not None else corpus_cases()
    queries = json.loads(Path(path).read_text(encoding="utf-8"))
    problems = []
    for number, query in enumerate(queries):
        where = f"{Path(path).name}[{number}] ({query.get('q')!r})"
        if set(query) != {"q", "language", "cross", "relevant"}:
            problems.append(f"{where}: needs exactly q, language, cross, relevant")
            continue
        if query["language"] not in ("en", "ko") or not query["relevant"]:
            problems.append(f"{where}: language must be en or ko, relevant not empty")
        unknown = [case_id for case_id in query["relevant"] if case_id not in cases]
        if unknown:
            problems.append(f"{where}: relevant names no case of the corpus: {unknown}")
        elif query["cross"] and (
            query["language"] != "ko" or has_korean(cases[query["relevant"][0]])
        ):
            problems.append(f"{where}: cross, but not Korean or its case has Korean text")
    if problems:
        raise SystemExit("\n".join(problems))
    return queries


def load_corpus(stdout=None):
    """Load the taxonomy and import the corpus into the current database (Django set up),
    then ANALYZE, as a fresh library would be after an import, and the worker's pass. What
    the commands say goes to `stdout` (a file-like object), or nowhere."""
    from django.core.management import call_command
    from django.db import connection

    stdout = stdout or io.StringIO()
    call_command("load_taxonomy", str(TAXONOMY), verbosity=0, stdout=stdout)
    call_command(
        "import_cases", *map(str, CASE_DIRS), "--strict-taxonomy", verbosity=0, stdout=stdout
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    # What the worker does after an import (meaning/tasks.py): the sentence vectors of the
    # texts that lack a translation, which searches across languages compare.
    from meaning.embedding import embed_stale

    embed_stale()


# --- the systems ----------------------------------------------------------------------------


def _ids_after(html, marker):
    """Case ids in page order: the first case link after each `marker`."""
    ids = []
    for chunk in html.split(marker)[1:]:
        found = re.search(rf'href="/cases/({CASE_ID})[/"?]', chunk)
        if found and found.group(1) not in ids:
            ids.append(found.group(1))
    return ids


class Pages:
    """The site's answers through Django's test client, in the query's language."""

    def __init__(self):
        from django.test import Client

        self.client = Client(SERVER_NAME="localhost")

    def get(self, path, query):
        response = self.client.get(path, {"q": query["q"]}, HTTP_ACCEPT_LANGUAGE=query["language"])
        if response.status_code != 200:
            raise SystemExit(f"{path}?q={query['q']!r} answered {response.status_code}")
        return response

    def search_box(self, query):
        return _ids_after(self.get("/cases/", query).content.decode(), 'class="case-row"')

    def api(self, query):
        return [case["id"] for case in self.get("/api/cases/", query).json()["results"]]

    def diagnose(self, query):
        html = self.get("/diagnose/", query).content.decode()
        return _ids_after(html, 'class="diagnosis-result"')


class BM25Baseline:
    """bm25s over each case's texts in both languages (English stemmed, Korean morphemes)."""

    KOREAN_TAGS = ("NNG", "NNP", "NR", "NP", "VV", "VA", "XR", "MAG", "SN", "SH")

    def __init__(self, cases):
        import bm25s
        import Stemmer
        from bm25s.stopwords import STOPWORDS_EN
        from kiwipiepy import Kiwi

        self.stemmer = Stemmer.Stemmer("english")
        self.stopwords = set(STOPWORDS_EN)
        self.kiwi = Kiwi()
        self.ids = list(cases)
        self.retriever = bm25s.BM25()
        documents = [self.tokens(self.text(case)) for case in cases.values()]
        self.retriever.index(documents, show_progress=False)

    @staticmethod
    def text(case):
        parts = [case["org"]]
        for language in ("en", "ko"):
            parts += [case[field][language] or "" for field in TEXT_FIELDS]
            parts += [item["text"][language] or "" for item in case["remediation"]]
            parts += [item["text"][language] or "" for item in case["action_items"]]
        return "\n".join(parts)

    def tokens(self, text):
        words = []
        for token in self.kiwi.tokenize(text):
            if token.tag == "SL":
                word = token.form.lower()
                if word not in self.stopwords:
                    words.append(self.stemmer.stemWord(word))
            elif token.tag.startswith(self.KOREAN_TAGS):
                words.append(token.form.lower())
        return words

    def search(self, query):
        tokens = self.tokens(query["q"])
        if not tokens:
            return []
        results, scores = self.retriever.retrieve(
            [tokens], k=min(MRR_AT, len(self.ids)), show_progress=False
        )
        return [self.ids[i] for i, score in zip(results[0], scores[0], strict=True) if score > 0]


# --- the measure ----------------------------------------------------------------------------


def measure(answers, queries):
    """success@5, MRR@10 and the number of empty answers, over `queries`."""
    hits = reciprocal = empty = 0
    for query in queries:
        ranked = answers[query["q"]]
        relevant = set(query["relevant"])
        first = next((rank for rank, i in enumerate(ranked[:MRR_AT], 1) if i in relevant), None)
        hits += first is not None and first <= SUCCESS_AT
        reciprocal += 1 / first if first else 0
        empty += not ranked
    count = len(queries)
    return {"n": count, "success": hits / count, "mrr": reciprocal / count, "empty": empty}


def table(rows):
    head = ("system", "queries", f"success@{SUCCESS_AT}", f"MRR@{MRR_AT}", "zero results")
    lines = [head, *rows]
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    out = []
    for number, line in enumerate(lines):
        out.append(
            "| " + " | ".join(str(v).ljust(w) for v, w in zip(line, widths, strict=True)) + " |"
        )
        if number == 0:
            out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)


def run(show_misses=False, queries_path=QUERIES):
    started = time.perf_counter()
    cases = corpus_cases()
    queries = load_queries(cases, queries_path)
    load_corpus()
    # One line a request would bury the table.
    for noisy in ("incidentlib.request", "bm25s"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    loaded = time.perf_counter()

    pages = Pages()
    baseline = BM25Baseline(cases)
    systems = {
        "search box /cases/?q=": pages.search_box,
        "/diagnose/?q=": pages.diagnose,
        "BM25 (bm25s)": baseline.search,
    }
    answers, seconds = {}, {}
    for name, ask in systems.items():
        start = time.perf_counter()
        answers[name] = {q["q"]: ask(q) for q in queries}
        seconds[name] = time.perf_counter() - start
    box = answers["search box /cases/?q="]
    sample = queries[::API_SAMPLE]
    api_differs = [q["q"] for q in sample if pages.api(q) != box[q["q"]]]

    rows = []
    for group, belongs in GROUPS:
        chosen = [q for q in queries if belongs(q)]
        for name in systems:
            m = measure(answers[name], chosen)
            rows.append(
                (
                    f"{group}: {name}",
                    m["n"],
                    f"{m['success']:.0%}",
                    f"{m['mrr']:.2f}",
                    f"{m['empty']} of {m['n']}",
                )
            )
    print(
        f"{len(cases)} cases ({sum(not has_korean(c) for c in cases.values())} with no Korean "
        f"text), {len(queries)} queries"
    )
    print(table(rows))
    print(
        f"/api/cases/?q= gives the page's order for {len(sample) - len(api_differs)} of "
        f"{len(sample)} queries (every {API_SAMPLE}th)"
        + (f"; differs for: {api_differs}" if api_differs else "")
    )
    if show_misses:
        for name in systems:
            for query in queries:
                ranked = answers[name][query["q"]][:SUCCESS_AT]
                if not set(ranked) & set(query["relevant"]):
                    print(f"miss {name}: {query['q']!r} wants {query['relevant']}, got {ranked}")
    asked = ", ".join(f"{name} {took:.1f} s" for name, took in seconds.items())
    print(f"corpus loaded in {loaded - started:.1f} s; all queries asked of {asked}")


# --- the database ---------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the queries each misses")
    parser.add_argument(
        "--queries",
        default=QUERIES,
        help="judged queries (default: queries.json; also "
        "held_out.json, written without seeing the search's code or glossary)",
    )
    args = parser.parse_args()

    # Development settings (no collected static files needed), every case public, and a
    # per-process cache: nothing a previous run left in Redis can answer.
    os.environ.setdefault("DEBUG", "1")
    os.environ["HIDE_DRAFTS"] = "0"
    os.environ.pop("REDIS_URL", None)
    server = None
    if not os.environ.get("DATABASE_URL"):
        from incidentlib import localdb

        server = localdb.start_embedded_server()
        os.environ["DATABASE_URL"] = server.get_uri(localdb.DATABASE_NAME)
    try:
        from bench.common import use_bench_database

        use_bench_database("search_quality")
        run(args.misses, args.queries)
    finally:
        if server is not None:
            from django.db import connections

            connections.close_all()
            server.cleanup()


if __name__ == "__main__":
    main()
