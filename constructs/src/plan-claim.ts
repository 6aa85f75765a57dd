/**
 * A volume's `persistentVolumeClaim` (the workspace's or a cache's), planned: either the existing claim it refers
 * to, mounted as it is, or the settings of the claim toolyard creates from the template. The caller names and
 * kinds the new claim (a cache's own claim, the workspace's StatefulSet template or its shared claim).
 */
import type { ClaimTemplate, ExistingClaim } from '../../schema/src/types.generated.ts';
import * as D from './defaults.ts';
import type { NewClaimSettings, PlannedExistingClaim } from './plan-types.ts';

export function existingOrNewClaim(
  claim: ExistingClaim | ClaimTemplate,
): PlannedExistingClaim | { readonly kind: 'newClaim'; readonly settings: NewClaimSettings } {
  if ('claimName' in claim)
    return { kind: 'existingClaim', claimName: claim.claimName, readWriteMany: claim.readWriteMany ?? false };
  const template = claim as ClaimTemplate;
  return {
    kind: 'newClaim',
    settings: {
      storage: template.storage,
      ...(template.storageClassName ? { storageClassName: template.storageClassName } : {}),
      accessModes: template.accessModes ?? [...D.DEFAULT_CLAIM_ACCESS_MODES],
    },
  };
}
