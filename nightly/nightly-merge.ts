import path from 'node:path';
import { mergeServers } from './night-servers.ts';
import { HarnessError } from '../common/errors.ts';
import { cellKey } from './nightly-plan.ts';
import type { NightlyCell, NightlyResult } from './nightly-result.ts';

/**
 * The shards of one night as one result, cell for cell what a single machine would have recorded: measured cells
 * from the shard that ran them, cells decided by construction once, in plan order; run folders re-pointed from
 * each shard's folder to `outDir`. Shards of different nights or settings, a shard given twice or one missing
 * are refused (exit 254): a merge that quietly drops cells would pass a night that did not run them. `partial`
 * (the emitted night's merge, after its bound) merges the shards there are instead, naming the missing ones in
 * `missingShards`: such a night never passes (nightExit).
 */
export function mergeShards(
  parts: readonly { dir: string; result: NightlyResult }[],
  outDir: string,
  partial = false,
): NightlyResult {
  const bad = (message: string): never => {
    throw new HarnessError('bad-arguments', message, {
      hint: 'give `nightly merge` the --results folders of every shard of one night (same --seed and options)',
    });
  };
  if (parts.length === 0) bad('nightly merge: no shard folders given.');
  const first = parts[0].result;
  const count = first.shard?.count ?? 1;
  const seen = new Map<number, string>();
  for (const { dir, result: r } of parts) {
    const name = r.shard ? `shard ${r.shard.index}/${r.shard.count}` : 'an unsharded night';
    if ((r.shard?.count ?? 1) !== count)
      bad(`nightly merge: ${dir} holds ${name}, but ${parts[0].dir} is one of ${count}.`);
    if (r.seed !== first.seed)
      bad(
        `nightly merge: ${dir} ran with seed ${r.seed}, ${parts[0].dir} with seed ${first.seed}: not the same night.`,
      );
    if (r.settings.join(' ') !== first.settings.join(' '))
      bad(
        `nightly merge: ${dir} ran with "${r.settings.join(' ')}", ${parts[0].dir} with "${first.settings.join(' ')}".`,
      );
    const index = r.shard?.index ?? 1;
    if (seen.has(index)) bad(`nightly merge: ${name} is in both ${seen.get(index)} and ${dir}.`);
    seen.set(index, dir);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length && !partial)
    bad(
      `nightly merge: shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing (got ${parts.length} of ${count}).`,
    );

  const cells = new Map<string, NightlyCell>();
  for (const { dir, result } of parts) {
    for (const c of result.cells) {
      if (c.decided === 'construction' && cells.has(cellKey(c))) continue;
      const runDir = c.runDir ? path.relative(outDir, path.resolve(dir, c.runDir)) : '';
      const runs = c.runs?.map((r) => ({
        ...r,
        runDir: r.runDir ? path.relative(outDir, path.resolve(dir, r.runDir)) : '',
      }));
      cells.set(cellKey(c), { ...c, runDir, ...(runs ? { runs } : {}) });
    }
  }
  return {
    ...first,
    shard: null,
    startedAt: parts.map((p) => p.result.startedAt).sort()[0],
    // The longest shard: the night took as long as its slowest machine.
    wallMs: Math.max(...parts.map((p) => p.result.wallMs)),
    cells: [...cells.values()].sort((a, b) => a.index - b.index),
    ...(missing.length ? { missingShards: missing.map((i) => `${i}/${count}`) } : {}),
    ...(parts.some((p) => p.result.servers) ? { servers: mergeServers(parts.map((p) => p.result.servers)) } : {}),
  };
}
