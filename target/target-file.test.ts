import { describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { parseTarget, TARGET_FILE } from './target-file.ts';
import { targetLogins } from './target-credentials.ts';

const FILE = '/srv/t/fencepost.target.json';

function base(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'staging',
    'i-own-this': true,
    allowHosts: ['127.0.0.1'],
    keyPrefix: 'fp-ci/',
    servers: { redis: { endpoints: ['127.0.0.1:6379'], user: 'fp', passwordEnv: 'FP_REDIS' } },
    ...over,
  };
}

function refusal(raw: unknown): HarnessError {
  try {
    parseTarget(raw, FILE);
  } catch (err) {
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(EXIT.badArguments);
    return err as HarnessError;
  }
  throw new Error('accepted');
}

describe('a target file', () => {
  it('reads endpoints, the prefix and adapters into one frozen spec', () => {
    const spec = parseTarget(
      base({
        servers: {
          redis: { endpoints: [{ name: 'r-a', host: '127.0.0.1', port: 7000, node: 'redis-a' }], passwordEnv: 'P' },
          etcd: { endpoints: ['http://127.0.0.1:2379', '127.0.0.1:2479'], user: 'fp' },
        },
        adapters: { owner: { type: 'exec', commands: { pause: ['./p.sh', '{node}'], resume: ['./r.sh', '{node}'] } } },
        serverFaults: { 'pause-node': 'owner' },
      }),
      FILE,
    );
    expect(Object.isFrozen(spec)).toBe(true);
    expect(spec.redis!.endpoints[0]).toEqual({ name: 'r-a', host: '127.0.0.1', port: 7000, node: 'redis-a' });
    expect(spec.redis!.mode).toBe('standalone');
    expect(spec.etcd!.endpoints.map((e) => [e.name, e.port])).toEqual([
      ['etcd[0]', 2379],
      ['etcd[1]', 2479],
    ]);
    expect(spec.adapters.owner).toMatchObject({ type: 'exec', cwd: '/srv/t', timeoutMs: 10_000 });
    expect(spec.serverFaults).toEqual({ 'pause-node': 'owner' });
    expect(spec.abort).toEqual({ maxErrorRate: null, maxMinutes: 15 });
  });

  it('is refused without "i-own-this": true, saying what it means', () => {
    expect(refusal(base({ 'i-own-this': 'yes' })).message).toMatch(/"i-own-this": true.*yours to break/);
  });

  it('refuses a host outside allowHosts: the run connects only where the file allows', () => {
    const err = refusal(base({ servers: { redis: { endpoints: ['10.0.0.5:6379'] } } }));
    expect(err.message).toContain('10.0.0.5 is not in allowHosts (127.0.0.1)');
  });

  it('refuses a password in the file: credentials come from environment variables only', () => {
    const err = refusal(base({ servers: { redis: { endpoints: ['127.0.0.1:6379'], password: 'hunter2' } } }));
    expect(err.message).toContain('servers.redis.password: credentials never go in the file');
    expect(err.message).not.toContain('hunter2');
  });

  it('refuses a prefix that SCAN would read as a pattern, or that is too short to be the run’s alone', () => {
    expect(refusal(base({ keyPrefix: 'fp*' })).message).toContain('keyPrefix must be');
    expect(refusal(base({ keyPrefix: 'f' })).message).toContain('keyPrefix must be');
  });

  it('refuses a prefix that does not end in a separator, saying which to add (R8: fp-ci would cover fp-ci2/x)', () => {
    const err = refusal(base({ keyPrefix: 'fp-ci' }));
    expect(err.message).toContain('keyPrefix "fp-ci" must end in / or :');
    expect(err.message).toContain('"fp-ci/"');
    expect(parseTarget(base({ keyPrefix: 'fp-ci:' }), FILE).keyPrefix).toBe('fp-ci:');
    expect(parseTarget(base({ keyPrefix: 'team/fp-ci/' }), FILE).keyPrefix).toBe('team/fp-ci/');
  });

  it('refuses a field it does not know (a typo must not switch a rail off)', () => {
    expect(refusal(base({ 'i-own-ths': true })).message).toContain('i-own-ths: not a field fencepost knows');
  });

  it('refuses a server fault naming an adapter the file does not define, and a fault that does not exist', () => {
    expect(refusal(base({ serverFaults: { 'pause-node': 'nope' } })).message).toContain('names the adapter "nope"');
    expect(refusal(base({ adapters: {}, serverFaults: { 'pause-nod': 'x' } })).message).toContain(
      'serverFaults.pause-nod: no fault of that name',
    );
  });

  it('refuses an exec adapter with half a pair: what pauses must be able to resume', () => {
    const err = refusal(base({ adapters: { o: { type: 'exec', commands: { kill: ['./k.sh', '{node}'] } } } }));
    expect(err.message).toContain('adapters.o.commands.start is missing: kill and start come in pairs');
  });
});

describe('target credentials', () => {
  const spec = parseTarget(base(), FILE);
  it('come from the variable the file names', () => {
    expect(targetLogins(spec, { FP_REDIS: 's3cret' }).redis).toEqual({ username: 'fp', password: 's3cret' });
  });
  it('a named variable that is unset is refused (254) naming it, not sent empty', () => {
    expect(() => targetLogins(spec, {})).toThrow(/\$FP_REDIS, which is not set/);
  });
});

describe('the target file declared once', () => {
  it('reads every field its docs table names, and refuses one the table does not name', () => {
    // A number where each declared field goes: refused for its value, never as a field fencepost does not know.
    for (const field of Object.keys(TARGET_FILE.fields))
      expect(refusal(base({ [field]: 7 })).message).not.toContain('not a field fencepost knows');
    expect(refusal(base({ owner: 'me' })).message).toContain('owner: not a field fencepost knows');
  });
});
