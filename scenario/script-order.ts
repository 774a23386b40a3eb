import type { FaultName } from '../faults/fault-names.ts';
import { HEALS_AT_ONCE, type ScenarioStep } from './scenario-steps.ts';

/**
 * Whether a script can be followed at all, before anything starts: every client it names is one of its clients,
 * each client's steps come in an order a client can take them (a write after a read of the same section, a release
 * while it holds the lock), a fault aimed at a holder strikes one inside its critical section, and every heal and
 * wait has the start it ends. Each problem names the step by its number and line. Pure.
 */
export function scriptProblems(steps: readonly ScenarioStep[], clients: readonly string[]): string[] {
  const problems: string[] = [];
  const state = new Map(
    clients.map((c) => [c, { held: false, read: false, started: null as string | null, acquired: false }]),
  );
  /** Faults in effect: `fault` or `fault:client` → whether it was only started (`start …`) and not yet waited for. */
  const open = new Map<string, { started: boolean }>();
  const say = (s: ScenarioStep, problem: string) => problems.push(`step ${s.index + 1} "${s.text}": ${problem}`);
  for (const s of steps) {
    if ('client' in s && s.client !== null && !state.has(s.client)) {
      say(s, `${s.client} is not one of the scenario's clients (${clients.join(', ')})`);
      continue;
    }
    const c = 'client' in s && s.client !== null ? state.get(s.client)! : null;
    switch (s.kind) {
      case 'client': {
        const why = clientStepProblem(s.client, s.f, c!);
        if (why) say(s, why);
        else if (s.until === 'started') c!.started = s.f;
        else apply(c!, s.f);
        break;
      }
      case 'try-acquire': {
        // `start A acquire` … `try A acquire`: the try ends the acquire in flight (one held inside it) instead.
        if (c!.started === 'acquire') c!.started = null;
        const why = clientStepProblem(s.client, 'acquire', c!);
        if (why) say(s, why);
        else if (![...state].some(([other, o]) => other !== s.client && o.held))
          say(
            s,
            `no other client holds the lock for ${s.client} to be kept out of: \`try\` is for a lock that is taken`,
          );
        else apply(c!, 'acquire');
        break;
      }
      case 'await-client':
        if (c!.started !== s.f) say(s, `${s.client} has no ${s.f} started (start ${s.client} ${s.f}) to wait for`);
        else {
          c!.started = null;
          apply(c!, s.f);
        }
        break;
      case 'lease-expired':
        if (!c!.acquired) say(s, `${s.client} has acquired nothing whose lease could run out`);
        break;
      case 'await-renew':
        if (!c!.held) say(s, `${s.client} holds no lease for its watchdog to renew`);
        break;
      case 'strike': {
        const key = `${s.fault}:${s.client}`;
        if (open.has(key)) say(s, `${s.fault} is already in effect on ${s.client}`);
        else if (s.until === 'done' && !(c!.held && c!.read))
          say(
            s,
            `${s.fault} strikes a holder inside its critical section: ${s.client} must have acquired and read first (or write \`start ${s.text}\` to strike its next section)`,
          );
        else if (!HEALS_AT_ONCE.has(s.fault)) open.set(key, { started: s.until === 'started' });
        break;
      }
      case 'await-strike': {
        const o = open.get(`${s.fault}:${s.client}`);
        if (!o?.started) say(s, `no \`start ${s.fault} ${s.client}\` before it to wait for`);
        else o.started = false;
        break;
      }
      case 'fault':
        if (open.has(s.fault)) say(s, `${s.fault} is already in effect`);
        else open.set(s.fault, { started: s.until === 'started' });
        break;
      case 'heal': {
        const key = healKey(s.fault, s.client, open);
        if (!key) say(s, `${s.fault}${s.client ? ` on ${s.client}` : ''} is not in effect: nothing to heal`);
        else open.delete(key);
        break;
      }
    }
  }
  for (const [key, o] of open)
    if (o.started)
      problems.push(`\`start ${key.replace(':', ' ')}\` is never waited for (wait ${key.replace(':', ' ')})`);
  return problems;
}

/** The open fault a heal ends: its own key, or for `clock reset` (no client) the one clock in effect. */
function healKey(fault: FaultName, client: string | null, open: ReadonlyMap<string, unknown>): string | null {
  if (client !== null) return open.has(`${fault}:${client}`) ? `${fault}:${client}` : null;
  if (open.has(fault)) return fault;
  const aimed = [...open.keys()].filter((k) => k.startsWith(`${fault}:`));
  return aimed.length === 1 ? aimed[0] : null;
}

interface ClientState {
  held: boolean;
  read: boolean;
  started: string | null;
  acquired: boolean;
}

function clientStepProblem(client: string, f: string, c: ClientState): string | null {
  if (c.started) return `${client} still has its ${c.started} in flight: \`wait ${client} ${c.started}\` first`;
  if (f === 'acquire' && c.held) return `${client} already holds the lock: it releases first`;
  if ((f === 'read' || f === 'release') && !c.held) return `${client} holds no lock: it acquires first`;
  if (f === 'write' && !c.read) return `${client} has not read since its acquire: a write is based on a read`;
  return null;
}

function apply(c: ClientState, f: string): void {
  if (f === 'acquire') c.held = c.acquired = true;
  if (f === 'read') c.read = true;
  if (f === 'write') c.read = false;
  if (f === 'release') c.held = c.read = false;
}

/**
 * The servers a scenario names that the lock does not run (`redis[3]` for a lock on one Redis node), each with its
 * step. `servers`: the lock's declaration (its counts by kind).
 */
export function serverProblems(
  steps: readonly ScenarioStep[],
  servers: Readonly<Record<'redis' | 'etcd' | 'zk', number>>,
  lock: string,
): string[] {
  const problems: string[] = [];
  for (const s of steps) {
    if (s.kind !== 'strike' || !s.servers) continue;
    for (const name of s.servers) {
      const m = /^(redis|etcd|zk)\[(\d+)\]$/.exec(name)!;
      const have = servers[m[1] as 'redis' | 'etcd' | 'zk'] ?? 0;
      if (Number(m[2]) >= have)
        problems.push(
          `step ${s.index + 1} "${s.text}": --lock=${lock} has no ${name} (${have === 1 ? `its only ${m[1]} server is ${m[1]}[0]` : have ? `its ${m[1]} servers are ${m[1]}[0..${have - 1}]` : `it runs no ${m[1]}`})`,
        );
    }
  }
  return problems;
}
