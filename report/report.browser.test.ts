import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Op } from '../history/op.ts';
import { simulateBankRun } from '../test/support/memory-bank.ts';
import { checkRun } from '../checkers/check-run.ts';
import { renderReport } from './report.ts';
import { normalizeTestJson } from '../store/test-json.ts';

/**
 * The report in a real browser (headless Chromium, no servers): it must render, say what went wrong on its first
 * screen, draw its timeline and charts, and show hostile strings from the history as text without running them.
 * Screenshots go to test-output/ (git-ignored) for a person to look at.
 */
const CHROMIUM = '/usr/bin/chromium';
const OUT = path.resolve('test-output');
const PWN = '<script>window.__pwned=1</script>';

let browser: Browser;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the report's browser test needs Debian's Chromium. Run \`apt-get install chromium\` (CI installs it).`,
    );
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
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

async function open(file: string, html: string, width = 1400): Promise<{ page: Page; problems: string[] }> {
  fs.writeFileSync(file, html);
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('file://')) problems.push(`network request: ${r.url()}`);
  });
  await page.goto(`file://${file}`);
  await page.waitForFunction(() => (window as unknown as { __fencepost?: unknown }).__fencepost !== undefined);
  return { page, problems };
}

/** Pixels of a canvas that are not (near) white: a drawn chart has thousands. */
function inkOf(page: Page, selector: string): Promise<number> {
  return page.$eval(selector, (c) => {
    const canvas = c as HTMLCanvasElement;
    const d = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235)) n++;
    return n;
  });
}

const run = await simulateBankRun({ pause: { atMs: 8000, durationMs: 3000 }, inject: PWN });

describe('report.html in headless Chromium', () => {
  const html = renderReport({
    history: run.history,
    results: run.results,
    test: normalizeTestJson(run.test),
    runDir: 'results/redis/browser-test',
  });
  // The fixture put PWN into an acquire's token (an op value), an info's error and the nemesis note.
  const tokenOp = run.history.find(
    (o) => o.f === 'acquire' && o.type === 'ok' && (o.value as { token?: string }).token === PWN,
  )!;
  const tokenInvoke = [...run.history.slice(0, tokenOp.index)]
    .reverse()
    .find((o: Op) => o.process === tokenOp.process && o.type === 'invoke')!;

  it('fixture sanity: a lost update, a paused holder and the injected strings are in the history', () => {
    expect(run.results.lostUpdates).toBeGreaterThan(0);
    expect(run.history.some((o) => o.f === 'pause-holder')).toBe(true);
    expect(run.history.some((o) => o.error === PWN)).toBe(true);
    expect(tokenInvoke).toBeDefined();
  });

  it('renders without errors or network, names the anomalies on its first screen, and runs no injected script', async () => {
    const { page, problems } = await open(path.join(OUT, 'report-browser.html'), html);
    try {
      expect(problems).toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

      // First screen (900 px): the verdict, the lost update and the paused holder, without scrolling.
      const firstScreen = await page.evaluate(() =>
        [...document.querySelectorAll('h1, .summary li, .finding h3')]
          .filter((e) => e.getBoundingClientRect().bottom <= window.innerHeight)
          .map((e) => e.textContent ?? ''),
      );
      expect(firstScreen.join('\n')).toMatch(/INVALID|1 lost update/);
      expect(firstScreen.some((t) => /^Lost update on account 0: .* erased by p\d+'s write #\d+/.test(t))).toBe(true);
      expect(
        firstScreen.some((t) =>
          /^p\d+ paused for 3,000 ms at [\d.]+ s while holding the lock on account 0 \(pause-holder\)$/.test(t),
        ),
      ).toBe(true);
      await page.screenshot({ path: path.join(OUT, 'report-browser-first-screen.png') });

      // The timeline and the charts drew something.
      expect(await inkOf(page, '#tl')).toBeGreaterThan(5000);
      expect(await page.locator('#chart-latency .uplot canvas').count()).toBe(1);
      expect(await page.locator('#chart-throughput .uplot canvas').count()).toBe(1);
      expect(await inkOf(page, '#chart-latency .uplot canvas')).toBeGreaterThan(1000);
      expect(await inkOf(page, '#chart-throughput .uplot canvas')).toBeGreaterThan(1000);

      // Injected strings are on the page as text (error table, fault table), not as elements.
      const text = await page.evaluate(() => document.body.innerText);
      expect(text).toContain(PWN);
      expect(text).toContain(`SIGSTOP sent ${PWN}`);
      expect(
        await page.evaluate(
          () =>
            [...document.scripts].filter((s) => s.textContent?.includes('__pwned=1') && s.type !== 'application/json')
              .length,
        ),
      ).toBe(0);

      // Hovering the op whose value carries the injected token shows it, as text.
      await page.$eval('#timeline', (e) => e.scrollIntoView());
      const at = await page.evaluate(
        (i) =>
          (
            window as unknown as { __fencepost: { focus(i: number): { x: number; y: number } | null } }
          ).__fencepost.focus(i),
        tokenInvoke.index,
      );
      expect(at).not.toBeNull();
      await page.mouse.move(at!.x, at!.y);
      const tip = page.locator('#tl-tip');
      await expect.poll(() => tip.evaluate((e) => getComputedStyle(e).display)).toBe('block');
      expect(await tip.textContent()).toContain(`"token":"${PWN}"`);
      expect(await tip.locator('script').count()).toBe(0);
      await page.screenshot({ path: path.join(OUT, 'report-browser-hover.png') });

      // A finding's "show in timeline" link zooms the timeline onto it.
      await page.$eval('#findings', (e) => e.scrollIntoView());
      await page.locator('.finding.bad a.goto').first().click();
      const view = await page.evaluate(
        () => (window as unknown as { __fencepost: { view: { from: number; to: number } } }).__fencepost.view,
      );
      expect(view.to - view.from).toBeLessThan(10_000);
      await page.waitForTimeout(400);
      await page.locator('#timeline').screenshot({ path: path.join(OUT, 'report-browser-timeline.png') });
      await page.screenshot({ path: path.join(OUT, 'report-browser-full.png'), fullPage: true });
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  // The audit's 800 px page was 1,063 px wide, and its timeline began 3¼ screens down, below every finding card.
  it.each([800, 1400])(
    'at %i px: nothing wider than the window, the timeline on the first or second screen, short faults labelled',
    async (width) => {
      const { page, problems } = await open(path.join(OUT, `report-browser-${width}.html`), html, width);
      try {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        const wide = await page.evaluate(() =>
          [...document.querySelectorAll('main *')]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
            .slice(0, 5)
            .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
        );
        expect(overflow, wide.join('; ')).toBeLessThanOrEqual(0);
        const top = await page.$eval('#tl', (e) => e.getBoundingClientRect().top + window.scrollY);
        expect(top).toBeLessThan(2 * 900);
        // The header says which fault the lost updates happened under, as the summary does.
        expect(await page.locator('.verdict .attribution').textContent()).toMatch(/lost updates by the fault active: /);
        await page.screenshot({ path: path.join(OUT, `report-browser-${width}-first-screen.png`) });
        await page.screenshot({ path: path.join(OUT, `report-browser-${width}-full.png`), fullPage: true });
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    },
  );

  it('labels the erased write and the one that overwrote it when a lost update is shown in the timeline', async () => {
    const { page, problems } = await open(path.join(OUT, 'report-browser-roles.html'), html);
    try {
      const link = page.locator('.finding.bad a.goto[data-roles]').first();
      const roles = (await link.getAttribute('data-roles'))!.split(',').map((r) => r.split(':')[1]);
      expect(roles).toContain('erased');
      expect(roles).toContain('overwrote');
      await link.click();
      await page.waitForTimeout(400);
      // Red ink from the dashed outline, the label and the arrow: more than the plain outline alone left.
      const red = await page.$eval('#tl', (c) => {
        const canvas = c as HTMLCanvasElement;
        const d = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] > 170 && d[i + 1] < 80 && d[i + 2] < 80) n++;
        return n;
      });
      expect(red).toBeGreaterThan(200);
      await page.locator('#timeline').screenshot({ path: path.join(OUT, 'report-browser-roles-timeline.png') });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('stays usable with a 10k-pair history: every bar drawn, zoom works, no errors', async () => {
    const big = await simulateBankRun({ pause: { atMs: 8000, durationMs: 3000 }, durationMs: 44_000, thinkMs: 10 });
    const bigHtml = renderReport({ history: big.history, results: big.results, test: normalizeTestJson(big.test) });
    const { page, problems } = await open(path.join(OUT, 'report-browser-10k.html'), bigHtml);
    try {
      const fp = await page.evaluate(
        () => (window as unknown as { __fencepost: { bars: number; charts: number } }).__fencepost,
      );
      expect(fp.bars).toBeGreaterThan(10_000);
      expect(fp.charts).toBe(2);
      const box = (await page.locator('#tl').boundingBox())!;
      await page.$eval('#tl', (e) => e.scrollIntoView());
      const b2 = (await page.locator('#tl').boundingBox())!;
      await page.mouse.move(b2.x + b2.width / 2, b2.y + 40);
      await page.mouse.wheel(0, -600);
      await page.waitForTimeout(100);
      const view = await page.evaluate(
        () => (window as unknown as { __fencepost: { view: { from: number; to: number } } }).__fencepost.view,
      );
      expect(view.to - view.from).toBeLessThan(44_000 / 2);
      expect(box.height).toBeGreaterThan(100);
      await page.locator('#timeline').screenshot({ path: path.join(OUT, 'report-browser-10k-timeline.png') });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("draws the lock's broken promises on the holders' lanes, and a hover over one says whose and what", async () => {
    const broken = await simulateBankRun({ brokenLockRate: 0.05, durationMs: 6000, thinkMs: 150, seed: 7 });
    const results = checkRun(broken.history, {
      fencing: false,
      promise: { ttlMs: 2000, lease: { kind: 'ttl-from-request' } },
    });
    const brokenHtml = renderReport({ history: broken.history, results, test: normalizeTestJson(broken.test) });
    const { page, problems } = await open(path.join(OUT, 'report-browser-promise.html'), brokenHtml);
    try {
      expect(await page.locator('#promise-broke').count()).toBe(1);
      await page.$eval('#tl', (e) => e.scrollIntoView());
      // Zoom onto the first broken promise and point at the middle of its bracket, along its lane's bottom edge.
      // A top-level const of the page's classic scripts is a global but not a property of window: read it by name.
      const promises = (await page.evaluate('timeline.promises')) as { l: number; s: number; e: number; c: number }[];
      const first = promises.find((x) => x.c === 0)!;
      const at = await page.evaluate((p) => {
        const w = window as unknown as {
          __fencepost: { setView(from: number, to: number): void };
          drawTimeline(): void;
          toX(ms: number): number;
          promiseTop(lane: number): number;
        };
        w.__fencepost.setView(p.s - 50, p.e + 50);
        w.drawTimeline();
        const box = document.getElementById('tl')!.getBoundingClientRect();
        return { x: box.left + w.toX((p.s + p.e) / 2), y: box.top + w.promiseTop(p.l) + 1.5 };
      }, first);
      await page.mouse.move(at.x, at.y);
      const tip = page.locator('#tl-tip');
      await expect.poll(() => tip.evaluate((e) => getComputedStyle(e).display)).toBe('block');
      expect(await tip.textContent()).toMatch(
        /^p\d+'s promise — broke its promise \(overlapped p\d+.*\)promised [\d.]+ s → [\d.]+ s/,
      );
      await page.locator('#timeline').screenshot({ path: path.join(OUT, 'report-browser-promise-timeline.png') });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
