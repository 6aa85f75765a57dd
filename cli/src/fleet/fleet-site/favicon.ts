/**
 * The fleet site's icon: the docs site's mark as SVG (linked from every page) and as a 16×16 ICO at the site's
 * root, for clients that ask for /favicon.ico whatever the page links. Built here, byte for byte the same each
 * time: no image tool, no binary file in the repository.
 */

/** The docs site's mark (site/public/favicon.svg). */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#3b4cca"/><path d="M8 10h16v3h-6.5v11h-3V13H8z" fill="#fff"/></svg>\n';

/** The same mark as a 16×16 ICO (one 32-bit BMP image), for clients that ask for /favicon.ico regardless. */
export function faviconIco(): Uint8Array {
  const size = 16;
  const pixels = new Uint8Array(size * size * 4);
  // The letter T of the SVG, scaled to 16 px: bar rows 5–6 (x 4–11), stem x 7–8 (rows 7–11).
  const white = (x: number, y: number) =>
    (y >= 5 && y <= 6 && x >= 4 && x <= 11) || (x >= 7 && x <= 8 && y >= 7 && y <= 11);
  const corner = (x: number, y: number) => {
    const cx = Math.min(Math.max(x, 3), 12);
    const cy = Math.min(Math.max(y, 3), 12);
    return (x - cx) ** 2 + (y - cy) ** 2 > 9.5;
  };
  for (let row = 0; row < size; row++) {
    const y = size - 1 - row; // BMP rows run bottom-up
    for (let x = 0; x < size; x++) {
      const at = (row * size + x) * 4;
      const [b, g, r, a] = corner(x, y)
        ? [0, 0, 0, 0]
        : white(x, y)
          ? [255, 255, 255, 255]
          : [0xca, 0x4c, 0x3b, 255];
      pixels.set([b, g, r, a], at);
    }
  }
  const mask = new Uint8Array(size * 4); // 1 bit per pixel, rows padded to 32 bits: all zero (alpha rules)
  const bmp = new Uint8Array(40 + pixels.length + mask.length);
  const header = new DataView(bmp.buffer);
  header.setUint32(0, 40, true);
  header.setInt32(4, size, true);
  header.setInt32(8, size * 2, true); // XOR image and AND mask
  header.setUint16(12, 1, true);
  header.setUint16(14, 32, true);
  header.setUint32(20, pixels.length + mask.length, true);
  bmp.set(pixels, 40);
  bmp.set(mask, 40 + pixels.length);
  const ico = new Uint8Array(6 + 16 + bmp.length);
  const dir = new DataView(ico.buffer);
  dir.setUint16(2, 1, true); // type: icon
  dir.setUint16(4, 1, true); // one image
  ico[6] = size;
  ico[7] = size;
  dir.setUint16(10, 1, true);
  dir.setUint16(12, 32, true);
  dir.setUint32(14, bmp.length, true);
  dir.setUint32(18, 22, true);
  ico.set(bmp, 22);
  return ico;
}
