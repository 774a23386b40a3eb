/**
 * The harness's environment variables a client never gets: each turns on a library's debug log, which prints
 * call arguments — ioredis logs every command under DEBUG, AUTH and its password included; grpc-js traces calls
 * (etcd's Authenticate carries the password). A client's log is in the run folder and its last lines go into
 * the history when it dies, so a password must never reach it. Dropped, not scrubbed: scrubbing catches only the
 * forms we know.
 */
export const CLIENT_ENV_DROPPED = ['DEBUG', 'NODE_DEBUG', 'GRPC_TRACE', 'GRPC_VERBOSITY'] as const;

/** A client's environment: the harness's without CLIENT_ENV_DROPPED, plus its own (the clock shim's). */
export function clientEnvironment(
  harnessEnv: NodeJS.ProcessEnv,
  own: Record<string, string>,
): Record<string, string | undefined> {
  const env = { ...harnessEnv };
  for (const k of CLIENT_ENV_DROPPED) delete env[k];
  return { ...env, ...own };
}
