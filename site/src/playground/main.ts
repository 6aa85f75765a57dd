/**
 * `<toolyard-playground>`: a CodeMirror YAML editor over a tiny store. Every edit is rendered in the browser
 * by the same renderer the CLI runs (see preview.ts); the last valid render stays on screen while the spec
 * is invalid, and the spec is kept in the URL fragment.
 */

import { defaultKeymap, historyKeymap, history as undoHistory } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { describeDestination, describePorts } from '../../../constructs/src/effective-egress.ts';
import { packageChartInBrowser } from './chart-download.ts';
import { h, type Tab, table, tabs } from './dom.ts';
import { type PreviewResult, previewSpec, type RenderedAgent, type SpecDiagnostic } from './preview.ts';
import { decodeSpecFragment, encodeSpecFragment } from './url-state.ts';

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

interface Store {
  revision: number;
  result: PreviewResult | undefined;
  lastGood: Extract<PreviewResult, { ok: true }> | undefined;
  view: string;
  selectedObject: string | undefined;
  selectedConfig: string | undefined;
}

const VIEWS = {
  manifests: 'Manifests',
  mcp: 'MCP client configs',
  pods: 'Pods and egress',
  access: 'What can it do',
  warnings: 'Warnings',
} as const;

function objectId(agent: RenderedAgent, index: number): string {
  const object = agent.objects[index]!;
  return `${agent.name}/${object.kind}/${object.metadata.name}`;
}

class ToolyardPlayground extends HTMLElement {
  editor: EditorView | undefined;
  private readonly store: Store = {
    revision: 0,
    result: undefined,
    lastGood: undefined,
    view: 'manifests',
    selectedObject: undefined,
    selectedConfig: undefined,
  };
  private examples: readonly Example[] = [];
  private pendingRender: ReturnType<typeof setTimeout> | undefined;
  private hashTimer: ReturnType<typeof setTimeout> | undefined;
  private status!: HTMLElement;
  private diagnosticsList!: HTMLElement;
  private output!: HTMLElement;
  private exampleSelect!: HTMLSelectElement;
  private downloadButton!: HTMLButtonElement;
  private chartButton!: HTMLButtonElement;

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
    this.editor = new EditorView({
      parent: this.querySelector<HTMLElement>('.ty-editor')!,
      state: EditorState.create({
        doc: initial,
        extensions: [
          highlightSpecialChars(),
          undoHistory(),
          drawSelection(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          lineNumbers(),
          highlightActiveLine(),
          highlightActiveLineGutter(),
          syntaxHighlighting(defaultHighlightStyle),
          yaml(),
          lintGutter(),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': 'Agent spec (YAML)', tabindex: '0' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) this.scheduleRender();
          }),
        ],
      }),
    });
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
    this.exampleSelect = h(
      'select',
      { id: 'ty-example' },
      h('option', { value: '' }, '(your spec)'),
      ...this.examples.map((e) => h('option', { value: e.name }, e.file)),
    );
    this.exampleSelect.addEventListener('change', () => {
      const example = this.examples.find((e) => e.name === this.exampleSelect.value);
      if (example && this.editor) this.setSpecText(example.text);
    });
    this.downloadButton = h('button', { type: 'button', class: 'ty-button' }, 'Download manifests (YAML)');
    this.downloadButton.addEventListener('click', () => this.downloadManifests());
    this.chartButton = h('button', { type: 'button', class: 'ty-button' }, 'Download Helm chart (.tgz)');
    this.chartButton.addEventListener('click', () => void this.downloadCharts());
    const copyLink = h('button', { type: 'button', class: 'ty-button' }, 'Copy link');
    copyLink.addEventListener('click', async () => {
      await this.updateUrl();
      // Said first: the clipboard may ask for permission and never answer.
      this.status.textContent = 'The address bar holds a link that reproduces this spec.';
      try {
        await navigator.clipboard.writeText(location.href);
        this.status.textContent = 'Link copied: it reproduces this spec.';
      } catch {
        // No clipboard access: the address bar has the link.
      }
    });
    this.diagnosticsList = h('div', { class: 'ty-diagnostics' });
    this.output = h('div', { class: 'ty-output' });
    this.replaceChildren(
      h(
        'div',
        { class: 'ty-toolbar' },
        h('label', { for: 'ty-example' }, 'Example'),
        this.exampleSelect,
        this.downloadButton,
        this.chartButton,
        copyLink,
      ),
      this.status,
      h(
        'div',
        { class: 'ty-layout' },
        h(
          'section',
          { class: 'ty-pane', 'aria-labelledby': 'ty-spec-heading' },
          h('h2', { id: 'ty-spec-heading' }, 'Spec'),
          this.diagnosticsList,
          h('div', { class: 'ty-editor' }),
        ),
        h(
          'section',
          { class: 'ty-pane', 'aria-labelledby': 'ty-output-heading' },
          h('h2', { id: 'ty-output-heading' }, 'Rendered in your browser'),
          this.output,
        ),
      ),
    );
  }

  /** Replaces the whole spec, as picking an example does. */
  setSpecText(text: string): void {
    const editor = this.editor!;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
  }

  private scheduleRender(): void {
    // Coalesces the changes of one task (a paste, a multi-cursor edit) into one render, then renders right
    // away: validation and rendering take ~10 ms, well under the gap between keystrokes.
    if (this.pendingRender !== undefined) return;
    this.pendingRender = setTimeout(() => {
      this.pendingRender = undefined;
      this.renderNow();
    }, 0);
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
    const started = performance.now();
    const result = previewSpec(editor.state.doc.toString());
    const renderMs = performance.now() - started;
    const store = this.store;
    store.revision += 1;
    store.result = result;
    if (result.ok) store.lastGood = result;
    if (!result.ok || this.exampleSelect.value !== '') {
      const text = editor.state.doc.toString();
      this.exampleSelect.value = this.examples.find((e) => e.text === text)?.name ?? '';
    }
    editor.dispatch(
      setDiagnostics(editor.state, result.ok ? [] : this.editorDiagnostics(result.diagnostics)),
    );
    this.renderDiagnostics(result);
    this.renderOutput();
    this.dataset['state'] = result.ok ? 'valid' : 'invalid';
    this.dataset['revision'] = String(store.revision);
    this.downloadButton.disabled = store.lastGood === undefined;
    this.chartButton.disabled = store.lastGood === undefined;
    if (result.ok) {
      const count = result.agents.reduce((n, a) => n + a.objects.length, 0);
      this.status.textContent = `Rendered ${count} objects in ${renderMs.toFixed(1)} ms.`;
    } else {
      const n = result.diagnostics.length;
      this.status.textContent = `${n} problem${n === 1 ? '' : 's'} in the spec${store.lastGood ? '; showing the last valid render' : ''}.`;
    }
    const detail: RenderedEventDetail = { ok: result.ok, renderMs, revision: store.revision };
    this.dispatchEvent(new CustomEvent('toolyard:rendered', { detail, bubbles: true }));
  }

  private editorDiagnostics(diagnostics: readonly SpecDiagnostic[]): Diagnostic[] {
    const doc = this.editor!.state.doc;
    return diagnostics.map((d) => {
      const line = doc.line(Math.min(Math.max(d.line, 1), doc.lines));
      return {
        from: line.from,
        to: line.to,
        severity: 'error',
        message: `${d.path}: ${d.message}${d.hint ? ` (hint: ${d.hint})` : ''}`,
      };
    });
  }

  private renderDiagnostics(result: PreviewResult): void {
    if (result.ok) {
      this.diagnosticsList.replaceChildren();
      return;
    }
    this.diagnosticsList.replaceChildren(
      h('h3', {}, 'Problems'),
      h(
        'ul',
        {},
        ...result.diagnostics.map((d) =>
          h(
            'li',
            { class: 'ty-diagnostic' },
            h('span', { class: 'ty-line' }, `line ${d.line}`),
            ' ',
            h('code', { class: 'ty-path' }, d.path),
            ' ',
            h('span', {}, d.message),
            d.hint ? h('span', { class: 'ty-hint' }, ` — ${d.hint}`) : null,
          ),
        ),
      ),
    );
  }

  private renderOutput(): void {
    const store = this.store;
    const good = store.lastGood;
    if (!good) {
      this.output.replaceChildren(h('p', {}, 'Nothing rendered yet: fix the problems on the left.'));
      return;
    }
    const stale = !store.result?.ok;
    const agents = good.agents;
    const many = agents.length > 1;
    const prefix = (agent: RenderedAgent) => (many ? `${agent.name}: ` : '');
    const warningCount = agents.reduce((n, a) => n + a.warnings.length, 0);
    const views: Tab[] = [
      {
        id: 'manifests',
        label: VIEWS.manifests,
        panel: () =>
          tabs(
            'ty-object',
            'Objects',
            agents.flatMap((agent) =>
              agent.objects.map((object, index) => ({
                id: objectId(agent, index),
                label: `${prefix(agent)}${object.kind} ${object.metadata.name}`,
                panel: () =>
                  h(
                    'pre',
                    { class: 'ty-code', 'data-kind': object.kind, tabindex: '0' },
                    yamlOf(agent, index),
                  ),
              })),
            ),
            agents.some((a) => a.objects.some((_, i) => objectId(a, i) === store.selectedObject))
              ? store.selectedObject
              : defaultObject(agents),
            (id) => {
              store.selectedObject = id;
              this.renderOutput();
            },
          ),
      },
      {
        id: 'mcp',
        label: VIEWS.mcp,
        panel: () => {
          const files = agents.flatMap((agent) =>
            agent.mcpConfigs.map((file) => ({
              id: `${agent.name}/${file.configMapKey}`,
              label: `${prefix(agent)}${file.backend} (${file.type}): ${file.fileName}`,
              panel: () => h('pre', { class: 'ty-code', tabindex: '0' }, file.content),
            })),
          );
          if (files.length === 0) return h('p', {}, 'No backend, so no MCP client config.');
          return tabs('ty-mcp', 'MCP client configs', files, store.selectedConfig, (id) => {
            store.selectedConfig = id;
            this.renderOutput();
          });
        },
      },
      { id: 'pods', label: VIEWS.pods, panel: () => h('div', {}, ...agents.map((a) => podsView(a, many))) },
      { id: 'access', label: VIEWS.access, panel: () => h('div', {}, ...agents.map((a) => accessView(a))) },
      {
        id: 'warnings',
        label: `${VIEWS.warnings} (${warningCount})`,
        panel: () =>
          warningCount === 0
            ? h('p', {}, 'No warnings.')
            : h(
                'ul',
                { class: 'ty-warnings' },
                ...agents.flatMap((a) =>
                  a.warnings.map((w) => h('li', {}, h('code', {}, w.path), ` ${prefix(a)}${w.message}`)),
                ),
              ),
      },
    ];
    const banner = stale
      ? h('p', { class: 'ty-stale', role: 'note' }, 'The spec has problems; this is the last valid render.')
      : '';
    this.output.replaceChildren(
      banner,
      tabs('ty-view', 'Output', views, store.view, (id) => {
        store.view = id;
        this.renderOutput();
      }),
    );
    this.output.classList.toggle('ty-is-stale', stale);
  }

  private downloadManifests(): void {
    const good = this.store.lastGood;
    if (!good) return;
    const name = good.agents.map((a) => a.name).join('-') || 'agent';
    saveBlob(new Blob([good.yaml], { type: 'application/yaml' }), `${name}.k8s.yaml`);
  }

  /** One chart per agent of the last valid render. */
  private async downloadCharts(): Promise<void> {
    const good = this.store.lastGood;
    if (!good) return;
    try {
      for (const agent of good.agents) {
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

/** The workload is what people look for first. */
function defaultObject(agents: readonly RenderedAgent[]): string | undefined {
  for (const agent of agents) {
    const index = agent.objects.findIndex((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
    if (index >= 0) return objectId(agent, index);
  }
  return undefined;
}

const yamlCache = new WeakMap<object, string>();

/** One object as YAML, exactly as it appears in the downloaded multi-document file. */
function yamlOf(agent: RenderedAgent, index: number): string {
  const object = agent.objects[index]!;
  let text = yamlCache.get(object);
  if (text === undefined) {
    text = agent.yaml.split(/^---\n/m)[index] ?? '';
    yamlCache.set(object, text);
  }
  return text;
}

function podsView(agent: RenderedAgent, many: boolean): HTMLElement {
  return h(
    'div',
    {},
    ...agent.report.pods.map((pod) =>
      h(
        'section',
        { class: 'ty-pod' },
        h('h3', {}, `${many ? `${agent.name}: ` : ''}${pod.kind} ${pod.pod}`),
        h('p', {}, `ServiceAccount ${pod.serviceAccount}`),
        table(
          `Containers of ${pod.pod}`,
          ['Container', 'Role', 'Image', 'Listens', 'Credentials'],
          pod.containers.map((c) => [
            h('code', {}, c.name),
            c.role,
            h('code', {}, c.image),
            c.listens,
            c.credentials.length > 0 ? c.credentials.join('; ') : 'none',
          ]),
        ),
        pod.egress.restricted
          ? table(
              `Effective egress of ${pod.pod} (pod-wide: a NetworkPolicy selects pods, not containers)`,
              ['Destination', 'Ports', 'Purpose', 'Needed by'],
              pod.egress.grants.map((g) => [
                describeDestination(g.to),
                describePorts(g.ports),
                g.purpose,
                g.neededBy.join(', '),
              ]),
            )
          : h('p', { class: 'ty-stale' }, 'Effective egress: unrestricted (NetworkPolicies disabled).'),
      ),
    ),
  );
}

function accessView(agent: RenderedAgent): HTMLElement {
  return h(
    'div',
    {},
    ...agent.report.serviceAccounts.map((sa) =>
      h(
        'section',
        { class: 'ty-sa' },
        h('h3', {}, `ServiceAccount ${sa.serviceAccount}`),
        h(
          'p',
          {},
          sa.tokenMountedInto.length > 0
            ? `Token mounted into: ${sa.tokenMountedInto.join(', ')}.`
            : 'No token is mounted into any container.',
        ),
        sa.grants.length === 0
          ? h('p', {}, 'Can do: nothing in the Kubernetes API.')
          : table(
              `What ${sa.serviceAccount} can do`,
              ['Namespace', 'Preset', 'Verbs', 'Resources', 'API groups'],
              sa.grants.flatMap((grant) =>
                grant.rules.map((rule) => [
                  grant.namespace,
                  grant.preset,
                  rule.verbs.join(', '),
                  rule.resources.join(', '),
                  rule.apiGroups.map((g) => (g === '' ? 'core' : g)).join(', '),
                ]),
              ),
            ),
      ),
    ),
  );
}

customElements.define('toolyard-playground', ToolyardPlayground);
