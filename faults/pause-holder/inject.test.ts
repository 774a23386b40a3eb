import { describe, expect, it } from 'vitest';
import { WRITE_FIRST_MARGIN_MS, writeLeadMs } from './inject.ts';

const ms = (n: number) => n * 1e6;
// TTL 2000 ms: the watchdog renews every 666 ms; the client thinks 100 ms between its read and its write.
const watchdog = { watchdog: true, thinkMs: 100, ttlMs: 2000 };

describe('writeLeadMs: strike only where the resumed holder writes before its renewal', () => {
  it('without --watchdog every section is aimable', () => {
    expect(writeLeadMs({ readTime: ms(5) }, { ...watchdog, watchdog: false })).toBe(Infinity);
  });

  it('every section is aimable when the think outlasts the renewal period: the holder renews inside each one', () => {
    // TTL 300 ms: renewals every 100 ms, a 700 ms think — the broken gallery's renew-without-owner. No write can come
    // due before a renewal; waiting for one would leave the fault never firing (red before: null, never struck).
    const long = { watchdog: true, thinkMs: 700, ttlMs: 300 };
    expect(writeLeadMs({ acquireTime: ms(1000), readTime: ms(1010) }, long)).toBe(Infinity);
    expect(writeLeadMs({ readTime: ms(1010) }, long)).toBe(Infinity);
  });

  it('measures the next renewal from the last one, else from the acquire', () => {
    // Acquired at 1000 ms: renewal due at 1666. Read at 1200: the write is due at 1300, 366 ms sooner.
    expect(writeLeadMs({ acquireTime: ms(1000), readTime: ms(1200) }, watchdog)).toBe(366);
    // Renewed at 1666 (due again at 2332); read at 2000: write due at 2100, 232 ms sooner.
    expect(writeLeadMs({ acquireTime: ms(1000), lastRenewTime: ms(1666), readTime: ms(2000) }, watchdog)).toBe(232);
  });

  it('refuses a section whose renewal falls due before (or too close after) the write', () => {
    // Read at 1600: write due at 1700, after the renewal due at 1666 — the renewal would run first on resume.
    expect(writeLeadMs({ acquireTime: ms(1000), readTime: ms(1600) }, watchdog)).toBeNull();
    // Write due 10 ms before the renewal: inside the margin, too close to call.
    expect(WRITE_FIRST_MARGIN_MS).toBeGreaterThan(10);
    expect(writeLeadMs({ acquireTime: ms(1000), readTime: ms(1556) }, watchdog)).toBeNull();
    // No acquire seen for the process: nothing to tell when its renewal is due.
    expect(writeLeadMs({ readTime: ms(1556) }, watchdog)).toBeNull();
  });
});
