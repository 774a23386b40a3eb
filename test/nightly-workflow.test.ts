import fs from 'node:fs';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { describe, expect, it } from 'vitest';

/**
 * .github/workflows/nightly-chaos.yml, checked here rather than on GitHub's first scheduled night: GitHub's own
 * workflow parser (@actions/workflow-parser, the schema its editor tooling uses) must accept it, every action must
 * be pinned to a version tag, and every `npm run X` it runs must be a script of package.json.
 */
const FILE = '.github/workflows/nightly-chaos.yml';
const text = fs.readFileSync(FILE, 'utf8');

function errorsOf(name: string, content: string): string[] {
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  return parsed.context.errors.getErrors().map((e) => e.message);
}

describe(FILE, () => {
  it("parses with GitHub's workflow parser without an error, with a shard matrix and a merge job", async () => {
    const parsed = parseWorkflow({ name: FILE, content: text }, new NoOperationTraceWriter());
    expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    const template = await convertWorkflowTemplate(parsed.context, parsed.value!);
    expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    expect(template.jobs.map((j) => j.id.value)).toEqual(['shard', 'merge']);
    expect(text).toMatch(/schedule:\n\s+- cron: '[^']+'\n\s+workflow_dispatch:/);
  });

  it('the parser does catch a broken workflow (so the test above can fail)', () => {
    expect(
      errorsOf('broken.yml', 'on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    stepz: []\n').join('\n'),
    ).toContain('stepz');
  });

  it('pins every action to a version tag', () => {
    const uses = [...text.matchAll(/uses:\s*(\S+)/g)].map((m) => m[1]);
    expect(uses.length).toBeGreaterThanOrEqual(8);
    for (const u of uses) expect(u, u).toMatch(/^[\w.-]+\/[\w.-]+@v\d+(\.\d+){0,2}$/);
  });

  it('runs only npm scripts that exist, and the nightly command with its shard, merge and baseline', () => {
    const scripts = Object.keys(
      (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts,
    );
    const runs = [...text.matchAll(/npm run (?:-s )?([\w:-]+)/g)].map((m) => m[1]);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const r of runs) expect(scripts, `npm run ${r}`).toContain(r);
    expect(text).toContain('npm run jepsen -- nightly --backend=docker');
    expect(text).toContain('--shard=${{ matrix.shard }}/"$SHARDS"');
    expect(text).toContain('npm run jepsen -- nightly merge shards/* --results=tonight');
  });
});
