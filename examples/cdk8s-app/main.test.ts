import { readdirSync, readFileSync } from 'node:fs';
import { Testing } from 'cdk8s';
import { Agent, checkSpecText } from 'toolyard/constructs';

// In place of the template's main.test.ts (a snapshot of its empty MyChart): every agent in agents/*.yaml is
// valid and renders, so `npm run build` (compile, test, synth) checks the specs before it writes dist/.
describe('agents/*.yaml', () => {
  for (const file of readdirSync('agents').filter((name) => name.endsWith('.yaml'))) {
    test(`${file} is valid and renders`, () => {
      const checked = checkSpecText(readFileSync(`agents/${file}`, 'utf8'), `agents/${file}`);
      if (!checked.ok)
        throw new Error(checked.errors.map((e) => `${e.file}:${e.line}: ${e.path}: ${e.message}`).join('\n'));
      for (const { agent } of checked.specs) {
        const chart = Testing.chart();
        new Agent(chart, 'agent', agent);
        expect(Testing.synth(chart).length).toBeGreaterThan(0);
      }
    });
  }
});
