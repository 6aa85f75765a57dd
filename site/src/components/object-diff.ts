/**
 * What changed between two renders: objects added, removed and changed (by kind, namespace and name), each
 * change as a line diff of the object's YAML. Pure: the playground compares the current render with the last
 * one or a pinned one; a fleet page can compare two revisions the same way.
 */
import { type Html, html } from './html.ts';

export interface RenderedObject {
  /** `Kind namespace/name`, unique within a render. */
  readonly id: string;
  readonly yaml: string;
}

export type DiffLine = { readonly op: ' ' | '+' | '-'; readonly text: string };

export interface ObjectChange {
  readonly id: string;
  readonly change: 'added' | 'removed' | 'changed';
  readonly lines: readonly DiffLine[];
  readonly added: number;
  readonly removed: number;
}

export interface RenderDiff {
  readonly changes: readonly ObjectChange[];
  readonly unchanged: number;
}

/** Myers' O(ND) line diff: a shortest edit script turning `a` into `b`. */
export function lineDiff(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const offset = n + m;
  let v = new Int32Array(2 * offset + 2);
  // trace[d]: the furthest x per diagonal k after d - 1 edits.
  const trace: Int32Array[] = [];
  const down = (frontier: Int32Array, k: number, d: number) =>
    k === -d || (k !== d && frontier[offset + k - 1]! < frontier[offset + k + 1]!);
  search: for (let d = 0; d <= n + m; d++) {
    trace.push(v);
    v = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = down(v, k, d) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) break search;
    }
  }
  const out: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const frontier = trace[d]!;
    const k = x - y;
    const prevK = down(frontier, k, d) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : frontier[offset + prevK]!;
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      out.push({ op: ' ', text: a[x]! });
    }
    if (d === 0) break;
    if (x === prevX) {
      y--;
      out.push({ op: '+', text: b[y]! });
    } else {
      x--;
      out.push({ op: '-', text: a[x]! });
    }
  }
  return out.reverse();
}

const linesOf = (yaml: string) => yaml.replace(/\n$/, '').split('\n');

export function diffRenders(before: readonly RenderedObject[], after: readonly RenderedObject[]): RenderDiff {
  const old = new Map(before.map((o) => [o.id, o.yaml]));
  const changes: ObjectChange[] = [];
  let unchanged = 0;
  for (const object of after) {
    const previous = old.get(object.id);
    old.delete(object.id);
    if (previous === object.yaml) {
      unchanged++;
      continue;
    }
    const lines =
      previous === undefined
        ? linesOf(object.yaml).map((text) => ({ op: '+' as const, text }))
        : lineDiff(linesOf(previous), linesOf(object.yaml));
    changes.push(summarize(object.id, previous === undefined ? 'added' : 'changed', lines));
  }
  for (const [id, yaml] of old) {
    changes.push(
      summarize(
        id,
        'removed',
        linesOf(yaml).map((text) => ({ op: '-' as const, text })),
      ),
    );
  }
  return { changes, unchanged };
}

function summarize(id: string, change: ObjectChange['change'], lines: DiffLine[]): ObjectChange {
  return {
    id,
    change,
    lines,
    added: lines.filter((l) => l.op === '+').length,
    removed: lines.filter((l) => l.op === '-').length,
  };
}

/** The lines worth showing: changes with `context` unchanged lines around them, gaps marked. */
function hunks(lines: readonly DiffLine[], context: number): (DiffLine | 'gap')[] {
  const keep = lines.map(() => false);
  lines.forEach((line, i) => {
    if (line.op === ' ') return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) keep[j] = true;
  });
  const out: (DiffLine | 'gap')[] = [];
  lines.forEach((line, i) => {
    if (keep[i]) out.push(line);
    else if (out.at(-1) !== 'gap') out.push('gap');
  });
  return out;
}

const LABELS = { added: 'added', removed: 'removed', changed: 'changed' } as const;

export function renderDiffHtml(diff: RenderDiff, against: string, context = 3): Html {
  if (diff.changes.length === 0) {
    return html`<p class="ty-note">No object changed against ${against} (${diff.unchanged} unchanged).</p>`;
  }
  return html`<p>${diff.changes.length} object${diff.changes.length === 1 ? '' : 's'} changed against ${against}; ${diff.unchanged} unchanged.</p>
${diff.changes.map(
  (
    c,
  ) => html`<details class="ty-change" data-change="${c.change}" open><summary><span class="ty-badge ty-${c.change}">${LABELS[c.change]}</span> <code>${c.id}</code> <span class="ty-counts">+${c.added} −${c.removed}</span></summary>
<pre class="ty-diff" tabindex="0">${hunks(c.lines, context).map((l) =>
    l === 'gap'
      ? html`<span class="ty-gap">⋯</span>\n`
      : html`<span class="${l.op === '+' ? 'ty-add' : l.op === '-' ? 'ty-del' : 'ty-ctx'}">${l.op} ${l.text}</span>\n`,
  )}</pre></details>`,
)}`;
}
