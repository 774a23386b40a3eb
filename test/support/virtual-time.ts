import type { ClientClock } from '../../workloads/client-loop.ts';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * A discrete-event clock for running the real client loop in-process: a timer fires only once every promise
 * chain started by the previous one has settled (a macrotask turn), so a simulated run of minutes takes
 * milliseconds and is the same for the same seed. Times are ms since the run started.
 */
export class VirtualTime {
  nowMs = 0;
  private timers: Timer[] = [];
  private seq = 0;

  setTimer(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.nowMs + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      const i = this.timers.indexOf(timer);
      if (i >= 0) this.timers.splice(i, 1);
    };
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(ms, resolve));
  }

  /**
   * A client's view: its timers cannot fire while it is paused (SIGSTOP stops a process's timers too), so one
   * due inside a pause fires when the pause ends.
   */
  clientClock(pausedUntil: () => number): ClientClock {
    return {
      now: () => BigInt(Math.round(this.nowMs * 1e6)),
      setTimer: (ms, fn) => this.setTimer(Math.max(ms, pausedUntil() - this.nowMs), fn),
    };
  }

  /** Fire timers in time order until `done()` holds and none is left, or time passes `limitMs`. */
  async run(done: () => boolean, limitMs = Infinity): Promise<void> {
    for (;;) {
      // Let every continuation of the last timer run (they may set new timers) before picking the next one.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.timers.length === 0) {
        if (done()) return;
        throw new Error(
          `virtual-time: no timer left at ${this.nowMs} ms but the run is not done: a step waits on nothing`,
        );
      }
      let next = 0;
      for (let i = 1; i < this.timers.length; i++) {
        const t = this.timers[i];
        if (t.at < this.timers[next].at || (t.at === this.timers[next].at && t.seq < this.timers[next].seq)) next = i;
      }
      const [timer] = this.timers.splice(next, 1);
      if (timer.at > limitMs) throw new Error(`virtual-time: still running at ${limitMs} ms`);
      this.nowMs = Math.max(this.nowMs, timer.at);
      timer.fn();
    }
  }
}
