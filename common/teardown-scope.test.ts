import { afterEach, describe, expect, it, vi } from 'vitest';
import { Shutdown } from './shutdown.ts';
import { TeardownScope } from './teardown-scope.ts';

/**
 * The run's nine teardown steps in the order harness/run.ts registers them, each writing its name to `done`. What a
 * normal close runs and what a signal runs are the two orders the run ran by hand before the scope.
 */
async function runScope(
  done: string[],
  end: (scope: TeardownScope, shutdown: Shutdown) => Promise<void>,
  fails: Record<string, string> = {},
) {
  const shutdown = new Shutdown();
  const step = (name: string) => () => {
    done.push(name);
    if (fails[name]) throw new Error(fails[name]);
  };
  await using scope = new TeardownScope(shutdown);
  scope.defer('remove clock files', step('clocks'));
  scope.defer('remove the server network', step('server net'));
  const journal = scope.defer('close journal', step('close journal'));
  const launched = scope.defer('stop clients', step('kill launched clients'));
  scope.defer('stop cluster', step('stop cluster'));
  scope.ifAborted('mark the run incomplete', step('mark incomplete'));
  scope.defer('close proxies', step('close proxies'));
  scope.atClose('seal the history', step('final reads, seal'), { takesOver: [journal] });
  scope.atClose("the servers' end", step('target finish'));
  scope.defer('stop clients', step('kill clients'), {
    normally: step('stop clients gracefully'),
    takesOver: [launched],
  });
  scope.defer('heal nemesis', step('heal'));
  await end(scope, shutdown);
  return shutdown;
}

afterEach(() => vi.restoreAllMocks());

describe('TeardownScope', () => {
  it('closes newest first, each entry its normal way, work a signal skips included; the mark only if aborted', async () => {
    const done: string[] = [];
    await runScope(done, (scope) => scope.close());
    expect(done).toEqual([
      'heal',
      'stop clients gracefully',
      'target finish',
      'final reads, seal',
      'close proxies',
      'stop cluster',
      'server net',
      'clocks',
    ]);
  });

  it('leaves nothing with the Shutdown after a normal close: a later signal runs none of it', async () => {
    const done: string[] = [];
    const shutdown = await runScope(done, (scope) => scope.close());
    done.length = 0;
    await shutdown.runAll('signal');
    expect(done).toEqual([]);
  });

  it('on a signal the Shutdown runs every step newest first, the abort way, and none of the close-only work', async () => {
    const done: string[] = [];
    await runScope(done, (_scope, shutdown) => shutdown.runAll('signal'));
    expect(done).toEqual([
      'heal',
      'kill clients',
      'close proxies',
      'mark incomplete',
      'stop cluster',
      'kill launched clients',
      'close journal',
      'server net',
      'clocks',
    ]);
  });

  it('left by an error in the body: every step runs (reason "error") and the error goes on up', async () => {
    const done: string[] = [];
    let reason: string | null = null;
    const failing = runScope(done, async (_scope, shutdown) => {
      shutdown.add('read the reason', () => void (reason = shutdown.reason));
      throw new Error('cluster did not start');
    });
    await expect(failing).rejects.toThrow('cluster did not start');
    expect(reason).toBe('error');
    expect(done).toEqual([
      'heal',
      'kill clients',
      'close proxies',
      'mark incomplete',
      'stop cluster',
      'kill launched clients',
      'close journal',
      'server net',
      'clocks',
    ]);
  });

  it('an error in the close: the rest still runs (as an abort, the mark written) and the first error is the one thrown', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const done: string[] = [];
    const failing = runScope(done, (scope) => scope.close(), { 'close proxies': 'first', 'stop cluster': 'second' });
    await expect(failing).rejects.toThrow('first');
    expect(done).toEqual([
      'heal',
      'stop clients gracefully',
      'target finish',
      'final reads, seal',
      'close proxies',
      // The journal and the launched clients' stop were taken over by what closed already: not run again.
      'mark incomplete',
      'stop cluster',
      'server net',
      'clocks',
    ]);
    // What fails later is said, not thrown over the first error.
    expect(err.mock.calls.flat().join('\n')).toContain('teardown step "stop cluster" failed: second');
  });

  it('refuses a step deferred once the close began: it would run in neither order', async () => {
    const scope = new TeardownScope(new Shutdown());
    await scope.close();
    expect(() => scope.defer('late', () => {})).toThrow(/deferred after the close began/);
  });
});
