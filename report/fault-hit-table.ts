import type { RunResults } from '../checkers/run-results.ts';
import type { FaultShot, StoryStep } from '../faults/judging/fault-shot.ts';
import { faultFacts } from '../faults/catalogue.ts';
import { escapeHtml as h } from './html.ts';

/** The report's "where each fault landed" table: per fault its shots, and each shot's story step by step. */

/** How a story step went, as a mark: done, held (the lock passed), missing, not reached. */
const STEP_MARK: Record<StoryStep['status'], string> = { done: '✓', held: '◆', missing: '✗', 'not-reached': '·' };

/**
 * One shot: hit or miss, and for a fault with a story (faults/catalogue.ts) each step in order — what it
 * stands for and the ops that prove it, or why it is missing.
 */
function shotItem(f: string, s: FaultShot): string {
  const head = `#${s.index} ${s.hit ? 'hit' : 'miss'}`;
  if (!s.story) return `<li class="${s.hit ? 'good' : 'bad'}">${head}: ${h(s.evidence)}</li>`;
  const says = new Map((faultFacts(f)?.story ?? []).map((x) => [x.id, x]));
  const steps = s.story
    .map((x) => {
      const facts = says.get(x.id);
      const words = x.status === 'held' ? (facts?.held ?? facts?.says) : facts?.says;
      return `<li class="step-${x.status}" title="${h(x.status)}"><span class="mark">${STEP_MARK[x.status]}</span> <b>${h(x.id)}</b> ${h(words ?? '')}${x.evidence ? `<br><small>${h(x.evidence)}</small>` : ''}</li>`;
    })
    .join('');
  const verdict = s.hit
    ? 'the story completed'
    : `no whole story: ${s.story.find((x) => x.status === 'missing')?.id ?? '?'} is missing`;
  return `<li class="${s.hit ? 'good' : 'bad'}">${head} — ${h(verdict)}<ol class="story">${steps}</ol></li>`;
}

/** Per fault: how often it fired and hit (for a fault with a story: how often its story completed), and each shot. */
export function faultHitTable(hits: RunResults['faultHits'] | undefined): string {
  const rows = Object.entries(hits ?? {});
  if (!rows.length) return '';
  return `<table class="wide"><thead><tr><th>fault</th><th>fired</th><th>hit</th><th>where each shot landed</th></tr></thead><tbody>${rows
    .map(([f, c]) => {
      const shots = (c.shots ?? []).map((s) => shotItem(f, s)).join('');
      const limits = faultFacts(f)?.storyLimits;
      // null: results from before every fault was judged (only the lock-aimed ones had a hit count).
      const hit = (c.hit as number | null) === null ? 'not judged' : String(c.hit);
      return `<tr${c.hit === 0 ? ' class="row-bad"' : ''}><td>${h(f)}</td><td>${c.fired}</td><td>${h(hit)}</td><td>${shots ? `<ul>${shots}</ul>` : '–'}${limits ? `<p class="aside">What this story cannot show: ${h(limits)}</p>` : ''}</td></tr>`;
    })
    .join('')}</tbody></table>`;
}
