import { describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { CommandLog } from './command-log.ts';
import { DockerAdapter } from './docker-adapter.ts';
import { parseTarget } from './target-file.ts';

// Audit R15: an endpoint's `node` was unchecked. The docker adapter put it raw into Engine API paths
// (`victim/pause?x=` → POST /containers/victim/pause?x=/paus, its heal a pause again) and --dry-run printed
// `docker pause x; touch …` unquoted.

function refusal(node: string, adapter: Record<string, unknown> | null): string {
  try {
    parseTarget(
      {
        name: 't',
        'i-own-this': true,
        allowHosts: ['127.0.0.1'],
        keyPrefix: 'fp-t/',
        servers: { redis: { endpoints: [{ name: 'r0', host: '127.0.0.1', port: 7000, node }] } },
        ...(adapter ? { adapters: { a: adapter } } : {}),
      },
      '/srv/t/target.json',
    );
  } catch (err) {
    expect((err as HarnessError).exitCode).toBe(EXIT.badArguments);
    return (err as Error).message;
  }
  return 'accepted';
}

const EXEC = { type: 'exec', commands: { pause: ['./p.sh', '{node}'], resume: ['./r.sh', '{node}'] } };

describe("an endpoint's node is checked for what acts on it", () => {
  it('any adapter: one word, no shell or URL characters', () => {
    expect(refusal('x; touch /tmp/INJECTED', EXEC)).toContain('servers.redis.endpoints[0].node must be one word');
    expect(refusal('victim/pause?x=', EXEC)).toContain('servers.redis.endpoints[0].node must be one word');
    expect(refusal('admin@db-1.internal:22', EXEC)).toBe('accepted');
  });

  it('docker: a container name; kubernetes: a pod name (DNS-1123)', () => {
    expect(refusal('containers/victim', { type: 'docker' })).toContain(
      `endpoint r0's node "containers/victim" is not a container name (letters, digits, _ . -), which the docker adapter "a" acts on`,
    );
    expect(refusal('redis_a.1', { type: 'docker' })).toBe('accepted');
    expect(refusal('Redis_0', { type: 'kubernetes', namespace: 'ns', mode: 'chaos-mesh' })).toContain(
      'is not a pod name (lower-case letters, digits, - and ., DNS-1123)',
    );
    expect(refusal('redis-0', { type: 'kubernetes', namespace: 'ns', mode: 'chaos-mesh' })).toBe('accepted');
  });

  it('the docker plan is quoted like every other adapter: a line copied from --dry-run runs as it did', () => {
    const d = new DockerAdapter({ type: 'docker', name: 'd', socketPath: null }, new CommandLog(null));
    expect(d.plan('pause', "it's").command).toBe(`docker pause 'it'\\''s'`);
    expect(d.plan('kill', 'redis-a').command).toBe('docker kill --signal=SIGKILL redis-a');
  });
});
