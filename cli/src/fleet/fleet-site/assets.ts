/**
 * The fleet site's stylesheet and its one script. The script only filters what the pages already hold (rows of
 * the catalog and the matrix, edges of the egress graph): every page is complete and readable without it.
 */

export const FLEET_CSS = `:root{color-scheme:light;--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--bg:#ffffff;--alt:#f6f8fa;--accent:#0969da;--warn:#9a6700;--bad:#cf222e}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
header.site{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;padding:.6rem 1.2rem;border-bottom:1px solid var(--line);background:var(--alt)}
header.site .brand{font-weight:700;color:var(--fg);text-decoration:none}
header.site nav ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:0}
header.site nav a[aria-current="page"]{font-weight:700;color:var(--fg)}
main{padding:1rem 1.2rem;max-width:100rem}
h1{font-size:1.6rem;margin:.4rem 0 .8rem}
h2{font-size:1.25rem;margin:1.6rem 0 .6rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--alt);border:1px solid var(--line);border-radius:4px;padding:.6rem;white-space:pre-wrap;overflow-wrap:anywhere;max-height:40rem;overflow:auto}
.ty-scroll{max-width:100%;overflow-x:auto;margin-block:.5rem}
.ty-table,.fleet-table{border-collapse:collapse;font-size:13px;width:100%}
.ty-table caption,.fleet-table caption{text-align:start;font-weight:600;padding-block:.3rem}
.ty-table th,.ty-table td,.fleet-table th,.fleet-table td{border:1px solid var(--line);padding:.25rem .45rem;text-align:start;vertical-align:top;overflow-wrap:anywhere}
.ty-table thead th,.fleet-table thead th{background:var(--alt)}
.ty-note,.muted{color:var(--muted)}
.ty-pod,.ty-sa{margin-block-end:1.2rem}
.filters{display:flex;flex-wrap:wrap;gap:.8rem;align-items:end;margin-block:.6rem}
.filters label{display:flex;flex-direction:column;font-size:13px;color:var(--muted)}
.filters input,.filters select{font:inherit;padding:.25rem .4rem;border:1px solid var(--muted);border-radius:4px;background:var(--bg);color:var(--fg);min-width:12rem}
.count{font-size:13px;color:var(--muted)}
.warn{color:var(--warn);font-weight:600}
.yes{color:#116329;font-weight:600}
.tags{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0;padding:0}
.tags li{border:1px solid var(--line);border-radius:3px;padding:0 .3rem;font-size:12px}
.facets{display:grid;grid-template-columns:repeat(auto-fill,minmax(18rem,1fr));gap:.6rem 1.2rem}
.facets ul{margin:.2rem 0;padding-inline-start:1.1rem;font-size:13px}
.diagram{overflow:auto;border:1px solid var(--line);border-radius:4px;max-height:48rem}
.diagram svg{display:block;max-width:none}
[hidden]{display:none!important}
.fleet-graph .node text{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;fill:var(--fg)}
.fleet-graph .node rect{fill:var(--alt);stroke:var(--muted)}
.fleet-graph .peer rect{fill:#fff8c5}
.fleet-graph .edge{fill:none;stroke:var(--warn);stroke-width:1.2;opacity:.75}
.fleet-graph .edge.open{stroke:var(--bad);stroke-width:1.8}
`;

/**
 * Filters: an element with `data-filter-root` holds form controls with `data-filter` (a text box searches
 * `data-search`; a select matches the data attribute it names) and items with `data-item`. Items that fail a
 * control are hidden; the graph hides nodes left without a visible edge.
 */
export const FLEET_JS = `(() => {
  for (const root of document.querySelectorAll('[data-filter-root]')) {
    const controls = [...root.querySelectorAll('[data-filter]')];
    const items = [...root.querySelectorAll('[data-item]')];
    const count = root.querySelector('[data-count]');
    const nodes = [...root.querySelectorAll('[data-node]')];
    const apply = () => {
      let shown = 0;
      for (const item of items) {
        const ok = controls.every((c) => {
          const value = c.value.trim().toLowerCase();
          if (value === '') return true;
          const field = c.dataset.filter;
          if (field === 'search') return (item.dataset.search || '').includes(value);
          if (field === 'warnings') return value === 'yes' ? item.dataset.warnings !== '0' : item.dataset.warnings === '0';
          return (' ' + (item.getAttribute('data-' + field) || '').toLowerCase() + ' ').includes(' ' + value + ' ');
        });
        item.toggleAttribute('hidden', !ok);
        if (ok) shown++;
      }
      if (nodes.length > 0) {
        const visible = new Set();
        for (const item of items) if (!item.hasAttribute('hidden')) for (const id of (item.dataset.ends || '').split(' ')) visible.add(id);
        for (const node of nodes) node.toggleAttribute('hidden', !visible.has(node.dataset.node));
      }
      if (count) count.textContent = shown + ' of ' + items.length + ' ' + (count.dataset.count || 'shown');
    };
    for (const c of controls) c.addEventListener('input', apply);
    const query = new URLSearchParams(location.search).get('q');
    const search = root.querySelector('[data-filter="search"]');
    if (query && search) search.value = query;
    apply();
  }
})();
`;
