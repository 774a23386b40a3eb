/**
 * JSON.parse that also remembers the line of every value, by its path (`cells[2].expect` → 7), so an error about a
 * user's file can name the line to fix. A syntax error says its line and column instead of an offset.
 */
export interface LocatedJson {
  value: unknown;
  /** 1-based line where the value at each path starts; the root is ''. */
  lineOf: Map<string, number>;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** Deeper than any file of ours needs; the parser recurses, and a 100 000-deep file must be an answer, not a stack overflow. */
export const MAX_JSON_DEPTH = 64;

export function parseJsonWithLines(text: string): LocatedJson {
  const lineOf = new Map<string, number>();
  let depth = 0;
  let i = 0;
  let line = 1;
  let lineStart = 0;

  const fail = (what: string): never => {
    const near = i < text.length ? `"${text[i]}"` : 'the end of the file';
    throw new JsonSyntaxError(`${what} at ${near}`, line, i - lineStart + 1);
  };
  const skip = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) {
      if (text[i] === '\n') {
        line++;
        lineStart = i + 1;
      }
      i++;
    }
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\n') fail('a line break inside a string');
      i += text[i] === '\\' ? 2 : 1;
    }
    if (i >= text.length) fail('an unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (at: string): unknown => {
    skip();
    lineOf.set(at, line);
    const c = text[i];
    if ((c === '{' || c === '[') && ++depth > MAX_JSON_DEPTH) fail(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
    try {
      return container(at, c);
    } finally {
      if (c === '{' || c === '[') depth--;
    }
  };
  const container = (at: string, c: string | undefined): unknown => {
    if (c === '{') {
      i++;
      const out: Record<string, unknown> = {};
      skip();
      if (text[i] === '}') return (i++, out);
      for (;;) {
        skip();
        if (text[i] !== '"') fail('expected a "quoted" key');
        const key = str();
        skip();
        if (text[i] !== ':') fail(`expected ":" after "${key}"`);
        i++;
        // defineProperty: a "__proto__" key is a key, as in JSON.parse, not the object's prototype.
        Object.defineProperty(out, key, {
          value: value(at ? `${at}.${key}` : key),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        skip();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return (i++, out);
        else fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const out: unknown[] = [];
      skip();
      if (text[i] === ']') return (i++, out);
      for (;;) {
        out.push(value(`${at}[${out.length}]`));
        skip();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return (i++, out);
        else fail('expected "," or "]"');
      }
    }
    if (c === '"') return str();
    const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 64));
    if (!m) return fail('expected a value');
    i += m[0].length;
    return JSON.parse(m[0]) as unknown;
  };

  const v = value('');
  skip();
  if (i < text.length) fail('unexpected text after the JSON value');
  return { value: v, lineOf };
}
