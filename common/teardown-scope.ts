import type { Shutdown, TeardownStep } from './shutdown.ts';

type Undo = () => Promise<void> | void;

/** An entry of the scope, as `defer` returns it: another entry may take it over (`takesOver`). */
export interface Deferred {
  readonly name: string;
}

interface Entry extends Deferred {
  /** Its step with the Shutdown (what a signal or an error runs); none for work only a normal close does. */
  step: TeardownStep | null;
  /** What a normal close does at its place; null: nothing there (the step waits for the close to be through). */
  close: Undo | null;
  takesOver: readonly Entry[];
  /** Closed, or taken over by an entry that closed: skipped at its own place. */
  done: boolean;
}

/**
 * A run's teardown as one ordered stack, used as a transaction is: `await using scope = new TeardownScope(shutdown)`,
 * the body registers each thing's undoing as it starts it, and ends with `await scope.close()`, its commit.
 *
 * Two orders come out of it, both newest first, which differ where a normal end has more to do than a signal:
 * - the abort order — a signal, an error in the body, an error in the close: every step is registered with the
 *   Shutdown as it is deferred, so the Shutdown runs them (and whatever else is in it: a target's keys, apt's lock),
 *   each one even when another failed;
 * - the close order — the normal end: at each entry's place its `normally` (a graceful stop where a signal kills),
 *   its `undo`, or work a signal skips (`atClose`: the final read); an entry with nothing to do there (`ifAborted`:
 *   the mark of an unfinished run) keeps its step until the whole close is through, so a crash during it still runs.
 *
 * Node defines `Symbol.asyncDispose` since 20.4 (engines: >= 20.6), so no polyfill; tsx and vitest lower `await using`.
 * Node 20 has no `AsyncDisposableStack`, and it would not do anyway: a signal must find the steps in the Shutdown.
 */
export class TeardownScope implements AsyncDisposable {
  private readonly entries: Entry[] = [];
  private state: 'open' | 'closing' | 'closed' = 'open';

  constructor(private readonly shutdown: Shutdown) {}

  /**
   * Undone on every way out, at its place. `normally`: what a normal close does there instead. `takesOver`: entries
   * it replaces once it is registered (the clients' stop from before the servers were up): a normal close drops
   * their steps with its own, so they never run after it.
   */
  defer(name: string, undo: Undo, opts: { normally?: Undo; takesOver?: readonly Deferred[] } = {}): Deferred {
    const step = this.shutdown.add(name, undo);
    return this.push(name, step, opts.normally ?? (() => step.run()), opts.takesOver);
  }

  /** Only when the run does not end normally: what says so on disk. A normal close drops it once it is through. */
  ifAborted(name: string, run: Undo): Deferred {
    return this.push(name, this.shutdown.add(name, run), null);
  }

  /**
   * Only on a normal close, at its place: the end's own work (the final read), which a signal skips. `takesOver`: the
   * entries that work undoes itself (the history sealed closes the journal), dropped once it is done.
   */
  atClose(name: string, run: Undo, opts: { takesOver?: readonly Deferred[] } = {}): Deferred {
    return this.push(name, null, run, opts.takesOver);
  }

  private push(name: string, step: TeardownStep | null, close: Undo | null, takesOver: readonly Deferred[] = []) {
    if (this.state !== 'open') throw new Error(`teardown scope: "${name}" deferred after the close began`);
    // Only this scope's own entries, already deferred, can be taken over.
    const entry: Entry = {
      name,
      step,
      close,
      takesOver: this.entries.filter((e) => takesOver.includes(e)),
      done: false,
    };
    this.entries.push(entry);
    return entry;
  }

  /**
   * The normal end: each entry's close, newest first; then the steps that waited for it are dropped. The first error
   * stops the close and is rethrown once the Shutdown has run what is left, as an abort (reason "error").
   */
  async close(): Promise<void> {
    this.state = 'closing';
    try {
      for (const entry of [...this.entries].reverse()) {
        if (!entry.close || entry.done) continue;
        await entry.close();
        for (const e of [entry, ...entry.takesOver]) {
          e.step?.cancel();
          e.done = true;
        }
      }
    } catch (err) {
      await this.shutdown.runAll('error');
      throw err;
    }
    for (const e of this.entries) e.step?.cancel();
    this.state = 'closed';
  }

  /** Left without a close (the body threw): every step runs as on an error; the body's error goes on up. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.state === 'open') await this.shutdown.runAll('error');
  }
}
