import type { BuiltinLock } from '../workloads/lock-names.ts';
import type { LockOrigin, LockStore } from '../locks/lock-row.ts';
import { LOCK_ROWS } from '../locks/registry.ts';
import { BUILTIN_LOCKS } from '../workloads/lock-names.ts';
import { EARLIER_FINDINGS, FINDINGS_ROWS, type LibraryFindings } from './findings-advice.ts';
import type { OracleCell } from '../locks/oracle-cell.ts';
import { expectWords, livenessWords, ORACLE, ORACLE_COLUMNS } from './oracle.ts';
import { REMEDY_ORACLE, REMEDY_SCENARIOS } from './remedy-oracle.ts';
import { headingAnchor } from '../common/heading-anchor.ts';
import { lockDoc } from '../locks/lock-finding.ts';

/**
 * docs/choosing.md's generated part: the locks by the question a user comes with ("I have Postgres", "my writes go
 * to S3"), each answer written from the oracle's cells and each library row's `findings` words, and every lock in one grid
 * under the faults people ask about. The lists in the answers are computed (which locks lose an update to a paused
 * holder, which fence it), so a change to the oracle changes the answers; the sentences around them are here.
 * cli/generated-docs.ts puts it between `<!-- gen:choosing -->` markers and its test fails on drift.
 */

/** Where each built-in lock keeps its lock and what it is: its row's `place` (a required field of every row). */
const PLACES: Readonly<Record<BuiltinLock, { store: LockStore; from: LockOrigin }>> = Object.fromEntries(
  BUILTIN_LOCKS.map((l) => [l, LOCK_ROWS[l].place]),
) as Record<BuiltinLock, { store: LockStore; from: LockOrigin }>;

/** GitHub's anchor for a heading (common/heading-anchor.ts). */
export const slug = headingAnchor;

const findingsOf = (lock: string): LibraryFindings | undefined => FINDINGS_ROWS.find((f) => f.lock === lock);

/** Where a lock's own story is: its findings.md section for an npm library, locks.md for the rest (locks/lock-finding.ts). */
export const lockLink = lockDoc;

const named = (lock: BuiltinLock) => `[\`${lock}\`](${lockLink(lock)})`;
/** "a, b and c" of the locks, linked; "every one of them" when they are all of `of`. */
function list(locks: readonly BuiltinLock[], of?: readonly BuiltinLock[]): string {
  if (!locks.length) return 'none';
  if (of && locks.length === of.length && locks.length > 2) return 'every one of them';
  const links = locks.map(named);
  return links.length === 1 ? links[0] : `${links.slice(0, -1).join(', ')} and ${links[links.length - 1]}`;
}

const FAULT_TABLE = `matrix.md#${slug('The fault table')}`;
const REMEDY_TABLE = `matrix.md#${slug('Failure modes and remedies (`--matrix=remedies`)')}`;

/** One grid column: its title, where the table that decides it is, and each lock's cell there. */
interface GridColumn {
  readonly title: string;
  readonly link: string;
  readonly cell: (lock: BuiltinLock) => OracleCell;
  /** How its cells read, when not as an outcome (the token column says whether there is one). */
  readonly words?: (o: OracleCell) => string;
}

const faultColumn = (id: (typeof ORACLE_COLUMNS)[number]['id'], title: string): GridColumn => ({
  title,
  link: FAULT_TABLE,
  cell: (lock) => ORACLE[lock][id],
});
const remedyColumn = (id: (typeof REMEDY_SCENARIOS)[number]['id'], title: string): GridColumn => ({
  title,
  link: REMEDY_TABLE,
  cell: (lock) => REMEDY_ORACLE[lock][id],
});

const GRID: readonly GridColumn[] = [
  faultColumn('no-fault', 'no fault'),
  faultColumn('pause-holder', 'paused holder'),
  faultColumn('restart-empty', 'restart empty'),
  faultColumn('clock', 'clock jump'),
  remedyColumn('failover', 'failover'),
  {
    ...faultColumn('fencing', 'fencing token? (paused holder, fenced)'),
    words: (o) => (o.expect === 'refuse' ? 'no' : o.expect === 'n/a' ? 'n/a' : safe(o) ? '✓ yes: safe' : '✗ yes: lost'),
  },
  // A slow network as the data sees it: the holder's write held in flight past the TTL.
  remedyColumn('delay-write', 'latency (write delayed past the TTL)'),
];

/**
 * A cell as the grid writes it: ✓ / ✗ and the expectation in words, "n/a" where the fault cannot reach the lock (a
 * reader took "—" for "not tested" beside a consensus lock's failover cell).
 */
export function gridCell(o: OracleCell): string {
  if (o.expect === 'n/a') return 'n/a';
  if (o.expect === 'refuse') return 'no token';
  const mark = o.expect === 'safe' || o.expect === 'safe-may-starve' ? '✓' : '✗';
  const live = o.decided === 'measured' && o.liveness ? `, ${livenessWords(o.liveness.expect)}` : '';
  return `${mark} ${expectWords(o.expect)}${live}`;
}

const LOCKS = BUILTIN_LOCKS.filter((l) => l !== 'none');
const loses = (o: OracleCell) => o.expect === 'lost' || o.expect === 'may-lose';
const safe = (o: OracleCell) => o.expect === 'safe' || o.expect === 'safe-may-starve';
const inStore = (store: LockStore) => LOCKS.filter((l) => PLACES[l].store === store);
/** A lock whose fenced paused-holder cell is measured safe: its token stops a paused holder's write. */
const fences = (l: BuiltinLock) => ORACLE[l].fencing.decided === 'measured' && safe(ORACLE[l].fencing);
const pausedHolderSafe = (l: BuiltinLock) => safe(ORACLE[l]['pause-holder']);
/** Its lock-check failed: it breaks the lock-client contract even without a fault. */
const failsContract = (l: BuiltinLock) => findingsOf(l)?.lockCheck?.startsWith('FAILED') === true;

function redisAnswer(): string[] {
  const redis = inStore('Redis');
  const avoid = redis.filter(failsContract);
  const fenced = redis.filter(fences);
  const pausedLose = redis.filter((l) => loses(ORACLE[l]['pause-holder']));
  const restartLose = redis.filter((l) => loses(ORACLE[l]['restart-empty']));
  return [
    `Without faults every Redis lock here keeps two runs apart${avoid.length ? `, but avoid ${list(avoid)}: ${avoid.length === 1 ? 'it' : 'they'} failed \`lock-check\`, the lock-client contract, without any fault` : ''}. Then: a holder paused past its TTL (a GC pause, a stopped VM, a slow disk) writes anyway with ${list(pausedLose, redis)}; a Redis that restarts without persistence forgets the lock with ${list(restartLose, redis)} — unless it stays down a TTL or persists every write ([remedies](${REMEDY_TABLE})).`,
    '',
    `So for a cron job whose second run is merely wasted work, any of these with a TTL well above the job's longest run will do. If a second run does damage, the lock alone cannot stop it: fence the write. The Redis lock with a fencing token is ${list(fenced)} — and its token goes back when Redis restarts empty or fails over; a token from etcd, ZooKeeper or the data's own version column does not.`,
  ];
}

function postgresAnswer(): string[] {
  const pg = inStore('Postgres');
  const safeUnderPause = pg.filter(pausedHolderSafe);
  return [
    `Keep the lock where the data is. ${list(safeUnderPause)} ${safeUnderPause.length === 1 ? 'is' : 'are'} safe under a paused holder without anything else: a row's version column is its own fence (\`UPDATE … WHERE version = <read>\`), and a session advisory lock lives exactly as long as its session — no lease for a pause to outlive. Advisory locks need a session: behind pgbouncer in transaction mode they do not hold at all, and a session the server ends frees the lock at once ([advisory-lock's findings](${lockLink('advisory-lock')})).`,
  ];
}

function noTokenStoreAnswer(): string[] {
  const lost = LOCKS.filter((l) => loses(ORACLE[l]['pause-holder']));
  const safeOnes = LOCKS.filter(pausedHolderSafe);
  return [
    `A lock cannot stop a holder that was paused past its lease from writing: ${lost.length} of the ${LOCKS.length} locks here lose an update to a [paused holder](${FAULT_TABLE}), and the ${safeOnes.length} that do not (${list(safeOnes)}) keep the lock in the same store as the data, which S3 is not. What makes the write safe is the store refusing a stale writer: a conditional write on a version or ETag (a compare-and-set) is a fence — pass the lock's token or the version you read and let the store check it. S3 takes conditional writes (\`If-Match\` with the ETag you read, \`If-None-Match: *\` to create only): put the object with the ETag you read and a stale writer's put is refused (fencepost has not measured S3 itself). A store with no conditional write cannot be protected by any lock here; keep the critical section far shorter than the TTL, make the write idempotent, and expect the rare double write.`,
  ];
}

function failoverAnswer(): string[] {
  const measuredFailover = LOCKS.filter((l) => REMEDY_ORACLE[l].failover.decided === 'measured');
  const lose = measuredFailover.filter((l) => loses(REMEDY_ORACLE[l].failover));
  const consensus = LOCKS.filter((l) => PLACES[l].store === 'etcd' || PLACES[l].store === 'ZooKeeper');
  const churn = EARLIER_FINDINGS.find((e) => e.title.startsWith('ZooKeeper'));
  return [
    `A Redis primary with a replica loses the lock when the primary dies before the key replicated: ${list(lose)} lose an update to a [failover](${REMEDY_TABLE}). Redlock has no replicas to fail over to (losing a master's keys is the restart-empty column). A consensus store acknowledges a write only once a majority has it, so a leader change does not forget the lock: ${list(consensus)}. Their cost is liveness, not safety${churn ? ` ([ZooKeeper was unavailable for 3–4 TTLs while its leader churned](findings.md#${slug(churn.title)}))` : ''}; and a paused holder still writes unless the write is fenced with their token.`,
  ];
}

function libraryAnswer(): string[] {
  return [
    'Your library as its README uses it, what it did under the faults, and what to do about it:',
    '',
    '| I use | in one line | what to do |',
    '|---|---|---|',
    ...FINDINGS_ROWS.map(
      (f) =>
        `| [\`${f.lock}\`](${lockLink(f.lock as BuiltinLock)}) (${/^[^\s,']+/.exec(f.package)![0]}) | ${f.verdict.replace(/\|/g, '\\|')} | ${f.advice.replace(/\|/g, '\\|')} |`,
    ),
  ];
}

/** The Python, Java and Go libraries: what a paused holder did to each, and what to do (the row's own advice). */
function foreignAnswer(): string[] {
  const foreign = LOCKS.filter((l) => ['Python', 'Java', 'Go'].includes(PLACES[l].from));
  const cell = (l: BuiltinLock) => gridCell(ORACLE[l]['pause-holder']);
  return [
    'Each as its own documentation uses it, with its default retries and timeouts (the glue and the token are in [locks.md](locks.md#the-real-libraries-python-java-go)):',
    '',
    '| I use | store | paused holder | what to do |',
    '|---|---|---|---|',
    ...foreign.map((l) => {
      const row = LOCK_ROWS[l];
      const advice = 'foreign' in row ? row.foreign.advice : '';
      return `| ${named(l)} (${PLACES[l].from}) | ${PLACES[l].store} | ${cell(l)} | ${advice.replace(/\|/g, '\\|')} |`;
    }),
  ];
}

const QUESTIONS: readonly (readonly [string, () => string[]])[] = [
  ['I need mutual exclusion for a cron job on Redis', redisAnswer],
  ['I have Postgres', postgresAnswer],
  ['My writes go to S3, or another store outside the lock', noTokenStoreAnswer],
  ['I need a lock that survives a failover', failoverAnswer],
  ['I use a Node library', libraryAnswer],
  ['I use Python, Java or Go', foreignAnswer],
];

/** Every lock in one grid: its store, and its expected outcome under each fault the questions ask about. */
export function choosingGrid(): string {
  const head = `| lock | store | ${GRID.map((c) => `[${c.title}](${c.link})`).join(' | ')} |`;
  const rule = `|---|---|${GRID.map(() => '---').join('|')}|`;
  const rows = LOCKS.map(
    (l) =>
      `| ${named(l)} | ${PLACES[l].store}${PLACES[l].from === 'fencepost' ? '' : ` (${PLACES[l].from})`} | ${GRID.map((c) => (c.words ?? gridCell)(c.cell(l))).join(' | ')} |`,
  );
  return [head, rule, ...rows].join('\n');
}

/** The generated part of docs/choosing.md: each question and its answer, then the grid. */
export function choosingMarkdown(): string {
  return [
    ...QUESTIONS.flatMap(([question, answer]) => [`## ${question}`, '', ...answer(), '']),
    '## Every lock, every fault',
    '',
    choosingGrid(),
  ].join('\n');
}
