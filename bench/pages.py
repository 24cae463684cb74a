"""Benchmark: the public pages under load (wrk, gunicorn), and the first answer after a write.

    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/pages.py --cases FILE
    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/pages.py --reuse
    .venv/bin/python bench/pages.py --database-url postgres://.../incidentlib_import_10000

e.g. FILE /tmp/bench-10k.jsonl, from `bench/generate.py 10000 /tmp/bench-10k.jsonl`; options
--duration 10 (seconds of wrk a page), --connections 4, --no-redis, --pages PATTERN (only the
pages whose name matches the regular expression, e.g. --pages 'case|one query'; the bare
view, which every ratio divides by, is always measured), --writes 3 (first answers a page).

Needs Debian's `wrk` (apt-get install wrk). The library is one of:
- --cases FILE: a fresh database <DATABASE_URL's name>_pages (dropped, created, migrated, the
  taxonomy loaded) into which import_cases loads FILE (e.g. from bench/generate.py);
- --reuse: that database as an earlier --cases run left it;
- --database-url URL: any loaded database (bench/import.py keeps its own).
The last two are migrated first, in case the checkout has new migrations.

Serves the checkout with gunicorn in production mode (DEBUG=0, a random SECRET_KEY, no https
redirect, plain static file names, Redis database 15 (or BENCH_REDIS_URL) as the cache unless
--no-redis; 2 sync workers on 127.0.0.1 and a free port), with bench/settings.py: the
project's settings plus /bench/bare (no database) and /bench/one-query (one SELECT 1), the
floor of any page.

Then, for each page (real ids, slugs and words picked from the database):
1. `wrk -t2 -c<connections> -d<duration>s --latency -s bench/wrk_report.lua URL`: requests a
   second, p50/p95/p99 latency, responses of 400 or more, and requests a second as a fraction
   of /bench/bare's measured just before it, for as long (on a machine shared with other work
   the load drifts over a run: against one bare figure taken at the start, two cached pages
   that do the same work came out at 0.45 and 0.85); --bare-once measures it only at the start;
2. first answer after a write: a case's title_en is changed through Django's ORM in this
   process (the database then invalidates every cached page), then one GET of the page is
   timed; three times (--writes), the slowest kept, with the statuses.

Compare the ratios of one run, not seconds across runs or machines. gunicorn is stopped at the
end, also on errors and Ctrl-C.
"""

import argparse
import os
import re
import secrets
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from common import ROOT, fresh_database, manage

BENCH = ROOT / "bench"
WRK_SCRIPT = BENCH / "wrk_report.lua"
TAXONOMY = ROOT / "fixtures" / "taxonomy.json"
BARE = "bare view"


# --- The library and what to ask for -----------------------------------------------------------


def library_url(args):
    """The URL of the database to serve, loaded with --cases when asked to."""
    if args.database_url:
        manage(args.database_url, "migrate", "--no-input", "-v", "0")
        return args.database_url
    if not os.environ.get("DATABASE_URL"):
        sys.exit("DATABASE_URL is not set: give --database-url or run me through localdb.")
    if args.cases:
        url = fresh_database("pages")
        manage(url, "migrate", "--no-input", "-v", "0")
        manage(url, "load_taxonomy", str(TAXONOMY), "-v", "0")
        started = time.perf_counter()
        manage(url, "import_cases", args.cases, "-v", "0")
        print(f"imported {args.cases} in {time.perf_counter() - started:.1f} s", flush=True)
        return url
    if args.reuse:
        url = urlsplit(os.environ["DATABASE_URL"])
        name = f"{url.path.lstrip('/') or 'incidentlib'}_pages"
        url = urlunsplit(url._replace(path="/" + name))
        manage(url, "migrate", "--no-input", "-v", "0")
        return url
    sys.exit("Say which library to serve: --cases FILE, --reuse or --database-url URL.")


def server_env(database_url, redis):
    """The production environment gunicorn runs in (and this process, for its ORM writes)."""
    alphabet = string.ascii_letters + string.digits
    name = urlsplit(database_url).path.lstrip("/")
    return {
        "DEBUG": "0",
        "SECRET_KEY": "".join(secrets.choice(alphabet) for _ in range(60)),
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_COOKIES": "0",
        "STATIC_MANIFEST": "0",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": database_url,
        # Each run its own keys, so that no page cached by an earlier run (of another
        # database, perhaps) is served; they expire soon after.
        "CACHE_KEY_PREFIX": f"bench-{name}-{secrets.token_hex(4)}",
        "CACHE_SECONDS": "900",
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
        if redis
        else "",
    }


def search_module():
    try:
        from cases.listing import search
    except ImportError:
        from cases import search
    return search


def rare_word(cases, default):
    """Of the names in the titles of a few cases (capitalised words after the first: code
    names, organisations, places), the one the fewest cases match, at least one."""
    if default:
        return default
    from cases.models import Case

    matching = search_module().matching
    candidates = set()
    for title in cases.order_by("id").values_list("title_en", flat=True)[:10]:
        candidates.update(re.findall(r"(?<=\s)[A-Z][a-z]{4,}\b", title))
    counts = {word: matching(Case.objects.order_by(), word).count() for word in candidates}
    counts = {word: count for word, count in counts.items() if count}
    return min(sorted(counts), key=counts.get) if counts else "storage"


def pick_targets(args):
    """Real ids, slugs and words from the library the pages are asked about."""
    from django.db.models import Count

    from cases.models import Case, Organisation, Source, Term

    # Only the columns needed: a database migrated by an older checkout may lack others.
    cases = Case.objects.only("id", "title_en")
    reviewed = cases.filter(reviewed_at__isnull=False).exclude(title_ko=None)
    case = reviewed.exclude(title_ko="").order_by("-date", "id").first()
    case = case or cases.order_by("-date", "id").first()
    if case is None:
        sys.exit("The library is empty: load it with --cases FILE.")
    term = (
        Term.objects.filter(facet="domain")
        .annotate(uses=Count("case_links"))
        .order_by("-uses", "slug")
        .first()
    )
    org = Organisation.objects.annotate(uses=Count("cases")).order_by("-uses", "slug").first()
    symptom = (
        Term.objects.filter(facet="symptoms")
        .annotate(uses=Count("case_links"))
        .order_by("-uses", "slug")
        .first()
    )
    # The address most cases cite: the largest page of /sources/.
    source = (
        Source.objects.values("url").annotate(uses=Count("id")).order_by("-uses", "url").first()
    )
    return {
        "case": case.id,
        "case_title": case.title_en,
        "domain": term.slug,
        "org": org.slug,
        "symptom": symptom.slug,
        "source": source["url"] if source else "https://example.com/",
        "rare": rare_word(cases, args.rare_word),
        "phrase": args.phrase,
        "word": args.word,
    }


def pages(t):
    """(name, path) of every page measured."""

    def q(path, **params):
        return f"{path}?{urlencode(params, quote_via=quote)}"

    return [
        (BARE, "/bench/bare"),
        ("one query view", "/bench/one-query"),
        ("case, en", q(f"/cases/{t['case']}", lang="en")),
        ("case, ko", q(f"/cases/{t['case']}", lang="ko")),
        ("case JSON", f"/cases/{t['case']}.json"),
        ("home", "/"),
        ("list", "/cases/"),
        ("list, page 50", "/cases/?page=50"),
        ("list, 2 filters", q("/cases/", severity="high", domain=t["domain"])),
        (
            "list, 3 filters",
            q("/cases/", severity="high", domain=t["domain"], symptoms=t["symptom"]),
        ),
        ("list, org", q("/cases/", org=t["org"])),
        ("list, org + filter", q("/cases/", org=t["org"], severity="high")),
        ("list, ko", q("/cases/", lang="ko")),
        ("list, by date", q("/cases/", sort="date")),
        ("search storage", q("/cases/", q="storage")),
        ("search rare word", q("/cases/", q=t["rare"])),
        ("search phrase", q("/cases/", q=f'"{t["phrase"]}"')),
        ("search Korean", q("/cases/", q="스토리지")),
        # A verb in the past (its fused forms too: 머무르, 머물렀, 머물러) and a compound (its
        # nouns written apart too, a phrase: 서비스 장애), each in many generated cases.
        ("search Korean verb", q("/cases/", q="머물렀다")),
        ("search Korean compound", q("/cases/", q="서비스장애")),
        ("search + filter", q("/cases/", q=t["word"], severity="high")),
        # A reader's description (issue 32): 8 to 12 words, about half of them common.
        (
            "search long",
            q("/cases/", q=f"storage timeout after the deploy {t['rare']} caused errors in region"),
        ),
        (
            "search long Korean",
            q("/cases/", q="배포 후 스토리지 서비스장애 때문에 요청이 계속 실패함"),
        ),
        ("taxonomy", "/taxonomy/"),
        ("term", f"/taxonomy/domain/{t['domain']}/"),
        ("orgs", "/orgs/"),
        ("org", f"/orgs/{t['org']}/"),
        ("feed", "/feed/"),
        ("api", "/api/cases/"),
        ("api, filtered", "/api/cases/?severity=high"),
        ("sitemap", "/sitemap.xml"),
        ("diagnose", q("/diagnose/", symptoms=t["symptom"], q=t["word"])),
        ("stats", "/stats/"),
        ("sources", q("/sources/", url=t["source"])),
    ]


# --- The server -------------------------------------------------------------------------------


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a 3xx is an answer to report, not to follow


OPENER = urllib.request.build_opener(NoRedirect)


def get(base, path, timeout=120):
    """(status, body, wall ms) of one GET, redirects not followed."""
    started = time.perf_counter()
    try:
        with OPENER.open(base + path, timeout=timeout) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    return status, body, (time.perf_counter() - started) * 1000


class Gunicorn:
    """gunicorn serving the checkout with bench.settings; a context manager that stops it."""

    def __init__(self, env, workers):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile("w+", prefix="bench-gunicorn-", suffix=".log")
        pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        command = [
            sys.executable, "-m", "gunicorn", "incidentlib.wsgi:application",
            "--workers", str(workers), "--worker-class", "sync",
            "--bind", f"127.0.0.1:{self.port}", "--timeout", "300",
            "--log-level", "warning", "--error-logfile", self.log.name, "--capture-output",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={
                **os.environ,
                **env,
                "DJANGO_SETTINGS_MODULE": "bench.settings",
                "PYTHONPATH": pythonpath,
            },
            start_new_session=True,  # Ctrl-C reaches us; we stop it
        )

    def __enter__(self):
        try:
            return self.wait_until_ready()
        except BaseException:
            self.__exit__()
            raise

    def wait_until_ready(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited at start:\n{self.log_tail()}")
            try:
                if get(self.base, "/bench/bare", timeout=2)[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer within 60 s:\n{self.log_tail()}")

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()

    def log_lines(self):
        self.log.seek(0)
        return self.log.readlines()

    def log_tail(self, lines=30):
        return "".join(self.log_lines()[-lines:])


# --- Measuring --------------------------------------------------------------------------------


def run_wrk(url, duration, connections):
    command = [
        "wrk", f"-t{min(2, connections)}", f"-c{connections}", f"-d{duration}s",
        "--latency", "-s", str(WRK_SCRIPT), url,
    ]  # fmt: skip
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    line = next(line for line in output.splitlines() if line.startswith("WRK "))
    return {key: float(value) for key, value in (pair.split("=") for pair in line.split()[1:])}


def sitemap_section(base):
    """The path of the sitemap's first section, when /sitemap.xml answers an index."""
    status, body, _ms = get(base, "/sitemap.xml")
    text = body.decode("utf-8", "replace")
    if status != 200 or "<sitemapindex" not in text:
        return None
    match = re.search(r"<loc>\s*([^<\s]+)\s*</loc>", text)
    if not match:
        return None
    section = urlsplit(match.group(1).replace("&amp;", "&"))
    return section.path + (f"?{section.query}" if section.query else "")


def first_answers(base, path, case_id, title, writes):
    """(wall ms, status) of the first GET of the page after each of a few writes."""
    from cases.models import Case

    answers = []
    for _ in range(writes):
        stamp = secrets.token_hex(3)
        Case.objects.filter(id=case_id).update(title_en=f"{title} (bench write {stamp})")
        status, _body, ms = get(base, path)
        answers.append((ms, status))
    return answers


def wanted(args, name):
    return name == BARE or args.pages is None or bool(args.pages.search(name))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--cases", metavar="FILE", help="load FILE into a fresh bench database")
    source.add_argument("--reuse", action="store_true", help="serve the last --cases database")
    source.add_argument("--database-url", help="serve this (migrated, loaded) database")
    parser.add_argument("--duration", type=int, default=10, help="seconds of wrk per page")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    parser.add_argument("--no-redis", action="store_true", help="each worker's memory as cache")
    parser.add_argument("--word", default="timeout", help="word searched with a filter")
    parser.add_argument("--phrase", default="load balancer", help="phrase searched in quotes")
    parser.add_argument("--rare-word", help="default: the rarest name in a few titles")
    parser.add_argument(
        "--pages",
        type=re.compile,
        metavar="PATTERN",
        help="only the pages whose name matches (a regular expression); the bare view always",
    )
    parser.add_argument("--writes", type=int, default=3, help="first answers timed a page")
    parser.add_argument(
        "--bare-once", action="store_true", help="the bare view measured at the start only"
    )
    args = parser.parse_args()
    # A SIGTERM (localdb passes its own on) stops us as Ctrl-C does: gunicorn stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install wrk")

    database_url = library_url(args)
    env = server_env(database_url, redis=not args.no_redis)
    os.environ.update(env, DJANGO_SETTINGS_MODULE="incidentlib.settings")
    import django

    django.setup()
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        cursor.execute(
            "SELECT current_setting('shared_buffers'), pg_size_pretty(pg_database_size("
            "current_database())), pg_database_size(current_database()) > "
            "(SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers')"
        )
        buffers, size, larger = cursor.fetchone()
    targets = pick_targets(args)
    print(f"library: {database_url} ({size}; PostgreSQL's shared_buffers: {buffers})")
    if larger:
        print(
            "  warning: the library is larger than shared_buffers: first answers will read "
            "from disk where the kernel keeps little page cache (docs/deploying.md)"
        )
    print("picked: " + ", ".join(f"{k}={v!r}" for k, v in targets.items() if k != "case_title"))
    print(f"server: gunicorn, {args.workers} sync workers, cache: {env['REDIS_URL'] or 'memory'}")

    from cases.models import Case

    measured = {}
    try:
        with Gunicorn(env, args.workers) as server:
            todo = pages(targets)
            section = sitemap_section(server.base) if wanted(args, "sitemap section") else None
            if section:
                todo.append(("sitemap section", section))
            todo = [(name, path) for name, path in todo if wanted(args, name)]
            print(f"\nwrk: {args.duration} s a page, {args.connections} connections", flush=True)
            bare = None
            for name, path in todo:
                if bare is None or not (args.bare_once or name == BARE):
                    bare = run_wrk(server.base + "/bench/bare", args.duration, args.connections)
                status = get(server.base, path)[0]
                stats = (
                    bare
                    if name == BARE
                    else run_wrk(server.base + path, args.duration, args.connections)
                )
                measured[name] = (path, status, stats, bare["rps"])
                print(
                    f"  {name:<18} {status} {stats['rps']:>9.1f} req/s, bare beside it "
                    f"{bare['rps']:>9.1f}  {path}",
                    flush=True,
                )

            print("\nfirst answers after a write ...", flush=True)
            after_write = {}
            for name, path in todo:
                after_write[name] = first_answers(
                    server.base, path, targets["case"], targets["case_title"], args.writes
                )
            if server.process.poll() is not None:
                print(f"gunicorn died:\n{server.log_tail()}")
            errors_logged = server.log_lines()
    finally:
        Case.objects.filter(id=targets["case"]).update(title_en=targets["case_title"])

    print(
        f"\n{'page':<18} {'status':>6} {'req/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} "
        f"{'errors':>7} {'x bare':>7} {'bare req/s':>10} {'after write: max ms':>20} "
        f"{'statuses':>12}"
    )
    for name, (_path, status, stats, bare) in measured.items():
        answers = after_write[name]
        statuses = "/".join(sorted({str(s) for _ms, s in answers}))
        errors = int(stats["errors"] + stats["socket_errors"])
        print(
            f"{name:<18} {status:>6} {stats['rps']:>9.1f} {stats['p50']:>8.1f} "
            f"{stats['p95']:>8.1f} {stats['p99']:>8.1f} {errors:>7} "
            f"{stats['rps'] / bare:>7.3f} {bare:>10.1f} {max(ms for ms, _s in answers):>20.1f} "
            f"{statuses:>12}"
        )
    print("\npaths:")
    for name, (path, _status, _stats, _bare) in measured.items():
        print(f"  {name:<18} {path}")
    not_found = sum(line.startswith("Not Found:") for line in errors_logged)
    others = [line for line in errors_logged if not line.startswith("Not Found:")]
    if not_found:
        print(f"\ngunicorn's log: {not_found} 'Not Found' lines")
    if others:
        print("\ngunicorn's log (the last other lines):\n" + "".join(others[-40:]))


if __name__ == "__main__":
    main()
