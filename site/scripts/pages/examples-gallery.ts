/** `examples/*.md`: every spec in `examples/`, rendered at build time by the renderer the CLI runs. */

import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { checkSpecText } from '../../../constructs/src/check-spec-text.ts';
import { explainAgent, formatExplainReport } from '../../../constructs/src/explain.ts';
import { mcpClientConfigFiles } from '../../../constructs/src/mcp-client-configs.ts';
import { renderAgent, toYamlDocuments } from '../../../constructs/src/render.ts';
import { podDiagramSvg } from '../../src/components/pod-diagram.ts';
import { podDiagramModel } from '../../src/components/pod-model.ts';
import { frontmatter, GENERATED_NOTE, prose, write } from './markdown.ts';

export interface ExampleSpec {
  readonly name: string;
  readonly file: string;
  readonly text: string;
  readonly summary: string;
}

export function playgroundLink(text: string): string {
  return `/playground/#spec=${deflateRawSync(Buffer.from(text, 'utf8')).toString('base64url')}`;
}

function agentSections(example: ExampleSpec): string[] {
  const checked = checkSpecText(example.text, `examples/${example.file}`);
  if (!checked.ok) throw new Error(`examples/${example.file} is invalid: ${JSON.stringify(checked.errors)}`);
  return checked.specs.flatMap((spec) => {
    const result = renderAgent(spec.agent);
    const name = spec.agent.metadata.name;
    // The playground's pod diagram, the same component, as static markup (one line: an HTML block).
    const diagram = podDiagramSvg(podDiagramModel(result.plan, result.objects), `diagram-${name}`).markup;
    return [
      `## What is generated for \`${name}\`\n`,
      `<div class="ty-scroll ty-diagram not-content" role="region" tabindex="0" aria-label="Pod diagram of ${name}">${diagram.replace(/\n/g, ' ')}</div>\n`,
      '```text\n' + formatExplainReport(explainAgent(result.plan)) + '```\n',
      result.warnings.length > 0
        ? `### Warnings\n\n${result.warnings.map((w) => `- \`${w.path}\`: ${prose(w.message)}`).join('\n')}\n`
        : '',
      result.acknowledgedWarnings.length > 0
        ? `### Acknowledged warnings\n\nThe spec accepts these on purpose (\`spec.acknowledgedWarnings\`):\n\n${result.acknowledgedWarnings
            .map((w) => `- \`${w.path}\`: ${prose(w.message)}\n  **Reason:** ${prose(w.reason)}`)
            .join('\n')}\n`
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
    ];
  });
}

export async function examplesGallery(dir: string, examples: readonly ExampleSpec[]): Promise<void> {
  const cards: string[] = [];
  for (const [order, example] of examples.entries()) {
    const body = [
      frontmatter(example.name, example.summary || `The ${example.name} example.`, {
        sidebar: { order: order + 2 },
      }),
      GENERATED_NOTE(`\`examples/${example.file}\`, rendered by the same renderer as \`toolyard synth\``),
      `${prose(example.summary)}\n`,
      `[Open this spec in the playground](${playgroundLink(example.text)}) · \`toolyard synth examples/${example.file}\`\n`,
      '## The spec\n',
      `\`\`\`yaml title="examples/${example.file}"\n${example.text.trimEnd()}\n\`\`\`\n`,
      ...agentSections(example),
    ];
    await write(join(dir, `${example.name}.md`), body.join('\n'));
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
  await write(join(dir, 'index.md'), index.join('\n'));
}
