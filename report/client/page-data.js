// @ts-check
'use strict';
/* exported pageData, timeline, faultColour, formatSeconds, formatDuration */
/*
 * The report page's scripts, in the order assets.ts lists them: this file (the data and how it reads),
 * timeline-geometry.js, timeline-drawing.js, timeline-tips.js, charts.js, then report.js, which wires them to the
 * page. Classic scripts share the page's global scope: what one file declares at its top level, the files after it
 * use (and `tsc -p report/client` checks them as one program, which refuses two files declaring one name). So the
 * names at the top level say what they hold, and report.js keeps its own in a closure.
 */
/**
 * The page's data (#fp-data), as report-page.ts writes it; the timeline in timeline-data.ts's compact encoding.
 * @typedef {import('../timeline-data.ts').TimelineData} EncodedTimeline
 * @typedef {{
 *   timeline: EncodedTimeline;
 *   latency: import('../chart-data.ts').LatencyData;
 *   throughput: import('../chart-data.ts').ThroughputData;
 *   clock: import('../chart-data.ts').ClockData | null;
 *   faultColours: Record<string, string>;
 *   promiseColours: readonly string[];
 * }} PageData
 */
/**
 * The timeline decoded: `s` start and `e` end (-1 = never completed) in ms since the start, `i` the invoke's
 * history index; every other column as encoded.
 * @typedef {Omit<EncodedTimeline, 's' | 'd' | 'i'> & { s: number[]; e: number[]; i: number[] }} Timeline
 * @typedef {EncodedTimeline['faults'][number]} FaultBand
 * @typedef {EncodedTimeline['stalls'][number]} Stall
 * @typedef {EncodedTimeline['promises'][number]} PromiseBand
 * @typedef {import('../findings/index.ts').Finding['severity']} Severity
 */
/** @type {PageData} */
const pageData = JSON.parse(/** @type {HTMLElement} */ (document.getElementById('fp-data')).textContent || 'null');
const timeline = decodeTimeline(pageData.timeline);

/**
 * A fault's colour, as the catalogue gives it (faults/catalogue.ts): the page data carries one for every
 * fault of the run, an unknown name's grey included; the grey here only keeps a hand-edited page drawing.
 * @param {string} fault the fault's name
 * @param {number} alpha
 */
function faultColour(fault, alpha) {
  const hex = Object.prototype.hasOwnProperty.call(pageData.faultColours, fault)
    ? pageData.faultColours[fault]
    : '#6b7280';
  const rgb = parseInt(hex.slice(1), 16);
  return 'rgba(' + ((rgb >> 16) & 255) + ',' + ((rgb >> 8) & 255) + ',' + (rgb & 255) + ',' + alpha + ')';
}

/**
 * Undoes the compact encoding (see timeline-data.ts): deltas → absolute, 10 µs units → ms.
 * @param {EncodedTimeline} raw
 * @returns {Timeline}
 */
function decodeTimeline(raw) {
  const count = raw.s.length,
    starts = new Array(count),
    ends = new Array(count),
    indexes = new Array(count);
  let at = 0,
    index = 0;
  for (let k = 0; k < count; k++) {
    at += raw.s[k];
    index += raw.i[k];
    starts[k] = at / 100;
    ends[k] = raw.d[k] < 0 ? -1 : (at + raw.d[k]) / 100;
    indexes[k] = index;
  }
  return Object.assign({}, raw, { s: starts, e: ends, i: indexes });
}

/** @param {number} ms @returns {string} a time since the start, in seconds */
function formatSeconds(ms) {
  return (ms / 1000).toFixed(Math.abs(ms) < 10000 ? 3 : 2) + ' s';
}

/** @param {number} ms @returns {string} a duration, in ms below a second */
function formatDuration(ms) {
  return ms < 10 ? ms.toFixed(2) + ' ms' : ms < 1000 ? ms.toFixed(1) + ' ms' : (ms / 1000).toFixed(2) + ' s';
}
