import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { loadExpectations } from '../matrix/expectations.ts';
import { initCommand, INIT_EXPECTATIONS, INIT_LOCK, INIT_WORKFLOW } from './init-command.ts';

/** `fencepost init` without servers: what it writes and what it refuses (the run it prints: installed-package.test.ts). */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-init-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('fencepost init', () => {
  it('writes the starter plugin, an expectations file naming it, the workflow, and prints the next command', () => {
    const dir = path.join(root, 'empty');
    fs.mkdirSync(dir);
    const lines: string[] = [];
    expect(initCommand(dir, (l) => lines.push(l))).toBe(0);
    const lock = fs.readFileSync(path.join(dir, INIT_LOCK), 'utf8');
    expect(lock).toContain("from 'fencepost'");
    expect(lock).toContain('export default');
    const cells = loadExpectations(path.join(dir, INIT_EXPECTATIONS), dir);
    expect(cells.map((c) => [c.lock, c.fault, c.expect])).toEqual([
      [`./${INIT_LOCK}`, 'none', 'safe'],
      [`./${INIT_LOCK}`, 'restart-empty', 'lost'],
    ]);
    expect(fs.readFileSync(path.join(dir, INIT_WORKFLOW), 'utf8')).toContain(
      'expectations: fencepost.expectations.json',
    );
    expect(lines).toContain(`  npm run jepsen -- --lock=./${INIT_LOCK} --nemesis=restart-empty --time-limit=15`);
  });

  it('overwrites nothing: with one of its files present it writes none and says which (exit 254)', () => {
    const dir = path.join(root, 'taken');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, INIT_EXPECTATIONS), '{"cells": []}');
    let err: unknown;
    try {
      initCommand(dir, () => {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(254);
    expect((err as HarnessError).message).toContain(INIT_EXPECTATIONS);
    expect(fs.existsSync(path.join(dir, INIT_LOCK))).toBe(false);
    expect(fs.readFileSync(path.join(dir, INIT_EXPECTATIONS), 'utf8')).toBe('{"cells": []}');
  });
});
