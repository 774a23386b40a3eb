/** What a call cut off by its context gives instead of an answer. */
export const CANCELLED = Symbol('cancelled');

/**
 * A call under a Go context with a deadline (context.WithTimeout) or cancelled by its parent: its answer, or CANCELLED
 * once the deadline (on this process's monotonic clock) passes or `signal` aborts first. As in Go, the request may
 * still reach the server and take effect; only its answer is dropped, so what it did is not remembered. A call that
 * fails rejects as it would anyway.
 */
export function underContext<T>(
  call: Promise<T>,
  deadlineMs: number,
  signal?: AbortSignal,
): Promise<T | typeof CANCELLED> {
  const leftMs = deadlineMs - performance.now();
  if (leftMs <= 0 || signal?.aborted) {
    call.catch(() => {});
    return Promise.resolve(CANCELLED);
  }
  return new Promise<T | typeof CANCELLED>((resolve, reject) => {
    const cut = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cut);
      call.catch(() => {});
      resolve(CANCELLED);
    };
    const timer = setTimeout(cut, leftMs);
    signal?.addEventListener('abort', cut, { once: true });
    call.then(
      (v) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', cut);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', cut);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
