import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { remedyOracleMarkdown } from './remedy-oracle-table.ts';
import { BEGIN, END, readmeCounts, withReadmeTables, withRemedyTable } from './write-readme-table.ts';
import { matrixPlan } from './matrix.ts';

describe("the README's failure-mode and remedy tables", () => {
  it('are the oracle data, as remedyOracleMarkdown writes them', () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');
    const from = readme.indexOf(BEGIN);
    const to = readme.indexOf(END);
    expect(from, 'README has the begin marker').toBeGreaterThan(-1);
    expect(to, 'README has the end marker after it').toBeGreaterThan(from);
    // To refresh the README after changing the oracle: `npm run readme:tables`.
    expect(readme.slice(from + BEGIN.length, to).trim()).toBe(remedyOracleMarkdown());
    // …and that command leaves an up-to-date README as it is.
    expect(withRemedyTable(readme)).toBe(readme);
  });

  it("quote the oracle's cell counts (per table, and the nightly's scope) as the oracle data gives them", () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');
    for (const [name, text] of Object.entries(readmeCounts())) {
      const m = new RegExp(`<!-- gen:${name} -->([\\s\\S]*?)<!-- /gen:${name} -->`).exec(readme);
      expect(m?.[1], `README's gen:${name} (refresh: npm run readme:tables)`).toBe(text);
    }
    expect(withReadmeTables(readme)).toBe(readme);
    // The counts are the plan's, not a copy of the README's.
    const measured = (t: 'faults' | 'remedies') => matrixPlan(t).filter((p) => p.oracle.decided === 'measured').length;
    expect(readmeCounts().measured).toBe(
      `${measured('faults')} in the fault table, ${measured('remedies')} in the remedy table`,
    );
  });

  it('mark measured cells bold and cells decided by construction with (c)', () => {
    const md = remedyOracleMarkdown();
    expect(md).toContain(
      '| `redis` | **lost** | **lost** | **safe** | **lost** | **safe** | refused (c) | **safe** | **lost** | refused (c) |',
    );
    expect(md).toContain(
      '| `etcd` | n/a (c) | **safe** | refused (c) | refused (c) | n/a (c) | refused (c) | n/a (c) | **lost** | **safe** |',
    );
    // A liveness expectation is written beside the safety one: redlock-npm's remedy for its package's livelock.
    expect(md).toContain(
      '| `redlock-npm` | n/a (c) | **lost** | **safe, may starve** | **lost** | **safe** | **lost, recovers** | **safe** | **lost** | refused (c) |',
    );
    expect(md).toContain(
      "| a library's retry loop livelocks after a restart | fault table: Redis restart empty | --retry=harness:",
    );
    expect(md).toContain(
      '| holder paused > TTL | fault table: holder paused > TTL | --watchdog | holder paused > TTL, --watchdog | does not hold',
    );
  });
});
