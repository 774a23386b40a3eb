import { foreignLockContract } from '../../test/support/foreign-lock-contract.ts';

// Debian's python3-etcd3 0.12 with tenacity 8: a contended acquire dies in the library (kragniz/python-etcd3#2149;
// locks/python/etcd3_lock.py says why the glue leaves it so). Red the day Debian ships the fix: then it is "refused".
await foreignLockContract(
  'python-etcd3',
  { etcd: 3 },
  {
    contended: { error: /TypeError: .*wait\(\) missing 1 required positional argument: 'delay_since_first_attempt'/ },
  },
);
