import { foreignLockContract } from '../../test/support/foreign-lock-contract.ts';

await foreignLockContract('curator', { zk: 3 }, { contended: 'refused' });
