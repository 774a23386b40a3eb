// @ts-check
'use strict';
/* exported drawTimeline */
/*
 * The timeline on its canvas: lanes, fault bands, stalls, lock holds, op bars, the lock's promises, the findings'
 * outlines, the axis and the lane labels. Draws the whole frame each time; report.js decides when.
 */
/**
 * What every piece of one timeline frame draws with: the context, the canvas width, the plot's left and right
 * edges, and the height of an op bar.
 * @typedef {{ ctx: CanvasRenderingContext2D; width: number; x0: number; x1: number; barHeight: number }} Frame
 */

const OUTCOME_FILL = ['#3fb37f', '#f0a04b', '#a78bfa', '#9ca3af'];
/** @type {Record<Severity, string>} */
const MARK_COLOUR = { bad: '#c62828', good: '#067647', note: '#2563eb' };
const BAR_FONT = '10.5px ui-monospace, Menlo, Consolas, monospace';
const LABEL_FONT = '600 10.5px system-ui, sans-serif';

/**
 * One frame of the timeline, back to front: lane stripes; then, clipped to the plot, the greyed-out stretches,
 * fault bands, lock holds, op bars, the names on stopped lanes and the findings' outlines; then the axis (with
 * the fault names) and the lane labels over the edges. The order is the stacking order; each piece leaves the
 * context's font and baseline as the next expects.
 */
function drawTimeline() {
  const width = canvasWidth();
  const dpr = window.devicePixelRatio || 1;
  timelineCanvas.width = Math.round(width * dpr);
  timelineCanvas.height = Math.round(timelineHeight * dpr);
  timelineCanvas.style.width = width + 'px';
  timelineCanvas.style.height = timelineHeight + 'px';
  const ctx = /** @type {CanvasRenderingContext2D} */ (timelineCanvas.getContext('2d'));
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, timelineHeight);
  /** @type {Frame} */
  const frame = {
    ctx,
    width,
    x0: GUTTER,
    x1: width - PAD_RIGHT,
    barHeight: Math.max(2, laneHeight - (laneHeight >= 14 ? 8 : 3)),
  };
  drawLanes(frame);
  ctx.save();
  ctx.beginPath();
  ctx.rect(frame.x0, 0, frame.x1 - frame.x0, timelineHeight);
  ctx.clip();
  drawFaultBands(frame);
  drawStalls(frame);
  drawHolds(frame);
  const marked = drawBars(frame);
  drawPromises(frame);
  drawStoppedLabels(frame);
  drawMarks(frame, marked);
  ctx.restore();
  drawAxis(frame);
  drawLaneLabels(frame);
  const range = document.getElementById('tl-range');
  if (range)
    range.textContent =
      formatSeconds(view.from) + ' → ' + formatSeconds(view.to) + '  (' + formatDuration(view.to - view.from) + ')';
}

/** @param {Frame} frame alternate lanes striped, so a bar's lane can be followed across the run */
function drawLanes(frame) {
  const ctx = frame.ctx;
  for (let lane = 0; lane < laneCount; lane++) {
    if (lane % 2 === 1) {
      ctx.fillStyle = '#f8fafc';
      ctx.fillRect(frame.x0, AXIS + lane * laneHeight, frame.x1 - frame.x0, laneHeight);
    }
  }
}

/**
 * The stretches a windowed page did not keep, greyed out; every fault as a band across all lanes; and the lanes
 * of the processes a fault targets (a paused client) darker.
 * @param {Frame} frame
 */
function drawFaultBands(frame) {
  const ctx = frame.ctx;
  if (timeline.mode === 'windowed') {
    ctx.fillStyle = 'rgba(152,162,179,.18)';
    let keptUntil = 0;
    timeline.windows.concat([[runEnd, runEnd]]).forEach(function (kept) {
      if (kept[0] > keptUntil) ctx.fillRect(toX(keptUntil), AXIS, toX(kept[0]) - toX(keptUntil), timelineHeight - AXIS);
      keptUntil = kept[1];
    });
  }
  timeline.faults.forEach(function (fault) {
    const startX = toX(fault.s),
      endX = toX(bandEnd(fault));
    if (endX < frame.x0 || startX > frame.x1) return;
    ctx.fillStyle = faultColour(fault.f, 0.16);
    ctx.fillRect(startX, 0, Math.max(MIN_BAND, endX - startX), timelineHeight);
  });
  timeline.faults.forEach(function (fault) {
    if (!fault.lanes || !fault.lanes.length) return;
    const startX = toX(fault.s),
      endX = toX(bandEnd(fault));
    if (endX < frame.x0 || startX > frame.x1) return;
    fault.lanes.forEach(function (lane) {
      ctx.fillStyle = faultColour(fault.f, 0.38);
      ctx.fillRect(startX, AXIS + lane * laneHeight, Math.max(MIN_BAND, endX - startX), laneHeight);
    });
  });
}

/**
 * Liveness stalls (clients waiting, nobody holding, longer than the TTL): hatched across all lanes, with a solid
 * strip under the axis so a short one still shows when zoomed out.
 * @param {Frame} frame
 */
function drawStalls(frame) {
  const ctx = frame.ctx;
  (timeline.stalls || []).forEach(function (stall) {
    const startX = toX(stall.s),
      endX = toX(stall.e);
    if (endX < frame.x0 || startX > frame.x1) return;
    const stallWidth = Math.max(2, endX - startX);
    ctx.fillStyle = 'rgba(198,40,40,.55)';
    ctx.fillRect(startX, AXIS - 4, stallWidth, 4);
    ctx.save();
    ctx.beginPath();
    ctx.rect(startX, AXIS, stallWidth, timelineHeight - AXIS);
    ctx.clip();
    ctx.strokeStyle = 'rgba(198,40,40,.18)';
    ctx.lineWidth = 1;
    for (let x = startX - timelineHeight; x < startX + stallWidth; x += 8) {
      ctx.beginPath();
      ctx.moveTo(x, timelineHeight);
      ctx.lineTo(x + timelineHeight, 0);
      ctx.stroke();
    }
    ctx.restore();
  });
}

/** @param {Frame} frame lock-holding intervals, with a red end where the holder did not release the lock */
function drawHolds(frame) {
  const ctx = frame.ctx;
  const holds = timeline.holds;
  for (let lane = 0; lane < laneCount; lane++) {
    for (const hold of holdsByLane[lane]) {
      const startX = toX(holds.s[hold]),
        endX = toX(holds.e[hold]);
      if (endX < frame.x0 || startX > frame.x1) continue;
      ctx.fillStyle = holds.k[hold] === 0 ? 'rgba(37,99,235,.16)' : 'rgba(37,99,235,.10)';
      ctx.fillRect(startX, AXIS + lane * laneHeight + 1, Math.max(1, endX - startX), laneHeight - 2);
      if (holds.k[hold] !== 0) {
        /* the lock was not released by this holder: its end is where the client stopped believing it held it */
        ctx.fillStyle = '#c62828';
        ctx.fillRect(endX - 1, AXIS + lane * laneHeight + 1, 2, laneHeight - 2);
      }
    }
  }
}

/**
 * The promise checker's windows (what the lock promised each hold in an overlap), as a bracket along the bottom of
 * the holder's lane in its class's colour: under the hold's shading, a hold that runs past its bracket outlived its
 * lease, and a bracket that starts inside another lane's bracket is a grant inside a live lease — a broken promise.
 * Where a clock fault set the holder's clock back, the stretch its own clock still counted is dashed.
 * @param {Frame} frame
 */
function drawPromises(frame) {
  const ctx = frame.ctx;
  (timeline.promises || []).forEach(function (promise) {
    const startX = toX(promise.s),
      endX = toX(promise.e),
      ownEndX = promise.oe === undefined ? endX : toX(promise.oe);
    if (Math.max(endX, ownEndX) < frame.x0 || startX > frame.x1) return;
    const y = promiseTop(promise.l);
    ctx.fillStyle = promiseColour(promise.c);
    ctx.fillRect(startX, y, Math.max(2, endX - startX), 3);
    ctx.fillRect(startX, y - 4, 1.5, 7);
    ctx.fillRect(endX - 1.5, y - 4, 1.5, 7);
    if (ownEndX > endX) {
      ctx.strokeStyle = promiseColour(promise.c);
      ctx.lineWidth = 1.5;
      ctx.setLineDash([3, 2]);
      ctx.beginPath();
      ctx.moveTo(endX, y + 1.5);
      ctx.lineTo(ownEndX, y + 1.5);
      ctx.stroke();
      ctx.setLineDash([]);
    }
  });
}

/**
 * @param {number} c a promise class's index (report/promise-windows.ts PROMISE_CLASSES)
 * @returns {string} its colour, as the page data gives it (grey for a hand-edited page without)
 */
function promiseColour(c) {
  return (pageData.promiseColours || [])[c] || '#667085';
}

/**
 * @param {number} bar
 * @param {number} barHeight
 * @returns {number} the y of the bar's top, centred in its lane
 */
function barTop(bar, barHeight) {
  return AXIS + timeline.l[bar] * laneHeight + (laneHeight - barHeight) / 2;
}

/**
 * The op bars, coloured by outcome, labelled where they are wide enough. Leaves the bar font set.
 * @param {Frame} frame
 * @returns {number[]} the bars a finding marks or the reader highlighted, for `drawMarks`
 */
function drawBars(frame) {
  const { ctx, barHeight } = frame;
  /** @type {number[]} */
  const marked = [];
  ctx.font = BAR_FONT;
  ctx.textBaseline = 'middle';
  for (let bar = 0; bar < timeline.s.length; bar++) {
    const startX = toX(timeline.s[bar]),
      endX = toX(barEnd(bar));
    if (endX < frame.x0 - 2 || startX > frame.x1 + 2) continue;
    const y = barTop(bar, barHeight);
    const barWidth = Math.max(1.5, endX - startX);
    ctx.fillStyle = OUTCOME_FILL[timeline.o[bar]];
    ctx.fillRect(startX, y, barWidth, barHeight);
    if (markOf(bar) || (selection.ops && selection.ops.has(timeline.i[bar]))) marked.push(bar);
    if (barWidth > 38 && barHeight >= 12) {
      ctx.fillStyle = '#0b1b13';
      let label = timeline.fNames[timeline.f[bar]];
      if (barWidth > 150 && timeline.sum[bar]) label += ' ' + timeline.sum[bar];
      ctx.save();
      ctx.beginPath();
      ctx.rect(startX, y, barWidth, barHeight);
      ctx.clip();
      ctx.fillText(label, startX + 3, y + barHeight / 2 + 0.5);
      ctx.restore();
    }
  }
  return marked;
}

/** @param {Frame} frame the fault's name on each lane it stopped, over the bars, where there is room */
function drawStoppedLabels(frame) {
  const ctx = frame.ctx;
  timeline.faults.forEach(function (fault) {
    if (!fault.lanes || !fault.lanes.length || laneHeight < 12) return;
    const startX = Math.max(toX(fault.s), frame.x0),
      endX = Math.min(toX(bandEnd(fault)), frame.x1);
    if (endX - startX < 60) return;
    ctx.fillStyle = '#5c3a00';
    ctx.font = LABEL_FONT;
    fault.lanes.forEach(function (lane) {
      ctx.fillText(fault.f + ' (stopped)', startX + 6, AXIS + lane * laneHeight + laneHeight / 2 + 0.5);
    });
    ctx.font = BAR_FONT;
  });
}

/**
 * Findings on top: the bars they mark outlined in their severity's colour, the highlighted ones in black.
 * @param {Frame} frame
 * @param {number[]} marked
 */
function drawMarks(frame, marked) {
  const { ctx, barHeight } = frame;
  /** @type {{ x: number; y: number; role: string }[]} the lost update's writes, for the line joining them */
  const ends = [];
  marked.forEach(function (bar) {
    const startX = toX(timeline.s[bar]),
      endX = toX(barEnd(bar));
    const y = barTop(bar, barHeight);
    const severity = markOf(bar) || 'note';
    const picked = selection.ops && selection.ops.has(timeline.i[bar]);
    const write = picked ? selection.roles.get(timeline.i[bar]) : undefined;
    const erased = write !== undefined && write.role === 'erased';
    ctx.strokeStyle = erased ? MARK_COLOUR.bad : picked ? '#111827' : MARK_COLOUR[severity];
    ctx.lineWidth = picked ? 2.5 : 2;
    ctx.setLineDash(erased ? [4, 2] : []);
    ctx.strokeRect(startX - 1, y - 1, Math.max(3.5, endX - startX + 2), barHeight + 2);
    ctx.setLineDash([]);
    if (write) {
      ends.push({ x: endX, y: y + barHeight / 2, role: write.role });
      const text = erased ? 'erased #' + write.writeId : 'overwrote it: #' + write.writeId;
      roleLabel(ctx, text, endX + 4, y, write.role);
    }
  });
  joinWrites(ctx, ends);
}

/** @param {Frame} frame the axis: its line, the fault names in their colours above the lanes, and the time ticks */
function drawAxis(frame) {
  const { ctx, x0, x1 } = frame;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, frame.width, AXIS - 1);
  ctx.strokeStyle = '#e4e7ec';
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(x0, AXIS - 0.5);
  ctx.lineTo(x1, AXIS - 0.5);
  ctx.stroke();
  ctx.font = LABEL_FONT;
  ctx.textBaseline = 'alphabetic';
  /** @type {number[]} where each label row is free from */
  const rowFree = [-Infinity, -Infinity];
  timeline.faults.forEach(function (fault) {
    const startX = toX(fault.s),
      endX = toX(bandEnd(fault));
    if (endX < x0 || startX > x1) return;
    const left = Math.max(startX, x0);
    const bandWidth = Math.max(MIN_BAND, Math.min(endX, x1) - left);
    // The band under the labels, as wide as on the lanes.
    ctx.fillStyle = faultColour(fault.f, 0.16);
    ctx.fillRect(left, 0, bandWidth, AXIS);
    // Its label: a tag in the fault's colour, as wide as the name even where the band is narrower. In the first
    // row that is free at its start; where neither is, it is left out (the legend and the tooltip still name it).
    const textWidth = ctx.measureText(fault.f).width + 8;
    const row = rowFree[0] <= left ? 0 : rowFree[1] <= left ? 1 : -1;
    const tagWidth = Math.max(bandWidth, Math.min(textWidth, x1 - left));
    ctx.fillStyle = faultColour(fault.f, 1);
    if (row < 0) {
      // No room for its name: a solid mark under the label rows, over nobody's tag.
      ctx.fillRect(left, FAULT_ROW * 2, bandWidth, 4);
      return;
    }
    ctx.fillRect(left, row * FAULT_ROW, tagWidth, FAULT_ROW - 1);
    rowFree[row] = left + tagWidth + 3;
    ctx.fillStyle = '#fff';
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, row * FAULT_ROW, tagWidth, FAULT_ROW);
    ctx.clip();
    ctx.fillText(fault.f, left + 4, row * FAULT_ROW + 10.5);
    ctx.restore();
  });
  drawTicks(frame);
}

/** @param {Frame} frame the time ticks along the axis, about 90 px apart */
function drawTicks(frame) {
  const { ctx, x0, x1 } = frame;
  const step = niceStep(view.to - view.from, x1 - x0);
  ctx.fillStyle = '#475467';
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'alphabetic';
  for (let t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
    const x = toX(t);
    if (x > x1 - 30) break;
    ctx.fillRect(x, AXIS - 6, 1, 5);
    ctx.fillText(tickLabel(t, step), x + 3, AXIS - 8);
  }
}

/** @param {Frame} frame the gutter: each lane's name, over whatever was drawn left of the plot */
function drawLaneLabels(frame) {
  const ctx = frame.ctx;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, frame.x0, timelineHeight);
  ctx.fillStyle = '#344054';
  ctx.font = (laneHeight >= 14 ? '600 11.5px' : '600 9px') + ' system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  if (laneHeight >= 9)
    for (let lane = 0; lane < laneCount; lane++)
      ctx.fillText(timeline.lanes[lane], 8, AXIS + lane * laneHeight + laneHeight / 2);
  ctx.strokeStyle = '#e4e7ec';
  ctx.beginPath();
  ctx.moveTo(frame.x0 - 0.5, 0);
  ctx.lineTo(frame.x0 - 0.5, timelineHeight);
  ctx.stroke();
}

/**
 * A label beside a lost update's write, in a white box so it reads over the bars.
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} text
 * @param {number} x
 * @param {number} y the bar's top
 * @param {string} role
 */
function roleLabel(ctx, text, x, y, role) {
  ctx.font = LABEL_FONT;
  ctx.textBaseline = 'middle';
  const width = ctx.measureText(text).width + 6;
  ctx.fillStyle = 'rgba(255,255,255,.92)';
  ctx.fillRect(x, y - 1, width, 14);
  ctx.fillStyle = role === 'erased' ? MARK_COLOUR.bad : '#111827';
  ctx.fillText(text, x + 3, y + 6);
  ctx.font = BAR_FONT;
}

/**
 * The erased write joined to the write that erased it: an arrow from the end of each erased one to the end of the
 * overwriting one (the overwriter computed its balance before the erased write committed, and wrote after it).
 * @param {CanvasRenderingContext2D} ctx
 * @param {{ x: number; y: number; role: string }[]} ends
 */
function joinWrites(ctx, ends) {
  const over = ends.find((write) => write.role === 'overwrote');
  if (!over) return;
  ctx.strokeStyle = MARK_COLOUR.bad;
  ctx.fillStyle = MARK_COLOUR.bad;
  ctx.lineWidth = 1.5;
  ends.forEach(function (write) {
    if (write.role !== 'erased') return;
    ctx.beginPath();
    ctx.moveTo(write.x, write.y);
    ctx.bezierCurveTo(write.x + 30, write.y, over.x - 30, over.y, over.x - 2, over.y);
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(over.x - 2, over.y);
    ctx.lineTo(over.x - 9, over.y - 4);
    ctx.lineTo(over.x - 9, over.y + 4);
    ctx.fill();
  });
}

/**
 * A round step between ticks, about 90 px apart.
 * @param {number} span ms
 * @param {number} px
 */
function niceStep(span, px) {
  const raw = span / Math.max(1, px / 90);
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const step of [1, 2, 5, 10]) if (step * power >= raw) return step * power;
  return 10 * power;
}

/**
 * A tick's time, with as many decimals as the step needs.
 * @param {number} t ms
 * @param {number} step ms between ticks
 */
function tickLabel(t, step) {
  const decimals = step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
  return (t / 1000).toFixed(decimals) + ' s';
}
