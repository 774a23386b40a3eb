import { HarnessError } from '../common/errors.ts';
import type { TargetServers, TargetSpec } from './target-spec.ts';

/** A user and password for one kind of server, read from the environment (never from the file, never printed). */
export interface Login {
  readonly username: string | null;
  readonly password: string | null;
}

export interface TargetLogins {
  readonly redis: Login | null;
  readonly etcd: Login | null;
  readonly postgres: Login | null;
}

/**
 * The target's credentials from the environment variables its file names: a variable named but unset (or empty) is
 * exit 254 naming it, before anything connects. The values go to the clients over their IPC channel, like a local
 * run's passwords, and are never written into the run's files.
 */
export function targetLogins(spec: TargetSpec, env: NodeJS.ProcessEnv = process.env): TargetLogins {
  const read = (kind: string, s: Pick<TargetServers, 'user' | 'passwordEnv'> | null): Login | null => {
    if (!s) return null;
    if (!s.passwordEnv) return { username: s.user, password: null };
    const password = env[s.passwordEnv];
    if (!password)
      throw new HarnessError(
        'bad-arguments',
        `target ${spec.name}: the ${kind} password is to come from $${s.passwordEnv}, which is not set in this environment`,
        { hint: `export ${s.passwordEnv}=… (or your CI's secret), then run again` },
      );
    return { username: s.user, password };
  };
  return {
    redis: read('redis', spec.redis),
    etcd: read('etcd', spec.etcd),
    postgres: spec.postgres ? read('postgres', spec.postgres) : null,
  };
}
