/** What the report's scripts find on the page besides the DOM and each other: uPlot, inlined before them (assets.ts). */
declare const uPlot: any;

interface Window {
  /** Set by report.js for tests and the devtools console (report.browser.test.ts reads it). */
  __fencepost: unknown;
}
