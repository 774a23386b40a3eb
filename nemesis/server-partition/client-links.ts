import fs from 'node:fs';

/**
 * Remote ports of the established TCP connections in /proc/net/tcp text, per socket inode. Pure (the text is an
 * argument), so the parser is tested on literal lines.
 */
export function establishedByInode(procNetTcp: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of procNetTcp.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
    if (f.length < 10 || f[3] !== '01') continue;
    const port = parseInt(f[2].split(':')[1] ?? '', 16);
    if (Number.isInteger(port)) out.set(f[9], port);
  }
  return out;
}

/** The remote ports process `pid` has established TCP connections to (empty when it is gone). */
export function connectedPorts(pid: number): Set<number> {
  const ports = new Set<number>();
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return ports;
  }
  const inodes = new Set<string>();
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  for (const table of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const [inode, port] of establishedByInode(text)) if (inodes.has(inode)) ports.add(port);
  }
  return ports;
}
