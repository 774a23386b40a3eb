import { Redis } from 'ioredis';
import redis from './workloads/strategies/redis.ts';
import { fork } from 'node:child_process';
import { TcpProxy } from './nemesis/proxy/tcp-proxy.ts';
const q = (a: number[]) => { a.sort((x, y) => x - y); return a[Math.floor(a.length / 2)].toFixed(3); };
const N = 3000;
async function raw(port: number) {
  const r = new Redis({ port, host: '127.0.0.1' });
  const t: number[] = [];
  for (let i = 0; i < N; i++) { const a = performance.now(); await r.set('k', 'v', 'PX', 2000, 'NX'); t.push(performance.now() - a); await r.del('k'); }
  r.disconnect(); return q(t);
}
async function strat(port: number) {
  const c = await redis.connect({ redis: [{ host: '127.0.0.1', port }], ttlMs: 2000, acquireTimeoutMs: 1000, seed: 1, client: 0 } as never);
  const t: number[] = [];
  for (let i = 0; i < N; i++) { const a = performance.now(); const l = await c.acquire('x'); t.push(performance.now() - a); await c.release(l); }
  await c.close(); return q(t);
}
const proxy = await TcpProxy.start({ targetPort: 26399 });
console.log('raw direct', await raw(26399), 'raw proxied', await raw(proxy.port));
console.log('strategy direct', await strat(26399), 'strategy proxied', await strat(proxy.port));
await proxy.close();
