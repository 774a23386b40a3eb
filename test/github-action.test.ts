import fs from 'node:fs';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { convertActionTemplate, parseAction } from '@actions/workflow-parser/actions/index';
import type { ActionRunsComposite } from '@actions/workflow-parser/actions/index';
import { describe, expect, it } from 'vitest';
import { SUBCOMMANDS } from '../cli/command-line.ts';
import { initFiles, INIT_WORKFLOW } from '../harness/init-command.ts';

/**
 * What a user's repository runs: the composite action (.github/actions/nightly/action.yml), the reusable
 * workflow (.github/workflows/fencepost-nightly.yml, `on: workflow_call`) and the caller `fencepost init` writes.
 * Checked with GitHub's own parser and schemas (@actions/workflow-parser: the workflow schema, and the action
 * metadata schema for action.yml), every action pinned to a version, and every command a real `fencepost` one.
 */
const ACTION = '.github/actions/nightly/action.yml';
const REUSABLE = '.github/workflows/fencepost-nightly.yml';
const action = fs.readFileSync(ACTION, 'utf8');
const reusable = fs.readFileSync(REUSABLE, 'utf8');
const caller = initFiles()[INIT_WORKFLOW];

function workflowErrors(name: string, content: string) {
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  return { parsed, errors: parsed.context.errors.getErrors().map((e) => e.message) };
}

function actionTemplate(content: string) {
  const parsed = parseAction({ name: 'action.yml', content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  return { errors, template: parsed.value ? convertActionTemplate(parsed.context, parsed.value) : null, parsed };
}

const uses = (text: string) => [...text.matchAll(/^\s*(?:- )?uses:\s*(\S+)/gm)].map((m) => m[1]);
/** `fencepost <subcommand>` as the YAML runs it (`npx --no-install fencepost …`). */
const subcommands = (text: string) => [...text.matchAll(/npx --no-install fencepost (\w+)/g)].map((m) => m[1]);

describe(ACTION, () => {
  it('is valid action metadata (the action schema) and a composite action with the inputs a user sets', () => {
    const { errors, template } = actionTemplate(action);
    expect(errors).toEqual([]);
    expect(template!.runs.using).toBe('composite');
    expect(template!.inputs!.map((i) => i.id)).toEqual(
      expect.arrayContaining(['expectations', 'cells', 'shard', 'shards', 'time-limit', 'backend', 'runs', 'seed']),
    );
    const steps = (template!.runs as ActionRunsComposite).steps;
    expect(steps.length).toBeGreaterThanOrEqual(6);
  });

  it('the action schema does catch a broken action (so the test above can fail)', () => {
    expect(
      actionTemplate('name: x\ndescription: y\nruns:\n  using: composite\n  stepz: []\n').errors.join('\n'),
    ).toMatch(/stepz/);
  });

  it('installs the servers, runs nightly, cleans up, uploads and publishes — each a fencepost command or a pinned action', () => {
    expect(subcommands(action)).toEqual(['doctor', 'nightly', 'cleanup']);
    for (const s of subcommands(action)) expect(Object.keys(SUBCOMMANDS)).toContain(s);
    expect(action).toContain('sudo env "PATH=$PATH" npx --no-install fencepost doctor');
    expect(uses(action)).toEqual([
      'actions/setup-node@v4.4.0',
      'actions/upload-artifact@v4.6.2',
      'mikepenz/action-junit-report@v5.6.2',
    ]);
  });
});

describe(REUSABLE, () => {
  it("parses with GitHub's workflow parser, is `on: workflow_call`, fans out shards and merges them", async () => {
    const { parsed, errors } = workflowErrors(REUSABLE, reusable);
    expect(errors).toEqual([]);
    const template = await convertWorkflowTemplate(parsed.context, parsed.value!);
    expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    expect(template.jobs.map((j) => j.id.value)).toEqual(['plan', 'shard', 'merge']);
    expect(reusable).toMatch(/^on:\n {2}workflow_call:\n {4}inputs:/m);
    expect(reusable).toContain('npx --no-install fencepost nightly merge shards/* --results=tonight');
    expect(reusable).toContain('uses: fencepost/fencepost/.github/actions/nightly@v0.1.0');
  });

  it('pins every action to a version tag', () => {
    const all = uses(reusable);
    expect(all.length).toBeGreaterThanOrEqual(6);
    for (const u of all) expect(u, u).toMatch(/^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@v\d+(\.\d+){0,2}$/);
  });
});

describe('the workflow `fencepost init` writes into a user repository', () => {
  it('parses, runs on a schedule, and uses only actions GitHub publishes around `fencepost` commands', async () => {
    const { parsed, errors } = workflowErrors(INIT_WORKFLOW, caller);
    expect(errors).toEqual([]);
    await convertWorkflowTemplate(parsed.context, parsed.value!);
    expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    // It called fencepost's reusable workflow at a tag that was never published: the first night failed to start.
    expect(uses(caller)).toEqual([
      'actions/checkout@v4.2.2',
      'actions/setup-node@v4.4.0',
      'actions/upload-artifact@v4.6.2',
    ]);
    expect(subcommands(caller)).toEqual(['doctor', 'nightly', 'cleanup']);
    expect(caller).toContain('run: npm ci --no-audit --no-fund');
    expect(caller).toMatch(/schedule:\n\s+- cron: '[^']+'/);
  });
});
