import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scriptedRun } from '../support/scripted-run.ts';
import { galleryCases, scenarioOf } from '../support/gallery-cases.ts';
import { readScenarioFile } from '../../scenario/scenario-file.ts';
import { isLostReplyExpect, lostReplyFindings } from '../../scenario/scenario-expect.ts';

/**
 * The gallery of broken locks (examples/broken/) by script: each broken lock is caught by the scenario of its flaw
 * (its `exposedBy.script`) — followed step by step, INVALID, with a lost update — and its `.fixed.ts` twin, given as
 * `--lock` to the very same script, is VALID, the lock observably stopping the story (a step held: the second client
 * kept out, the stale holder's write skipped). Step-gated on the history, so it holds every time and each run takes
 * seconds. Every case has its script: none is left to a free run waiting for the defect to show by chance.
 *
 * A case whose flaw is a lost reply's liveness cost (reentrant-resend.ts: a lock never released) is caught by the
 * lost-replies finding its scenario expects, the verdict VALID; its twin under the same script shows no finding.
 *
 * The cases are the files: a broken lock without `exposedBy`, without a twin, or whose script names no file fails
 * here.
 */
const cases = await galleryCases();
const scripted = cases.filter((c) => scenarioOf(c) !== null).map((c) => c.name);

describe('a gallery of broken locks, by script', () => {
  it('has at least six cases, each with its twin and the script of its flaw', () => {
    expect(cases.length).toBeGreaterThanOrEqual(6);
    for (const c of cases) {
      expect(c.hasTwin, `${c.name}.fixed.ts`).toBe(true);
      expect(c.by?.script, `examples/broken/${c.name}.ts: export \`exposedBy\` with its \`script\``).toBeDefined();
      const file = scenarioOf(c)!;
      expect(fs.existsSync(file), `${c.name}: ${file}`).toBe(true);
    }
    expect(scripted).toEqual(cases.map((c) => c.name));
  });

  const findingOf = (file: string) => {
    const read = readScenarioFile(file);
    const e = 'scenario' in read ? read.scenario.expect : null;
    return isLostReplyExpect(e) ? e.anomaly : null;
  };
  const byFailure = scripted.filter((name) => findingOf(scenarioOf(cases.find((c) => c.name === name)!)!) === null);
  const byFinding = scripted.filter((name) => !byFailure.includes(name));

  describe.each(byFinding)('%s (a lost-replies finding)', (name) => {
    const file = scenarioOf(cases.find((c) => c.name === name)!)!;
    const finding = findingOf(file)!;

    it('its script catches it: followed, the finding its scenario expects', async () => {
      const run = await scriptedRun({ file }, [`--lock=./examples/broken/${name}.ts`]);
      console.log(`${name}.ts:\n${run.summary}`);
      expect(run.record.followed, run.summary).toBe(true);
      expect(lostReplyFindings(run.outcome.results), run.summary).toContain(finding);
      expect(run.outcome.results.checkers['lost-replies'].valid, run.summary).toBe(false);
      expect(run.leftovers).toEqual([]);
    });

    it('its twin shows no lost-replies finding under the same script, VALID', async () => {
      const run = await scriptedRun({ file }, [`--lock=./examples/broken/${name}.fixed.ts`]);
      console.log(`${name}.fixed.ts:\n${run.summary}`);
      expect(run.record.followed, run.summary).toBe(true);
      expect(lostReplyFindings(run.outcome.results), run.summary).toEqual([]);
      expect(run.outcome.results.valid, run.summary).toBe(true);
      expect(run.leftovers).toEqual([]);
    });
  });

  describe.each(byFailure)('%s', (name) => {
    const file = scenarioOf(cases.find((c) => c.name === name)!)!;

    it('its script catches it: followed, INVALID, a lost update', async () => {
      const run = await scriptedRun({ file }, [`--lock=./examples/broken/${name}.ts`]);
      console.log(`${name}.ts:\n${run.summary}`);
      expect(run.record.followed, run.summary).toBe(true);
      expect(
        run.record.steps.map((s) => s.status),
        run.summary,
      ).toEqual(run.record.steps.map(() => 'done'));
      expect(run.outcome.results.lostUpdates, run.summary).toBeGreaterThan(0);
      expect(run.outcome.results.valid).toBe(false);
      expect(run.outcome.exitCode).toBe(1);
      expect(run.leftovers).toEqual([]);
    });

    it('its twin is VALID under the same script, the lock stopping the story', async () => {
      const run = await scriptedRun({ file }, [`--lock=./examples/broken/${name}.fixed.ts`]);
      console.log(`${name}.fixed.ts:\n${run.summary}`);
      expect(run.record.followed, run.summary).toBe(true);
      expect(
        run.record.steps.some((s) => s.status === 'held'),
        run.summary,
      ).toBe(true);
      expect(run.outcome.results.lostUpdates, run.summary).toBe(0);
      expect(run.outcome.results.valid, run.summary).toBe(true);
      expect(run.outcome.exitCode).toBe(0);
      expect(run.leftovers).toEqual([]);
    });
  });
});
