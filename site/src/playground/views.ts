/**
 * The output pane's views, built from the last valid render: manifests, MCP client configs, pods (diagram and
 * tables), what each ServiceAccount can do, what changed, and warnings. The tables, the diagram and the diff
 * are the pure components of `site/src/components/`, inserted as markup.
 */
import type { Html } from '../components/html.ts';
import { diffRenders, type RenderedObject, renderDiffHtml } from '../components/object-diff.ts';
import { podDiagramSvg } from '../components/pod-diagram.ts';
import { podDiagramModel } from '../components/pod-model.ts';
import { podTables, serviceAccountAccess } from '../components/tables.ts';
import { h, type Tab, tabs } from './dom.ts';
import type { RenderedAgent } from './preview.ts';

/** A render kept to compare against: every object's YAML by id. */
export interface RenderSnapshot {
  readonly label: string;
  readonly objects: readonly RenderedObject[];
}

export interface ViewState {
  view: string;
  selectedObject: string | undefined;
  selectedConfig: string | undefined;
  diffAgainst: 'previous' | 'pinned';
}

export interface ViewInput {
  readonly agents: readonly RenderedAgent[];
  readonly state: ViewState;
  readonly previous: RenderSnapshot | undefined;
  readonly pinned: RenderSnapshot | undefined;
  /** Re-renders the output after a view change. */
  readonly refresh: () => void;
  readonly pin: () => void;
}

export function objectId(agent: RenderedAgent, index: number): string {
  const object = agent.objects[index]!;
  return `${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`.replace(' /', ' ');
}

export function snapshotOf(agents: readonly RenderedAgent[], label: string): RenderSnapshot {
  return {
    label,
    objects: agents.flatMap((agent) =>
      agent.objects.map((_, i) => ({ id: objectId(agent, i), yaml: agent.objectYaml[i]! })),
    ),
  };
}

function markup(content: Html, className: string): HTMLElement {
  const element = h('div', { class: className });
  element.innerHTML = content.markup;
  return element;
}

/**
 * A copy button names what it copies (`data-copy`); the playground resolves it against the current render
 * when clicked, so a button kept across renders never copies an old one.
 */
function copyButton(label: string, what: string): HTMLButtonElement {
  return h('button', { type: 'button', class: 'ty-button ty-copy', 'data-copy': what }, label);
}

/** The text a `data-copy` names, from this render. */
export function copyText(
  agents: readonly RenderedAgent[],
  what: string,
): { text: string; label: string } | undefined {
  if (what === 'all') return { text: agents.map((a) => a.yaml).join('---\n'), label: 'all manifests' };
  for (const agent of agents) {
    for (const [index, object] of agent.objects.entries()) {
      if (what === `object:${objectId(agent, index)}`)
        return { text: agent.objectYaml[index]!, label: `${object.kind} ${object.metadata.name}` };
    }
    for (const file of agent.mcpConfigs) {
      if (what === `config:${agent.name}/${file.configMapKey}`)
        return { text: file.content, label: `${file.fileName} of ${file.backend}` };
    }
  }
  return undefined;
}

/** What the selected object or config shows: the text of the `<pre>` the views put in its panel. */
export function shownText(agents: readonly RenderedAgent[], state: ViewState): string | undefined {
  if (state.view === 'manifests') {
    const id = selectedObject(agents, state);
    return id === undefined ? undefined : copyText(agents, `object:${id}`)?.text;
  }
  if (state.view === 'mcp') {
    const id = state.selectedConfig ?? firstConfig(agents);
    return id === undefined ? undefined : copyText(agents, `config:${id}`)?.text;
  }
  return undefined;
}

function selectedObject(agents: readonly RenderedAgent[], state: ViewState): string | undefined {
  const ids = new Set(agents.flatMap((a) => a.objects.map((_, i) => objectId(a, i))));
  return state.selectedObject && ids.has(state.selectedObject) ? state.selectedObject : defaultObject(agents);
}

function firstConfig(agents: readonly RenderedAgent[]): string | undefined {
  const agent = agents.find((a) => a.mcpConfigs.length > 0);
  return agent ? `${agent.name}/${agent.mcpConfigs[0]!.configMapKey}` : undefined;
}

/**
 * What the views are made of, apart from the text they show: the same structure means an edit can update the
 * shown text in place instead of building the views again.
 */
export function viewStructure(agents: readonly RenderedAgent[], state: ViewState): string {
  return JSON.stringify([
    state,
    selectedObject(agents, state),
    agents.map((a) => [
      a.name,
      a.objects.map((_, i) => objectId(a, i)),
      a.mcpConfigs.map((f) => f.configMapKey),
      a.warnings.length,
    ]),
  ]);
}

/** The workload is what people look for first. */
function defaultObject(agents: readonly RenderedAgent[]): string | undefined {
  for (const agent of agents) {
    const index = agent.objects.findIndex((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
    if (index >= 0) return objectId(agent, index);
  }
  return undefined;
}

function manifests(input: ViewInput): Node {
  const { agents, state } = input;
  const many = agents.length > 1;
  const items: Tab[] = agents.flatMap((agent) =>
    agent.objects.map((object, index) => ({
      id: objectId(agent, index),
      label: `${many ? `${agent.name}: ` : ''}${object.kind} ${object.metadata.name}`,
      panel: () =>
        h(
          'div',
          {},
          h(
            'div',
            { class: 'ty-actions' },
            copyButton(`Copy ${object.kind} ${object.metadata.name}`, `object:${objectId(agent, index)}`),
          ),
          h('pre', { class: 'ty-code', 'data-kind': object.kind, tabindex: '0' }, agent.objectYaml[index]!),
        ),
    })),
  );
  return h(
    'div',
    {},
    h('div', { class: 'ty-actions' }, copyButton('Copy all manifests', 'all')),
    tabs('ty-object', 'Objects', items, selectedObject(agents, state), (id) => {
      state.selectedObject = id;
      input.refresh();
    }),
  );
}

function mcpConfigs(input: ViewInput): Node {
  const { agents, state } = input;
  const many = agents.length > 1;
  const files: Tab[] = agents.flatMap((agent) =>
    agent.mcpConfigs.map((file) => ({
      id: `${agent.name}/${file.configMapKey}`,
      label: `${many ? `${agent.name}: ` : ''}${file.backend} (${file.type}): ${file.fileName}`,
      panel: () =>
        h(
          'div',
          {},
          h(
            'div',
            { class: 'ty-actions' },
            copyButton(
              `Copy ${file.fileName} of ${file.backend}`,
              `config:${agent.name}/${file.configMapKey}`,
            ),
          ),
          h('pre', { class: 'ty-code', tabindex: '0' }, file.content),
        ),
    })),
  );
  if (files.length === 0) return h('p', {}, 'No backend, so no MCP client config.');
  return tabs('ty-mcp', 'MCP client configs', files, state.selectedConfig, (id) => {
    state.selectedConfig = id;
    input.refresh();
  });
}

function pods(input: ViewInput): Node {
  const many = input.agents.length > 1;
  return h(
    'div',
    {},
    ...input.agents.flatMap((agent, i) => [
      h(
        'div',
        {
          class: 'ty-scroll ty-diagram',
          role: 'region',
          tabindex: '0',
          'aria-label': `Pod diagram of ${agent.name}`,
        },
        markup(
          podDiagramSvg(podDiagramModel(agent.rendered.plan, agent.objects), `ty-diagram-${i}`),
          'ty-svg',
        ),
      ),
      ...agent.report.pods.map((pod) =>
        markup(podTables(pod, `${many ? `${agent.name}: ` : ''}${pod.kind} ${pod.pod}`), 'ty-pod-tables'),
      ),
    ]),
  );
}

function access(input: ViewInput): Node {
  return h(
    'div',
    {},
    ...input.agents.flatMap((agent) =>
      agent.report.serviceAccounts.map((account) => markup(serviceAccountAccess(account), 'ty-access')),
    ),
  );
}

function changes(input: ViewInput): Node {
  const { state } = input;
  const current = snapshotOf(input.agents, 'this render');
  const against = state.diffAgainst === 'pinned' ? input.pinned : input.previous;
  const choose = (value: 'previous' | 'pinned', label: string, enabled: boolean) => {
    const radio = h('input', {
      type: 'radio',
      name: 'ty-diff-against',
      value,
      id: `ty-diff-${value}`,
      checked: state.diffAgainst === value,
      disabled: !enabled,
    });
    radio.addEventListener('change', () => {
      state.diffAgainst = value;
      input.refresh();
    });
    return h('label', { for: `ty-diff-${value}`, class: 'ty-choice' }, radio, ` ${label}`);
  };
  const pin = h('button', { type: 'button', class: 'ty-button' }, 'Pin this render');
  pin.addEventListener('click', () => input.pin());
  const controls = h(
    'fieldset',
    { class: 'ty-diff-controls' },
    h('legend', {}, 'Compare with'),
    choose(
      'previous',
      input.previous ? `the last render (${input.previous.label})` : 'the last render (none yet)',
      input.previous !== undefined,
    ),
    choose(
      'pinned',
      input.pinned ? `the pinned render (${input.pinned.label})` : 'a pinned render (none yet)',
      input.pinned !== undefined,
    ),
    pin,
  );
  const body = against
    ? markup(renderDiffHtml(diffRenders(against.objects, current.objects), against.label), 'ty-diff-view')
    : h(
        'p',
        { class: 'ty-note' },
        state.diffAgainst === 'pinned'
          ? 'Pin a render to compare later edits with it.'
          : 'Edit the spec: the changes to the rendered objects show here.',
      );
  return h('div', {}, controls, body);
}

function warnings(input: ViewInput): Node {
  const many = input.agents.length > 1;
  const prefix = (agent: RenderedAgent) => (many ? `${agent.name}: ` : '');
  const open = input.agents.flatMap((a) =>
    a.warnings.map((w) => h('li', {}, h('code', {}, w.path), ` ${prefix(a)}${w.message}`)),
  );
  const accepted = input.agents.flatMap((a) =>
    a.acknowledged.map((w) =>
      h(
        'li',
        {},
        h('code', {}, w.path),
        ` ${prefix(a)}${w.message}`,
        h('br'),
        h('span', { class: 'ty-hint' }, `Reason: ${w.reason}`),
      ),
    ),
  );
  return h(
    'div',
    {},
    open.length === 0 ? h('p', {}, 'No warnings.') : h('ul', { class: 'ty-warnings' }, ...open),
    accepted.length > 0
      ? h(
          'section',
          {},
          h('h3', {}, 'Acknowledged in the spec (spec.acknowledgedWarnings)'),
          h('ul', { class: 'ty-warnings' }, ...accepted),
        )
      : null,
  );
}

export function outputViews(input: ViewInput): HTMLElement {
  const warningCount = input.agents.reduce((n, a) => n + a.warnings.length, 0);
  const views: Tab[] = [
    { id: 'manifests', label: 'Manifests', panel: () => manifests(input) },
    { id: 'mcp', label: 'MCP client configs', panel: () => mcpConfigs(input) },
    { id: 'pods', label: 'Pods and egress', panel: () => pods(input) },
    { id: 'access', label: 'What can it do', panel: () => access(input) },
    { id: 'changes', label: 'Changes', panel: () => changes(input) },
    { id: 'warnings', label: `Warnings (${warningCount})`, panel: () => warnings(input) },
  ];
  return tabs('ty-view', 'Output', views, input.state.view, (id) => {
    input.state.view = id;
    input.refresh();
  });
}
