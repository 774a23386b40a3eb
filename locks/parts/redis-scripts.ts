/**
 * Owner-checked release and extend, as atomic Lua scripts: a client must never delete or extend a lock that
 * expired and was taken by someone else (the classic `GET` then `DEL` race).
 */
export const RELEASE_IF_OWNER = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
export const EXTEND_IF_OWNER = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;
