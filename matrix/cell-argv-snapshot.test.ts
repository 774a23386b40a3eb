import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../cli/command-line.ts';
import { Shutdown } from '../common/shutdown.ts';
import { resolveConfig, type Config } from '../harness/run-argv.ts';
import { nightlyCommand } from '../nightly/nightly.ts';
import { libraryTurnOf, LIBRARY_TURNS } from '../nightly/nightly-library-sample.ts';
import { runMatrix } from './matrix.ts';
import type { RunOne } from './cell-decision.ts';

/**
 * The argv every cell of `--lock=all` and of `nightly` (each library turn) runs with and records (its test.json, its
 * replay line), and the refusals the matrix's construction cells quote: captured from the matrix and the night
 * themselves on a runner that records each run's Config and fails it (so every measured cell also asks for its
 * reruns), and compared with the text main produced before the cells were built from a typed Config
 * (`__snapshots__/cell-argv.txt`). The text must not change: stored nights are compared cell by cell on it.
 */
const ROOT = '/tmp/fencepost-cell-argv-snapshot';
afterAll(() => fs.rmSync(ROOT, { recursive: true, force: true }));

function recorder(): { runOne: RunOne; seen: Readonly<Config>[] } {
  const seen: Readonly<Config>[] = [];
  const runOne: RunOne = async (config) => {
    seen.push(config);
    throw new Error('recorded, not run');
  };
  return { runOne, seen };
}

/** One line per run: its argv exactly (JSON, so a space inside a value shows). */
const argvLines = (seen: readonly Readonly<Config>[]) => seen.map((c) => JSON.stringify(c.argv));

async function matrixArgv(name: string, argv: readonly string[]): Promise<string[]> {
  const dir = path.join(ROOT, name);
  const config = resolveConfig([...argv, `--results=${dir}`]);
  const { runOne, seen } = recorder();
  const log: string[] = [];
  await runMatrix(config, new Shutdown(), (l) => log.push(l), runOne);
  return [
    `## --lock=all ${name}: ${JSON.stringify(config.argv)}`,
    ...argvLines(seen),
    ...log.filter((l) => l.startsWith('by construction:')),
  ];
}

async function nightArgv(name: string, argv: readonly string[]): Promise<string[]> {
  const dir = path.join(ROOT, name);
  const config = parseCommandLine(['nightly', ...argv, `--results=${dir}`]);
  const { runOne, seen } = recorder();
  await nightlyCommand(config, new Shutdown(), () => {}, runOne);
  const night = JSON.parse(fs.readFileSync(path.join(dir, 'nightly.json'), 'utf8')) as {
    settings: string[];
    command: string;
  };
  return [
    `## nightly ${name} (library turn ${libraryTurnOf(config.seed)}): ${JSON.stringify(config.argv)}`,
    `settings ${JSON.stringify(night.settings)}`,
    `command ${night.command}`,
    ...argvLines(seen),
  ];
}

describe("every cell's argv", () => {
  it('is the text main recorded, for --lock=all and for each library turn of nightly', async () => {
    const lines = [
      ...(await matrixArgv('plain', ['--lock=all', '--seed=11'])),
      ...(await matrixArgv('options', [
        '--lock=all',
        '--time-limit=12',
        '--concurrency=3',
        '--ttl',
        '800',
        '--think=40',
        '--watchdog',
        '--pause=1500',
        '--restart-delay=900',
        '--retry=harness',
        '--stop-on-lost-update',
        '--nemesis-interval=2000',
        '--runs=2',
        '--seed=5',
      ])),
      ...(await matrixArgv('remedies', ['--lock=all', '--matrix=remedies', '--seed', '3', '--max-stall=4000'])),
    ];
    for (let turn = 0; turn < LIBRARY_TURNS; turn++)
      lines.push(...(await nightArgv(`turn-${turn}`, [`--seed=${300 + turn}`, '--parallel=1'])));
    lines.push(
      ...(await nightArgv('options', [
        '--seed=301',
        '--time-limit',
        '20',
        '--ttl=1500',
        '--watchdog',
        '--parallel=1',
        '--matrix=faults',
        '--stop-on-lost-update=false',
      ])),
    );
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('./__snapshots__/cell-argv.txt');
  });
});
