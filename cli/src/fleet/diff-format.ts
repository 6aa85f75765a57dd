/** A fleet diff for a terminal (text), a pull-request comment (markdown) or a program (JSON). */
import type { AgentDiff, Change, FleetDiff } from './fleet-diff.ts';

export type DiffFormat = 'text' | 'markdown' | 'json';
export const DIFF_FORMATS: readonly DiffFormat[] = ['text', 'markdown', 'json'];

const SECTIONS: readonly {
  key: 'authority' | 'egress' | 'egressByName' | 'credentials' | 'caches' | 'images' | 'mcpServers';
  title: string;
}[] = [
  { key: 'authority', title: 'Authority' },
  { key: 'egress', title: 'Egress' },
  { key: 'egressByName', title: 'Egress by name (through the broker)' },
  { key: 'credentials', title: 'Credentials' },
  { key: 'caches', title: 'Caches (a new writer of an existing claim widens)' },
  { key: 'images', title: 'Images' },
  { key: 'mcpServers', title: 'MCP servers' },
];

function headline(diff: FleetDiff): string {
  const widening = diff.agents.filter((a) => a.widens).length;
  const verdict = diff.widens
    ? `WIDENS authority or egress (${widening} agent${widening === 1 ? '' : 's'})`
    : 'nothing widens';
  return `toolyard diff ${diff.base} → ${diff.head}: ${diff.agents.length} agent${diff.agents.length === 1 ? '' : 's'} changed, ${diff.unchanged} unchanged; ${verdict}`;
}

function title(a: AgentDiff): string {
  const what = a.status === 'renamed' ? `renamed from ${a.from}` : a.status;
  return `${a.namespace}/${a.agent} (${what})${a.widens ? ' — widens' : ''}`;
}

function objectCounts(a: AgentDiff): string {
  return `objects: ${a.objects.added.length} added, ${a.objects.removed.length} removed, ${a.objects.changed.length} changed`;
}

export function formatText(diff: FleetDiff): string {
  const lines = [headline(diff)];
  for (const a of diff.agents) {
    lines.push('', title(a));
    for (const { key, title: t } of SECTIONS) {
      const change: Change = a[key];
      if (change.added.length + change.removed.length === 0) continue;
      lines.push(`  ${t}:`);
      for (const line of change.added) lines.push(`    + ${line}`);
      for (const line of change.removed) lines.push(`    - ${line}`);
    }
    if (a.credentialsMoved.length > 0) {
      lines.push('  Credentials moved to the broker:');
      for (const line of a.credentialsMoved) lines.push(`    > ${line}`);
    }
    lines.push(`  ${objectCounts(a)}`);
    for (const id of a.objects.added) lines.push(`    + ${id}`);
    for (const id of a.objects.removed) lines.push(`    - ${id}`);
    for (const id of a.objects.changed) lines.push(`    ~ ${id}`);
  }
  return lines.join('\n');
}

/** Markdown that GitHub and GitLab render alike; spec text is inside code spans, so it cannot inject markup. */
const codeSpan = (text: string) => {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ' ' : ''}${text}${fence === '``' ? ' ' : ''}${fence}`;
};

export function formatMarkdown(diff: FleetDiff): string {
  const icon = diff.widens ? '⚠️' : '✅';
  const lines = [`### ${icon} ${headline(diff).replace(/^toolyard diff /, 'toolyard diff: ')}`];
  if (diff.agents.length === 0) return lines.join('\n');
  lines.push(
    '',
    '| Agent | Change | Authority | Egress | Credentials | Objects |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  const count = (c: Change) =>
    c.added.length + c.removed.length === 0 ? '—' : `+${c.added.length} −${c.removed.length}`;
  for (const a of diff.agents) {
    const status = a.status === 'renamed' ? `renamed from ${codeSpan(a.from ?? '')}` : a.status;
    lines.push(
      `| ${codeSpan(`${a.namespace}/${a.agent}`)} | ${status}${a.widens ? ' **widens**' : ''} | ${count(a.authority)} | ${count(a.egress)} | ${count(a.credentials)} | +${a.objects.added.length} −${a.objects.removed.length} ~${a.objects.changed.length} |`,
    );
  }
  for (const a of diff.agents) {
    lines.push('', `<details${a.widens ? ' open' : ''}><summary>${escapeHtml(title(a))}</summary>`, '');
    for (const { key, title: t } of SECTIONS) {
      const change: Change = a[key];
      if (change.added.length + change.removed.length === 0) continue;
      lines.push(`**${t}**`, '', '```diff');
      for (const line of change.added) lines.push(`+ ${line}`);
      for (const line of change.removed) lines.push(`- ${line}`);
      lines.push('```', '');
    }
    if (a.credentialsMoved.length > 0) {
      lines.push('**Credentials moved to the broker**', '', '```');
      for (const line of a.credentialsMoved) lines.push(line);
      lines.push('```', '');
    }
    lines.push(`**Objects** (${objectCounts(a).replace('objects: ', '')})`, '', '```diff');
    for (const id of a.objects.added) lines.push(`+ ${id}`);
    for (const id of a.objects.removed) lines.push(`- ${id}`);
    for (const id of a.objects.changed) lines.push(`! ${id}`);
    lines.push('```', '', '</details>');
  }
  return lines.join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

export function formatJson(diff: FleetDiff): string {
  return `${JSON.stringify(diff, null, 2)}\n`;
}

export function formatDiff(diff: FleetDiff, format: DiffFormat): string {
  return format === 'json'
    ? formatJson(diff)
    : format === 'markdown'
      ? formatMarkdown(diff)
      : formatText(diff);
}
