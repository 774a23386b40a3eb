import { Etcd3 } from 'etcd3';
const c = new Etcd3({ hosts: 'http://127.0.0.1:23791' });
const t = () => performance.now();
for (let i = 0; i < 15; i++) {
  const a = t();
  const lease = c.lease(2);
  const id = await lease.grant();
  const b = t();
  const r = await c.if('k', 'Create', '==', 0).then(c.put('k').value('v').lease(id)).else(c.get('k')).commit();
  const d = t();
  await c.delete().key('k');
  const e = t();
  await lease.revoke();
  const f = t();
  console.log(`grant ${(b-a).toFixed(2)} txn ${(d-b).toFixed(2)} del ${(e-d).toFixed(2)} revoke ${(f-e).toFixed(2)} ${r.succeeded}`);
}
c.close();
