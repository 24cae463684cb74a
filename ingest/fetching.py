"""Fetching a followed source's address safely (urllib3): SSRF refusals, limits, conditions.

- Only http and https. The host is resolved here, every address it resolves to must be a
  public one (not loopback, private, link-local such as the cloud metadata address
  169.254.169.254, multicast, reserved or unspecified), and the connection goes to the
  address checked, so that a second resolution cannot point elsewhere. Each redirect is
  checked the same way, at most MAX_REDIRECTS of them. A host named in INGEST_ALLOWED_HOSTS
  (its name or address as written in the URL) may be private: an intranet's, the tests'.
- A time-out for connecting and for each read (INGEST_TIMEOUT_SECONDS) and for the whole
  answer (three times that), a largest body (INGEST_MAX_BYTES, counted after
  decompression), and a User-Agent naming the project.
- `If-None-Match` / `If-Modified-Since` from the previous answer: a 304 reads nothing.

Every failure is a FetchError whose message says what went wrong in a curator's words.
"""

import ipaddress
import socket
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import urllib3
from django.conf import settings

USER_AGENT = (
    "incidentlib/0.1 (follows incident sources for review; +https://github.com/incidentlib)"
)
MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)


class FetchError(Exception):
    """A fetch that gave nothing to read; its message is for the source's last error."""


class Refused(FetchError):
    """An address (or a redirect's) that may not be fetched."""


@dataclass
class Answer:
    status: int  # 200 or 304
    body: bytes
    url: str  # after redirects
    etag: str = ""
    last_modified: str = ""
    content_type: str = ""


def _allowed_hosts():
    return {host.strip().lower().strip("[]") for host in settings.INGEST_ALLOWED_HOSTS}


def _public(address):
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def resolve(url):
    """(scheme, host, port, address to connect to) of `url`, or Refused saying why."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise Refused(f"{url}: only http:// and https:// addresses are fetched")
    host = (parts.hostname or "").lower()
    if not host:
        raise Refused(f"{url}: the address names no host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Refused(f"{url}: the port is not a number") from None
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise FetchError(f"{host}: the host name does not resolve ({error})") from None
    addresses = list(dict.fromkeys(info[4][0] for info in found))
    if host not in _allowed_hosts():
        private = [address for address in addresses if not _public(address)]
        if private:
            raise Refused(
                f"{host} is refused: it resolves to {private[0]}, a loopback, private, "
                "link-local or reserved address (INGEST_ALLOWED_HOSTS lists the hosts that "
                "may be fetched all the same)"
            )
    return parts.scheme, host, port, addresses[0]


def _pool(scheme, host, port, address, timeout):
    options = {"timeout": timeout, "retries": False, "maxsize": 1}
    if scheme == "https":
        return urllib3.HTTPSConnectionPool(
            address, port, server_hostname=host, assert_hostname=host, **options
        )
    return urllib3.HTTPConnectionPool(address, port, **options)


def fetch(url, *, etag="", last_modified="", accept="*/*"):
    """GET `url` (and its redirects): an Answer, 200 with the body or 304 without."""
    seconds = settings.INGEST_TIMEOUT_SECONDS
    deadline = time.monotonic() + 3 * seconds
    headers = {"User-Agent": USER_AGENT, "Accept": accept, "Accept-Encoding": "gzip, deflate"}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    for _hop in range(MAX_REDIRECTS + 1):
        scheme, host, port, address = resolve(url)
        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host_header = host if parts.port is None else f"{host}:{parts.port}"
        if ":" in host and not host_header.startswith("["):
            host_header = f"[{host}]" if parts.port is None else f"[{host}]:{parts.port}"
        pool = _pool(scheme, host, port, address, urllib3.Timeout(connect=seconds, read=seconds))
        try:
            response = pool.urlopen(
                "GET",
                target,
                headers={**headers, "Host": host_header},
                redirect=False,
                preload_content=False,
            )
        except urllib3.exceptions.TimeoutError:
            raise FetchError(f"{url}: no answer within {seconds} s (timed out)") from None
        except urllib3.exceptions.HTTPError as error:
            raise FetchError(f"{url}: could not connect ({_reason(error)})") from None
        try:
            if response.status in REDIRECTS:
                location = response.headers.get("Location")
                if not location:
                    raise FetchError(f"{url}: a redirect ({response.status}) without Location")
                url = urljoin(url, location)
                continue
            if response.status == 304:
                return Answer(304, b"", url, etag, last_modified)
            if response.status != 200:
                raise FetchError(f"{url}: the server answered {response.status} {response.reason}")
            body = _read(response, url, deadline)
            return Answer(
                200,
                body,
                url,
                etag=response.headers.get("ETag", ""),
                last_modified=response.headers.get("Last-Modified", ""),
                content_type=response.headers.get("Content-Type", ""),
            )
        finally:
            response.release_conn()
            pool.close()
    raise FetchError(f"{url}: more than {MAX_REDIRECTS} redirects")


def _read(response, url, deadline):
    limit = settings.INGEST_MAX_BYTES
    chunks, size = [], 0
    try:
        for chunk in response.stream(64 * 1024, decode_content=True):
            size += len(chunk)
            if size > limit:
                raise FetchError(
                    f"{url}: the answer is larger than {limit:,} bytes (INGEST_MAX_BYTES); "
                    "nothing of it was read"
                )
            if time.monotonic() > deadline:
                raise FetchError(f"{url}: the answer took too long to arrive (timed out)")
            chunks.append(chunk)
    except urllib3.exceptions.TimeoutError:
        raise FetchError(f"{url}: the answer stopped arriving (timed out)") from None
    except urllib3.exceptions.HTTPError as error:
        raise FetchError(f"{url}: the answer could not be read ({_reason(error)})") from None
    return b"".join(chunks)


def _reason(error):
    reason = getattr(error, "reason", None) or error
    return str(reason).split(": ", 1)[-1][:200]
