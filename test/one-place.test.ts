import { describe, expect, it } from 'vitest';
import { faultTable, lockTable, readFiles, tableOf, type Table } from './support/name-table.ts';

/**
 * A fault or a lock row is added in one place: its folder and one line of its table. The table of what names each
 * one elsewhere, and what "names" means, is test/support/name-table.ts's. Same word, other meaning: OTHER_MEANING,
 * each with its reason. Named on purpose by another table and not yet moved into the folder: NOT_YET, each with
 * what names it. The test fails on a file neither lists, and on a listed file that no longer names it, so the lists
 * only shrink.
 */
/** Same word, other meaning: name → file → why that file's use is not the fault's or the row's. */
const COLUMN = "the fault table's column id (faults/<name>/facts.ts `columns`), named after the fault it runs";
const REMEDY = "the remedy table's scenario id (faults/<name>/facts.ts `scenarios`), named after the fault it runs";
const ADAPTER = "a target adapter's action (target/target-spec.ts AdapterAction: pause, resume, kill, start)";
const PROXY = "the TCP proxy's mode (nemesis/proxy/proxy-mode.ts), the machinery the fault drives";
/** Not the fault: a column or scenario of its, which the remedies list pairs with the one its remedy is measured in. */
const REMEDY_PAIR =
  "a column id or scenario id (as COLUMN, REMEDY) in the remedies list's pair of a broken column and a remedied one " +
  '(REMEDIES: TableColumnRef, typed by the ids the faults declare)';
const OP_LATENCY = "an op's latency (invoke to completion), the run's statistics";
const SENTENCE = 'inside a sentence as markdown code (`…`): documentation';

const OTHER_MEANING: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'pause-holder': {
    'matrix/choosing-page.ts': COLUMN,
    'matrix/fault-oracle-table.ts': COLUMN,
    'matrix/remedy-oracle.ts': REMEDY_PAIR,
  },
  'restart-empty': {
    'matrix/choosing-page.ts': COLUMN,
    'matrix/fault-oracle-table.ts': COLUMN,
    'matrix/remedy-oracle.ts': REMEDY_PAIR,
  },
  kill: {
    'faults/kill-holder/script.ts': "the scenario's verb `kill A`, which scripts kill-holder",
    'faults/restart-empty/inject.ts': ADAPTER,
    'harness/options.ts': "a sentence of --restart-delay's help (`restart-empty, kill: ms …`)",
    'harness/target-check-command.ts': ADAPTER,
    'harness/target-cleanup.ts': ADAPTER,
    'harness/target-plan.ts': ADAPTER,
    'nemesis/fault-needs.ts': ADAPTER,
    'target/adapter.ts': ADAPTER,
    'target/docker-adapter.ts': ADAPTER,
    'target/exec-adapter.ts': ADAPTER,
    'target/kubernetes-adapter.ts': ADAPTER,
    'target/remote-node.ts': ADAPTER,
    'target/target-file.ts': ADAPTER,
    'target/target-spec.ts': ADAPTER,
  },
  clock: {
    'bench/throughput-bare-client.ts': "a client's clock (workloads/client-loop.ts ClientClock)",
    'faults/clock-strobe/facts.ts': 'the family of faults that move clocks (faults/fault-facts.ts FaultFamily)',
    'faults/clock-rate/facts.ts': 'the family of faults that move clocks (faults/fault-facts.ts FaultFamily)',
    'faults/clock-rate-client/facts.ts': 'the family of faults that move clocks (faults/fault-facts.ts FaultFamily)',
    'faults/clock-rate-waiters/facts.ts': 'the family of faults that move clocks (faults/fault-facts.ts FaultFamily)',
    'faults/clock-freeze-clients/facts.ts': 'the family of faults that move clocks (faults/fault-facts.ts FaultFamily)',
    'harness/client-pool.ts': "a client's answer to a clock request (workloads/client-protocol.ts)",
    'harness/client-slot.ts': "a client's answer to a clock request (workloads/client-protocol.ts)",
    'workloads/client-protocol.ts': "the clock request and its answer (a client's own clock readings)",
    'faults/fault-facts.ts': 'the family of faults that move clocks (FaultFamily)',
    'harness/run-site.ts': "the run folder's clock files (the clock shim's board)",
    'matrix/choosing-page.ts': COLUMN,
    'matrix/fault-oracle-table.ts': COLUMN,
    'report/report-page.ts': "the report's clock-offset chart (its data key and section id)",
    'store/run-dir.ts': "the run folder's clock files (the clock shim's board)",
    'workloads/client-loop.ts': "a client's clock (ClientClock)",
    'workloads/client.ts': "a client's clock (ClientClock)",
  },
  'clock-strobe': { 'cli/cli-reference.ts': SENTENCE },
  'clock-rate': {
    'harness/options.ts': 'the run option --clock-rate, the rate the fault runs a clock at',
    'harness/run-overrides.ts': 'the run option --clock-rate, which a cell may set (RunOverrides clockRate)',
    'matrix/margin-oracle.ts': 'the run option --clock-rate, which a margin cell owns',
  },
  'clock-rate-waiters': { 'harness/options.ts': 'the run option --clock-rate, the rate the fault runs a clock at' },
  failover: {
    'cluster/cluster-layout.ts': "the cluster's failover pair (a Redis primary and its replica)",
    'cluster/cluster.ts': "the cluster's failover pair (a Redis primary and its replica)",
    'matrix/choosing-page.ts': REMEDY,
    'matrix/remedy-oracle.ts': REMEDY_PAIR,
    'target/target-cluster.ts': "the cluster's failover pair (a target has none)",
  },
  partition: {
    'checkers/models/account.ts': "a model's partition of a history into independent keys (checkers/model.ts)",
    'checkers/models/mutex.ts': "a model's partition of a history into independent keys (checkers/model.ts)",
    'nemesis/proxy/link.ts': PROXY,
    'nemesis/proxy/proxy-mode.ts': PROXY,
    'nemesis/proxy/tcp-proxy.ts': PROXY,
  },
  latency: {
    'checkers/op-stats.ts': OP_LATENCY,
    'checkers/run-results.ts': OP_LATENCY,
    'cli/cli-reference.ts': SENTENCE,
    'nemesis/proxy/pipe.ts': PROXY,
    'nemesis/proxy/proxy-mode.ts': PROXY,
    'nemesis/proxy/tcp-proxy.ts': PROXY,
    'store/results-json.ts': OP_LATENCY,
  },
  'delay-write': { 'matrix/choosing-page.ts': REMEDY, 'matrix/remedy-oracle.ts': REMEDY_PAIR },
  'one-way': { 'nemesis/proxy/proxy-mode.ts': PROXY, 'nemesis/proxy/tcp-proxy.ts': PROXY },
  reset: {
    'faults/reply-loss-create/inject.ts': `${PROXY}: drop-next-reply's \`then: 'reset'\``,
    'faults/reply-loss-etcd-acquire/inject.ts': `${PROXY}: drop-next-reply's \`then: 'reset'\``,
    'faults/reply-loss-etcd-release/inject.ts': `${PROXY}: drop-next-reply's \`then: 'reset'\``,
    'faults/reply-loss-etcd-renew/inject.ts': `${PROXY}: drop-next-reply's \`then: 'reset'\``,
    'nemesis/proxy/link.ts': PROXY,
    'nemesis/proxy/proxy-mode.ts': PROXY,
    'nemesis/proxy/tcp-proxy.ts': PROXY,
    'report/client/report.js': "the report's zoom reset (its view put back)",
    'report/report-page.ts': "the report's zoom reset (its view put back)",
    'scenario/scenario-steps.ts': 'the heal word of a clock jump (`clock reset`)',
  },
  'redlock-npm': { 'matrix/findings-advice.ts': `${SENTENCE} (docs/findings.md's earlier findings)` },
  'advisory-lock': { 'matrix/choosing-page.ts': `${SENTENCE} (docs/choosing.md)` },
};

/** Named on purpose by another table, not yet in the folder: name → file → what names it. */

const NOT_YET: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'etcd-go': {
    'faults/reply-loss-etcd-acquire/inject.ts':
      "the fault's AIMABLE_LOCKS: the locks whose acquire is a Txn putting the lock key on the client's lease (a row could declare it)",
  },
};

function unexplained(table: Table): Record<string, { unlisted: string[]; stale: string[] }> {
  const out: Record<string, { unlisted: string[]; stale: string[] }> = {};
  for (const [name, files] of table) {
    const listed = { ...OTHER_MEANING[name], ...NOT_YET[name] };
    const unlisted = files.filter((f) => !(f in listed));
    const stale = Object.keys(listed).filter((f) => !files.includes(f));
    if (unlisted.length || stale.length) out[name] = { unlisted, stale };
  }
  return out;
}

describe('what names a fault or a row', () => {
  const files = [
    ['faults/kill/inject.ts', ["name: 'kill',"]],
    ['faults/catalogue.ts', ['  kill: { ...kill },']],
    ['nemesis/a.ts', ["if (f === 'kill') stop();"]],
    ['nemesis/b.ts', ['  kill: 3,']],
    ['nemesis/c.ts', ['// kill: a comment', " * 'kill' in a doc comment", "help: 'SIGKILL, then kill the rest'"]],
    ['locks/etcd/etcd.ts', ["defaultFaults: ['kill'],"]],
    ['harness/d.ts', ["if (config.lock === 'redis') x();", "const kinds = ['redis'];"]],
  ] as const;
  const kill = (exempt?: RegExp) =>
    tableOf(
      ['kill'],
      files.map(([f, l]) => [f, [...l]] as const),
      {
        ownFolder: (n) => `faults/${n}/`,
        tableLine: 'faults/catalogue.ts',
        exempt,
        lockRow: false,
      },
    );

  it('is a whole string literal or an object key on a code line, outside its folder and its table line', () => {
    expect(kill(/^locks\//).get('kill')).toEqual(['nemesis/a.ts', 'nemesis/b.ts']);
    expect(kill().get('kill')).toEqual(['nemesis/a.ts', 'nemesis/b.ts', 'locks/etcd/etcd.ts']);
  });

  it('for a row named like a store, only a spelling beside a lock: `redis` the server kind is not the row', () => {
    const table = tableOf(
      ['redis'],
      files.map(([f, l]) => [f, [...l]] as const),
      {
        ownFolder: (n) => `locks/${n}/`,
        tableLine: 'locks/registry.ts',
        lockRow: true,
      },
    );
    expect(table.get('redis')).toEqual(['harness/d.ts']);
  });
});

describe('a fault and a lock row are each named in one place beside their folder', () => {
  const files = readFiles();

  it('every fault: no production file outside its folder names it but its catalogue line and the ones listed', () => {
    expect(unexplained(faultTable(files))).toEqual({});
  });

  it('every lock row: no production file outside its folder names it but its registry line and the ones listed', () => {
    expect(unexplained(lockTable(files))).toEqual({});
  });
});
