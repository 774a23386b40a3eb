import net from 'node:net';

/** Send a ZooKeeper four-letter command (`srvr`, `ruok`, …) and return the whole reply. */
export function fourLetter(port: number, cmd: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    let out = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`${cmd} on port ${port} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    sock.on('connect', () => sock.write(cmd));
    sock.on('data', (d) => (out += d.toString()));
    sock.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}
