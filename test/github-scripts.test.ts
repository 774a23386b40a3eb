import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../cli/command-line.ts';
import { initFiles, INIT_WORKFLOW } from '../harness/init-command.ts';
import { condition, render, runStep, type Context } from './support/github-render.ts';

/**
 * The scripts of the composite action and the reusable workflow, run as a runner runs them: rendered with GitHub's
 * expression library from realistic inputs (a ten-digit run id, a runner-owned RUNNER_TEMP, `shards: 1`) and hostile
 * ones (quotes and `$( )` in every input), then executed by bash with `npx` and `sudo` stubbed to record their argv,
 * which fencepost's own parser must then accept. The YAML parses (test/github-action.test.ts); this is whether it runs.
 */
const ACTION = '.github/actions/nightly/action.yml';
const REUSABLE = '.github/workflows/fencepost-nightly.yml';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-gh-scripts-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Step {
  name?: string;
  id?: string;
  if?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
const action = YAML.parse(fs.readFileSync(ACTION, 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  runs: { steps: Step[] };
};
const reusable = YAML.parse(fs.readFileSync(REUSABLE, 'utf8')) as {
  on: { workflow_call: { inputs: Record<string, { default?: unknown }> } };
  jobs: Record<string, { steps: Step[] }>;
};
const step = (steps: Step[], find: (s: Step) => boolean | undefined) => steps.find(find)!;
const nightlyStep = step(action.runs.steps, (s) => s.id === 'nightly');
const doctorStep = step(action.runs.steps, (s) => s.run?.includes('fencepost doctor'));
const cleanupStep = step(action.runs.steps, (s) => s.run?.includes('fencepost cleanup'));

/** A fresh folder with stub `npx` and `sudo` first on PATH; the argv of each npx call lands in `calls`. */
function sandbox() {
  const dir = fs.mkdtempSync(path.join(work, 'run-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const calls = path.join(dir, 'calls.jsonl');
  fs.writeFileSync(
    path.join(bin, 'npx'),
    `#!/usr/bin/env node\nrequire('fs').appendFileSync(${JSON.stringify(calls)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n`,
    { mode: 0o755 },
  );
  // The runner's sudo runs the command as root; these tests already are whoever they are.
  fs.writeFileSync(path.join(bin, 'sudo'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
  const runnerTemp = path.join(dir, 'home-runner', 'work', '_temp');
  fs.mkdirSync(runnerTemp, { recursive: true });
  const env = { PATH: `${bin}:${process.env.PATH}`, GITHUB_RUN_ID: '15012345678', RUNNER_TEMP: runnerTemp };
  const argv = (): string[][] =>
    fs.existsSync(calls)
      ? fs
          .readFileSync(calls, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as string[])
      : [];
  return { dir, env, argv, runnerTemp };
}

function actionContext(inputs: Record<string, string>, extra: Context = {}): Context {
  const defaults = Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? '']));
  return { inputs: { ...defaults, ...inputs }, github: { run_id: '15012345678' }, steps: {}, ...extra };
}

/** A recorded `npx --no-install fencepost <argv>` call, parsed by fencepost's own option parser. */
function parsedFencepost(call: string[]) {
  expect(call.slice(0, 2)).toEqual(['--no-install', 'fencepost']);
  return parseCommandLine(call.slice(2)) as unknown as Record<string, unknown>;
}

describe('the action run directly, with its defaults', () => {
  it('a ten-digit run id becomes a seed fencepost takes (it refused 15012345678 with 254)', () => {
    const s = sandbox();
    const r = runStep(nightlyStep as { run: string }, actionContext({}), s.env, s.dir);
    expect(r.status, r.stderr).toBe(0);
    const [call] = s.argv();
    const config = parsedFencepost(call);
    expect(config.seed).toBe(15012345678 % 2147483647);
    expect(r.outputs['exit-code']).toBe('0');
  });

  it("the doctor step writes where root may: not the runner's RUNNER_TEMP (its folder refused with 254)", () => {
    const s = sandbox();
    // On a hosted runner RUNNER_TEMP and the folders above it belong to the runner user, not root.
    if (process.getuid?.() === 0)
      for (const d of [s.runnerTemp, path.dirname(s.runnerTemp), path.dirname(path.dirname(s.runnerTemp))])
        fs.chownSync(d, 65534, 65534);
    const r = runStep(doctorStep as { run: string }, actionContext({}), s.env, s.dir);
    expect(r.status, r.stderr).toBe(0);
    const [call] = s.argv();
    expect(call[2]).toBe('doctor');
    const results = call.find((a) => a.startsWith('--results='))!.slice('--results='.length);
    expect(results.startsWith(s.runnerTemp)).toBe(false);
    expect(() => parsedFencepost(call)).not.toThrow();
    fs.rmSync(results, { recursive: true, force: true });
  });
});

describe('the action with hostile inputs', () => {
  const pwned = (dir: string) => path.join(dir, 'PWNED');
  const hostile = (dir: string) => ({
    expectations: `fencepost.expectations.json'; id > ${pwned(dir)}; echo '`,
    cells: `$(id > ${pwned(dir)})`,
    'time-limit': `10' --lock=x; touch ${pwned(dir)}; '`,
    runs: '1`id > ' + pwned(dir) + '`',
    backend: `local"; id > ${pwned(dir)}; "`,
    results: `r'; id > ${pwned(dir)}; echo '`,
  });

  it('every input reaches fencepost as one argument, exactly as given, and none runs as shell', () => {
    const s = sandbox();
    const inputs = hostile(s.dir);
    const r = runStep(nightlyStep as { run: string }, actionContext(inputs), s.env, s.dir);
    expect(fs.existsSync(pwned(s.dir))).toBe(false);
    expect(r.status).toBe(0);
    const [call] = s.argv();
    expect(call).toContain(`--expectations=${inputs.expectations}`);
    expect(call).toContain(`--cells=${inputs.cells}`);
    expect(call).toContain(`--time-limit=${inputs['time-limit']}`);
    expect(call).toContain(`--runs=${inputs.runs}`);
    expect(call).toContain(`--backend=${inputs.backend}`);
    expect(call).toContain(`--results=${inputs.results}`);
    // And fencepost refuses the bad ones itself (254), as it would from a terminal.
    expect(() => parsedFencepost(call)).toThrow();
  });

  it('the cleanup step too', () => {
    const s = sandbox();
    runStep(cleanupStep as { run: string }, actionContext(hostile(s.dir)), s.env, s.dir);
    expect(fs.existsSync(pwned(s.dir))).toBe(false);
    expect(s.argv()[0]).toEqual(['--no-install', 'fencepost', 'cleanup', `--results=${hostile(s.dir).results}`]);
  });

  it('a seed that is not a number stops the step before fencepost runs (bash arithmetic would run it)', () => {
    const s = sandbox();
    const r = runStep(
      nightlyStep as { run: string },
      actionContext({ seed: `a[$(id > ${pwned(s.dir)})]` }),
      s.env,
      s.dir,
    );
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/seed must be a whole number/);
    expect(fs.existsSync(pwned(s.dir))).toBe(false);
    expect(s.argv()).toEqual([]);
  });

  it("no `${{ inputs.… }}` is pasted into any run: script of the action, the reusable workflow or init's caller", () => {
    const scripts = [...action.runs.steps, ...Object.values(reusable.jobs).flatMap((j) => j.steps)].flatMap((s) =>
      s.run ? [s.run] : [],
    );
    scripts.push(...[...initFiles()[INIT_WORKFLOW].matchAll(/run:.*$/gm)].map((m) => m[0]));
    for (const s of scripts) expect(s).not.toMatch(/\$\{\{\s*inputs\./);
  });
});

describe('the reusable workflow calling the action', () => {
  const shardJob = reusable.jobs.shard;
  const callStep = step(shardJob.steps, (s) => s.uses?.includes('/.github/actions/nightly@'));
  const workflowInputs = (overrides: Record<string, unknown>) => ({
    ...Object.fromEntries(Object.entries(reusable.on.workflow_call.inputs).map(([k, v]) => [k, v.default])),
    ...overrides,
  });
  /** The action's inputs as the shard job passes them, for one matrix shard. */
  const passed = (shards: number, shard: number) => {
    const ctx = { inputs: workflowInputs({ shards }), matrix: { shard }, github: { run_id: '15012345678' } };
    return Object.fromEntries(Object.entries(callStep.with!).map(([k, v]) => [k, render(String(v), ctx)]));
  };

  it.each([2, 1])(
    'shards: %i — every shard runs with a seed fencepost takes (run_id was passed as is: 254)',
    (shards) => {
      for (let shard = 1; shard <= shards; shard++) {
        const s = sandbox();
        const r = runStep(nightlyStep as { run: string }, actionContext(passed(shards, shard)), s.env, s.dir);
        expect(r.status, r.stderr).toBe(0);
        const config = parsedFencepost(s.argv()[0]);
        expect(config.seed).toBe(15012345678 % 2147483647);
        if (shards > 1) expect(config.shard).toEqual({ index: shard, count: shards });
      }
    },
  );

  it('shards: 1 — the shard uploads what the merge job downloads, and leaves the JUnit and the verdict to it', () => {
    const ctx = actionContext(passed(1, 1), { steps: { nightly: { outputs: { 'exit-code': '0' } } } });
    const upload = step(action.runs.steps, (s) => s.uses?.startsWith('actions/upload-artifact'));
    const name = render(String(upload.with!.name), ctx);
    const pattern = step(reusable.jobs.merge.steps, (s) => s.uses?.startsWith('actions/download-artifact')).with!
      .pattern;
    expect(name).toBe('fencepost-shard-1');
    expect(new RegExp(`^${String(pattern).replace('*', '.*')}$`).test(name)).toBe(true);
    const junit = step(action.runs.steps, (s) => s.uses?.startsWith('mikepenz/action-junit-report'));
    const verdict = step(action.runs.steps, (s) => s.name === "The night's verdict");
    expect(condition(junit.if, ctx)).toBe(false);
    expect(condition(verdict.if, ctx)).toBe(false);
  });

  it('the action used alone with shards: 1 still publishes the night itself', () => {
    const ctx = actionContext({}, { steps: { nightly: { outputs: { 'exit-code': '1' } } } });
    const upload = step(action.runs.steps, (s) => s.uses?.startsWith('actions/upload-artifact'));
    expect(render(String(upload.with!.name), ctx)).toBe('fencepost-nightly');
    const verdict = step(action.runs.steps, (s) => s.name === "The night's verdict");
    expect(condition(verdict.if, ctx)).toBe(true);
    const s = sandbox();
    expect(runStep(verdict as { run: string }, ctx, s.env, s.dir).status).toBe(1);
  });

  it.each(['0', '65', 'x; id'])('the plan job refuses shards: %s', (shards) => {
    const plan = reusable.jobs.plan.steps[0];
    const s = sandbox();
    const r = runStep(plan as { run: string }, { inputs: { shards } }, s.env, s.dir);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/shards must be a whole number from 1 to 64/);
  });
});

describe('the workflow `fencepost init` writes, its steps run as a runner runs them', () => {
  const caller = YAML.parse(initFiles()[INIT_WORKFLOW]) as { jobs: Record<string, { steps: Step[] }> };
  const steps = caller.jobs.nightly.steps;
  const baselineStep = step(steps, (s) => s.run?.includes('gh run download'));
  const nightStep = step(steps, (s) => s.run?.includes('fencepost nightly'));
  const ctx: Context = { github: { token: 'ghs_x', repository: 'me/app', run_id: '15012345678' } };
  /** A stub `gh`: `run list` prints `last` (the last successful night's run id, or nothing); `run download` makes it. */
  const withGh = (s: ReturnType<typeof sandbox>, last: string) =>
    fs.writeFileSync(
      path.join(s.dir, 'bin', 'gh'),
      `#!/bin/sh\nif [ "$2" = list ]; then echo "${last}"; exit 0; fi\n` +
        `mkdir -p "$7" && echo '{}' > "$7/nightly.json"\n`,
      { mode: 0o755 },
    );

  it('the first night: no baseline, and nightly runs your cells with options fencepost takes', () => {
    const s = sandbox();
    withGh(s, '');
    const got = runStep(baselineStep as { run: string }, ctx, s.env, s.dir);
    expect(got.status, got.stderr).toBe(0);
    expect(got.stdout).toBe("no baseline yet: tonight's night becomes one if it passes\n");
    const r = runStep(nightStep as { run: string }, ctx, s.env, s.dir);
    expect(r.status, r.stderr).toBe(0);
    const [call] = s.argv();
    expect(call).toEqual([
      '--no-install',
      'fencepost',
      'nightly',
      '--cells=expectations',
      '--expectations=fencepost.expectations.json',
      '--time-limit=10',
      '--results=fencepost-results',
    ]);
    expect(parsedFencepost(call)).toMatchObject({ command: 'nightly', baseline: null });
  });

  it('a later night: the last successful night is downloaded and passed as --baseline', () => {
    const s = sandbox();
    withGh(s, '15000000001');
    const got = runStep(baselineStep as { run: string }, ctx, s.env, s.dir);
    expect(got.stdout).toBe('baseline: the night of run 15000000001\n');
    runStep(nightStep as { run: string }, ctx, s.env, s.dir);
    expect(s.argv()[0].at(-1)).toBe('--baseline=baseline');
    expect(() => parsedFencepost(s.argv()[0])).not.toThrow();
  });
});
