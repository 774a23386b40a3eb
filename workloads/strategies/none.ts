import type { LockStrategy } from '../strategy.ts';
import { noLockClient } from './no-lock-client.ts';

/** No lock at all: the baseline that must lose updates (if it doesn't, the workload isn't contending). */
const none: LockStrategy = {
  name: 'none',
  needs: [],
  token: 'none',
  exclusive: false,
  async connect() {
    return noLockClient();
  },
};
export default none;
