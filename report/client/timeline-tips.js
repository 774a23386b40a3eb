// @ts-check
'use strict';
/* exported timelineTip, hitAt, showTip */
/*
 * The timeline's hover: what is under the mouse (a fault, a stall, an op bar, a promise or a lock hold) and the tip that says
 * what it is. Every string from the history goes in through textContent.
 */

/* the tip, moved out of the timeline's frame, which would clip it (it is fixed to the viewport: see showTip) */
const timelineTip = /** @type {HTMLElement} */ (document.getElementById('tl-tip'));
document.body.appendChild(timelineTip);

const OUTCOME_NAME = ['ok', 'fail', 'info', 'never completed'];
const HOLD_ENDING = [
  'released',
  'release found the lock was no longer ours',
  'never released (unknown outcome or run ended)',
];

/**
 * @param {string} tag
 * @param {string} className
 * @param {string} [text]
 */
function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Whether canvas x `px` is over a fault's band, drawn at least MIN_BAND wide.
 * @param {FaultBand} fault
 * @param {number} px
 */
function overBand(fault, px) {
  const startX = toX(fault.s);
  return px >= startX && px <= Math.max(toX(bandEnd(fault)), startX + MIN_BAND);
}

/**
 * @typedef {{ fault: FaultBand } | { stall: Stall } | { op: number } | { promise: PromiseBand } | { hold: number; lane: number }}
 *   Hit what is under the mouse
 */
/**
 * Above the lanes, a fault or a stall; on a lane's bottom edge, a promise's bracket; else the narrowest bar there
 * (its ends padded 3 px) or else a hold.
 * @param {number} px
 * @param {number} py
 * @returns {Hit | null}
 */
function hitAt(px, py) {
  if (py < AXIS) return hitOnAxis(px, py);
  const lane = Math.floor((py - AXIS) / laneHeight);
  if (lane < 0 || lane >= laneCount || px < GUTTER) return null;
  const promise = promiseAt(lane, px, py);
  if (promise) return { promise };
  let best = null,
    bestWidth = Infinity;
  for (const bar of barsByLane[lane]) {
    const startX = toX(timeline.s[bar]) - 3,
      endX = toX(barEnd(bar)) + 3;
    if (px >= startX && px <= endX && endX - startX < bestWidth) {
      best = bar;
      bestWidth = endX - startX;
    }
  }
  if (best !== null) return { op: best };
  const ms = toMs(px);
  for (const hold of holdsByLane[lane])
    if (ms >= timeline.holds.s[hold] && ms <= timeline.holds.e[hold]) return { hold, lane };
  return null;
}

/**
 * The promise whose bracket (or its dashed own-clock stretch) is under the mouse, within 5 px of the lane's bottom.
 * @param {number} lane
 * @param {number} px
 * @param {number} py
 * @returns {PromiseBand | null}
 */
function promiseAt(lane, px, py) {
  if (Math.abs(py - promiseTop(lane) - 1.5) > 5) return null;
  for (const promise of timeline.promises || []) {
    const end = promise.oe === undefined ? promise.e : Math.max(promise.e, promise.oe);
    if (promise.l === lane && px >= toX(promise.s) - 2 && px <= toX(end) + 2) return promise;
  }
  return null;
}

/**
 * @param {number} px
 * @param {number} py above the lanes
 * @returns {Hit | null}
 */
function hitOnAxis(px, py) {
  const ms = toMs(px);
  // The stall strip sits along the axis's bottom edge: there a stall wins over the fault band behind it.
  if (py < AXIS - 4) for (const fault of timeline.faults) if (overBand(fault, px)) return { fault };
  for (const stall of timeline.stalls || []) if (ms >= stall.s && ms <= stall.e) return { stall };
  for (const fault of timeline.faults) if (overBand(fault, px)) return { fault };
  return null;
}

/**
 * @param {Hit} hit
 * @param {number} clientX
 * @param {number} clientY
 */
function showTip(hit, clientX, clientY) {
  const tip = timelineTip;
  tip.textContent = '';
  if ('op' in hit) opTip(hit.op);
  else if ('fault' in hit) faultTip(hit.fault);
  else if ('stall' in hit) {
    const { stall } = hit;
    tip.appendChild(element('div', 't', stall.label));
    tip.appendChild(
      element(
        'div',
        'd',
        formatSeconds(stall.s) + ' → ' + formatSeconds(stall.e) + '  (' + formatDuration(stall.e - stall.s) + ')',
      ),
    );
  } else if ('promise' in hit) promiseTip(hit.promise);
  else if ('hold' in hit) holdTip(hit.hold, hit.lane);
  tip.style.display = 'block';
  /* fixed to the viewport so a tip near the bottom lanes is not cut off by the timeline's frame */
  const viewportWidth = document.documentElement.clientWidth,
    viewportHeight = document.documentElement.clientHeight;
  let left = clientX + 14,
    top = clientY + 16;
  if (left + tip.offsetWidth > viewportWidth - 4) left = Math.max(4, clientX - tip.offsetWidth - 14);
  if (top + tip.offsetHeight > viewportHeight - 4) top = Math.max(4, clientY - tip.offsetHeight - 12);
  tip.style.left = left + 'px';
  tip.style.top = top + 'px';
}

/** @param {number} bar its process, lane, op and outcome, its times, its summary and the JSON of its ops */
function opTip(bar) {
  const tip = timelineTip;
  const start = timeline.s[bar],
    end = timeline.e[bar],
    index = timeline.i[bar];
  const who = timeline.procs[timeline.p[bar]] + ' (' + timeline.lanes[timeline.l[bar]] + ') ';
  const what = timeline.fNames[timeline.f[bar]] + ' → ' + OUTCOME_NAME[timeline.o[bar]];
  tip.appendChild(element('div', 't', who + what + '   (history #' + index + ')'));
  const until = end < 0 ? 'never completed' : formatSeconds(end) + '  (' + formatDuration(end - start) + ')';
  tip.appendChild(element('div', 'd', formatSeconds(start) + ' → ' + until));
  if (timeline.sum[bar]) tip.appendChild(element('div', '', timeline.sum[bar]));
  const mark = markOf(bar);
  if (mark)
    tip.appendChild(
      element(
        'div',
        'd',
        mark === 'bad'
          ? 'part of an anomaly (see “What happened”)'
          : mark === 'good'
            ? 'a safety mechanism worked here'
            : 'mentioned in “What happened”',
      ),
    );
  const detail = timeline.detail[index];
  if (detail) {
    if (detail[0]) tip.appendChild(element('pre', '', detail[0]));
    if (detail[1]) tip.appendChild(element('pre', '', detail[1]));
  }
}

/** @param {FaultBand} fault */
function faultTip(fault) {
  const tip = timelineTip;
  tip.appendChild(element('div', 't', fault.label));
  const until =
    fault.e === null ? 'not healed' : formatSeconds(fault.e) + '  (' + formatDuration(fault.e - fault.s) + ')';
  tip.appendChild(element('div', 'd', formatSeconds(fault.s) + ' → ' + until));
  if (fault.note) tip.appendChild(element('div', '', fault.note));
}

/**
 * @param {number} hold
 * @param {number} lane
 */
function holdTip(hold, lane) {
  const tip = timelineTip;
  const holds = timeline.holds;
  const who = timeline.procs[holds.p[hold]] + ' (' + timeline.lanes[lane] + ')';
  tip.appendChild(element('div', 't', who + ' believed it held the lock'));
  const span = formatSeconds(holds.s[hold]) + ' → ' + formatSeconds(holds.e[hold]);
  const ending = '  (' + formatDuration(holds.e[hold] - holds.s[hold]) + '), ' + HOLD_ENDING[holds.k[hold]];
  tip.appendChild(element('div', 'd', span + ending));
}

/** @param {PromiseBand} promise whose promise, its class and partners, and the window (and its own clock's end) */
function promiseTip(promise) {
  const tip = timelineTip;
  tip.appendChild(element('div', 't', promise.label));
  tip.appendChild(
    element(
      'div',
      'd',
      'promised ' +
        formatSeconds(promise.s) +
        ' → ' +
        formatSeconds(promise.e) +
        '  (' +
        formatDuration(promise.e - promise.s) +
        ')' +
        (promise.oe !== undefined ? '; by its own clock to ' + formatSeconds(promise.oe) : ''),
    ),
  );
}
