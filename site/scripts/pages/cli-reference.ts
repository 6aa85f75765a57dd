/**
 * `reference/cli.md`: both commands of the package, from their own help: `toolyard` from `COMMANDS` and
 * `generalUsage()`, `toolyard-toolchain-server` from running its bin with `--help`.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { COMMANDS, generalUsage } from '../../../cli/src/main.ts';
import { frontmatter, GENERATED_NOTE, prose, write } from './markdown.ts';

function toolchainServerHelp(repo: string): string {
  return execFileSync(
    process.execPath,
    [join(repo, 'toolchain-server/bin/toolyard-toolchain-server.js'), '--help'],
    { encoding: 'utf8' },
  ).trimEnd();
}

export async function cliReference(dir: string, repo: string): Promise<void> {
  const sections = Object.entries(COMMANDS).map(
    ([name, command]) =>
      `### \`toolyard ${name}\`\n\n${prose(command.summary)}.\n\n\`\`\`text\n${command.usage}\n\`\`\`\n`,
  );
  const body = [
    frontmatter('CLI reference', 'The toolyard commands, from their own --help.', {
      sidebar: { order: 2 },
    }),
    GENERATED_NOTE(
      'the commands’ own help (`COMMANDS` and `generalUsage()` in `cli/src/main.ts`; `toolyard-toolchain-server --help`)',
    ),
    'The package has two commands. In a checkout, after `npm install`, run them as `npx toolyard …` and `npx toolyard-toolchain-server …`.\n',
    '## `toolyard`\n',
    `\`\`\`text\n$ toolyard --help\n${generalUsage()}\n\`\`\`\n`,
    'Exit codes: `0` success, `1` invalid input (every problem is reported as `file:line: path: message`), `2` usage error. A misspelt command or option gets a "did you mean".\n',
    ...sections,
    '## `toolyard-toolchain-server`\n',
    'The MCP server inside every toolchain sidecar. You do not run it by hand in a cluster: the renderer starts it in each toolchain container with the config it generates (see the [config reference](/reference/toolchain-server-config/)).\n',
    `\`\`\`text\n$ toolyard-toolchain-server --help\n${toolchainServerHelp(repo)}\n\`\`\`\n`,
    'Exit codes: `0` after a clean shutdown (SIGTERM), `1` on an internal failure, `2` on a usage error or an invalid config (every bad field is named).\n',
  ];
  await write(join(dir, 'cli.md'), body.join('\n'));
}
