import { HarnessError } from './errors.ts';
import { isRecord } from './is-record.ts';

/**
 * What each field of a stored object holds, one sentence per field, keyed by the type's own fields: a field added to
 * the type without its sentence, or a sentence for a field the type no longer has, does not compile. The docs' field
 * table is written from it (`fieldTableMarkdown`), so type and table cannot drift apart.
 */
export type FieldDocs<T> = { readonly [K in keyof Required<T> & string]: string | FieldRow };

/** A field's row when its table says more: whether a file must have it, and what its absence means. */
export interface FieldRow {
  what: string;
  required: boolean;
  /** What a file without it gets (`—`: nothing). */
  without: string;
}

/**
 * One stored file's format, declared once beside its type: its name on disk, the version rule (the field that
 * carries the number, today's number, and what each version changed), what every field holds, and its one decoder —
 * the only place an older version is read into today's shape. Every reader of the file goes through `decode`;
 * `npm run docs:generate` writes the docs' table from the rest (Jepsen's `store/format.clj` keeps its version rule
 * beside its reader the same way).
 */
export interface FileFormat<T, Decoded = T> {
  /** The file's name on disk (or its pattern: `nightly*.json`). */
  file: string;
  /** What the file is, in a sentence. */
  what: string;
  /** The field the version number is written in; null when the file has none (a bare list): `versions` says how it is told apart. */
  versionField: string | null;
  /** Today's version: what this code writes, and the newest it reads. */
  current: number;
  /** Every version this code reads, oldest first, with what it changed: a bump is a line here, and a branch in `decode`. */
  versions: readonly { version: number; what: string }[];
  /** The top-level fields, or each element's when the file is a list. */
  fields: FieldDocs<T>;
  /** Fields of a nested part, each under a heading of its own (`cells[]`, `strategy`). */
  parts?: readonly { name: string; what: string; fields: Readonly<Record<string, string | FieldRow>> }[];
  /** The value as parsed, of any version this code reads, in today's shape; a newer version or a bad value throws. */
  decode: (raw: unknown, file: string) => Decoded;
}

/**
 * `format`, checked by the compiler against `FieldDocs`, and its newest listed version against `current`. `Decoded` is what the decoder
 * gives when it is not the written shape itself (test.json's decoder passes a record on for tolerant readers).
 */
export function defineFormat<T, Decoded = T>(format: FileFormat<T, Decoded>): FileFormat<T, Decoded> {
  // The version rule and its history are one fact: a bump without its line (or a line without the bump) is refused
  // when the module loads, so no test or run can miss it.
  const last = format.versions.at(-1)?.version;
  if (last !== format.current)
    throw new Error(`${format.file}: current is ${format.current} but its last listed version is ${last}`);
  return format;
}

/**
 * The version `raw` says it has (its `versionField`): 0 when it says none (a file from before the number). A version
 * newer than this code's is refused rather than misread: the user's next step is a newer fencepost.
 */
export function versionOf(
  format: { versionField: string | null; current: number },
  raw: unknown,
  file: string,
): number {
  const field = format.versionField;
  if (field === null || !isRecord(raw) || raw[field] === undefined) return 0;
  const v = raw[field];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new HarnessError(
      'bad-arguments',
      `${file} has ${field} ${JSON.stringify(v)}, which is not a ${field} number.`,
      {
        hint: `the file was edited or is not a fencepost run record; re-run to get a fresh one`,
      },
    );
  if (v > format.current)
    throw new HarnessError(
      'bad-arguments',
      `${file} has ${field} ${v}, newer than this fencepost reads (up to ${format.current}): it was written by a newer fencepost.`,
      { hint: 'read it with the fencepost that wrote it, or update this one (git pull && npm ci)' },
    );
  return v;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A table of fields: `field | what it is`, or with `required` and `without it` columns when a row has them. */
function table(fields: Readonly<Record<string, string | FieldRow>>): string[] {
  const rows = Object.entries(fields);
  if (rows.every(([, v]) => typeof v === 'string'))
    return ['| field | what it is |', '|---|---|', ...rows.map(([k, v]) => `| \`${k}\` | ${cell(v as string)} |`)];
  const full = (v: string | FieldRow): FieldRow =>
    typeof v === 'string' ? { what: v, required: false, without: '—' } : v;
  return [
    '| field | required | what it says | without it |',
    '|---|---|---|---|',
    ...rows.map(([k, v]) => {
      const r = full(v);
      return `| \`${k}\` | ${r.required ? 'yes' : 'no'} | ${cell(r.what)} | ${cell(r.without)} |`;
    }),
  ];
}

/** The docs' section for a format: what it is, its version rule and history, and a table of its fields. */
export function fieldTableMarkdown(format: FileFormat<never, unknown>): string {
  const versions = format.versions.map((v) => `${v.version} — ${v.what}`).join('; ');
  const out = [
    `\`${format.file}\`: ${format.what} ` +
      (format.versionField === null
        ? `It carries no version number. Versions: ${versions}.`
        : `Its \`${format.versionField}\` is ${format.current}. Versions: ${versions}.`),
    '',
    ...table(format.fields as Record<string, string | FieldRow>),
  ];
  for (const p of format.parts ?? []) out.push('', `\`${p.name}\`: ${p.what}`, '', ...table(p.fields));
  return out.join('\n');
}
