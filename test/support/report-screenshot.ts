import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

/**
 * A picture of a report's first screen, taken the way the browser tests take theirs (playwright-core driving
 * Debian's /usr/bin/chromium): `npm run docs:screenshot -- <run-dir>/report.html docs/report.png [width] [height]`.
 * The README's picture is one of these, of a real run (DEVELOPMENT.md says which run). It also prints how wide the
 * page is against the window, so an overflow shows.
 */
async function screenshot(report: string, out: string, width: number, height: number): Promise<void> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(path.resolve(report)).href);
    await page.waitForFunction(() => (window as unknown as { __fencepost?: unknown }).__fencepost !== undefined);
    await page.waitForTimeout(300);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    const timelineTop = await page.$eval('#tl', (e) => Math.round(e.getBoundingClientRect().top + window.scrollY));
    await page.screenshot({ path: out });
    console.log(`${out}: ${width}×${height}; page ${scrollWidth} px wide; timeline at ${timelineTop} px`);
  } finally {
    await browser.close();
  }
}

const [report, out, width = '1400', height = '900'] = process.argv.slice(2);
if (!report || !out) {
  console.error('usage: npm run docs:screenshot -- <report.html> <out.png> [width] [height]');
  process.exit(254);
}
await screenshot(report, out, Number(width), Number(height));
