/** What a command table allows, in the words a refusal shows a model: option spellings and subcommands. */
import type { CommandSpec, OptionSpec, ValueSpec } from './spec.ts';

function valueHint(value: ValueSpec): string {
  switch (value.kind) {
    case 'text':
      return value.describe ?? 'text';
    case 'number':
      return 'n';
    case 'choice':
      return value.choices.join('|');
    case 'pattern':
    case 'custom':
      return value.describe;
    case 'path':
    case 'pathspec':
      return value.describe ?? 'path';
  }
}

export function describeOption(option: OptionSpec): string {
  const names = option.names.join('/');
  if (!option.value) return names;
  const hint = valueHint(option.value);
  return option.optionalValue ? `${names}[=<${hint}>]` : `${names} <${hint}>`;
}

function subcommandNames(spec: CommandSpec): string[] {
  return Object.entries(spec.subcommands ?? {})
    .filter(([, sub]) => 'options' in sub)
    .map(([name]) => name);
}

/** `git log options: --oneline, -n/--max-count <n>, …`, plus the subcommands when the table has them. */
export function describeAllowed(spec: CommandSpec, what: 'options' | 'subcommands' | 'all' = 'all'): string {
  const parts: string[] = [];
  if (what !== 'options' && spec.subcommands) {
    const names = subcommandNames(spec);
    parts.push(`${spec.name} subcommands: ${names.join(', ') || '(none)'}`);
  }
  if (what !== 'subcommands') {
    const options = spec.options.filter((o) => !o.refused).map(describeOption);
    parts.push(`${spec.name} options: ${options.join(', ') || '(none)'}`);
  }
  return parts.join('; ');
}
