"""Health endpoints, JSON, never cached.

- `/healthz`: the process answers (for the container's HEALTHCHECK and a load balancer's
  liveness probe). It reads nothing: a database that is away does not make it fail.
- `/readyz`: the process can serve: its database answers a query and its static files were
  collected (without their manifest every page is a 500). 200 `{"status": "ok", "checks":
  {"database": "ok", "static": "ok", "cache": "ok"}}`, else 503 naming what is down
  (`"static": "down: ..."`). The cache (a set and a get) and each read replica in use are
  checked too, but pages are still served without them (slower, or from the primary): one
  that is away is named (`"cache": "down: ..."`, `"replica_1": "skipped: ..."`) with
  `"status": "degraded"` and a 200. Redis is shared by every app server: a 503 for it would
  take all of them out of a balancer at once.
"""

import logging
import uuid

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from incidentlib import routers

logger = logging.getLogger(__name__)


def _database():
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT 1")


def _cache():
    key = f"readyz:{uuid.uuid4().hex}"
    cache.set(key, "1", 10)
    if cache.get(key) != "1":
        raise RuntimeError("a value just set was not read back")
    cache.delete(key)


def _static():
    """The manifest this process read when it started (collectstatic run after it started
    needs a restart, which pages need too)."""
    if isinstance(staticfiles_storage, ManifestFilesMixin) and not staticfiles_storage.hashed_files:
        raise RuntimeError("no static files manifest: run manage.py collectstatic, then restart")


# What /readyz checks, by the name its answer gives: without these, no page can be served.
CHECKS = {"database": _database, "static": _static}
# Without these, pages are still served, only slower: the answer says "degraded", with a 200
# (the cache is shared: a 503 would take every app server out of a balancer at once).
DEGRADING_CHECKS = {"cache": _cache}


def _problem(error):
    first_line = (str(error).strip().splitlines() or [""])[0][:200]
    return f"down: {type(error).__name__}" + (f": {first_line}" if first_line else "")


@never_cache
@require_safe
def healthz(request):
    """The process is alive."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_safe
def readyz(request):
    """The database answers and the static files are there, else 503 naming what is not; a
    cache or a replica that is away is named with a 200, "degraded"."""
    results = {}
    for name, check in (CHECKS | DEGRADING_CHECKS).items():
        try:
            check()
            results[name] = "ok"
        except Exception as error:  # any failure of a dependency is "down", with why
            logger.warning("readyz: %s is down", name, exc_info=True)
            results[name] = _problem(error)
    down = [name for name in CHECKS if results[name] != "ok"]
    degraded = any(results[name] != "ok" for name in DEGRADING_CHECKS)
    # Replicas (incidentlib/routers.py), checked afresh: one that is skipped is named, but the
    # answer stays 200 ("degraded"), since its reads go to the primary and readers see no
    # error; a 503 would take every app server out of a balancer for it.
    for alias in settings.INCIDENTLIB_REPLICAS:
        routers.health.forget(alias)
        usable = routers.health.usable(alias)
        results[alias] = "ok" if usable else f"skipped: {routers.health.problems().get(alias)}"
        degraded = degraded or not usable
    status = "down" if down else "degraded" if degraded else "ok"
    return JsonResponse({"status": status, "checks": results}, status=503 if down else 200)
