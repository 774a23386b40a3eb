/**
 * The run's randomness: one seed (`--seed`, printed so a run replays) and, from it, one seed per purpose. Each
 * purpose gets its own stream so that, e.g., a client's retry jitter never shifts the fault schedule. The
 * derivations are fixed: changing one changes what every stored seed replays.
 */

/** Small seeded PRNG (mulberry32): uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a derived seed is for. */
export type SeedPurpose =
  /** The strategy's own randomness in client `slot` (retry jitter): LockContext.seed. */
  | { purpose: 'lock-client'; slot: number }
  /** The client loop of `slot`: which account, the write's delta, the stagger between iterations. */
  | { purpose: 'client-loop'; slot: number }
  /** The nemesis's fault schedule (which fault when, and each step's own seed). */
  | { purpose: 'fault-schedule' }
  /** The matrix's `attempt`-th run of one cell (0 = the cell's own seed; a rerun of an inconclusive run gets the next). */
  | { purpose: 'cell-run'; attempt: number }
  /** A scripted scenario's fault at its `step` (which of the key's nodes it strikes, when the step names none). */
  | { purpose: 'scripted-shot'; step: number }
  /** A replay's `run`-th run of one scenario (repro/replay-command.ts). */
  | { purpose: 'replay-run'; run: number }
  /** A shrink's `candidate`-th configuration, its `run`-th run (repro/shrink-search.ts). */
  | { purpose: 'shrink-run'; candidate: number; run: number };

/** A seed for `p`, from the run's seed (0 ≤ seed < 2^31). Always a non-negative 32-bit integer. */
export function deriveSeed(seed: number, p: SeedPurpose): number {
  switch (p.purpose) {
    case 'lock-client':
      return (seed + p.slot * 7919) >>> 0;
    case 'client-loop':
      return (seed * 31 + p.slot) >>> 0;
    case 'fault-schedule':
      return (seed ^ 0x5eed_fa17) >>> 0;
    case 'cell-run':
      // Stays below 2^31: it is passed back as --seed, which the CLI bounds.
      return (seed + p.attempt) % 2 ** 31;
    case 'scripted-shot':
      return (seed * 17 + p.step + 0x5c41) >>> 0;
    case 'replay-run':
      return (seed + p.run) % 2 ** 31;
    case 'shrink-run':
      // Passed back as --seed: below 2^31.
      return (seed + p.candidate * 1009 + p.run * 7) % 2 ** 31;
  }
}
