import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { plannedCommands } from '../harness/target-commands.ts';
import { parseTarget } from './target-file.ts';
import { CommandLog } from './command-log.ts';
import { DockerAdapter } from './docker-adapter.ts';
import { KubernetesAdapter } from './kubernetes-adapter.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function scratch(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-preflight-')));
  dirs.push(d);
  return d;
}

describe("an adapter's preflight is a command the run executes: logged, and listed by --dry-run", () => {
  it('kubernetes: `auth can-i`, then `get pod` for each pod, each in the log as the plan spells it', async () => {
    const dir = scratch();
    const kubectl = path.join(dir, 'kubectl');
    fs.writeFileSync(kubectl, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const log = path.join(dir, 'commands.jsonl');
    const spec = {
      type: 'kubernetes',
      name: 'k',
      namespace: 'ns',
      mode: 'pod',
      kubectl,
      context: null,
      container: null,
    } as const;
    const adapter = new KubernetesAdapter(spec, new CommandLog(log), 'run-1');
    expect(await adapter.preflight(['redis-0'])).toEqual([]);
    const planned = adapter.preflightPlan(['redis-0']).map((p) => p.command);
    expect(planned).toEqual([
      `${kubectl} --namespace ns auth can-i delete pods`,
      `${kubectl} --namespace ns get pod redis-0`,
    ]);
    expect(CommandLog.read(log).map((c) => [c.action, c.command, c.ok])).toEqual(
      planned.map((c) => ['preflight', c, true]),
    );
  });

  it('docker: the engine ping, logged even when no engine answers', async () => {
    const dir = scratch();
    const log = path.join(dir, 'commands.jsonl');
    const adapter = new DockerAdapter(
      { type: 'docker', name: 'd', socketPath: path.join(dir, 'no.sock') },
      new CommandLog(log),
    );
    expect((await adapter.preflight(['r0']))[0]).toContain('no Docker engine answers');
    expect(CommandLog.read(log).map((c) => [c.action, c.command, c.ok])).toEqual([
      ['preflight', 'docker version', false],
    ]);
  });

  it('--dry-run lists them before the shots', () => {
    const spec = parseTarget(
      {
        name: 't',
        'i-own-this': true,
        allowHosts: ['127.0.0.1'],
        keyPrefix: 'fp-t/',
        servers: { redis: { endpoints: [{ host: '127.0.0.1', port: 7000, node: 'r0' }] } },
        adapters: { d: { type: 'docker' } },
        serverFaults: { 'pause-node': 'd' },
      },
      '/srv/t/target.json',
    );
    const servers = { redis: spec.redis!.endpoints, etcd: [] };
    expect(plannedCommands(spec, ['pause-node'], servers).map((p) => [p.planned.action, p.planned.command])).toEqual([
      ['preflight', 'docker version'],
      ['preflight', 'docker inspect r0'],
      ['pause', 'docker pause r0'],
      ['resume', 'docker unpause r0'],
    ]);
  });
});
