/** charts/ holds exactly what `toolyard chart` generates for examples/ (also `npm run gen:check`). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { chartDrift } from '../../chart-generator/scripts/generate-charts.ts';

it('charts/ is in sync with examples/', () => {
  assert.deepEqual(chartDrift(), []);
});
