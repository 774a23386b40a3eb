import { TcpProxy } from './nemesis/proxy/tcp-proxy.ts';
import fs from 'node:fs';
const proxy = await TcpProxy.start({ targetPort: 26399 });
const fd = fs.openSync('/tmp/ovj.jsonl', 'w');
process.on('message', (m) => { if (m === 'bye') { proxy.close(); process.exit(0); } fs.writeSync(fd, JSON.stringify(m) + '\n'); });
process.send!({ port: proxy.port });
