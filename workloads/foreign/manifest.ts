/**
 * A lock in any language, described: `--lock=./locks/x.json` (a manifest) or `--lock=exec:./my-lock.py` (the simple
 * case). Either becomes a ForeignLock — the command to start, where, and the same facts a TS strategy declares
 * (needs/servers, token, exclusive, renews, defaultFaults, noTokenReason), checked by the same rules
 * (resolved-strategy.ts's strategyProblems). Bad input is a list of sentences, each naming the field.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LockStrategy } from '../../locks/strategy.ts';
import { DEFAULT_SERVERS, strategyProblems } from '../resolved-strategy.ts';
import { defineFormat } from '../../common/file-format.ts';
import { EXEC_PREFIX, isForeignRef, lockRef } from '../lock-ref.ts';

/** What a client process needs to start the lock process: plain data, sent over IPC in the ClientSpec. */
export interface ForeignCommand {
  /** argv: the program and its arguments; run without a shell. */
  readonly command: readonly string[];
  /** Absolute working directory of the process. */
  readonly cwd: string;
  /** `held` must carry a token (the manifest declares `token: 'monotonic'`). */
  readonly expectToken: boolean;
  /** The process answers `renew` (`renews: true`): the client then offers renew to --watchdog. */
  readonly renews: boolean;
}

/** The facts of a LockStrategy, without `connect` (the foreign strategy provides it). */
export type ForeignFacts = Omit<LockStrategy, 'connect'>;

export interface ForeignLock {
  readonly facts: ForeignFacts;
  readonly command: ForeignCommand;
  /** The manifest file, or null for the exec: form. */
  readonly manifest: string | null;
}

export { EXEC_PREFIX };

/** The fields a manifest may have. */
export const MANIFEST_KEYS = [
  'name',
  'command',
  'cwd',
  'needs',
  'servers',
  'token',
  'exclusive',
  'renews',
  'defaultFaults',
  'noTokenReason',
  'description',
] as const;

/**
 * What `exec:<program>` declares: a lock on one Redis node with no token that does not renew — the common simple
 * case (redis-py's Lock, a `SET NX PX` script). Anything else (etcd, ZooKeeper, a token, renewals) takes a manifest.
 */
const EXEC_FACTS: ForeignFacts = {
  name: 'exec',
  needs: ['redis'],
  servers: { redis: 1 },
  token: 'none',
  renews: false,
  noTokenReason:
    'an exec: lock declares no fencing token; write a manifest (docs/protocol.md) with "token": "monotonic" if yours has one',
};
export const EXEC_DEFAULTS: Readonly<ForeignFacts> = Object.freeze(EXEC_FACTS);

export function isForeignLock(lock: string): boolean {
  return isForeignRef(lockRef(lock));
}

export type ForeignLockOrProblems = { lock: ForeignLock } | { problems: string[] };

/** Read and check `--lock`'s manifest file or exec: form (relative to `cwd`). Reads files; never throws. */
export function readForeignLock(lock: string, cwd = process.cwd()): ForeignLockOrProblems {
  if (lock.startsWith(EXEC_PREFIX)) return execLock(lock.slice(EXEC_PREFIX.length), cwd);
  const file = path.resolve(cwd, lock);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return { problems: [`cannot read the manifest ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`] };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { problems: [`the manifest ${file} is not JSON: ${(err as Error).message}`] };
  }
  return MANIFEST_FORMAT.decode(raw, file);
}

/** A parsed manifest's lock, or what is wrong with it. `file`: its absolute path (cwd and command resolve from it). */
export function manifestLock(raw: unknown, file: string, findOnPath = programOnPath): ForeignLockOrProblems {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { problems: ['a manifest is a JSON object { "command": [...], "needs": [...], "token": … }'] };
  const m = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const k of Object.keys(m))
    if (!(MANIFEST_KEYS as readonly string[]).includes(k))
      problems.push(`\`${k}\`: not a manifest field (${MANIFEST_KEYS.join(', ')})`);
  const dir = path.dirname(file);
  let cwd = dir;
  if (m.cwd !== undefined) {
    if (typeof m.cwd !== 'string' || m.cwd === '')
      problems.push('`cwd` must be a folder path, relative to the manifest');
    else {
      cwd = path.resolve(dir, m.cwd);
      if (!isDir(cwd)) problems.push(`\`cwd\`: no such folder ${cwd}`);
    }
  }
  if (!Array.isArray(m.command) || m.command.length === 0 || !m.command.every((a) => typeof a === 'string' && a))
    problems.push(
      '`command` must be a non-empty array of strings: the program and its arguments, e.g. ["/usr/bin/python3", "my-lock.py"]',
    );
  else {
    const missing = programProblem(m.command[0] as string, cwd, findOnPath);
    if (missing) problems.push(`\`command[0]\`: ${missing}`);
  }
  if (m.name !== undefined && (typeof m.name !== 'string' || m.name === '')) problems.push('`name` must be a string');
  if (m.needs === undefined)
    problems.push("`needs` is required: the servers your lock uses, e.g. [\"redis\"] ('redis' | 'etcd' | 'zk')");
  if (m.token === undefined)
    problems.push("`token` is required: 'monotonic' if `held` carries a fencing token that grows, else 'none'");
  const facts = {
    name: typeof m.name === 'string' && m.name ? m.name : path.basename(file).replace(/\.json$/, ''),
    needs: m.needs,
    servers: m.servers,
    token: m.token,
    exclusive: m.exclusive,
    // Not said: false, as for exec: — a lock process answers `renew` only when its manifest declares it, so a
    // --watchdog would renew nothing while the run recorded it as on.
    renews: m.renews ?? false,
    defaultFaults: m.defaultFaults,
    noTokenReason: m.noTokenReason,
  } as ForeignFacts;
  if (m.needs !== undefined && m.token !== undefined)
    problems.push(...strategyProblems({ ...facts, connect: () => {} }, false));
  if (problems.length) return { problems };
  return {
    lock: Object.freeze({
      facts: Object.freeze(facts),
      command: commandOf(m.command as string[], cwd, facts),
      manifest: file,
    }),
  };
}

const code = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(', ');

/**
 * A manifest (`--lock=./x.json`), declared once (common/file-format.ts): every field it may have, the docs' table
 * of them (docs/protocol.md, written by `npm run docs:generate`), and its one decoder, manifestLock. A field added to
 * MANIFEST_KEYS without its row here does not compile.
 */
export const MANIFEST_FORMAT = defineFormat<
  Partial<Record<(typeof MANIFEST_KEYS)[number], unknown>>,
  ForeignLockOrProblems
>({
  file: '<lock>.json',
  what: 'a lock in another language, described (any name: `--lock` gives its path).',
  versionField: null,
  current: 0,
  versions: [
    { version: 0, what: 'the only one; a field added since is optional, so an older manifest reads as it did' },
  ],
  fields: {
    command: {
      what: "the program and its arguments, an array (no shell); a bare name is looked up on `PATH`. Name Debian's `/usr/bin/python3` (or your interpreter) explicitly: a pyenv `python3` earlier on `PATH` does not see Debian's modules",
      required: true,
      without: '—',
    },
    needs: {
      what: `the servers the lock uses, from ${code(Object.keys(DEFAULT_SERVERS))} (ZooKeeper is \`zk\`, although its endpoint key in \`connect\` is \`zookeeper\`: a manifest naming \`"zookeeper"\` is refused with "write 'zk'"). Postgres, the resource, always runs: do not list it`,
      required: true,
      without: '—',
    },
    token: {
      what: '`"monotonic"` if `held` carries a fencing token that grows from each holder to the next (a decimal string of at most 20 digits), else `"none"`',
      required: true,
      without: '—',
    },
    servers: {
      what: 'how many nodes of each kind the run starts, e.g. `{"redis": 1}` for a single-node Redis lock; it must name the same kinds as `needs`. The faults that aim at the lock\'s servers strike only these',
      required: false,
      without: 'each kind in `needs` gets the full count: 5 Redis masters, 3 etcd members, 3 ZooKeeper servers',
    },
    renews: {
      what: '`true` if the process answers `renew` (then `--watchdog` sends it every TTL/3); `false` refuses `--watchdog`',
      required: false,
      without:
        "`--watchdog` is accepted, but a manifest's process is sent `renew` only when it declares `renews: true`",
    },
    exclusive: {
      what: 'whether `acquire` claims mutual exclusion; `false` only for a lock that takes no lock',
      required: false,
      without: '`true`',
    },
    defaultFaults: {
      what: 'the faults a run injects when `--nemesis` is not given',
      required: false,
      without: '`pause-holder, pause-client, partition`',
    },
    noTokenReason: {
      what: 'with `token: "none"`: the sentence `--fencing` is refused with',
      required: false,
      without: '"the strategy "<name>" declares no fencing token"',
    },
    name: { what: 'how the run and the report name it', required: false, without: "the file's name" },
    cwd: {
      what: 'the folder the command runs in, relative to the manifest',
      required: false,
      without: "the manifest's folder",
    },
    description: 'a sentence for people',
  },
  decode: (raw, file) => manifestLock(raw, file),
});

/** `exec:./my-lock.py`: the program alone, run in its own folder, with EXEC_DEFAULTS. */
function execLock(program: string, cwd: string, findOnPath = programOnPath): ForeignLockOrProblems {
  if (program === '') return { problems: ['exec: needs a program, e.g. --lock=exec:./my-lock.py'] };
  const problem = programProblem(program, cwd, findOnPath);
  if (problem) return { problems: [problem] };
  const file = program.includes('/') ? path.resolve(cwd, program) : program;
  const facts = { ...EXEC_DEFAULTS, name: path.basename(program) };
  return {
    lock: Object.freeze({
      facts: Object.freeze(facts),
      command: commandOf([file], program.includes('/') ? path.dirname(file) : cwd, facts),
      manifest: null,
    }),
  };
}

function commandOf(argv: string[], cwd: string, facts: ForeignFacts): ForeignCommand {
  return Object.freeze({
    command: Object.freeze([...argv]),
    cwd,
    expectToken: facts.token === 'monotonic',
    renews: facts.renews === true,
  });
}

/** Why `program` cannot be started from `cwd`, or null: a path must be an executable file; a bare name on PATH. */
function programProblem(program: string, cwd: string, findOnPath: (name: string) => boolean): string | null {
  if (!program.includes('/'))
    return findOnPath(program) ? null : `"${program}" is not on PATH; give its full path (e.g. /usr/bin/python3)`;
  const file = path.resolve(cwd, program);
  if (!fs.existsSync(file)) return `no such program ${file}`;
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    return `${file} is not executable: chmod +x it (with a #! line), or name its interpreter first, e.g. ["/usr/bin/python3", "${program}"]`;
  }
  return isDir(file) ? `${file} is a folder, not a program` : null;
}

function programOnPath(name: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((d) => {
    try {
      fs.accessSync(path.join(d || '.', name), fs.constants.X_OK);
      return !isDir(path.join(d || '.', name));
    } catch {
      return false;
    }
  });
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
