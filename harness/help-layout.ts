/**
 * How help text is laid out on a terminal: words wrapped to its width, and two columns (an option or a name, then
 * what it does) whose right column wraps under itself. Help lines ran to 345 characters; an 80-column terminal
 * broke each option into three or four unindented pieces.
 */

/** The width help is wrapped to: the terminal's, kept between 60 and 120 columns; 100 when stdout is not one. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  const columns = stream.isTTY && stream.columns ? stream.columns : 100;
  return Math.max(60, Math.min(columns, 120));
}

/** `text` in lines of at most `width` characters: the first starts at `first` spaces, the others at `indent`. */
export function wrapText(text: string, width: number, indent: number, first = indent): string[] {
  const lines: string[] = [];
  let line = ' '.repeat(first);
  let empty = true;
  for (const word of words(text, width - indent)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = ' '.repeat(indent);
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

/**
 * Rows of a name and its text: the name at `indent`, the text from column `indent + left` wrapped under itself; a
 * name too long for its column gets a line of its own.
 */
export function twoColumns(
  rows: readonly (readonly [string, string])[],
  width: number,
  left = 30,
  indent = 2,
): string[] {
  const at = indent + left;
  return rows.flatMap(([name, text]) => {
    const head = `${' '.repeat(indent)}${name}`;
    if (head.length >= at) return [head, ...(text ? wrapText(text, width, at) : [])];
    const [firstLine, ...rest] = wrapText(text, width, at, at);
    return [head + firstLine.slice(head.length), ...rest];
  });
}

/** The words of `text`; one longer than `room` is cut after its commas and bars (a list written without spaces). */
function words(text: string, room: number): string[] {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((w) => (w.length > room ? (w.match(/[^,|]+[,|]?/g) ?? [w]) : [w]));
}
