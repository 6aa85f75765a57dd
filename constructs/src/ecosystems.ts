/**
 * Named package ecosystems for `network.egress.ecosystems`: each name stands for the hosts its standard
 * tooling fetches from, on port 443, through the broker's CONNECT proxy. One table: the renderer, the semantic
 * checks (did-you-mean), the docs table (docs/broker.md, kept in sync by test/docs/egress-ecosystems.test.ts)
 * and the `registries` alias all read it. A host listed here is reachable by anything the container runs,
 * so the table stays narrow and honest: where a tool needs a broad shared host (Go's module zips on
 * `storage.googleapis.com`) the note says so.
 */
import type { ToolPreset } from '../../toolchain-server/src/config.ts';

export interface Ecosystem {
  /** Hosts (DNS names, or `*.` patterns over one name's subdomains), all on port 443. */
  readonly hosts: readonly string[];
  /** What the hosts serve, and what the list leaves out. */
  readonly note: string;
}

export const ECOSYSTEMS = {
  npm: {
    hosts: ['registry.npmjs.org'],
    note: 'npm, pnpm and yarn (v1 and berry with the npm registry): metadata and tarballs.',
  },
  pypi: {
    hosts: ['pypi.org', 'files.pythonhosted.org'],
    note: 'pip, uv, poetry: the simple index on pypi.org, distributions on files.pythonhosted.org.',
  },
  crates: {
    hosts: ['index.crates.io', 'static.crates.io', 'crates.io'],
    note: 'cargo: the sparse index, crate downloads, and the crates.io API (search, publish, download redirects).',
  },
  rustup: {
    hosts: ['static.rust-lang.org'],
    note: 'rustup: toolchains and components (a rust-toolchain.toml asking for another toolchain).',
  },
  go: {
    hosts: ['proxy.golang.org', 'sum.golang.org', 'storage.googleapis.com'],
    note: 'The Go module proxy and checksum database. proxy.golang.org redirects module zips to storage.googleapis.com, which serves every public Google Cloud Storage bucket: anything the container runs can write to a bucket it controls there. Vendor modules or run a module proxy of your own to avoid it.',
  },
  terraform: {
    hosts: ['registry.terraform.io', 'releases.hashicorp.com'],
    note: 'terraform init: the registry and HashiCorp-published providers. Providers of other publishers download from their own release hosts (often GitHub: add the github ecosystem).',
  },
  helm: {
    hosts: [
      'registry-1.docker.io',
      'auth.docker.io',
      'production.cloudflare.docker.com',
      'ghcr.io',
      'pkg-containers.githubusercontent.com',
    ],
    note: 'OCI charts on Docker Hub and GHCR (`oci://registry-1.docker.io/…`, `oci://ghcr.io/…`). Classic chart repositories (`helm repo add`) live on their own hosts: list them in hosts.',
  },
  maven: {
    hosts: ['repo.maven.apache.org', 'repo1.maven.org'],
    note: 'Maven Central (Maven, Gradle, sbt, Coursier).',
  },
  gradle: {
    hosts: [
      'services.gradle.org',
      'downloads.gradle.org',
      'plugins.gradle.org',
      'plugins-artifacts.gradle.org',
    ],
    note: 'The Gradle wrapper distributions and the Gradle plugin portal (its artifacts redirect to plugins-artifacts.gradle.org). Dependencies come from maven.',
  },
  rubygems: {
    hosts: ['rubygems.org', 'index.rubygems.org'],
    note: 'gem and bundler: the compact index and gem downloads.',
  },
  nuget: {
    hosts: ['api.nuget.org'],
    note: 'dotnet restore from nuget.org (the V3 service index and package content).',
  },
  github: {
    hosts: [
      'github.com',
      'api.github.com',
      'codeload.github.com',
      'objects.githubusercontent.com',
      'release-assets.githubusercontent.com',
      'raw.githubusercontent.com',
    ],
    note: 'git over HTTPS, archives, release assets and raw files. Anything the container runs can push to any repository a token it holds can write, and read any public one.',
  },
  dockerhub: {
    hosts: ['registry-1.docker.io', 'auth.docker.io', 'production.cloudflare.docker.com'],
    note: 'Pulling images and OCI artifacts from Docker Hub.',
  },
  ghcr: {
    hosts: ['ghcr.io', 'pkg-containers.githubusercontent.com'],
    note: 'Pulling images and OCI artifacts from the GitHub Container Registry.',
  },
} as const satisfies Readonly<Record<string, Ecosystem>>;

export type EcosystemName = keyof typeof ECOSYSTEMS;

export const ECOSYSTEM_NAMES = Object.keys(ECOSYSTEMS) as EcosystemName[];

export function isEcosystem(name: string): name is EcosystemName {
  return Object.hasOwn(ECOSYSTEMS, name);
}

/** What the deprecated `network.egress: registries` means with the broker on: the ecosystems of the presets. */
export const PRESET_ECOSYSTEMS: Readonly<Record<ToolPreset, readonly EcosystemName[]>> = {
  go: ['go'],
  python: ['pypi'],
  cargo: ['crates'],
  node: ['npm'],
  terraform: ['terraform'],
  helm: ['helm'],
};

/** The docs table (a Markdown section of docs/broker.md), generated from the table above. */
export function ecosystemsMarkdownTable(): string {
  const rows = ECOSYSTEM_NAMES.map((name) => {
    const e: Ecosystem = ECOSYSTEMS[name];
    return `| \`${name}\` | ${e.hosts.map((h) => `\`${h}\``).join(', ')} | ${e.note} |`;
  });
  const presets = Object.entries(PRESET_ECOSYSTEMS).map(
    ([preset, ecosystems]) => `\`${preset}\` → ${ecosystems.map((e) => `\`${e}\``).join(', ')}`,
  );
  return [
    '| Ecosystem | Hosts (port 443) | Notes |',
    '| --- | --- | --- |',
    ...rows,
    '',
    `The deprecated \`registries\` alias stands for the ecosystems of the toolchain's presets: ${presets.join('; ')}.`,
    '',
  ].join('\n');
}
