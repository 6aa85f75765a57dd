/** Splits an image reference into the registry, repository, tag and digest that values lift separately. */
export interface ParsedImage {
  readonly registry: string;
  readonly repository: string;
  readonly tag: string;
  readonly digest: string;
}

export function parseImage(reference: string): ParsedImage {
  let name = reference;
  let tag = '';
  let digest = '';
  const at = name.indexOf('@');
  if (at >= 0) {
    digest = name.slice(at + 1);
    name = name.slice(0, at);
  } else {
    const colon = name.lastIndexOf(':');
    if (colon > name.lastIndexOf('/')) {
      tag = name.slice(colon + 1);
      name = name.slice(0, colon);
    }
  }
  let registry = '';
  const slash = name.indexOf('/');
  if (slash > 0) {
    const first = name.slice(0, slash);
    if (first.includes('.') || first.includes(':') || first === 'localhost') {
      registry = first;
      name = name.slice(slash + 1);
    }
  }
  return { registry, repository: name, tag, digest };
}
