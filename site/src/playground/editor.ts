/**
 * The spec editor: CodeMirror 6 with YAML highlighting, completion and hover documentation from the Agent
 * schema, inline problems, and Tab that indents. Escape then Tab (or Ctrl+M, which toggles it) moves focus
 * out of the editor, as CodeMirror implements it; the page says so next to the editor.
 */
import {
  autocompletion,
  type CompletionContext,
  type CompletionResult,
  completionKeymap,
} from '@codemirror/autocomplete';
import {
  history,
  historyKeymap,
  indentLess,
  indentMore,
  indentWithTab,
  moveLineDown,
  moveLineUp,
  simplifySelection,
  standardKeymap,
  toggleComment,
  toggleTabFocusMode,
} from '@codemirror/commands';
import { indentUnit, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import {
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  hoverTooltip,
  keymap,
  lineNumbers,
  tooltips,
} from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import { h } from './dom.ts';
import { hoverDoc, suggestions } from './schema-assist.ts';
import { yamlLanguage } from './yaml-highlight.ts';

/** A problem of the spec, by 1-based line. */
export interface LineProblem {
  readonly line: number;
  readonly message: string;
  readonly severity: 'error' | 'warning';
}

/** The editing keys a spec needs on top of the standard ones (CodeMirror's defaultKeymap has many more). */
const editingKeymap = [
  { key: 'Mod-/', run: toggleComment },
  { key: 'Mod-[', run: indentLess },
  { key: 'Mod-]', run: indentMore },
  { key: 'Alt-ArrowUp', run: moveLineUp },
  { key: 'Alt-ArrowDown', run: moveLineDown },
  { key: 'Escape', run: simplifySelection },
  { key: 'Ctrl-m', mac: 'Shift-Alt-m', run: toggleTabFocusMode },
];

function completionSource(context: CompletionContext): CompletionResult | null {
  const found = suggestions(context.state.doc.toString(), context.pos, context.explicit);
  if (!found) return null;
  return {
    from: found.from,
    options: found.options.map((o) => ({
      label: o.label,
      type: o.type,
      detail: o.detail,
      ...(o.info ? { info: o.info } : {}),
      apply: o.apply,
    })),
    validFor: /^[\w.-]*$/,
  };
}

const schemaHover = hoverTooltip((view, pos) => {
  const doc = hoverDoc(view.state.doc.toString(), pos);
  if (!doc) return null;
  return {
    pos: doc.from,
    end: doc.to,
    above: true,
    create: () => ({
      dom: h(
        'div',
        { class: 'ty-hover' },
        h('p', { class: 'ty-hover-field' }, h('code', {}, doc.field), ` — ${doc.type}`),
        doc.description ? h('p', {}, doc.description) : null,
        doc.values ? h('p', {}, `Values: ${doc.values}`) : null,
        doc.default ? h('p', {}, `Default: ${doc.default}`) : null,
      ),
    }),
  };
});

/**
 * The tooltips follow the site's theme. A theme, not the stylesheet: CodeMirror scopes its own tooltip colours
 * under the editor's theme classes, which the tooltips (children of <body>) carry and a plain rule would lose to.
 */
const tooltipTheme = EditorView.theme({
  '.cm-tooltip': {
    backgroundColor: 'var(--sl-color-gray-6, var(--sl-color-black))',
    color: 'var(--sl-color-white)',
    border: '1px solid var(--sl-color-gray-4)',
    borderRadius: '0.3rem',
  },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li[aria-selected]': {
    backgroundColor: 'var(--sl-color-accent-low)',
    color: 'var(--sl-color-white)',
  },
});

export function createEditor(
  parent: HTMLElement,
  doc: string,
  onChange: () => void,
  describedBy: string,
): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        highlightActiveLine(),
        indentUnit.of('  '),
        EditorState.tabSize.of(2),
        yamlLanguage,
        syntaxHighlighting(classHighlighter),
        autocompletion({ override: [completionSource], icons: false }),
        schemaHover,
        // Hover help and completion details live in <body>: the editor's box is `contain: strict` (it keeps a
        // keystroke's layout inside it), which would clip them at its edges and pin `position: fixed` to it.
        tooltips({ parent: document.body }),
        tooltipTheme,
        lintGutter(),
        keymap.of([
          ...completionKeymap,
          indentWithTab,
          ...editingKeymap,
          ...standardKeymap,
          ...historyKeymap,
        ]),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({
          'aria-label': 'Agent spec (YAML)',
          // axe counts a contenteditable as focusable only with a tabindex (the scroller around it scrolls).
          tabindex: '0',
          'aria-describedby': describedBy,
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange();
        }),
      ],
    }),
  });
}

/** Shows the problems in the editor: marked text, gutter markers, messages on hover. */
export function showProblems(view: EditorView, problems: readonly LineProblem[]): void {
  const doc = view.state.doc;
  const diagnostics: Diagnostic[] = problems.map((p) => {
    const line = doc.line(Math.min(Math.max(p.line, 1), doc.lines));
    const start = line.from + (line.text.length - line.text.trimStart().length);
    return { from: start, to: Math.max(start, line.to), severity: p.severity, message: p.message };
  });
  view.dispatch(setDiagnostics(view.state, diagnostics));
}

/** Puts the cursor at the start of a line's content, scrolls it into view and focuses the editor. */
export function goToLine(view: EditorView, lineNumber: number): void {
  const doc = view.state.doc;
  const line = doc.line(Math.min(Math.max(lineNumber, 1), doc.lines));
  const anchor = line.from + (line.text.length - line.text.trimStart().length);
  view.dispatch({ selection: { anchor }, scrollIntoView: true });
  view.focus();
}
