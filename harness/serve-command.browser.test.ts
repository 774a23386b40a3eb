import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateBankRun } from '../test/support/memory-bank.ts';
import { renderReport } from '../report/report.ts';
import { normalizeTestJson } from '../store/test-json.ts';
import { writeIndex } from '../report/index-page.ts';
import { startResultsServer, type ResultsServer } from './serve-command.ts';

/**
 * The pages through `serve`, under its Content-Security-Policy: the self-contained report and index must still
 * run their inline script and draw (a CSP violation is a console error), and make no request of their own.
 */
const CHROMIUM = '/usr/bin/chromium';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fencepost-serve-csp-'));
let browser: Browser;
let server: ResultsServer;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run \`apt-get install chromium\` (CI installs it).`);
  const run = await simulateBankRun({ pause: { atMs: 8000, durationMs: 3000 } });
  const dir = path.join(root, 'redis', '2026-12-01T00-00-00.000Z');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'test.json'), JSON.stringify(run.test));
  fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(run.results));
  fs.writeFileSync(
    path.join(dir, 'report.html'),
    renderReport({ history: run.history, results: run.results, test: normalizeTestJson(run.test), runDir: dir }),
  );
  writeIndex(root);
  server = await startResultsServer(root, 0);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('pages served under the CSP', () => {
  for (const page of ['redis/2026-12-01T00-00-00.000Z/report.html', '']) {
    it(`${page || 'the index'} renders with no CSP violation, error or request of its own`, async () => {
      const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const problems: string[] = [];
      tab.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
      });
      tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      const url = `${server.url}${page}`;
      tab.on('request', (r) => {
        if (r.url() !== url) problems.push(`request: ${r.url()}`);
      });
      const res = await tab.goto(url);
      expect(res?.headers()['content-security-policy']).toMatch(/default-src 'none'/);
      if (page) {
        await tab.waitForFunction(() => (window as unknown as { __fencepost?: unknown }).__fencepost !== undefined);
        const ink = await tab.$eval('#tl', (c) => {
          const canvas = c as HTMLCanvasElement;
          const d = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
          let n = 0;
          for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && d[i] < 235) n++;
          return n;
        });
        expect(ink).toBeGreaterThan(5000);
        expect(await tab.locator('#chart-latency .uplot canvas').count()).toBe(1);
      }
      expect(problems).toEqual([]);
      await tab.close();
    }, 60_000);
  }
});
