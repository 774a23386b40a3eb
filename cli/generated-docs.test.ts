import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { remedyOracleMarkdown } from '../matrix/remedy-oracle-table.ts';
import { GENERATED, GENERATED_PAGES, matrixCounts, withGenerated } from './generated-docs.ts';
import { matrixPlan } from '../matrix/matrix.ts';
import { faultOracleMarkdown, README_COLUMNS } from '../matrix/fault-oracle-table.ts';
import { ORACLE_COLUMNS } from '../matrix/oracle.ts';
import { OPTIONS } from './command-line.ts';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { MANIFEST_KEYS } from '../workloads/foreign/manifest.ts';

const ROOT = path.join(import.meta.dirname, '..');
const read = (page: string) => fs.readFileSync(path.join(ROOT, page), 'utf8');

describe('the generated parts of the docs', () => {
  // To refresh the pages after changing the code they restate: `npm run docs:generate`.
  it.each(Object.keys(GENERATED_PAGES))('%s says what the code says', (page) => {
    const text = read(page);
    expect(withGenerated(text, page), `${page} is stale: run npm run docs:generate`).toBe(text);
  });

  it('holds each part where it belongs, between its markers', () => {
    const matrix = read('docs/matrix.md');
    const between = (text: string, name: string) =>
      new RegExp(`<!-- gen:${name} -->([\\s\\S]*?)<!-- /gen:${name} -->`).exec(text)?.[1];
    expect(between(matrix, 'remedy-oracle')?.trim()).toBe(remedyOracleMarkdown());
    expect(between(matrix, 'fault-oracle')?.trim()).toBe(faultOracleMarkdown());
    // The README carries the five columns every lock meets, and names the others it leaves to docs/matrix.md.
    const readme = read('README.md');
    expect(between(readme, 'fault-oracle-readme')?.trim()).toBe(faultOracleMarkdown(README_COLUMNS));
    for (const c of ORACLE_COLUMNS)
      expect(README_COLUMNS.includes(c.id) ? between(readme, 'fault-oracle-readme') : readme, c.title).toContain(
        c.title,
      );
    const cli = between(read('docs/cli.md'), 'options')!;
    for (const o of OPTIONS) expect(cli, o.name).toContain(`\`--${o.name}`);
    const faults = between(read('docs/faults.md'), 'faults')!;
    for (const f of FAULT_NAMES) expect(faults, f).toContain(`| \`${f}\``);
  });

  it('refuses a page without a marker it must carry, and a marker nothing generates', () => {
    expect(() => withGenerated('no markers', 'docs/nightly.md')).toThrow(/has no "<!-- gen:nightly -->" marker/);
    expect(() => withGenerated('<!-- gen:nope -->x<!-- /gen:nope -->', 'x.md')).toThrow(
      /no generated part is called "nope"/,
    );
    expect(withGenerated('a <!-- gen:nightly -->old<!-- /gen:nightly --> b', 'x.md')).toBe(
      `a <!-- gen:nightly -->${GENERATED.nightly.text()}<!-- /gen:nightly --> b`,
    );
  });

  it("quotes the oracle's cell counts as the plan gives them", () => {
    const measured = (t: 'faults' | 'remedies' | 'margins') =>
      matrixPlan(t).filter((p) => p.oracle.decided === 'measured').length;
    expect(matrixCounts().measured).toBe(
      `${measured('faults')} in the fault table, ${measured('remedies')} in the remedy table, ${measured('margins')} margins`,
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
    expect(faultOracleMarkdown()).toContain('| `etcd` | **safe** | **lost** | n/a (c) | n/a (c) | **safe** |');
  });

  // The newcomer found the manifest's fields only with grep, in another section, and no list of `needs` names.
  it("docs/protocol.md's manifest table has a row for every field a manifest may have", () => {
    const page = read('docs/protocol.md');
    const table = page.slice(page.indexOf('## The manifest'), page.indexOf('## The example'));
    for (const key of MANIFEST_KEYS) expect(table, key).toContain(`| \`${key}\` |`);
    expect(table).toContain('`redis`, `etcd`, `zk`');
  });
});
