import type { Finding, StoryInput } from './finding.ts';

/** What the checkers said beyond the bank's own findings: a linearizability counterexample, or "could not decide". */

export function checkerFindings(input: StoryInput): Finding[] {
  const out: Finding[] = [];
  for (const [name, r] of Object.entries(input.results.checkers ?? {})) {
    const lin = name === 'linearizable' ? input.results.checkers?.linearizable : undefined;
    if (lin && lin.valid === false) {
      const cx = lin.counterexample;
      const window = cx?.window ?? [];
      const times = window.map((i) => input.index.byIndex.get(i)?.startMs).filter((t): t is number => t !== undefined);
      out.push({
        id: 'linearizability',
        kind: 'linearizability',
        severity: 'bad',
        title: `Not linearizable${lin.model ? ` (model: ${lin.model})` : ''}`,
        sentences: [cx?.message ?? 'The linearizability checker found no valid order; see the counterexample below.'],
        fromMs: times.length ? Math.min(...times) : 0,
        toMs: times.length ? Math.max(...times) : input.index.endMs,
        ops: window,
      });
    }
    if (r?.valid === 'unknown') {
      const why =
        typeof r.error === 'string'
          ? r.error
          : typeof r.cause === 'string'
            ? r.cause
            : typeof r.reason === 'string'
              ? r.reason
              : 'no reason given';
      out.push({
        id: `undecided-${name}`,
        kind: 'undecided',
        severity: 'note',
        title: `${name}: could not decide`,
        sentences: [`The ${name} checker returned unknown: ${why}.`],
        fromMs: 0,
        toMs: input.index.endMs,
        ops: [],
      });
    }
  }
  return out;
}
