import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkCommand } from '../harness/check-command.ts';

/**
 * Knossos's published histories (jepsen-io/knossos `data/`, see the corpus README) with their known verdicts,
 * run through the real `check --model=…` command. A copy lives in the repo (test/corpus/knossos, with its source
 * and licence) so that a plain clone passes its own tests.
 */
const CORPUS = fileURLToPath(new URL('../test/corpus/knossos', import.meta.url));
/** Per history. The slowest takes milliseconds; this only bounds a regression. */
const DEADLINE_MS = 20_000;

function ednFiles(dir: string): string[] {
  const full = path.join(CORPUS, dir);
  if (!existsSync(full)) {
    throw new Error(
      `Knossos corpus not found at ${full}: it is part of the repo (test/corpus/knossos); is the checkout complete?`,
    );
  }
  return readdirSync(full)
    .filter((f) => f.endsWith('.edn'))
    .sort()
    .map((f) => path.join(dir, f));
}

const timings: { file: string; ms: number }[] = [];
let logSpy: ReturnType<typeof vi.spyOn>;

beforeAll(() => {
  logSpy = vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterAll(() => {
  logSpy.mockRestore();
  const slowest = [...timings].sort((a, b) => b.ms - a.ms).slice(0, 3);
  console.log(
    `Knossos corpus: ${timings.length} histories; slowest: ${slowest.map((t) => `${t.file} ${t.ms.toFixed(0)} ms`).join(', ')}`,
  );
});

async function exitCodeFor(model: string, file: string): Promise<number> {
  const started = performance.now();
  const code = await checkCommand([`--model=${model}`, `--deadline=${DEADLINE_MS}`, path.join(CORPUS, file)]);
  timings.push({ file, ms: performance.now() - started });
  return code;
}

describe('Knossos corpus', () => {
  it('is where the README says, with the documented number of histories', () => {
    expect(existsSync(CORPUS), `Knossos corpus not found at ${CORPUS}`).toBe(true);
    expect(ednFiles('cas-register/good')).toHaveLength(113);
    expect(ednFiles('cas-register/bad')).toHaveLength(7);
    expect(ednFiles('mutex/bad')).toEqual(['mutex/bad/etcd.edn']);
  });

  it('check --model=cas-register accepts all 113 good histories (exit 0)', async () => {
    const wrong: string[] = [];
    for (const file of ednFiles('cas-register/good')) {
      const code = await exitCodeFor('cas-register', file);
      if (code !== 0) wrong.push(`${file}: exit ${code}`);
    }
    expect(wrong).toEqual([]);
  });

  it('check --model=cas-register rejects all 7 bad histories (exit 1)', async () => {
    const wrong: string[] = [];
    for (const file of ednFiles('cas-register/bad')) {
      const code = await exitCodeFor('cas-register', file);
      if (code !== 1) wrong.push(`${file}: exit ${code}`);
    }
    expect(wrong).toEqual([]);
  });

  it('check --model=mutex rejects mutex/bad/etcd.edn (exit 1)', async () => {
    expect(await exitCodeFor('mutex', 'mutex/bad/etcd.edn')).toBe(1);
  });
});
