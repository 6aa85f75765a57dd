/** A few DOM helpers: the playground builds its output with plain elements, no framework. */
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | undefined> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

export interface Tab {
  readonly id: string;
  readonly label: string;
  readonly panel: () => Node;
}

/**
 * An ARIA tablist (arrow keys, Home/End) whose selected panel is built on demand. `selected` survives
 * re-renders by id, so editing the spec keeps the object you were looking at.
 */
export function tabs(
  idPrefix: string,
  label: string,
  items: readonly Tab[],
  selected: string | undefined,
  onSelect: (id: string) => void,
): HTMLElement {
  const current = items.find((t) => t.id === selected) ?? items[0];
  const list = h('div', { role: 'tablist', 'aria-label': label, class: 'ty-tablist' });
  const panel = h('div', { role: 'tabpanel', class: 'ty-tabpanel', tabindex: '0' });
  const buttons = items.map((item, index) => {
    const isSelected = item === current;
    const button = h(
      'button',
      {
        type: 'button',
        role: 'tab',
        id: `${idPrefix}-tab-${index}`,
        'aria-selected': isSelected ? 'true' : 'false',
        'aria-controls': `${idPrefix}-panel`,
        tabindex: isSelected ? '0' : '-1',
        'data-tab-id': item.id,
      },
      item.label,
    );
    button.addEventListener('click', () => onSelect(item.id));
    button.addEventListener('keydown', (event) => {
      const moves: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
      let target: number | undefined;
      if (event.key in moves) target = (index + moves[event.key]! + items.length) % items.length;
      if (event.key === 'Home') target = 0;
      if (event.key === 'End') target = items.length - 1;
      if (target === undefined) return;
      event.preventDefault();
      onSelect(items[target]!.id);
      queueMicrotask(() => document.getElementById(`${idPrefix}-tab-${target}`)?.focus());
    });
    return button;
  });
  list.append(...buttons);
  panel.id = `${idPrefix}-panel`;
  if (current) {
    panel.setAttribute('aria-labelledby', `${idPrefix}-tab-${items.indexOf(current)}`);
    panel.append(current.panel());
  }
  return h('div', { class: 'ty-tabs' }, list, panel);
}

export function table(caption: string, headers: readonly string[], rows: readonly Child[][]): HTMLElement {
  return h(
    'table',
    { class: 'ty-table' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...headers.map((header) => h('th', { scope: 'col' }, header)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
  );
}
