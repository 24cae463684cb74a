-- wrk script of bench/pages.py: at the end, one line it parses.
-- Latencies are in ms; errors counts responses with a status of 400 or more (wrk's own
-- count: 2xx and 3xx are not errors) and socket errors counts failed connections, reads,
-- writes and timeouts.
done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local socket_errors = summary.errors.connect + summary.errors.read
    + summary.errors.write + summary.errors.timeout
  io.write(string.format(
    "WRK requests=%d seconds=%.3f rps=%.2f p50=%.3f p95=%.3f p99=%.3f errors=%d socket_errors=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000,
    latency:percentile(99) / 1000, summary.errors.status, socket_errors))
end
