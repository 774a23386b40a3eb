import { Redis } from 'ioredis';
import { fork } from 'node:child_process';
const q = (a: number[]) => { a.sort((x, y) => x - y); return a[Math.floor(a.length / 2)].toFixed(3); };
const N = 3000;
const child = fork('.tmp-px.ts', [], { execArgv: ['--import', 'tsx'] });
const port: number = await new Promise((res) => child.once('message', (m: any) => res(m.port)));
async function run(port: number, ipc: boolean) {
  const r = new Redis({ port, host: '127.0.0.1' });
  const t: number[] = [];
  for (let i = 0; i < N; i++) {
    const a = performance.now();
    if (ipc) child.send({ index: i, type: 'invoke', f: 'acquire', process: 0, time: Date.now(), value: { account: 0 } });
    await r.set('k', 'v', 'PX', 2000, 'NX'); t.push(performance.now() - a);
    if (ipc) child.send({ index: i, type: 'ok', f: 'acquire', process: 0, time: Date.now(), value: { account: 0, token: null } });
    await r.del('k');
  }
  r.disconnect(); return q(t);
}
console.log('direct', await run(26399, false), 'proxy in other process', await run(port, false), '+ipc', await run(port, true), 'direct+ipc', await run(26399, true));
child.send('bye');
