import { describe, expect, it } from 'vitest';
import { enterUsing } from './using-section.ts';

/** A using() as the libraries write it: acquire, run the routine with a signal, release in `finally`. */
function fakeUsing(log: string[], acquire: () => Promise<void>) {
  return async (routine: (signal: { aborted: boolean }) => Promise<void>) => {
    await acquire();
    log.push('acquired');
    try {
      return await routine({ aborted: false });
    } finally {
      log.push('released');
    }
  };
}

describe('enterUsing: a using(routine) library as acquire and release', () => {
  it('resolves once the routine is entered, with the argument the library passed; leave() lets the library release', async () => {
    const log: string[] = [];
    const section = await enterUsing(fakeUsing(log, async () => {}));
    expect(log).toEqual(['acquired']);
    expect(section.arg).toEqual({ aborted: false });
    section.leave();
    await section.ended;
    expect(log).toEqual(['acquired', 'released']);
  });

  it("rejects with the library's error when it gives up before entering the routine", async () => {
    const log: string[] = [];
    const refused = new Error('no quorum');
    await expect(enterUsing(fakeUsing(log, () => Promise.reject(refused)))).rejects.toBe(refused);
    expect(log).toEqual([]);
  });

  it('rejects when the library returns without ever entering the routine', async () => {
    await expect(enterUsing(async () => 'done')).rejects.toThrow(/without entering its routine/);
  });

  it('a library whose release fails after the routine: `ended` rejects with that error, the section itself was held', async () => {
    const section = await enterUsing(async (routine: (a: undefined) => Promise<void>) => {
      await routine(undefined);
      throw new Error('release failed');
    });
    section.leave();
    await expect(section.ended).rejects.toThrow('release failed');
  });
});
