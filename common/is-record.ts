/** A plain JSON object (not null, not an array): what a reader of stored JSON checks before reading fields. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
