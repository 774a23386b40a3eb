// @ts-check
'use strict';
/* exported GUTTER, FAULT_ROW, AXIS, MIN_BAND, PAD_RIGHT, timelineCanvas, laneCount, laneHeight */
/* exported timelineHeight, runEnd, view, selection, barsByLane, holdsByLane, canvasWidth, toX, toMs, barEnd */
/* exported bandEnd, markOf, laneMiddle, promiseTop */
/*
 * Where things are on the timeline's canvas: the lanes, the time shown (the view) and the x of a time. The drawing
 * (timeline-drawing.js), the hover (timeline-tips.js) and the mouse (report.js) all measure with this.
 */

/*
 * The axis holds two rows of fault labels above the time ticks: a label that would run into the one before it
 * takes the other row. A fault band is at least MIN_BAND px wide whatever the zoom, so a 60 ms restart in a 60 s
 * run is a band with a name, not a hairline without one. GUTTER is the lane labels' column, left of the plot.
 */
const GUTTER = 76,
  FAULT_ROW = 14,
  AXIS = 2 * FAULT_ROW + 20,
  MIN_BAND = 6,
  PAD_BOTTOM = 6,
  PAD_RIGHT = 8;

const timelineCanvas = /** @type {HTMLCanvasElement} */ (document.getElementById('tl'));
const timelineFrame = /** @type {HTMLElement} */ (timelineCanvas.parentNode);

const laneCount = timeline.lanes.length;
const laneHeight = laneCount <= 12 ? 22 : laneCount <= 30 ? 16 : laneCount <= 80 ? 10 : 6;
const timelineHeight = AXIS + Math.max(1, laneCount) * laneHeight + PAD_BOTTOM;
/** ms: the run's end, where a bar that never completed and a fault never healed stop */
const runEnd = Math.max(timeline.endMs, 1);
/** the stretch of the run shown, in ms; changed in place by setView (report.js) */
const view = { from: 0, to: runEnd };
/**
 * @typedef {{ role: string; writeId: string }} WriteRole a lost update's write: `erased` or `overwrote`, and its id
 * @type {{ ops: Set<number> | null; roles: Map<number, WriteRole> }} the history indexes picked from a finding,
 *   and a lost update's writes among them by their invoke's index
 */
const selection = { ops: null, roles: new Map() };

/** @type {number[][]} each lane's bars */
const barsByLane = [];
/** @type {number[][]} each lane's holds */
const holdsByLane = [];
for (let lane = 0; lane < laneCount; lane++) {
  barsByLane.push([]);
  holdsByLane.push([]);
}
for (let bar = 0; bar < timeline.s.length; bar++) barsByLane[timeline.l[bar]].push(bar);
for (let hold = 0; hold < timeline.holds.l.length; hold++) holdsByLane[timeline.holds.l[hold]].push(hold);

function canvasWidth() {
  return Math.max(300, timelineFrame.clientWidth);
}
/** @param {number} ms @returns {number} the canvas x of a time */
function toX(ms) {
  return GUTTER + ((ms - view.from) / (view.to - view.from)) * (canvasWidth() - GUTTER - PAD_RIGHT);
}
/** @param {number} x @returns {number} the time at a canvas x */
function toMs(x) {
  return view.from + ((x - GUTTER) / (canvasWidth() - GUTTER - PAD_RIGHT)) * (view.to - view.from);
}
/** @param {number} bar @returns {number} ms */
function barEnd(bar) {
  return timeline.e[bar] < 0 ? runEnd : timeline.e[bar];
}
/** @param {FaultBand} fault @returns {number} ms */
function bandEnd(fault) {
  return fault.e === null ? runEnd : fault.e;
}
/** @param {number} bar @returns {Severity | null} the mark a finding put on it */
function markOf(bar) {
  return timeline.marks[timeline.i[bar]] || null;
}
/** @param {number} bar @returns {number} the y of the middle of a bar's lane */
function laneMiddle(bar) {
  return AXIS + timeline.l[bar] * laneHeight + laneHeight / 2;
}
/** @param {number} lane @returns {number} the y of the top of a promise's bracket: the lane's bottom 3 px */
function promiseTop(lane) {
  return AXIS + lane * laneHeight + laneHeight - 3.5;
}
