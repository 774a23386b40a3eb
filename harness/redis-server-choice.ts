import type { Requirement } from '../cluster/provision.ts';
import { HarnessError } from '../common/errors.ts';
import type { RunConfig } from '../store/run-config.ts';

/**
 * `--redis-server=valkey`: the same Redis rows on Valkey's binary. What the run must install for it, and the runs it
 * cannot honour — refused (254) before anything starts rather than run on Redis under Valkey's name.
 */

/** The run's needs with its Redis nodes' binary: `redis` becomes `valkey` when the run asked for Valkey. */
export function withRedisServer(needs: readonly Requirement[], config: Pick<RunConfig, 'redisServer'>): Requirement[] {
  return config.redisServer === 'valkey' ? needs.map((n) => (n === 'redis' ? 'valkey' : n)) : [...needs];
}

/** Valkey runs only where fencepost starts the servers itself on this machine. */
export function refuseRedisServer(config: Pick<RunConfig, 'redisServer' | 'backend' | 'target'>): void {
  if (config.redisServer !== 'valkey') return;
  if (config.target)
    throw new HarnessError(
      'bad-arguments',
      "--redis-server=valkey chooses the binary of fencepost's own Redis nodes; a --target's servers are its own.",
      { hint: 'drop --redis-server (the target record names the version its servers answered with)' },
    );
  if (config.backend !== 'local')
    throw new HarnessError(
      'bad-arguments',
      "--redis-server=valkey runs on the local backend only: the docker node image has bookworm's redis-server, not valkey-server.",
      { hint: 'use --backend=local' },
    );
}
