/**
 * Structured tools: typed inputs (paths, package names, test filters), never free-form flags. Every value that
 * lands in a positional slot is checked against flag injection; every path must resolve inside the roots.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ToolPreset } from '../config.ts';
import { ToolError } from '../errors.ts';
import { FETCH_TOOLS } from './fetch-tools.ts';
import {
  commonInputShape,
  type ExecTool,
  execTool,
  packageName,
  positional,
  workspacePath,
} from './types.ts';

const goPackages = z
  .array(z.string().min(1).max(1024))
  .max(256)
  .optional()
  .describe('Go package patterns relative to cwd, e.g. ["./..."] (the default) or ["./internal/foo"].');

function goPackageArgs(packages: readonly string[] | undefined): string[] {
  return (packages?.length ? packages : ['./...']).map((p) => positional(p, 'package pattern'));
}

const goTest = z
  .object({
    packages: goPackages,
    run: z.string().max(1024).optional().describe('Regular expression selecting tests (go test -run).'),
    short: z.boolean().optional().describe('Pass -short.'),
    race: z.boolean().optional().describe('Enable the race detector.'),
    count: z.number().int().min(1).max(100).optional().describe('Run each test this many times (-count).'),
    ...commonInputShape,
  })
  .strict();

const goPackagesOnly = z.object({ packages: goPackages, ...commonInputShape }).strict();

const pathsInput = z
  .array(z.string().min(1).max(4096))
  .max(256)
  .optional()
  .describe('Paths relative to cwd, inside the workspace roots. Default: the whole cwd.');

const pytestInput = z
  .object({
    paths: z
      .array(z.string().min(1).max(4096))
      .max(256)
      .optional()
      .describe('Test files, directories or node ids (tests/test_x.py::test_y) relative to cwd.'),
    keyword: z.string().max(1024).optional().describe('Select tests by keyword expression (-k).'),
    markers: z.string().max(1024).optional().describe('Select tests by marker expression (-m).'),
    failFast: z.boolean().optional().describe('Stop at the first failure (-x).'),
    verbose: z.boolean().optional().describe('Verbose output (-v).'),
    ...commonInputShape,
  })
  .strict();

const ruffInput = z.object({ paths: pathsInput, ...commonInputShape }).strict();

const features = z
  .array(z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_./-]*$/, 'must be a feature name'))
  .max(64)
  .optional()
  .describe('Cargo features to enable.');

const cargoCommon = {
  package: packageName.optional().describe('Workspace member to build (-p). Default: the whole workspace.'),
  features,
  allFeatures: z.boolean().optional().describe('Enable all features.'),
  ...commonInputShape,
};

const cargoCheck = z
  .object({
    ...cargoCommon,
    allTargets: z.boolean().optional().describe('Check all targets (tests, benches).'),
  })
  .strict();
const cargoTest = z
  .object({
    ...cargoCommon,
    testFilter: z.string().max(1024).optional().describe('Only run tests whose name contains this string.'),
    noFailFast: z.boolean().optional().describe('Run all test binaries even if one fails.'),
  })
  .strict();
const cargoClippy = z
  .object({
    ...cargoCommon,
    allTargets: z.boolean().optional().describe('Lint all targets.'),
    denyWarnings: z.boolean().optional().describe('Treat warnings as errors (-D warnings).'),
  })
  .strict();
const cargoFmt = z.object({ ...commonInputShape }).strict();

function cargoArgs(input: {
  package?: string | undefined;
  features?: string[] | undefined;
  allFeatures?: boolean | undefined;
}): string[] {
  const args: string[] = [];
  if (input.package) args.push('--package', positional(input.package, 'package'));
  if (input.features?.length)
    args.push('--features', input.features.map((f) => positional(f, 'feature')).join(','));
  if (input.allFeatures) args.push('--all-features');
  return args;
}

const npmTest = z.object({ ...commonInputShape }).strict();
const npmRun = z
  .object({
    script: z.string().min(1).max(256).describe('A script defined in package.json of cwd.'),
    args: z
      .array(z.string().max(4096))
      .max(64)
      .optional()
      .describe('Arguments passed to the script after "--" (none may start with "-").'),
    ...commonInputShape,
  })
  .strict();
const tscCheck = z
  .object({
    project: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe('tsconfig file or directory (-p). Default: cwd.'),
    ...commonInputShape,
  })
  .strict();

const terraformFmt = z
  .object({
    path: z.string().min(1).max(4096).optional().describe('Directory to check. Default: cwd.'),
    ...commonInputShape,
  })
  .strict();
const terraformValidate = z.object({ ...commonInputShape }).strict();

const helmValues = z
  .array(z.string().min(1).max(4096))
  .max(32)
  .optional()
  .describe('Values files relative to cwd, inside the workspace.');
const helmLint = z
  .object({
    chart: z.string().min(1).max(4096).describe('Chart directory relative to cwd.'),
    valuesFiles: helmValues,
    strict: z.boolean().optional().describe('Fail on lint warnings.'),
    ...commonInputShape,
  })
  .strict();
const helmTemplate = z
  .object({
    chart: z.string().min(1).max(4096).describe('Chart directory relative to cwd.'),
    releaseName: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS-1123 label')
      .max(53)
      .optional()
      .describe('Release name. Default: "release".'),
    namespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS-1123 label')
      .max(63)
      .optional(),
    valuesFiles: helmValues,
    ...commonInputShape,
  })
  .strict();

function readScripts(cwd: string): Record<string, unknown> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'));
  } catch {
    throw new ToolError('TOOLYARD_SCRIPT_NOT_FOUND', `no readable package.json in ${cwd}.`, {
      allowed: 'a cwd that contains package.json',
    });
  }
  const scripts = (manifest as { scripts?: unknown }).scripts;
  return scripts && typeof scripts === 'object' ? (scripts as Record<string, unknown>) : {};
}

const BUILD_TOOLS: Readonly<Record<ToolPreset, readonly ExecTool[]>> = {
  go: [
    execTool(
      'go',
      'go_test',
      'go test',
      'Runs go test on package patterns with an optional -run filter.',
      goTest,
      ['go'],
      (i) => {
        const args = ['test'];
        if (i.run !== undefined) args.push(`-run=${i.run}`);
        if (i.short) args.push('-short');
        if (i.race) args.push('-race');
        if (i.count !== undefined) args.push(`-count=${i.count}`);
        return { command: 'go', args: [...args, ...goPackageArgs(i.packages)] };
      },
    ),
    execTool('go', 'go_vet', 'go vet', 'Runs go vet on package patterns.', goPackagesOnly, ['go'], (i) => ({
      command: 'go',
      args: ['vet', ...goPackageArgs(i.packages)],
    })),
    execTool(
      'go',
      'go_build',
      'go build',
      'Compiles package patterns (go build), discarding results for multiple packages.',
      goPackagesOnly,
      ['go'],
      (i) => ({
        command: 'go',
        args: ['build', ...goPackageArgs(i.packages)],
      }),
    ),
  ],
  python: [
    execTool(
      'python',
      'pytest',
      'pytest',
      'Runs pytest on paths or node ids with optional -k/-m selection.',
      pytestInput,
      ['pytest'],
      (i, ctx) => {
        const args = ['-p', 'no:cacheprovider', '--color=no'];
        if (i.keyword !== undefined) args.push('-k', positional(i.keyword, 'keyword expression'));
        if (i.markers !== undefined) args.push('-m', positional(i.markers, 'marker expression'));
        if (i.failFast) args.push('-x');
        if (i.verbose) args.push('-v');
        const paths = (i.paths ?? []).map((p) => workspacePath(p, 'path', ctx, 'any', /::.*$/s));
        return { command: 'pytest', args: [...args, ...paths] };
      },
    ),
    execTool(
      'python',
      'ruff_check',
      'ruff check',
      'Lints Python with ruff check (no fixes applied).',
      ruffInput,
      ['ruff'],
      (i, ctx) => ({
        command: 'ruff',
        args: [
          'check',
          '--no-fix',
          '--output-format=concise',
          ...(i.paths ?? []).map((p) => workspacePath(p, 'path', ctx)),
        ],
      }),
    ),
    execTool(
      'python',
      'ruff_format_check',
      'ruff format --check',
      'Checks Python formatting with ruff format --check.',
      ruffInput,
      ['ruff'],
      (i, ctx) => ({
        command: 'ruff',
        args: ['format', '--check', ...(i.paths ?? []).map((p) => workspacePath(p, 'path', ctx))],
      }),
    ),
  ],
  cargo: [
    execTool(
      'cargo',
      'cargo_check',
      'cargo check',
      'Type-checks a Rust workspace or package.',
      cargoCheck,
      ['cargo'],
      (i) => ({
        command: 'cargo',
        args: ['check', '--color=never', ...cargoArgs(i), ...(i.allTargets ? ['--all-targets'] : [])],
      }),
    ),
    execTool(
      'cargo',
      'cargo_test',
      'cargo test',
      'Runs cargo test with an optional test name filter.',
      cargoTest,
      ['cargo'],
      (i) => {
        const args = ['test', '--color=never', ...cargoArgs(i)];
        if (i.noFailFast) args.push('--no-fail-fast');
        if (i.testFilter !== undefined) args.push(positional(i.testFilter, 'test filter'));
        return { command: 'cargo', args };
      },
    ),
    execTool(
      'cargo',
      'cargo_fmt_check',
      'cargo fmt --check',
      'Checks Rust formatting of the whole workspace.',
      cargoFmt,
      ['cargo'],
      () => ({
        command: 'cargo',
        args: ['fmt', '--all', '--check'],
      }),
    ),
    execTool(
      'cargo',
      'cargo_clippy',
      'cargo clippy',
      'Lints with clippy; optionally denies warnings.',
      cargoClippy,
      ['cargo'],
      (i) => {
        const args = ['clippy', '--color=never', ...cargoArgs(i)];
        if (i.allTargets) args.push('--all-targets');
        if (i.denyWarnings) args.push('--', '-D', 'warnings');
        return { command: 'cargo', args };
      },
    ),
  ],
  node: [
    execTool(
      'node',
      'npm_test',
      'npm test',
      'Runs the test script of package.json in cwd.',
      npmTest,
      ['npm'],
      () => ({
        command: 'npm',
        args: ['test', '--no-update-notifier', '--no-fund', '--no-audit'],
      }),
    ),
    execTool(
      'node',
      'npm_run',
      'npm run',
      'Runs a script that package.json in cwd defines.',
      npmRun,
      ['npm'],
      (i, ctx) => {
        const scripts = readScripts(ctx.cwd);
        if (!Object.hasOwn(scripts, i.script) || typeof scripts[i.script] !== 'string') {
          throw new ToolError(
            'TOOLYARD_SCRIPT_NOT_FOUND',
            `package.json has no script ${JSON.stringify(i.script)}.`,
            {
              allowed: `one of: ${Object.keys(scripts).join(', ') || '(no scripts defined)'}`,
            },
          );
        }
        const args = ['run', '--no-update-notifier', positional(i.script, 'script')];
        if (i.args?.length) args.push('--', ...i.args.map((a) => positional(a, 'script argument')));
        return { command: 'npm', args };
      },
    ),
    execTool(
      'node',
      'tsc_check',
      'tsc --noEmit',
      'Type-checks with tsc --noEmit (tsc on PATH, else the workspace typescript).',
      tscCheck,
      ['node'],
      (i, ctx) => {
        const project =
          i.project === undefined ? [] : ['--project', workspacePath(i.project, 'project', ctx)];
        const args = ['--noEmit', '--pretty', 'false', ...project];
        if (ctx.has('tsc')) return { command: 'tsc', args };
        const local = workspacePath('node_modules/typescript/bin/tsc', 'typescript', ctx, 'file');
        return { command: 'node', args: [local, ...args] };
      },
      { optionalBinaries: ['tsc'] },
    ),
  ],
  terraform: [
    execTool(
      'terraform',
      'fmt_check',
      'terraform fmt -check',
      'Checks Terraform formatting recursively.',
      terraformFmt,
      ['terraform'],
      (i, ctx) => ({
        command: 'terraform',
        args: [
          'fmt',
          '-check',
          '-recursive',
          '-diff',
          '-no-color',
          ...(i.path ? [workspacePath(i.path, 'path', ctx, 'directory')] : []),
        ],
      }),
    ),
    execTool(
      'terraform',
      'validate',
      'terraform validate',
      'Validates the Terraform configuration in cwd (after terraform init).',
      terraformValidate,
      ['terraform'],
      () => ({
        command: 'terraform',
        args: ['validate', '-no-color'],
      }),
    ),
  ],
  helm: [
    execTool(
      'helm',
      'helm_lint',
      'helm lint',
      'Lints a chart with optional values files.',
      helmLint,
      ['helm'],
      (i, ctx) => {
        const args = ['lint', workspacePath(i.chart, 'chart', ctx, 'directory')];
        for (const f of i.valuesFiles ?? [])
          args.push('--values', workspacePath(f, 'values file', ctx, 'file'));
        if (i.strict) args.push('--strict');
        return { command: 'helm', args };
      },
    ),
    execTool(
      'helm',
      'helm_template',
      'helm template',
      'Renders a chart locally (no cluster access).',
      helmTemplate,
      ['helm'],
      (i, ctx) => {
        const args = [
          'template',
          i.releaseName ?? 'release',
          workspacePath(i.chart, 'chart', ctx, 'directory'),
        ];
        if (i.namespace) args.push('--namespace', i.namespace);
        for (const f of i.valuesFiles ?? [])
          args.push('--values', workspacePath(f, 'values file', ctx, 'file'));
        return { command: 'helm', args };
      },
    ),
  ],
};

/** Every preset's tools: its build and test tools, then its fetch tools (fetch-tools.ts). */
export const PRESET_TOOLS: Readonly<Record<ToolPreset, readonly ExecTool[]>> = Object.fromEntries(
  Object.entries(BUILD_TOOLS).map(([preset, tools]) => [
    preset,
    [...tools, ...(FETCH_TOOLS[preset as ToolPreset] ?? [])],
  ]),
) as unknown as Record<ToolPreset, readonly ExecTool[]>;

/**
 * Binaries a preset needs (`required`) and may use when present (`optional`); its fetch tools' only with
 * `withFetch` (a toolchain with egressProxy: the server offers fetch tools only there).
 */
export function presetBinaries(
  preset: ToolPreset,
  withFetch = false,
): { required: string[]; optional: string[] } {
  const required = new Set<string>();
  const optional = new Set<string>();
  for (const t of PRESET_TOOLS[preset]) {
    if (t.fetch === true && !withFetch) continue;
    for (const b of t.binaries) required.add(b);
    for (const b of t.optionalBinaries ?? []) optional.add(b);
  }
  return { required: [...required], optional: [...optional].filter((b) => !required.has(b)) };
}
