/**
 * The fleet site's stylesheet and its one script (its icon is favicon.ts). The look is the docs site's (Starlight's palette
 * and system fonts, light and dark); the script filters what the pages already hold (rows of the catalog and
 * the matrix, edges of the egress graph, which it lays out again), keeps the search in the address bar and
 * switches the theme. Every page is complete and readable without it.
 */

import { COLUMN_LABEL_CSS } from './column-labels.ts';

const LIGHT = `color-scheme:light;--fg:#17181c;--muted:#545861;--line:#d9dce3;--bg:#ffffff;--alt:#f4f5f8;--card:#ffffff;--accent:#3343c4;--accent-low:#e3e7ff;--warn:#8a4d00;--bad:#b3261e;--ok:#116329;--shadow:0 1px 2px rgb(23 24 28/.08)`;
const DARK = `color-scheme:dark;--fg:#eceef2;--muted:#aeb3bd;--line:#363944;--bg:#17181c;--alt:#22252c;--card:#1d1f25;--accent:#a5b0ff;--accent-low:#262c5c;--warn:#f0b45a;--bad:#ff9a91;--ok:#7fdca4;--shadow:none;--tyd-pod:#1f232b;--tyd-row:#272c35;--tyd-backend:#0c2d48;--tyd-toolchain:#0f3320;--tyd-gateway:#37204a;--tyd-init:#1f232b;--tyd-ext:#3a3012;--tyd-text:#e6edf3;--tyd-muted:#aab4bf;--tyd-line:#8b949e;--tyd-faint:#3d444d;--tyd-call:#58a6ff;--tyd-egress:#e3b341`;
const MONO = 'ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace';

export const FLEET_CSS = `:root{${LIGHT}}
@media (prefers-color-scheme:dark){:root:not([data-theme="light"]){${DARK}}}
:root[data-theme="dark"]{${DARK}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.6 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent);text-underline-offset:.15em}
:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
header.site{position:sticky;top:0;z-index:10;display:flex;flex-wrap:wrap;gap:.4rem 1.4rem;align-items:center;padding:.6rem clamp(1rem,3vw,2rem);border-bottom:1px solid var(--line);background:var(--alt)}
header.site .brand{display:flex;gap:.5rem;align-items:center;font-weight:700;font-size:1.15rem;color:var(--fg);text-decoration:none}
header.site .brand img{width:1.6rem;height:1.6rem}
header.site nav{flex:1}
header.site nav ul{display:flex;flex-wrap:wrap;gap:.2rem 1.1rem;list-style:none;margin:0;padding:0;font-size:.95rem}
header.site nav a{color:var(--muted);text-decoration:none}
header.site nav a:hover{color:var(--fg);text-decoration:underline}
header.site nav a[aria-current="page"]{color:var(--accent);font-weight:650}
.theme{font:inherit;font-size:.85rem;padding:.25rem .7rem;border:1px solid var(--line);border-radius:999px;background:var(--bg);color:var(--fg);cursor:pointer}
main{padding:1.2rem clamp(1rem,3vw,2rem) 3rem;max-width:96rem;margin-inline:auto}
h1{font-size:clamp(1.6rem,3vw,2.1rem);line-height:1.2;margin:.4rem 0 .6rem}
h2{font-size:1.3rem;line-height:1.3;margin:2rem 0 .7rem}
h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
.lead{color:var(--muted);max-width:60rem;margin-top:0}
code{font:.85em/1.4 ${MONO};overflow-wrap:anywhere}
pre{font:12.5px/1.5 ${MONO};background:var(--alt);border:1px solid var(--line);border-radius:.4rem;padding:.7rem;white-space:pre-wrap;overflow-wrap:anywhere;max-height:40rem;overflow:auto}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,17rem),1fr));gap:1rem;margin-block:1rem 1.5rem}
.card{border:1px solid var(--line);border-radius:.6rem;padding:.9rem 1.1rem;background:var(--card);box-shadow:var(--shadow);display:flex;flex-direction:column}
.card h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 .3rem}
.card p{margin:.2rem 0;font-size:.92rem}
.card .big{font-size:1.6rem;font-weight:700;line-height:1.25}
.card .big span{display:block;font-size:.88rem;font-weight:400;color:var(--muted)}
.card ul{list-style:none;margin:.5rem 0;padding:0;font-size:.85rem;flex:1}
.card li{padding:.15rem 0;border-top:1px dashed var(--line)}
.card li:first-child{border-top:0}
.ty-scroll{max-width:100%;overflow-x:auto;margin-block:.5rem}
.ty-table,.fleet-table{border-collapse:collapse;font-size:.85rem;width:100%}
.ty-table caption,.fleet-table caption{text-align:start;font-weight:600;padding-block:.3rem}
.ty-table th,.ty-table td,.fleet-table th,.fleet-table td{border-bottom:1px solid var(--line);padding:.45rem .6rem;text-align:start;vertical-align:top}
.ty-table td,.fleet-table td,.ty-table td code,.fleet-table td code{overflow-wrap:normal}
.w,.ty-table td code,.fleet-table td code,.fleet-table tbody th code{white-space:nowrap;overflow-wrap:normal}
.ty-table thead th,.fleet-table thead th{background:var(--alt);font-weight:600;white-space:nowrap;overflow-wrap:normal;border-bottom:2px solid var(--line)}
.fleet-table tbody tr:hover{background:var(--alt)}
.fleet-table td ul{margin:0;padding-inline-start:1rem}
.fleet-table td ul.tags{padding:0}
.fleet-table td ul.calls{list-style:none;padding:0}
.calls li{padding:.15rem 0;border-top:1px dashed var(--line)}
.calls li:first-child{border-top:0}
.open-list h4,.rule-set h4{font-size:.95rem;margin:1rem 0 .2rem}
.rule-set ul{margin:0;font-size:.85rem}
#matrix tbody th{white-space:nowrap}
.cell-label{display:none}
.ty-note,.muted{color:var(--muted)}
.ty-pod,.ty-sa{margin-block-end:1.2rem}
.filters{display:flex;flex-wrap:wrap;gap:.8rem;align-items:end;margin-block:.6rem}
.filters label{display:flex;flex-direction:column;font-size:.85rem;color:var(--muted);gap:.2rem}
.filters input,.filters select{font:inherit;font-size:.95rem;padding:.35rem .6rem;border:1px solid var(--muted);border-radius:.4rem;background:var(--bg);color:var(--fg);min-width:min(16rem,100%)}
.filters input[type="search"]{min-width:min(22rem,100%)}
.filters label:has(input[type="search"]){flex:1 1 16rem}
.count{font-size:.85rem;color:var(--muted)}
.warn{color:var(--warn);font-weight:600}
.bad{color:var(--bad);font-weight:600}
.ok,.yes{color:var(--ok);font-weight:600}
.tags{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0;padding:0}
.tags li{border:1px solid var(--line);border-radius:999px;padding:0 .5rem;font-size:.78rem;background:var(--alt)}
.facets{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,18rem),1fr));gap:.6rem 1.2rem}
.facets ul{margin:.2rem 0;padding-inline-start:1.1rem;font-size:.85rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0}
.diagram{overflow-x:auto;overflow-y:hidden;border:1px solid var(--line);border-radius:.4rem;background:var(--bg)}
.diagram svg{display:block;max-width:none}
[hidden]{display:none!important}
.fleet-graph .node text{font:12px ${MONO};fill:var(--fg)}
.fleet-graph text.muted{fill:var(--muted);font:12px ${MONO}}
.fleet-graph .node rect{fill:var(--alt);stroke:var(--muted)}
.fleet-graph .peer rect{fill:var(--accent-low)}
.fleet-graph .edge{fill:none;stroke:var(--warn);stroke-width:1.2;opacity:.75}
.fleet-graph .edge.open{stroke:var(--bad);stroke-width:1.8}
@media (max-width:60rem){
header.site{position:static}
header.site .theme{margin-inline-start:auto}
header.site nav{order:3;flex-basis:100%}
.fleet-table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
.fleet-table.stack,.fleet-table.stack tbody,.fleet-table.stack tr{display:block}
.fleet-table.stack tr{border:1px solid var(--line);border-radius:.5rem;margin-block:.6rem;padding:.3rem .6rem;background:var(--card)}
.fleet-table.stack td,.fleet-table.stack tbody th{display:grid;grid-template-columns:minmax(6.5rem,28%) 1fr;gap:.6rem;border:0;padding:.25rem 0}
.fleet-table.stack .cell-label{display:block;color:var(--muted);font-size:.8rem;font-weight:600;overflow-wrap:anywhere}
${COLUMN_LABEL_CSS}
#matrix.stack tbody th{display:block;white-space:normal}
#cache-claims.stack tbody th,#own-caches.stack tbody th{display:block;white-space:normal;overflow-wrap:anywhere}
.fleet-table.stack caption{display:block}
.ty-table thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
.ty-table,.ty-table tbody,.ty-table tr,.ty-table caption{display:block}
.ty-table tr{border:1px solid var(--line);border-radius:.5rem;margin-block:.6rem;padding:.3rem .6rem;background:var(--card)}
.ty-table td{display:grid;grid-template-columns:minmax(6.5rem,28%) 1fr;gap:.6rem;border:0;padding:.25rem 0}
.ty-table td::before{content:attr(data-label);color:var(--muted);font-size:.8rem;font-weight:600}
}
@media (max-width:30rem){
main{padding-inline:.75rem}
.fleet-table.stack tr,.ty-table tr{padding:.4rem 0;border-width:1px 0 0;border-radius:0;background:none;margin-block:0}
.fleet-table.stack td,.fleet-table.stack tbody th,.ty-table td{display:block;overflow-x:auto}
.fleet-table.stack .cell-label,.ty-table td::before{display:block;margin-block-end:.1rem}
}
`;

/**
 * Filters: an element with `data-filter-root` holds form controls with `data-filter` (a text box searches
 * `data-search`, the element `data-search-ref` names, and with `data-search-self` the text the item shows; a
 * select matches the data attribute it names) and items with
 * `data-item`. Items that fail a control are hidden; the graph lays out the nodes left with a visible edge
 * again, without gaps. The catalog's search is kept in the address bar (`?q=`) and restored from it.
 */
export const FLEET_JS = `(() => {
  const THEME_KEY = 'toolyard-fleet-theme';
  const button = document.querySelector('[data-theme-toggle]');
  if (button) {
    const order = ['auto', 'light', 'dark'];
    const show = () => {
      const theme = document.documentElement.dataset.theme || 'auto';
      button.textContent = 'Theme: ' + theme;
      button.setAttribute('aria-label', 'Theme: ' + theme + ' (switch)');
    };
    button.hidden = false;
    show();
    button.addEventListener('click', () => {
      const now = document.documentElement.dataset.theme || 'auto';
      const next = order[(order.indexOf(now) + 1) % order.length];
      if (next === 'auto') { delete document.documentElement.dataset.theme; try { localStorage.removeItem(THEME_KEY); } catch {} }
      else { document.documentElement.dataset.theme = next; try { localStorage.setItem(THEME_KEY, next); } catch {} }
      show();
    });
  }
  const normalise = (text) => text.toLowerCase().replace(/\\s+/g, ' ').trim();
  // An item marked data-search-self is searched by the text it shows (each text node apart, the narrow screen's
  // cell labels left out), read once: the catalog does not repeat its rows' text in an attribute.
  const shownText = new WeakMap();
  const ownText = (item) => {
    if (!item.hasAttribute('data-search-self')) return '';
    let text = shownText.get(item);
    if (text === undefined) {
      const parts = [];
      const walker = document.createTreeWalker(item, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode())
        if (!node.parentElement.closest('.cell-label')) parts.push(node.nodeValue);
      text = parts.join(' ');
      shownText.set(item, text);
    }
    return text;
  };
  for (const root of document.querySelectorAll('[data-filter-root]')) {
    const controls = [...root.querySelectorAll('[data-filter]')];
    const items = [...root.querySelectorAll('[data-item]')];
    const count = root.querySelector('[data-count]');
    const svg = root.querySelector('svg[data-graph]');
    const nodes = svg ? [...svg.querySelectorAll('[data-node]')] : [];
    const search = root.querySelector('[data-filter="search"]');
    const keepInUrl = search && search.hasAttribute('data-url');
    const relayout = () => {
      const row = +svg.dataset.row, top = +svg.dataset.top, from = +svg.dataset.podWidth, to = +svg.dataset.peerX;
      const ys = new Map();
      const columns = [nodes.filter((n) => !n.classList.contains('peer')), nodes.filter((n) => n.classList.contains('peer'))];
      const rows = columns.map((column) => {
        let i = 0;
        for (const node of column) {
          if (node.hasAttribute('hidden')) continue;
          const y = top + i * row;
          ys.set(node.dataset.node, y);
          node.setAttribute('transform', 'translate(0 ' + (y - +node.dataset.y) + ')');
          i++;
        }
        return i;
      });
      const mid = (from + to) / 2;
      for (const edge of items) {
        if (edge.hasAttribute('hidden')) continue;
        const [a, b] = edge.dataset.ends.split(' ');
        const y1 = ys.get(a) + row / 2 - 2, y2 = ys.get(b) + row / 2 - 2;
        edge.setAttribute('d', 'M' + from + ' ' + y1 + ' C' + mid + ' ' + y1 + ' ' + mid + ' ' + y2 + ' ' + to + ' ' + y2);
      }
      const height = top + Math.max(1, ...rows) * row + 10;
      svg.setAttribute('height', String(height));
      svg.setAttribute('viewBox', '0 0 ' + svg.getAttribute('width') + ' ' + height);
    };
    const apply = () => {
      let shown = 0;
      for (const item of items) {
        const ok = controls.every((c) => {
          const value = normalise(c.value);
          if (value === '') return true;
          const field = c.dataset.filter;
          if (field === 'search') {
            // A row may show part of its content by reference (a shared rule set): search that too.
            const shared = item.dataset.searchRef ? document.getElementById(item.dataset.searchRef) : null;
            return normalise(ownText(item) + ' ' + (item.dataset.search || '') + ' ' + (shared ? shared.textContent : '')).includes(value);
          }
          if (field === 'warnings') return value === 'yes' ? item.dataset.warnings !== '0' : item.dataset.warnings === '0';
          return (' ' + (item.getAttribute('data-' + field) || '').toLowerCase() + ' ').includes(' ' + value + ' ');
        });
        item.toggleAttribute('hidden', !ok);
        if (ok) shown++;
      }
      if (svg) {
        const visible = new Set();
        for (const item of items) if (!item.hasAttribute('hidden')) for (const id of (item.dataset.ends || '').split(' ')) visible.add(id);
        for (const node of nodes) node.toggleAttribute('hidden', !visible.has(node.dataset.node));
        relayout();
      }
      if (count) count.textContent = shown + ' of ' + items.length + ' ' + (count.dataset.count || 'shown');
    };
    const remember = () => {
      const url = new URL(location.href);
      if (search.value.trim() === '') url.searchParams.delete('q');
      else url.searchParams.set('q', search.value);
      if (url.href !== location.href) history.replaceState(null, '', url);
    };
    for (const c of controls) c.addEventListener('input', () => { apply(); if (c === search && keepInUrl) remember(); });
    const query = new URLSearchParams(location.search).get('q');
    if (query && search && keepInUrl) search.value = query;
    apply();
  }
})();
`;

/** Set before the first paint: the theme a visitor chose on an earlier page (the toggle stores it). */
export const THEME_BOOT = `try{const t=localStorage.getItem('toolyard-fleet-theme');if(t==='light'||t==='dark')document.documentElement.dataset.theme=t}catch{}`;
