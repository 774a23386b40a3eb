import type { PromiseClass, PromiseOverlap, PromiseSide } from '../../checkers/promise/promise-overlaps.ts';
import { fmtAt, plural } from '../format.ts';
import type { Finding, StoryInput } from './finding.ts';

/**
 * The promise checker's overlaps (checkers/promise/), one line each, grouped by whose fault they were: the lock's
 * broken promises (an anomaly: it granted inside a lease it had promised), holders that outlived their lease or were
 * kept in by their own clock (context: what fencing is for), and those whose fault is unknown. Each line names both
 * holds — when each held and what the lock promised it — and the fault active then.
 */

/** Lines per card of the holders' overlaps; the rest are counted (results.json lists every overlap). */
export const PROMISE_LINES = 12;

const ORDER: readonly PromiseClass[] = ['broke', 'outlived', 'own-clock', 'unknown'];

/** The class as a finding's line opens with it. */
export const PROMISE_CLASS_WORDS: Record<PromiseClass, string> = {
  broke: 'broke its promise',
  outlived: 'outlived its lease',
  'own-clock': 'kept in by its own clock',
  unknown: 'whose fault is unknown',
};

const ms = (ns: number) => ns / 1e6;

function sideText(s: PromiseSide): string {
  const held = `held ${fmtAt(ms(s.acquiredAt))} → ${fmtAt(ms(s.releasedAt))}`;
  const promised = s.window
    ? `promised ${fmtAt(ms(s.window.start))} → ${fmtAt(ms(s.window.end))}`
    : `promise unknown${s.unknownWhy ? `: ${s.unknownWhy}` : ''}`;
  return `p${s.process} (${held}, ${promised})`;
}

/** One overlap: `broke its promise — p3 (held …, promised …) and p5 (…), account 0; cause: clock.` */
export function overlapLine(o: PromiseOverlap): string {
  const causes = o.causes.filter((c) => c !== 'no fault');
  const cause = o.class === 'unknown' ? '' : `; cause: ${causes.length ? causes.join(', ') : 'no fault active'}`;
  const late = o.late.length ? `; late: ${o.late.map((p) => `p${p}`).join(' and ')}` : '';
  return `${PROMISE_CLASS_WORDS[o.class]} — ${sideText(o.a)} and ${sideText(o.b)}, account ${o.account}${late}${cause}.`;
}

function title(cls: PromiseClass, list: readonly PromiseOverlap[], why: string | undefined): string {
  const n = list.length;
  switch (cls) {
    case 'broke':
      return `The lock broke its promise ${n === 1 ? 'once' : `${n} times`}: it granted inside a lease it had promised`;
    case 'outlived':
      return `${plural(n, 'overlap')} where a holder outlived its lease (the holder's doing: what fencing is for)`;
    case 'own-clock':
      return `${plural(n, 'overlap')} where a holder's own clock, set back by a fault, kept it past its lease`;
    default:
      return `${plural(n, 'overlap')} whose fault is unknown${why ? `: ${why}` : ''}`;
  }
}

export function promiseFindings(input: StoryInput): Finding[] {
  const r = input.results.checkers?.promise;
  const overlaps = r?.overlaps ?? [];
  const out: Finding[] = [];
  for (const cls of ORDER) {
    const list = overlaps.filter((o) => o.class === cls);
    if (list.length === 0) continue;
    // Every broken promise is listed (the run's summary says the report lists every one); the holder's overlaps,
    // hundreds under a long pause-holder run, up to PROMISE_LINES.
    const shown = cls === 'broke' ? list : list.slice(0, PROMISE_LINES);
    // "Show in timeline" zooms onto the first few, where the bars can still be told apart.
    const first = list.slice(0, 3);
    const starts = first.map((o) => ms(Math.min(o.a.acquiredAt, o.a.window?.start ?? Infinity)));
    const ends = first.map((o) => ms(Math.max(o.a.releasedAt, o.b.releasedAt, o.b.window?.end ?? 0)));
    out.push({
      id: `promise-${cls}`,
      kind: 'promise',
      severity: cls === 'broke' ? 'bad' : 'note',
      title: title(cls, list, r?.unknownWhy),
      sentences: [
        ...shown.map(overlapLine),
        ...(list.length > shown.length
          ? [`… and ${list.length - shown.length} more (results.json lists every one).`]
          : []),
      ],
      fromMs: Math.min(...starts),
      toMs: Math.max(...ends),
      ops: shown.flatMap((o) => [o.a.acquireIndex, o.b.acquireIndex, ...o.lateWrites.map((w) => w.invokeIndex)]),
    });
  }
  return out;
}
