"""gunicorn for incidentlib: `gunicorn incidentlib.wsgi` reads this file from the checkout.

Sizing. A page is mostly waiting on PostgreSQL or Redis, and a sync worker answers one request
at a time: the default is 2 workers a CPU plus 1 (gunicorn's own advice), or WEB_CONCURRENCY.
Each worker holds one connection to the primary and one to each replica it reads
(DATABASE_CONN_MAX_AGE), so (app servers x workers x (1 + replicas)) must stay below each
server's max_connections (100 by default) with room for the admin and imports.

Every setting below is an environment variable (the same names as gunicorn's, upper case).
"""

import functools
import multiprocessing
import os
import shutil
import sys
import tempfile
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from incidentlib import environment
from incidentlib.logging_config import gunicorn_logging


def one_line(setting):
    """A setting read as the app's settings read it (incidentlib/environment.py), where
    gunicorn stops with one line naming it when it is wrong."""

    @functools.wraps(setting)
    def read(*args):
        try:
            return setting(*args)
        except ImproperlyConfigured as error:
            sys.exit(f"Error: {error}")

    return read


env_int = one_line(environment.env_int)
env_log_level = one_line(environment.env_log_level)


bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = env_int("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1)
worker_class = "sync"
# A request that takes longer is killed and answered 502 by the proxy: a page takes a second
# at worst (a cold search of 100,000 cases); the whole-library download streams for longer
# but sends all the time (the timeout counts silence, not the whole request).
timeout = env_int("GUNICORN_TIMEOUT", 30)
# On SIGTERM or SIGHUP (a deploy), requests under way get this long to finish.
graceful_timeout = env_int("GUNICORN_GRACEFUL_TIMEOUT", 30)
# Behind the proxy's keep-alive connections (deploy/nginx.conf: keepalive 32).
keepalive = env_int("GUNICORN_KEEPALIVE", 5)
# Each worker is replaced after about this many requests (memory that grows is given back),
# at different times thanks to the jitter, so that they never restart all at once. Not too
# often: a new worker starts without the pages its memory held in front of Redis
# (incidentlib/cache_tiers.py), its database connections and its replica verdicts. At 2,000,
# under bench/cluster.py's load (about 140 requests/s a worker) each was replaced every 14 s,
# and one that starts while Redis is away makes every page afresh.
max_requests = env_int("GUNICORN_MAX_REQUESTS", 20000)
max_requests_jitter = env_int("GUNICORN_MAX_REQUESTS_JITTER", 2000)
# Load Django once in the master: workers start fast and share its memory.
preload_app = os.environ.get("GUNICORN_PRELOAD", "1") == "1"
# No control socket (gunicornc): gunicorn puts every server's at the same path
# (~/.gunicorn/gunicorn.ctl), so two app servers on one host would take each other's.
control_socket_disable = True
# The proxy's X-Forwarded-* are believed from these addresses only.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")

# Logs: as the app's (incidentlib/logging_config.py: one JSON object a line, or text with
# DEBUG), on stderr. The app logs each request itself with more than an access log holds
# (queries, cache, database), so gunicorn's access log is off unless ACCESS_LOG=1.
ACCESS_LOG = os.environ.get("ACCESS_LOG", "0") == "1"
accesslog = "-" if ACCESS_LOG else None
errorlog = "-"
loglevel = env_log_level().lower()
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(D)s'  # atoms the JSON formatter reads


def debug():
    """DEBUG as the app reads it, for the log format's default. A wrong value is the app's
    to report (incidentlib/wsgi.py), in the same words as every setting of the app's."""
    try:
        return environment.env_bool("DEBUG", False)
    except ImproperlyConfigured:
        return False


def log_format():
    """LOG_FORMAT as the app reads it; a wrong value is the app's to report, as DEBUG's is
    (text meanwhile, as gunicorn wrote anything but json before)."""
    try:
        return environment.env_log_format(debug())
    except ImproperlyConfigured:
        return "text"


logconfig_dict = gunicorn_logging(log_format(), loglevel.upper(), ACCESS_LOG)

# Metrics: every worker writes its values to one folder, which the master's metrics server
# (METRICS_ADDRESS, not the public port) adds up.
# A folder made here is removed when the master exits (on_exit).
METRICS_DIR_MADE = None
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    METRICS_DIR_MADE = tempfile.mkdtemp(prefix="incidentlib-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = METRICS_DIR_MADE


def on_exit(server):
    if METRICS_DIR_MADE:
        shutil.rmtree(METRICS_DIR_MADE, ignore_errors=True)


def when_ready(server):
    from incidentlib import metrics  # after PROMETHEUS_MULTIPROC_DIR is set

    address = os.environ.get("METRICS_ADDRESS", "127.0.0.1:9464")
    if metrics.serve(address):
        server.log.info("metrics on http://%s/metrics", address)
    if server.cfg.preload_app:
        # The Korean query analyser (1 to 5 s and about 500 MB, bench/korean_search.py), once,
        # here: every worker forked from the master shares it, and a worker that replaces
        # one (max_requests, every few minutes under heavy load) takes requests at once
        # instead of loading it again. Kiwi starts no thread of its own, so a fork carries it.
        from cases.listing.korean import analyser
        from meaning.encoder import model

        analyser()
        server.log.info("Korean analyser loaded in the master")
        # The sentence encoder of searches across languages (meaning/encoder.py), likewise.
        model()
        server.log.info("sentence encoder loaded in the master")
        server.log.info("%d templates compiled in the master", compile_templates(server.log))


def compile_templates(log):
    """Compile the project's templates (templates/) in this process, as Django keeps them once
    compiled; the number compiled. In the master, before forking: a worker's first page of
    each kind otherwise compiled its templates first (a case page, about a dozen), and that
    page is often the first answer after a write. One that does not compile is left for its
    page to report."""
    from django.conf import settings
    from django.template import TemplateSyntaxError
    from django.template.loader import get_template

    compiled = 0
    for folder in settings.TEMPLATES[0]["DIRS"]:
        for path in sorted(Path(folder).rglob("*.html")):
            try:
                get_template(path.relative_to(folder).as_posix())
                compiled += 1
            except TemplateSyntaxError as error:
                log.warning("template %s not compiled: %s", path, error)
    return compiled


def child_exit(server, worker):
    from incidentlib import metrics

    metrics.mark_process_dead(worker.pid)


def post_worker_init(worker):
    """Without preload_app, each worker loads the Korean query analyser before it takes a
    request, so that no reader's first Korean search waits for it (count its memory per
    worker when sizing WEB_CONCURRENCY then); with it, the master has (when_ready). The
    same for the sentence encoder (meaning/encoder.py, about 150 MB)."""
    from cases.listing.korean import analyser
    from meaning.encoder import model

    analyser()
    model()
