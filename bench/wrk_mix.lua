-- wrk script of bench/mixed.py: each thread walks the mix's paths (the file MIX_PATHS, one a
-- line; none: wrk's URL) from its own place, counts the answers' X-Cache, and at the end
-- one line it parses. Latencies are in ms; errors: responses of 400 or more; socket errors:
-- failed connections, reads, writes and timeouts.
local threads = {}
local counter = 1

setup = function(thread)
  thread:set("number", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

init = function(args)
  paths = {}
  local name = os.getenv("MIX_PATHS")
  if name and name ~= "" then
    for line in io.lines(name) do
      if line ~= "" then table.insert(paths, line) end
    end
  end
  -- Thread n starts at the n-th of eight equal parts of the list.
  position = 1 + math.floor((#paths / 8) * ((number - 1) % 8))
  hits, misses = 0, 0
end

request = function()
  if #paths == 0 then return wrk.format() end
  local path = paths[position]
  position = position % #paths + 1
  return wrk.format("GET", path)
end

response = function(status, headers, body)
  local state = headers["X-Cache"] or headers["x-cache"]
  if state == "hit" then hits = hits + 1 elseif state == "miss" then misses = misses + 1 end
end

done = function(summary, latency, requests)
  local total_hits, total_misses = 0, 0
  for _, thread in ipairs(threads) do
    total_hits = total_hits + thread:get("hits")
    total_misses = total_misses + thread:get("misses")
  end
  local seconds = summary.duration / 1e6
  local socket_errors = summary.errors.connect + summary.errors.read
    + summary.errors.write + summary.errors.timeout
  io.write(string.format(
    "WRK requests=%d seconds=%.3f rps=%.2f p50=%.3f p95=%.3f p99=%.3f errors=%d socket_errors=%d hits=%d misses=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000,
    latency:percentile(99) / 1000, summary.errors.status, socket_errors,
    total_hits, total_misses))
end
