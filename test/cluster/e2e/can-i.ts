/**
 * `kubectl auth can-i --list` as data: its table parsed by the header's column offsets into rows keyed by
 * resource (`resource.group`), non-resource URL and resource names, each with its set of verbs. kubectl already
 * breaks the API server's rules down per resource and merges their verbs; a key that appears twice (the same
 * non-resource URL from two default roles) has its verbs merged here too.
 */
import type { PolicyRule } from '../../../constructs/src/rbac-presets.ts';
import type { ClusterClient } from '../client.ts';

export type CanIRows = ReadonlyMap<string, ReadonlySet<string>>;

const COLUMNS = ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs'] as const;

function bracketed(cell: string): string[] {
  const inner = cell.trim().replace(/^\[/, '').replace(/\]$/, '').trim();
  return inner === '' ? [] : inner.split(/\s+/);
}

export function parseCanIList(text: string): Map<string, Set<string>> {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const header = lines.shift() ?? '';
  const starts = COLUMNS.map((name) => header.indexOf(name));
  if (starts.some((at) => at < 0)) throw new Error(`unexpected kubectl auth can-i --list header: ${header}`);
  const rows = new Map<string, Set<string>>();
  for (const line of lines) {
    const cell = (i: number) => line.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined);
    const key = `${cell(0).trim()} ${cell(1).trim()} ${cell(2).trim()}`;
    const verbs = rows.get(key) ?? new Set<string>();
    for (const verb of bracketed(cell(3))) verbs.add(verb);
    rows.set(key, verbs);
  }
  return rows;
}

/** The rows a set of Role rules adds to `can-i --list`, in its notation (`pods`, `deployments.apps`, …). */
export function rowsOfRules(rules: readonly PolicyRule[]): Map<string, Set<string>> {
  const rows = new Map<string, Set<string>>();
  for (const rule of rules)
    for (const group of rule.apiGroups)
      for (const resource of rule.resources) {
        // kubectl's notation: `pods/log`, `deployments.apps`, `deployments.apps/scale`.
        const [type, subresource] = resource.split('/');
        const name = `${type}${group === '' ? '' : `.${group}`}${subresource ? `/${subresource}` : ''}`;
        const key = `${name} [] []`;
        const verbs = rows.get(key) ?? new Set<string>();
        for (const verb of rule.verbs) verbs.add(verb);
        rows.set(key, verbs);
      }
  return rows;
}

export function mergeRows(...all: CanIRows[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const rows of all)
    for (const [key, verbs] of rows) {
      const merged = out.get(key) ?? new Set<string>();
      for (const verb of verbs) merged.add(verb);
      out.set(key, merged);
    }
  return out;
}

/** Rows as sorted lines (`key: verb verb …`), for exact comparison and readable failures. */
export function rowLines(rows: CanIRows): string[] {
  return [...rows].map(([key, verbs]) => `${key}: ${[...verbs].sort().join(' ')}`).sort();
}

export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** What `user` may do in `namespace`, as the API server's authorizers answer (impersonated by the admin). */
export function canIList(cluster: ClusterClient, user: string, namespace: string): Map<string, Set<string>> {
  return parseCanIList(cluster.kubectlOk(['auth', 'can-i', '--list', '-n', namespace, `--as=${user}`]));
}

/** `kubectl auth can-i <verb> <resource>` for `user`: true for "yes". */
export function canI(
  cluster: ClusterClient,
  user: string,
  namespace: string,
  verb: string,
  resource: string,
): boolean {
  // `kubectl auth can-i get pods/exec` would ask about the pod *named* exec: a subresource goes in its own flag.
  const [type = resource, subresource] = resource.split('/');
  const result = cluster.kubectl([
    'auth',
    'can-i',
    verb,
    type,
    ...(subresource ? [`--subresource=${subresource}`] : []),
    '-n',
    namespace,
    `--as=${user}`,
  ]);
  const answer = result.stdout.trim();
  if (answer !== 'yes' && answer !== 'no')
    throw new Error(`kubectl auth can-i ${verb} ${resource} gave "${answer}": ${result.stderr}`);
  return answer === 'yes';
}

/**
 * Many can-i questions of `user` in one round trip: SelfSubjectAccessReviews created while impersonating `user`
 * (exactly what `kubectl auth can-i` sends, one per process); returns the questions answered "allowed".
 */
export function canIAny(
  cluster: ClusterClient,
  user: string,
  namespace: string,
  questions: readonly (readonly [verb: string, resource: string])[],
): string[] {
  const items = questions.map(([verb, resource]) => {
    const [typed = resource, subresource] = resource.split('/');
    const dot = typed.indexOf('.');
    return {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          namespace,
          verb,
          resource: dot < 0 ? typed : typed.slice(0, dot),
          group: dot < 0 ? '' : typed.slice(dot + 1),
          ...(subresource ? { subresource } : {}),
        },
      },
    };
  });
  // One line per review, in order: kubectl prints a created List's items one after another.
  const answers = cluster
    .kubectlOk(['create', `--as=${user}`, '-o', 'jsonpath={.status.allowed}{"\\n"}', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
    })
    .split('\n')
    .filter((line) => line !== '');
  if (answers.length !== questions.length)
    throw new Error(`asked ${questions.length}, answered ${answers.length}`);
  return questions.flatMap(([verb, resource], i) => (answers[i] === 'true' ? [`${verb} ${resource}`] : []));
}

/** What no ServiceAccount toolyard renders may ever do (the presets' documented negatives), as can-i checks. */
export const NEVER: readonly (readonly [verb: string, resource: string])[] = [
  ['get', 'secrets'],
  ['list', 'secrets'],
  ['watch', 'secrets'],
  ['create', 'secrets'],
  ['create', 'pods/exec'],
  ['get', 'pods/exec'],
  ['create', 'pods/attach'],
  ['create', 'pods/portforward'],
  ['create', 'serviceaccounts/token'],
  ['create', 'pods'],
  ['create', 'deployments.apps'],
  ['create', 'roles.rbac.authorization.k8s.io'],
  ['update', 'roles.rbac.authorization.k8s.io'],
  ['create', 'rolebindings.rbac.authorization.k8s.io'],
  ['get', 'clusterroles.rbac.authorization.k8s.io'],
  ['create', 'clusterrolebindings.rbac.authorization.k8s.io'],
  ['escalate', 'roles.rbac.authorization.k8s.io'],
  ['bind', 'roles.rbac.authorization.k8s.io'],
  ['bind', 'clusterroles.rbac.authorization.k8s.io'],
  ['impersonate', 'users'],
  ['impersonate', 'groups'],
  ['impersonate', 'serviceaccounts'],
  ['*', '*'],
];
