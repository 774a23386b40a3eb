/**
 * A GitHub Actions step as the runner runs it: every `${{ … }}` evaluated with GitHub's own expression library
 * (@actions/expressions) and pasted into the text — into `run:` scripts too, before bash sees them, which is what
 * makes an input pasted there shell code — then the script run with `bash --noprofile --norc -eo pipefail`, the
 * step's `env:` in its environment. Commands it calls are stubs the test puts first on PATH.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { data, Evaluator, Lexer, Parser } from '@actions/expressions';
import { truthy } from '@actions/expressions/result';

export type Context = Record<string, unknown>;

function toData(v: unknown): data.ExpressionData {
  if (v === null || v === undefined) return new data.Null();
  if (typeof v === 'string') return new data.StringData(v);
  if (typeof v === 'number') return new data.NumberData(v);
  if (typeof v === 'boolean') return new data.BooleanData(v);
  if (Array.isArray(v)) {
    const a = new data.Array();
    for (const x of v) a.add(toData(x));
    return a;
  }
  const d = new data.Dictionary();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) d.add(k, toData(x));
  return d;
}

/** One expression (without `${{ }}`), evaluated against `ctx` (its top-level keys are the named contexts). */
export function evaluate(expr: string, ctx: Context): data.ExpressionData {
  const lexed = new Lexer(expr).lex();
  const parsed = new Parser(lexed.tokens, Object.keys(ctx), []).parse();
  const root = new data.Dictionary();
  for (const [k, v] of Object.entries(ctx)) root.add(k, toData(v));
  return new Evaluator(parsed, root).evaluate();
}

/** A step's `if:`, with or without `${{ }}`, as the runner decides it (`always()` taken as true). */
export function condition(expr: string | undefined, ctx: Context): boolean {
  if (expr === undefined) return true;
  const bare = expr.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  return truthy(evaluate(bare.replace(/\balways\(\)/g, 'true').replace(/!cancelled\(\)/g, 'true'), ctx));
}

/** Text with every `${{ expr }}` replaced by its value, as GitHub does before a script runs. */
export function render(text: string, ctx: Context): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expr: string) => evaluate(expr, ctx).coerceString());
}

export interface StepRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What the step wrote to $GITHUB_OUTPUT, as key → value. */
  outputs: Record<string, string>;
}

/** Run a rendered bash step with its env (rendered too) on top of `base`, in `cwd`. */
export function runStep(
  step: { run: string; env?: Record<string, string> },
  ctx: Context,
  base: NodeJS.ProcessEnv,
  cwd: string,
): StepRun {
  const outputFile = path.join(cwd, `github-output-${process.hrtime.bigint()}`);
  fs.writeFileSync(outputFile, '');
  const env: NodeJS.ProcessEnv = { ...base, GITHUB_OUTPUT: outputFile };
  for (const [k, v] of Object.entries(step.env ?? {})) env[k] = render(String(v), ctx);
  const script = path.join(cwd, `step-${process.hrtime.bigint()}.sh`);
  fs.writeFileSync(script, render(step.run, ctx));
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, encoding: 'utf8' });
  const outputs: Record<string, string> = {};
  for (const line of fs.readFileSync(outputFile, 'utf8').split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) outputs[line.slice(0, i)] = line.slice(i + 1);
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, outputs };
}
