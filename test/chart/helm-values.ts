/**
 * Helm's values merging, for validating values against values.schema.json as Helm does (Helm validates the
 * merged values, not each file): `-f` files are deep-merged in order (helm/pkg/cli/values mergeMaps: maps
 * merge, anything else — lists, scalars, null — replaces), then coalesced with the chart's defaults
 * (chartutil.CoalesceValues): the user's values win, maps merge, lists replace, a user `null` deletes a key
 * the defaults have and stays `null` where they have none. test/chart/helm-values.test.ts checks it against
 * hand-written cases and against the merged values the real Helm 3 and Helm 4 render.
 */
type Json = Record<string, unknown>;

function isMap(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function copy<T>(value: T): T {
  return structuredClone(value);
}

/** helm/pkg/cli/values mergeMaps: `b` over `a`; nested maps merge, everything else replaces. */
export function mergeMaps(a: Json, b: Json): Json {
  const out: Json = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = out[key];
    out[key] = isMap(value) && isMap(existing) ? mergeMaps(existing, value) : value;
  }
  return out;
}

/** chartutil.CoalesceTables: `src` (defaults) into `dst` (user values), in place; `dst` wins. */
function coalesceTables(dst: Json, src: Json): void {
  for (const [key, value] of Object.entries(src)) {
    if (!(key in dst)) dst[key] = value;
    else if (dst[key] === null) delete dst[key];
    else if (isMap(value) && isMap(dst[key])) coalesceTables(dst[key] as Json, value);
    // A map meeting a non-map: the user's value stands (Helm logs a warning).
  }
}

/** chartutil.CoalesceValues for a chart without dependencies. */
export function coalesceValues(defaults: Json, user: Json): Json {
  const out = copy(user);
  for (const [key, value] of Object.entries(copy(defaults))) {
    if (!(key in out)) out[key] = value;
    else if (out[key] === null) delete out[key];
    else if (isMap(out[key]) && isMap(value)) coalesceTables(out[key] as Json, value);
  }
  return out;
}

/** The values a chart's templates (and its schema validation) see for `-f` files given in this order. */
export function helmValues(defaults: Json, ...files: readonly Json[]): Json {
  const user = files.reduce<Json>((merged, file) => mergeMaps(merged, file), {});
  return coalesceValues(defaults, user);
}
