// A checkout of toolyard runs its TypeScript sources, which needs a Node that strips types (>= 22.18); the
// published package runs compiled JavaScript on Node >= 20.19. On an older Node a checkout's bin would die with
// a bare ERR_UNKNOWN_FILE_EXTENSION: say instead what is wrong and which Node to use.

/** Whether this Node runs `.ts` files (type stripping on). */
export function runsTypeScript() {
  return Boolean(process.features?.typescript);
}

/** Exits with a message when this checkout's `bin` cannot run on this Node. */
export function requireTypeScriptNode(bin) {
  if (runsTypeScript()) return;
  const why =
    process.features?.typescript === false
      ? `Node ${process.version} has TypeScript type stripping turned off (--no-experimental-strip-types)`
      : `Node ${process.version} cannot run TypeScript (type stripping needs Node >= 22.18)`;
  process.stderr.write(
    `${bin}: this is a checkout of toolyard, which runs its TypeScript sources, and ${why}.\n` +
      'Run it with the Node the checkout installs (npm install puts Node 24 in node_modules/.bin):\n' +
      `  npx ${bin} …                              # npx puts node_modules/.bin first on PATH\n` +
      `  node_modules/.bin/node bin/${bin}.mjs …\n` +
      'Set up first if you have not: npx --yes --package=node@24.21.0 -- npm install\n' +
      '(The published npm package runs compiled JavaScript on Node >= 20.19.)\n',
  );
  process.exit(1);
}
