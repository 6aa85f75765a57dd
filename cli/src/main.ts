/**
 * `toolyard` command dispatch. Each command returns its exit code: 0 ok, 1 invalid input, 2 usage (and
 * `diff` 3: the change widens authority or egress).
 * Run directly (`node cli/src/main.ts …`, which `npm run toolyard -- …` does) it is the CLI itself.
 */
import { closestMatch } from '../../schema/src/suggest.ts';
import { PACKAGE_VERSION } from '../../toolchain-server/src/package-version.generated.ts';
import { chartCommand, chartUsage } from './commands/chart.ts';
import { diffCommand, diffUsage } from './commands/diff.ts';
import { explainCommand, explainUsage } from './commands/explain.ts';
import { siteCommand, siteUsage } from './commands/site.ts';
import { synthCommand, synthUsage } from './commands/synth.ts';
import { validateCommand, validateUsage } from './commands/validate.ts';
import { type Io, processIo } from './io.ts';
import { UsageError } from './usage-error.ts';

export interface Command {
  readonly summary: string;
  readonly usage: string;
  /** `--version VALUE` is one of the command's own options (chart's, kept from before --chart-version). */
  readonly versionTakesValue?: boolean;
  run(argv: readonly string[], io: Io): Promise<number>;
}

export const COMMANDS: Readonly<Record<string, Command>> = {
  validate: {
    summary: 'check specs against the schema and semantic rules',
    usage: validateUsage,
    run: validateCommand,
  },
  synth: { summary: 'render specs to Kubernetes manifests', usage: synthUsage, run: synthCommand },
  chart: {
    summary: 'generate a Helm chart from specs',
    usage: chartUsage,
    run: chartCommand,
    versionTakesValue: true,
  },
  explain: {
    summary: 'show what is generated for a spec, and why',
    usage: explainUsage,
    run: explainCommand,
  },
  site: {
    summary: 'build a static site of a fleet: catalog, agent pages, authority matrix, egress graph, charts',
    usage: siteUsage,
    run: siteCommand,
  },
  diff: {
    summary: 'report what a change does to a fleet: authority, egress, credentials, images (exit 3: widens)',
    usage: diffUsage,
    run: (argv, io) => diffCommand(argv, io),
  },
};

export function generalUsage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `Usage: toolyard <command> [options]

Turns toolyard Agent specs (toolyard.dev/v1alpha1) into Kubernetes manifests.

Commands:
${lines.join('\n')}

Run "toolyard <command> --help" for a command's options, "toolyard --version" for the version.`;
}

export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(generalUsage());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(generalUsage());
    return 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout(versionLine());
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    const suggestion = closestMatch(name, Object.keys(COMMANDS));
    const hint = suggestion ? `; did you mean "${suggestion}"?` : '';
    io.stderr(`toolyard: unknown command "${name}"${hint}\n\n${generalUsage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.usage);
    return 0;
  }
  if (asksForVersion(rest, command)) {
    io.stdout(versionLine());
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`toolyard ${name}: ${usageMessage(error as Error, command)}\n\n${command.usage}`);
      return 2;
    }
    throw error;
  }
}

export function versionLine(): string {
  return `toolyard ${PACKAGE_VERSION}`;
}

/** `--version` (or `-V`) anywhere, except where a command takes `--version VALUE` and a value follows. */
function asksForVersion(argv: readonly string[], command: Command): boolean {
  return argv.some((arg, i) => {
    if (arg === '-V') return true;
    if (arg !== '--version') return false;
    const next = argv[i + 1];
    return !command.versionTakesValue || next === undefined || next.startsWith('-');
  });
}

/** node:util's parseArgs explains an unknown option at length; say it briefly, with a suggestion. */
function usageMessage(error: Error, command: Command): string {
  if ((error as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return error.message;
  const option = /'(-[^']*)'/.exec(error.message)?.[1] ?? '';
  const documented = [...new Set(command.usage.match(/--[a-z][a-z-]*/g) ?? [])];
  const suggestion = option.startsWith('--') ? closestMatch(option, documented) : undefined;
  return `unknown option "${option}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`;
}

// Run as a script (`node cli/src/main.ts`). No top-level await: the published build is CommonJS, where
// import.meta is empty and this module is only imported (bin/toolyard.mjs calls main).
if (import.meta.main) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
