import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { LockRow } from './lock-row.ts';
import { LOCK_ROWS, NPM_BUILTINS } from './registry.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));

describe('a lock is one folder', () => {
  it('every folder with a row is in the registry, under its folder name, its module and pins inside it', () => {
    const folders = fs.readdirSync(HERE).filter((d) => fs.existsSync(`${HERE}${d}/row.ts`));
    expect(folders.sort()).toEqual(Object.keys(LOCK_ROWS).sort());
    for (const [lock, row] of Object.entries(LOCK_ROWS)) expect(fileURLToPath(row.module)).toContain(`/locks/${lock}/`);
    for (const pins of Object.values(NPM_BUILTINS))
      expect(fs.existsSync(`${HERE}${pins}/npm/package-lock.json`)).toBe(true);
  });

  it('a row that leaves out a part, or names a column that does not exist, does not compile', () => {
    const redis: LockRow = LOCK_ROWS.redis;
    // @ts-expect-error: no nightly choice (the sample was a Record<string, …>: a missing row ran whole every night)
    const noNightly: LockRow = {
      module: redis.module,
      place: redis.place,
      faults: redis.faults,
      remedies: redis.remedies,
    };
    // @ts-expect-error: a misspelt column in the sample (it compiled, and the cell silently never ran)
    const misspelt: LockRow = { ...redis, nightly: ['no-fault', 'pause-holdr'] };
    // @ts-expect-error: a fault-table row without its kill-session cell
    const missingCell: LockRow = { ...redis, faults: { ...redis.faults, 'kill-session': undefined } };
    expect([noNightly, misspelt, missingCell].map((r) => r.module)).toEqual([redis.module, redis.module, redis.module]);
  });
});
