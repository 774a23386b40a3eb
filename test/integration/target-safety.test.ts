import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../common/exit-codes.ts';
import { cleanupTarget } from '../../harness/target-cleanup.ts';
import { targetCheck } from '../../harness/target-check-command.ts';
import { startOwnerDeployment, type OwnerDeployment } from '../support/owner-deployment.ts';
import { eventually } from '../support/eventually.ts';
import { startCli, type CliRun } from '../support/cli-run.ts';
import { killLeftovers, testResultsDir } from './processes.ts';
import { cleanup } from '../../harness/cleanup.ts';

/**
 * The rails of a run against someone's servers: `target check` proves the fence — a read, a write and a delete outside
 * the prefix each refused — (and says loudly when there is none), a key already under the prefix refuses the run and
 * `cleanup --target` deletes only the keys runs of ours recorded, Ctrl-C removes the run's keys and no one else's,
 * and an injection outlives a harness killed with kill -9 only until the guard heals it.
 */
let owner: OwnerDeployment;
let results: string;

beforeAll(async () => {
  owner = await startOwnerDeployment('fp-safe/');
  Object.assign(process.env, owner.env);
  results = testResultsDir('target-safety');
});

afterAll(async () => {
  await cleanup(results, () => {});
  const left = killLeftovers(results);
  await owner?.stop();
  expect(left).toEqual([]);
  fs.rmSync(results, { recursive: true, force: true });
});

/** The CLI against the owner's deployment; `out` is its stdout and stderr together. */
function cli(args: string[]): { child: CliRun; done: Promise<{ code: number | null; out: string }> } {
  const child = startCli(args, { results, env: owner.env });
  return { child, done: child.exit.then((e) => ({ code: e.code, out: e.stdout + e.stderr })) };
}

async function redisKeysUnderPrefix(): Promise<string[]> {
  return redisKeys('fp-safe/*');
}

/** The owner's keys matching `pattern`, sorted (as admin). */
async function redisKeys(pattern: string): Promise<string[]> {
  const r = owner.redisAdmin();
  try {
    return (await r.keys(pattern)).sort();
  } finally {
    r.disconnect();
  }
}

/** Another team's keys, written as the owner: one under the prefix, one under a look-alike (audit R1, R8). */
const THEIRS = ['fp-safe/billing:invoice-7', 'fp-safe2/invoice-7'];

async function plantTheirs(): Promise<void> {
  const r = owner.redisAdmin();
  for (const k of THEIRS) await r.set(k, 'another team');
  r.disconnect();
}

async function removeTheirs(): Promise<void> {
  const r = owner.redisAdmin();
  await r.del(...THEIRS);
  r.disconnect();
}

/** A target file whose Redis user is `user`, made on the owner's Redis with `acl` (its password in FP_ACL_PASSWORD). */
async function fileWithRedisUser(user: string, acl: string): Promise<string> {
  const r = owner.redisAdmin();
  await r.call('ACL', 'SETUSER', user, 'reset', 'on', '>acl-test-pw', ...acl.split(' '));
  r.disconnect();
  process.env.FP_ACL_PASSWORD = 'acl-test-pw';
  const file = owner.targetFile({ adapter: 'none' });
  const spec = JSON.parse(fs.readFileSync(file, 'utf8'));
  spec.servers.redis.user = user;
  spec.servers.redis.passwordEnv = 'FP_ACL_PASSWORD';
  delete spec.servers.etcd;
  fs.writeFileSync(file, JSON.stringify(spec));
  return file;
}

describe('target check', () => {
  it('connects, proves the fence, lists the faults, commands and keys, and changes nothing: READY', async () => {
    const lines: string[] = [];
    const file = owner.targetFile({ adapter: 'owner', faults: ['pause-node'] });
    expect(await targetCheck(file, (l) => lines.push(l))).toBe(EXIT.valid);
    const text = lines.join('\n');
    expect(text).toContain(
      'r0: ✓ GET, SET NX PX, DEL outside fp-safe/* → NOPERM (read, write and delete refused for the key)',
    );
    expect(text).toContain(
      'etcd: ✓ get, put, delete outside fp-safe/ → permission denied (read, write and delete refused for the key)',
    );
    expect(text).toContain('pause-node ✓ via owner');
    expect(text).toMatch(/restart-empty ✗ \(no adapter/);
    expect(text).toMatch(/\$ .*\/pause\.sh r0/);
    expect(text).toContain('READY');
    expect(await redisKeysUnderPrefix()).toEqual([]);
  });

  it('says FENCE OPEN loudly, and is not ready, when the credentials can read outside the prefix', async () => {
    const file = owner.targetFile({ adapter: 'none' });
    const spec = JSON.parse(fs.readFileSync(file, 'utf8'));
    spec.servers.redis.user = 'default';
    spec.servers.redis.passwordEnv = 'OWNER_ADMIN';
    fs.writeFileSync(file, JSON.stringify(spec));
    process.env.OWNER_ADMIN = owner.admin.redis;
    const lines: string[] = [];
    expect(await targetCheck(file, (l) => lines.push(l))).toBe(EXIT.badArguments);
    expect(lines.join('\n')).toMatch(
      /r0: !!! FENCE OPEN !!! GET \S+, SET NX PX \S+, DEL \S+ were answered: this user can read, write and delete outside fp-safe\//,
    );
    expect(lines.at(-1)).toMatch(/^NOT READY: r0: the credentials are not fenced to fp-safe\//);
    expect(await redisKeys('fencepost-fence-probe-*')).toEqual([]);
  });

  it('NOT FENCED for users a read alone passed: one who may write anywhere, one refused only the GET command (R6)', async () => {
    for (const [user, acl] of [
      ['rw', '%R~fp-safe/* %W~* resetchannels +@all -@dangerous'],
      ['noget', '~* resetchannels +@all -get'],
    ]) {
      const file = await fileWithRedisUser(user, acl);
      const lines: string[] = [];
      expect(await targetCheck(file, (l) => lines.push(l))).toBe(EXIT.badArguments);
      expect(lines.join('\n')).toMatch(
        /r0: !!! FENCE OPEN !!! SET NX PX \S+, DEL \S+ were answered: this user can write and delete outside fp-safe\/; the probe's write was deleted again/,
      );
      expect(lines.at(-1)).toMatch(/^NOT READY: r0: the credentials are not fenced to fp-safe\//);
      // A run is refused too, without the file's override, before it creates anything.
      const refused = await cli(['--lock=redis', `--target=${file}`, '--nemesis=none', '--time-limit=3']).done;
      expect(refused.code, refused.out).toBe(EXIT.badArguments);
      expect(refused.out).toContain('the credentials are not fenced to fp-safe/');
    }
    expect(await redisKeys('fencepost-fence-probe-*')).toEqual([]);
    expect(await redisKeysUnderPrefix()).toEqual([]);
  });
});

describe('the prefix is the run’s alone', () => {
  it('a key no run of ours recorded refuses the run (254); cleanup --target lists it and leaves it', async () => {
    const r = owner.redisAdmin();
    await r.set('fp-safe/leftover', 'x');
    await r.set('fp-safe-neighbour', 'keep');
    r.disconnect();
    const file = owner.targetFile({ adapter: 'none' });
    const refused = await cli(['--lock=redis', `--target=${file}`, '--nemesis=none', '--time-limit=3']).done;
    expect(refused.code).toBe(EXIT.badArguments);
    expect(refused.out).toContain('1 key(s) already exist under fp-safe/: 1 on r0 (fp-safe/leftover)');
    expect(refused.out).toContain('deletes nothing');
    expect(refused.out).not.toContain('removes them');
    const lines: string[] = [];
    expect(await cleanupTarget(file, results, (l) => lines.push(l))).toBe(EXIT.valid);
    expect(lines[0]).toBe(
      'target owner-test: leaving 1 key(s) under fp-safe/ that no run of ours recorded: 1 on r0 (fp-safe/leftover)',
    );
    expect(await redisKeysUnderPrefix()).toEqual(['fp-safe/leftover']);
    // Deleted only when the operator says so, after its name was printed.
    const said: string[] = [];
    expect(await cleanupTarget(file, results, (l) => said.push(l), { deleteUnrecorded: true })).toBe(EXIT.valid);
    expect(said).toContain('  r0 fp-safe/leftover');
    const a = owner.redisAdmin();
    expect(await a.get('fp-safe-neighbour')).toBe('keep');
    a.disconnect();
    expect(await redisKeysUnderPrefix()).toEqual([]);
  });

  it('kill -9 mid-run: cleanup --target deletes the run’s recorded keys, and another team’s keys survive', async () => {
    const file = owner.targetFile({ adapter: 'none' });
    const { child, done } = cli(['--lock=redis', `--target=${file}`, '--nemesis=none', '--time-limit=60']);
    await eventually(
      'the run holds a lock key in its namespace',
      async () => ((await redisKeys('fp-safe/run-*')).length ? true : undefined),
      60_000,
    );
    await plantTheirs();
    child.signal('SIGKILL');
    await done;
    // The clients the harness left would keep writing: stopped first, as `cleanup` does before --target.
    await cleanup(results, () => {});
    const records = await redisKeys('fp-safe/fencepost-owned:*');
    expect(records).toHaveLength(1);
    const lines: string[] = [];
    expect(await cleanupTarget(file, results, (l) => lines.push(l))).toBe(EXIT.valid);
    expect(lines.join('\n')).toContain('1 run(s) of ours whose harness is gone recorded keys under fp-safe/');
    expect(lines.join('\n')).toContain('that no run of ours recorded: 1 on r0 (fp-safe/billing:invoice-7)');
    expect(await redisKeysUnderPrefix()).toEqual(['fp-safe/billing:invoice-7']);
    expect(await redisKeys('fp-safe2/*')).toEqual(['fp-safe2/invoice-7']);
    await removeTheirs();
  });

  it('Ctrl-C mid-run removes every key the run made, and no one else’s', async () => {
    const file = owner.targetFile({ adapter: 'none' });
    const { child, done } = cli([
      '--lock=redis',
      `--target=${file}`,
      '--nemesis=none',
      '--time-limit=60',
      '--think=300',
    ]);
    await eventually(
      'the run holds a lock key under the prefix',
      async () => ((await redisKeysUnderPrefix()).length ? true : undefined),
      60_000,
    );
    await plantTheirs();
    child.signal('SIGINT');
    const { code, out } = await done;
    expect(code, out).toBe(130);
    expect(await redisKeysUnderPrefix()).toEqual(['fp-safe/billing:invoice-7']);
    expect(await redisKeys('fp-safe2/*')).toEqual(['fp-safe2/invoice-7']);
    await removeTheirs();
  });
});

describe('an injection ends by itself when fencepost dies', () => {
  it('kill -9 of the harness while pause-node holds a server stopped: the guard resumes it', async () => {
    const file = owner.targetFile({ adapter: 'owner', faults: ['pause-node'] });
    const { child, done } = cli([
      '--lock=redis',
      `--target=${file}`,
      '--nemesis=pause-node',
      '--pause=60000',
      '--time-limit=60',
      '--nemesis-interval=500',
    ]);
    // A deadline, not a wait: a Redis that does not answer a PING in this is taken as paused.
    const PING_TIMEOUT_MS = 300;
    const ping = async () => {
      const r = owner.redisAdmin();
      try {
        return await Promise.race([
          r.ping(),
          new Promise<string>((res) => setTimeout(() => res('timeout'), PING_TIMEOUT_MS)),
        ]);
      } catch {
        return 'error';
      } finally {
        r.disconnect();
      }
    };
    const guardDirs = () =>
      fs.existsSync(path.join(results, 'redis'))
        ? fs.readdirSync(path.join(results, 'redis')).map((d) => path.join(results, 'redis', d, 'guard'))
        : [];
    // The pause is in force once its armed file says the adapter's pause returned (`inFlight: false`; the file is
    // written before the command runs) — not when a ping is slow, which a busy machine also makes it (CI: killed
    // before any pause, no heal).
    const armedPause = () =>
      guardDirs()
        .filter((d) => fs.existsSync(d))
        .flatMap((d) => fs.readdirSync(d).map((f) => path.join(d, f)))
        .filter((f) => /\/\d+-\d+\.json$/.test(f))
        .some((f) => {
          try {
            const armed = JSON.parse(fs.readFileSync(f, 'utf8')) as { action?: string; inFlight?: boolean };
            return armed.action === 'pause' && armed.inFlight === false;
          } catch {
            return false;
          }
        });
    await eventually(
      'pause-node stopped the owner Redis, armed with the guard',
      async () => armedPause() || undefined,
      60_000,
    );
    expect(await ping()).toBe('timeout');
    child.signal('SIGKILL');
    await done;
    // The guard polls every 200 ms; the harness is gone, so it heals at once, not after the 60 s pause.
    await eventually(
      'the guard resumed the owner Redis',
      async () => ((await ping()) === 'PONG' ? true : undefined),
      10_000,
    );
    // The guard writes its line once the adapter's heal returned, a moment after the server answers again.
    const guardLog = () =>
      guardDirs()
        .map((d) => path.join(d, 'guard.log'))
        .filter((f) => fs.existsSync(f))
        .map((f) => fs.readFileSync(f, 'utf8'))
        .join('');
    await eventually(
      'the guard logged its heal',
      async () => (/healed pause of r0 \(owner\): the harness is gone/.test(guardLog()) ? true : undefined),
      10_000,
    ).catch(() => {});
    expect(guardLog()).toMatch(/healed pause of r0 \(owner\): the harness is gone/);
  });
});
