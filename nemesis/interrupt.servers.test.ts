import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_INTERRUPTED } from '../common/shutdown.ts';
import { recordedProcessesUnder, testResultsDir } from '../test/integration/processes.ts';
import { startCli } from '../test/support/cli-run.ts';

/**
 * Run the CLI as a user would and press Ctrl-C (SIGINT) once a line matches `when`; `recorded` is how many
 * processes the run's pid files (under `results`) named then, so "nothing left running" afterwards is not vacuous.
 */
async function interruptWhen(args: string[], when: RegExp, results: string) {
  const run = startCli(args, { results });
  const signalled = await run.line(when).then(
    () => true,
    () => false,
  );
  const recorded = recordedProcessesUnder(results).length;
  if (signalled) run.signal('SIGINT');
  const { code, stderr } = await run.exit;
  return { run, code, stderr, signalled, recorded };
}

/**
 * "Always safe to stop": Ctrl-C while a fault is in effect — a client stopped, a server stopped, a server
 * killed and waiting to restart — heals and stops everything; nothing of the run is left, stopped or otherwise.
 */
describe('Ctrl-C during a fault', () => {
  it.each([
    [
      'a holder SIGSTOPped',
      ['--lock=redis', '--nemesis=pause-holder', '--pause=60000', '--verbose'],
      /pause-holder start/,
    ],
    [
      'a Redis master SIGSTOPped',
      ['--lock=redlock', '--nemesis=pause-node', '--pause=60000', '--verbose'],
      /pause-node start/,
    ],
    [
      'masters killed, restart pending',
      ['--lock=redlock', '--nemesis=restart-empty', '--restart-delay=60000', '--verbose'],
      /restart-empty start/,
    ],
  ])('%s: exit 130, nothing left running', async (_what, args, when) => {
    const results = testResultsDir('nemesis-interrupt');
    const r = await interruptWhen([...args, '--time-limit=120'], when, results);
    expect(r.signalled, r.stderr).toBe(true);
    expect(r.recorded, 'the run recorded no live process when it was signalled').toBeGreaterThan(0);
    expect(r.code, r.stderr).toBe(EXIT_INTERRUPTED);
    // Children were SIGKILLed by the teardown; the kernel reaps them a moment later.
    expect(await r.run.leftoversOnceReaped(), r.stderr).toEqual([]);
    const lockDir = path.join(results, args[0].slice('--lock='.length));
    const [runDir] = fs.readdirSync(lockDir).map((d) => path.join(lockDir, d));
    const history = fs
      .readFileSync(path.join(runDir, 'history.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const nemesis = history.filter((o) => o.process === 'nemesis');
    // The fault in effect was healed and its end recorded before the journal closed.
    expect(nemesis.map((o) => o.value.phase)).toEqual(['start', 'end']);
    fs.rmSync(results, { recursive: true, force: true });
  });
});
