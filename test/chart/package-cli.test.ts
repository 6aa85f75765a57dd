/** `toolyard chart` (files, exit codes) and `--package` (deterministic tgz, Helm repository index.yaml). */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';
import {
  compareSemver,
  indexYaml,
  mergeIndexYaml,
  packageChart,
  tarChart,
} from '../../chart-generator/src/package.ts';
import { main } from '../../cli/src/main.ts';
import { exampleFiles, REPO_ROOT } from '../support/golden.ts';
import { examples } from './support.ts';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) }, out, err };
}

/** Entries of an uncompressed tar: name, mode, uid, gid, mtime, content. */
function untar(tar: Uint8Array) {
  const entries: { name: string; mode: number; uid: number; mtime: number; content: string }[] = [];
  const text = (from: number, len: number) =>
    new TextDecoder().decode(tar.subarray(from, from + len)).replace(/\0.*$/s, '');
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const name = text(offset, 100);
    if (name === '') break;
    const prefix = text(offset + 345, 155);
    const size = Number.parseInt(text(offset + 124, 12), 8);
    const sum = Number.parseInt(text(offset + 148, 8), 8);
    const header = tar.slice(offset, offset + 512);
    header.fill(32, 148, 156);
    assert.equal(
      header.reduce((a, b) => a + b, 0),
      sum,
      `${name}: checksum`,
    );
    entries.push({
      name: prefix ? `${prefix}/${name}` : name,
      mode: Number.parseInt(text(offset + 100, 8), 8),
      uid: Number.parseInt(text(offset + 108, 8), 8),
      mtime: Number.parseInt(text(offset + 136, 12), 8),
      content: new TextDecoder().decode(tar.subarray(offset + 512, offset + 512 + size)),
    });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

describe('chart packages', () => {
  const example = examples()[0]!;
  it('are deterministic, sorted, with fixed times and owners, and hold every chart file', () => {
    const a = packageChart(example.chart);
    const b = packageChart(examples()[0]!.chart);
    assert.deepEqual(a.archive, b.archive);
    assert.equal(a.fileName, `${example.chart.name}-${example.chart.version}.tgz`);
    assert.equal(a.digest, createHash('sha256').update(a.archive).digest('hex'));
    const entries = untar(gunzipSync(a.archive));
    assert.deepEqual(entries, untar(tarChart(example.chart)));
    const names = entries.map((e) => e.name);
    assert.deepEqual(names, [...names].sort());
    assert.deepEqual(names, [...example.chart.files.keys()].map((p) => `${example.chart.name}/${p}`).sort());
    for (const entry of entries) {
      assert.equal(entry.mode, 0o644);
      assert.equal(entry.uid, 0);
      assert.equal(entry.mtime, 1_704_067_200);
      assert.equal(entry.content, example.chart.files.get(entry.name.slice(example.chart.name.length + 1)));
    }
    assert.notDeepEqual(packageChart(example.chart, 1).archive, a.archive, 'mtime is an input');
  });

  it('index.yaml is a Helm repository index', () => {
    const packaged = packageChart(example.chart);
    const chartYaml = parse(example.chart.files.get('Chart.yaml')!) as Record<string, unknown>;
    const index = parse(
      indexYaml(
        [{ chartYaml, fileName: packaged.fileName, digest: packaged.digest }],
        0,
        'https://charts.example/',
      ),
    ) as { apiVersion: string; entries: Record<string, Record<string, unknown>[]>; generated: string };
    assert.equal(index.apiVersion, 'v1');
    const entry = index.entries[example.chart.name]![0]!;
    assert.equal(entry['digest'], packaged.digest);
    assert.deepEqual(entry['urls'], [`https://charts.example/${packaged.fileName}`]);
    assert.equal(entry['created'], '1970-01-01T00:00:00Z');
    assert.equal(entry['version'], example.chart.version);
    assert.equal(entry['apiVersion'], 'v2');
  });
});

describe('toolyard chart', () => {
  it('writes one chart per spec, identical to charts/, and packages on request', async () => {
    const out = mkdtempSync(join(tmpdir(), 'toolyard-chart-cli-'));
    const { io: testIo, err, out: stdout } = io();
    const files = exampleFiles().map((f) => join(REPO_ROOT, f));
    const previous = process.env['SOURCE_DATE_EPOCH'];
    process.env['SOURCE_DATE_EPOCH'] = '1700000000';
    try {
      assert.equal(
        await main(
          ['chart', ...files, '-o', out, '--package', '--version', '1.2.3', '--app-version', '2.0'],
          testIo,
        ),
        0,
      );
    } finally {
      if (previous === undefined) delete process.env['SOURCE_DATE_EPOCH'];
      else process.env['SOURCE_DATE_EPOCH'] = previous;
    }
    assert.ok(err.some((l) => l.startsWith('wrote ')));
    const names = examples().map((e) => e.chart.name);
    // The packages' paths, alone on stdout (for `helm push "$(toolyard chart … --package)"`).
    assert.deepEqual(
      stdout,
      names.map((n) => join(out, `${n}-1.2.3.tgz`)),
    );
    assert.deepEqual(
      readdirSync(out).sort(),
      [...names, ...names.map((n) => `${n}-1.2.3.tgz`), 'index.yaml'].sort(),
    );
    const chart = parse(readFileSync(join(out, names[0]!, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
    assert.equal(chart['version'], '1.2.3');
    assert.equal(chart['appVersion'], '2.0');
    const index = parse(readFileSync(join(out, 'index.yaml'), 'utf8')) as {
      entries: Record<string, { created: string; digest: string }[]>;
    };
    assert.equal(index.entries[names[0]!]![0]!.created, '2023-11-14T22:13:20Z');
    const tgz = readFileSync(join(out, `${names[0]}-1.2.3.tgz`));
    assert.equal(index.entries[names[0]!]![0]!.digest, createHash('sha256').update(tgz).digest('hex'));
    // Default version: the committed charts/.
    const out2 = mkdtempSync(join(tmpdir(), 'toolyard-chart-cli-'));
    assert.equal(await main(['chart', ...files, '-o', out2], io().io), 0);
    for (const name of names) {
      for (const file of ['Chart.yaml', 'values.yaml', 'templates/_helpers.tpl']) {
        assert.equal(
          readFileSync(join(out2, name, file), 'utf8'),
          readFileSync(join(REPO_ROOT, 'charts', name, file), 'utf8'),
        );
      }
    }
  });

  it('--home, --source and --maintainer set Chart.yaml; a bad one is a usage error', async () => {
    const out = mkdtempSync(join(tmpdir(), 'toolyard-chart-cli-'));
    const file = join(REPO_ROOT, 'examples', 'web-infra.yaml');
    const argv = [
      'chart',
      file,
      '-o',
      out,
      '--home',
      'https://platform.example.com/agents',
      '--source',
      'https://git.example.com/platform/agents',
      '--source',
      'https://git.example.com/platform/images',
      '--maintainer',
      'Platform Team <platform@example.com> (https://platform.example.com)',
      '--maintainer',
      'Ada Lovelace',
    ];
    assert.equal(await main(argv, io().io), 0);
    const chart = parse(readFileSync(join(out, 'web-infra', 'Chart.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(chart['home'], 'https://platform.example.com/agents');
    assert.deepEqual(chart['sources'], [
      'https://git.example.com/platform/agents',
      'https://git.example.com/platform/images',
    ]);
    assert.deepEqual(chart['maintainers'], [
      { name: 'Platform Team', email: 'platform@example.com', url: 'https://platform.example.com' },
      { name: 'Ada Lovelace' },
    ]);
    // The control: without the options, Chart.yaml is the committed one (no maintainers).
    const plain = parse(readFileSync(join(REPO_ROOT, 'charts', 'web-infra', 'Chart.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(plain['maintainers'], undefined);
    for (const [flag, value, message] of [
      ['--home', 'platform.example.com', /--home: "platform.example.com" is not a URL/],
      ['--source', 'ftp://x.example.com', /--source: "ftp:\/\/x.example.com" is not an http\(s\) URL/],
      [
        '--maintainer',
        'Ada <not-an-email>',
        /--maintainer: "not-an-email" in "Ada <not-an-email>" is not an email/,
      ],
      ['--maintainer', '<a@example.com>', /is not a maintainer: write "Name"/],
    ] as const) {
      const { io: testIo, err } = io();
      assert.equal(
        await main(['chart', file, '-o', mkdtempSync(join(tmpdir(), 'x-')), flag, value], testIo),
        2,
      );
      assert.match(err.join('\n'), message);
    }
  });

  it('exit codes: 2 for usage errors, 1 for invalid specs (nothing written)', async () => {
    assert.equal(await main(['chart'], io().io), 2);
    assert.equal(await main(['chart', join(REPO_ROOT, exampleFiles()[0]!), '--version', 'one'], io().io), 2);
    const out = mkdtempSync(join(tmpdir(), 'toolyard-chart-cli-'));
    const { io: testIo, err } = io();
    assert.equal(await main(['chart', join(out, 'missing.yaml'), '-o', out], testIo), 1);
    assert.ok(err.join('\n').includes('missing.yaml: not found'));
    assert.deepEqual(readdirSync(out), []);
  });
});

type Index = {
  apiVersion: string;
  entries: Record<string, Record<string, unknown>[]>;
  generated: string;
} & Record<string, unknown>;

describe('index.yaml merging (helm repo index --merge)', () => {
  const entry = (name: string, version: string, digest: string) => ({
    chartYaml: { apiVersion: 'v2', name, version },
    fileName: `${name}-${version}.tgz`,
    digest,
  });

  it('keeps other charts and versions, replaces a version packaged again, sorts newest first', () => {
    const first = indexYaml([entry('a', '1.9.0', 'd1'), entry('b', '0.1.0', 'd2')], 100);
    const withExtra = first.replace('apiVersion: v1', 'apiVersion: v1\nserverInfo:\n  contextPath: /charts');
    const merged = parse(
      mergeIndexYaml(
        withExtra,
        [entry('a', '1.10.0', 'd3'), entry('a', '1.9.0', 'd4'), entry('a', '1.9.0-rc.1', 'd5')],
        200,
      ),
    ) as Index;
    assert.deepEqual(
      merged.entries['a']!.map((e) => [e['version'], e['digest'], e['created']]),
      [
        ['1.10.0', 'd3', '1970-01-01T00:03:20Z'],
        ['1.9.0', 'd4', '1970-01-01T00:03:20Z'],
        ['1.9.0-rc.1', 'd5', '1970-01-01T00:03:20Z'],
      ],
    );
    assert.deepEqual(
      merged.entries['b']!.map((e) => [e['version'], e['digest'], e['created']]),
      [['0.1.0', 'd2', '1970-01-01T00:01:40Z']],
    );
    assert.equal(merged.generated, '1970-01-01T00:03:20Z');
    assert.deepEqual(merged['serverInfo'], { contextPath: '/charts' });
    assert.deepEqual(Object.keys(merged.entries), ['a', 'b']);
  });

  it('refuses a file that is not a Helm repository index, naming the problem', () => {
    assert.throws(() => mergeIndexYaml('a: [1', []), /not valid YAML/);
    assert.throws(() => mergeIndexYaml('- 1', []), /not a YAML map/);
    assert.throws(
      () => mergeIndexYaml('apiVersion: v2\nentries: {}', []),
      /apiVersion is "v2", expected "v1"/,
    );
    assert.throws(() => mergeIndexYaml('apiVersion: v1\nentries: {a: 1}', []), /entries\.a is not a list/);
  });

  it('orders versions by SemVer precedence', () => {
    const versions = [
      '1.0.0',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '2.0.0',
      '1.10.0',
      '1.9.0+build.5',
    ];
    assert.deepEqual([...versions].sort(compareSemver), [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.9.0+build.5',
      '1.10.0',
      '2.0.0',
    ]);
  });

  it('toolyard chart --package merges into DIR/index.yaml; a broken index fails with nothing written', async () => {
    const out = mkdtempSync(join(tmpdir(), 'toolyard-chart-merge-'));
    const file = join(REPO_ROOT, exampleFiles()[0]!);
    const name = examples()[0]!.chart.name;
    for (const version of ['1.0.0', '1.1.0', '1.0.0']) {
      assert.equal(await main(['chart', file, '-o', out, '--package', '--version', version], io().io), 0);
    }
    const index = parse(readFileSync(join(out, 'index.yaml'), 'utf8')) as Index;
    assert.deepEqual(
      index.entries[name]!.map((e) => e['version']),
      ['1.1.0', '1.0.0'],
    );
    for (const e of index.entries[name]!) {
      const tgz = readFileSync(join(out, `${name}-${e['version']}.tgz`));
      assert.equal(e['digest'], createHash('sha256').update(tgz).digest('hex'));
    }
    const broken = mkdtempSync(join(tmpdir(), 'toolyard-chart-merge-'));
    writeFileSync(join(broken, 'index.yaml'), 'apiVersion: v2\n');
    const { io: testIo, err } = io();
    assert.equal(await main(['chart', file, '-o', broken, '--package'], testIo), 1);
    assert.match(err.join('\n'), /index\.yaml: apiVersion is "v2", expected "v1"/);
    assert.deepEqual(readdirSync(broken), ['index.yaml']);
  });
});
