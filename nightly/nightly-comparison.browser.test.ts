import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NightlyCell, NightlyResult } from './nightly-result.ts';
import { renderComparison } from './nightly-comparison.ts';
import { renderJunit } from './nightly-junit.ts';

/** The nightly comparison page in headless Chromium (no servers): it renders from disk with no error and no network. */
const CHROMIUM = '/usr/bin/chromium';
const OUT = path.resolve('test-output');
const PWN = '<script>window.__pwned=1</script>';

let browser: Browser;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: this browser test needs Debian's Chromium. Run \`apt-get install chromium\` (CI installs it).`,
    );
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  fs.mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
});

function c(
  lock: string,
  fault: string,
  observed: NightlyCell['observed'],
  expected: NightlyCell['expected'],
  p99: number,
  extra: Partial<NightlyCell> = {},
): NightlyCell {
  const matched = expected === observed;
  return {
    index: 0,
    lock,
    fault,
    fencing: false,
    column: fault,
    expected,
    observed,
    matched,
    from: 'oracle',
    decided: 'measured',
    runDir: `${lock}/2026-11-30T01-00-00.000Z`,
    lostUpdates: observed === 'lost' ? 3 : 0,
    staleWritesRejected: 0,
    acquireP50: 1.2,
    acquireP99: p99,
    faultHits: fault === 'none' ? undefined : 2,
    ...extra,
  };
}

const night = (cells: NightlyCell[], seed: number): NightlyResult => ({
  version: 1,
  seed,
  shard: null,
  settings: ['--time-limit=10'],
  command: 'npm run jepsen -- nightly --time-limit=10',
  startedAt: '2026-11-30T01:00:00.000Z',
  wallMs: 420_000,
  expectationsFile: null,
  cells,
});

describe('comparison.html in headless Chromium', () => {
  it('renders tonight against the baseline with 0 console errors and no network, hostile strings as text', async () => {
    const baseline = night(
      [
        c('redis', 'pause-holder', 'lost', 'lost', 3000),
        c('etcd', 'none', 'safe', 'safe', 2.5),
        c('postgres', 'clock', 'safe', 'safe', 4),
      ],
      1,
    );
    const tonight = night(
      [
        c('redis', 'pause-holder', 'safe', 'lost', 3100),
        c('etcd', 'none', 'safe', 'safe', 30),
        c('./our-lock.ts', 'pause-holder', 'safe', 'safe', 9, {
          from: `fencepost.expectations.json:3 ${PWN}`,
          why: PWN,
        }),
      ],
      2,
    );
    const file = path.join(OUT, 'nightly-comparison-browser.html');
    fs.writeFileSync(
      file,
      renderComparison(tonight, baseline, { tonightDir: OUT, baselineDir: path.join(OUT, 'baseline'), outDir: OUT }),
    );
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith('file://')) problems.push(`network request: ${r.url()}`);
    });
    try {
      await page.goto(`file://${file}`);
      expect(problems).toEqual([]);
      expect(await page.textContent('#headline')).toBe(
        '3 of 4 cells changed their outcome; 1 flagged for a latency regression (acquire p50 or p99 above 1.5× the baseline and at least 5 ms more; flagged, not failed); 0 for a liveness change (recovery max or longest stall moved by more than 1.5× and more than 1000 ms, or a fault never recovered from; flagged, not failed).',
      );
      expect(await page.$$eval('#comparison tbody tr', (rows) => rows.length)).toBe(4);
      expect(await page.textContent('tr[data-key="etcd|none|plain"]')).toContain('latency regression');
      expect(await page.textContent('tr[data-key="redis|pause-holder|plain"]')).toContain('contradicted');
      expect(await page.getAttribute('tr[data-key="redis|pause-holder|plain"] a', 'href')).toBe(
        './baseline/redis/2026-11-30T01-00-00.000Z/report.html',
      );
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      await page.screenshot({ path: path.join(OUT, 'nightly-comparison.png'), fullPage: true });
      // The same night's junit.xml through the browser's XML parser: well-formed even with a control character and markup in a note.
      const junit = renderJunit(
        {
          ...tonight,
          cells: [...tonight.cells, c('etcd', 'kill', 'unknown', 'safe', 3, { note: `bell \u0007 ${PWN} & "quotes"` })],
        },
        'results',
      );
      const parsed = await page.evaluate((text) => {
        const doc = new DOMParser().parseFromString(text, 'application/xml');
        return {
          error: doc.querySelector('parsererror')?.textContent ?? null,
          cases: doc.querySelectorAll('testcase').length,
          failures: doc.querySelectorAll('testcase > failure').length,
          errors: [...doc.querySelectorAll('testcase > error')].map((e) => e.getAttribute('message')),
        };
      }, junit);
      expect(parsed.error).toBeNull();
      expect(parsed.cases).toBe(4);
      expect(parsed.failures).toBe(1);
      expect(parsed.errors[0]).toContain(`bell  ${PWN} & "quotes"`);
    } finally {
      await page.close();
    }
  });
});
