/**
 * Preloaded (`node --import`) into the stdio-to-HTTP bridge the peers benchmark runs: supergateway listens on
 * every interface and has no option to choose one, and what it serves is an exec tool without authentication.
 * A `listen(port)` without a host binds 127.0.0.1 instead, so the benchmark never offers a shell to the network.
 */
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  if (typeof args[0] === 'number' && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};
