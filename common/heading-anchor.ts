/**
 * GitHub's anchor for a markdown heading: lower case, backticks and punctuation dropped, spaces to hyphens. The one
 * spelling of the rule: the generated pages link by it (matrix/choosing-page.ts) and test/doc-paths.test.ts resolves
 * every `page.md#anchor` cite by it.
 */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
