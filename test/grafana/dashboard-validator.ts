/**
 * Grafana's dashboard schema as a program: `test/grafana/validator`, built from its pinned Go module
 * (`github.com/grafana/grafana-foundation-sdk/go` v0.0.22: the types and strict decoders cog generates from
 * Grafana's dashboard and panel schemas) with the machine's Go, static, cached under a key of go.mod, go.sum,
 * main.go, the Go version and the recipe, as Jaeger is (test/otel/jaeger.ts). `npm run otel:build` builds it
 * (a cold build is about a minute); the test then needs no network.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../release/src/cache-dir.ts';
import { fillCacheDir, goBuild, hasFile } from '../support/go-build.ts';

const MODULE = join(dirname(fileURLToPath(import.meta.url)), 'validator');
const RECIPE = 'static, trimpath, stripped: 1';

function validatorBinary(): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(MODULE, file)));
  hash.update(execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim()).update(RECIPE);
  return join(cacheDir('grafana', `dashboard-validator-${hash.digest('hex').slice(0, 16)}`), 'validate');
}

/** Builds the validator unless the cache has it; returns the binary. A half-done build never counts. */
export function buildDashboardValidator(log: (line: string) => void = () => {}): string {
  const binary = validatorBinary();
  fillCacheDir(dirname(binary), hasFile('validate'), (staging) => {
    log('building the Grafana dashboard validator from its Go module');
    goBuild({ moduleDir: MODULE, output: join(staging, 'validate'), packages: ['.'] });
  });
  return binary;
}

/** The validator, or an error saying how to build it. */
export function requireDashboardValidator(): string {
  const binary = validatorBinary();
  if (!existsSync(binary))
    throw new Error(`the Grafana dashboard validator is not built (${binary}); run: npm run otel:build`);
  return binary;
}

/** The schema's problems with a dashboard's JSON text: none when Grafana's schema takes it. */
export function dashboardSchemaProblems(binary: string, json: string): string[] {
  const result = spawnSync(binary, [], { input: json, encoding: 'utf8' });
  if (result.status === 0 && result.stdout.trim() === 'ok') return [];
  if (result.status !== 1) throw new Error(`the validator failed: ${result.status} ${result.stderr}`);
  return result.stdout.trim().split('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.stdout.write(`${buildDashboardValidator((line) => process.stderr.write(`${line}\n`))}\n`);
