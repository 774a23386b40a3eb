// @ts-check
'use strict';
/*
 * fencepost report: draws the timeline (canvas) and the charts (uPlot) from the JSON in #fp-data, and wires them to
 * the mouse, the zoom buttons and the findings' links. The scripts before this one declare the pieces (page-data.js
 * lists them); this one runs them. Every string that came from the history reaches the DOM through textContent or
 * canvas fillText, never innerHTML. No network, no storage: the page works from file://.
 */
(function () {
  let framePending = false;
  /** The next frame draws the timeline once, however many changes asked for it before. */
  function redraw() {
    if (framePending) return;
    framePending = true;
    requestAnimationFrame(function () {
      framePending = false;
      drawTimeline();
    });
  }
  /**
   * Shows `from`…`to`, kept to at least 0.05 ms and at most the run with 1 % either side.
   * @param {number} from ms
   * @param {number} to ms
   */
  function setView(from, to) {
    let span = Math.max(0.05, to - from);
    const maxSpan = runEnd * 1.02;
    if (span > maxSpan) span = maxSpan;
    if (from < -runEnd * 0.01) from = -runEnd * 0.01;
    if (from + span > runEnd * 1.01) from = runEnd * 1.01 - span;
    view.from = from;
    view.to = from + span;
    redraw();
  }
  /**
   * @param {number} factor
   * @param {number} [atMs] the time that stays put (default: the middle)
   */
  function zoom(factor, atMs) {
    const centre = atMs === undefined ? (view.from + view.to) / 2 : atMs;
    setView(centre - (centre - view.from) * factor, centre + (view.to - centre) * factor);
  }
  function resetView() {
    selection.ops = null;
    setView(0, runEnd);
  }

  const canvas = timelineCanvas;
  canvas.addEventListener(
    'wheel',
    function (ev) {
      ev.preventDefault();
      const box = canvas.getBoundingClientRect();
      zoom(Math.exp((ev.deltaY || ev.deltaX) * 0.0015), toMs(ev.clientX - box.left));
    },
    { passive: false },
  );
  /** @type {{ x: number; from: number; to: number } | null} where a drag started, and the view then */
  let drag = null;
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
    const dx = ev.clientX - drag.x;
    const msPerPx = (drag.to - drag.from) / (canvasWidth() - GUTTER - PAD_RIGHT);
    setView(drag.from - dx * msPerPx, drag.to - dx * msPerPx);
  });
  canvas.addEventListener('dblclick', resetView);
  canvas.addEventListener('mousemove', function (ev) {
    if (drag) {
      timelineTip.style.display = 'none';
      return;
    }
    const box = canvas.getBoundingClientRect();
    const hit = hitAt(ev.clientX - box.left, ev.clientY - box.top);
    if (hit) showTip(hit, ev.clientX, ev.clientY);
    else timelineTip.style.display = 'none';
  });
  canvas.addEventListener('mouseleave', function () {
    timelineTip.style.display = 'none';
  });

  Array.prototype.forEach.call(document.querySelectorAll('[data-zoom]'), function (button) {
    button.addEventListener('click', function () {
      const how = button.getAttribute('data-zoom');
      if (how === 'in') zoom(0.5);
      else if (how === 'out') zoom(2);
      else if (how === 'reset') resetView();
      else if (how === 'faults' && timeline.faults.length) zoomToFaults();
    });
  });
  /** From the first fault's start to the last one's end, with a fifth (at least 200 ms) either side. */
  function zoomToFaults() {
    const from = Math.min(...timeline.faults.map((fault) => fault.s));
    const to = Math.max(...timeline.faults.map(bandEnd));
    const pad = Math.max(200, (to - from) * 0.2);
    setView(from - pad, to + pad);
  }

  /* links from findings: zoom the timeline to the finding and outline its ops */
  Array.prototype.forEach.call(document.querySelectorAll('a.goto'), function (link) {
    link.addEventListener('click', function (/** @type {MouseEvent} */ ev) {
      ev.preventDefault();
      selection.ops = new Set((link.getAttribute('data-ops') || '').split(',').filter(Boolean).map(Number));
      selection.roles = new Map();
      (link.getAttribute('data-roles') || '')
        .split(',')
        .filter(Boolean)
        .forEach(function (/** @type {string} */ entry) {
          const [index, role, writeId] = entry.split(':');
          selection.roles.set(Number(index), { role, writeId });
        });
      setView(Number(link.getAttribute('data-from')), Number(link.getAttribute('data-to')));
      /** @type {HTMLElement} */ (document.getElementById('timeline')).scrollIntoView({
        behavior: 'smooth',
        block: 'start',
      });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll('[data-copy]'), function (button) {
    button.addEventListener('click', function () {
      const source = /** @type {HTMLElement} */ (document.getElementById(button.getAttribute('data-copy') || ''));
      const text = source.textContent || '';
      if (navigator.clipboard)
        navigator.clipboard.writeText(text).then(
          function () {
            button.textContent = 'copied';
          },
          function () {
            button.textContent = 'select it';
          },
        );
    });
  });

  drawCharts();
  function onResize() {
    redraw();
    resizeCharts();
  }
  if (typeof ResizeObserver === 'function')
    new ResizeObserver(function () {
      onResize();
    }).observe(document.body);
  else window.addEventListener('resize', onResize);
  drawTimeline();
  /* For tests and for poking at a report from the devtools console: where a bar is, and how many there are. */
  window.__fencepost = {
    view,
    setView,
    charts: charts.length,
    bars: timeline.s.length,
    /* zoom to the op whose invocation has this history index; returns the bar's centre in client coordinates */
    focus: function (/** @type {number} */ historyIndex) {
      const bar = timeline.i.indexOf(historyIndex);
      if (bar < 0) return null;
      const start = timeline.s[bar],
        end = barEnd(bar),
        pad = Math.max(20, (end - start) * 2);
      setView(start - pad, end + pad);
      drawTimeline();
      const box = canvas.getBoundingClientRect();
      return { x: box.left + (toX(start) + toX(end)) / 2, y: box.top + laneMiddle(bar) };
    },
  };
})();
