import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../test/support/eventually.ts';
import { CommandLog } from './command-log.ts';
import { KubernetesAdapter } from './kubernetes-adapter.ts';
import { INJECTION_ENV, stopOrphanedCommand } from './orphaned-command.ts';

// Issue 49: an exec adapter's injecting command carries FENCEPOST_INJECTION, by which the guard finds and stops it
// should the harness die while it runs; kubectl's did not, so a `kubectl delete pod` hung on an API server was an
// orphan nothing bounded. No cluster here: `kubectl` is a script that records its environment and leaves a child
// behind, as a kubectl still waiting would be.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function stubKubectl(): { dir: string; kubectl: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-kubectl-'));
  dirs.push(dir);
  const kubectl = path.join(dir, 'kubectl');
  fs.writeFileSync(
    kubectl,
    `#!/bin/sh\nprintf '%s' "$${INJECTION_ENV}" > ${dir}/env\nsleep 300 >/dev/null 2>&1 &\necho $! > ${dir}/child\nexit 0\n`,
    { mode: 0o700 },
  );
  return { dir, kubectl };
}

function adapter(kubectl: string): KubernetesAdapter {
  const spec = {
    type: 'kubernetes',
    name: 'k',
    namespace: 'redis-stg',
    mode: 'pod',
    kubectl,
    context: null,
    container: null,
  } as const;
  return new KubernetesAdapter(spec, new CommandLog(null), 'run-1');
}

/** Running, or stopped: not gone and not a zombie waiting for whoever adopted it to reap it. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('a kubectl injection carries the marker the guard looks for', () => {
  it('kubectl and what it started run with FENCEPOST_INJECTION=<marker>, and the guard stops what is left', async () => {
    const { dir, kubectl } = stubKubectl();
    await adapter(kubectl).inject('kill', 'redis-0', '/guard/inj-1');
    expect(fs.readFileSync(path.join(dir, 'env'), 'utf8')).toBe('/guard/inj-1');
    const child = Number(fs.readFileSync(path.join(dir, 'child'), 'utf8'));
    expect(alive(child)).toBe(true);
    expect(stopOrphanedCommand('/guard/inj-1')).toContain(child);
    await eventually('the orphaned child gone', () => !alive(child), 10_000);
  });

  it('a heal and an evidence read carry no marker: only an injection is the guard’s to stop', async () => {
    const { dir, kubectl } = stubKubectl();
    await adapter(kubectl).heal('kill', 'redis-0');
    expect(fs.readFileSync(path.join(dir, 'env'), 'utf8')).toBe('');
    process.kill(Number(fs.readFileSync(path.join(dir, 'child'), 'utf8')), 'SIGKILL');
  });
});
