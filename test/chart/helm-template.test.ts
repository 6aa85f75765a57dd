/**
 * What the chart proofs rely on in Helm's own behaviour, checked with the real Helm 3 and Helm 4 binaries: values
 * merging, template functions, hooks, capabilities. A Helm release that changes one of these fails here first.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { realHelmLint } from './helm-lint.ts';
import { HELM_MAJORS, type HelmMajor, helmTemplate } from './support.ts';

function chart(files: Record<string, string>): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'toolyard-helm-proof-')), 'demo');
  const all: Record<string, string> = {
    'Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 1.0.0\nappVersion: "2.0"\n',
    'values.yaml': 'a: { b: 1, c: 2 }\nlist: [1, 2]\nname: x\n',
    ...files,
  };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

for (const helm of HELM_MAJORS) proofs(helm);

function proofs(helm: HelmMajor): void {
  const render = (dir: string, values: Record<string, unknown>[] = []) =>
    helmTemplate(dir, { helm, release: 'rel', namespace: 'ns', values });

  describe(`Helm ${helm}: helm template`, () => {
    it('merges values as Helm does: maps merge, lists replace, null deletes, later files win', () => {
      const dir = chart({
        'templates/cm.yaml':
          'kind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  v: {{ toJson .Values | quote }}\n',
      });
      const out = render(dir, [
        { a: { b: 5 }, list: [9] },
        { a: { c: null }, name: 'y' },
      ]);
      assert.ok(out.ok, out.stderr);
      const json = JSON.parse(JSON.parse(out.stdout.match(/v: (".*")/)![1]!));
      assert.deepEqual(json, { a: { b: 5 }, list: [9], name: 'y' });
    });

    it('has .Release, .Chart, .Template, skips _ files, removes <no value>, sorts by install order', () => {
      const dir = chart({
        'templates/_helpers.tpl': '{{- define "demo.x" -}}X{{ .Values.missing }}{{- end -}}',
        'templates/a-deploy.yaml':
          'kind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}-{{ .Chart.AppVersion }}\n  namespace: {{ .Release.Namespace }}\n  annotations:\n    t: {{ .Template.Name }}\n    s: {{ .Release.Service }}\n    m: "{{ .Values.nope }}"\n',
        'templates/b-sa.yaml': 'kind: ServiceAccount\nmetadata:\n  name: {{ include "demo.x" . }}\n',
      });
      const out = render(dir);
      assert.ok(out.ok, out.stderr);
      assert.ok(out.stdout.indexOf('kind: ServiceAccount') < out.stdout.indexOf('kind: Deployment'));
      assert.match(out.stdout, /# Source: demo\/templates\/b-sa\.yaml/);
      assert.match(out.stdout, /name: rel-demo-2\.0\n {2}namespace: ns/);
      assert.match(out.stdout, /t: demo\/templates\/a-deploy\.yaml\n {4}s: Helm\n {4}m: ""/);
      assert.match(out.stdout, /name: X\n/);
      assert.ok(!out.stdout.includes('_helpers'));
    });

    it('tpl, required, fail, lookup, include recursion limit, no env', () => {
      const ok = chart({
        'templates/cm.yaml':
          'kind: ConfigMap\nmetadata:\n  name: {{ tpl "{{ .Values.name }}-t" . }}\n  l: {{ len (lookup "v1" "Secret" "ns" "s") }}\n',
      });
      const out = render(ok);
      assert.ok(out.ok, out.stderr);
      assert.match(out.stdout, /name: x-t\n {2}l: 0/);
      assert.match(
        render(chart({ 'templates/r.yaml': '{{ required "need .Values.q" .Values.q }}' })).stderr,
        /need \.Values\.q/,
      );
      assert.match(render(chart({ 'templates/f.yaml': '{{ fail "stop here" }}' })).stderr, /stop here/);
      const loop = chart({
        'templates/_l.tpl': '{{ define "loop" }}{{ include "loop" . }}{{ end }}',
        'templates/l.yaml': '{{ include "loop" . }}',
      });
      assert.match(render(loop).stderr, /nested reference/);
      assert.match(
        render(chart({ 'templates/e.yaml': '{{ env "HOME" }}' })).stderr,
        /function "env" not defined/,
      );
    });

    it('a missing value renders empty, even under lint --strict (charts refuse one with required); invalid YAML fails', () => {
      const dir = chart({
        'templates/cm.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  v: "{{ .Values.nope }}"\n',
      });
      const out = render(dir);
      assert.ok(out.ok, out.stderr);
      assert.match(out.stdout, /v: ""/);
      assert.deepEqual(
        realHelmLint(helm, dir).filter((p) => p.includes('[ERROR]')),
        [],
        'helm lint --strict lets a missing value through',
      );
      assert.ok(!render(chart({ 'templates/bad.yaml': 'kind: ConfigMap\nmetadata: [\n' })).ok);
    });
  });

  describe(`Helm ${helm}: hooks and capabilities`, () => {
    const dir = chart({
      'templates/tests/t.yaml':
        'kind: Pod\nmetadata:\n  name: t\n  annotations:\n    helm.sh/hook: test\n---\nkind: NetworkPolicy\nmetadata:\n  name: tn\n  annotations:\n    helm.sh/hook: "pre-install, test"\n',
      'templates/hook.yaml':
        'kind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: post-install\n',
      'templates/svc.yaml':
        'kind: Service\nmetadata:\n  name: s\n  labels:\n    os: {{ .Capabilities.APIVersions.Has "security.openshift.io/v1" | quote }}\n',
    });

    it('prints manifests first, then hooks sorted by kind; --skip-tests leaves out test hooks', () => {
      const all = render(dir);
      assert.ok(all.ok, all.stderr);
      const names = [...all.stdout.matchAll(/^ {2}name: (\w+)$/gm)].map((m) => m[1]);
      assert.deepEqual(names, ['s', 'tn', 't', 'j']);
      const skipped = helmTemplate(dir, { helm, release: 'r', namespace: 'n', skipTests: true });
      assert.deepEqual(
        [...skipped.stdout.matchAll(/^ {2}name: (\w+)$/gm)].map((m) => m[1]),
        ['s', 'j'],
      );
    });

    it('--api-versions adds to .Capabilities.APIVersions', () => {
      assert.match(render(dir).stdout, /os: "false"/);
      const openshift = helmTemplate(dir, {
        helm,
        release: 'r',
        namespace: 'n',
        apiVersions: ['security.openshift.io/v1'],
      });
      assert.match(openshift.stdout, /os: "true"/);
    });
  });

  describe(`Helm ${helm}: the functions the generated charts use`, () => {
    it('tpl over values (maps via toYaml), dig, omit, concat, sha256sum, ternary, typeIs, kindIs', () => {
      const dir = chart({
        'values.yaml':
          'objs:\n  - kind: ConfigMap\n    metadata: { name: "{{ .Release.Name }}-m" }\n  - "kind: Secret\\nmetadata: { name: {{ .Release.Name }}-s }"\ng: { a: { b: deep } }\nsc: { x: 1, runAsUser: 2 }\n',
        'templates/objs.yaml':
          '{{- range .Values.objs }}\n---\n{{ tpl (ternary . (toYaml .) (typeIs "string" .)) $ }}\n{{- end }}\n',
        'templates/cm.yaml': [
          'kind: ConfigMap',
          'metadata:',
          '  name: cm',
          'data:',
          '  dig: {{ dig "a" "b" "none" .Values.g | quote }}',
          '  missing: {{ dig "a" "zz" "none" .Values.g | quote }}',
          '  omit: {{ omit .Values.sc "runAsUser" | toJson | quote }}',
          '  concat: {{ concat (list 1) (list 2 3) | toJson | quote }}',
          '  hash: {{ "rel-x" | sha256sum | trunc 8 | quote }}',
          '  kind: {{ kindIs "map" .Values.g | quote }}',
          '',
        ].join('\n'),
      });
      const out = render(dir);
      assert.ok(out.ok, out.stderr);
      assert.match(out.stdout, /kind: ConfigMap\nmetadata:\n {2}name: 'rel-m'\n/);
      assert.match(out.stdout, /kind: Secret\nmetadata: \{ name: rel-s \}/);
      assert.match(out.stdout, /dig: "deep"\n {2}missing: "none"/);
      assert.match(out.stdout, /omit: "\{\\"x\\":1\}"/);
      assert.match(out.stdout, /concat: "\[1,2,3\]"/);
      // sha256sum is the hex digest, as in Helm (sprig).
      assert.match(
        out.stdout,
        new RegExp(`hash: "${createHash('sha256').update('rel-x').digest('hex').slice(0, 8)}"`),
      );
      assert.match(out.stdout, /kind: "true"/);
    });
  });
}
