import { foreignLockContract } from '../../test/support/foreign-lock-contract.ts';

await foreignLockContract('etcd-go', { etcd: 3 }, { contended: 'refused' });
