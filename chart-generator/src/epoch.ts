/** The time packages and indexes carry: SOURCE_DATE_EPOCH, else a fixed default, so output is reproducible. */

/** Default time of archive entries and of `created` in index.yaml: 2024-01-01T00:00:00Z. */
export const DEFAULT_EPOCH = 1_704_067_200;

/** `SOURCE_DATE_EPOCH`-style value → seconds, or the default. */
export function parseEpoch(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_EPOCH;
  if (!/^\d+$/.test(value)) throw new Error(`not a Unix time in seconds: ${value}`);
  return Number(value);
}
