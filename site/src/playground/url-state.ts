/**
 * The spec lives in the URL fragment as `#spec=<base64url(deflate-raw(utf-8 text))>`, so a link reproduces
 * the view and nothing is ever sent to a server (fragments are not part of requests).
 */
const PREFIX = 'spec=';

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function pipe(
  bytes: Uint8Array,
  transform: CompressionStream | DecompressionStream,
): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function encodeSpecFragment(text: string): Promise<string> {
  const compressed = await pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw'));
  return `#${PREFIX}${toBase64Url(compressed)}`;
}

/** The spec text in a fragment, or undefined when the fragment holds none. Throws on a damaged one. */
export async function decodeSpecFragment(hash: string): Promise<string | undefined> {
  const fragment = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!fragment.startsWith(PREFIX)) return undefined;
  const bytes = await pipe(
    fromBase64Url(fragment.slice(PREFIX.length)),
    new DecompressionStream('deflate-raw'),
  );
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}
