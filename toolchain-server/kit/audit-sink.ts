/**
 * Log lines: one JSON object per line on stdout. Audit records are typed by a field table (name → meaning)
 * that the docs are checked against.
 */

/** Where log lines go: one JSON object per line. */
export type LogSink = (line: Readonly<Record<string, unknown>>) => void;

export const stdoutSink: LogSink = (line) => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

/** A sink that keeps lines in memory (tests, and callers that forward elsewhere). */
export function memorySink(): LogSink & { readonly lines: Readonly<Record<string, unknown>>[] } {
  const lines: Readonly<Record<string, unknown>>[] = [];
  const sink = (line: Readonly<Record<string, unknown>>) => {
    lines.push(line);
  };
  return Object.assign(sink, { lines });
}

/** Field names of an audit table, in table order (the order lines are written in). */
export function auditFieldNames<T extends Readonly<Record<string, string>>>(fields: T): (keyof T & string)[] {
  return Object.keys(fields) as (keyof T & string)[];
}

/**
 * Writes one audit record with its fields in table order; a field missing from the record is written as
 * null, so every line has the same shape.
 */
export function writeAudit<T extends Readonly<Record<string, string>>>(
  sink: LogSink,
  fields: T,
  record: { readonly [K in keyof T]?: unknown },
): void {
  const line: Record<string, unknown> = {};
  for (const name of Object.keys(fields)) line[name] = (record as Record<string, unknown>)[name] ?? null;
  sink(line);
}
