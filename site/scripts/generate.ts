/**
 * Generates everything the site derives from the sources, before `astro build`:
 * - reference pages from the JSON Schema, the CLI's own help (`COMMANDS`) and the toolchain server's exports;
 * - the examples gallery, each spec rendered by the renderer the CLI runs;
 * - `/schema/v1alpha1/agent.json`, the playground bundle and its examples, and the chart repository.
 * Nothing here is retyped documentation: change the source and the page changes.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { stringify } from 'yaml';
import { COMMANDS, generalUsage } from '../../cli/src/main.ts';
import { checkSpecText } from '../../constructs/src/check-spec-text.ts';
import { explainAgent, formatExplainReport } from '../../constructs/src/explain.ts';
import { mcpClientConfigFiles } from '../../constructs/src/mcp-client-configs.ts';
import { renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';
import { bundleForBrowser } from './bundle-playground.ts';
import { buildChartRepository } from './chart-repository.ts';
import {
  describeType,
  type JsonSchema,
  resolveRef,
  type SchemaField,
  schemaFields,
} from './schema-fields.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const site = join(repo, 'site');
const docs = join(site, 'src/content/docs');
const referenceDir = join(docs, 'reference');
const examplesDir = join(docs, 'examples');
const inDepthDir = join(docs, 'in-depth');
const generatedDir = join(site, 'src/generated');
const publicDir = join(site, 'public');

const notes: string[] = [];

async function write(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}

/** Escapes HTML-significant characters in Markdown prose, leaving `code spans` untouched. */
function prose(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('');
}

function frontmatter(title: string, description: string, extra: Record<string, unknown> = {}): string {
  return `---\n${stringify({ title, description, ...extra }, { lineWidth: 0 })}---\n\n`;
}

const GENERATED_NOTE = (source: string) =>
  `:::note[Generated]\nThis page is generated from ${source} at build time; edit the source, not this page.\n:::\n\n`;

function yamlValue(value: unknown): string {
  return stringify(value, { lineWidth: 0 }).trimEnd();
}

/** The example for a field: from the schema's `examples`, else the first example spec that sets it. */
function exampleFor(field: SchemaField, specs: readonly unknown[]): unknown {
  if (field.examples.length > 0) return field.examples[0];
  for (const spec of specs) {
    const value = valueAt(spec, field.path.split('.'));
    if (value !== undefined) return value;
  }
  return undefined;
}

function valueAt(value: unknown, segments: readonly string[]): unknown {
  if (segments.length === 0) return value;
  const [head, ...rest] = segments as [string, ...string[]];
  const isArray = head.endsWith('[]');
  const key = isArray ? head.slice(0, -2) : head;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const child = (value as Record<string, unknown>)[key];
  if (!isArray) return valueAt(child, rest);
  if (!Array.isArray(child)) return undefined;
  for (const item of child) {
    const found = valueAt(item, rest);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A field's example shown as the YAML you would write, nested under its path. */
function exampleSnippet(path: string, value: unknown): string {
  const segments = path.split('.');
  let nested: unknown = value;
  for (const segment of [...segments].reverse()) {
    nested = segment.endsWith('[]')
      ? { [segment.slice(0, -2)]: [nested] }
      : segment === '<key>'
        ? { 'example-key': nested }
        : { [segment]: nested };
  }
  return yamlValue(nested);
}

function fieldSections(fields: readonly SchemaField[], specs: readonly unknown[], level: string): string {
  const out: string[] = [];
  for (const field of fields) {
    if (field.path.endsWith('[]')) continue;
    out.push(`${level} \`${field.path}\`\n`);
    const facts = [
      `**Type:** ${field.type}`,
      `**Required:** ${field.required ? 'yes' : 'no'}`,
      `**Default:** ${field.default === undefined ? 'none' : `\`${JSON.stringify(field.default)}\``}`,
    ];
    out.push(`${facts.join(' · ')}\n`);
    if (field.description) out.push(`${prose(field.description)}\n`);
    if (field.constraints.length > 0) out.push(`Constraints: ${prose(field.constraints.join('; '))}.\n`);
    const example = exampleFor(field, specs);
    if (example !== undefined)
      out.push(`Example:\n\n\`\`\`yaml\n${exampleSnippet(field.path, example)}\n\`\`\`\n`);
  }
  return out.join('\n');
}

async function specReference(schema: JsonSchema, specs: readonly unknown[]): Promise<void> {
  const fields = schemaFields(schema);
  const top = fields.filter((f) => !f.path.includes('.'));
  const index = fields
    .filter((f) => !f.path.endsWith('[]'))
    .map((f) => `| [\`${f.path}\`](#${anchor(f.path)}) | ${f.type} | ${f.required ? 'yes' : ''} |`);
  const body = [
    frontmatter(
      'Spec reference',
      'Every field of the toolyard Agent spec (toolyard.dev/v1alpha1), from the JSON Schema.',
      {
        sidebar: { order: 1 },
      },
    ),
    GENERATED_NOTE('`schema/agent.schema.json`'),
    `${prose(schema.description ?? '')}\n`,
    `The schema is published at [\`/schema/v1alpha1/agent.json\`](/schema/v1alpha1/agent.json) (its \`$id\` is \`${(schema as { $id?: string }).$id}\`). Point an editor at it with a first line such as:\n`,
    '```yaml\n# yaml-language-server: $schema=https://toolyard.dev/schema/v1alpha1/agent.json\n```\n',
    `## All fields\n\n${top.length} top-level fields, ${index.length} in all.\n`,
    '| Field | Type | Required |\n| --- | --- | --- |',
    `${index.join('\n')}\n`,
    '## Fields\n',
    fieldSections(fields, specs, '###'),
  ];
  await write(join(referenceDir, 'spec.md'), body.join('\n'));
}

/** Starlight's heading ids (github-slugger): lowercase, punctuation other than "-" and "_" dropped. */
function anchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

async function cliReference(): Promise<void> {
  const sections = Object.entries(COMMANDS).map(
    ([name, command]) =>
      `## \`toolyard ${name}\`\n\n${prose(command.summary)}.\n\n\`\`\`text\n${command.usage}\n\`\`\`\n`,
  );
  const body = [
    frontmatter('CLI reference', 'The toolyard command line, from its own --help.', {
      sidebar: { order: 2 },
    }),
    GENERATED_NOTE('the CLI’s own help (`COMMANDS` and `generalUsage()` in `cli/src/main.ts`)'),
    '```text\n$ toolyard --help\n' + generalUsage() + '\n```\n',
    'Exit codes: `0` success, `1` invalid input (every problem is reported as `file:line: path: message`), `2` usage error.\n',
    ...sections,
  ];
  await write(join(referenceDir, 'cli.md'), body.join('\n'));
}

/** Imports an optional module of another component; missing or broken means "not there yet". */
async function optionalImport(relative: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await import(pathToFileURL(join(repo, relative)).href)) as Record<string, unknown>;
  } catch (error) {
    notes.push(`${relative}: not available (${(error as Error).message.split('\n')[0]})`);
    return undefined;
  }
}

interface ZodLike {
  readonly _zod?: unknown;
}

async function toolchainServerReference(): Promise<void> {
  const { z } = await import('zod');
  const config = await optionalImport('toolchain-server/src/config.ts');
  if (config?.['toolchainServerConfigSchema']) {
    const jsonSchema = z.toJSONSchema(config['toolchainServerConfigSchema'] as never, {
      io: 'input',
      target: 'draft-7',
      unrepresentable: 'any',
    }) as JsonSchema;
    const fields = schemaFields(jsonSchema);
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
      fieldSections(fields, [], '###'),
    ];
    await write(join(referenceDir, 'toolchain-server-config.md'), body.join('\n'));
  }

  const presets = await optionalImport('toolchain-server/src/tools/presets.ts');
  const execAllowed = await optionalImport('toolchain-server/src/tools/exec-allowed.ts');
  if (presets?.['PRESET_TOOLS']) {
    type Tool = {
      name: string;
      title: string;
      description: string;
      binaries: readonly string[];
      input: ZodLike;
    };
    const groups = Object.entries(presets['PRESET_TOOLS'] as Record<string, readonly Tool[]>);
    const exec = execAllowed?.['execAllowedTool'] as Tool | undefined;
    if (exec) groups.push(['exec mode', [exec]]);
    const toolSection = (tool: Tool) => {
      let params = '';
      try {
        const input = z.toJSONSchema(tool.input as never, {
          io: 'input',
          unrepresentable: 'any',
        }) as JsonSchema;
        const rows = Object.entries(input.properties ?? {}).map(([name, p]) => {
          const resolved = resolveRef(input, p);
          return `| \`${name}\` | ${describeType(input, p)} | ${input.required?.includes(name) ? 'yes' : ''} | ${prose((resolved.description ?? '').replace(/\n/g, ' ').replace(/\|/g, '\\|'))} |`;
        });
        if (rows.length > 0)
          params = `| Argument | Type | Required | Description |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`;
      } catch (error) {
        params = `(input schema not representable: ${(error as Error).message})\n`;
      }
      return `### \`${tool.name}\`\n\n**${prose(tool.title)}.** ${prose(tool.description)}\n\nBinaries: ${tool.binaries.length > 0 ? tool.binaries.map((b) => `\`${b}\``).join(', ') : 'from `tools.allowedCommands`'}.\n\n${params}`;
    };
    const body = [
      frontmatter(
        'Toolchain server tools',
        'The MCP tools each toolchain preset offers, from the server’s tool table.',
        {
          sidebar: { order: 4 },
        },
      ),
      GENERATED_NOTE('`PRESET_TOOLS` and `execAllowedTool` in `toolchain-server/src/tools/`'),
      'Structured tools come first: each builds an argv from typed arguments, never a shell line. `exec_allowed` exists only in `exec` mode and runs only bare command names listed in `tools.allowedCommands`.\n',
      ...groups.map(([group, tools]) => `## ${group}\n\n${tools.map(toolSection).join('\n')}`),
    ];
    await write(join(referenceDir, 'toolchain-server-tools.md'), body.join('\n'));
  } else {
    notes.push('toolchain server tools page: PRESET_TOOLS not exported yet');
  }

  const errors = await optionalImport('toolchain-server/src/errors.ts');
  const audit = await optionalImport('toolchain-server/src/audit.ts');
  const errorCodes = errors?.['ERROR_CODES'] as
    | Record<string, { summary: string; decision: string }>
    | undefined;
  const auditFields = audit?.['AUDIT_FIELDS'] as Record<string, string> | undefined;
  const policyRules = errors?.['POLICY_RULES'] as Record<string, string> | undefined;
  const metrics = await optionalImport('toolchain-server/src/metrics.ts');
  const metricNames = metrics?.['METRIC_NAMES'] as readonly string[] | undefined;
  if (errorCodes || auditFields) {
    const body = [
      frontmatter(
        'Error codes and audit log',
        'The toolchain server’s error codes, policy rules, metrics and audit line.',
        {
          sidebar: { order: 5 },
        },
      ),
      GENERATED_NOTE(
        '`ERROR_CODES` and `POLICY_RULES` (`toolchain-server/src/errors.ts`), `METRIC_NAMES` (`toolchain-server/src/metrics.ts`) and `AUDIT_FIELDS` (`toolchain-server/src/audit.ts`)',
      ),
    ];
    if (errorCodes) {
      body.push(
        '## Error codes\n',
        'Every refusal or tool failure carries one of these codes, in its text and in `structuredContent.error.code`. `denied` means a policy decided; `error` means the call failed around the policy.\n',
        '| Code | Decision | Meaning |\n| --- | --- | --- |',
        `${Object.entries(errorCodes)
          .map(
            ([code, info]) =>
              `| \`${code}\` | ${info.decision} | ${prose(info.summary.replace(/\|/g, '\\|'))} |`,
          )
          .join('\n')}\n`,
      );
    } else {
      body.push(
        '## Error codes\n',
        'The error-code catalogue is not exported by the toolchain server yet.\n',
      );
    }
    if (policyRules) {
      body.push(
        '## Policy rules\n',
        'A denial names the rule that decided it (the `rule` field of the audit line).\n',
        '| Rule | What it refuses |\n| --- | --- |',
        `${Object.entries(policyRules)
          .map(([rule, meaning]) => `| \`${rule}\` | ${prose(meaning.replace(/\|/g, '\\|'))} |`)
          .join('\n')}\n`,
      );
    }
    if (metricNames) {
      body.push(
        '## Metrics\n',
        'Served in the Prometheus text format at `/metrics`.\n',
        `${metricNames.map((name) => `- \`${name}\``).join('\n')}\n`,
      );
    }
    if (auditFields) {
      body.push(
        '## Audit line\n',
        'One JSON line per tool call, on stdout. Values that could carry secrets (environment values, session ids) are never logged.\n',
        '| Field | Meaning |\n| --- | --- |',
        `${Object.entries(auditFields)
          .map(([field, meaning]) => `| \`${field}\` | ${prose(meaning.replace(/\|/g, '\\|'))} |`)
          .join('\n')}\n`,
      );
    } else {
      body.push('## Audit line\n', 'The audit field list is not exported by the toolchain server yet.\n');
    }
    await write(join(referenceDir, 'toolchain-server-errors.md'), body.join('\n'));
  }
}

export function playgroundLink(text: string): string {
  return `/playground/#spec=${deflateRawSync(Buffer.from(text, 'utf8')).toString('base64url')}`;
}

interface ExampleSpec {
  readonly name: string;
  readonly file: string;
  readonly text: string;
  readonly summary: string;
}

async function readExamples(): Promise<ExampleSpec[]> {
  const dir = join(repo, 'examples');
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const examples: ExampleSpec[] = [];
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8');
    const summary = text
      .split('\n')
      .filter((line) => line.startsWith('#') && !line.includes('yaml-language-server'))
      .map((line) => line.replace(/^#\s?/, ''))
      .join(' ');
    examples.push({ name: basename(file).replace(/\.ya?ml$/, ''), file, text, summary });
  }
  // The playground opens on the first one: the polyglot reviewer shows the most at once.
  return examples.sort(
    (a, b) => Number(b.name === 'polyglot-reviewer') - Number(a.name === 'polyglot-reviewer'),
  );
}

async function examplesGallery(examples: readonly ExampleSpec[]): Promise<void> {
  const cards: string[] = [];
  for (const [order, example] of examples.entries()) {
    const checked = checkSpecText(example.text, `examples/${example.file}`);
    if (!checked.ok)
      throw new Error(`examples/${example.file} is invalid: ${JSON.stringify(checked.errors)}`);
    const sections: string[] = [];
    for (const spec of checked.specs) {
      const result = renderAgent(spec.agent);
      const report = explainAgent(result.plan);
      sections.push(
        `## What is generated for \`${spec.agent.metadata.name}\`\n`,
        '```text\n' + formatExplainReport(report) + '```\n',
        result.warnings.length > 0
          ? `### Warnings\n\n${result.warnings.map((w) => `- \`${w.path}\`: ${prose(w.message)}`).join('\n')}\n`
          : '',
        result.acknowledgedWarnings.length > 0
          ? `### Acknowledged warnings\n\nThe spec accepts these on purpose (\`spec.acknowledgedWarnings\`):\n\n${result.acknowledgedWarnings.map((w) => `- \`${w.path}\`: ${prose(w.message)}\n  **Reason:** ${prose(w.reason)}`).join('\n')}\n`
          : '',
        '### MCP client configs\n',
        ...mcpClientConfigFiles(result.plan).map(
          (f) =>
            `\`${f.configMapKey}\` — backend \`${f.backend}\` (${f.type}):\n\n\`\`\`${f.fileName.split('.').pop()}\n${f.content.trimEnd()}\n\`\`\`\n`,
        ),
        `### Manifests (${result.objects.length} objects)\n`,
        'Exactly what `toolyard synth` writes, object by object.\n',
        ...result.objects.map(
          (object) =>
            `#### ${object.kind} \`${object.metadata.name}\`\n\n\`\`\`yaml\n${toYamlDocuments([object]).trimEnd()}\n\`\`\`\n`,
        ),
      );
    }
    const link = playgroundLink(example.text);
    const body = [
      frontmatter(example.name, example.summary || `The ${example.name} example.`, {
        sidebar: { order: order + 2 },
      }),
      GENERATED_NOTE(`\`examples/${example.file}\`, rendered by the same renderer as \`toolyard synth\``),
      `${prose(example.summary)}\n`,
      `[Open this spec in the playground](${link}) · \`toolyard synth examples/${example.file}\`\n`,
      '## The spec\n',
      `\`\`\`yaml title="examples/${example.file}"\n${example.text.trimEnd()}\n\`\`\`\n`,
      ...sections,
    ];
    await write(join(examplesDir, `${example.name}.md`), body.join('\n'));
    cards.push(`- [**${example.name}**](/examples/${example.name}/): ${prose(example.summary)}`);
  }
  const index = [
    frontmatter('Examples gallery', 'Every spec in examples/, with what toolyard generates for it.', {
      sidebar: { order: 1, label: 'Gallery' },
    }),
    GENERATED_NOTE('the specs in `examples/`'),
    'Each example is a real spec from the repository, rendered at build time by the same renderer the CLI and the playground run. Open any of them in the [playground](/playground/) to change it.\n',
    cards.join('\n'),
    '',
  ];
  await write(join(examplesDir, 'index.md'), index.join('\n'));
}

/**
 * The repository's own documents (docs/*.md: the security model, GitOps, Helm, the toolchain server,
 * benchmarks, decisions) published as they are, so the site and the repository never tell two stories.
 */
async function repositoryDocs(): Promise<void> {
  const dir = join(repo, 'docs');
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.md')).sort();
  for (const [order, file] of files.entries()) {
    const text = await readFile(join(dir, file), 'utf8');
    const heading = /^# (.+)$/m.exec(text);
    const title = (heading?.[1] ?? basename(file, '.md')).replace(/`/g, '');
    // Links between these documents point at their pages on the site.
    const body = (heading ? text.replace(heading[0], '').trimStart() : text).replace(
      /\]\((?:\.\/)?([\w-]+)\.md(#[^)]*)?\)/g,
      (_, name: string, fragment: string | undefined) => `](/in-depth/${name}/${fragment ?? ''})`,
    );
    const firstParagraph =
      body
        .split(/\n\s*\n/)[0]
        ?.replace(/\s+/g, ' ')
        .replace(/[`*]/g, '') ?? '';
    const description = firstParagraph.split(/(?<=\.)\s/)[0]?.slice(0, 200) ?? title;
    await write(
      join(inDepthDir, file),
      [
        frontmatter(title, description, { sidebar: { order: order + 1 } }),
        GENERATED_NOTE(`\`docs/${file}\` in the repository`),
        body,
      ].join(''),
    );
  }
}

export async function generateSite(): Promise<{ notes: string[]; playgroundBytes: number }> {
  // Astro caches rendered Markdown by file content, not by config: a config change (code-block wrapping, say)
  // would otherwise leave unchanged pages rendered the old way.
  await rm(join(site, 'node_modules/.astro'), { recursive: true, force: true });
  await rm(referenceDir, { recursive: true, force: true });
  await rm(examplesDir, { recursive: true, force: true });
  await rm(inDepthDir, { recursive: true, force: true });
  await rm(generatedDir, { recursive: true, force: true });
  for (const dir of ['schema', 'playground', 'charts']) {
    await rm(join(publicDir, dir), { recursive: true, force: true });
  }
  const schemaText = await readFile(join(repo, 'schema/agent.schema.json'), 'utf8');
  const schema = JSON.parse(schemaText) as JsonSchema;
  const examples = await readExamples();
  const specs = examples.flatMap((e) => {
    const checked = checkSpecText(e.text, e.file);
    return checked.ok ? checked.specs.map((s) => s.agent as unknown) : [];
  });

  await specReference(schema, specs);
  await cliReference();
  await toolchainServerReference();
  await examplesGallery(examples);
  await repositoryDocs();

  await write(join(publicDir, 'schema/v1alpha1/agent.json'), schemaText);
  await write(
    join(generatedDir, 'examples.json'),
    JSON.stringify(examples.map(({ name, file, text }) => ({ name, file, text }))),
  );
  const metafile = await bundleForBrowser({
    entryPoints: { playground: join(site, 'src/playground/main.ts') },
    outdir: join(publicDir, 'playground'),
  });
  const playgroundBytes = Object.values(metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  // Kept out of the published site; bench/preview reads it to say what the bundle is made of.
  await write(join(generatedDir, 'playground-metafile.json'), JSON.stringify(metafile));
  notes.push(...(await buildChartRepository({ repo, outdir: join(publicDir, 'charts'), examples })));
  return { notes, playgroundBytes };
}

if (import.meta.main) {
  const { notes: found, playgroundBytes } = await generateSite();
  console.log(
    `site: generated reference, examples and playground (${(playgroundBytes / 1024).toFixed(0)} KiB JS)`,
  );
  for (const note of found) console.log(`site: note: ${note}`);
}
