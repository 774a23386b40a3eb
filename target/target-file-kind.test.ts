import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { EXIT } from '../common/exit-codes.ts';
import { readTargetFile } from './target-file.ts';

// Audit R14: `--target=<fifo>` blocked in open() for good, deaf to SIGINT and SIGTERM, until something wrote to it.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-target-kind-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function refusal(file: string): string {
  try {
    readTargetFile(file);
  } catch (err) {
    expect((err as HarnessError).exitCode).toBe(EXIT.badArguments);
    return (err as Error).message;
  }
  return 'accepted';
}

const TARGET = {
  name: 't',
  'i-own-this': true,
  allowHosts: ['127.0.0.1'],
  keyPrefix: 'fp-t/',
  servers: { redis: { endpoints: ['127.0.0.1:7000'], tls: { caFile: 'ca.fifo' } } },
};

describe('a target file, or its CA, that is not a small regular file is refused at once (254)', () => {
  it('a fifo nobody writes: refused, not waited on', async () => {
    const fifo = path.join(dir, 'target.fifo');
    await execa('mkfifo', [fifo]);
    expect(refusal(fifo)).toBe(`target file ${fifo}: not a regular file (a fifo)`);
  });

  it('a folder, and a file past 256 KiB', () => {
    expect(refusal(dir)).toBe(`target file ${dir}: not a regular file (a folder)`);
    const big = path.join(dir, 'big.json');
    fs.writeFileSync(big, `{"name": "${'x'.repeat(300_000)}"}`);
    expect(refusal(big)).toBe(`target file ${big}: 300012 bytes, more than the 262144 such a file needs`);
  });

  it("the file's tls.caFile as a fifo", async () => {
    await execa('mkfifo', [path.join(dir, 'ca.fifo')]);
    const file = path.join(dir, 'tls.json');
    fs.writeFileSync(file, JSON.stringify(TARGET));
    expect(refusal(file)).toContain(`cannot read ${path.join(dir, 'ca.fifo')} (not a regular file (a fifo))`);
  });
});
