/**
 * The one piece of `crypto` the renderer reaches: `constructs` computes each node's address as a SHA-1 of
 * its path, and cdk8s-plus puts that address into pod selector labels. A synchronous SHA-1 keeps the
 * browser's output byte-identical to Node's.
 */
function rotl(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}

export function sha1Hex(bytes: Uint8Array): string {
  const bitLength = bytes.length * 8;
  const paddedLength = (((bytes.length + 8) >> 6) + 1) << 6;
  const block = new Uint8Array(paddedLength);
  block.set(bytes);
  block[bytes.length] = 0x80;
  const view = new DataView(block.buffer);
  view.setUint32(paddedLength - 8, Math.floor(bitLength / 0x100000000));
  view.setUint32(paddedLength - 4, bitLength >>> 0);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89;
  let h2 = 0x98badcfe;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0;
  const w = new Uint32Array(80);
  for (let offset = 0; offset < paddedLength; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 80; i++) w[i] = rotl(w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!, 1);
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let i = 0; i < 80; i++) {
      let f: number;
      let k: number;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6;
      }
      const temp = (rotl(a, 5) + f + e + k + w[i]!) >>> 0;
      e = d;
      d = c;
      c = rotl(b, 30) >>> 0;
      b = a;
      a = temp;
    }
    h0 = (h0 + a) >>> 0;
    h1 = (h1 + b) >>> 0;
    h2 = (h2 + c) >>> 0;
    h3 = (h3 + d) >>> 0;
    h4 = (h4 + e) >>> 0;
  }
  return [h0, h1, h2, h3, h4].map((h) => h.toString(16).padStart(8, '0')).join('');
}

const encoder = new TextEncoder();

class Sha1 {
  private readonly chunks: Uint8Array[] = [];

  update(data: string | Uint8Array): this {
    this.chunks.push(typeof data === 'string' ? encoder.encode(data) : data);
    return this;
  }

  digest(encoding: string): string {
    if (encoding !== 'hex') throw new Error(`crypto shim: digest encoding "${encoding}" is not supported`);
    const total = this.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const all = new Uint8Array(total);
    let at = 0;
    for (const chunk of this.chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return sha1Hex(all);
  }
}

export function createHash(algorithm: string): Sha1 {
  if (algorithm !== 'sha1') throw new Error(`crypto shim: hash "${algorithm}" is not supported`);
  return new Sha1();
}

export default { createHash };
