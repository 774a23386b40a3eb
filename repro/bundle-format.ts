import fs from 'node:fs';
import path from 'node:path';
import { readSignature, type FailureSignature } from '../checkers/failure-signature.ts';
import { readScenarioFile, type Scenario } from '../scenario/scenario-file.ts';
import { defineFormat } from '../common/file-format.ts';

/**
 * A reproduction bundle (`repro` writes it, `replay` reads it): one folder, also as a .tgz, that works from wherever
 * it is copied. Versioned; every reader of a bundle goes through `readBundle`.
 *
 *   bundle.json     what it reproduces: the signature, the lock, the original run's options, seed, versions, machine
 *   scenario.json   the failing window's story, scripted (scenario/scenario-file.ts): what `replay` runs
 *   window.jsonl    the failing window of the original history, one op per line
 *   README.md       the story in words, and the one command that replays it
 *   lock/           the lock when it is not built in: the plugin file, or the manifest and its program
 *
 * No secret: the run's passwords never leave its folder (and are gone once it ended); a replay makes its own.
 */
export const BUNDLE_FORMAT = 'repro-bundle';
export const BUNDLE_VERSION = 1;

export const BUNDLE_FILES = {
  bundle: 'bundle.json',
  scenario: 'scenario.json',
  window: 'window.jsonl',
  readme: 'README.md',
  lock: 'lock',
} as const;

export interface BundleJson {
  fencepost: typeof BUNDLE_FORMAT;
  version: typeof BUNDLE_VERSION;
  createdAt: string;
  /** The fencepost that wrote it. */
  createdBy: string;
  signature: FailureSignature;
  /** `write #7 by p3 (A) erased by write #9 by p1 (B)`. */
  description: string;
  lock: { name: string; kind: 'builtin' | 'plugin' | 'manifest' | 'exec'; file?: string };
  /** The original run: what reproduces its schedule (argv + seed), its options, its faults. */
  run: {
    folder: string;
    argv: string[];
    seed: number | null;
    startedAt: string | null;
    options: Record<string, unknown>;
    faults: string[];
    lostUpdates: number;
    overlaps: number;
  };
  /** Server and library versions of the original run. */
  versions: Record<string, string>;
  /** Where it failed: a rate on 2 busy cores may be another on a laptop. */
  machine: { cores: number; platform: string; node: string; backend: string };
}

export interface Bundle {
  dir: string;
  json: BundleJson;
  scenario: Scenario;
  scenarioFile: string;
}

/**
 * bundle.json, declared once (common/file-format.ts). Its decoder is the one reader of a parsed bundle.json: the
 * value, or every problem with it field by field (no older version is read: a bundle is replayed by the fencepost
 * version that reads it, and says which wrote it).
 */
export const BUNDLE_JSON_FORMAT = defineFormat<BundleJson, { json: BundleJson } | { problems: string[] }>({
  file: BUNDLE_FILES.bundle,
  what: 'what a reproduction bundle reproduces, and where it came from.',
  versionField: 'version',
  current: BUNDLE_VERSION,
  versions: [
    { version: BUNDLE_VERSION, what: 'the first; any other version is refused, naming the one this fencepost reads' },
  ],
  fields: {
    fencepost: `always \`"${BUNDLE_FORMAT}"\`: what the file is`,
    version: 'the format number (above)',
    createdAt: 'when `repro` wrote it (ISO 8601)',
    createdBy: 'the fencepost version that wrote it',
    signature: 'the failure it reproduces: checker, anomaly, fault story (a replay must match it)',
    description: 'the failure in words: `write #7 by p3 (A) erased by write #9 by p1 (B)`',
    lock: '`{ name, kind, file? }`: `kind` is `builtin`, `plugin`, `manifest` or `exec`; `file` inside the bundle’s `lock/`',
    run: 'the original run: folder name, argv, seed, start, options, faults, lost updates, overlaps',
    versions: 'server and library versions of the original run',
    machine: 'where it failed: cores, platform, Node, backend',
  },
  decode: (raw) => {
    const problems = bundleJsonProblems(raw);
    return problems.length ? { problems } : { json: raw as BundleJson };
  },
});

/** The bundle in `dir`, or every problem with it, each naming the file (a 254 before anything starts). */
export function readBundle(dir: string): Bundle | { problems: string[] } {
  const file = (f: string) => path.join(dir, f);
  const problems: string[] = [];
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file(BUNDLE_FILES.bundle), 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      problems: [
        `${file(BUNDLE_FILES.bundle)}: ${code ? `cannot read it (${code})` : `not JSON: ${(err as Error).message}`}`,
      ],
    };
  }
  const decoded = BUNDLE_JSON_FORMAT.decode(raw, file(BUNDLE_FILES.bundle));
  if ('problems' in decoded) problems.push(...decoded.problems.map((p) => `${file(BUNDLE_FILES.bundle)}: ${p}`));
  const scenarioFile = file(BUNDLE_FILES.scenario);
  const read = readScenarioFile(scenarioFile);
  if ('problems' in read) problems.push(...read.problems.map((p) => `${scenarioFile}: ${p}`));
  const json = raw as BundleJson;
  if (!problems.length && json.lock.file && !fs.existsSync(file(json.lock.file)))
    problems.push(`${file(json.lock.file)}: missing (the bundle's lock; was the folder copied whole?)`);
  if (problems.length || 'problems' in read) return { problems };
  return { dir, json, scenario: read.scenario, scenarioFile };
}

/** What is wrong with a parsed bundle.json, field by field. Pure. */
export function bundleJsonProblems(raw: unknown): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return ['not a bundle: a JSON object is expected'];
  const r = raw as Record<string, unknown>;
  const problems: string[] = [];
  if (r.fencepost !== BUNDLE_FORMAT) problems.push(`\`fencepost\` must be "${BUNDLE_FORMAT}"`);
  if (r.version !== BUNDLE_VERSION)
    problems.push(`\`version\` ${JSON.stringify(r.version)}: this fencepost reads bundle version ${BUNDLE_VERSION}`);
  const sig = readSignature(r.signature);
  if (typeof sig === 'string') problems.push(`\`signature\`: ${sig}`);
  const lock = r.lock as Record<string, unknown> | undefined;
  if (typeof lock?.name !== 'string' || !['builtin', 'plugin', 'manifest', 'exec'].includes(String(lock.kind)))
    problems.push('`lock` must be { "name": …, "kind": "builtin" | "plugin" | "manifest" | "exec" }');
  else if (
    lock.kind !== 'builtin' &&
    (typeof lock.file !== 'string' || !/^lock\/[^/]/.test(lock.file) || lock.file.includes('..'))
  )
    problems.push("`lock.file` must name the lock inside the bundle's lock/ folder");
  const run = r.run as Record<string, unknown> | undefined;
  if (typeof run !== 'object' || run === null || !Array.isArray(run.argv))
    problems.push('`run` must record the original run (argv, seed, options)');
  if (typeof r.versions !== 'object' || r.versions === null) problems.push('`versions` must be an object');
  return problems;
}
