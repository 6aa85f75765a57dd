/** Architecture names: OCI's (`amd64`, also Debian's) and Node's (`x64`). */

/** Node's name of an OCI architecture (`amd64` → `x64`). */
export function nodeArchitecture(oci: string): string {
  const names: Record<string, string> = {
    amd64: 'x64',
    arm64: 'arm64',
    arm: 'arm',
    ppc64le: 'ppc64',
    s390x: 's390x',
  };
  const name = names[oci];
  if (!name) throw new Error(`no Node architecture for OCI's "${oci}"`);
  return name;
}

/** OCI platform names of Node's architectures. */
export function ociArchitecture(arch = process.arch): string {
  const names: Record<string, string> = {
    x64: 'amd64',
    arm64: 'arm64',
    arm: 'arm',
    ppc64: 'ppc64le',
    s390x: 's390x',
  };
  const name = names[arch];
  if (!name) throw new Error(`no OCI architecture for Node's "${arch}"`);
  return name;
}
