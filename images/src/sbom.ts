/**
 * A software bill of materials per image and architecture, SPDX 2.3 JSON: every Debian package dpkg lists as
 * installed in the root filesystem (name, version, architecture, source package, as a `pkg:deb` purl), the Node
 * runtime (`pkg:npm/node-linux-<arch>`) and toolyard's own bundle (`pkg:npm/toolyard`). Made from the root
 * filesystem itself, not from the package list asked for, so dependencies are in it too; every byte is a
 * function of the image (its `created` time included), so two builds of the same sources give the same file.
 */

export interface DebianPackage {
  readonly name: string;
  readonly version: string;
  readonly architecture: string;
  /** The source package, when it differs from the binary package's name. */
  readonly source?: string;
}

/** The installed packages of a dpkg status file, sorted by name. */
export function installedPackages(status: string): DebianPackage[] {
  const packages: DebianPackage[] = [];
  for (const stanza of status.split(/\n\n+/)) {
    const fields = new Map<string, string>();
    for (const line of stanza.split('\n')) {
      const match = /^([A-Za-z-]+):\s?(.*)$/.exec(line);
      if (match) fields.set(match[1]!, match[2]!);
    }
    const name = fields.get('Package');
    const version = fields.get('Version');
    if (!name || !version || !fields.get('Status')?.endsWith(' installed')) continue;
    const source = fields.get('Source')?.split(' ')[0];
    packages.push({
      name,
      version,
      architecture: fields.get('Architecture') ?? 'all',
      ...(source && source !== name ? { source } : {}),
    });
  }
  return packages.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export interface SbomInputs {
  /** `<repository>:<tag>` */
  readonly reference: string;
  /** OCI architecture. */
  readonly architecture: string;
  readonly suite: string;
  readonly created: string;
  readonly packages: readonly DebianPackage[];
  readonly node: { readonly npmPackage: string; readonly version: string };
  readonly toolyardVersion: string;
  /** Tools from their PyPI wheels (`pkg:pypi`), with the wheel file of this architecture. */
  readonly pypi?: ReadonlyArray<{
    readonly name: string;
    readonly version: string;
    readonly license: string;
    readonly file: string;
    /** The wheel's sha256. */
    readonly sha256: string;
  }>;
}

function spdxId(prefix: string, name: string): string {
  return `SPDXRef-${prefix}-${name.replace(/[^A-Za-z0-9.-]/g, '-')}`;
}

function purlVersion(version: string): string {
  return encodeURIComponent(version);
}

/** The SPDX 2.3 document of one image architecture, as JSON text. */
export function spdxDocument(inputs: SbomInputs): string {
  const image = spdxId('Image', `${inputs.reference}-${inputs.architecture}`);
  const debian = inputs.packages.map((p) => ({
    SPDXID: spdxId('Package-deb', p.name),
    name: p.name,
    versionInfo: p.version,
    supplier: 'Organization: Debian',
    downloadLocation: 'NOASSERTION',
    filesAnalyzed: false,
    licenseConcluded: 'NOASSERTION',
    licenseDeclared: 'NOASSERTION',
    copyrightText: 'NOASSERTION',
    ...(p.source ? { sourceInfo: `built from the Debian source package ${p.source}` } : {}),
    externalRefs: [
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: `pkg:deb/debian/${p.name}@${purlVersion(p.version)}?arch=${p.architecture}&distro=debian-${inputs.suite}${p.source ? `&upstream=${p.source}` : ''}`,
      },
    ],
  }));
  const npm = (name: string, version: string, license: string) => ({
    SPDXID: spdxId('Package-npm', name),
    name,
    versionInfo: version,
    supplier: 'NOASSERTION',
    downloadLocation: `https://registry.npmjs.org/${name}/-/${name}-${version}.tgz`,
    filesAnalyzed: false,
    licenseConcluded: license,
    licenseDeclared: license,
    copyrightText: 'NOASSERTION',
    externalRefs: [
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: `pkg:npm/${name}@${version}`,
      },
    ],
  });
  const pypi = (inputs.pypi ?? []).map((p) => ({
    SPDXID: spdxId('Package-pypi', p.name),
    name: p.name,
    versionInfo: p.version,
    supplier: 'NOASSERTION',
    downloadLocation: `https://pypi.org/project/${p.name}/${p.version}/`,
    // The wheel the executable was taken from.
    packageFileName: p.file,
    checksums: [{ algorithm: 'SHA256', checksumValue: p.sha256 }],
    filesAnalyzed: false,
    licenseConcluded: p.license,
    licenseDeclared: p.license,
    copyrightText: 'NOASSERTION',
    externalRefs: [
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: `pkg:pypi/${p.name}@${p.version}?file_name=${encodeURIComponent(p.file)}`,
      },
    ],
  }));
  const packages = [
    {
      SPDXID: image,
      name: inputs.reference,
      versionInfo: inputs.toolyardVersion,
      supplier: 'Organization: toolyard',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'NOASSERTION',
      copyrightText: 'NOASSERTION',
      primaryPackagePurpose: 'CONTAINER',
    },
    npm(inputs.node.npmPackage, inputs.node.version, 'MIT'),
    npm('toolyard', inputs.toolyardVersion, 'Apache-2.0'),
    ...pypi,
    ...debian,
  ];
  const document = {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `${inputs.reference} linux/${inputs.architecture}`,
    documentNamespace: `https://toolyard.dev/spdx/${encodeURIComponent(inputs.reference)}/${inputs.architecture}`,
    creationInfo: { created: inputs.created, creators: ['Tool: toolyard npm run images'] },
    documentDescribes: [image],
    packages,
    relationships: packages
      .filter((p) => p.SPDXID !== image)
      .map((p) => ({ spdxElementId: image, relationshipType: 'CONTAINS', relatedSpdxElement: p.SPDXID })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
