// @ts-check
/* global window, document, uPlot, navigator, ResizeObserver, requestAnimationFrame */
/*
 * fencepost report: draws the timeline (canvas) and the charts (uPlot) from the JSON in #fp-data.
 * Every string that came from the history reaches the DOM through textContent or canvas fillText, never
 * innerHTML. No network, no storage: the page works from file://.
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
 * }} PageData
 */
/**
 * The timeline decoded: `s` start and `e` end (-1 = never completed) in ms since the start, `i` the invoke's
 * history index; every other column as encoded.
 * @typedef {Omit<EncodedTimeline, 's' | 'd' | 'i'> & { s: number[]; e: number[]; i: number[] }} Timeline
 * @typedef {EncodedTimeline['faults'][number]} FaultBand
 * @typedef {import('../findings/index.ts').Finding['severity']} Severity
 */
/**
 * What every piece of one timeline frame draws with: the context, the canvas width, the plot's left and right
 * edges, and the height of an op bar.
 * @typedef {{ ctx: CanvasRenderingContext2D; w: number; x0: number; x1: number; barH: number }} Frame
 */
(function () {
  'use strict';
  /** @type {PageData} */
  var D = JSON.parse(/** @type {HTMLElement} */ (document.getElementById('fp-data')).textContent || 'null');
  var T = decode(D.timeline);
  /**
   * Undoes the compact encoding (see timeline-data.ts): deltas → absolute, 10 µs units → ms.
   * @param {EncodedTimeline} raw
   * @returns {Timeline}
   */
  function decode(raw) {
    var n = raw.s.length,
      s = new Array(n),
      e = new Array(n),
      idx = new Array(n),
      at = 0,
      ix = 0;
    for (var q = 0; q < n; q++) {
      at += raw.s[q];
      ix += raw.i[q];
      s[q] = at / 100;
      e[q] = raw.d[q] < 0 ? -1 : (at + raw.d[q]) / 100;
      idx[q] = ix;
    }
    return Object.assign({}, raw, { s: s, e: e, i: idx });
  }

  var OUTCOME_FILL = ['#3fb37f', '#f0a04b', '#a78bfa', '#9ca3af'];
  var OUTCOME_NAME = ['ok', 'fail', 'info', 'never completed'];
  /** @type {Record<Severity, string>} */
  var MARK = { bad: '#c62828', good: '#067647', note: '#2563eb' };
  /**
   * A fault's colour, as the catalogue gives it (history/fault-catalogue.ts): the page data carries one for every
   * fault of the run, an unknown name's grey included; the grey here only keeps a hand-edited page drawing.
   * @param {string} f the fault's name
   * @param {number} alpha
   */
  function faultColour(f, alpha) {
    var hex = Object.prototype.hasOwnProperty.call(D.faultColours, f) ? D.faultColours[f] : '#6b7280';
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + ((n >> 16) & 255) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + alpha + ')';
  }
  /** @param {number} ms */
  function fmtS(ms) {
    return (ms / 1000).toFixed(Math.abs(ms) < 10000 ? 3 : 2) + ' s';
  }
  /** @param {number} ms */
  function fmtDur(ms) {
    return ms < 10 ? ms.toFixed(2) + ' ms' : ms < 1000 ? ms.toFixed(1) + ' ms' : (ms / 1000).toFixed(2) + ' s';
  }
  /**
   * @param {string} tag
   * @param {string} cls
   * @param {string} [text]
   */
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* ---------- timeline ---------- */
  var canvas = /** @type {HTMLCanvasElement} */ (document.getElementById('tl'));
  var tip = /** @type {HTMLElement} */ (document.getElementById('tl-tip'));
  document.body.appendChild(tip);
  var wrap = /** @type {HTMLElement} */ (canvas.parentNode);
  /*
   * The axis holds two rows of fault labels above the time ticks: a label that would run into the one before it
   * takes the other row. A fault band is at least MIN_BAND px wide whatever the zoom, so a 60 ms restart in a 60 s
   * run is a band with a name, not a hairline without one.
   */
  var GUTTER = 76,
    FAULT_ROW = 14,
    AXIS = 2 * FAULT_ROW + 20,
    MIN_BAND = 6,
    PAD_BOTTOM = 6;
  var nLanes = T.lanes.length;
  var laneH = nLanes <= 12 ? 22 : nLanes <= 30 ? 16 : nLanes <= 80 ? 10 : 6;
  var height = AXIS + Math.max(1, nLanes) * laneH + PAD_BOTTOM;
  var end = Math.max(T.endMs, 1);
  var view = { from: 0, to: end };
  /** @type {Set<number> | null} the history indexes picked from a finding */
  var highlight = null;
  /** @type {Map<number, { role: string; writeId: string }>} a lost update's writes, by their invoke's index */
  var roles = new Map();
  /** @type {number[][]} each lane's bars */
  var byLane = [];
  for (var li = 0; li < nLanes; li++) byLane.push([]);
  for (var k = 0; k < T.s.length; k++) byLane[T.l[k]].push(k);
  /** @type {number[][]} each lane's holds */
  var holdsByLane = [];
  for (li = 0; li < nLanes; li++) holdsByLane.push([]);
  for (k = 0; k < T.holds.l.length; k++) holdsByLane[T.holds.l[k]].push(k);

  function width() {
    return Math.max(300, wrap.clientWidth);
  }
  /** @param {number} ms @returns {number} the canvas x of a time */
  function X(ms) {
    return GUTTER + ((ms - view.from) / (view.to - view.from)) * (width() - GUTTER - 8);
  }
  /** @param {number} x @returns {number} the time at a canvas x */
  function MS(x) {
    return view.from + ((x - GUTTER) / (width() - GUTTER - 8)) * (view.to - view.from);
  }
  /** @param {number} k a bar */
  function barEnd(k) {
    return T.e[k] < 0 ? end : T.e[k];
  }
  /** @param {number} k a bar @returns {Severity | null} the mark a finding put on it */
  function marked(k) {
    var m = T.marks[T.i[k]];
    if (m) return m;
    return null;
  }

  /**
   * A round step between ticks, about 90 px apart.
   * @param {number} span ms
   * @param {number} px
   */
  function niceStep(span, px) {
    var raw = span / Math.max(1, px / 90);
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * p >= raw) return steps[i] * p;
    return 10 * p;
  }

  /**
   * One frame of the timeline, back to front: lane stripes; then, clipped to the plot, the greyed-out stretches,
   * fault bands, lock holds, op bars, the names on stopped lanes and the findings' outlines; then the axis (with
   * the fault names) and the lane labels over the edges. The order is the stacking order; each piece leaves the
   * context's font and baseline as the next expects.
   */
  function draw() {
    var w = width();
    var dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.width = w + 'px';
    canvas.style.height = height + 'px';
    var ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, w, height);
    /** @type {Frame} */
    var fr = { ctx: ctx, w: w, x0: GUTTER, x1: w - 8, barH: Math.max(2, laneH - (laneH >= 14 ? 8 : 3)) };
    drawLanes(fr);
    ctx.save();
    ctx.beginPath();
    ctx.rect(fr.x0, 0, fr.x1 - fr.x0, height);
    ctx.clip();
    drawFaultBands(fr);
    drawStalls(fr);
    drawHolds(fr);
    var marks = drawBars(fr);
    drawStoppedLabels(fr);
    drawMarks(fr, marks);
    ctx.restore();
    drawAxis(fr);
    drawLaneLabels(fr);
    var range = document.getElementById('tl-range');
    if (range) range.textContent = fmtS(view.from) + ' → ' + fmtS(view.to) + '  (' + fmtDur(view.to - view.from) + ')';
  }

  /** @param {Frame} fr alternate lanes striped, so a bar's lane can be followed across the run */
  function drawLanes(fr) {
    var ctx = fr.ctx;
    for (var i = 0; i < nLanes; i++) {
      if (i % 2 === 1) {
        ctx.fillStyle = '#f8fafc';
        ctx.fillRect(fr.x0, AXIS + i * laneH, fr.x1 - fr.x0, laneH);
      }
    }
  }

  /**
   * The stretches a windowed page did not keep, greyed out; every fault as a band across all lanes; and the lanes
   * of the processes a fault targets (a paused client) darker.
   * @param {Frame} fr
   */
  function drawFaultBands(fr) {
    var ctx = fr.ctx;
    if (T.mode === 'windowed') {
      ctx.fillStyle = 'rgba(152,162,179,.18)';
      var prev = 0;
      T.windows.concat([[end, end]]).forEach(function (wd) {
        if (wd[0] > prev) ctx.fillRect(X(prev), AXIS, X(wd[0]) - X(prev), height - AXIS);
        prev = wd[1];
      });
    }
    T.faults.forEach(function (f) {
      var a = X(f.s),
        b = X(f.e === null ? end : f.e);
      if (b < fr.x0 || a > fr.x1) return;
      ctx.fillStyle = faultColour(f.f, 0.16);
      ctx.fillRect(a, 0, Math.max(MIN_BAND, b - a), height);
    });
    T.faults.forEach(function (f) {
      if (!f.lanes || !f.lanes.length) return;
      var a = X(f.s),
        b = X(f.e === null ? end : f.e);
      if (b < fr.x0 || a > fr.x1) return;
      f.lanes.forEach(function (ln) {
        ctx.fillStyle = faultColour(f.f, 0.38);
        ctx.fillRect(a, AXIS + ln * laneH, Math.max(MIN_BAND, b - a), laneH);
      });
    });
  }

  /**
   * Liveness stalls (clients waiting, nobody holding, longer than the TTL): hatched across all lanes, with a solid
   * strip under the axis so a short one still shows when zoomed out.
   * @param {Frame} fr
   */
  function drawStalls(fr) {
    var ctx = fr.ctx;
    (T.stalls || []).forEach(function (st) {
      var a = X(st.s),
        b = X(st.e);
      if (b < fr.x0 || a > fr.x1) return;
      var wd = Math.max(2, b - a);
      ctx.fillStyle = 'rgba(198,40,40,.55)';
      ctx.fillRect(a, AXIS - 4, wd, 4);
      ctx.save();
      ctx.beginPath();
      ctx.rect(a, AXIS, wd, height - AXIS);
      ctx.clip();
      ctx.strokeStyle = 'rgba(198,40,40,.18)';
      ctx.lineWidth = 1;
      for (var x = a - height; x < a + wd; x += 8) {
        ctx.beginPath();
        ctx.moveTo(x, height);
        ctx.lineTo(x + height, 0);
        ctx.stroke();
      }
      ctx.restore();
    });
  }

  /** @param {Frame} fr lock-holding intervals, with a red end where the holder did not release the lock */
  function drawHolds(fr) {
    var ctx = fr.ctx;
    for (var i = 0; i < nLanes; i++) {
      var hs = holdsByLane[i];
      for (var j = 0; j < hs.length; j++) {
        var hk = hs[j];
        var ha = X(T.holds.s[hk]),
          hb = X(T.holds.e[hk]);
        if (hb < fr.x0 || ha > fr.x1) continue;
        ctx.fillStyle = T.holds.k[hk] === 0 ? 'rgba(37,99,235,.16)' : 'rgba(37,99,235,.10)';
        ctx.fillRect(ha, AXIS + i * laneH + 1, Math.max(1, hb - ha), laneH - 2);
        if (T.holds.k[hk] !== 0) {
          /* the lock was not released by this holder: its end is where the client stopped believing it held it */
          ctx.fillStyle = '#c62828';
          ctx.fillRect(hb - 1, AXIS + i * laneH + 1, 2, laneH - 2);
        }
      }
    }
  }

  /**
   * The op bars, coloured by outcome, labelled where they are wide enough. Leaves the bar font set.
   * @param {Frame} fr
   * @returns {number[]} the bars a finding marks or the reader highlighted, for `drawMarks`
   */
  function drawBars(fr) {
    var ctx = fr.ctx,
      barH = fr.barH;
    /** @type {number[]} */
    var marks = [];
    ctx.font = '10.5px ui-monospace, Menlo, Consolas, monospace';
    ctx.textBaseline = 'middle';
    for (var n = 0; n < T.s.length; n++) {
      var a = X(T.s[n]),
        b = X(barEnd(n));
      if (b < fr.x0 - 2 || a > fr.x1 + 2) continue;
      var y = AXIS + T.l[n] * laneH + (laneH - barH) / 2;
      var bw = Math.max(1.5, b - a);
      ctx.fillStyle = OUTCOME_FILL[T.o[n]];
      ctx.fillRect(a, y, bw, barH);
      var m = marked(n);
      if (m || (highlight && highlight.has(T.i[n]))) marks.push(n);
      if (bw > 38 && barH >= 12) {
        ctx.fillStyle = '#0b1b13';
        var label = T.fNames[T.f[n]];
        if (bw > 150 && T.sum[n]) label += ' ' + T.sum[n];
        ctx.save();
        ctx.beginPath();
        ctx.rect(a, y, bw, barH);
        ctx.clip();
        ctx.fillText(label, a + 3, y + barH / 2 + 0.5);
        ctx.restore();
      }
    }
    return marks;
  }

  /** @param {Frame} fr the fault's name on each lane it stopped, over the bars, where there is room */
  function drawStoppedLabels(fr) {
    var ctx = fr.ctx;
    T.faults.forEach(function (f) {
      if (!f.lanes || !f.lanes.length || laneH < 12) return;
      var a = Math.max(X(f.s), fr.x0),
        b = Math.min(X(f.e === null ? end : f.e), fr.x1);
      if (b - a < 60) return;
      ctx.fillStyle = '#5c3a00';
      ctx.font = '600 10.5px system-ui, sans-serif';
      f.lanes.forEach(function (ln) {
        ctx.fillText(f.f + ' (stopped)', a + 6, AXIS + ln * laneH + laneH / 2 + 0.5);
      });
      ctx.font = '10.5px ui-monospace, Menlo, Consolas, monospace';
    });
  }

  /**
   * Findings on top: the bars they mark outlined in their severity's colour, the highlighted ones in black.
   * @param {Frame} fr
   * @param {number[]} marks
   */
  function drawMarks(fr, marks) {
    var ctx = fr.ctx,
      barH = fr.barH;
    /** @type {{ x: number; y: number; role: string }[]} the lost update's writes, for the line joining them */
    var ends = [];
    marks.forEach(function (n) {
      var a = X(T.s[n]),
        b = X(barEnd(n));
      var y = AXIS + T.l[n] * laneH + (laneH - barH) / 2;
      var m = marked(n) || 'note';
      var hl = highlight && highlight.has(T.i[n]);
      var r = hl ? roles.get(T.i[n]) : undefined;
      ctx.strokeStyle = r && r.role === 'erased' ? MARK.bad : hl ? '#111827' : MARK[m];
      ctx.lineWidth = hl ? 2.5 : 2;
      ctx.setLineDash(r && r.role === 'erased' ? [4, 2] : []);
      ctx.strokeRect(a - 1, y - 1, Math.max(3.5, b - a + 2), barH + 2);
      ctx.setLineDash([]);
      if (r) ends.push({ x: b, y: y + barH / 2, role: r.role });
      if (r)
        roleLabel(ctx, r.role === 'erased' ? 'erased #' + r.writeId : 'overwrote it: #' + r.writeId, b + 4, y, r.role);
    });
    joinWrites(ctx, ends);
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
    ctx.font = '600 10.5px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    var w = ctx.measureText(text).width + 6;
    ctx.fillStyle = 'rgba(255,255,255,.92)';
    ctx.fillRect(x, y - 1, w, 14);
    ctx.fillStyle = role === 'erased' ? MARK.bad : '#111827';
    ctx.fillText(text, x + 3, y + 6);
    ctx.font = '10.5px ui-monospace, Menlo, Consolas, monospace';
  }

  /**
   * The erased write joined to the write that erased it: an arrow from the end of each erased one to the end of the
   * overwriting one (the overwriter computed its balance before the erased write committed, and wrote after it).
   * @param {CanvasRenderingContext2D} ctx
   * @param {{ x: number; y: number; role: string }[]} ends
   */
  function joinWrites(ctx, ends) {
    var over = ends.filter(function (e) {
      return e.role === 'overwrote';
    })[0];
    if (!over) return;
    ctx.strokeStyle = MARK.bad;
    ctx.fillStyle = MARK.bad;
    ctx.lineWidth = 1.5;
    ends.forEach(function (e) {
      if (e.role !== 'erased') return;
      ctx.beginPath();
      ctx.moveTo(e.x, e.y);
      ctx.bezierCurveTo(e.x + 30, e.y, over.x - 30, over.y, over.x - 2, over.y);
      ctx.stroke();
      ctx.beginPath();
      ctx.moveTo(over.x - 2, over.y);
      ctx.lineTo(over.x - 9, over.y - 4);
      ctx.lineTo(over.x - 9, over.y + 4);
      ctx.fill();
    });
  }

  /** @param {Frame} fr the axis: its line, the fault names in their colours above the lanes, and the time ticks */
  function drawAxis(fr) {
    var ctx = fr.ctx,
      x0 = fr.x0,
      x1 = fr.x1;
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, fr.w, AXIS - 1);
    ctx.strokeStyle = '#e4e7ec';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(x0, AXIS - 0.5);
    ctx.lineTo(x1, AXIS - 0.5);
    ctx.stroke();
    ctx.font = '600 10.5px system-ui, sans-serif';
    ctx.textBaseline = 'alphabetic';
    /** @type {number[]} where each label row is free from */
    var rowFree = [-Infinity, -Infinity];
    T.faults.forEach(function (f) {
      var a = X(f.s),
        b = X(f.e === null ? end : f.e);
      if (b < x0 || a > x1) return;
      var lx = Math.max(a, x0);
      var bw = Math.max(MIN_BAND, Math.min(b, x1) - lx);
      // The band under the labels, as wide as on the lanes.
      ctx.fillStyle = faultColour(f.f, 0.16);
      ctx.fillRect(lx, 0, bw, AXIS);
      // Its label: a tag in the fault's colour, as wide as the name even where the band is narrower. In the first
      // row that is free at its start; where neither is, it is left out (the legend and the tooltip still name it).
      var tw = ctx.measureText(f.f).width + 8;
      var row = rowFree[0] <= lx ? 0 : rowFree[1] <= lx ? 1 : -1;
      var tagW = Math.max(bw, Math.min(tw, x1 - lx));
      ctx.fillStyle = faultColour(f.f, 1);
      if (row < 0) {
        // No room for its name: a solid mark under the label rows, over nobody's tag.
        ctx.fillRect(lx, FAULT_ROW * 2, bw, 4);
        return;
      }
      ctx.fillRect(lx, row * FAULT_ROW, tagW, FAULT_ROW - 1);
      rowFree[row] = lx + tagW + 3;
      ctx.fillStyle = '#fff';
      ctx.save();
      ctx.beginPath();
      ctx.rect(lx, row * FAULT_ROW, tagW, FAULT_ROW);
      ctx.clip();
      ctx.fillText(f.f, lx + 4, row * FAULT_ROW + 10.5);
      ctx.restore();
    });
    var step = niceStep(view.to - view.from, x1 - x0);
    ctx.fillStyle = '#475467';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'alphabetic';
    for (var t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
      var tx = X(t);
      if (tx > x1 - 30) break;
      ctx.fillRect(tx, AXIS - 6, 1, 5);
      ctx.fillText(tickLabel(t, step), tx + 3, AXIS - 8);
    }
  }

  /**
   * A tick's time, with as many decimals as the step needs.
   * @param {number} t ms
   * @param {number} step ms between ticks
   */
  function tickLabel(t, step) {
    return step >= 1000
      ? (t / 1000).toFixed(0) + ' s'
      : step >= 100
        ? (t / 1000).toFixed(1) + ' s'
        : step >= 10
          ? (t / 1000).toFixed(2) + ' s'
          : (t / 1000).toFixed(3) + ' s';
  }

  /** @param {Frame} fr the gutter: each lane's name, over whatever was drawn left of the plot */
  function drawLaneLabels(fr) {
    var ctx = fr.ctx;
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, fr.x0, height);
    ctx.fillStyle = '#344054';
    ctx.font = (laneH >= 14 ? '600 11.5px' : '600 9px') + ' system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    if (laneH >= 9) for (var i = 0; i < nLanes; i++) ctx.fillText(T.lanes[i], 8, AXIS + i * laneH + laneH / 2);
    ctx.strokeStyle = '#e4e7ec';
    ctx.beginPath();
    ctx.moveTo(fr.x0 - 0.5, 0);
    ctx.lineTo(fr.x0 - 0.5, height);
    ctx.stroke();
  }

  var pending = false;
  function redraw() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      draw();
    });
  }
  /**
   * @param {number} from ms
   * @param {number} to ms
   */
  function setView(from, to) {
    var span = Math.max(0.05, to - from);
    var maxSpan = end * 1.02;
    if (span > maxSpan) span = maxSpan;
    if (from < -end * 0.01) from = -end * 0.01;
    if (from + span > end * 1.01) from = end * 1.01 - span;
    view.from = from;
    view.to = from + span;
    redraw();
  }
  /**
   * @param {number} factor
   * @param {number} [atMs] the time that stays put (default: the middle)
   */
  function zoom(factor, atMs) {
    var c = atMs === undefined ? (view.from + view.to) / 2 : atMs;
    setView(c - (c - view.from) * factor, c + (view.to - c) * factor);
  }

  canvas.addEventListener(
    'wheel',
    function (ev) {
      ev.preventDefault();
      var r = canvas.getBoundingClientRect();
      var factor = Math.exp((ev.deltaY || ev.deltaX) * 0.0015);
      zoom(factor, MS(ev.clientX - r.left));
    },
    { passive: false },
  );
  /** @type {{ x: number; from: number; to: number } | null} */
  var drag = null;
  canvas.addEventListener('mousedown', function (ev) {
    drag = { x: ev.clientX, from: view.from, to: view.to };
    canvas.classList.add('dragging');
  });
  window.addEventListener('mouseup', function () {
    drag = null;
    canvas.classList.remove('dragging');
  });
  window.addEventListener('mousemove', function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x;
    var msPerPx = (drag.to - drag.from) / (width() - GUTTER - 8);
    setView(drag.from - dx * msPerPx, drag.to - dx * msPerPx);
  });
  canvas.addEventListener('dblclick', function () {
    highlight = null;
    setView(0, end);
  });

  /**
   * Whether canvas x `px` is over a fault's band, drawn at least MIN_BAND wide.
   * @param {FaultBand} f
   * @param {number} px
   */
  function overBand(f, px) {
    var a = X(f.s);
    return px >= a && px <= Math.max(X(f.e === null ? end : f.e), a + MIN_BAND);
  }

  /**
   * @typedef {{ fault: FaultBand } | { stall: EncodedTimeline['stalls'][number] } | { op: number } | { hold: number; lane: number }} Hit what is under the mouse
   * @param {number} px
   * @param {number} py
   * @returns {Hit | null}
   */
  function hit(px, py) {
    if (py < AXIS) {
      var t = MS(px);
      for (var i = 0; i < T.faults.length; i++) {
        var f = T.faults[i];
        // The stall strip sits along the axis's bottom edge: there a stall wins over the fault band behind it.
        if (py < AXIS - 4 && overBand(f, px)) return { fault: f };
      }
      var stalls = T.stalls || [];
      for (var si = 0; si < stalls.length; si++)
        if (t >= stalls[si].s && t <= stalls[si].e) return { stall: stalls[si] };
      for (i = 0; i < T.faults.length; i++) {
        f = T.faults[i];
        if (overBand(f, px)) return { fault: f };
      }
      return null;
    }
    var lane = Math.floor((py - AXIS) / laneH);
    if (lane < 0 || lane >= nLanes || px < GUTTER) return null;
    var best = null,
      bestW = Infinity;
    var ids = byLane[lane];
    for (var j = 0; j < ids.length; j++) {
      var k = ids[j];
      var a = X(T.s[k]) - 3,
        b = X(barEnd(k)) + 3;
      if (px >= a && px <= b && b - a < bestW) {
        best = k;
        bestW = b - a;
      }
    }
    if (best !== null) return { op: best };
    var hs = holdsByLane[lane];
    var tm = MS(px);
    for (j = 0; j < hs.length; j++)
      if (tm >= T.holds.s[hs[j]] && tm <= T.holds.e[hs[j]]) return { hold: hs[j], lane: lane };
    return null;
  }

  /**
   * @param {Hit} h
   * @param {number} cx
   * @param {number} cy
   */
  function showTip(h, cx, cy) {
    tip.textContent = '';
    if ('op' in h) opTip(h.op);
    else if ('fault' in h) faultTip(h.fault);
    else if ('stall' in h) {
      tip.appendChild(el('div', 't', h.stall.label));
      tip.appendChild(
        el('div', 'd', fmtS(h.stall.s) + ' → ' + fmtS(h.stall.e) + '  (' + fmtDur(h.stall.e - h.stall.s) + ')'),
      );
    } else if ('hold' in h) holdTip(h.hold, h.lane);
    tip.style.display = 'block';
    /* fixed to the viewport so a tip near the bottom lanes is not cut off by the timeline's frame */
    var vw = document.documentElement.clientWidth,
      vh = document.documentElement.clientHeight;
    var tw = tip.offsetWidth,
      th = tip.offsetHeight;
    var left = cx + 14,
      top = cy + 16;
    if (left + tw > vw - 4) left = Math.max(4, cx - tw - 14);
    if (top + th > vh - 4) top = Math.max(4, cy - th - 12);
    tip.style.left = left + 'px';
    tip.style.top = top + 'px';
  }

  /** @param {number} k the bar: its process, lane, op and outcome, its times, its summary and the JSON of its ops */
  function opTip(k) {
    var e = T.e[k];
    tip.appendChild(
      el(
        'div',
        't',
        T.procs[T.p[k]] +
          ' (' +
          T.lanes[T.l[k]] +
          ') ' +
          T.fNames[T.f[k]] +
          ' → ' +
          OUTCOME_NAME[T.o[k]] +
          '   (history #' +
          T.i[k] +
          ')',
      ),
    );
    tip.appendChild(
      el('div', 'd', fmtS(T.s[k]) + ' → ' + (e < 0 ? 'never completed' : fmtS(e) + '  (' + fmtDur(e - T.s[k]) + ')')),
    );
    if (T.sum[k]) tip.appendChild(el('div', '', T.sum[k]));
    var m = marked(k);
    if (m)
      tip.appendChild(
        el(
          'div',
          'd',
          m === 'bad'
            ? 'part of an anomaly (see “What happened”)'
            : m === 'good'
              ? 'a safety mechanism worked here'
              : 'mentioned in “What happened”',
        ),
      );
    var det = T.detail[T.i[k]];
    if (det) {
      if (det[0]) tip.appendChild(el('pre', '', det[0]));
      if (det[1]) tip.appendChild(el('pre', '', det[1]));
    }
  }

  /** @param {FaultBand} f */
  function faultTip(f) {
    tip.appendChild(el('div', 't', f.label));
    tip.appendChild(
      el('div', 'd', fmtS(f.s) + ' → ' + (f.e === null ? 'not healed' : fmtS(f.e) + '  (' + fmtDur(f.e - f.s) + ')')),
    );
    if (f.note) tip.appendChild(el('div', '', f.note));
  }

  /**
   * @param {number} hk the hold
   * @param {number} lane
   */
  function holdTip(hk, lane) {
    var kind = [
      'released',
      'release found the lock was no longer ours',
      'never released (unknown outcome or run ended)',
    ][T.holds.k[hk]];
    tip.appendChild(el('div', 't', T.procs[T.holds.p[hk]] + ' (' + T.lanes[lane] + ') believed it held the lock'));
    tip.appendChild(
      el(
        'div',
        'd',
        fmtS(T.holds.s[hk]) +
          ' → ' +
          fmtS(T.holds.e[hk]) +
          '  (' +
          fmtDur(T.holds.e[hk] - T.holds.s[hk]) +
          '), ' +
          kind,
      ),
    );
  }

  canvas.addEventListener('mousemove', function (ev) {
    if (drag) {
      tip.style.display = 'none';
      return;
    }
    var r = canvas.getBoundingClientRect();
    var px = ev.clientX - r.left,
      py = ev.clientY - r.top;
    var h = hit(px, py);
    if (h) showTip(h, ev.clientX, ev.clientY);
    else tip.style.display = 'none';
  });
  canvas.addEventListener('mouseleave', function () {
    tip.style.display = 'none';
  });

  Array.prototype.forEach.call(document.querySelectorAll('[data-zoom]'), function (b) {
    b.addEventListener('click', function () {
      var z = b.getAttribute('data-zoom');
      if (z === 'in') zoom(0.5);
      else if (z === 'out') zoom(2);
      else if (z === 'reset') {
        highlight = null;
        setView(0, end);
      } else if (z === 'faults' && T.faults.length) {
        var a = Math.min.apply(
          null,
          T.faults.map(function (f) {
            return f.s;
          }),
        );
        var b2 = Math.max.apply(
          null,
          T.faults.map(function (f) {
            return f.e === null ? end : f.e;
          }),
        );
        var pad = Math.max(200, (b2 - a) * 0.2);
        setView(a - pad, b2 + pad);
      }
    });
  });

  /* links from findings: zoom the timeline to the finding and outline its ops */
  Array.prototype.forEach.call(document.querySelectorAll('a.goto'), function (a) {
    a.addEventListener('click', function (/** @type {MouseEvent} */ ev) {
      ev.preventDefault();
      var ops = (a.getAttribute('data-ops') || '').split(',').filter(Boolean).map(Number);
      highlight = new Set(ops);
      roles = new Map();
      (a.getAttribute('data-roles') || '')
        .split(',')
        .filter(Boolean)
        .forEach(function (/** @type {string} */ r) {
          var parts = r.split(':');
          roles.set(Number(parts[0]), { role: parts[1], writeId: parts[2] });
        });
      setView(Number(a.getAttribute('data-from')), Number(a.getAttribute('data-to')));
      /** @type {HTMLElement} */ (document.getElementById('timeline')).scrollIntoView({
        behavior: 'smooth',
        block: 'start',
      });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll('[data-copy]'), function (b) {
    b.addEventListener('click', function () {
      var text =
        /** @type {HTMLElement} */ (document.getElementById(b.getAttribute('data-copy') || '')).textContent || '';
      if (navigator.clipboard)
        navigator.clipboard.writeText(text).then(
          function () {
            b.textContent = 'copied';
          },
          function () {
            b.textContent = 'select it';
          },
        );
    });
  });

  /* ---------- charts ---------- */
  /** @type {{ u: any; id: string }[]} each chart (a uPlot) and the id of its node */
  var charts = [];
  function bandsPlugin() {
    return {
      hooks: {
        drawClear: [
          function (/** @type {any} */ u) {
            var ctx = u.ctx,
              top = u.bbox.top,
              hgt = u.bbox.height;
            ctx.save();
            T.faults.forEach(function (f) {
              var a = u.valToPos(f.s / 1000, 'x', true),
                b = u.valToPos((f.e === null ? end : f.e) / 1000, 'x', true);
              var l = Math.max(a, u.bbox.left),
                r = Math.min(b, u.bbox.left + u.bbox.width);
              if (r <= l) return;
              ctx.fillStyle = faultColour(f.f, 0.16);
              ctx.fillRect(l, top, r - l, hgt);
            });
            ctx.restore();
          },
        ],
      },
    };
  }
  /** @param {string} id */
  function chartWidth(id) {
    return Math.max(320, /** @type {HTMLElement} */ (document.getElementById(id)).clientWidth || 600);
  }
  /**
   * One uPlot chart in node `id`, with the fault bands behind its series; 'no data' when there are no points.
   * @param {string} id
   * @param {import('../chart-data.ts').XY | null} data
   * @param {object[]} series uPlot series options, one per `data.series`
   * @param {object} [yScale] uPlot scale options for y
   * @param {number} [height] px
   */
  function makeChart(id, data, series, yScale, height) {
    var node = document.getElementById(id);
    if (!node || !data || !data.x.length) {
      if (node) node.textContent = 'no data';
      return;
    }
    var opts = {
      width: chartWidth(id),
      height: height || 230,
      plugins: [bandsPlugin()],
      cursor: { sync: { key: 'fp' } },
      scales: { x: { time: false }, y: yScale || {} },
      axes: [{ label: 's since start', size: 36, labelSize: 14 }, { size: 56 }],
      series: /** @type {object[]} */ ([
        {
          label: 's',
          value: function (/** @type {unknown} */ u, /** @type {number | null | undefined} */ v) {
            return v === null || v === undefined ? '–' : v.toFixed(3);
          },
        },
      ]).concat(series),
    };
    var u = new uPlot(
      opts,
      /** @type {(number | null)[][]} */ ([data.x]).concat(
        data.series.map(function (s) {
          return s.values;
        }),
      ),
      node,
    );
    charts.push({ u: u, id: id });
  }
  var L = D.latency;
  var latColours = ['#2563eb', '#dc6803', '#93c5fd', '#fdb022'];
  if (L.mode === 'points') {
    makeChart(
      'chart-latency',
      L,
      L.series.map(function (s, i) {
        return {
          label: s.label,
          stroke: latColours[i],
          fill: latColours[i],
          paths: function () {
            return null;
          },
          points: { show: true, size: 4, width: 0, fill: latColours[i] },
        };
      }),
      { distr: 3 },
    );
  } else {
    makeChart(
      'chart-latency',
      L,
      L.series.map(function (s, i) {
        var c = ['#2563eb', '#93c5fd', '#dc6803', '#fdb022'][i];
        return { label: s.label, stroke: c, width: 1.25, spanGaps: false };
      }),
      { distr: 3 },
    );
  }
  var TP = D.throughput;
  makeChart(
    'chart-throughput',
    TP,
    TP.series.map(function (s, i) {
      return {
        label: s.label,
        stroke: ['#12b76a', '#f79009', '#7a5af8'][i],
        width: 1.5,
        fill: i === 0 ? 'rgba(18,183,106,.08)' : undefined,
      };
    }),
  );
  if (D.clock) {
    var C = D.clock;
    var palette = ['#6366f1', '#ec4899', '#14b8a6', '#f59e0b', '#84cc16', '#64748b'];
    makeChart(
      'chart-clock',
      C,
      C.series.map(function (s, i) {
        return {
          label: s.label,
          stroke: palette[i % palette.length],
          width: 1.5,
          paths: uPlot.paths.stepped({ align: 1 }),
        };
      }),
      {},
      200,
    );
  }

  function onResize() {
    redraw();
    charts.forEach(function (c) {
      c.u.setSize({ width: chartWidth(c.id), height: c.u.height });
    });
  }
  if (typeof ResizeObserver === 'function')
    new ResizeObserver(function () {
      onResize();
    }).observe(document.body);
  else window.addEventListener('resize', onResize);
  draw();
  /* For tests and for poking at a report from the devtools console: where a bar is, and how many there are. */
  window.__fencepost = {
    view: view,
    setView: setView,
    charts: charts.length,
    bars: T.s.length,
    /* zoom to the op whose invocation has this history index; returns the bar's centre in client coordinates */
    focus: function (/** @type {number} */ historyIndex) {
      var k = T.i.indexOf(historyIndex);
      if (k < 0) return null;
      var a = T.s[k],
        b = barEnd(k),
        pad = Math.max(20, (b - a) * 2);
      setView(a - pad, b + pad);
      draw();
      var r = canvas.getBoundingClientRect();
      return { x: r.left + (X(a) + X(b)) / 2, y: r.top + AXIS + T.l[k] * laneH + laneH / 2 };
    },
  };
})();
