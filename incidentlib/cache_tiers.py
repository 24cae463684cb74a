"""The page cache's two tiers: this process's own memory in front of the shared cache (Redis).

cases/caching.py keeps pages and counts under keys that name the library's generation, so a
copy is never stale wherever it is kept. `read()` looks in this process's memory first (the
`local` cache of settings.CACHES: least recently used entries go first), then in the shared
cache, and keeps what it finds there in its memory too; `keep()` writes both. So:

- a page this process has made or read is answered without a round trip to Redis;
- while Redis is away, each process serves what it already holds and makes afresh only what
  it never had (at 100,000 cases a list or a search takes 0.3 to 0.8 s to make: with every
  page made afresh by every worker at once, readers queued for more than 10 s);
- Redis restarted empty costs nothing for the pages the processes hold.

A failure of the shared cache (refused, or timed out after the socket timeouts of
settings.CACHES' OPTIONS) is logged with a warning, `cache unavailable`, and the shared
cache is then left alone for `CACHE_RETRY_SECONDS` (this process's memory only): a Redis
that is down, or that accepts connections and never answers, costs each process one failed
attempt per interval, not one or two per request. The first attempt that succeeds after a
failure logs `cache available again`.

Without Redis (`REDIS_URL` unset) the shared cache is itself this process's memory: one tier.
"""

import logging
import time
import weakref

from django.conf import settings
from django.core.cache import InvalidCacheBackendError, caches
from django.core.cache.backends.locmem import LocMemCache

try:
    from redis.exceptions import RedisError
except ImportError:  # no Redis client installed: only local memory is possible
    RedisError = OSError

logger = logging.getLogger(__name__)

# Failures of a shared cache: anything else (a value that cannot be pickled) is a bug, raised.
UNAVAILABLE = (RedisError, OSError)

# Shared cache backend -> time.monotonic() of its last failure. Keyed by the backend object,
# so that settings that change the caches (tests) start afresh.
_failed_at = weakref.WeakKeyDictionary()


def _tiers():
    """(this process's memory or None, the shared cache)."""
    shared = caches["default"]
    if isinstance(shared, LocMemCache):
        return None, shared
    try:
        return caches["local"], shared
    except InvalidCacheBackendError:
        return None, shared


def _may_try(shared):
    failed_at = _failed_at.get(shared)
    return (
        failed_at is None
        or time.monotonic() - failed_at >= settings.INCIDENTLIB_CACHE_RETRY_SECONDS
    )


def _failed(shared, doing, key, error):
    retry = settings.INCIDENTLIB_CACHE_RETRY_SECONDS
    first_line = (str(error).strip().splitlines() or [""])[0][:200]
    logger.warning(
        "cache unavailable (%s %s: %s: %s): this process's memory only for %s s",
        doing,
        key,
        type(error).__name__,
        first_line,
        retry,
    )
    _failed_at[shared] = time.monotonic()


def _answered(shared):
    if _failed_at.pop(shared, None) is not None:
        logger.warning("cache available again")


def read(key):
    """The value kept under `key`, from this process's memory, else the shared cache; None."""
    local, shared = _tiers()
    if local is not None:
        value = local.get(key)
        if value is not None:
            return value
    if not _may_try(shared):
        return None
    try:
        value = shared.get(key)
    except UNAVAILABLE as error:
        _failed(shared, "reading", key, error)
        return None
    _answered(shared)
    if value is not None and local is not None:
        local.set(key, value, settings.INCIDENTLIB_CACHE_SECONDS)
    return value


def keep(key, value):
    """Keep `value` under `key` in this process's memory and in the shared cache."""
    local, shared = _tiers()
    if local is not None:
        local.set(key, value, settings.INCIDENTLIB_CACHE_SECONDS)
    if not _may_try(shared):
        return
    try:
        shared.set(key, value, settings.INCIDENTLIB_CACHE_SECONDS)
    except UNAVAILABLE as error:
        _failed(shared, "writing", key, error)
    else:
        _answered(shared)
