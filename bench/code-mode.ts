/**
 * Code mode's figures (docs/benchmarks.md#code-mode), `npm run bench:code-mode` as root (its servers run as uid
 * 65532, confinement required):
 *
 * 1. What the model reads before its first call: the `tools/list` of every server an agent lists, in tokens
 *    (o200k_base, js-tiktoken), for 5, 20 and 50 toolchain servers (cycling through the presets and exec mode),
 *    against one code-mode toolchain whose `run_code` reaches them all.
 * 2. The cost of a run: `run_code` with an empty program (Python, JavaScript) against `exec_allowed ["true"]`.
 * 3. The cost of one proxied call: a program calling another toolchain's `describe_toolchain` (no process) and
 *    `exec_allowed ["true"]` 50 times each, timed inside the program, against the same calls made directly over MCP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { Lab } from '../test/toolchain-server/code-mode/lab.ts';
import { toolchainServerConfigSchema } from '../toolchain-server/src/config.ts';
import { Toolchain } from '../toolchain-server/src/toolchain.ts';

const encoder = new Tiktoken(o200k);
const tokens = (value: unknown) => encoder.encode(JSON.stringify(value)).length;
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const CALLS = 50;

const SHAPES: Array<Record<string, unknown>> = [
  { mode: 'structured', presets: ['go'] },
  { mode: 'structured', presets: ['python'] },
  { mode: 'structured', presets: ['cargo'] },
  { mode: 'structured', presets: ['node'] },
  { mode: 'exec', presets: ['terraform'], allowedCommands: ['terraform', 'git', 'ls'] },
  { mode: 'structured', presets: ['helm'] },
];

/** The tools/list one toolchain server answers (in process: no port, no helper). */
function toolsList(name: string, tools: Record<string, unknown>, codeMode?: unknown): unknown {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-bench-cm-'));
  try {
    const config = toolchainServerConfigSchema.parse({
      name,
      listen: { host: '127.0.0.1', port: 0 },
      workspaceRoots: [dir],
      tools,
      limits: { confinement: 'off' },
      ...(codeMode ? { codeMode } : {}),
    });
    const toolchain = new Toolchain({ config, probeVersions: false, log: () => {} });
    return { tools: toolchain.listedTools };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
const ms = (v: number) => `${v.toFixed(2)} ms`;

console.log('## tools/list the model reads (o200k_base tokens)\n');
console.log('| servers | every server listed | one code-mode toolchain (run_code reaches all) | ratio |');
console.log('| ------: | ------------------: | ---------------------------------------------: | ----: |');
const descriptions = new Set<string>();
for (const n of [5, 20, 50]) {
  let all = 0;
  for (let i = 0; i < n; i++)
    all += tokens(toolsList(`tc-${i}`, SHAPES[i % SHAPES.length] as Record<string, unknown>));
  const servers = Array.from({ length: n }, (_, i) => ({
    name: `tc-${i}`,
    kind: 'toolchain',
    url: `http://127.0.0.1:${9000 + i}/mcp`,
  }));
  const code = toolsList(
    'code',
    { mode: 'structured', presets: ['python'] },
    { languages: ['python', 'node'], servers },
  );
  const run = (code as { tools: { name: string; description: string }[] }).tools.find(
    (t) => t.name === 'run_code',
  );
  descriptions.add(JSON.stringify(run));
  const one = tokens(code);
  console.log(
    `| ${n} | ${all.toLocaleString('en')} | ${one.toLocaleString('en')} | ${(all / one).toFixed(1)}x |`,
  );
}
console.log(`\nrun_code's own entry is the same for 5, 20 and 50 servers: ${descriptions.size === 1}\n`);

await Lab.build();
const lab = new Lab();
try {
  const base = (name: string) => ({
    name,
    listen: { host: '127.0.0.1', port: 0 },
    workspaceRoots: [lab.workspace],
    tools: { mode: 'exec', allowedCommands: ['true'] },
    env: { passthrough: ['PATH'] },
    limits: { confinement: 'required', maxConcurrency: 4 },
  });
  const target = await lab.server('target', base('target'));
  const cm = await lab.server('cm', {
    ...base('cm'),
    codeMode: {
      languages: ['python', 'node'],
      servers: [{ name: 'target', kind: 'toolchain', url: `${target.url}/mcp` }],
      limits: { maxCallsPerRun: 1000 },
    },
  });
  const client = await cm.client();
  const direct = await target.client();
  const time = async (f: () => Promise<unknown>) => {
    const t = performance.now();
    await f();
    return performance.now() - t;
  };
  const sample = async (f: () => Promise<unknown>) => {
    for (let i = 0; i < 3; i++) await f();
    const out: number[] = [];
    for (let i = 0; i < RUNS; i++) out.push(await time(f));
    return out;
  };
  const runCode = (language: string, code: string) =>
    client.callTool({ name: 'run_code', arguments: { language, code } });
  console.log('## One run (client round trip, p50 / p90)\n');
  console.log('| call | p50 | p90 |');
  console.log('| ---- | --: | --: |');
  const rows: Array<[string, () => Promise<unknown>]> = [
    [
      'exec_allowed ["true"] (a confined process)',
      () => client.callTool({ name: 'exec_allowed', arguments: { command: ['true'] } }),
    ],
    ['run_code python `None`', () => runCode('python', 'None')],
    ['run_code javascript `export default 1`', () => runCode('javascript', 'export default 1;')],
    [
      'run_code typescript `export default 1 as number`',
      () => runCode('typescript', 'export default 1 as number;'),
    ],
  ];
  for (const [label, f] of rows) {
    const s = await sample(f);
    console.log(`| ${label} | ${ms(percentile(s, 50))} | ${ms(percentile(s, 90))} |`);
  }

  console.log(`\n## One MCP call (${CALLS} in a row; p50 per call)\n`);
  console.log(
    '| tool on another toolchain | direct over MCP (client) | from a program (Python) | from a program (JavaScript) |',
  );
  console.log(
    '| ------------------------- | -----------------------: | ----------------------: | --------------------------: |',
  );
  for (const [tool, args] of [
    ['describe_toolchain', {}],
    ['exec_allowed', { command: ['true'] }],
  ] as const) {
    const d = await sample(() => direct.callTool({ name: tool, arguments: args }));
    const py = await runCode(
      'python',
      `import time\nts = []\nfor i in range(${CALLS}):\n    t = time.perf_counter(); mcp_target.${tool}(${JSON.stringify(args)}); ts.append((time.perf_counter() - t) * 1000)\nsorted(ts)[len(ts) // 2]`,
    );
    const js = await runCode(
      'javascript',
      `const ts = [];\nfor (let i = 0; i < ${CALLS}; i++) { const t = performance.now(); await mcp_target.${tool}(${JSON.stringify(args)}); ts.push(performance.now() - t); }\nts.sort((a, b) => a - b);\nexport default ts[${CALLS / 2}];`,
    );
    const value = (r: unknown) =>
      Number((r as { structuredContent: { returnValue: number } }).structuredContent.returnValue);
    console.log(`| ${tool} | ${ms(percentile(d, 50))} | ${ms(value(py))} | ${ms(value(js))} |`);
  }
} finally {
  await lab.close();
}
