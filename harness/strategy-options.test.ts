import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStrategy } from '../workloads/load-strategy.ts';
import { resolveStrategy, type ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { HarnessError } from '../common/errors.ts';
import { resolveConfig } from './run-argv.ts';
import { checkStrategyOptions, withEnsembleSizes } from './strategy-options.ts';

const MY_LOCK = path.join(import.meta.dirname, '..', 'examples', 'my-lock.ts');

/** Both halves of the CLI's option validation, as runTest does them before anything starts. */
async function validate(argv: string[]): Promise<ResolvedStrategy> {
  const config = resolveConfig(argv);
  const strategy = await loadStrategy(config.lock);
  checkStrategyOptions(config, strategy);
  return strategy;
}

async function refusal(argv: string[]): Promise<HarnessError> {
  const err = await validate(argv).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, `expected ${argv.join(' ')} to be refused`).toBeInstanceOf(HarnessError);
  expect((err as HarnessError).exitCode).toBe(254);
  return err as HarnessError;
}

describe('the options a lock must be able to honour', () => {
  it.each([
    ['redis', /a Redis lock value is a random owner token/],
    ['redlock', /Redlock has no monotonic fencing token/],
    ['redlock-npm', /the redlock package exposes no monotonic fencing token/],
    ['none', /no lock, so there is no token to fence with/],
  ])("refuses --fencing with --lock=%s with the strategy's own reason", async (lock, reason) => {
    const err = await refusal([`--lock=${lock}`, '--fencing']);
    expect(err.message).toMatch(new RegExp(`^--fencing with --lock=${lock}: `));
    expect(err.message).toMatch(reason);
    expect(err.hint).toMatch(/etcd\|zookeeper\|postgres/);
  });

  it('refuses --fencing with a plugin that declares no token, naming it and telling what to declare', async () => {
    const err = await refusal([`--lock=${MY_LOCK}`, '--fencing']);
    expect(err.message).toMatch(/the strategy "my-lock" declares no fencing token/);
    expect(err.hint).toMatch(/token: 'monotonic'/);
  });

  // A manifest's author was told to declare `token: 'monotonic'`, TypeScript's words, and pointed at the TS page.
  it("tells a manifest's author what to write in the manifest, in JSON, and where the protocol is", async () => {
    const manifest = './examples/python-redis-lock.json';
    const fencing = await refusal([`--lock=${manifest}`, '--fencing']);
    expect(fencing.hint).toContain('"token": "monotonic"');
    expect(fencing.hint).toContain('docs/protocol.md');
    const watchdog = await refusal(['--lock=exec:./examples/python-redis-lock.py', '--watchdog']);
    expect(watchdog.hint).toContain('"renews": true');
    expect(watchdog.hint).toContain('docs/protocol.md');
  });

  it.each(['etcd', 'zookeeper', 'postgres'])('accepts --fencing with --lock=%s', async (lock) => {
    expect((await validate([`--lock=${lock}`, '--fencing'])).noTokenReason).toBeNull();
  });

  it.each(['etcd', 'zookeeper', 'postgres', 'none'])(
    'refuses --watchdog with --lock=%s, whose client does not renew its lease',
    async (lock) => {
      expect((await refusal([`--lock=${lock}`, '--watchdog'])).message).toMatch(
        /declares `renews: false`: its client does not renew the lease/,
      );
    },
  );

  it.each(['redis', 'redlock', 'redlock-npm'])('accepts --watchdog with --lock=%s', async (lock) => {
    expect((await validate([`--lock=${lock}`, '--watchdog'])).renews).toBe(true);
  });

  it('accepts --watchdog with a plugin written before `renews` existed, as it always did', async () => {
    expect((await validate([`--lock=${MY_LOCK}`, '--watchdog'])).renews).toBeNull();
  });

  it("accepts --retry=harness only for a lock whose client can replace its library's retry loop (redlock-npm)", async () => {
    expect((await validate(['--lock=redlock-npm', '--retry=harness'])).harnessRetry).toBe(true);
    // The default is the library's own loop, for every lock.
    expect(resolveConfig(['--lock=redlock-npm']).retry).toBe('library');
    for (const lock of ['redis', 'redlock', 'etcd', 'zookeeper', 'postgres', 'none']) {
      const err = await refusal([`--lock=${lock}`, '--retry=harness']);
      expect(err.message).toMatch(
        new RegExp(`^--retry=harness with --lock=${lock}: .*does not declare \`harnessRetry: true\``),
      );
      expect(err.hint).toMatch(/--lock=redlock-npm/);
    }
    const plugin = await refusal([`--lock=${MY_LOCK}`, '--retry=harness']);
    expect(plugin.hint).toMatch(/declare `harnessRetry: true`/);
  });
});

describe('faults that cannot act on the lock', () => {
  it.each([
    ['restart-empty', /^--nemesis=restart-empty cannot act on --lock=etcd: --lock=etcd uses no Redis master\.$/],
    [
      'clock',
      /^--nemesis=clock cannot act on --lock=etcd: .*etcd servers: etcd is a Go binary .* LD_PRELOAD clock shim cannot move it/,
    ],
    ['clock-strobe', /^--nemesis=clock-strobe cannot act on --lock=etcd: .*LD_PRELOAD clock shim cannot move it/],
    ['failover', /^--nemesis=failover cannot act on --lock=etcd: --lock=etcd uses no Redis/],
  ])('refuses --lock=etcd --nemesis=%s before anything starts, with why', async (fault, reason) => {
    const err = await refusal(['--lock=etcd', `--nemesis=${fault}`]);
    expect(err.message).toMatch(reason);
    expect(err.hint).toMatch(new RegExp(`drop ${fault} from --nemesis`));
  });

  it('names the faults that do apply in the hint', async () => {
    const err = await refusal(['--lock=etcd', '--nemesis=partition,clock,kill']);
    expect(err.message).toMatch(/^--nemesis=clock cannot act on --lock=etcd/);
    expect(err.hint).toBe('drop clock from --nemesis (--nemesis=partition,kill), or pick a lock it can reach');
  });

  it('refuses kill for Redis masters (restart-empty is theirs), and restart-empty without Redis', async () => {
    expect((await refusal(['--lock=redlock', '--nemesis=kill'])).message).toMatch(/use restart-empty/);
    expect((await refusal(['--lock=zookeeper', '--nemesis=restart-empty'])).message).toMatch(/uses no Redis master/);
  });

  it.each(['redis', 'redlock', 'redlock-npm', 'etcd', 'zookeeper', 'postgres', 'none', MY_LOCK])(
    'accepts every default fault of --lock=%s: no default injects nothing',
    async (lock) => {
      expect((await validate([`--lock=${lock}`])).defaultFaults.length).toBeGreaterThan(0);
    },
  );

  it('accepts the clock faults where the shim can move the lock servers', async () => {
    await expect(validate(['--lock=redis', '--nemesis=clock,clock-strobe'])).resolves.toBeDefined();
    await expect(validate(['--lock=postgres', '--nemesis=clock'])).resolves.toBeDefined();
  });

  it('refuses a plugin whose servers its own default faults cannot reach, the same way', () => {
    const plugin = resolveStrategy(
      {
        name: 'go-lock',
        needs: ['etcd'],
        token: 'none',
        defaultFaults: ['pause-holder', 'clock'],
        connect: () => Promise.reject(new Error('never connected: refused first')),
      },
      { lock: './go-lock.ts', moduleUrl: 'file:///x/go-lock.ts', builtin: false },
    );
    let err: unknown;
    try {
      checkStrategyOptions(resolveConfig(['--lock=etcd']), plugin); // the config's own --lock is not what is checked
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).message).toMatch(
      /^clock \(a default fault of "go-lock"\) cannot act on --lock=\.\/go-lock\.ts: .*shim cannot move it/,
    );
    expect((err as HarnessError).hint).toMatch(/pass --nemesis with the faults that apply/);
  });
});

describe('--etcd-nodes / --zk-nodes', () => {
  it('replace the ensemble size of a lock on etcd or ZooKeeper, and unlock majorities-ring at 5', async () => {
    const config = resolveConfig(['--lock=etcd', '--etcd-nodes=5', '--nemesis=majorities-ring']);
    const strategy = withEnsembleSizes(config, await loadStrategy('etcd'));
    expect(strategy.servers).toMatchObject({ etcd: 5, zk: 0 });
    expect(() => checkStrategyOptions(config, strategy)).not.toThrow();
    const three = resolveConfig(['--lock=etcd', '--nemesis=majorities-ring']);
    expect(() => checkStrategyOptions(three, withEnsembleSizes(three, strategy))).not.toThrow(); // already 5
    const plain = await loadStrategy('etcd');
    expect(() => checkStrategyOptions(three, withEnsembleSizes(three, plain))).toThrow(/add --etcd-nodes=5/);
  });

  it('refuse a size for servers the lock does not run on, and even or out-of-range sizes', async () => {
    const redis = resolveConfig(['--lock=redis', '--zk-nodes=5']);
    expect(() => withEnsembleSizes(redis, resolveStrategyOf(redis))).toThrow(/--lock=redis runs no ZooKeeper/);
    expect(() => resolveConfig(['--lock=etcd', '--etcd-nodes=4'])).toThrow(/3 or 5 members/);
    expect(() => resolveConfig(['--lock=zookeeper', '--zk-nodes=7'])).toThrow();
  });
});

function resolveStrategyOf(config: ReturnType<typeof resolveConfig>): ResolvedStrategy {
  return resolveStrategy({ name: 'redis-like', token: 'none', needs: ['redis'], servers: { redis: 1 } } as never, {
    lock: config.lock,
    moduleUrl: 'file:///x.ts',
    builtin: false,
  });
}

describe('--watchdog with a lock in another language', () => {
  it('a manifest that does not say `renews` does not renew: --watchdog is refused (it was taken, and renewed nothing)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-renews-'));
    try {
      const manifest = path.join(dir, 'lock.json');
      fs.writeFileSync(
        manifest,
        JSON.stringify({ command: ['/bin/sh', '-c', 'exit 0'], needs: ['redis'], token: 'none' }),
      );
      const err = await refusal([`--lock=${manifest}`, '--watchdog']);
      expect(err.message).toMatch(/declares `renews: false`/);
      fs.writeFileSync(
        manifest,
        JSON.stringify({ command: ['/bin/sh', '-c', 'exit 0'], needs: ['redis'], token: 'none', renews: true }),
      );
      expect((await validate([`--lock=${manifest}`, '--watchdog'])).renews).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('clock-rate-client where the clock shim cannot reach the client or prove it did', () => {
  it('refuses etcd-go (a Go binary) and a lock in a process of its own (Python, Java) with exit 254 and the reason', async () => {
    expect((await refusal(['--lock=etcd-go', '--nemesis=clock-rate-client'])).message).toBe(
      "--nemesis=clock-rate-client cannot act on --lock=etcd-go: --lock=etcd-go's client is a Go binary that reads the clock through the vDSO, not libc: the LD_PRELOAD clock shim moves neither its clocks nor its timers, so clock-rate-client cannot reach it.",
    );
    expect((await refusal(['--lock=kazoo', '--nemesis=clock-rate-client'])).message).toMatch(
      /^--nemesis=clock-rate-client cannot act on --lock=kazoo: --lock=kazoo runs its lock in a Python process of its own/,
    );
    expect((await refusal(['--lock=curator', '--nemesis=clock-rate-client'])).message).toMatch(
      /in a Java process of its own, which answers no clock request.*cannot read that process's\.$/,
    );
  });

  it('takes a lock that runs inside the Node client', async () => {
    await expect(validate(['--lock=redis', '--nemesis=clock-rate-client', '--watchdog'])).resolves.toBeDefined();
  });
});

// A renewal story without renewals was found only once the servers ran (the run then ended UNKNOWN): the options alone
// say it, so it is refused before anything boots, naming the option to give.
describe('a fault whose story the options rule out is refused before anything starts', () => {
  it.each([
    ['reply-loss-renew', 'it aims at a renewal'],
    ['one-way', 'its story is a renewal the holder never hears of'],
  ])('%s without --watchdog: 254, give --watchdog', async (fault, story) => {
    const err = await refusal(['--lock=redis', `--nemesis=${fault},pause-holder`]);
    expect(err.message).toBe(
      `--nemesis=${fault} cannot act on --lock=redis: ${story}, and without --watchdog the clients never renew: give --watchdog.`,
    );
    expect(err.hint).toBe(`give what it names, or drop ${fault} from --nemesis (--nemesis=pause-holder)`);
  });

  it('a section shorter than the watchdog period: 254, give --think', async () => {
    const err = await refusal(['--lock=redis', '--nemesis=reply-loss-renew', '--watchdog', '--think=100']);
    expect(err.message).toContain('a section of --think=100 ms ends before the watchdog');
    expect(err.message).toMatch(/give --think=\d+ or more\.$/);
  });

  it('with --watchdog and a long section, the options leave the story possible', async () => {
    await expect(validate(['--lock=redis', '--nemesis=one-way', '--watchdog', '--think=900'])).resolves.toBeDefined();
  });
});
