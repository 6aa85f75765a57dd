/** The JSON → TOML writer behind Codex's config files, checked against an independent TOML parser. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'smol-toml';
import { type TomlValue, tomlProblems, toToml } from '../../constructs/src/toml.ts';
import { Random } from '../support/spec-generator.ts';

const plain = (text: string): unknown => JSON.parse(JSON.stringify(parse(text)));

const KEYS = ['model', 'mcp_servers', 'a-b', 'with space', 'dotted.key', 'ünï', '"quoted"', '', 'x'];
const STRINGS = [
  '',
  'plain',
  'line\nbreak',
  'tab\there',
  'quote " and \\ backslash',
  'ünïcødé ✓',
  '\u0001ctl',
];

/** A random JSON value TOML can hold: no null, no empty-key ambiguity, integers and floats as they are. */
function value(random: Random, depth: number): TomlValue {
  const kind = depth > 2 ? random.int(0, 3) : random.int(0, 5);
  switch (kind) {
    case 0:
      return random.pick(STRINGS);
    case 1:
      return random.bool() ? random.int(-1_000_000, 1_000_000) : random.int(-1000, 1000) + 0.5;
    case 2:
      return random.bool();
    case 3:
      return Array.from({ length: random.int(0, 3) }, () => random.pick(STRINGS));
    case 4:
      return Array.from({ length: random.int(1, 2) }, () => table(random, depth + 1));
    default:
      return table(random, depth + 1);
  }
}

function table(random: Random, depth: number): Record<string, TomlValue> {
  const out: Record<string, TomlValue> = {};
  for (const key of random.subset(KEYS)) out[key] = value(random, depth);
  return out;
}

describe('toToml', () => {
  it('writes what a TOML parser reads back as the same value, for 500 random documents', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const document = table(new Random(seed), 0);
      const text = toToml(document);
      assert.deepEqual(plain(text), JSON.parse(JSON.stringify(document)), `seed ${seed}:\n${text}`);
    }
  });

  it('writes scalars first, then one section per table, inline tables inside arrays', () => {
    assert.equal(
      toToml({ top: 1, servers: { 'a-b': { url: 'u', tags: ['x'] } }, list: [{ k: true }], after: 'z' }),
      [
        'top = 1',
        'list = [{ k = true }]',
        'after = "z"',
        '',
        '[servers.a-b]',
        'url = "u"',
        'tags = ["x"]',
        '',
      ].join('\n'),
    );
  });

  it('names every value TOML cannot express by its JSON pointer', () => {
    assert.deepEqual(tomlProblems({ a: null, b: [1, null], 'c/d': { e: Number.NaN } }), [
      { pointer: '/a', message: 'null has no TOML form; leave the key out instead' },
      { pointer: '/b/1', message: 'null has no TOML form; leave the key out instead' },
      { pointer: '/c~1d/e', message: 'NaN has no TOML form' },
    ]);
    assert.throws(() => toToml({ a: null as unknown as TomlValue }), /not expressible in TOML: \/a/);
  });
});
