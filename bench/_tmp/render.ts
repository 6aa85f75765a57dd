import { readSpecs } from '../../cli/src/read-specs.ts';
import { renderAgent } from '../../constructs/src/render.ts';

const { specs } = await readSpecs([process.argv[2]!]);
for (let i = 0; i < 2; i++) {
  const t = performance.now();
  for (const s of specs) renderAgent(s.agent, s.plan);
  console.log('render', (performance.now() - t).toFixed(0));
}
