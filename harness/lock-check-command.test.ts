import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { builtinForeignRow, checkedLock } from './lock-check-command.ts';
import { masked } from './lock-check-transcript.ts';

describe('lock-check of a built-in foreign row', () => {
  // A built-in row named by its manifest was checked like a user's: its glue never compiled, so etcd-go and curator
  // on a fresh machine compiled on their first connect, past the connect's reply limit.
  it.each([
    ['curator', 'curator'],
    ['locks/curator/curator.json', 'curator'],
    ['./locks/etcd-go/etcd-go.json', 'etcd-go'],
    ['locks/kazoo/kazoo.json', 'kazoo'],
    ['./examples/python-redis-lock.json', null],
    ['exec:./mine.py', null],
    ['redis', null],
  ])('%s → %s', (lock, row) => {
    expect(builtinForeignRow(lock)).toBe(row);
  });
});

describe('masked', () => {
  it('hides every password of a protocol line', () => {
    expect(masked('{"op":"connect","endpoints":{"redis":[{"password":"s3\\"cr"}],"etcdAuth":{"password":"x"}}}')).toBe(
      '{"op":"connect","endpoints":{"redis":[{"password":"***"}],"etcdAuth":{"password":"***"}}}',
    );
  });

  it("hides the password in the run's Postgres connection string (advisory-lock's endpoints)", () => {
    expect(masked('{"postgresUrl":"postgres://fencepost:s3%2Fcr%40t@127.0.0.1:5433/bank?application_name=x"}')).toBe(
      '{"postgresUrl":"postgres://fencepost:***@127.0.0.1:5433/bank?application_name=x"}',
    );
  });
});

describe('lock-check of a plugin module', () => {
  it('serves a .ts plugin as a lock process, as it does an npm row, instead of reading it as a manifest', async () => {
    // Before: "the manifest … is not JSON" — a plugin was read by the manifest reader.
    const { strategy, served, builtin } = await checkedLock('./test/fixtures/plugins/single-redis.ts');
    expect({ served, builtin, name: strategy.name }).toEqual({ served: true, builtin: null, name: 'single-redis' });
    const command = strategy.foreign!.command;
    expect(command.slice(-2)).toEqual([
      fileURLToPath(new URL('../workloads/foreign/strategy-process.ts', import.meta.url)),
      strategy.moduleUrl,
    ]);
    expect(strategy.moduleUrl).toMatch(/\/test\/fixtures\/plugins\/single-redis\.ts$/);
    expect(strategy.foreign!.expectToken).toBe(false);
  });

  it('refuses a plugin that does not load, naming the step, and still reads a manifest as one', async () => {
    await expect(checkedLock('./test/fixtures/plugins/throws-at-import.ts')).rejects.toThrow(
      /FAIL at step "load the module"/,
    );
    await expect(checkedLock('./no-such-manifest.json')).rejects.toThrow(/no-such-manifest\.json/);
  });
});
