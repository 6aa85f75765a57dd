/**
 * What `tools.codeMode` needs beyond its schema (docs/code-mode.md): servers that are this agent's (with a "did you
 * mean"), one name per server, gateways a program may call without an approval, a sidecar toolchain under kernel
 * confinement, and an interpreter the image has where toolyard knows the image.
 */
import { closestMatch } from '../../schema/src/suggest.ts';
import type { SpecProblem } from '../../schema/src/validator.ts';
import { TOOLYARD_IMAGE_PREFIX } from './defaults.ts';
import type { AgentPlan } from './plan.ts';

/** toolyard's own images without Python (the others, and images it does not know, are taken at their word). */
const IMAGES_WITHOUT_PYTHON = ['toolchain-node', 'toolchain-rust', 'toolchain-server'].map(
  (name) => `${TOOLYARD_IMAGE_PREFIX}/${name}`,
);

/** Whether `reference` is one of toolyard's own images without python3. */
export function imageLacksPython(reference: string): boolean {
  return IMAGES_WITHOUT_PYTHON.some(
    (image) => reference.startsWith(`${image}:`) || reference.startsWith(`${image}@`),
  );
}

export function checkCodeMode(plan: AgentPlan, confinement: readonly (string | undefined)[]): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const toolchainNames = plan.toolchains.map((t) => t.name);
  const gatewayNames = plan.gateways.map((g) => g.name);
  plan.toolchains.forEach((t, i) => {
    const codeMode = t.codeMode;
    if (!codeMode) return;
    const base = `/spec/toolchains/${i}/tools/codeMode`;
    if (t.pod)
      problems.push({
        path: base,
        message: `toolchain "${t.name}" has placement: pod: code mode runs in sidecar toolchains only`,
        hint: "its programs' MCP calls leave from the toolchain server, and a toolchain pod's NetworkPolicy reaches no other server of the agent; use placement: sidecar for the toolchain that runs code",
      });
    if (confinement[i] === 'off')
      problems.push({
        path: `/spec/toolchains/${i}/limits/confinement`,
        message: `toolchain "${t.name}" has code mode, which runs only under kernel confinement`,
        hint: 'remove limits.confinement: off (best-effort confines where the node offers Landlock; required refuses to start without it)',
      });
    if (codeMode.languages.includes('python') && imageLacksPython(t.image.reference))
      problems.push({
        path: `${base}/languages`,
        message: `toolchain "${t.name}" runs ${t.image.reference}, which has no python3: it cannot run Python programs`,
        hint: `use an image with Python (${TOOLYARD_IMAGE_PREFIX}/toolchain-go-python) or only node, which every toolchain has`,
      });
    codeMode.requested.forEach((name, j) => {
      const at = `${base}/servers/${j}`;
      const isToolchain = toolchainNames.includes(name);
      const gateway = plan.gateways.find((g) => g.name === name);
      if (!isToolchain && !gateway) {
        const guess = closestMatch(name, [...toolchainNames, ...gatewayNames]);
        problems.push({
          path: at,
          message: `"${name}" is neither a toolchain nor a gateway of agent "${plan.name}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
          hint: `toolchains: ${toolchainNames.join(', ') || 'none'}; gateways: ${gatewayNames.join(', ') || 'none'}`,
        });
        return;
      }
      if (isToolchain && gateway)
        problems.push({
          path: at,
          message: `"${name}" names both a toolchain and a gateway: code mode cannot tell which`,
          hint: 'rename one of them',
        });
      else if (gateway && !gateway.preApproved)
        problems.push({
          path: at,
          message: `gateway "${name}" has preApproved: false, and a program cannot ask for an approval`,
          hint: 'leave it out of codeMode.servers (backends still call it with an approval), or set preApproved: true',
        });
    });
  });
  return problems;
}
