import type { CheckerResults } from '../checkers/run-results.ts';
import type { OpRef } from '../checkers/linearizable.ts';
import { escapeHtml } from './html.ts';
import { pairValue, processLabel, type TimedPair, type RunIndex } from './op-pairs.ts';
import { summarize } from './timeline-data.ts';

/**
 * A linearizability counterexample drawn the way Porcupine's visualiser does: one lane per process, each op a bar
 * from its call to its return, the ops of the longest linearizable prefix numbered in the order the search placed
 * them, and the op that could not be placed in red. Calls and returns are spaced by their order in the history,
 * not their times, so that ops a microsecond apart stay distinguishable (the search only sees that order).
 *
 * Reads the result of checkers/linearizable.ts defensively: only `counterexample.{op, prefixTail, concurrent,
 * window, message, state}` are used and any of them may be missing.
 */

interface Ref {
  process: string;
  description: string;
  indexes: number[];
}

export type BarRole = 'blocked' | 'prefix' | 'concurrent' | 'earlier';

export interface CounterexampleBar {
  process: string;
  description: string;
  role: BarRole;
  /** 1-based position in the linearization, for prefix ops. */
  order: number | null;
  first: number;
  /** null: the op never returned (Porcupine draws it to infinity). */
  last: number | null;
}

export interface CounterexampleView {
  checker: string;
  /** false for a checker that reports without deciding the verdict (`decides: false`, e.g. mutex-linearizable). */
  decides: boolean;
  model: string | null;
  message: string;
  state: string | null;
  bars: CounterexampleBar[];
}

function ref(v: OpRef | undefined): Ref | null {
  // Negative indexes are the model's own initial ops, not in the history.
  const indexes = (v?.indexes ?? []).filter((i) => i >= 0);
  if (!v) return null;
  if (indexes.length === 0) return null;
  return { process: String(v.process ?? '?'), description: String(v.description ?? ''), indexes };
}

function span(index: RunIndex, indexes: number[]): { first: number; last: number | null } {
  const sorted = [...indexes].sort((a, b) => a - b);
  const last = sorted[sorted.length - 1];
  const lastPair = index.byIndex.get(last);
  const open = lastPair ? lastPair.outcome === 'info' || lastPair.outcome === 'open' : false;
  return { first: sorted[0], last: open ? null : last };
}

/** Every failed checker that carries a counterexample (normally `linearizable`, then informational ones). */
export function counterexampleViews(
  checkers: Partial<CheckerResults> | undefined,
  index: RunIndex,
): CounterexampleView[] {
  const out: CounterexampleView[] = [];
  // The two checkers whose results can carry one: the deciding `linearizable` first.
  for (const name of ['linearizable', 'mutex-linearizable'] as const) {
    const r = checkers?.[name];
    const cx = r?.valid === false ? r.counterexample : undefined;
    if (!cx) continue;
    const blocked = ref(cx.op);
    const tail = (cx.prefixTail ?? []).map(ref).filter((x): x is Ref => x !== null);
    const concurrent = (cx.concurrent ?? []).map(ref).filter((x): x is Ref => x !== null);
    const window = cx.window ?? [];
    const bars: CounterexampleBar[] = [];
    const covered = new Set<number>();
    const add = (x: Ref, role: BarRole, order: number | null) => {
      x.indexes.forEach((i) => covered.add(i));
      bars.push({ process: x.process, description: x.description, role, order, ...span(index, x.indexes) });
    };
    // Prefix ops other than the tail that overlap the blocked op are only in `window`: group them by process into
    // runs of consecutive ops (a read and the write after it are one read-modify-write).
    const rest = window.filter(
      (i) => !covered.has(i) && ![blocked, ...tail, ...concurrent].some((x) => x?.indexes.includes(i)),
    );
    const byProcess = new Map<string, TimedPair[]>();
    for (const i of rest) {
      const p = index.byIndex.get(i);
      if (!p) continue;
      const k = String(p.process);
      const list = byProcess.get(k) ?? [];
      if (!list.includes(p)) list.push(p);
      byProcess.set(k, list);
    }
    for (const list of byProcess.values()) {
      list.sort((x, y) => x.invoke.index - y.invoke.index);
      for (let k = 0; k < list.length; k++) {
        const p = list[k];
        const next = list[k + 1];
        // A read followed by the same process's write is one read-modify-write, as the account model sees it.
        if (p.f === 'read' && next && next.f === 'write' && index.after(p, () => true) === next) {
          const w = pairValue(next);
          bars.push({
            process: String(p.process),
            description: `read ${String(pairValue(p).balance ?? '?')}, wrote ${String(w.to ?? '?')}`,
            role: 'earlier',
            order: null,
            ...span(index, [p.invoke.index, ...(next.completion ? [next.completion.index] : [next.invoke.index])]),
          });
          k++;
          continue;
        }
        bars.push({
          process: String(p.process),
          description: `${p.f} ${summarize(p, false)}`,
          role: 'earlier',
          order: null,
          ...span(index, [p.invoke.index, ...(p.completion ? [p.completion.index] : [])]),
        });
      }
    }
    tail.forEach((x, k) =>
      add(x, 'prefix', typeof cx.prefixLength === 'number' ? cx.prefixLength - tail.length + k + 1 : k + 1),
    );
    concurrent.forEach((x) => add(x, 'concurrent', null));
    if (blocked) add(blocked, 'blocked', null);
    if (bars.length === 0) continue;
    out.push({
      checker: name,
      decides: r?.decides !== false,
      model: r?.model ?? null,
      message: cx.message ?? '',
      state: cx.state ?? null,
      bars,
    });
  }
  return out.sort((a, b) => Number(b.decides) - Number(a.decides));
}

const STYLE: Record<BarRole, { fill: string; stroke: string; caption: string }> = {
  blocked: { fill: '#fde0e0', stroke: '#c62828', caption: 'cannot be linearized' },
  prefix: { fill: '#e1f3e6', stroke: '#2e7d4f', caption: 'linearized (numbered in order)' },
  concurrent: { fill: '#fff3cd', stroke: '#b38600', caption: 'open at the same time, not placed' },
  earlier: { fill: '#eef0f3', stroke: '#8a93a0', caption: 'earlier in the prefix, overlapping' },
};

/** The counterexample as inline SVG; every text comes from the history and is escaped. */
export function counterexampleSvg(view: CounterexampleView): string {
  const points = [...new Set(view.bars.flatMap((b) => [b.first, ...(b.last === null ? [] : [b.last])]))].sort(
    (a, b) => a - b,
  );
  const rank = new Map(points.map((p, i) => [p, i]));
  const lanes = [...new Set(view.bars.map((b) => b.process))].sort(
    (a, b) => Number(a) - Number(b) || a.localeCompare(b),
  );
  // Spread the events over about a screen's width; past ~80 events the page scrolls sideways.
  const step = Math.max(16, Math.min(130, Math.floor(1250 / Math.max(1, points.length))));
  const left = 70;
  const laneH = 34;
  const top = 8;
  const width = left + (points.length + 1) * step + 160;
  const height = top + lanes.length * laneH + 8;
  const x = (i: number) => left + 10 + (rank.get(i) ?? 0) * step;
  const parts: string[] = [];
  lanes.forEach((lane, k) => {
    const y = top + k * laneH;
    const label = /^\d+$/.test(lane) ? processLabel(Number(lane)) : lane;
    parts.push(`<text x="8" y="${y + laneH / 2 + 4}" class="cx-lane">${escapeHtml(label)}</text>`);
    parts.push(`<line x1="${left}" x2="${width - 10}" y1="${y + laneH - 1}" y2="${y + laneH - 1}" stroke="#e5e7eb"/>`);
  });
  // "account 0: read 5, wrote 7" on every bar says the account once too often: drop a prefix all bars share.
  const prefix = /^(account \d+: )/.exec(view.bars.find((b) => b.role !== 'earlier')?.description ?? '')?.[1];
  const strip = (d: string) =>
    prefix && view.bars.every((b) => b.description.startsWith(prefix) || b.role === 'earlier') && d.startsWith(prefix)
      ? d.slice(prefix.length)
      : d;
  const sorted = [...view.bars].sort((a, b) => (a.role === 'blocked' ? 1 : 0) - (b.role === 'blocked' ? 1 : 0));
  for (const b of sorted) {
    const st = STYLE[b.role];
    const y = top + lanes.indexOf(b.process) * laneH + 4;
    const x1 = x(b.first);
    const x2 = b.last === null ? width - 12 : Math.max(x(b.last), x1 + 14);
    const w = x2 - x1;
    const text = `${b.order !== null ? `${b.order}. ` : ''}${strip(b.description)}`;
    // Text may run past a short bar, up to the next bar in the same lane: lanes are mostly empty.
    const nextStart = Math.min(
      width - 12,
      ...view.bars.filter((o) => o.process === b.process && x(o.first) > x1).map((o) => x(o.first)),
    );
    const fit = Math.max(0, Math.floor((Math.max(w, nextStart - x1) - 8) / 6.9));
    const shown = text.length > fit ? `${text.slice(0, Math.max(0, fit - 1))}…` : text;
    parts.push(
      `<g class="cx-op cx-${b.role}"><title>${escapeHtml(`${b.role === 'blocked' ? 'CANNOT BE LINEARIZED: ' : ''}${text} (history #${b.first}${b.last !== null ? `–#${b.last}` : ', never returned'})`)}</title>` +
        `<rect x="${x1}" y="${y}" width="${w}" height="${laneH - 10}" rx="3" fill="${st.fill}" stroke="${st.stroke}" stroke-width="${b.role === 'blocked' ? 2 : 1}"${b.last === null ? ' stroke-dasharray="4 3"' : ''}/>` +
        `<text x="${x1 + 4}" y="${y + (laneH - 10) / 2 + 4}" class="cx-text">${escapeHtml(shown)}</text></g>`,
    );
  }
  const legend = (Object.keys(STYLE) as BarRole[])
    .filter((r) => view.bars.some((b) => b.role === r))
    .map(
      (r) =>
        `<span class="cx-key"><i style="background:${STYLE[r].fill};border-color:${STYLE[r].stroke}"></i>${escapeHtml(STYLE[r].caption)}</span>`,
    )
    .join('');
  return `<div class="cx-scroll"><svg class="cx" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="linearizability counterexample">${parts.join('')}</svg></div><div class="cx-legend">${legend}</div>`;
}
