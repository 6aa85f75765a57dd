/** One section per schema field: type, whether it is required (and in which form), default, example. */
import { formText, requiredText, type SchemaField } from '../schema-fields.ts';
import { prose, yamlValue } from './markdown.ts';

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

export function fieldSections(
  fields: readonly SchemaField[],
  specs: readonly unknown[],
  level: string,
): string {
  const out: string[] = [];
  for (const field of fields) {
    if (field.path.endsWith('[]')) continue;
    out.push(`${level} \`${field.path}\`\n`);
    const only = formText(field);
    const facts = [
      `**Type:** ${field.type}`,
      `**Required:** ${requiredText(field)}`,
      `**Default:** ${field.default === undefined ? 'none' : `\`${JSON.stringify(field.default)}\``}`,
      ...(only ? [`**Form:** ${only}`] : []),
    ];
    out.push(`${facts.join(' · ')}\n`);
    if (field.description) out.push(`${prose(field.description)}\n`);
    if (field.forms) {
      const each = field.type.startsWith('array') ? 'Each item takes' : 'Takes';
      out.push(
        `${each} one of ${field.forms.length} forms:\n\n${field.forms
          .map((form) => `- \`${form.name}\`, ${form.when}`)
          .join('\n')}\n`,
      );
    }
    if (field.constraints.length > 0) out.push(`Constraints: ${prose(field.constraints.join('; '))}.\n`);
    const example = exampleFor(field, specs);
    if (example !== undefined)
      out.push(`Example:\n\n\`\`\`yaml\n${exampleSnippet(field.path, example)}\n\`\`\`\n`);
  }
  return out.join('\n');
}
