/** `reference/spec.md`: every field of the Agent spec, from `schema/agent.schema.json`. */
import { join } from 'node:path';
import { type JsonSchema, requiredText, schemaFields } from '../schema-fields.ts';
import { fieldSections } from './fields.ts';
import { anchor, frontmatter, GENERATED_NOTE, prose, write } from './markdown.ts';

export async function specReference(
  dir: string,
  schema: JsonSchema,
  specs: readonly unknown[],
): Promise<void> {
  const fields = schemaFields(schema);
  const top = fields.filter((f) => !f.path.includes('.'));
  const index = fields
    .filter((f) => !f.path.endsWith('[]'))
    .map((f) => {
      const required = requiredText(f);
      return `| [\`${f.path}\`](#${anchor(f.path)}) | ${f.type} | ${required === 'no' ? '' : required} |`;
    });
  const id = schema.$id ?? '';
  const body = [
    frontmatter(
      'Spec reference',
      'Every field of the toolyard Agent spec (toolyard.dev/v1alpha1), from the JSON Schema.',
      { sidebar: { order: 1 } },
    ),
    GENERATED_NOTE('`schema/agent.schema.json`'),
    `${prose(schema.description ?? '')}\n`,
    `The schema is published at [\`/schema/v1alpha1/agent.json\`](/schema/v1alpha1/agent.json), its \`$id\`: \`${id}\`. The examples start with this line, so editors with the YAML language server complete and check a spec wherever it is copied:\n`,
    `\`\`\`yaml\n# yaml-language-server: $schema=${id}\n\`\`\`\n`,
    'Where a value takes one of several forms (a gateway deployed from an `image` or referenced by `url`; a workspace on an `emptyDir`, a new claim or an existing one), the field lists its forms, and a field that belongs to some forms only says which (**Form:** only in …). "Required" then means required in that form.\n',
    `## All fields\n\n${top.length} top-level fields, ${index.length} in all.\n`,
    '| Field | Type | Required |\n| --- | --- | --- |',
    `${index.join('\n')}\n`,
    '## Fields\n',
    fieldSections(fields, specs, '###'),
  ];
  await write(join(dir, 'spec.md'), body.join('\n'));
}
