import { describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import type { FaultName } from '../faults/fault-names.ts';
import { targetFaultAdapters } from '../harness/target-faults.ts';
import { CommandLog } from './command-log.ts';
import { KubernetesAdapter } from './kubernetes-adapter.ts';
import { parseTarget } from './target-file.ts';

// Audit R9: `kubectl exec <pod> -- kill -STOP 1` exits 0 and stops nothing (the kernel drops SIGSTOP sent to a
// namespace's init from inside it), so every pause shot in `pod` mode was a silent miss. Pauses are refused instead.

function kubernetesTarget(mode: 'pod' | 'chaos-mesh') {
  return parseTarget(
    {
      name: 't',
      'i-own-this': true,
      allowHosts: ['127.0.0.1'],
      keyPrefix: 'fp-t/',
      servers: { redis: { endpoints: [{ host: '127.0.0.1', port: 7000, node: 'redis-0' }] } },
      adapters: { k: { type: 'kubernetes', namespace: 'redis-stg', mode } },
      serverFaults: { 'pause-node': 'k', 'leader-churn': 'k', 'restart-empty': 'k' },
    },
    '/srv/t/target.json',
  );
}

function refusal(mode: 'pod' | 'chaos-mesh', faults: FaultName[]): HarnessError {
  try {
    targetFaultAdapters(kubernetesTarget(mode), faults);
  } catch (err) {
    expect((err as HarnessError).exitCode).toBe(EXIT.badArguments);
    return err as HarnessError;
  }
  throw new Error('accepted');
}

describe('a Kubernetes adapter cannot pause, and says why and what to use instead', () => {
  it.each(['pod', 'chaos-mesh'] as const)('%s mode: pause-node is refused (254) before anything runs', (mode) => {
    const err = refusal(mode, ['pause-node']);
    expect(err.message).toContain('pause-node needs the adapter "k" (kubernetes) to pause, and it cannot');
    expect(err.message).toContain('the kernel drops a SIGSTOP sent to it from inside that namespace');
    expect(err.message).toContain('`kubectl exec` and `kubectl debug --target` both run');
    expect(err.hint).toContain('"exec" adapter');
    expect(err.hint).toContain('ctr -n k8s.io task pause <container id>');
  });

  it('pod mode: leader-churn (a pause too) is refused; restart-empty (kill, then start) is taken', () => {
    expect(refusal('pod', ['leader-churn']).message).toContain('to pause, and it cannot');
    expect(targetFaultAdapters(kubernetesTarget('pod'), ['restart-empty'])).toEqual({ kill: 'k' });
  });

  it('pod mode plans only kill and start, and its preflight asks for what they need', () => {
    const spec = { type: 'kubernetes', name: 'k', namespace: 'ns', mode: 'pod', kubectl: 'kubectl' } as const;
    const adapter = new KubernetesAdapter({ ...spec, context: null, container: null }, new CommandLog(null), 'r');
    expect(adapter.actions).toEqual(['kill', 'start']);
    expect(adapter.plan('kill', 'redis-0').command).toBe(
      'kubectl --namespace ns delete pod redis-0 --grace-period=0 --force --wait=false',
    );
    expect(adapter.plan('start', 'redis-0').command).toBe(
      'kubectl --namespace ns wait --for=condition=Ready pod/redis-0 --timeout=120s',
    );
    expect(adapter.preflightPlan(['redis-0']).map((p) => p.command)).toEqual([
      'kubectl --namespace ns auth can-i delete pods',
      'kubectl --namespace ns get pod redis-0',
    ]);
    expect(() => adapter.plan('pause', 'redis-0')).toThrow(/cannot pause: a pod's server is PID 1/);
    expect(() => adapter.plan('resume', 'redis-0')).toThrow(/cannot resume/);
  });
});
