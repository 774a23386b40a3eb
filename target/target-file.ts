import path from 'node:path';
import { HarnessError } from '../common/errors.ts';
import { readSmallFile } from '../common/small-file.ts';
import { FAULT_NAMES } from '../faults/fault-names.ts';
import { JsonFields } from './json-fields.ts';
import { defineFormat } from '../common/file-format.ts';
import type {
  AbortConditions,
  AdapterAction,
  AdapterSpec,
  HealthProbe,
  TargetEndpoint,
  TargetPostgres,
  TargetRedis,
  TargetServers,
  TargetSpec,
  TargetTls,
} from './target-spec.ts';

/** A key prefix: no glob characters (SCAN MATCH takes it literally), no spaces, long enough not to be everything. */
const PREFIX = { pattern: /^[A-Za-z0-9][A-Za-z0-9._:/-]{2,63}$/, says: '3–64 characters of A–Z a–z 0–9 . _ : / -' };
/**
 * The characters a key prefix must end in: `/` (etcd's paths, and the docs' `fp-ci/`) and `:` (Redis's usual
 * namespace). Without one, `fp-ci` also covers another team's `fp-ci2/invoice-7`: the ACL `~fp-ci*` lets the run
 * write and delete it, and the cleanup's `startsWith` takes it for ours (audit R8).
 */
export const PREFIX_SEPARATORS = ['/', ':'] as const;
const NAME = { pattern: /^[a-z0-9][a-z0-9-]{0,62}$/, says: 'lower-case letters, digits and dashes' };
const ENV = { pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, says: 'an environment variable name' };
const NODE_NAME = { pattern: /^[A-Za-z0-9][A-Za-z0-9_.[\]-]{0,62}$/, says: 'a name of letters, digits, _ . - [ ]' };
/**
 * An endpoint's `node`, the word an adapter acts on: one word with no shell or URL characters (audit R15: the docker
 * adapter put `victim/pause?x=` into the Engine API's path, and a heal of it paused). Each adapter that names
 * things narrows it further (NODE_OF).
 */
const NODE = {
  pattern: /^[A-Za-z0-9][A-Za-z0-9_.:@=+,/[\]-]{0,252}$/,
  says: 'one word of letters, digits and _ . : @ = + , / - [ ]',
};
/** What a docker or kubernetes adapter's node must be: a container's name, a pod's (DNS-1123). */
const NODE_OF = {
  docker: { pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, says: 'a container name (letters, digits, _ . -)' },
  kubernetes: {
    pattern: /^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?$/,
    says: 'a pod name (lower-case letters, digits, - and ., DNS-1123)',
  },
} as const;
const ACTIONS: readonly (AdapterAction | 'evidence')[] = ['pause', 'resume', 'kill', 'start', 'evidence'];
/** A target file is a few kB; its CA bundle at most a few hundred (a system bundle is ~220 kB). */
const MAX_TARGET_FILE_BYTES = 256 * 1024;
const MAX_CA_FILE_BYTES = 4 << 20;
/** The default bound of a run against a target: a staging night should not be open-ended. */
export const DEFAULT_MAX_MINUTES = 15;

/**
 * Reads and checks a target file (`--target=<file>`, `target check <file>`): every problem is exit 254 with the
 * field that is wrong, before anything connects. The file must say `"i-own-this": true`, list the hosts the run may
 * reach, and keep credentials out of itself (environment variable names only).
 */
export function readTargetFile(file: string): TargetSpec {
  const abs = path.resolve(file);
  let raw: unknown;
  try {
    raw = JSON.parse(readSmallFile(abs, MAX_TARGET_FILE_BYTES));
  } catch (err) {
    throw new HarnessError('bad-arguments', `target file ${abs}: ${(err as Error).message}`, {
      hint: 'a target file is JSON; see docs/targets.md for one to start from',
    });
  }
  return TARGET_FILE.decode(raw, abs);
}

/** A target file's top-level fields, as parseTarget reads them (target-file.test.ts holds the two together). */
type TargetFileField =
  | 'i-own-this'
  | 'name'
  | 'allowHosts'
  | 'keyPrefix'
  | 'servers'
  | 'adapters'
  | 'serverFaults'
  | 'health'
  | 'abort'
  | 'unfenced-credentials-accepted';

/**
 * A target file, declared once (common/file-format.ts): a row per top-level field, the docs' table of them
 * (docs/targets.md, by `npm run docs:generate`), and its decoder, parseTarget.
 */
export const TARGET_FILE = defineFormat<Partial<Record<TargetFileField, unknown>>, TargetSpec>({
  file: '<target>.json',
  what: 'servers of yours that a run may break (`--target=<file>`, `target check <file>`).',
  versionField: null,
  current: 0,
  versions: [{ version: 0, what: 'the only one; a field it does not know is refused, naming it' }],
  fields: {
    'i-own-this':
      'must be `true`. fencepost pauses, kills and writes to the servers a target names; say it only of servers that are yours to break.',
    name: `the target's name: ${NAME.says}.`,
    allowHosts:
      "the only hosts the run opens connections to (its fault proxies included). Every endpoint's host must be listed.",
    keyPrefix:
      'every key the run creates begins with it: each run gets its own namespace under it, `<keyPrefix>run-<id>/` (see "What a run owns"). A run **refuses to start** while any key exists under the prefix, and at the end **removes only its own keys** — also on Ctrl-C and a crash; `cleanup --target` removes what a killed run recorded. 3–64 characters, no glob characters, and it **must end in `/` or `:`** (`fp-ci/`, `fp-ci:`): without a separator, `fp-ci` also covers another team\'s `fp-ci2/invoice-7`, which the ACL `~fp-ci*` lets the run write. A prefix without one is refused, with the fixed prefix in the message.',
    servers:
      '`redis` / `etcd`: endpoints as `"host:port"` or `{ name, host, port, node }`; `node` is what an adapter acts on (a container, a pod, a word your scripts understand): one word without spaces or shell characters, and a container name for a docker adapter, a pod name (DNS-1123) for a kubernetes one. `user` and `passwordEnv` (the *name* of an environment variable; a `password` field is refused). `tls`: the CA file and the name in the server\'s certificate. Redis `mode`: `standalone` (default), `cluster` or `sentinel` (see "Proxy faults"). `postgres`: `{ host, port, database, user, passwordEnv }`.',
    adapters: 'how server faults act (below).',
    serverFaults:
      'which adapter each server fault goes through. A server fault not listed is refused (exit 254) naming what to add — never faked.',
    health: 'a command that exits 0 while your system is healthy; `failures` failures in a row abort the run.',
    abort:
      "`maxErrorRate`: abort when more than this share of the clients' operations ends unknown over 10 s; `maxMinutes` (default 15): a longer `--time-limit` is refused and the run aborts at it.",
    'unfenced-credentials-accepted':
      '`true` lets a run use credentials the servers do not fence to the prefix (see "The fence"); `target check` still says so loudly.',
  },
  decode: (raw, file) => parseTarget(raw, file),
});

/** The target a file's JSON describes (pure: tests give literal objects). */
export function parseTarget(raw: unknown, file: string): TargetSpec {
  const fail = (message: string): never => {
    throw new HarnessError('bad-arguments', `target file ${file}: ${message}`, {
      hint: 'fix the file and check it with `fencepost target check <file>` (docs/targets.md)',
    });
  };
  const top = JsonFields.of('', raw, fail);
  const dir = path.dirname(file);
  if (top.raw('i-own-this') !== true)
    fail(
      'it must say "i-own-this": true — fencepost pauses, kills and writes to the servers a target names; say it only of servers that are yours to break',
    );
  const allowHosts = top.strings('allowHosts');
  const keyPrefix = top.string('keyPrefix', PREFIX);
  if (keyPrefix && !PREFIX_SEPARATORS.some((sep) => keyPrefix.endsWith(sep)))
    fail(
      `keyPrefix ${JSON.stringify(keyPrefix)} must end in ${PREFIX_SEPARATORS.join(' or ')}, or it also covers other keys that begin with it (${keyPrefix}2/…): write ${JSON.stringify(`${keyPrefix}/`)}, with the ACL ~${keyPrefix}/*`,
    );
  const servers = top.object('servers');
  const redis = servers.has('redis')
    ? redisOf(servers.object('redis'), 'redis', dir, fail)
    : (servers.raw('redis'), null);
  const etcd = servers.has('etcd') ? serversOf(servers.object('etcd'), 'etcd', dir, fail) : (servers.raw('etcd'), null);
  const postgres = servers.has('postgres') ? postgresOf(servers.object('postgres')) : (servers.raw('postgres'), null);
  servers.rest();
  if (!redis && !etcd) fail('servers must name redis or etcd (the lock servers of the run)');
  for (const e of [...(redis?.endpoints ?? []), ...(etcd?.endpoints ?? []), ...(postgres ? [postgres] : [])])
    if (!allowHosts.includes(e.host))
      fail(`${e.host} is not in allowHosts (${allowHosts.join(', ')}): the run connects only to hosts the file allows`);
  const adapters = adaptersOf(top.optionalObject('adapters'), dir, fail);
  for (const a of Object.values(adapters)) {
    if (a.type === 'exec') continue;
    for (const e of [...(redis?.endpoints ?? []), ...(etcd?.endpoints ?? [])])
      if (!NODE_OF[a.type].pattern.test(e.node))
        fail(
          `endpoint ${e.name}'s node ${JSON.stringify(e.node)} is not ${NODE_OF[a.type].says}, which the ${a.type} adapter "${a.name}" acts on`,
        );
  }
  const serverFaults = serverFaultsOf(top.optionalObject('serverFaults'), adapters, fail);
  const spec: TargetSpec = {
    file,
    name: top.string('name', NAME),
    allowHosts,
    keyPrefix,
    redis,
    etcd,
    postgres,
    adapters,
    serverFaults,
    health: healthOf(top.optionalObject('health'), dir),
    abort: abortOf(top.optionalObject('abort')),
    unfencedAccepted: top.bool('unfenced-credentials-accepted', false),
  };
  top.rest();
  return Object.freeze(spec);
}

function refusePassword(f: JsonFields, fail: (m: string) => never): void {
  if (f.has('password'))
    fail(
      `${f.path('password')}: credentials never go in the file; put the password in an environment variable and name it in ${f.path('passwordEnv')}`,
    );
}

function serversOf(f: JsonFields, kind: 'redis' | 'etcd', dir: string, fail: (m: string) => never): TargetServers {
  refusePassword(f, fail);
  const tls = tlsOf(f.optionalObject('tls'), dir, fail);
  const endpoints = f.array('endpoints').map((e, i) => endpointOf(e, `${f.path('endpoints')}[${i}]`, kind, i, fail));
  const names = endpoints.map((e) => e.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) fail(`${f.path('endpoints')}: the name ${twice} is given twice`);
  return { endpoints, user: f.optionalString('user'), passwordEnv: f.optionalString('passwordEnv', ENV), tls };
}

function redisOf(f: JsonFields, kind: 'redis', dir: string, fail: (m: string) => never): TargetRedis {
  const mode = f.oneOf('mode', ['standalone', 'cluster', 'sentinel'] as const, 'standalone');
  const spec = { ...serversOf(f, kind, dir, fail), mode };
  f.rest();
  return spec;
}

/** `"host:port"`, `"http(s)://host:port"` or `{ name?, host, port, node? }`. */
function endpointOf(
  raw: unknown,
  at: string,
  kind: 'redis' | 'etcd',
  i: number,
  fail: (m: string) => never,
): TargetEndpoint {
  const fallbackName = `${kind}[${i}]`;
  if (typeof raw === 'string') {
    const m = /^(?:https?:\/\/)?([^:/\s]+):(\d{1,5})\/?$/.exec(raw);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65_535) fail(`${at} must be "host:port", got ${JSON.stringify(raw)}`);
    return { name: fallbackName, host: m![1], port: Number(m![2]), node: fallbackName };
  }
  const f = JsonFields.of(at, raw, fail);
  const name = f.optionalString('name', NODE_NAME) ?? fallbackName;
  const endpoint = {
    name,
    host: f.string('host'),
    port: f.int('port', 1, 65_535),
    node: f.optionalString('node', NODE) ?? name,
  };
  f.rest();
  return endpoint;
}

function tlsOf(f: JsonFields | null, dir: string, fail: (m: string) => never): TargetTls | null {
  if (!f) return null;
  const caFile = f.optionalString('caFile');
  let ca: string | null = null;
  if (caFile) {
    const abs = path.resolve(dir, caFile);
    try {
      ca = readSmallFile(abs, MAX_CA_FILE_BYTES);
    } catch (err) {
      fail(
        `${f.path('caFile')}: cannot read ${abs} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }
  const tls = { ca, caFile: caFile ? path.resolve(dir, caFile) : null, servername: f.optionalString('servername') };
  f.rest();
  return tls;
}

function postgresOf(f: JsonFields): TargetPostgres {
  const pg = {
    host: f.string('host'),
    port: f.int('port', 1, 65_535, 5432),
    database: f.string('database'),
    user: f.string('user'),
    passwordEnv: f.optionalString('passwordEnv', ENV),
  };
  f.rest();
  return pg;
}

function adaptersOf(f: JsonFields | null, dir: string, fail: (m: string) => never): Record<string, AdapterSpec> {
  if (!f) return {};
  const out: Record<string, AdapterSpec> = {};
  for (const name of f.keys()) {
    if (!NAME.pattern.test(name)) fail(`${f.path(name)}: an adapter's name is ${NAME.says}`);
    out[name] = adapterOf(f.object(name), name, dir, fail);
  }
  return out;
}

function adapterOf(f: JsonFields, name: string, dir: string, fail: (m: string) => never): AdapterSpec {
  const type = f.oneOf('type', ['exec', 'docker', 'kubernetes'] as const);
  let spec: AdapterSpec;
  if (type === 'exec') {
    const c = f.object('commands');
    const commands: Partial<Record<AdapterAction | 'evidence', string[]>> = {};
    for (const action of ACTIONS) if (c.has(action)) commands[action] = c.strings(action);
    c.rest();
    for (const [act, undo] of [
      ['pause', 'resume'],
      ['kill', 'start'],
    ] as const)
      if (!!commands[act] !== !!commands[undo])
        fail(
          `${c.path(commands[act] ? undo : act)} is missing: ${act} and ${undo} come in pairs (what one does, the other undoes)`,
        );
    spec = { type, name, commands, cwd: dir, timeoutMs: f.int('timeoutMs', 100, 600_000, 10_000) };
  } else if (type === 'docker') {
    spec = { type, name, socketPath: f.optionalString('socketPath') };
  } else {
    spec = {
      type,
      name,
      namespace: f.string('namespace', NAME),
      mode: f.oneOf('mode', ['pod', 'chaos-mesh'] as const, 'pod'),
      kubectl: f.optionalString('kubectl') ?? 'kubectl',
      context: f.optionalString('context'),
      container: f.optionalString('container'),
    };
  }
  f.rest();
  return spec;
}

function serverFaultsOf(
  f: JsonFields | null,
  adapters: Record<string, AdapterSpec>,
  fail: (m: string) => never,
): Record<string, string> {
  if (!f) return {};
  const out: Record<string, string> = {};
  for (const fault of f.keys()) {
    if (!(FAULT_NAMES as readonly string[]).includes(fault))
      fail(`${f.path(fault)}: no fault of that name (faults: ${FAULT_NAMES.join(', ')})`);
    const adapter = f.string(fault);
    if (!adapters[adapter]) fail(`${f.path(fault)} names the adapter "${adapter}", which adapters does not define`);
    out[fault] = adapter;
  }
  return out;
}

function healthOf(f: JsonFields | null, dir: string): HealthProbe | null {
  if (!f) return null;
  const probe = {
    command: f.strings('command'),
    cwd: dir,
    intervalMs: f.int('intervalMs', 100, 600_000, 2000),
    failures: f.int('failures', 1, 100, 3),
  };
  f.rest();
  return probe;
}

function abortOf(f: JsonFields | null): AbortConditions {
  if (!f) return { maxErrorRate: null, maxMinutes: DEFAULT_MAX_MINUTES };
  const abort = {
    maxErrorRate: f.number('maxErrorRate', 0, 1),
    maxMinutes: f.int('maxMinutes', 1, 1440, DEFAULT_MAX_MINUTES),
  };
  f.rest();
  return abort;
}
