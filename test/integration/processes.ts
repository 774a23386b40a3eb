import fs from 'node:fs';
import path from 'node:path';

export interface OurProcess {
  pid: number;
  state: string;
  cmd: string;
}

/**
 * Every live process that belongs to runs under `root`: its command line names the folder (servers, clients)
 * or its working directory is inside it (Postgres backends, whose command line is just "postgres: …").
 */
export function processesUnder(root: string): OurProcess[] {
  const real = fs.realpathSync(root);
  const out: OurProcess[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      let cwd = '';
      try {
        cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // kernel thread or gone
      }
      if (cmd.includes(real) || cmd.includes(root) || cwd.startsWith(real + path.sep)) {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        out.push({ pid: Number(entry), state: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0], cmd });
      }
    } catch {
      // raced with exit
    }
  }
  return out;
}

/** A fresh results folder under the repo's test-output/ (enterable by the postgres user, unlike mkdtemp's 0700). */
export function testResultsDir(name: string): string {
  const dir = path.resolve('test-output', `${name}-${process.pid}-${Date.now()}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
