/**
 * Column names of the fleet site's large tables. On a narrow screen each row becomes a card and every cell shows
 * its column's name: the tables with a row per agent or per ServiceAccount (thousands of rows in a large fleet)
 * take the names from the stylesheet, by position, rather than repeating them in every cell as the small tables
 * do (`labelledCell`).
 */
export const CATALOG_COLUMNS = [
  'Agent',
  'Namespace',
  'Labels',
  'Backends',
  'Toolchains',
  'Gateways',
  'Images',
  'Warnings',
] as const;

/** The authority matrix: the agent (its row header, which needs no label) and the gateways it can call. */
export const MATRIX_LABELS = [undefined, 'Gateways it can call'] as const;

/** What each ServiceAccount can do. */
export const CAN_I_LABELS = ['ServiceAccount', 'In namespace', 'Can'] as const;

/** Rules that label the cells of table `#id` by position; `undefined` leaves a position unlabelled. */
function labelRules(id: string, labels: readonly (string | undefined)[]): string[] {
  return labels.flatMap((name, i) =>
    name === undefined
      ? []
      : [
          `#${id}.stack tbody tr>:nth-child(${i + 1})::before{content:${JSON.stringify(name)};display:block;color:var(--muted);font-size:.8rem;font-weight:600;overflow-wrap:anywhere}`,
        ],
  );
}

/** The label rules of every large table, for the stylesheet's narrow-screen block. */
export const COLUMN_LABEL_CSS = [
  ...labelRules('catalog', CATALOG_COLUMNS),
  ...labelRules('matrix', MATRIX_LABELS),
  ...labelRules('can-i', CAN_I_LABELS),
].join('\n');
