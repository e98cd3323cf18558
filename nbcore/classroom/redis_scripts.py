"""The Lua scripts of the class store in Redis: every step that reads then writes, each run as one script on the
server so that replicas on several machines see one order of events. The keys they use: ``redis_store``.
"""

# every class script: KEYS = class hash, nblab:classes, nblab:open; ARGV starts with code, now, keep-after-end
PRELUDE = """
local code, now, keep_after = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local class_key, classes_key, open_key = KEYS[1], KEYS[2], KEYS[3]
local function number(value) return string.format('%.17g', value) end
local function state()
  local found = redis.call('HMGET', class_key, 'expires_at', 'ended_at', 'period')
  if not found[1] then return 'missing', 0 end
  local expires_at, period = tonumber(found[1]), tonumber(found[3] or 1)
  local ended_at = found[2] and tonumber(found[2])
  if not ended_at and expires_at > now then return 'open', period end
  if (ended_at or expires_at) + keep_after <= now then return 'missing', period end
  return 'ended', period
end
local function touch(active_until)
  if active_until > tonumber(redis.call('HGET', class_key, 'expires_at')) then
    redis.call('HSET', class_key, 'expires_at', number(active_until))
    redis.call('ZADD', open_key, number(active_until), code)
    redis.call('ZADD', classes_key, number(active_until + keep_after), code)
  end
end
local function key(kind, period) return 'nblab:' .. kind .. ':{' .. code .. '}:p' .. period end
"""

INSERT_CLASS = (
    PRELUDE
    + """
if redis.call('EXISTS', class_key) == 1 then return 'taken' end
if redis.call('ZCOUNT', open_key, '(' .. ARGV[2], '+inf') >= tonumber(ARGV[6]) then return 'full' end
redis.call('HSET', class_key, 'created_at', ARGV[2], 'expires_at', ARGV[4], 'key_digest', ARGV[5], 'next', 0,
  'period', 1)
redis.call('ZADD', open_key, ARGV[4], code)
redis.call('ZADD', classes_key, number(tonumber(ARGV[4]) + keep_after), code)
return 0
"""
)

REOPEN = (
    PRELUDE
    + """
if redis.call('EXISTS', class_key) == 0 then return 0 end
redis.call('HDEL', class_key, 'ended_at')
redis.call('HSET', class_key, 'expires_at', ARGV[4])
redis.call('ZADD', open_key, ARGV[4], code)
redis.call('ZADD', classes_key, number(tonumber(ARGV[4]) + keep_after), code)
return 1
"""
)

END = (
    PRELUDE
    + """
if state() ~= 'open' then return 0 end
redis.call('HSET', class_key, 'ended_at', ARGV[2])
redis.call('ZREM', open_key, code)
redis.call('ZADD', classes_key, number(now + keep_after), code)
return 1
"""
)

# ARGV[4]: delete only if the class is due at this time ("" : at once)
DELETE_CLASS = (
    PRELUDE
    + """
if ARGV[4] ~= '' then
  local due = redis.call('ZSCORE', classes_key, code)
  if due and tonumber(due) > tonumber(ARGV[4]) then return 0 end
end
local last = tonumber(redis.call('HGET', class_key, 'period') or 1)
for period = 1, last do
  for _, student in ipairs(redis.call('SMEMBERS', key('students', period))) do
    redis.call('DEL', key('student', period) .. ':' .. student)
  end
  for _, question in ipairs(redis.call('SMEMBERS', key('questions', period))) do
    redis.call('DEL', key('answers', period) .. ':' .. question, key('after', period) .. ':' .. question)
  end
  redis.call('DEL', key('drawings', period), key('students', period), key('questions', period),
    key('reveals', period))
end
redis.call('DEL', class_key, 'nblab:presence:{' .. code .. '}')
redis.call('ZREM', classes_key, code)
redis.call('ZREM', open_key, code)
return 1
"""
)

NEW_PERIOD = (
    PRELUDE
    + """
local found, period = state()
if found ~= 'open' then return found end
if period >= tonumber(ARGV[5]) then return 'full' end
redis.call('HSET', class_key, 'period', period + 1)
redis.call('HDEL', class_key, 'pace')
touch(tonumber(ARGV[4]))
return 'ok'
"""
)

SET_PACE = (
    PRELUDE
    + """
if redis.call('EXISTS', class_key) == 0 then return 0 end
if ARGV[4] == '' then redis.call('HDEL', class_key, 'pace') else redis.call('HSET', class_key, 'pace', ARGV[4]) end
return 1
"""
)

INSERT_DRAWING = (
    PRELUDE
    + """
local found, period = state()
if found ~= 'open' then return found end
local per_class, per_student, student = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[8]
local drawings_key, own_key = key('drawings', period), key('student', period) .. ':' .. student
local held, own = redis.call('HLEN', drawings_key), redis.call('LLEN', own_key)
if held >= per_class and own < per_student then return 'full' end
while own >= per_student do
  redis.call('HDEL', drawings_key, redis.call('LPOP', own_key))
  own = own - 1
end
local id = redis.call('HINCRBY', class_key, 'next', 1)
redis.call('HSET', drawings_key, id, ARGV[7])
redis.call('RPUSH', own_key, id)
redis.call('SADD', key('students', period), student)
touch(tonumber(ARGV[4]))
return id
"""
)

# ARGV[5] student, ARGV[6] question, ARGV[7] answered_at newline choice
PUT_ANSWER = (
    PRELUDE
    + """
local found, period = state()
if found ~= 'open' then return found end
local question, outcome = ARGV[6], 'counted'
if redis.call('HEXISTS', key('reveals', period), question) == 1 then
  redis.call('HSETNX', key('after', period) .. ':' .. question, ARGV[5], ARGV[7])
  outcome = 'after'
else
  redis.call('HSET', key('answers', period) .. ':' .. question, ARGV[5], ARGV[7])
end
redis.call('SADD', key('questions', period), question)
touch(tonumber(ARGV[4]))
return outcome
"""
)

# ARGV[4] student, ARGV[5] step newline seen_at, ARGV[6] most students
CHECK_IN = (
    PRELUDE
    + """
local found = state()
if found ~= 'open' then return found end
local presence = 'nblab:presence:{' .. code .. '}'
if redis.call('HEXISTS', presence, ARGV[4]) == 0 and redis.call('HLEN', presence) >= tonumber(ARGV[6]) then
  return 'full'
end
redis.call('HSET', presence, ARGV[4], ARGV[5])
return 'ok'
"""
)

# ARGV[4] question, ARGV[5] revealed_at; nothing if the class was deleted since the teacher was checked
REVEAL = (
    PRELUDE
    + """
if redis.call('EXISTS', class_key) == 0 then return 0 end
redis.call('HSETNX', key('reveals', ARGV[6]), ARGV[4], ARGV[5])
return 1
"""
)

# KEYS[1] the period's drawings, ARGV[1] the drawing id, ARGV[2] the prefix of its student's list; bytes 10-25 (Lua counts
# from 1) of a packed drawing are its student id (redis_store.HEADER: sent_at 8 bytes, meant 1, then the id)
REMOVE_DRAWING = """
local packed = redis.call('HGET', KEYS[1], ARGV[1])
if not packed then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('LREM', ARGV[2] .. string.sub(packed, 10, 25), 0, ARGV[1])
return 1
"""
