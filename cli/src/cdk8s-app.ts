/**
 * The cdk8s app behind `npx cdk8s synth`: one chart per Agent spec found in $TOOLYARD_SPECS (a directory of
 * .yaml/.yml/.json files, or one file), `examples/` by default. Invalid specs fail the synth before anything
 * is written, with every error as file:line: /json/path: message.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { App, Chart } from 'cdk8s';
import { Agent } from '../../constructs/src/agent.ts';
import { formatSpecError } from '../../schema/src/load.ts';
import { readSpecs } from './read-specs.ts';

async function specFiles(location: string): Promise<string[]> {
  if (!(await stat(location)).isDirectory()) return [location];
  const entries = await readdir(location);
  return entries
    .filter((name) => /\.(ya?ml|json)$/.test(name))
    .sort()
    .map((name) => join(location, name));
}

const files = await specFiles(process.env['TOOLYARD_SPECS'] ?? 'examples');
const { specs, errors } = await readSpecs(files);
if (errors.length > 0) {
  for (const error of errors) console.error(formatSpecError(error));
  console.error(`${errors.length} error(s); nothing was synthesized.`);
  process.exit(1);
}

const app = new App();
for (const spec of specs) {
  const chart = new Chart(app, spec.agent.metadata.name, { disableResourceNameHashes: true });
  const agent = new Agent(chart, 'agent', spec.agent);
  for (const warning of agent.warnings)
    console.error(`warning: ${spec.file}: ${warning.path}: ${warning.message}`);
}
app.synth();
