/**
 * Semantic checks of `spec.sandboxes` (docs/sandboxes.md): template names, egress by name (which goes through
 * the broker), the two tokens kept apart, a quota some sandbox can start under, a warm pool only where the
 * provider has one, paths the pod reserves, and derived names that fit and do not collide with a gateway's.
 */
import { closestMatch } from '../../schema/src/suggest.ts';
import type { SpecProblem } from '../../schema/src/validator.ts';
import { checkEgress } from './broker-checks.ts';
import { imageLacksPython } from './code-mode-checks.ts';
import { PATHS, TOOLYARD_IMAGE_PREFIX } from './defaults.ts';
import type { AgentPlan } from './plan.ts';
import type { PlannedSandboxes } from './sandbox-plan.ts';

const MAX_NAME = 63;
const BASE = '/spec/sandboxes';
/** Where a sandbox pod's own files are mounted: a workspace there would hide them. */
const RESERVED = [
  PATHS.tmp,
  PATHS.home,
  PATHS.serverBundle,
  '/etc/toolyard',
  '/var/run/secrets',
  '/proc',
  '/dev',
  '/sys',
];

export function checkSandboxes(plan: AgentPlan): SpecProblem[] {
  const sandboxes = plan.sandboxes;
  if (!sandboxes) return [];
  return [
    ...checkTemplates(plan, sandboxes),
    ...checkCodeMode(plan, sandboxes),
    ...checkTokens(sandboxes),
    ...checkQuota(sandboxes),
    ...checkNames(plan, sandboxes),
  ];
}

function checkTemplates(plan: AgentPlan, sandboxes: PlannedSandboxes): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const seen = new Map<string, number>();
  sandboxes.templates.forEach((t, i) => {
    const path = `${BASE}/templates/${i}`;
    const twin = seen.get(t.name);
    if (twin !== undefined)
      problems.push({
        path: `${path}/name`,
        message: `sandbox template "${t.name}" is defined twice (also templates[${twin}])`,
        hint: 'give each template its own name',
      });
    seen.set(t.name, i);
    const tool = t.toolchain;
    if (tool.mode === 'exec' && tool.allowedCommands.length === 0)
      problems.push({
        path: `${path}/tools/allowedCommands`,
        message: `sandbox template "${t.name}" is in exec mode but allows no command: sandbox_exec could run nothing`,
        hint: 'list the binaries sandbox_exec may run, e.g. allowedCommands: [python3, pip, sh]',
      });
    if (tool.mode === 'structured' && tool.presets.length === 0)
      problems.push({
        path: `${path}/tools/presets`,
        message: `sandbox template "${t.name}" exposes no tool: structured mode needs at least one preset`,
        hint: 'use mode: exec with allowedCommands, or add a preset',
      });
    if (tool.limits.defaultTimeoutSeconds > tool.limits.maxTimeoutSeconds)
      problems.push({
        path: `${path}/limits/defaultTimeoutSeconds`,
        message: `defaultTimeoutSeconds ${tool.limits.defaultTimeoutSeconds} exceeds maxTimeoutSeconds ${tool.limits.maxTimeoutSeconds}`,
      });
    if (sandboxes.provider === 'kubernetes' && t.warmPoolDeclared && t.warmPoolReplicas > 0)
      problems.push({
        path: `${path}/warmPool`,
        message: `sandbox template "${t.name}" asks for a warm pool, but the kubernetes provider has none: every start is cold`,
        hint: 'use provider: agent-sandbox (its controller and CRDs installed) for warm pools, or remove warmPool',
      });
    const mount = t.mountPath.replace(/\/+$/, '') || '/';
    const reserved = RESERVED.find(
      (r) => mount === '/' || mount === r || mount.startsWith(`${r}/`) || r.startsWith(`${mount}/`),
    );
    if (reserved)
      problems.push({
        path: `${path}/workspace/mountPath`,
        message: `the workspace of sandbox template "${t.name}" at ${t.mountPath} would cover ${reserved}, which the sandbox pod uses itself`,
        hint: 'use /workspace (the default) or another directory of its own',
      });
    // Egress by name is the broker's: without it there is no way out by name (and never by address).
    const egress = t.toolchain.namedEgress;
    if (!plan.broker.enabled && tool.egress !== 'none')
      problems.push({
        path: `${path}/network/egress`,
        message: `sandbox template "${t.name}" has egress by name, which goes through the broker, and broker.enabled is false`,
        hint: 'set broker.enabled: true (the default), or egress: none',
      });
    problems.push(...checkEgress(plan, egress, `${path}/network/egress`, `sandbox template ${t.name}`));
  });
  return problems;
}

/**
 * `tools.codeMode` of a template (docs/code-mode.md#in-sandboxes): kernel confinement, an interpreter the image has,
 * and servers that are the template itself — a sandbox holds no credential of any other server, and its
 * NetworkPolicy reaches none, so its programs call the sandbox's own tools alone.
 */
function checkCodeMode(plan: AgentPlan, sandboxes: PlannedSandboxes): SpecProblem[] {
  const problems: SpecProblem[] = [];
  sandboxes.templates.forEach((t, i) => {
    const codeMode = t.toolchain.codeMode;
    if (!codeMode) return;
    const path = `${BASE}/templates/${i}`;
    if ((t.toolchain.limits as { confinement?: string }).confinement === 'off')
      problems.push({
        path: `${path}/limits/confinement`,
        message: `sandbox template "${t.name}" has code mode, which runs only under kernel confinement`,
        hint: 'remove limits.confinement: off (best-effort confines where the node offers Landlock; required refuses to start without it)',
      });
    if (codeMode.languages.includes('python') && imageLacksPython(t.toolchain.image.reference))
      problems.push({
        path: `${path}/tools/codeMode/languages`,
        message: `sandbox template "${t.name}" runs ${t.toolchain.image.reference}, which has no python3: it cannot run Python programs`,
        hint: `use an image with Python (${TOOLYARD_IMAGE_PREFIX}/toolchain-go-python) or only node, which every sandbox has (it runs the server)`,
      });
    codeMode.requested.forEach((name, j) => {
      if (name === t.name) return;
      const known = [
        ...plan.toolchains.map((c) => c.name),
        ...plan.gateways.map((g) => g.name),
        ...sandboxes.templates.map((s) => s.name),
      ];
      const guess = known.includes(name) ? undefined : closestMatch(name, [t.name]);
      problems.push({
        path: `${path}/tools/codeMode/servers/${j}`,
        message: known.includes(name)
          ? `sandbox template "${t.name}" cannot give its programs "${name}": a sandbox holds no credential of another server, and its NetworkPolicy reaches none`
          : `"${name}" is not this sandbox template${guess ? ` (did you mean "${guess}"?)` : ''}: a sandbox's programs call the sandbox's own tools alone`,
        hint: `list only "${t.name}" (the sandbox's own tools: exec_allowed, presets and its file tools), or call ${name} from a toolchain's code mode`,
      });
    });
  });
  return problems;
}

function checkTokens(sandboxes: PlannedSandboxes): SpecProblem[] {
  const a = sandboxes.auth.secret;
  const b = sandboxes.bootstrapSecret;
  if (a.name !== b.name || a.key !== b.key) return [];
  return [
    {
      path: `${BASE}/bootstrapTokenSecret`,
      message:
        'the bootstrap token is the same Secret key as the backends’ token: a sandbox pod mounts the bootstrap token, so code that read it could call the manager as a backend',
      hint: `use a Secret of its own, e.g. bootstrapTokenSecret: { name: ${a.name.replace(/-token$/, '')}-bootstrap, key: token }`,
    },
  ];
}

function checkQuota(sandboxes: PlannedSandboxes): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const { cpuMillis, memoryBytes, maxSandboxes, maxSessions } = sandboxes.quota;
  if (maxSessions < maxSandboxes)
    problems.push({
      path: `${BASE}/quota/maxSessions`,
      message: `maxSessions ${maxSessions} is below maxSandboxes ${maxSandboxes}: running sandboxes are kept sandboxes too`,
      hint: `set maxSessions to at least ${maxSandboxes}`,
    });
  sandboxes.templates.forEach((t, i) => {
    if (sandboxes.templates.findIndex((other) => other.name === t.name) !== i) return;
    if (cpuMillis > 0 && t.cpuMillis > cpuMillis)
      problems.push({
        path: `${BASE}/quota/cpu`,
        message: `quota.cpu (${cpuMillis}m) is below what one sandbox of template "${t.name}" counts (${t.cpuMillis}m): none could start`,
        hint: `raise quota.cpu, or lower templates[${i}].resources`,
      });
    if (memoryBytes > 0 && t.memoryBytes > memoryBytes)
      problems.push({
        path: `${BASE}/quota/memory`,
        message: `quota.memory is below what one sandbox of template "${t.name}" counts: none could start`,
        hint: `raise quota.memory, or lower templates[${i}].resources`,
      });
  });
  return problems;
}

function checkNames(plan: AgentPlan, sandboxes: PlannedSandboxes): SpecProblem[] {
  const problems: SpecProblem[] = [];
  sandboxes.templates.forEach((t, i) => {
    if (t.objectName.length > MAX_NAME)
      problems.push({
        path: `${BASE}/templates/${i}/name`,
        message: `object name "${t.objectName}" would be ${t.objectName.length} characters, more than Kubernetes allows (${MAX_NAME})`,
        hint: 'shorten the template name or the agent name',
      });
  });
  const ours = new Set([
    sandboxes.objectName,
    sandboxes.podServiceAccount,
    ...sandboxes.templates.map((t) => t.objectName),
  ]);
  plan.gateways.forEach((g, i) => {
    if (g.kind === 'deployed' && ours.has(g.objectName))
      problems.push({
        path: `/spec/gateways/${i}/name`,
        message: `gateway "${g.name}" would be named ${g.objectName}, which the sandboxes' objects use`,
        hint: 'rename the gateway (names sandboxes, sandbox and sandbox-<template> are taken)',
      });
  });
  return problems;
}
