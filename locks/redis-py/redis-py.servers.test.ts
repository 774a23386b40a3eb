import { foreignLockContract } from '../../test/support/foreign-lock-contract.ts';

await foreignLockContract('redis-py', { redis: 1 }, { contended: 'refused' });
