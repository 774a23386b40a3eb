import { startOwnerDeployment } from './test/support/owner-deployment.ts';
const d = await startOwnerDeployment('fp-test/');
const f = d.targetFile({ adapter: 'exec', faults: ['pause-node', 'restart-empty'] });
console.log(JSON.stringify({ dir: d.dir, file: f, env: d.env }));
const r = d.redisAdmin(); await r.set('fp-test-outside', 'planted'); r.disconnect();
const e = d.etcdAdmin(); await e.put('owner/planted').value('planted'); e.close();
