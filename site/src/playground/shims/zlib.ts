/**
 * chart-generator's package.ts imports `gzipSync` for Node-side packaging. The playground packages charts
 * with the browser's CompressionStream instead (see chart-download.ts), so this is never called.
 */
export function gzipSync(): never {
  throw new Error('zlib is not available in the browser build; use CompressionStream("gzip")');
}

export default { gzipSync };
