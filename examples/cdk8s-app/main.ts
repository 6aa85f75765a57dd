import { readdirSync, readFileSync } from 'node:fs';
import { App, Chart } from 'cdk8s';
import { Agent, checkSpecText } from 'toolyard/constructs';

// One chart per agent in agents/*.yaml, named after the agent: `cdk8s synth` writes dist/<agent>.k8s.yaml,
// the same bytes as `toolyard synth agents/*.yaml -o dist`.
const app = new App();
for (const file of readdirSync('agents').filter((name) => name.endsWith('.yaml'))) {
  const checked = checkSpecText(readFileSync(`agents/${file}`, 'utf8'), `agents/${file}`);
  if (!checked.ok) {
    for (const e of checked.errors) console.error(`${e.file}:${e.line}: ${e.path}: ${e.message}`);
    process.exit(1);
  }
  for (const { agent } of checked.specs) {
    const chart = new Chart(app, agent.metadata.name, { disableResourceNameHashes: true });
    new Agent(chart, 'agent', agent);
  }
}
app.synth();
