-- wrk script for POST /api/auth/register: every request is a new email from a
-- new client address. The server believes X-Real-IP from a loopback peer, so
-- a fresh address per request keeps the register rate limit (5 per 15 min
-- per address) out of the measurement.
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local run, n = "", 0
function init(args)
  run = args[1] or tostring(os.time())
end

function request()
  n = n + 1
  local ip = string.format("10.%d.%d.%d", tid, math.floor(n / 256) % 256, n % 256)
  local body = string.format('{"email":"r%s-%d-%d@example.com","password":"correct horse battery"}', run, tid, n)
  return wrk.format("POST", "/api/auth/register",
    { ["Content-Type"] = "application/json", ["X-Real-IP"] = ip }, body)
end
