/**
 * The toolchain server's reference pages, from its own exports: the config (its zod schema), the tools (the
 * listing the server itself serves over MCP, built by its `Toolchain` class, with input and result shapes),
 * and the error codes, policy rules, metrics and audit fields.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AUDIT_FIELDS } from '../../../toolchain-server/src/audit.ts';
import { TOOL_PRESETS, toolchainServerConfigSchema } from '../../../toolchain-server/src/config.ts';
import { ERROR_CODES, POLICY_RULES } from '../../../toolchain-server/src/errors.ts';
import { METRIC_NAMES } from '../../../toolchain-server/src/metrics.ts';
import { type ListedTool, Toolchain } from '../../../toolchain-server/src/toolchain.ts';
import { PRESET_TOOLS } from '../../../toolchain-server/src/tools/presets.ts';
import { type JsonSchema, requiredText, schemaFields } from '../schema-fields.ts';
import { fieldSections } from './fields.ts';
import { cell, frontmatter, GENERATED_NOTE, prose, write } from './markdown.ts';

/** A table of an object schema's fields, nested ones as dotted paths. */
function shapeTable(schema: JsonSchema): string {
  const rows = schemaFields(schema)
    .filter((f) => !f.path.endsWith('[]'))
    .map(
      (f) =>
        `| \`${f.path}\` | ${f.type} | ${requiredText(f) === 'yes' ? 'yes' : ''} | ${cell(f.description ?? '')} |`,
    );
  if (rows.length === 0) return 'No arguments.\n';
  return `| Field | Type | Required | Description |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`;
}

/**
 * Every tool the server can list: a toolchain in exec mode with every preset and an egress proxy (the fetch
 * tools are offered only with one), as the server builds it. The proxy's token file is a throwaway.
 */
function everyTool(): ListedTool[] {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-reference-'));
  try {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'reference-token\n');
    const config = toolchainServerConfigSchema.parse({
      name: 'reference',
      listen: { port: 0 },
      workspaceRoots: ['/workspace'],
      tools: { mode: 'exec', presets: [...TOOL_PRESETS], allowedCommands: [] },
      egressProxy: { url: 'http://reference-broker:8480', user: 'reference', tokenFile, phase: 'fetch' },
    });
    return [...new Toolchain({ config, probeVersions: false, log: () => {}, env: {} }).listedTools];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function configPage(dir: string): Promise<void> {
  const jsonSchema = z.toJSONSchema(toolchainServerConfigSchema, {
    io: 'input',
    target: 'draft-7',
    unrepresentable: 'any',
  }) as JsonSchema;
  const body = [
    frontmatter(
      'Toolchain server config',
      'The config each toolchain sidecar receives, from the server’s own zod schema.',
      { sidebar: { order: 3 } },
    ),
    GENERATED_NOTE(
      'the zod schema in `toolchain-server/src/config.ts` (the one contract between renderer and server)',
    ),
    'The renderer writes this config into a ConfigMap for each toolchain; the server parses it with the same schema at start and refuses to run on anything else. You do not write it by hand: it follows from the `spec.toolchains[]` entry of your Agent.\n',
    '## Fields\n',
    fieldSections(schemaFields(jsonSchema), [], '###'),
  ];
  await write(join(dir, 'toolchain-server-config.md'), body.join('\n'));
}

async function toolsPage(dir: string): Promise<void> {
  const tools = everyTool();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const section = (tool: ListedTool, binaries: string) =>
    `### \`${tool.name}\`\n\n**${prose(tool.title)}.** ${prose(tool.description)}\n\n${binaries}Arguments:\n\n${shapeTable(tool.inputSchema as JsonSchema)}`;
  const describe = byName.get('describe_toolchain');
  const exec = byName.get('exec_allowed');
  if (!describe || !exec)
    throw new Error('the toolchain server no longer lists describe_toolchain and exec_allowed');
  const anyExecTool = tools.find((t) => t.name !== 'describe_toolchain')!;
  const groups = Object.entries(PRESET_TOOLS).map(
    ([preset, presetTools]) =>
      `## Preset \`${preset}\`\n\n${presetTools
        .map((t) =>
          section(
            byName.get(t.name)!,
            `Runs: ${t.binaries.map((b) => `\`${b}\``).join(', ') || 'nothing'}.\n\n`,
          ),
        )
        .join('\n')}`,
  );
  const body = [
    frontmatter(
      'Toolchain server tools',
      'Every MCP tool a toolchain offers, with its arguments and results.',
      {
        sidebar: { order: 4 },
      },
    ),
    GENERATED_NOTE(
      'the tool listing the server serves (`Toolchain#listedTools` in `toolchain-server/src/toolchain.ts`, over `PRESET_TOOLS`, `exec_allowed` and `describe_toolchain`)',
    ),
    'Structured tools come first: each builds an argv from typed arguments, never a shell line. A toolchain lists `describe_toolchain`, the tools of its `tools.presets`, and `exec_allowed` only in `exec` mode. Every tool that runs a process also takes `cwd` (relative to the first workspace root, or absolute inside one) and `timeoutSeconds`.\n',
    '## Results\n',
    'Every tool that runs a process returns the same result: `structuredContent` of this shape (its `outputSchema`), plus a short text summary (the outcome, then the tails of stderr and stdout). A non-zero exit, a timeout, a signal or a cancellation sets `isError: true`.\n',
    shapeTable(anyExecTool.outputSchema as JsonSchema),
    'A call the policy refuses, or one that fails before its process runs, returns `isError: true` with text `CODE [rule RULE]: why. Allowed instead: what` and the same data in `_meta["dev.toolyard/error"]`: `code` (see [error codes](/reference/toolchain-server-errors/)), `rule` (or null), `message`, `allowed` (or null). An unknown tool name or malformed request is a JSON-RPC error instead.\n',
    '## On every toolchain\n',
    section(describe, ''),
    `Result (\`structuredContent\`, also its \`outputSchema\`):\n\n${shapeTable(describe.outputSchema as JsonSchema)}`,
    '## Exec mode\n',
    section(
      exec,
      'Runs: the bare command names in `tools.allowedCommands`, resolved on the server’s PATH at start.\n\n',
    ),
    ...groups,
  ];
  await write(join(dir, 'toolchain-server-tools.md'), body.join('\n'));
}

async function errorsPage(dir: string): Promise<void> {
  const body = [
    frontmatter(
      'Error codes and audit log',
      'The toolchain server’s error codes, policy rules, metrics and audit line.',
      { sidebar: { order: 5 } },
    ),
    GENERATED_NOTE(
      '`ERROR_CODES` and `POLICY_RULES` (`toolchain-server/src/errors.ts`), `METRIC_NAMES` (`toolchain-server/src/metrics.ts`) and `AUDIT_FIELDS` (`toolchain-server/src/audit.ts`)',
    ),
    '## Error codes\n',
    'Every refusal or tool failure carries one of these codes, at the start of its text and in `_meta["dev.toolyard/error"].code` (see [results](/reference/toolchain-server-tools/#results)). `denied` means a policy decided; `error` means the call failed around the policy.\n',
    '| Code | Decision | Meaning |\n| --- | --- | --- |',
    `${Object.entries(ERROR_CODES)
      .map(([code, info]) => `| \`${code}\` | ${info.decision} | ${cell(info.summary)} |`)
      .join('\n')}\n`,
    '## Policy rules\n',
    'A denial names the rule that decided it (the `rule` field of the audit line).\n',
    '| Rule | What it refuses |\n| --- | --- |',
    `${Object.entries(POLICY_RULES)
      .map(([rule, meaning]) => `| \`${rule}\` | ${cell(meaning)} |`)
      .join('\n')}\n`,
    '## Metrics\n',
    'Served in the Prometheus text format at `/metrics`.\n',
    `${METRIC_NAMES.map((name) => `- \`${name}\``).join('\n')}\n`,
    '## Audit line\n',
    'One JSON line per tool call, on stdout. Values that could carry secrets (environment values, session ids) are never logged.\n',
    '| Field | Meaning |\n| --- | --- |',
    `${Object.entries(AUDIT_FIELDS)
      .map(([field, meaning]) => `| \`${field}\` | ${cell(meaning)} |`)
      .join('\n')}\n`,
  ];
  await write(join(dir, 'toolchain-server-errors.md'), body.join('\n'));
}

export async function toolchainServerReference(dir: string): Promise<void> {
  await configPage(dir);
  await toolsPage(dir);
  await errorsPage(dir);
}
