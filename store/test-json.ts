import type { FaultName } from '../faults/fault-names.ts';
import type { RunConfig } from './run-config.ts';
import { rerunLine } from './rerun-line.ts';
import { isRecord } from '../common/is-record.ts';
import { formatOf, RUN_FORMAT, RUN_FORMAT_VERSIONS } from './run-format.ts';
import { defineFormat } from '../common/file-format.ts';
import type { ForeignLockRecord } from '../workloads/foreign/lock-identity.ts';
import type { TargetRecord } from '../target/target-record.ts';

/**
 * The test record (store/run-dir.ts names its file) exactly as a run writes it (harness/run.ts): the one definition
 * of the file. `normalizeTestJson` below reads any test record — older runs, plugins, fixtures — into the tolerant
 * `TestJson` the pages use.
 */
export interface StoredTestJson {
  /** The record's format (store/run-format.ts). A run from before the number has none; `decodeTestJson` says 0. */
  format: number;
  lock: string;
  strategy: {
    name: string;
    token: 'monotonic' | 'version' | 'none';
    exclusive: boolean;
    servers?: { redis: number; etcd: number; zk: number };
    /**
     * What the lock's lease certainly lasts (locks/strategy.ts LeaseTerms), null when the lock does not say;
     * absent in runs from before the promise checker (checkers/promise/), whose overlaps it then calls unknown.
     */
    lease?: import('../history/lease-terms.ts').LeaseTerms | null;
  };
  argv: string[];
  seed: number;
  startedAt: string;
  faults: FaultName[];
  config: Readonly<RunConfig>;
  versions: Record<string, string>;
  nodes: { name: string; port: number }[];
  /**
   * How clients reached the servers: through the harness's TCP proxies (a fault of the run acts there), or
   * straight to their ports. Absent in runs from before it was recorded (those were always proxied).
   */
  clientNetwork?: 'proxied' | 'direct';
  /** Faults of `faults` that did not apply to this run, with why (never injected, so not required to hit). */
  skippedFaults?: Record<string, string>;
  /**
   * Set when `--stop-on-lost-update` ended the run before its time limit: when (s after the clients started) and on
   * which committed write. The checkers then decide from the ledger; if they find no lost update the verdict is
   * unknown (a run cut short earns no VALID).
   */
  stoppedEarly?: { atS: number; account: number; writeId: number; missed: number };
  /** A scripted scenario's run (--scenario): its script, and how far the run could follow it. */
  scenario?: ScenarioRecord;
  /**
   * Set when a target's abort condition ended the run (its health probe, the clients' error rate, its time bound),
   * with why: the checkers decide as for a run cut short — unknown unless they find a lost update.
   */
  aborted?: string;
  /**
   * Set for a run against a target (`--target`, harness/target-session.ts): the user's servers, the adapters its
   * server faults went through (their evidence in the fault records says `evidenceFrom`), the fence, the keys left.
   */
  target?: TargetRecord;
  /** Set when the run was interrupted (Ctrl-C/SIGTERM): the history ends early and there is no verdict. */
  interrupted?: boolean;
  /** Set when the harness failed mid-run (see the console for the error): the history ends early. */
  failed?: boolean;
  /** A lock in another language: which build of it ran (workloads/foreign/lock-identity.ts). */
  foreignLock?: ForeignLockRecord;
}

/** How one step of a scripted scenario went (scenario/step-gate.ts says what each status means). */
export interface ScenarioStepRecord {
  text: string;
  status: 'done' | 'held' | 'diverged' | 'not-reached';
  /** What the history showed for it, with op indexes; or why the run could not follow it. */
  evidence: string;
  /** When it started and ended, ms on the history's clock. */
  startMs?: number;
  endMs?: number;
}

/** A scripted scenario as its run records it: the script, each step's outcome, and whether it was followed. */
export interface ScenarioRecord {
  name: string;
  /** The scenario file the run was given, as given (null: built in memory, e.g. by replay from a bundle). */
  file: string | null;
  clients: string[];
  steps: ScenarioStepRecord[];
  /** Every step done or held: the interleaving was the script's, and the run is evidence. */
  followed: boolean;
  /** The first step the run could not follow (1-based), and why: the run is then evidence neither way. */
  diverged: { step: number; text: string; why: string } | null;
  /**
   * What the scenario expects (its `expect`): a failure signature, a lost-replies finding (no story), or `clean`;
   * null when it names none.
   */
  expect: { checker: string; anomaly: string; story?: string | null } | 'clean' | null;
}

/**
 * The test record as a report reads it. The run orchestrator writes `{ argv, seed, config, versions, startedAt, lock }`;
 * older runs, plugin runs and hand-made fixtures may lack any of it, so every field is read defensively and a
 * missing one shows as "unknown" rather than breaking the page.
 */
export interface TestJson {
  argv: string[];
  seed: number | null;
  config: Partial<RunConfig>;
  versions: Record<string, string>;
  startedAt: string | null;
  lock: string;
  /** The faults the run resolved (the strategy's defaults filled in); null when the record doesn't say. */
  faults: string[] | null;
  /** Ctrl-C / SIGTERM ended the run early: the history is partial. */
  interrupted: boolean;
  /** The strategy's token kind (`monotonic` | `version` | `none`), when recorded. */
  token: string | null;
  /** Which build of a lock in another language ran, when recorded (lock-identity.ts), as far as it reads. */
  foreignLock: ForeignLockSeen | null;
  /** How clients reached the servers (StoredTestJson.clientNetwork); a record that does not say was proxied. */
  clientNetwork: 'proxied' | 'direct';
}

/** The parts of a foreign lock's record the pages show, each read defensively. */
export interface ForeignLockSeen {
  fingerprint: string;
  manifest: { path: string; sha256: string } | null;
  command: string[];
  files: { path: string; sha256: string | null; bytes: number }[];
  packages: Record<string, string>;
}

function foreignLockSeen(v: unknown): ForeignLockSeen | null {
  if (!isRecord(v) || typeof v.fingerprint !== 'string') return null;
  const m = isRecord(v.manifest) ? v.manifest : null;
  const files = Array.isArray(v.files) ? v.files.filter(isRecord) : [];
  const packages: Record<string, string> = {};
  if (isRecord(v.packages)) for (const [k, x] of Object.entries(v.packages)) packages[k] = String(x);
  return {
    fingerprint: v.fingerprint,
    manifest: m ? { path: String(m.path), sha256: String(m.sha256) } : null,
    command: Array.isArray(v.command) ? v.command.map(String) : [],
    files: files.map((f) => ({
      path: String(f.path),
      sha256: typeof f.sha256 === 'string' ? f.sha256 : null,
      bytes: typeof f.bytes === 'number' ? f.bytes : 0,
    })),
    packages,
  };
}

/**
 * test.json, declared once (common/file-format.ts). Its decoder is the one reader of a test record as parsed: every
 * reader of test.json goes through it (via store/run-dir.ts). A record from before the format number was written is
 * format 0 and comes back with `format: 0`; one of a newer format than this code's is refused (a HarnessError, exit
 * 254) rather than misread. Anything else — a record that is not an object, fields missing — comes back as it is,
 * for the tolerant readers (`normalizeTestJson` for the pages, the check's own test of `config`) to judge.
 */
export const TEST_FORMAT = defineFormat<StoredTestJson, unknown>({
  file: 'test.json',
  what: 'what the run was, written when it starts and again each time it learns more.',
  versionField: 'format',
  current: RUN_FORMAT,
  versions: RUN_FORMAT_VERSIONS,
  fields: {
    format: 'the format number (above)',
    lock: 'the `--lock` that ran',
    strategy: 'the lock’s strategy: `name`, `token` (`monotonic`, `version`, `none`), `exclusive`, `servers`, `lease`',
    argv: 'the command line, as given',
    seed: 'the seed that replays the run',
    startedAt: 'when the run started (ISO 8601)',
    faults: 'the faults the run resolved, as `--nemesis` names them',
    config: 'every run option, resolved',
    versions: 'the version of every server and client library',
    nodes: 'the servers: `name` and `port` each',
    clientNetwork: '`proxied` (through the harness’s TCP proxies) or `direct`; absent: proxied',
    skippedFaults: 'faults that did not apply to this run, with why',
    stoppedEarly: '`--stop-on-lost-update` ended the run: when (s) and on which write',
    scenario: 'a scripted scenario’s run: its script, each step’s outcome, whether it was followed',
    aborted: 'why a target’s abort condition ended the run',
    target: 'a run against a target: its servers, the adapters its faults went through, the fence, the keys left',
    interrupted: '`true` when Ctrl-C or SIGTERM ended the run early',
    failed: '`true` when the harness failed mid-run',
    foreignLock: 'a lock in another language: which build of it ran',
  },
  decode: (raw, file) => {
    const format = formatOf(raw, file);
    return isRecord(raw) ? { ...raw, format } : raw;
  },
});

/** The one reader of a test record as parsed (TEST_FORMAT's decoder). */
export const decodeTestJson = TEST_FORMAT.decode;

export function normalizeTestJson(raw: unknown, fallbackLock = 'unknown'): TestJson {
  const r = isRecord(raw) ? raw : {};
  const config = (isRecord(r.config) ? r.config : {}) as Partial<RunConfig>;
  const argv = Array.isArray(r.argv) ? r.argv.map(String) : Array.isArray(config.argv) ? config.argv.map(String) : [];
  const seedRaw = typeof r.seed === 'number' ? r.seed : config.seed;
  const versions: Record<string, string> = {};
  if (isRecord(r.versions)) for (const [k, v] of Object.entries(r.versions)) versions[k] = String(v);
  const lock = typeof r.lock === 'string' ? r.lock : typeof config.lock === 'string' ? config.lock : fallbackLock;
  return {
    argv,
    seed: typeof seedRaw === 'number' && Number.isFinite(seedRaw) ? seedRaw : null,
    config,
    versions,
    startedAt: typeof r.startedAt === 'string' ? r.startedAt : null,
    lock,
    faults: Array.isArray(r.faults) ? r.faults.map(String) : null,
    interrupted: r.interrupted === true,
    token: isRecord(r.strategy) && typeof r.strategy.token === 'string' ? r.strategy.token : null,
    foreignLock: foreignLockSeen(r.foreignLock),
    // Format 0 records before 2026-12-02 have no `clientNetwork`: their clients always went through the proxies.
    clientNetwork: r.clientNetwork === 'direct' ? 'direct' : 'proxied',
  };
}

/** The command that replays this run (see store/rerun-line.ts, which the console's summary uses too). */
export function rerunCommand(test: TestJson): string {
  return rerunLine(test);
}

/** The faults a run asked for, as a person would name them. */
export function faultSummary(test: TestJson, observed: readonly string[]): string {
  if (test.faults) return test.faults.length === 0 ? 'none' : test.faults.join(', ');
  const n = test.config.nemesis;
  if (Array.isArray(n)) return n.length === 0 ? 'none' : n.join(', ');
  const seen = [...new Set(observed)];
  return seen.length > 0 ? `${seen.join(', ')} (the strategy's default set)` : "the strategy's default set";
}
