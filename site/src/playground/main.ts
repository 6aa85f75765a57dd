/**
 * `<toolyard-playground>`: the spec editor next to everything toolyard renders for it, over a tiny store.
 * Every edit is validated and rendered in the browser by the renderer the CLI runs (preview.ts); the last
 * valid render stays on screen while the spec is invalid, downloads are off until it is valid again, and the
 * spec is kept in the URL fragment.
 */
import type { EditorView } from '@codemirror/view';
import { h } from './dom.ts';
import { createEditor, goToLine, type LineProblem, showProblems } from './editor.ts';
import { type PreviewResult, previewSpec, type SpecDiagnostic } from './preview.ts';
import { resizableSplit } from './split.ts';
import { decodeSpecFragment, encodeSpecFragment } from './url-state.ts';
import {
  copyText,
  outputViews,
  type RenderSnapshot,
  shownText,
  snapshotOf,
  type ViewState,
  viewStructure,
} from './views.ts';

interface Example {
  readonly name: string;
  readonly file: string;
  readonly text: string;
}

export interface RenderedEventDetail {
  readonly ok: boolean;
  /** Time spent validating and rendering, in milliseconds. */
  readonly renderMs: number;
  readonly revision: number;
}

type ValidResult = Extract<PreviewResult, { ok: true }>;

interface Store {
  revision: number;
  result: PreviewResult | undefined;
  lastGood: ValidResult | undefined;
  /** The valid render before the last one that differed from it. */
  previous: RenderSnapshot | undefined;
  pinned: RenderSnapshot | undefined;
  views: ViewState;
}

const time = () => new Date().toTimeString().slice(0, 8);

class ToolyardPlayground extends HTMLElement {
  editor: EditorView | undefined;
  private readonly store: Store = {
    revision: 0,
    result: undefined,
    lastGood: undefined,
    previous: undefined,
    pinned: undefined,
    views: {
      view: 'manifests',
      selectedObject: undefined,
      selectedConfig: undefined,
      diffAgainst: 'previous',
    },
  };
  private examples: readonly Example[] = [];
  private pendingRender = false;
  /** What the editor and the output last showed, to leave them alone when an edit changes neither. */
  private shownProblems = '';
  private shownOutput = '';
  private shownStructure = '';
  private hashTimer: ReturnType<typeof setTimeout> | undefined;
  private status!: HTMLElement;
  /** The last render's time: beside the status, not in it, so a screen reader does not hear it per keystroke. */
  private timing!: HTMLElement;
  private problems!: HTMLElement;
  private output!: HTMLElement;
  private exampleSelect!: HTMLSelectElement;
  private downloadButton!: HTMLButtonElement;
  private chartButton!: HTMLButtonElement;
  private downloadReason!: HTMLElement;
  /** Offers to bring back the spec an example replaced. */
  private undoNotice!: HTMLElement;
  /** True while the page itself replaces the spec (an example, a link): not an edit of yours. */
  private replacing = false;

  async connectedCallback(): Promise<void> {
    if (this.editor) return;
    const data = document.getElementById(this.dataset['examples'] ?? 'toolyard-examples');
    this.examples = JSON.parse(data?.textContent ?? '[]') as Example[];
    this.buildShell();
    let initial = this.examples[0]?.text ?? '';
    let restored = false;
    try {
      const fromUrl = await decodeSpecFragment(location.hash);
      if (fromUrl !== undefined) {
        initial = fromUrl;
        restored = true;
      }
    } catch {
      this.status.before(
        h(
          'p',
          { class: 'ty-stale ty-notice', role: 'note' },
          'The link’s spec could not be read; showing an example instead.',
        ),
      );
    }
    this.exampleSelect.value = restored
      ? ''
      : (this.examples.find((e) => e.text === initial)?.name ?? this.examples[0]?.name ?? '');
    this.editor = createEditor(
      this.querySelector<HTMLElement>('.ty-editor')!,
      initial,
      () => {
        // Typing in the example that replaced your spec keeps the example: the offer to undo ends.
        if (!this.replacing) this.undoNotice.replaceChildren();
        this.scheduleRender();
      },
      'ty-editor-help',
    );
    this.renderNow();
    // A link pasted into this tab changes only the fragment: no reload, so follow it here.
    window.addEventListener('hashchange', async () => {
      try {
        const text = await decodeSpecFragment(location.hash);
        if (text !== undefined && text !== this.editor?.state.doc.toString()) this.setSpecText(text);
      } catch {
        this.status.textContent = 'The link’s spec could not be read; the spec was left as it was.';
      }
    });
    this.dataset['ready'] = 'true';
    this.dispatchEvent(new CustomEvent('toolyard:ready', { bubbles: true }));
  }

  private buildShell(): void {
    this.status = h('p', { class: 'ty-status', role: 'status', 'aria-live': 'polite' });
    this.timing = h('span', { class: 'ty-timing' });
    this.exampleSelect = h(
      'select',
      { id: 'ty-example' },
      h('option', { value: '' }, '(your spec)'),
      ...this.examples.map((e) => h('option', { value: e.name }, e.file)),
    );
    this.exampleSelect.addEventListener('change', () => {
      const example = this.examples.find((e) => e.name === this.exampleSelect.value);
      if (example && this.editor) this.openExample(example);
    });
    this.undoNotice = h('div', { class: 'ty-undo', role: 'status' });
    this.downloadReason = h('span', { id: 'ty-download-reason', class: 'ty-download-reason' });
    this.downloadButton = h(
      'button',
      { type: 'button', class: 'ty-button', 'aria-describedby': 'ty-download-reason' },
      'Download manifests (YAML)',
    );
    this.downloadButton.addEventListener('click', () => this.downloadManifests());
    this.chartButton = h(
      'button',
      { type: 'button', class: 'ty-button', 'aria-describedby': 'ty-download-reason' },
      'Download Helm chart (.tgz)',
    );
    this.chartButton.addEventListener('click', () => void this.downloadCharts());
    const copyLink = h('button', { type: 'button', class: 'ty-button' }, 'Copy link');
    copyLink.addEventListener('click', async () => {
      await this.updateUrl();
      this.copy(location.href, 'a link that reproduces this spec');
    });
    this.problems = h('div', { class: 'ty-problems' });
    this.output = h('div', { class: 'ty-output' });
    this.output.addEventListener('click', (event) => {
      const button = (event.target as Element).closest<HTMLElement>('[data-copy]');
      const good = this.store.lastGood;
      const found = button && good ? copyText(good.agents, button.dataset['copy']!) : undefined;
      if (found) this.copy(found.text, found.label);
    });
    const layout = h(
      'div',
      { class: 'ty-layout' },
      h(
        'section',
        { class: 'ty-pane ty-spec-pane', 'aria-labelledby': 'ty-spec-heading' },
        h(
          'div',
          { class: 'ty-pane-head' },
          h('h2', { id: 'ty-spec-heading' }, 'Spec'),
          h(
            'p',
            { id: 'ty-editor-help', class: 'ty-help' },
            'Completion: Ctrl+Space. Tab indents; to leave the editor, press Esc then Tab (Ctrl+M switches Tab to moving focus).',
          ),
        ),
        this.problems,
        h('div', { class: 'ty-editor' }),
      ),
    );
    const outputPane = h(
      'section',
      { class: 'ty-pane ty-output-pane', id: 'ty-output-pane', 'aria-labelledby': 'ty-output-heading' },
      h('div', { class: 'ty-pane-head' }, h('h2', { id: 'ty-output-heading' }, 'Rendered in your browser')),
      this.output,
    );
    layout.append(resizableSplit(layout, 'ty-output-pane'), outputPane);
    // Stacked on a phone or a tablet, the output is below the editor: one tap away. (A button, not a link:
    // the URL fragment holds the spec.)
    const jump = h('button', { type: 'button', class: 'ty-jump' }, 'Go to the output ↓');
    jump.addEventListener('click', () => {
      outputPane.scrollIntoView({ block: 'start' });
      outputPane
        .querySelector<HTMLElement>('[role="tab"][aria-selected="true"]')
        ?.focus({ preventScroll: true });
    });
    this.replaceChildren(
      h(
        'div',
        { class: 'ty-toolbar' },
        h('label', { for: 'ty-example' }, 'Example'),
        this.exampleSelect,
        this.downloadButton,
        this.chartButton,
        copyLink,
        this.downloadReason,
      ),
      h('div', { class: 'ty-status-line' }, this.status, this.timing, jump),
      this.undoNotice,
      layout,
    );
  }

  /** Replaces the whole spec, as picking an example does. */
  setSpecText(text: string): void {
    const editor = this.editor!;
    this.replacing = true;
    try {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
    } finally {
      this.replacing = false;
    }
  }

  /**
   * Opens an example. A spec that is not an example as published (your edits, a spec from a link) is not
   * lost: the page offers to bring it back until you type in the example (the editor's Ctrl+Z works too).
   */
  private openExample(example: Example): void {
    const current = this.editor!.state.doc.toString();
    const edited = current.trim() !== '' && !this.examples.some((e) => e.text === current);
    this.setSpecText(example.text);
    if (!edited) {
      this.undoNotice.replaceChildren();
      return;
    }
    const undo = h('button', { type: 'button', class: 'ty-button' }, 'Undo: bring back my spec');
    undo.addEventListener('click', () => {
      this.setSpecText(current);
      this.undoNotice.replaceChildren();
      this.editor!.focus();
    });
    this.undoNotice.replaceChildren(h('p', {}, `${example.file} replaced your edited spec.`), undo);
  }

  private scheduleRender(): void {
    // Renders once the editor's update is done, in the same task: the changes of one task (a paste, a
    // multi-cursor edit) coalesce into one render, and the next frame paints the editor and the output
    // together. (A timer would let a frame paint the editor alone first, and the output one frame later.)
    if (this.pendingRender) return;
    this.pendingRender = true;
    queueMicrotask(() => {
      this.pendingRender = false;
      this.renderNow();
    });
    clearTimeout(this.hashTimer);
    this.hashTimer = setTimeout(() => void this.updateUrl(), 300);
  }

  private async updateUrl(): Promise<void> {
    if (!this.editor) return;
    const fragment = await encodeSpecFragment(this.editor.state.doc.toString());
    if (fragment !== location.hash) history.replaceState(null, '', fragment);
  }

  private renderNow(): void {
    const editor = this.editor!;
    const text = editor.state.doc.toString();
    const started = performance.now();
    const result = previewSpec(text);
    const renderMs = performance.now() - started;
    const store = this.store;
    store.revision += 1;
    store.result = result;
    if (result.ok) {
      if (store.lastGood && store.lastGood.yaml !== result.yaml)
        store.previous = snapshotOf(store.lastGood.agents, `the render before, ${time()}`);
      store.lastGood = result;
    }
    if (!result.ok || this.exampleSelect.value !== '') {
      this.exampleSelect.value = this.examples.find((e) => e.text === text)?.name ?? '';
    }
    const problems = this.lineProblems(result);
    const problemsKey = JSON.stringify(problems);
    if (problemsKey !== this.shownProblems) {
      this.shownProblems = problemsKey;
      showProblems(editor, problems);
      this.renderProblems(result);
    }
    // An edit that changes nothing the output shows (a comment, spacing) leaves it as it is.
    const shown = store.lastGood?.agents.map((a) => [a.warnings, a.acknowledged]);
    const outputKey = `${result.ok}\u0000${store.lastGood?.yaml ?? ''}\u0000${JSON.stringify(shown)}`;
    if (outputKey !== this.shownOutput) {
      this.shownOutput = outputKey;
      this.renderOutput();
    }
    this.dataset['state'] = result.ok ? 'valid' : 'invalid';
    this.dataset['revision'] = String(store.revision);
    this.downloadButton.disabled = !result.ok;
    this.chartButton.disabled = !result.ok;
    this.downloadReason.textContent = result.ok
      ? ''
      : 'Downloads are off while the spec has problems: they would not be the spec you are editing.';
    const count = result.ok ? result.agents.reduce((n, a) => n + a.objects.length, 0) : 0;
    const n = result.ok ? 0 : result.diagnostics.length;
    const status = result.ok
      ? `Rendered ${count} objects.`
      : `${n} problem${n === 1 ? '' : 's'} in the spec${store.lastGood ? '; showing the last valid render' : ''}.`;
    // Announced when it changes, not on every keystroke that leaves it the same.
    if (this.status.textContent !== status) this.status.textContent = status;
    this.timing.textContent = `validated and rendered in ${renderMs.toFixed(1)} ms`;
    const detail: RenderedEventDetail = { ok: result.ok, renderMs, revision: store.revision };
    this.dispatchEvent(new CustomEvent('toolyard:rendered', { detail, bubbles: true }));
  }

  private lineProblems(result: PreviewResult): LineProblem[] {
    if (!result.ok) {
      return result.diagnostics.map((d) => ({
        line: d.line,
        severity: 'error',
        message: `${d.path}: ${d.message}${d.hint ? ` (hint: ${d.hint})` : ''}`,
      }));
    }
    return result.agents.flatMap((a) =>
      a.warnings.map((w) => ({
        line: w.line,
        severity: 'warning' as const,
        message: `${w.path}: ${w.message}`,
      })),
    );
  }

  private renderProblems(result: PreviewResult): void {
    if (result.ok) {
      this.problems.replaceChildren();
      return;
    }
    const item = (d: SpecDiagnostic) => {
      const button = h(
        'button',
        { type: 'button', class: 'ty-diagnostic', 'data-line': String(d.line) },
        h('span', { class: 'ty-line' }, `line ${d.line}`),
        ' ',
        h('code', { class: 'ty-path' }, d.path),
        ' ',
        h('span', {}, d.message),
        d.hint ? h('span', { class: 'ty-hint' }, ` — ${d.hint}`) : null,
      );
      button.addEventListener('click', () => goToLine(this.editor!, d.line));
      return h('li', {}, button);
    };
    this.problems.replaceChildren(
      h('h3', { id: 'ty-problems-heading' }, 'Problems (select one to go to its line)'),
      h('ul', { 'aria-labelledby': 'ty-problems-heading' }, ...result.diagnostics.map(item)),
    );
  }

  private renderOutput(): void {
    const store = this.store;
    const good = store.lastGood;
    if (!good) {
      this.output.replaceChildren(h('p', {}, 'Nothing rendered yet: fix the problems in the spec.'));
      return;
    }
    const stale = !store.result?.ok;
    // Typing usually changes the text shown, not what the views are made of: then only that text changes,
    // which keeps the work of a keystroke to the pane's one `<pre>`.
    const structure = `${stale}\u0000${viewStructure(good.agents, store.views)}`;
    const pre = this.output.querySelector<HTMLElement>('[role="tabpanel"] [role="tabpanel"] pre');
    const text = shownText(good.agents, store.views);
    if (structure === this.shownStructure && pre && text !== undefined) {
      if (pre.textContent !== text) pre.textContent = text;
      return;
    }
    this.shownStructure = structure;
    const banner = stale
      ? h('p', { class: 'ty-stale', role: 'note' }, 'The spec has problems; this is the last valid render.')
      : '';
    this.output.replaceChildren(
      banner,
      outputViews({
        agents: good.agents,
        state: store.views,
        previous: store.previous,
        pinned: store.pinned,
        refresh: () => {
          this.shownStructure = '';
          this.renderOutput();
        },
        pin: () => {
          store.pinned = snapshotOf(good.agents, `pinned at ${time()}`);
          store.views.diffAgainst = 'pinned';
          this.shownStructure = '';
          this.renderOutput();
        },
      }),
    );
    this.output.classList.toggle('ty-is-stale', stale);
  }

  private copy(text: string, what: string): void {
    // Said first: the clipboard may ask for permission and never answer.
    this.status.textContent = `Copying ${what}…`;
    navigator.clipboard.writeText(text).then(
      () => {
        this.status.textContent = `Copied ${what}.`;
      },
      () => {
        this.status.textContent = `The browser did not allow copying ${what}.`;
      },
    );
  }

  private downloadManifests(): void {
    const result = this.store.result;
    if (!result?.ok) return;
    const name = result.agents.map((a) => a.name).join('-') || 'agent';
    saveBlob(new Blob([result.yaml], { type: 'application/yaml' }), `${name}.k8s.yaml`);
  }

  /** One chart per agent of the current (valid) spec; the chart generator loads on first use. */
  private async downloadCharts(): Promise<void> {
    const result = this.store.result;
    if (!result?.ok) return;
    try {
      const { packageChartInBrowser } = await import('./chart-download.ts');
      for (const agent of result.agents) {
        const archive = await packageChartInBrowser(agent.rendered);
        saveBlob(archive.blob, archive.fileName);
      }
    } catch (error) {
      this.status.textContent = `The chart could not be generated: ${(error as Error).message}`;
    }
  }
}

function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

customElements.define('toolyard-playground', ToolyardPlayground);
