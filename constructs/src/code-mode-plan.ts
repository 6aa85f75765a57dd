/**
 * A toolchain's code mode, planned (docs/code-mode.md): each server its programs may call resolved to what the
 * toolchain server calls and presents. A gateway behind a broker route is called through the route with the
 * toolchain's own broker token (the broker sets the gateway's credential); otherwise a gateway or a toolchain is
 * called at its URL with its own token, a Secret key mounted into this toolchain alone. Names that resolve to
 * nothing are left out here and reported by the checks.
 */
import type { CodeMode } from '../../schema/src/types.generated.ts';
import { CODE_MODE_TOKEN_DIR } from './defaults.ts';
import type {
  PlannedCodeMode,
  PlannedCodeModeServer,
  PlannedGateway,
  PlannedToolchain,
} from './plan-types.ts';

export function planCodeMode(
  codeMode: CodeMode,
  toolchain: PlannedToolchain,
  toolchains: readonly PlannedToolchain[],
  gateways: readonly PlannedGateway[],
): PlannedCodeMode {
  const servers: PlannedCodeModeServer[] = [];
  for (const name of codeMode.servers ?? []) {
    const target = toolchains.find((t) => t.name === name);
    if (target) {
      const self = target.name === toolchain.name;
      servers.push({
        name,
        kind: 'toolchain',
        self,
        ...(self ? {} : { url: target.url }),
        ...(!self && target.auth
          ? { token: { kind: 'secret', secret: target.auth.secret, dir: `${CODE_MODE_TOKEN_DIR}/${name}` } }
          : {}),
      });
      continue;
    }
    const gateway = gateways.find((g) => g.name === name);
    if (!gateway) continue;
    servers.push({
      name,
      kind: 'gateway',
      self: false,
      url: gateway.route?.url ?? gateway.upstreamUrl,
      ...(gateway.route
        ? { token: { kind: 'broker', route: gateway.route.name } }
        : gateway.auth
          ? { token: { kind: 'secret', secret: gateway.auth.secret, dir: `${CODE_MODE_TOKEN_DIR}/${name}` } }
          : {}),
    });
  }
  return {
    languages: codeMode.languages,
    servers,
    requested: codeMode.servers ?? [],
    limits: { ...codeMode.limits },
  };
}

/** The broker routes a toolchain's programs reach (its own broker token opens them). */
export function codeModeRoutes(toolchain: PlannedToolchain): string[] {
  return (toolchain.codeMode?.servers ?? []).flatMap((s) =>
    s.token?.kind === 'broker' ? [s.token.route] : [],
  );
}
