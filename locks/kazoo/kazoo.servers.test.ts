import { foreignLockContract } from '../../test/support/foreign-lock-contract.ts';

await foreignLockContract('kazoo', { zk: 3 }, { contended: 'refused' });
