import type { LockStrategy } from '../strategy.ts';
import { noLockClient } from '../parts/no-lock-client.ts';

/** No lock at all: the baseline that must lose updates (if it doesn't, the workload isn't contending). */
const none: LockStrategy = {
  name: 'none',
  needs: [],
  token: 'none',
  exclusive: false,
  noTokenReason: 'no lock, so there is no token to fence with',
  renews: false,
  defaultFaults: ['pause-holder', 'pause-client'],
  async connect() {
    return noLockClient();
  },
};
export default none;
