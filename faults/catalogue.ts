import { UNKNOWN_FAULT_COLOUR, type FaultFacts } from './fault-facts.ts';
import type { Judge } from './judging/fault-shot.ts';
import type { GrantReader } from './judging/dropped-grant.ts';
import { facts as pauseHolder } from './pause-holder/facts.ts';
import { judge as pauseHolderJudge } from './pause-holder/judge.ts';
import { facts as killHolder } from './kill-holder/facts.ts';
import { judge as killHolderJudge } from './kill-holder/judge.ts';
import { facts as killSession } from './kill-session/facts.ts';
import { judge as killSessionJudge } from './kill-session/judge.ts';
import { facts as pauseClient } from './pause-client/facts.ts';
import { judge as pauseClientJudge } from './pause-client/judge.ts';
import { facts as pauseNode } from './pause-node/facts.ts';
import { judge as pauseNodeJudge } from './pause-node/judge.ts';
import { facts as restartEmpty } from './restart-empty/facts.ts';
import { judge as restartEmptyJudge } from './restart-empty/judge.ts';
import { facts as kill } from './kill/facts.ts';
import { judge as killJudge } from './kill/judge.ts';
import { facts as leaderChurn } from './leader-churn/facts.ts';
import { judge as leaderChurnJudge } from './leader-churn/judge.ts';
import { facts as clock } from './clock/facts.ts';
import { judge as clockJudge } from './clock/judge.ts';
import { facts as clockStrobe } from './clock-strobe/facts.ts';
import { judge as clockStrobeJudge } from './clock-strobe/judge.ts';
import { facts as clockRate } from './clock-rate/facts.ts';
import { judge as clockRateJudge } from './clock-rate/judge.ts';
import { facts as clockRateClient } from './clock-rate-client/facts.ts';
import { judge as clockRateClientJudge } from './clock-rate-client/judge.ts';
import { facts as clockRateWaiters } from './clock-rate-waiters/facts.ts';
import { judge as clockRateWaitersJudge } from './clock-rate-waiters/judge.ts';
import { facts as clockFreezeClients } from './clock-freeze-clients/facts.ts';
import { judge as clockFreezeClientsJudge } from './clock-freeze-clients/judge.ts';
import { facts as failover } from './failover/facts.ts';
import { judge as failoverJudge } from './failover/judge.ts';
import { facts as partition } from './partition/facts.ts';
import { judge as partitionJudge } from './partition/judge.ts';
import { facts as latency } from './latency/facts.ts';
import { judge as latencyJudge } from './latency/judge.ts';
import { facts as delayWrite } from './delay-write/facts.ts';
import { judge as delayWriteJudge } from './delay-write/judge.ts';
import { facts as replyLoss } from './reply-loss/facts.ts';
import { judge as replyLossJudge } from './reply-loss/judge.ts';
import { facts as replyLossAcquire } from './reply-loss-acquire/facts.ts';
import { judge as replyLossAcquireJudge } from './reply-loss-acquire/judge.ts';
import { droppedGrant as replyLossAcquireGrant } from './reply-loss-acquire/dropped-grant.ts';
import { facts as replyLossRenew } from './reply-loss-renew/facts.ts';
import { judge as replyLossRenewJudge } from './reply-loss-renew/judge.ts';
import { facts as replyLossCreate } from './reply-loss-create/facts.ts';
import { judge as replyLossCreateJudge } from './reply-loss-create/judge.ts';
import { droppedGrant as replyLossCreateGrant } from './reply-loss-create/dropped-grant.ts';
import { facts as replyLossDelete } from './reply-loss-delete/facts.ts';
import { judge as replyLossDeleteJudge } from './reply-loss-delete/judge.ts';
import { facts as replyLossPgLock } from './reply-loss-pg-lock/facts.ts';
import { judge as replyLossPgLockJudge } from './reply-loss-pg-lock/judge.ts';
import { droppedGrant as replyLossPgLockGrant } from './reply-loss-pg-lock/dropped-grant.ts';
import { facts as replyLossPgUnlock } from './reply-loss-pg-unlock/facts.ts';
import { judge as replyLossPgUnlockJudge } from './reply-loss-pg-unlock/judge.ts';
import { facts as replyLossEtcdAcquire } from './reply-loss-etcd-acquire/facts.ts';
import { judge as replyLossEtcdAcquireJudge } from './reply-loss-etcd-acquire/judge.ts';
import { droppedGrant as replyLossEtcdAcquireGrant } from './reply-loss-etcd-acquire/dropped-grant.ts';
import { facts as replyLossEtcdRelease } from './reply-loss-etcd-release/facts.ts';
import { judge as replyLossEtcdReleaseJudge } from './reply-loss-etcd-release/judge.ts';
import { facts as replyLossEtcdRenew } from './reply-loss-etcd-renew/facts.ts';
import { judge as replyLossEtcdRenewJudge } from './reply-loss-etcd-renew/judge.ts';
import { facts as holdRequest } from './hold-request/facts.ts';
import { judge as holdRequestJudge } from './hold-request/judge.ts';
import { facts as oneWay } from './one-way/facts.ts';
import { judge as oneWayJudge } from './one-way/judge.ts';
import { facts as reset } from './reset/facts.ts';
import { judge as resetJudge } from './reset/judge.ts';
import { facts as isolateLeader } from './isolate-leader/facts.ts';
import { judge as isolateLeaderJudge } from './isolate-leader/judge.ts';
import { facts as majorityMinority } from './majority-minority/facts.ts';
import { judge as majorityMinorityJudge } from './majority-minority/judge.ts';
import { facts as bridge } from './bridge/facts.ts';
import { judge as bridgeJudge } from './bridge/judge.ts';
import { facts as majoritiesRing } from './majorities-ring/facts.ts';
import { judge as majoritiesRingJudge } from './majorities-ring/judge.ts';

/**
 * Every fault `--nemesis` accepts, one line each: the one table a new fault is added to. A fault is its folder,
 * `faults/<name>/`: its facts and evidence (`facts.ts`), its judge (`judge.ts`), its injection (`inject.ts`, found
 * by name by nemesis/fault-registry.ts: it stands on a higher floor than this table may import). Once its line is
 * here the compiler asks for the rest: a judge of its own evidence (below), and an executor (nemesis/fault.ts
 * `FaultExecutor<F>` types `inject.ts` by these facts; the registry refuses a fault without one at load).
 *
 * The rows' order is the faults' order wherever they are listed: `--help`, the error for an unknown name, the
 * matrix's columns.
 */
export const FAULT_CATALOGUE = {
  'pause-holder': { ...pauseHolder, judge: pauseHolderJudge },
  'kill-holder': { ...killHolder, judge: killHolderJudge },
  'kill-session': { ...killSession, judge: killSessionJudge },
  'pause-client': { ...pauseClient, judge: pauseClientJudge },
  'pause-node': { ...pauseNode, judge: pauseNodeJudge },
  'restart-empty': { ...restartEmpty, judge: restartEmptyJudge },
  kill: { ...kill, judge: killJudge },
  'leader-churn': { ...leaderChurn, judge: leaderChurnJudge },
  clock: { ...clock, judge: clockJudge },
  'clock-strobe': { ...clockStrobe, judge: clockStrobeJudge },
  'clock-rate': { ...clockRate, judge: clockRateJudge },
  'clock-rate-client': { ...clockRateClient, judge: clockRateClientJudge },
  'clock-rate-waiters': { ...clockRateWaiters, judge: clockRateWaitersJudge },
  'clock-freeze-clients': { ...clockFreezeClients, judge: clockFreezeClientsJudge },
  failover: { ...failover, judge: failoverJudge },
  partition: { ...partition, judge: partitionJudge },
  latency: { ...latency, judge: latencyJudge },
  'delay-write': { ...delayWrite, judge: delayWriteJudge },
  'reply-loss': { ...replyLoss, judge: replyLossJudge },
  'reply-loss-acquire': { ...replyLossAcquire, judge: replyLossAcquireJudge, droppedGrant: replyLossAcquireGrant },
  'reply-loss-renew': { ...replyLossRenew, judge: replyLossRenewJudge },
  'reply-loss-create': { ...replyLossCreate, judge: replyLossCreateJudge, droppedGrant: replyLossCreateGrant },
  'reply-loss-delete': { ...replyLossDelete, judge: replyLossDeleteJudge },
  'reply-loss-pg-lock': { ...replyLossPgLock, judge: replyLossPgLockJudge, droppedGrant: replyLossPgLockGrant },
  'reply-loss-pg-unlock': { ...replyLossPgUnlock, judge: replyLossPgUnlockJudge },
  'reply-loss-etcd-acquire': {
    ...replyLossEtcdAcquire,
    judge: replyLossEtcdAcquireJudge,
    droppedGrant: replyLossEtcdAcquireGrant,
  },
  'reply-loss-etcd-renew': { ...replyLossEtcdRenew, judge: replyLossEtcdRenewJudge },
  'reply-loss-etcd-release': { ...replyLossEtcdRelease, judge: replyLossEtcdReleaseJudge },
  'hold-request': { ...holdRequest, judge: holdRequestJudge },
  'one-way': { ...oneWay, judge: oneWayJudge },
  reset: { ...reset, judge: resetJudge },
  'isolate-leader': { ...isolateLeader, judge: isolateLeaderJudge },
  'majority-minority': { ...majorityMinority, judge: majorityMinorityJudge },
  bridge: { ...bridge, judge: bridgeJudge },
  'majorities-ring': { ...majoritiesRing, judge: majoritiesRingJudge },
} as const;

export type FaultName = keyof typeof FAULT_CATALOGUE;

/** The ids of the fault table's columns the faults declare (their facts' `columns`): the lock rows key cells by them. */
export type FaultColumnId = {
  [F in FaultName]: (typeof FAULT_CATALOGUE)[F] extends { readonly columns: readonly { readonly id: infer I }[] }
    ? I
    : never;
}[FaultName];

/** The ids of the remedy table's scenarios the faults declare (their facts' `scenarios`): the lock rows key cells by them. */
export type FaultScenarioId = {
  [F in FaultName]: (typeof FAULT_CATALOGUE)[F] extends { readonly scenarios: readonly { readonly id: infer I }[] }
    ? I
    : never;
}[FaultName];

/**
 * What the table holds for every fault: its facts and a judge of its own evidence; a fault that drops an acquire's
 * reply also reads its committed grant (`droppedGrant`, its folder's dropped-grant.ts: checkers/lost-replies/).
 */
export type FaultTable = {
  readonly [F in FaultName]: FaultFacts & { readonly judge: Judge<F>; readonly droppedGrant?: GrantReader<F> };
};
/** A line without its facts or its judge, or with another fault's judge, does not compile. */
const EVERY_FAULT_WHOLE: FaultTable = FAULT_CATALOGUE;
void EVERY_FAULT_WHOLE;

/** Fault F's reader of its dropped grants, when it drops an acquire's reply. */
export function grantReaderOf<F extends FaultName>(f: F): GrantReader<F> | undefined {
  return (FAULT_CATALOGUE as FaultTable)[f].droppedGrant;
}

/** The facts of a fault recorded in a history under any name (one from an older or newer fencepost): null when unknown. */
export function faultFacts(f: string): FaultFacts | null {
  return Object.hasOwn(FAULT_CATALOGUE, f) ? FAULT_CATALOGUE[f as FaultName] : null;
}

/**
 * Whether a fault recorded in a history (any name, also one from an older or newer fencepost) moves wall clocks:
 * the report draws its offsets.
 */
export function movesClocks(f: string): boolean {
  return faultFacts(f)?.movesClocks === true;
}

/** The colour the report draws a fault of any name with. */
export function faultColour(f: string): string {
  return faultFacts(f)?.colour ?? UNKNOWN_FAULT_COLOUR;
}

/** The `faults:` section of `--help`: one line per fault, in catalogue order. */
export function faultHelpLines(indent: string, width: number): string[] {
  return Object.entries(FAULT_CATALOGUE).map(([name, facts]) => `${indent}${name.padEnd(width)} ${facts.help}`);
}
