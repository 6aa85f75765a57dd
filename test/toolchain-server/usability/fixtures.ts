/**
 * The usability corpus's projects: one workspace with a git repository with history, a cargo crate, a Go
 * module, a Python package with pytest tests, an npm package, a Makefile project and plain text files. Built
 * twice, byte for byte alike (fixed git dates, fixed mtimes), so that a command run directly in one copy and
 * through the server in the other can be compared, mutations included.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Fixed identity and dates: both copies' commits get the same hashes, and so do commits the corpus makes. */
export const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'Alice Example',
  GIT_AUTHOR_EMAIL: 'alice@example.com',
  GIT_COMMITTER_NAME: 'Alice Example',
  GIT_COMMITTER_EMAIL: 'alice@example.com',
  GIT_AUTHOR_DATE: '2024-03-01T12:00:00Z',
  GIT_COMMITTER_DATE: '2024-03-01T12:00:00Z',
};

const FIXED_TIME = new Date('2024-03-01T12:00:00Z');

const FILES: Readonly<Record<string, string>> = {
  'README.md': '# Demo workspace\n\nA small workspace for the usability corpus.\nSee docs/ for more.\n',
  'notes.txt': Array.from(
    { length: 25 },
    (_, i) => `line ${i + 1}: ${i % 4 === 0 ? 'TODO check' : 'ok'}\n`,
  ).join(''),
  'words.txt': 'one\ntwo\nthree\nfour\nfive\nexact\n',
  'sorted.txt': 'a\na\nb\nc\nc\nc\n',
  'nums.txt': 'x 3\ny 10\nz 2\nw 25\n',
  'data.txt': 'alpha 1 red\nbeta 2 green\ngamma 3 blue\n',
  'data.csv': 'id,name,score\n1,ann,90\n2,bob,75\n3,cid,88\n',
  'data.json': `${JSON.stringify({
    name: 'demo',
    version: '1.0.0',
    items: [
      { id: 1, tag: 'a' },
      { id: 2, tag: 'b' },
    ],
  })}\n`,
  'config.ini': '# comment\n[main]\nkey: value\nother: thing\n',
  'log.txt': 'INFO start\nERROR failed to open\nWARN slow\nerror lower\n',
  'tabs.txt': 'a\tb\nc\td\n',
  'a.txt': 'same\nleft\nend\n',
  'b.txt': 'same\nright\nend\n',
  'prog.awk': '{ total += $2 } END { print "total", total }\n',
  'docs/a.md': '# A\n\nTODO write more\n',
  'docs/b.md': '# B\n\nhello docs\n',
  'docs/guide/intro.md': '# Intro\n\nhello again\n',
  'scripts/run.sh': '#!/bin/sh\necho run\n',
  'scratch/sed1.txt': 'a b a\n',
  'scratch/sed2.txt': 'x y x\n',
  'scratch/sed3.txt': 'one two\n',
  'scratch/c1.sh': '#!/bin/sh\necho c1\n',
  'scratch/c2.sh': '#!/bin/sh\necho c2\n',
  'scratch/mv1': 'move me\n',
  'scratch/rm1': 'remove me\n',
  'scratch/rmdir1/f': 'x\n',

  'crate/Cargo.toml':
    '[package]\nname = "democrate"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
  'crate/src/lib.rs':
    'pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 3), 5);\n    }\n\n    #[test]\n    fn adds_negative() {\n        assert_eq!(add(-2, 1), -1);\n    }\n}\n',
  'crate/src/main.rs': 'fn main() {\n    println!("hello from democrate: {}", democrate::add(1, 2));\n}\n',

  'gomod/go.mod': 'module example.com/gomod\n\ngo 1.19\n',
  'gomod/main.go':
    'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hello from gomod", Add(2, 3))\n}\n',
  'gomod/calc.go': 'package main\n\n// Add returns a+b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n',
  'gomod/calc_test.go':
    'package main\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("2+3")\n\t}\n}\n\nfunc TestAddZero(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Fatal("0+0")\n\t}\n}\n',
  // A test server on 127.0.0.1:<ephemeral>, as httptest starts one: the loopback case of docs/confinement.md.
  'gomod/web/web.go':
    'package web\n\nimport (\n\t"fmt"\n\t"net/http"\n)\n\n// Hello answers every request with a greeting.\nfunc Hello(w http.ResponseWriter, r *http.Request) {\n\tfmt.Fprint(w, "hello web")\n}\n',
  'gomod/web/web_test.go':
    'package web\n\nimport (\n\t"io"\n\t"net/http"\n\t"net/http/httptest"\n\t"testing"\n)\n\nfunc TestHello(t *testing.T) {\n\tsrv := httptest.NewServer(http.HandlerFunc(Hello))\n\tdefer srv.Close()\n\tres, err := http.Get(srv.URL)\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tbody, _ := io.ReadAll(res.Body)\n\tif string(body) != "hello web" {\n\t\tt.Fatalf("got %q", body)\n\t}\n}\n',

  'pypkg/pkg/__init__.py': '',
  'pypkg/pkg/calc.py':
    'def add(a: int, b: int) -> int:\n    return a + b\n\n\ndef sub(a: int, b: int) -> int:\n    return a - b\n',
  'pypkg/tests/test_calc.py':
    'from pkg.calc import add, sub\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n',
  // A live server on 127.0.0.1:0 and a client connecting to it, as pytest live-server fixtures do.
  'pypkg/tests/test_live.py':
    'import socket\nimport threading\n\n\ndef test_loopback_roundtrip():\n    srv = socket.socket()\n    srv.settimeout(5)\n    srv.bind(("127.0.0.1", 0))\n    srv.listen(1)\n    port = srv.getsockname()[1]\n\n    def serve():\n        conn, _ = srv.accept()\n        conn.sendall(conn.recv(16).upper())\n        conn.close()\n\n    threading.Thread(target=serve, daemon=True).start()\n    cli = socket.create_connection(("127.0.0.1", port), timeout=5)\n    cli.sendall(b"ping")\n    assert cli.recv(16) == b"PING"\n    cli.close()\n    srv.close()\n',
  'pypkg/conftest.py': '',
  'pypkg/main.py': 'from pkg.calc import add\n\nprint("hello from pypkg", add(2, 3))\n',
  'pypkg/data.json': '{"b": 2, "a": [1, 2]}\n',

  // A uv project (dependency-free, not a package: it locks, syncs and runs offline) for uv's own commands.
  'uvproj/pyproject.toml':
    '[project]\nname = "uvproj"\nversion = "0.1.0"\nrequires-python = ">=3.9"\ndependencies = []\n\n[tool.uv]\npackage = false\n',
  'uvproj/main.py': 'print("hello from uvproj")\n',
  'uvproj/data.json': '{"b": 2, "a": [1, 2]}\n',
  'uvproj/tests/test_main.py': 'def test_ok():\n    assert 1 + 1 == 2\n',

  'npmpkg/package.json': `${JSON.stringify(
    {
      name: 'npmpkg',
      version: '1.0.0',
      private: true,
      scripts: { test: 'node --test', build: 'node build.js', lint: 'node lint.js' },
    },
    null,
    2,
  )}\n`,
  'npmpkg/index.js': 'exports.add = (a, b) => a + b;\n',
  'npmpkg/build.js': "console.log('built', require('./index.js').add(2, 3));\n",
  'npmpkg/lint.js': "console.log('lint ok');\n",
  'npmpkg/test/add.test.js':
    "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../index.js');\n\ntest('adds', () => assert.equal(add(2, 3), 5));\n",

  'mk/Makefile':
    '.PHONY: all build test help clean\n\nall: build test\n\nbuild:\n\t@echo building $(or $(V),quietly)\n\ntest:\n\t@echo testing\n\nhelp:\n\t@echo "targets: all build test clean"\n\nclean:\n\t@echo cleaning\n',
};

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      ...GIT_ENV,
    },
    stdio: 'ignore',
  });
}

/** A repository with seven commits on main, a feature branch and a tag. */
function makeRepo(dir: string): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  const commits: Array<[string, string, string]> = [
    ['README.md', '# repo\n', 'initial commit'],
    ['src/app.py', 'def hello():\n    return "hello"\n', 'add app'],
    ['lib.txt', 'first\nsecond\n', 'add lib'],
    ['src/app.py', 'import os\n\n\ndef hello():\n    return "hello world"\n', 'fix greeting'],
    ['README.md', '# repo\n\nUsage: run app.\n', 'docs: usage'],
    ['lib.txt', 'first\nsecond\nthird\n', 'fix: lib third line'],
    ['tracked.txt', 'one\ntwo\n', 'add tracked'],
  ];
  for (const [file, content, message] of commits) {
    writeFileSync(join(dir, file), content);
    git(dir, 'add', file);
    git(dir, 'commit', '-q', '-m', message);
  }
  git(dir, 'tag', 'v1', 'HEAD~2');
  git(dir, 'switch', '-q', '-c', 'feature');
  writeFileSync(join(dir, 'feature.txt'), 'feature work\n');
  git(dir, 'add', 'feature.txt');
  git(dir, 'commit', '-q', '-m', 'feature: add file');
  git(dir, 'switch', '-q', 'main');
  writeFileSync(join(dir, 'new.txt'), 'untracked for now\n');
}

function setTimes(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) setTimes(path);
    if (!entry.isSymbolicLink()) utimesSync(path, FIXED_TIME, FIXED_TIME);
  }
  utimesSync(dir, FIXED_TIME, FIXED_TIME);
}

/** Builds the corpus workspace at `root` (which must not exist yet). */
export function buildWorkspace(root: string): void {
  for (const [file, content] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), content);
  }
  makeRepo(join(root, 'repo'));
  // A second repository the mutating git sequence works in, so read-only git entries see a stable repo.
  makeRepo(join(root, 'repo2'));
  symlinkSync('README.md', join(root, 'readme-link'));
  setTimes(root);
}
