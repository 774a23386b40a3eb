import type { LockStrategy } from '../strategy.ts';

/** No lock at all: the baseline that must lose updates (if it doesn't, the workload isn't contending). */
const none: LockStrategy = {
  name: 'none',
  needs: [],
  token: 'none',
  async connect() {
    return {
      async acquire(key) {
        return { key, attempts: 1 };
      },
      async release() {
        return true;
      },
      async close() {},
    };
  },
};
export default none;
