/**
 * The cdk8s app behind `npx cdk8s synth`: one chart per Agent spec in $TOOLYARD_SPECS (a spec file, or a
 * directory searched recursively for *.yaml/*.yml files with `kind: Agent`, as `toolyard synth DIR` does),
 * `examples/` by default. Invalid specs fail the synth before anything is written, with every error as
 * file:line: /json/path: message.
 */
import { App, Chart } from 'cdk8s';
import { Agent } from '../../constructs/src/agent.ts';
import { formatSpecError } from '../../schema/src/load.ts';
import { count } from './counts.ts';
import { readSpecs } from './read-specs.ts';
import { formatWarning } from './render-specs.ts';

const { specs, errors } = await readSpecs([process.env['TOOLYARD_SPECS'] ?? 'examples']);
if (errors.length > 0) {
  for (const error of errors) console.error(formatSpecError(error));
  console.error(`${count(errors.length, 'error')}; nothing was synthesized.`);
  process.exit(1);
}

const app = new App();
for (const spec of specs) {
  const chart = new Chart(app, spec.agent.metadata.name, { disableResourceNameHashes: true });
  const agent = new Agent(chart, 'agent', spec.agent);
  for (const warning of agent.warnings) console.error(formatWarning(spec, warning));
}
app.synth();
