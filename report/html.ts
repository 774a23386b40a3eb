/**
 * The only two ways data reaches a page: as text (escaped here) or as JSON inside
 * `<script type="application/json">` (escaped here too), which the page's script reads with JSON.parse and puts
 * into the DOM with textContent. History strings are written by clients, faults and plugins: never trusted.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or attribute value → HTML. Safe inside element content and inside double- or single-quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/**
 * A value → JSON that cannot end its `<script>` element: `<` becomes `\u003c` (so no `</script>` or `<!--`),
 * and U+2028/U+2029 are escaped for old parsers. JSON.parse gives back the same value.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** `<script type="application/json" id=…>` holding `value`. */
export function jsonBlock(id: string, value: unknown): string {
  return `<script type="application/json" id="${escapeHtml(id)}">${scriptJson(value)}</script>`;
}

/** Inline code (uPlot, our own script) must not contain `</script`; ours doesn't, but a future uPlot could. */
export function inlineScript(code: string): string {
  return `<script>${code.replace(/<\/script/gi, '<\\/script')}</script>`;
}

export function inlineStyle(css: string): string {
  return `<style>${css.replace(/<\/style/gi, '<\\/style')}</style>`;
}
