// The Lua scripts behind the Redis state store. Redis runs a script alone, so each one is a single
// atomic step for every process and host sharing the server. An entry is a hash: v (the JSON value),
// e (expiry, ms since the epoch by the caller's clock) and r (the revision); every script takes the
// caller's `now`, so expiry means the same as in the other stores, and a Redis TTL drops the key too.

/** KEYS[1]; ARGV: now, value, expiresAt, rev, ttlMs. 1 when created (an expired entry is overwritten). */
export const CREATE = `
local e = redis.call('HGET', KEYS[1], 'e')
if e and tonumber(e) > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'e', ARGV[3], 'r', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/**
 * KEYS[1]; ARGV: now, expectedRev, value, expiresAt, newRev, ttlMs. 1 when the live entry at expectedRev was
 * overwritten.
 */
export const REPLACE = `
local cur = redis.call('HMGET', KEYS[1], 'r', 'e')
if cur[1] ~= ARGV[2] or not cur[2] or tonumber(cur[2]) <= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[3], 'e', ARGV[4], 'r', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1`;

/** KEYS[1]; ARGV: expectedRev. 1 when this call deleted the entry. */
export const TAKE = `
if redis.call('HGET', KEYS[1], 'r') == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`;

/** KEYS: a batch from SCAN; ARGV: now. How many expired entries were deleted. */
export const SWEEP = `
local n = 0
for _, k in ipairs(KEYS) do
  local e = redis.call('HGET', k, 'e')
  if e and tonumber(e) <= tonumber(ARGV[1]) then
    redis.call('DEL', k)
    n = n + 1
  end
end
return n`;

/**
 * KEYS: the counters; ARGV: now, windowMs, now + windowMs (computed by the caller: Lua would print a
 * large number in exponent form), then one limit per key, then one fresh revision per key.
 * -1 when every key had room and each was counted; else the ms until the first blocking window ends,
 * and nothing was counted.
 */
export const HIT = `
local now = tonumber(ARGV[1])
local n = #KEYS
local wait = -1
for i, k in ipairs(KEYS) do
  local cur = redis.call('HMGET', k, 'v', 'e')
  if cur[2] and tonumber(cur[2]) > now and tonumber(cur[1]) >= tonumber(ARGV[3 + i]) then
    wait = math.max(wait, tonumber(cur[2]) - now)
  end
end
if wait >= 0 then return wait end
for i, k in ipairs(KEYS) do
  local cur = redis.call('HMGET', k, 'v', 'e')
  if cur[2] and tonumber(cur[2]) > now then
    redis.call('HINCRBY', k, 'v', 1)
    redis.call('HSET', k, 'r', ARGV[3 + n + i])
  else
    redis.call('DEL', k)
    redis.call('HSET', k, 'v', 1, 'e', ARGV[3], 'r', ARGV[3 + n + i])
    redis.call('PEXPIRE', k, ARGV[2])
  end
end
return -1`;
