import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isSemver } from '../../../chart-generator/src/generate.ts';
import { parseEpoch } from '../../../chart-generator/src/package.ts';
import { formatSpecError, type SpecError } from '../../../schema/src/load.ts';
import { count } from '../counts.ts';
import { fleetSiteFiles, type SiteOptions, shownPathsBase } from '../fleet/fleet-site/build-site.ts';
import { buildSlices, SITE_UNIQUE_NAME_HINT } from '../fleet/fleet-site/parallel-build.ts';
import type { Io } from '../io.ts';
import { specFiles } from '../spec-files.ts';
import { UsageError } from '../usage-error.ts';
import { StagingDirectory } from '../write-files.ts';

/** From this many specs on, the site is built on worker threads. */
const PARALLEL_FROM = 64;

export const siteUsage = `Usage: toolyard site <spec|directory…> -o DIR [--title T] [--chart-version X] [--url URL]

Builds a static site of a fleet of specs into DIR, servable by any static host (relative links; no server,
no network): a catalog of the agents with search and filters (namespaces, labels, backends, toolchains,
gateways, images, warnings); a page per agent (pod diagram, containers, egress, credentials, what each
ServiceAccount can do, generated MCP client configs, rendered manifests, downloads of its YAML and chart);
the authority matrix (which agent can call which gateway; per ServiceAccount what it can do in which
namespaces); the egress graph (who can reach what, as SVG, filterable); the chart repository (charts/index.yaml
and a package per agent, as "toolyard chart --package" makes them); the JSON Schema; and fleet.json (the
matrix and the graph as data). A directory stands for every *.yaml/*.yml file with "kind: Agent" below it. On
any invalid input nothing is written and the exit code is 1.

Options:
  -o, --output DIR       output directory (required; files of an earlier build are overwritten)
      --title T          the site's name in every page (default: "toolyard fleet")
      --chart-version X  version of every chart, SemVer 2 (default: 0.1.0)
      --url URL          base URL of the chart repository, for index.yaml's urls (default: relative)
      --jobs N           threads that build agents' pages and charts (default: up to 4 of the machine's
                         cores from ${PARALLEL_FROM} specs on, else 1)`;

export async function siteCommand(argv: readonly string[], io: Io): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      title: { type: 'string', default: 'toolyard fleet' },
      'chart-version': { type: 'string', default: '0.1.0' },
      url: { type: 'string', default: '' },
      jobs: { type: 'string' },
    },
  });
  if (positionals.length === 0) throw new UsageError('site needs at least one spec file or directory');
  if (values.output === undefined)
    throw new UsageError('site needs -o DIR, the directory to write the site to');
  if (!isSemver(values['chart-version']))
    throw new UsageError(`--chart-version "${values['chart-version']}" is not SemVer 2 (e.g. 1.2.3)`);
  let epoch: number;
  try {
    epoch = parseEpoch(process.env['SOURCE_DATE_EPOCH']);
  } catch (error) {
    throw new UsageError(`SOURCE_DATE_EPOCH: ${(error as Error).message}`);
  }
  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 1 && jobs <= 64))
    throw new UsageError(`--jobs "${values.jobs}" is not a whole number from 1 to 64`);
  let options: SiteOptions = {
    title: values.title,
    chartVersion: values['chart-version'],
    epoch,
    chartUrl: values.url,
  };
  const { files: specs, errors: pathErrors } = await specFiles(positionals);
  options = { ...options, relativeTo: shownPathsBase(specs, process.cwd()) };
  // Agents' files go to a staging directory as they are built (memory stays flat at any fleet size) and move
  // into the output only when every spec is valid; on any problem the staging directory is removed.
  const staging = new StagingDirectory(values.output);
  try {
    return await buildAndWrite(specs, pathErrors, options, values.output, staging, jobs, io);
  } finally {
    await staging.discard();
  }
}

async function buildAndWrite(
  specs: readonly string[],
  pathErrors: readonly SpecError[],
  options: SiteOptions,
  output: string,
  staging: StagingDirectory,
  jobs: number | undefined,
  io: Io,
): Promise<number> {
  const slices = await buildSlices(
    specs,
    options,
    jobs ?? (specs.length >= PARALLEL_FROM ? Math.min(availableParallelism(), 4) : 1),
    staging.path,
  );
  for (const slice of slices) staging.add(slice.staged);
  const errors = [...pathErrors.map((e) => formatSpecError(e)), ...slices.flatMap((s) => s.errors)];
  const seen = new Map<string, string>();
  for (const { name, file, line } of slices.flatMap((s) => s.names)) {
    const earlier = seen.get(name);
    if (earlier === undefined) seen.set(name, file);
    else if (!errors.some((e) => e.includes(`agent "${name}" is also defined in`)))
      errors.push(
        formatSpecError({
          file,
          line,
          path: '/metadata/name',
          message: `agent "${name}" is also defined in ${earlier}`,
          hint: SITE_UNIQUE_NAME_HINT,
        }),
      );
  }
  if (errors.length > 0) {
    for (const error of errors) io.stderr(error);
    io.stderr(`${count(errors.length, 'error')}; nothing was written.`);
    return 1;
  }
  // Each agent's page lists its warnings; a fleet of thousands would bury the terminal in them.
  const warnings = slices.flatMap((s) => s.warnings);
  if (warnings.length > 0)
    io.stderr(
      `${count(warnings.length, 'warning')}, listed on the agents' pages and in the catalog (toolyard validate prints each)`,
    );
  const shares = slices.flatMap((s) => s.shares);
  const files = fleetSiteFiles(shares, options);
  staging.add(StagingDirectory.writeSync(staging.path, files));
  await staging.commit();
  io.stderr(`wrote ${join(output, 'index.html')}: ${shares.length} agents, ${staging.count} files`);
  return 0;
}
