import path from 'node:path';
import { cellStatus, type NightlyCell, type NightlyResult } from './nightly-result.ts';
import { runPath } from '../store/run-dir.ts';

/**
 * The night as JUnit XML, the format every CI test publisher reads: one test case per cell. A measured cell that
 * contradicts its expectation is a <failure>, one that stayed inconclusive an <error> (nothing was decided), a
 * cell decided by construction is <skipped> with why. Each message says what was found, where the expectation came
 * from and which report shows it.
 */

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
// XML 1.0 forbids most control characters even escaped: a client's error text must not make the file unreadable.
const xml = (s: unknown) =>
  [...String(s ?? '')]
    .filter((ch) => ch.charCodeAt(0) >= 0x20 || ch === '\t' || ch === '\n' || ch === '\r')
    .join('')
    .replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);

export const caseName = (c: NightlyCell) => `${c.lock} × ${c.column ?? c.fault}`;

function finding(c: NightlyCell, reportsFrom: string): string {
  const report = c.runDir ? runPath(path.join(reportsFrom, c.runDir), 'report') : 'no run folder';
  const runs = c.runs?.length
    ? `; ${c.runs.length} run${c.runs.length > 1 ? 's' : ''}, ${c.lostUpdates} lost update${c.lostUpdates === 1 ? '' : 's'} in the run shown`
    : '';
  const hits = c.faultHits !== undefined ? `, fault hit ${c.faultHits}×` : '';
  return `expected ${c.expected} (from ${c.from}${c.why ? `: ${c.why}` : ''}), observed ${c.observed}${runs}${hits}${c.note ? ` — ${c.note}` : ''}; report: ${report}`;
}

/** `reportsFrom`: how report paths are written (the results folder as the user named it). */
export function renderJunit(result: NightlyResult, reportsFrom: string): string {
  const cases = result.cells.map((c) => {
    const status = cellStatus(c);
    const open = `    <testcase classname="fencepost.${xml(c.lock)}" name="${xml(caseName(c))}">`;
    const message = finding(c, reportsFrom);
    if (status === 'matched') return `${open}\n      <system-out>${xml(message)}</system-out>\n    </testcase>`;
    if (status === 'by construction')
      return `${open}\n      <skipped message="${xml(`decided by construction, not run: ${c.note ?? ''}`)}"/>\n    </testcase>`;
    const tag = status === 'contradicted' ? 'failure' : 'error';
    const type = status === 'contradicted' ? 'contradicts-expectation' : 'inconclusive';
    return `${open}\n      <${tag} message="${xml(`${status}: ${message}`)}" type="${type}">${xml(message)}</${tag}>\n    </testcase>`;
  });
  // A shard that left no result is an error of its own: CI shows it even when every cell that ran matched.
  for (const shard of result.missingShards ?? []) {
    const message = `shard ${shard} left no result: the measured cells it held did not run`;
    cases.push(
      `    <testcase classname="fencepost.nightly" name="${xml(`shard ${shard}`)}">\n      <error message="${xml(message)}" type="missing-shard">${xml(message)}</error>\n    </testcase>`,
    );
  }
  const missing = result.missingShards?.length ?? 0;
  const count = (s: string) =>
    result.cells.filter((c) => cellStatus(c) === s).length + (s === 'inconclusive' ? missing : 0);
  const tests = result.cells.length + missing;
  const suite = `fencepost nightly${result.shard ? ` shard ${result.shard.index}/${result.shard.count}` : ''}`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="fencepost nightly" tests="${tests}" failures="${count('contradicted')}" errors="${count('inconclusive')}" skipped="${count('by construction')}" time="${(result.wallMs / 1000).toFixed(3)}">
  <testsuite name="${xml(suite)}" tests="${tests}" failures="${count('contradicted')}" errors="${count('inconclusive')}" skipped="${count('by construction')}" time="${(result.wallMs / 1000).toFixed(3)}" timestamp="${xml(result.startedAt)}">
    <properties>
      <property name="seed" value="${xml(result.seed)}"/>
      <property name="settings" value="${xml(result.settings.join(' '))}"/>
      <property name="command" value="${xml(result.command)}"/>
    </properties>
${cases.join('\n')}
  </testsuite>
</testsuites>
`;
}
