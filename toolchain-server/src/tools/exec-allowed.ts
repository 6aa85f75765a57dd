/** `exec_allowed`: run one allowlisted command with argv. Only registered in `exec` mode. */
import { z } from 'zod';
import { commonInputShape, type ExecTool } from './types.ts';

const execAllowedInput = z
  .object({
    command: z
      .array(z.string().min(1).max(8192))
      .min(1)
      .max(1024)
      .describe('argv: a bare allowlisted command name followed by its arguments. No shell is involved.'),
    ...commonInputShape,
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        'Extra environment variables; loader, interpreter, shell and git hook variables are refused.',
      ),
  })
  .strict();

export type ExecAllowedInput = z.infer<typeof execAllowedInput>;

export const execAllowedTool: ExecTool<ExecAllowedInput> = {
  kind: 'exec',
  name: 'exec_allowed',
  title: 'Run an allowlisted command',
  description:
    'Runs one allowlisted command as argv (never through a shell) in the workspace and returns exit code, ' +
    'stdout/stderr tails, duration and truncation/timeout flags. Call describe_toolchain for the allowed commands.',
  group: 'exec',
  input: execAllowedInput,
  binaries: [],
  plan(input) {
    const [command, ...args] = input.command;
    return { command: command!, args };
  },
  callerEnv(input) {
    return input.env;
  },
};
