"""Health endpoints, JSON, never cached.

- `/healthz`: the process answers (for the container's HEALTHCHECK and a load balancer's
  liveness probe). It reads nothing: a database that is away does not make it fail.
- `/readyz`: the process can serve: its database answers a query, its cache a set and a
  get, and its static files were collected (without their manifest every page is a 500).
  200 `{"status": "ok", "checks": {"database": "ok", "cache": "ok", "static": "ok"}}`, else
  503 naming what is down (`"static": "down: ..."`). Pages are still served without the cache, only
  slower; an operator watches `/readyz` to learn that either is away. Each read replica in
  use is checked too: one that is skipped is named (`"replica_1": "skipped: ..."`) with
  `"status": "degraded"` and a 200, since the primary serves its reads meanwhile.
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


# What /readyz checks, by the name its answer gives.
CHECKS = {"database": _database, "cache": _cache, "static": _static}


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
    """The database and the cache answer; 503 naming each that does not."""
    results = {}
    for name, check in CHECKS.items():
        try:
            check()
            results[name] = "ok"
        except Exception as error:  # any failure of a dependency is "down", with why
            logger.warning("readyz: %s is down", name, exc_info=True)
            results[name] = _problem(error)
    down = [name for name, result in results.items() if result != "ok"]
    # Replicas (incidentlib/routers.py), checked afresh: one that is skipped is named, but the
    # answer stays 200 ("degraded"), since its reads go to the primary and readers see no
    # error; a 503 would take every app server out of a balancer for it.
    skipped = False
    for alias in settings.INCIDENTLIB_REPLICAS:
        routers.health.forget(alias)
        usable = routers.health.usable(alias)
        results[alias] = "ok" if usable else f"skipped: {routers.health.problems().get(alias)}"
        skipped = skipped or not usable
    status = "down" if down else "degraded" if skipped else "ok"
    return JsonResponse({"status": status, "checks": results}, status=503 if down else 200)
