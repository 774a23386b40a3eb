/** What report.js finds on the page besides the DOM: uPlot, inlined before it (see assets.ts). */
declare const uPlot: any;

interface Window {
  /** Set by report.js for tests and the devtools console (report.browser.test.ts reads it). */
  __fencepost: unknown;
}
