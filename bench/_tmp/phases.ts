import { rmSync } from 'node:fs';
import { readSpecs } from '../../cli/src/read-specs.ts';
import { specFiles } from '../../cli/src/spec-files.ts';
import { writeFilesAtomically } from '../../cli/src/write-files.ts';
import { renderAgent, toYamlDocuments } from '../../constructs/src/render.ts';

const dir = process.argv[2]!;
let t = performance.now();
const lap = (label: string) => {
  const n = performance.now();
  console.log(label, (n - t).toFixed(0), 'ms');
  t = n;
};
await specFiles([dir]);
lap('specFiles');
const { specs } = await readSpecs([dir]);
lap('readSpecs (incl. specFiles again)');
const r = specs.map((s) => renderAgent(s.agent, s.plan));
lap('render');
const y = r.map((x) => toYamlDocuments(x.objects));
lap('yaml');
rmSync('/tmp/fs/out-ph', { recursive: true, force: true });
await writeFilesAtomically(y.map((content, i) => ({ path: `/tmp/fs/out-ph/${i}.k8s.yaml`, content })));
lap('write');
console.log('rss', (process.resourceUsage().maxRSS / 1024).toFixed(0));
