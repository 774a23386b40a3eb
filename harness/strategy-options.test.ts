import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStrategy } from '../workloads/load-strategy.ts';
import type { ResolvedStrategy } from '../workloads/resolved-strategy.ts';
import { HarnessError } from '../common/errors.ts';
import { resolveConfig } from './options.ts';
import { checkStrategyOptions } from './strategy-options.ts';

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
});
