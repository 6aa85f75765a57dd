/**
 * The program of the chart's `helm test` pod, run as `node -e <script> <target>…` by the Node runtime of the
 * toolchain server image (/opt/toolyard/bin/node), so the test needs no other image. Each target is
 * `http://host:port/path#label` (2xx expected) or `tcp://host:port#label` (a connection expected); each is
 * tried up to TOOLYARD_CHECK_ATTEMPTS times (default 10), TOOLYARD_CHECK_PAUSE_MS apart (default 3000).
 * It prints one line per target and exits 1 if any failed. CommonJS, no dependencies, no `{{`.
 */
export const HELM_TEST_SCRIPT = `const http = require('node:http');
const net = require('node:net');
const attempts = Number(process.env.TOOLYARD_CHECK_ATTEMPTS || 10);
const pauseMs = Number(process.env.TOOLYARD_CHECK_PAUSE_MS || 3000);
const timeoutMs = 5000;

function once(url) {
  return new Promise((resolve, reject) => {
    const port = Number(url.port);
    if (url.protocol === 'tcp:') {
      const socket = net.connect({ host: url.hostname, port, timeout: timeoutMs });
      socket.on('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('timeout', () => socket.destroy(new Error('timed out')));
      socket.on('error', reject);
      return;
    }
    const request = http.get({ host: url.hostname, port, path: url.pathname, timeout: timeoutMs }, (response) => {
      response.resume();
      const status = response.statusCode || 0;
      if (status >= 200 && status < 300) resolve('HTTP ' + status);
      else reject(new Error('HTTP ' + status));
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
  });
}

async function check(target) {
  const url = new URL(target);
  const label = decodeURIComponent(url.hash.slice(1)) || target;
  const where = target.split('#')[0];
  let failure;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const result = await once(url);
      console.log('ok   ' + label + ': ' + where + ' (' + result + ')');
      return true;
    } catch (error) {
      failure = error;
      if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
  console.log('FAIL ' + label + ': ' + where + ': ' + failure.message + ' (' + attempts + ' attempts)');
  return false;
}

(async () => {
  const targets = process.argv.slice(1);
  let ok = targets.length > 0;
  for (const target of targets) ok = (await check(target)) && ok;
  process.exit(ok ? 0 : 1);
})();
`;
