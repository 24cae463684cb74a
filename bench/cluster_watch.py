"""What bench/cluster.py reads while it runs: the app servers' metrics and /readyz, nginx's
access log and the app servers' own logs, by phase."""

import datetime
import json
import re
import urllib.request
from pathlib import Path


def metrics(app_stack):
    """{(name, labels): value} summed over the app servers."""
    totals = {}
    for port in app_stack.metrics_ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
            text = answer.read().decode()
        for line in text.splitlines():
            match = re.match(r"^(incidentlib_[a-z_]+?)(?:_total)?(\{[^}]*\})? ([0-9.e+-]+)$", line)
            if match and (
                "database_reads" in match.group(1) or "replica_fallbacks" in match.group(1)
            ):
                key = (match.group(1), match.group(2) or "")
                totals[key] = totals.get(key, 0) + float(match.group(3))
    return totals


def reads(sample):
    def total(kind):
        return sum(v for (name, labels), v in sample.items() if f'database="{kind}"' in labels)

    fallbacks = sum(v for (name, _), v in sample.items() if "fallbacks" in name)
    return total("replica"), total("primary"), fallbacks


def readyz(app_stack):
    """Each app server's /readyz: [(status, body dict)]; (None, {"checks": {}, ...}) for one
    that does not answer within 10 s (its workers all busy: with Redis down at 100,000
    cases every reader's page is made anew, and /readyz waits behind them)."""
    from local_stack import get

    answers = []
    for number in range(len(app_stack.app_ports)):
        try:
            status, _headers, body = get(app_stack.app_base(number) + "/readyz", timeout=10)
        except OSError as error:
            answers.append((None, {"checks": {}, "no answer within 10 s": str(error)}))
        else:
            answers.append((status, json.loads(body)))
    return answers


def access_log_errors(path, phases):
    """{phase: (requests, errors, {status: count}, waits)} from nginx's JSON access log, by
    time. waits: {"499": requests the client gave up on (wrk closing its connections at the
    end, or its 10 s timeout), ">= 10 s": answers that took wrk's timeout or more, "p99 s"}."""
    counts = {name: [0, 0, {}, []] for name, _start, _end in phases}
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            when = datetime.datetime.fromisoformat(entry["time"]).timestamp()
            for name, start, end in phases:
                if start <= when < end:
                    status = int(entry["status"])
                    counts[name][0] += 1
                    counts[name][3].append((float(entry["duration_s"]), status))
                    if status >= 400 and status != 499:
                        counts[name][1] += 1
                        counts[name][2][status] = counts[name][2].get(status, 0) + 1
                    break
    for phase in counts.values():
        durations = sorted(seconds for seconds, _status in phase[3])
        phase[3] = {
            "499": sum(1 for _seconds, status in phase[3] if status == 499),
            ">= 10 s": sum(1 for seconds in durations if seconds >= 10),
            "p99 s": durations[int(len(durations) * 0.99)] if durations else None,
        }
    return counts


def app_log(folder):
    """The app servers' JSON log lines: [(time, entry)]."""
    entries = []
    for path in sorted(Path(folder).glob("app*.log")):
        for line in path.read_text(errors="replace").splitlines():
            try:
                entry = json.loads(line)
                when = datetime.datetime.fromisoformat(entry["time"]).timestamp()
            except (ValueError, KeyError, TypeError):
                continue
            entries.append((when, {**entry, "app": path.stem}))
    return entries


def app_phases(entries, phases):
    """Per phase, where the app servers' time went: requests, seconds spent answering, the
    slowest answers and the replica warnings by reason (first words)."""
    found = {}
    for name, start, end in phases:
        requests = [
            e for t, e in entries if start <= t < end and e.get("logger") == "incidentlib.request"
        ]
        busy = {}
        for entry in requests:
            key = (entry.get("view"), entry.get("cache"))
            seconds, count = busy.get(key, (0.0, 0))
            busy[key] = (seconds + entry.get("duration_ms", 0) / 1000, count + 1)
        reasons = {}
        for t, entry in entries:
            message = entry.get("message", "")
            if start <= t < end and "skipped:" in message:
                reason = re.sub(r"[0-9.]+", "N", message.split("skipped:", 1)[1].strip())[:70]
                reasons[reason] = reasons.get(reason, 0) + 1
        cache_down = sum(
            1
            for t, e in entries
            if start <= t < end and "cache unavailable" in e.get("message", "")
        )
        found[name] = {
            "requests": len(requests),
            "busy": sorted(busy.items(), key=lambda item: -item[1][0])[:6],
            "slowest": sorted(
                ((e.get("duration_ms", 0), e.get("view"), e.get("cache"), e.get("app"))
                 for e in requests), key=lambda slow: slow[0], reverse=True,
            )[:5],
            "skipped": reasons,
            "cache unavailable": cache_down,
        }  # fmt: skip
    return found


def warnings_logged(folder):
    found = {}
    patterns = {
        "replica skipped": "skipped:",
        "replica used again": "used again",
        "query failed on the replica": "failed under",
        "cache unavailable": "cache unavailable",
    }
    for path in sorted(Path(folder).glob("app*.log")):
        text = path.read_text(errors="replace")
        for name, pattern in patterns.items():
            found[name] = found.get(name, 0) + text.count(pattern)
    return found
