/**
 * The shell commands the README, docs/*.md (published on the site as "In depth") and the site's hand-written
 * pages tell a user to run, exactly as written, and what a test may do with each: run it, run it until it
 * serves, or leave it to something that can (a cluster, CI, the site build) — the last only with a reason.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface DocumentedCommand {
  /** `file:line` of the command in the repository. */
  readonly source: string;
  /** One command as a user types it (a `&&` chain is split into its commands). */
  readonly command: string;
}

const SHELL_BLOCK = /^```(sh|bash|shell|console)\b[^\n]*\n([\s\S]*?)^```$/gm;

/** The documents a user reads: README.md, docs/*.md and the site's hand-written pages. */
export function documents(repo: string): string[] {
  const site = join(repo, 'site/src/content/docs');
  const pages = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? pages(join(dir, entry.name))
        : /\.mdx?$/.test(entry.name)
          ? [join(dir, entry.name)]
          : [],
    );
  return [
    join(repo, 'README.md'),
    ...readdirSync(join(repo, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => join(repo, 'docs', f)),
    join(site, 'index.mdx'),
    // Generated sections (reference, examples, in-depth) hold usage text and manifests, no commands.
    ...['start-here', 'guides'].flatMap((section) => pages(join(site, section)).sort()),
  ];
}

/** A shell line without its trailing `# comment` (a `#` inside quotes stays). */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

export function documentedCommands(repo: string): DocumentedCommand[] {
  const found: DocumentedCommand[] = [];
  for (const file of documents(repo)) {
    const text = readFileSync(file, 'utf8');
    for (const block of text.matchAll(SHELL_BLOCK)) {
      const firstLine = text.slice(0, block.index).split('\n').length + 1;
      let pending = '';
      block[2]!.split('\n').forEach((raw, offset) => {
        let line = withoutComment(block[1] === 'console' ? raw.replace(/^\$ /, '') : raw);
        if (line.endsWith('\\')) {
          pending += `${line.slice(0, -1)} `;
          return;
        }
        line = (pending + line).trim();
        pending = '';
        if (line === '') return;
        for (const command of line.split(/\s+&&\s+/)) {
          found.push({ source: `${relative(repo, file)}:${firstLine + offset}`, command });
        }
      });
    }
  }
  return found;
}

/** Commands no test here can run, and why. Every entry must still be in the docs. */
export const NOT_RUN_HERE: Readonly<Record<string, string>> = {
  'npx --yes --package=node@24.21.0 -- npm install':
    'installs for real, from the npm cache: test/docs/install.test.ts runs it in a git clone of the commit, offline; the clone here links this checkout’s installed packages',
  'npm install /path/to/toolyard/toolyard-0.1.0.tgz':
    'installs into a user’s project; test:package installs the packed tarball into a fresh cdk8s app (and test/docs/install.test.ts packs it)',
  'helm install reviewer ./my-charts/reviewer-0.2.0.tgz --namespace agents --create-namespace':
    'needs helm and a cluster; test/chart renders every chart with a Helm stand-in (Go text/template + sprig)',
  'npm install toolyard':
    'installs the published package; test:package installs the packed tarball into a fresh cdk8s app and runs it there',
  'npm install --global toolyard':
    'installs the published package globally; test:package installs the packed tarball globally (temporary prefix) on Node 20.19 and 24',
  'npx toolyard synth agents/*.yaml -o dist':
    'runs in a user’s cdk8s app with an agents/ directory; test:package runs it from the installed tarball',
  'npx cdk8s-cli init typescript-app':
    'creates a cdk8s app with packages from the registry; test:package runs the pinned cdk8s-cli’s init in a temporary directory',
  'npm run images':
    'builds Debian root filesystems with mmdebstrap as root (minutes on an empty cache); npm test runs it (test:images) and runs every image',
  'npm run images toolchain-rust': 'the same builder as `npm run images`, which npm test runs',
  'npm run release':
    'assembles all images too; test:images assembles the release twice and compares SHA256SUMS',
  'skopeo copy --all oci-archive:dist/images/toolchain-rust.oci.tar docker://ghcr.io/you/toolchain-rust:0.1.0':
    'pushes to a registry; test/images unpacks the same archives with umoci',
  'skopeo copy --all oci-archive:dist/images/toolchain-rust.oci.tar docker://registry.example/toolchain-rust:0.1.0':
    'pushes to a registry; test/images unpacks the same archives with umoci',
  'docker build -f images/toolchain-rust/Dockerfile -t ghcr.io/toolyard/toolchain-rust:0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" .':
    'needs a Docker engine; test/images/dockerfiles.test.ts holds the Dockerfiles to the images npm run images builds',
  'bash .ci/run': 'is CI itself: it runs `npm test`, which runs this test',
  'npm run site:build':
    'takes minutes; `npm test` runs it in this checkout (`test:site`) and the browser tests use what it built',
  'kubectl create namespace agents': 'needs a Kubernetes cluster',
  'kubectl apply --dry-run=server -f dist/': 'needs a Kubernetes cluster',
  'helm install reviewer ./charts/reviewer --namespace agents':
    'needs a cluster; test/chart lints, renders and packages every chart with the real Helm 3 and Helm 4 (npm run helm)',
  'helm repo add toolyard https://toolyard.dev/charts': 'needs helm and the published site',
  'helm install reviewer toolyard/reviewer --namespace agents --create-namespace':
    'needs helm, a cluster and the published site',
  'helm install reviewer toolyard/reviewer -f my-values.yaml': 'needs helm, a cluster and the published site',
  'npm run cluster:build':
    'compiles Kubernetes, etcd, kwok, CoreDNS and kube-router from their modules (many minutes on an empty Go cache); npm test runs it (test:cluster builds or reuses them)',
  'npm run cluster':
    'starts a control plane until Ctrl-C, on binaries npm run cluster:build makes; test:cluster starts and stops the same cluster (test/cluster/cluster.ts)',
  'npm run cluster -- --node':
    'needs root, containerd, runc and the CNI plugins; test:cluster starts the same real node (test/cluster/node/node.ts)',
  'npm run test:cluster': 'is part of npm test, which runs this test',
  'npm run test:cluster -- test/cluster/e2e/rbac.e2e.ts':
    'the same runner as npm run test:cluster, which npm test runs',
  'TOOLYARD_TEST_NODE=skip npm run test:cluster':
    'the same runner as npm run test:cluster, which npm test runs',
  'npm run bench:cluster -- --agents 1000':
    'a benchmark: minutes of a cluster under load, with figures to read, not to assert (docs/benchmarks.md)',
};

/** A user's shell: no project bins on PATH, no npm script variables. */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE') env[key] = value;
  }
  env['PATH'] = (process.env['PATH'] ?? '')
    .split(':')
    .filter((dir) => !dir.endsWith('/node_modules/.bin') && !dir.includes('/node-gyp-bin'))
    .join(':');
  return env;
}

/** Commands that serve until stopped: the test runs them until they print this, then stops them. */
export const SERVES: Readonly<Record<string, RegExp>> = {
  'npx toolyard-toolchain-server --config toolchain-server/examples/local.json':
    /"event":"listening","port":\d+/,
};
