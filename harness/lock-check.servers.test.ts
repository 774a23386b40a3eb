import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processesUnder, testResultsDir, killLeftovers } from '../test/integration/processes.ts';
import { runCli } from '../test/support/cli-run.ts';

/**
 * `lock-check` through the real CLI against the lock's own servers: the docs' Python example (examples/python-redis-lock.py) passes every step;
 * each broken foreign lock (examples/broken-foreign/) fails at connect with the reason and its exchange. Then a chaos
 * run of each broken one ends unknown (exit 2) in bounded time, with nothing left running.
 */
const results = testResultsDir('lock-check');
/**
 * A chaos run of a broken lock never makes progress, so its verdict (unknown, the reason first) is certain after its
 * first failed connect: the time limit only has to start, and the time limit starts once every client has put an op
 * in the history (harness/clients-running.ts) — one client, so one failed connect. What bounds the run is the connect
 * a silent lock process leaves waiting: the client's step timeout, 3 × TTL + 3 s, so the least TTL a user may give.
 * Before (6 s, 5 clients, TTL 2 s): never-answers 21.5 s, prints-to-stdout 13.6 s, exits-at-connect 9.4 s wall.
 */
const TIME_LIMIT_S = 1;
const TTL_MS = 100;
const CHAOS_ARGS = [`--time-limit=${TIME_LIMIT_S}`, `--ttl=${TTL_MS}`, '--concurrency=1', '--seed=3'];
const STEP_TIMEOUT_S = (3 * TTL_MS + 3000) / 1000;
// Two connects may each wait their step timeout (the first starts the time limit, the next is in flight at its end),
// then the client grace and teardown of Redis and Postgres on a shared 2-core machine.
const BOUND_S = TIME_LIMIT_S + 2 * STEP_TIMEOUT_S + 30;

afterAll(() => {
  expect(killLeftovers(results)).toEqual([]);
});

async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }> {
  const t0 = performance.now();
  const r = await runCli(args, { results });
  return { ...r, seconds: (performance.now() - t0) / 1000 };
}

/** Processes still running one of the broken examples' programs (their cwd is not under the results folder). */
function brokenProgramsRunning(): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmd = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const cwd = fs.readlinkSync(`/proc/${e}/cwd`);
      const state = fs.readFileSync(`/proc/${e}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cwd === path.resolve('examples/broken-foreign') && state !== 'Z') out.push(`${e} ${cmd}`);
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

describe('lock-check', () => {
  it("passes the docs' example (redis-py Lock) on every step, renew included", async () => {
    const r = await cli(['lock-check', './examples/python-redis-lock.json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const step of [
      'connect (process A)',
      'acquire account-0 (A): held',
      'a second acquire of account-0 is refused while A holds it (B): not-acquired',
      'release account-0 (A)',
      'acquire account-0 after A released it (B): held',
      'renew account-0 (B)',
      'release account-0 (B)',
      'an unreachable server is an error, not "not-acquired"',
      'close (A) and exit',
      'close (B) and exit',
    ])
      expect(r.stdout).toContain(`PASS  ${step}`);
    expect(r.stdout).not.toContain('FAIL');
    expect(r.stdout).toMatch(/lock-check passed: all 11 steps/);
    console.log(`lock-check python-redis-lock: exit 0 after ${r.seconds.toFixed(1)} s`);
  });

  it('checks a built-in npm row (advisory-lock, its lock in Postgres) through the same steps, served as a lock process', async () => {
    const r = await cli(['lock-check', 'advisory-lock']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('served as a lock process (workloads/foreign/strategy-process.ts)');
    expect(r.stdout).toMatch(/servers: pg \(ready in \d+ ms\)/);
    for (const step of [
      'a second acquire of account-0 is refused while A holds it (B): not-acquired',
      'acquire account-0 after A released it (B): held',
      'an unreachable server is an error, not "not-acquired"',
    ])
      expect(r.stdout).toContain(`PASS  ${step}`);
    expect(r.stdout).toMatch(/lock-check passed: all 10 steps/);
    console.log(`lock-check advisory-lock: exit 0 after ${r.seconds.toFixed(1)} s`);
  });

  it.each([
    [
      'prints-to-stdout',
      /FAIL {2}connect \(process A\): lock process broke the protocol \(not JSON, in reply to connect #1\): "connecting to redis\.\.\."/,
      'A ← connecting to redis...',
    ],
    [
      'never-answers',
      /FAIL {2}connect \(process A\): no reply from the lock process to connect #1 within 5000 ms/,
      'A → {"id":1,"op":"connect"',
    ],
    [
      'exits-at-connect',
      /FAIL {2}connect \(process A\): the lock process \(pid \d+\) exited with code 1/,
      'A ! exits-at-connect: cannot reach the lock service (on purpose)',
    ],
  ])('fails %s at connect, naming the step and showing its exchange', async (name, failure, line) => {
    const r = await cli(['lock-check', `./examples/broken-foreign/${name}.json`]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(failure);
    expect(r.stdout).toContain(line);
    // The run's password never reaches the terminal.
    expect(r.stdout).toMatch(/"password":"\*\*\*"/);
    expect(r.stdout).toMatch(/lock-check FAILED: 1 of \d+ steps failed/);
    expect(brokenProgramsRunning()).toEqual([]);
  });

  it("checks a plugin module (the docs' example, examples/my-lock.ts) through the same steps, served as a lock process", async () => {
    const r = await cli(['lock-check', './examples/my-lock.ts']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('lock-check ./examples/my-lock.ts: my-lock, served as a lock process');
    expect(r.stdout).toMatch(/servers: redis\S* \(ready in \d+ ms\)/);
    for (const step of [
      'connect (process A)',
      'a second acquire of account-0 is refused while A holds it (B): not-acquired',
      'acquire account-0 after A released it (B): held',
      'an unreachable server is an error, not "not-acquired"',
    ])
      expect(r.stdout).toContain(`PASS  ${step}`);
    expect(r.stdout).toMatch(/lock-check passed: all \d+ steps\. Next: .* --lock=\.\/examples\/my-lock\.ts/);
  });

  it('fails a plugin whose connect throws at the connect step, with its exchange', async () => {
    const r = await cli(['lock-check', './test/fixtures/plugins/connect-throws.ts']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}connect \(process A\)/);
    expect(r.stdout).toContain('connect-throws fixture: cannot reach the lock service');
    expect(r.stdout).toMatch(/lock-check FAILED: 1 of \d+ steps failed/);
  });

  it.each([
    ['throws-at-import', 'load the module', 'the module failed to load: throws-at-import fixture'],
    ['not-a-strategy', 'its default export is a LockStrategy', 'connect'],
  ])('refuses the plugin %s before any server starts, exit 254, naming the step', async (name, step, why) => {
    const r = await cli(['lock-check', `./test/fixtures/plugins/${name}.ts`]);
    expect(r.code, r.stdout + r.stderr).toBe(254);
    expect(r.stderr).toContain(`lock-check ./test/fixtures/plugins/${name}.ts: FAIL at step "${step}": `);
    expect(r.stderr).toContain(why);
    expect(r.stdout).not.toContain('servers:');
  });

  it('refuses a manifest that does not validate, exit 254, naming the field', async () => {
    const bad = path.join(results, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ command: ['/usr/bin/python3', 'x.py'], needs: ['redis'], token: 'fenced' }));
    const r = await cli(['lock-check', bad]);
    expect(r.code).toBe(254);
    expect(r.stderr).toContain("`token` must be 'monotonic', 'version' or 'none'");
  });
});

describe('a chaos run of a broken foreign lock', () => {
  it.each([
    [
      'prints-to-stdout',
      /^UNKNOWN {2}no progress: 0 writes committed; \d+ connects? failed \(last: lock process broke the protocol \(not JSON, in reply to connect #1\): "connecting to redis\.\.\."\)/,
    ],
    [
      'never-answers',
      /^UNKNOWN {2}no progress: 0 writes committed; \d+ connects? failed \(last: (no reply from the lock process to connect #1 within \d+ ms|connect timed out after \d+ ms)\)/,
    ],
    [
      'exits-at-connect',
      /^UNKNOWN {2}no progress: 0 writes committed; \d+ client process exits?; last: client \d exited with code 4: client \d: its lock process \(pid \d+: \/usr\/bin\/python3 exits-at-connect\.py\) exited on its own with code 1/,
    ],
  ])('%s ends unknown (exit 2) in bounded time, nothing left running', async (name, reason) => {
    const r = await cli([`--lock=./examples/broken-foreign/${name}.json`, ...CHAOS_ARGS]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout.trim().split('\n')[0].trim()).toMatch(reason);
    expect(r.seconds).toBeLessThan(BOUND_S);
    expect(processesUnder(results)).toEqual([]);
    expect(brokenProgramsRunning()).toEqual([]);
    console.log(`${name}: exit ${r.code} after ${r.seconds.toFixed(1)} s wall`);
  });
});
