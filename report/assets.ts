import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What every page inlines, read once per process: uPlot from node_modules (no CDN: a report must open from disk
 * on a machine without network) and this folder's own browser script and stylesheet.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const cache = new Map<string, string>();

function read(file: string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = fs.readFileSync(file, 'utf8');
    cache.set(file, text);
  }
  return text;
}

export function uplotJs(): string {
  return read(path.join(path.dirname(require.resolve('uplot/package.json')), 'dist', 'uPlot.iife.min.js'));
}

export function uplotCss(): string {
  return read(path.join(path.dirname(require.resolve('uplot/package.json')), 'dist', 'uPlot.min.css'));
}

/** The stylesheet shared by the report, index, compare and matrix pages. */
export function pageCss(): string {
  return read(path.join(here, 'client', 'page.css'));
}

/**
 * The report page's scripts, in the order they must run (page-data.js says why): the page's data, the timeline
 * (where, drawing, hover), the charts, then report.js, which wires them to the page.
 */
const REPORT_SCRIPTS = [
  'page-data.js',
  'timeline-geometry.js',
  'timeline-drawing.js',
  'timeline-tips.js',
  'charts.js',
  'report.js',
];

/** The report page's scripts, each to inline as one `<script>`: timeline, charts, hover, links from findings. */
export function reportJs(): string[] {
  return REPORT_SCRIPTS.map((file) => read(path.join(here, 'client', file)));
}

/** Small script for table pages (sorting, filtering). */
export function tableJs(): string {
  return read(path.join(here, 'client', 'tables.js'));
}
