import type { ServerFaultAdapter } from './adapter.ts';
import type { CommandLog } from './command-log.ts';
import { DockerAdapter } from './docker-adapter.ts';
import { ExecAdapter } from './exec-adapter.ts';
import { KubernetesAdapter } from './kubernetes-adapter.ts';
import type { AdapterSpec } from './target-spec.ts';

/** The adapter a target file's entry describes; `runId` labels what it creates (Chaos Mesh objects). */
export function createAdapter(spec: AdapterSpec, log: CommandLog, runId: string): ServerFaultAdapter {
  switch (spec.type) {
    case 'exec':
      return new ExecAdapter(spec, log);
    case 'docker':
      return new DockerAdapter(spec, log);
    case 'kubernetes':
      return new KubernetesAdapter(spec, log, runId);
  }
}
