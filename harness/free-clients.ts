import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredTestJson } from '../store/test-json.ts';
import { MAX_CLIENT_DEATHS } from './client-deaths.ts';
import { clientsRunning } from './clients-running.ts';
import type { ClientsPhaseEnv, RunClients } from './run-clients.ts';

/**
 * Clients that run free for the time limit, ended early by a loss with --stop-on-lost-update or by the servers'
 * watch (a target's abort): what ended them goes into the test record.
 */
export const freeClients: RunClients = {
  specs: (specs) => specs,
  async run(env) {
    const stopped = await runForTheLimit(env);
    if (!stopped) return {};
    return 'aborted' in stopped ? { aborted: stopped.aborted } : { stoppedEarly: stopped };
  },
};

/**
 * The run itself: the nemesis runs while the clients work, for --time-limit, with progress on the console — or
 * until every client has died too often (nothing left to measure), or with --stop-on-lost-update until the first
 * lost update shows (returned: the test record keeps it). Returns once the nemesis has stopped.
 */
async function runForTheLimit({
  config,
  journal,
  pool,
  nemesis,
  stats,
  log,
  aborted,
}: ClientsPhaseEnv): Promise<NonNullable<StoredTestJson['stoppedEarly']> | { aborted: string } | null> {
  // The time limit is the clients' time: it starts once every client began its loop (clients-running.ts).
  const { waitedMs, silent } = await clientsRunning(journal, config.concurrency, pool.allGaveUp);
  if (silent.length)
    log(
      `fencepost: clients ${silent.join(', ')} had not begun after ${(waitedMs / 1000).toFixed(1)} s; the time limit starts anyway (see logs/client-<n>.log)`,
    );
  else if (waitedMs >= 1000)
    log(`fencepost: every client began its loop after ${(waitedMs / 1000).toFixed(1)} s; the time limit starts now`);
  const abort = new AbortController();
  const nemesisDone = nemesis
    .run(abort.signal)
    .catch((err) => log(`fencepost: nemesis failed: ${(err as Error).message}`));
  stats.begin();
  const progress = setInterval(() => stats.print(), stats.tty ? 1000 : 10_000);
  // A run whose clients all kept dying has nothing left to measure: end it rather than wait out the limit.
  const limit = new AbortController();
  const timeUp = sleep(config.timeLimitS * 1000, false, { signal: limit.signal }).catch(() => false);
  const lost = config.stopOnLostUpdate ? stats.lostUpdate : new Promise<never>(() => {});
  const ended = await Promise.race([
    timeUp,
    pool.allGaveUp.then(() => true as const),
    lost,
    aborted.then((reason) => ({ aborted: reason })),
  ]);
  limit.abort();
  if (ended === true) {
    log(`fencepost: every client died ${MAX_CLIENT_DEATHS} times; ending the run early (see logs/client-<n>.log)`);
  }
  const stoppedEarly =
    typeof ended === 'object' && 'atS' in ended ? { ...ended, atS: Math.round(ended.atS * 1000) / 1000 } : null;
  if (stoppedEarly) {
    log(
      `fencepost: --stop-on-lost-update: write #${stoppedEarly.writeId} on account ${stoppedEarly.account} did not see #${stoppedEarly.missed}, at ${stoppedEarly.atS.toFixed(1)} of ${config.timeLimitS} s; ending the run, the checkers decide`,
    );
  }
  clearInterval(progress);
  stats.print(true);
  abort.abort();
  await nemesisDone;
  return typeof ended === 'object' && 'aborted' in ended ? ended : stoppedEarly;
}
