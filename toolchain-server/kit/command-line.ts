/**
 * The command line both servers share: `--config <file.json> [--shutdown-grace-seconds <n>]`, `--help`,
 * `--version`; and their config file, read and parsed by the program's own schema, refused with every problem
 * (a `config-error` JSON line on stderr for log collectors, then the readable list) and exit code 2.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** What a server is called and prints, for the shared command line. */
export interface Program {
  /** The executable's name, the prefix of every error line. */
  readonly name: string;
  readonly usage: string;
  readonly version: string;
}

export interface ServerArgs {
  readonly config: string;
  readonly graceSeconds: number;
}

/** Writes `<program>: <message>` to stderr and exits (2: usage or config). */
export function fail(program: Program, message: string, code = 2): never {
  process.stderr.write(`${program.name}: ${message}\n`);
  process.exit(code);
}

/** The parsed arguments, or undefined when `--help` or `--version` printed and there is nothing to run. */
export function parseServerArgs(program: Program, argv: readonly string[]): ServerArgs | undefined {
  let values: { config?: string; 'shutdown-grace-seconds'?: string; help?: boolean; version?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        'shutdown-grace-seconds': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    fail(program, `${(error as Error).message}\n${program.usage}`);
  }
  if (values.help) {
    process.stdout.write(`${program.usage}\n`);
    return undefined;
  }
  if (values.version) {
    process.stdout.write(`${program.version}\n`);
    return undefined;
  }
  if (!values.config) fail(program, `--config is required\n${program.usage}`);
  const graceSeconds = Number(values['shutdown-grace-seconds'] ?? '10');
  if (!Number.isFinite(graceSeconds) || graceSeconds < 0)
    fail(program, '--shutdown-grace-seconds must be a number >= 0');
  return { config: values.config, graceSeconds };
}

export type ConfigParse<T> =
  | { readonly ok: true; readonly config: T }
  | { readonly ok: false; readonly issues: readonly { readonly path: string; readonly message: string }[] };

/** Reads and parses a JSON config file with `parse`; exits with every problem when it cannot. */
export function loadConfigFile<T>(
  program: Program,
  file: string,
  parse: (value: unknown) => ConfigParse<T>,
): T {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    fail(program, `cannot read config ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    fail(program, `config ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const result = parse(value);
  if (!result.ok) {
    process.stderr.write(`${JSON.stringify({ event: 'config-error', file, issues: result.issues })}\n`);
    fail(
      program,
      `invalid config ${file}:\n${result.issues.map((i) => `  ${i.path}: ${i.message}`).join('\n')}`,
    );
  }
  return result.config;
}
