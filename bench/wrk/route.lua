-- wrk script for POST /v1/route (bench/run-wrk.sh runs it).
-- Cycles through PROMPTS prompts of BLOCKS precomputed block ids each (8000 tokens at block size
-- 16), each request with a distinct request_id. Prompt p = the shared system prefix of group
-- p % GROUPS (PREFIX blocks, ids group*1e6 + i) followed by its own suffix (ids 1e9 + p*1000 + i);
-- bench/wrk/Preload.java posts KV events for exactly these prompts, so the index holds them.
-- By default posts nothing else: requests leave in-flight state through routing.requestMaxAge.
--
-- FINISH=1 adds each request's `finished` event (POST /v1/requests/events); PROGRESS=n (implies FINISH)
-- also posts, before it, a `tokens` event every n output tokens of an output of OUTPUT tokens (default 343,
-- the Mooncake mean: 21 events at n = 16), as a gateway that proxies the output stream would. A request's
-- events start once wrk has its route's answer (a later request on another connection may overtake a stalled
-- one); each thread then sends cycles of one route and OUTPUT/n + 1 events, taking the requests answered in
-- turn, one event each, so at least MIN_ACTIVE requests lie between two events of one request.
-- In these modes max_tokens is OUTPUT.

local PROMPTS, GROUPS, BLOCKS, PREFIX = 256, 32, 500, 300
local BLOCK_SIZE, MAX_TOKENS = 16, 64

local PROGRESS = tonumber(os.getenv("PROGRESS") or "") or 0
local FINISH = PROGRESS > 0 or os.getenv("FINISH") == "1"
local OUTPUT = tonumber(os.getenv("OUTPUT") or "") or 343
local EVENTS = PROGRESS > 0 and math.floor(OUTPUT / PROGRESS) or 0 -- tokens events per request
local MIN_ACTIVE = 32
if FINISH then MAX_TOKENS = OUTPUT end

local bodies = {}
local counter = 0
local tag = "x"

local function prompt_ids(p)
  local g = p % GROUPS
  local ids = {}
  for i = 0, BLOCKS - 1 do
    if i < PREFIX then
      ids[#ids + 1] = tostring(g * 1000000 + i)
    else
      ids[#ids + 1] = tostring(1000000000 + p * 1000 + (i - PREFIX))
    end
  end
  return ids
end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  math.randomseed(os.time() + (tid or 0))
  tag = string.format("%x%x-%d", os.time(), math.random(0, 0xffff), tid or 0)
  for p = 0, PROMPTS - 1 do
    bodies[p + 1] = '{"input_tokens":' .. (BLOCKS * BLOCK_SIZE) .. ',"max_tokens":' .. MAX_TOKENS
        .. ',"block_hashes":[' .. table.concat(prompt_ids(p), ",") .. '],"request_id":"'
  end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

local function event(id, type, tokens)
  local body = '{"request_id":"' .. id .. '","type":"' .. type .. '"'
      .. (tokens and (',"tokens":' .. tokens) or "") .. "}"
  return wrk.format(nil, "/v1/requests/events", nil, body)
end

local function route_request(route)
  return wrk.format(nil, "/v1/route", nil, bodies[(route % PROMPTS) + 1] .. tag .. "-" .. route .. '"}')
end

-- With events: requests answered and not finished, each with the events sent so far; served in turn.
local active = {}
local turn = 1
local step = 0 -- 0: a route is next; 1 .. EVENTS + 1: events of this cycle sent so far + 1

local function lifecycle_request()
  if step == 0 or #active < MIN_ACTIVE then
    step = 1
    counter = counter + 1
    return route_request(counter)
  end
  step = step <= EVENTS and step + 1 or 0
  if turn > #active then
    turn = 1
  end
  local r = active[turn]
  r.sent = r.sent + 1
  if r.sent <= EVENTS then
    turn = turn + 1
    return event(r.id, "tokens", r.sent * PROGRESS)
  end
  table.remove(active, turn)
  return event(r.id, "finished", nil)
end

if FINISH then
  function response(status, headers, body)
    if status == 200 then
      local id = body:match('^{"request_id":"([^"]+)"')
      if id then
        active[#active + 1] = { id = id, sent = 0 }
      end
    end
  end
end

function request()
  if FINISH then
    return lifecycle_request()
  end
  counter = counter + 1
  return route_request(counter)
end
