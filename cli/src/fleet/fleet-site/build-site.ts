/**
 * Every file of a fleet site, in memory, from rendered specs: pages, per-agent manifests, the chart repository
 * (one package per agent and `index.yaml`, made by the chart generator exactly as `toolyard chart --package`
 * makes them), the JSON Schema, `fleet.json` (the matrix and the graph as data) and two assets.
 */

import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { parse } from 'yaml';
import { generateChart } from '../../../../chart-generator/src/generate.ts';
import { type IndexEntry, indexYaml, packageChart } from '../../../../chart-generator/src/package.ts';
import { explainAgent } from '../../../../constructs/src/explain.ts';
import { mcpClientConfigFiles } from '../../../../constructs/src/mcp-client-configs.ts';
import { type RenderResult, toYamlDocuments } from '../../../../constructs/src/render.ts';
import { agentSchema } from '../../../../schema/src/validator.ts';
import type { RenderedSpec } from '../../render-specs.ts';
import type { OutputFile } from '../../write-files.ts';
import { type FleetAgent, fleetAgent } from '../fleet-model.ts';
import { FLEET_CSS, FLEET_JS } from './assets.ts';
import { authorityPage } from './authority-page.ts';
import { cachesPage } from './caches-page.ts';
import { egressPages } from './egress-pages.ts';
import { FAVICON_SVG, faviconIco } from './favicon.ts';
import { agentPage, fleetData } from './fleet-data.ts';
import { type AgentReach, agentReach } from './host-reach.ts';
import { hostsPage } from './hosts-page.ts';
import { agentPageHtml, catalogPage } from './pages.ts';

export interface SiteOptions {
  /** Shown in every page's header and title. */
  readonly title: string;
  readonly chartVersion: string;
  /** `created` of the chart index and archive mtimes (seconds since the epoch). */
  readonly epoch: number;
  /** Base URL of the chart repository for index.yaml's urls (default: relative). */
  readonly chartUrl: string;
  /** Spec files inside this directory are named relative to it on the pages, not by the build machine's path. */
  readonly relativeTo?: string | undefined;
}

function shownName(file: string, base: string | undefined): string {
  const inside = base === undefined ? file : relative(base, file);
  if (!inside.startsWith('..') && !isAbsolute(inside)) return inside.split(sep).join('/');
  // Never the build machine's path: a file outside the base is named by its directory and its name.
  return file.split(sep).slice(-2).join('/');
}

/**
 * The directory the pages name spec files from: the working directory when every spec is inside it, else the
 * parent of the specs' common directory (`toolyard site /tmp/fleet` names `fleet/team-a/x.yaml`). Published
 * pages never carry an absolute path of the machine that built them.
 */
export function shownPathsBase(files: readonly string[], cwd: string): string {
  const absolute = files.map((f) => resolve(cwd, f));
  if (absolute.every((f) => !relative(cwd, f).startsWith('..') && !isAbsolute(relative(cwd, f)))) return cwd;
  let common = dirname(absolute[0] ?? cwd);
  while (!absolute.every((f) => f.startsWith(common + sep)) && dirname(common) !== common)
    common = dirname(common);
  return dirname(common);
}

/** One agent's share of the site: its files, its fleet view and its chart's index entry. */
export interface AgentSiteFiles {
  readonly files: readonly OutputFile[];
  readonly agent: FleetAgent;
  readonly index: IndexEntry;
  /** Its egress by host and its holders of model keys and gateway tokens (the by-host page). */
  readonly reach: AgentReach;
}

export function agentSiteFiles(file: string, result: RenderResult, options: SiteOptions): AgentSiteFiles {
  const report = explainAgent(result.plan);
  const agent = fleetAgent(shownName(file, options.relativeTo), result, { report, objectJson: false });
  const chart = generateChart(result, { version: options.chartVersion });
  const packaged = packageChart(chart, options.epoch);
  const manifests = toYamlDocuments(result.objects);
  const manifestsFile = `${agent.name}.k8s.yaml`;
  const dir = agentPage(agent.name);
  const page = agentPageHtml(
    {
      agent,
      rendered: result,
      report,
      manifests,
      manifestsFile,
      chartFile: packaged.fileName,
      clientConfigs: mcpClientConfigFiles(result.plan),
    },
    options.title,
  );
  return {
    files: [
      { path: `charts/${packaged.fileName}`, content: packaged.archive },
      { path: `${dir}${manifestsFile}`, content: manifests },
      { path: `${dir}index.html`, content: page },
    ],
    agent,
    reach: agentReach(result.plan),
    index: {
      chartYaml: parse(chart.files.get('Chart.yaml')!) as Record<string, unknown>,
      fileName: packaged.fileName,
      digest: packaged.digest,
    },
  };
}

/** The fleet-wide files, once every agent's share is built (in any order: they are sorted by name here). */
export function fleetSiteFiles(shares: readonly AgentSiteFiles[], options: SiteOptions): OutputFile[] {
  const sorted = [...shares].sort((a, b) => (a.agent.name < b.agent.name ? -1 : 1));
  const agents = sorted.map((s) => s.agent);
  const data = fleetData(agents);
  return [
    ...sorted.flatMap((s) => s.files),
    { path: 'index.html', content: catalogPage(agents, data, options.title) },
    { path: 'authority/index.html', content: authorityPage(data, options.title) },
    ...egressPages(data, options.title),
    {
      path: 'hosts/index.html',
      content: hostsPage(
        sorted.map((s) => s.reach),
        options.title,
      ),
    },
    { path: 'caches/index.html', content: cachesPage(agents, options.title) },
    { path: 'fleet.json', content: `${JSON.stringify(data)}\n` },
    {
      path: 'charts/index.yaml',
      content: indexYaml(
        sorted.map((s) => s.index),
        options.epoch,
        options.chartUrl,
      ),
    },
    { path: 'schema/v1alpha1/agent.json', content: `${JSON.stringify(agentSchema, null, 2)}\n` },
    { path: 'assets/fleet.css', content: FLEET_CSS },
    { path: 'assets/fleet.js', content: FLEET_JS },
    { path: 'favicon.svg', content: FAVICON_SVG },
    { path: 'favicon.ico', content: faviconIco() },
  ];
}

/** The whole site from rendered specs, in this thread. */
export function buildFleetSite(rendered: readonly RenderedSpec[], options: SiteOptions): OutputFile[] {
  return fleetSiteFiles(
    rendered.map(({ spec, rendered: result }) => agentSiteFiles(spec.file, result, options)),
    options,
  );
}
