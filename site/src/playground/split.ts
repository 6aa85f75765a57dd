/**
 * A resizable split between the editor and the output: a focusable separator (WAI-ARIA "window splitter")
 * dragged with a pointer or moved with the arrow keys, Home and End. The share of the editor is kept in
 * localStorage, so the layout survives a reload.
 */
import { h } from './dom.ts';

const STORAGE_KEY = 'toolyard-playground-split';
const MIN = 20;
const MAX = 80;
const STEP = 5;

export function resizableSplit(container: HTMLElement, controls: string): HTMLElement {
  let share = Number(localStorage.getItem(STORAGE_KEY) ?? 45);
  if (!Number.isFinite(share)) share = 45;
  const separator = h('div', {
    class: 'ty-separator',
    role: 'separator',
    tabindex: '0',
    'aria-orientation': 'vertical',
    'aria-label': 'Resize the editor and the output',
    'aria-controls': controls,
    'aria-valuemin': String(MIN),
    'aria-valuemax': String(MAX),
  });
  const apply = (value: number) => {
    share = Math.round(Math.min(MAX, Math.max(MIN, value)));
    container.style.setProperty('--ty-split', `${share}%`);
    separator.setAttribute('aria-valuenow', String(share));
    separator.setAttribute('aria-valuetext', `editor ${share}% of the width`);
    try {
      localStorage.setItem(STORAGE_KEY, String(share));
    } catch {
      // Storage may be unavailable (private mode); the split still works for this page.
    }
  };
  apply(share);
  separator.addEventListener('keydown', (event) => {
    const moves: Record<string, number> = {
      ArrowLeft: -STEP,
      ArrowRight: STEP,
      ArrowUp: STEP,
      ArrowDown: -STEP,
    };
    if (event.key in moves) apply(share + moves[event.key]!);
    else if (event.key === 'Home') apply(MIN);
    else if (event.key === 'End') apply(MAX);
    else return;
    event.preventDefault();
  });
  separator.addEventListener('pointerdown', (event) => {
    event.preventDefault();
    separator.setPointerCapture(event.pointerId);
    const bounds = container.getBoundingClientRect();
    const move = (e: PointerEvent) => apply(((e.clientX - bounds.left) / bounds.width) * 100);
    const stop = () => {
      separator.removeEventListener('pointermove', move);
      separator.removeEventListener('pointerup', stop);
    };
    separator.addEventListener('pointermove', move);
    separator.addEventListener('pointerup', stop);
  });
  return separator;
}
