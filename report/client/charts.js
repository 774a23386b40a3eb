// @ts-check
'use strict';
/* exported charts, drawCharts, resizeCharts */
/*
 * The latency, throughput and clock charts (uPlot, inlined before these scripts), with the run's fault windows
 * shaded behind their series as on the timeline. Their cursors move together.
 */

/** @type {{ plot: any; id: string }[]} each chart (a uPlot) and the id of its node */
const charts = [];

/** The charts from the page's data, in the nodes report-page.ts left for them. */
function drawCharts() {
  drawLatencyChart(pageData.latency);
  const throughput = pageData.throughput;
  makeChart(
    'chart-throughput',
    throughput,
    throughput.series.map(function (series, i) {
      return {
        label: series.label,
        stroke: ['#12b76a', '#f79009', '#7a5af8'][i],
        width: 1.5,
        fill: i === 0 ? 'rgba(18,183,106,.08)' : undefined,
      };
    }),
  );
  const clock = pageData.clock;
  if (clock) {
    const palette = ['#6366f1', '#ec4899', '#14b8a6', '#f59e0b', '#84cc16', '#64748b'];
    makeChart(
      'chart-clock',
      clock,
      clock.series.map(function (series, i) {
        return {
          label: series.label,
          stroke: palette[i % palette.length],
          width: 1.5,
          paths: uPlot.paths.stepped({ align: 1 }),
        };
      }),
      {},
      200,
    );
  }
}

/**
 * Every ok op as a dot, or per bucket a line for p50 and one for max (see chart-data.ts); log scale either way.
 * @param {import('../chart-data.ts').LatencyData} latency
 */
function drawLatencyChart(latency) {
  if (latency.mode === 'points') {
    const colours = ['#2563eb', '#dc6803', '#93c5fd', '#fdb022'];
    makeChart(
      'chart-latency',
      latency,
      latency.series.map(function (series, i) {
        return {
          label: series.label,
          stroke: colours[i],
          fill: colours[i],
          paths: function () {
            return null;
          },
          points: { show: true, size: 4, width: 0, fill: colours[i] },
        };
      }),
      { distr: 3 },
    );
  } else {
    const colours = ['#2563eb', '#93c5fd', '#dc6803', '#fdb022'];
    makeChart(
      'chart-latency',
      latency,
      latency.series.map(function (series, i) {
        return { label: series.label, stroke: colours[i], width: 1.25, spanGaps: false };
      }),
      { distr: 3 },
    );
  }
}

/** Each chart as wide as its node again, after the page's width changed. */
function resizeCharts() {
  charts.forEach(function (chart) {
    chart.plot.setSize({ width: chartWidth(chart.id), height: chart.plot.height });
  });
}

/** A uPlot plugin: the fault windows, shaded behind the series. */
function faultBandsPlugin() {
  return {
    hooks: {
      drawClear: [
        function (/** @type {any} */ plot) {
          const ctx = plot.ctx,
            box = plot.bbox;
          ctx.save();
          timeline.faults.forEach(function (fault) {
            const startX = plot.valToPos(fault.s / 1000, 'x', true),
              endX = plot.valToPos(bandEnd(fault) / 1000, 'x', true);
            const left = Math.max(startX, box.left),
              right = Math.min(endX, box.left + box.width);
            if (right <= left) return;
            ctx.fillStyle = faultColour(fault.f, 0.16);
            ctx.fillRect(left, box.top, right - left, box.height);
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
  const node = document.getElementById(id);
  if (!node || !data || !data.x.length) {
    if (node) node.textContent = 'no data';
    return;
  }
  const options = {
    width: chartWidth(id),
    height: height || 230,
    plugins: [faultBandsPlugin()],
    cursor: { sync: { key: 'fp' } },
    scales: { x: { time: false }, y: yScale || {} },
    axes: [{ label: 's since start', size: 36, labelSize: 14 }, { size: 56 }],
    series: /** @type {object[]} */ ([
      {
        label: 's',
        value: function (/** @type {unknown} */ _plot, /** @type {number | null | undefined} */ v) {
          return v === null || v === undefined ? '–' : v.toFixed(3);
        },
      },
    ]).concat(series),
  };
  const columns = /** @type {(number | null)[][]} */ ([data.x]).concat(
    data.series.map(function (s) {
      return s.values;
    }),
  );
  charts.push({ plot: new uPlot(options, columns, node), id });
}
