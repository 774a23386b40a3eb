/**
 * The `using(routine)` style of a lock library (`redlock.using(keys, ttl, async (signal) => …)`, redlock-universal's
 * `lock.using(async (signal) => …)`, advisory-lock's `mutex.withLock(async () => …)`) as the bank loop's acquire and
 * release: the library acquires, enters the routine, keeps the lock alive while the routine runs (where it does),
 * and releases when the routine returns. Its README's first example is this form, so the row must measure it and not
 * its acquire/release API.
 *
 * `enterUsing` starts the library's call with a routine of ours, and resolves once the routine is entered (the
 * library holds the lock) with what the library passed it (the abort signal). The routine then waits until `leave()`
 * — the loop's release — and returns; the library's own `finally` releases, and `ended` settles when it has. If the
 * library's call settles before the routine is entered (no lock), `enterUsing` rejects with its error.
 */
export interface UsingSection<A> {
  /** What the library passed the routine (its abort signal, or nothing). */
  readonly arg: A;
  /** End the routine: the library then releases the lock itself. */
  leave(): void;
  /** The library's call: settles once the routine returned and the library released (or failed to). */
  readonly ended: Promise<unknown>;
}

export function enterUsing<A>(
  start: (routine: (arg: A) => Promise<void>) => Promise<unknown>,
): Promise<UsingSection<A>> {
  let leave!: () => void;
  const left = new Promise<void>((resolve) => (leave = resolve));
  return new Promise<UsingSection<A>>((resolve, reject) => {
    let entered = false;
    const ended = Promise.resolve().then(() =>
      start(async (arg) => {
        entered = true;
        resolve({ arg, leave, ended });
        await left;
      }),
    );
    ended.then(
      () => {
        if (!entered) reject(new Error('the library returned without entering its routine (and without an error)'));
      },
      (err: unknown) => {
        if (!entered) reject(err);
      },
    );
  });
}
