import type { LockStrategy } from '../strategy.ts';
import { noLockClient } from '../parts/no-lock-client.ts';

/**
 * Row + version column: there is no separate lock service. "Acquiring" takes nothing; the write is a
 * conditional `UPDATE … WHERE version = <version read>`, so a writer whose read went stale — because it was
 * paused, or raced — is refused by the resource itself. The version is the fence (token: 'version'), which is
 * why this cell of the oracle is safe under every fault.
 */
const postgres: LockStrategy = {
  name: 'postgres',
  needs: [],
  token: 'version',
  exclusive: false,
  renews: false,
  // Its own fence: safe under everything, so it gets everything that applies.
  defaultFaults: ['pause-holder', 'pause-client', 'pause-node', 'kill', 'partition', 'latency', 'clock'],
  async connect() {
    return noLockClient();
  },
};
export default postgres;
