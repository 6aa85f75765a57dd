/**
 * What runs in the program's interpreter before its code (docs/code-mode.md, "Helpers"): the `mcp_<alias>` proxies
 * and the discovery helpers over the channel the codebox opened (fd 3: requests, fd 4: replies; one JSON object per
 * line), then the program itself, whose value goes back as the run's return value. Passed as the interpreter's
 * `-c` / `--eval` argument: no file of the server's is read by the program. The prelude runs with the program's
 * rights and is no boundary: the server checks every frame.
 *
 * argv after the prelude: the program file, the directory to start in, the servers' names as a JSON array.
 */

export const PYTHON_PRELUDE = String.raw`
import ast, itertools, json, os, sys, threading, traceback, types
def _toolyard_start():
    main_path, cwd, names = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    for fd in (3, 4):
        os.set_inheritable(fd, False)
    lock, waiters, ids = threading.Lock(), {}, itertools.count(1)

    def send(message):
        data = memoryview((json.dumps(message, separators=(",", ":"), default=repr) + "\n").encode())
        with lock:
            while data:
                data = data[os.write(3, data):]

    def reader():
        buffer = b""
        while True:
            chunk = os.read(4, 1 << 16)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = json.loads(line)
                waiter = waiters.pop(message.get("id"), None)
                if waiter:
                    waiter(message)
        for waiter in list(waiters.values()):
            waiter({"ok": False, "error": {"code": "TOOLYARD_CODE_MODE_CHANNEL", "message": "the channel closed"}})

    threading.Thread(target=reader, name="toolyard-mcp", daemon=True).start()

    class McpError(Exception):
        """A call the server refused or could not make (a tool's own failure is a result with isError)."""
        def __init__(self, code, message):
            super().__init__(f"{code}: {message}")
            self.code = code

    def unwrap(message):
        if message.get("ok"):
            return message.get("value")
        error = message.get("error") or {}
        raise McpError(error.get("code"), error.get("message"))

    def request(op, **fields):
        number, done, box = next(ids), threading.Event(), {}
        def answer(message):
            box["m"] = message
            done.set()
        waiters[number] = answer
        send({"id": number, "op": op, **fields})
        done.wait()
        return unwrap(box["m"])

    async def request_async(op, **fields):
        import asyncio
        loop = asyncio.get_running_loop()
        future, number = loop.create_future(), next(ids)
        waiters[number] = lambda m: loop.call_soon_threadsafe(lambda: future.done() or future.set_result(m))
        send({"id": number, "op": op, **fields})
        return unwrap(await future)

    def arguments(given, named):
        merged = dict(given or {})
        merged.update(named)
        return merged

    class Server:
        """mcp_<alias>.<tool>(args or keywords) calls a tool; <tool>_async(...) is its coroutine form."""
        def __init__(self, name):
            self._name = name
        def call(self, tool, args=None, **named):
            return request("call", server=self._name, tool=tool, args=arguments(args, named))
        async def call_async(self, tool, args=None, **named):
            return await request_async("call", server=self._name, tool=tool, args=arguments(args, named))
        def __getattr__(self, tool):
            if tool.startswith("__"):
                raise AttributeError(tool)
            if tool.endswith("_async"):
                return lambda args=None, **named: self.call_async(tool[:-6], args, **named)
            return lambda args=None, **named: self.call(tool, args, **named)
        def __repr__(self):
            return f"<MCP server {self._name}>"

    helpers = {
        "McpError": McpError,
        "mcp_servers": {name: Server(name) for name in names},
        "list_servers": lambda: request("list_servers"),
        "list_tools": lambda server: request("list_tools", server=server),
        "query_tool_docs": lambda server, tool=None: request("query_tool_docs", server=server, tool=tool),
        "search_tool_docs": lambda query, limit=5: request("search_tool_docs", query=query, limit=limit),
        "capability_summary": lambda: request("capability_summary"),
        "list_servers_async": lambda: request_async("list_servers"),
        "list_tools_async": lambda server: request_async("list_tools", server=server),
        "query_tool_docs_async": lambda server, tool=None: request_async("query_tool_docs", server=server, tool=tool),
        "search_tool_docs_async": lambda query, limit=5: request_async("search_tool_docs", query=query, limit=limit),
        "capability_summary_async": lambda: request_async("capability_summary"),
    }
    for name in names:
        helpers["mcp_" + name.replace("-", "_")] = helpers["mcp_servers"][name]

    os.chdir(cwd)
    sys.path.insert(0, cwd)
    sys.argv = [main_path]
    source = open(main_path, encoding="utf-8").read()
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    tree = ast.parse(source, main_path)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    scope = {"__name__": "__main__", "__file__": main_path, "__builtins__": __builtins__, **helpers}

    # asyncio is imported only for a program that awaits: it is most of an empty run's start-up.
    def run():
        pending = eval(compile(tree, main_path, "exec", flags=flags), scope)
        final = None if last is None else compile(ast.Expression(last.value), main_path, "eval", flags=flags)
        if isinstance(pending, types.CoroutineType) or (final is not None and final.co_flags & 0x80):
            import asyncio
            async def finish():
                if isinstance(pending, types.CoroutineType):
                    await pending
                value = None if final is None else eval(final, scope)
                return (await value) if isinstance(value, types.CoroutineType) else value
            return asyncio.run(finish())
        return None if final is None else eval(final, scope)

    try:
        value = run()
    except SystemExit as stop:
        send({"op": "result", "value": None})
        raise
    except BaseException as error:
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != main_path:
            tb = tb.tb_next
        traceback.print_exception(type(error), error, tb or error.__traceback__)
        send({"op": "result", "error": f"{type(error).__name__}: {error}"})
        sys.stdout.flush()
        os._exit(1)
    send({"op": "result", "value": value})
_toolyard_start()
`;

export const NODE_PRELUDE = String.raw`
import net from 'node:net';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const [mainPath, cwd, namesText] = process.argv.slice(1);
const names = JSON.parse(namesText);
const call = new net.Socket({ fd: 3, readable: false, writable: true });
const reply = new net.Socket({ fd: 4, readable: true, writable: false });
const waiters = new Map();
let nextId = 1;
let buffered = '';
const idle = () => { if (waiters.size === 0) { reply.unref(); call.unref(); } };
idle();
reply.setEncoding('utf8');
reply.on('data', (chunk) => {
  buffered += chunk;
  let at;
  while ((at = buffered.indexOf('\n')) >= 0) {
    const message = JSON.parse(buffered.slice(0, at));
    buffered = buffered.slice(at + 1);
    const waiter = waiters.get(message.id);
    if (waiter) { waiters.delete(message.id); waiter(message); }
  }
  idle();
});
reply.on('close', () => {
  for (const waiter of waiters.values())
    waiter({ ok: false, error: { code: 'TOOLYARD_CODE_MODE_CHANNEL', message: 'the channel closed' } });
  waiters.clear();
});
const json = (value) => JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v));
function send(message) { call.write(json(message) + '\n'); }
/** A call the server refused or could not make (a tool's own failure is a result with isError). */
class McpError extends Error {
  constructor(code, message) { super(code + ': ' + message); this.name = 'McpError'; this.code = code; }
}
function request(op, fields = {}) {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    waiters.set(id, (m) => (m.ok ? resolve(m.value ?? null) : reject(new McpError(m.error?.code, m.error?.message))));
    reply.ref();
    call.ref();
    send({ id, op, ...fields });
  });
}
function server(name) {
  const target = {
    call: (tool, args = {}) => request('call', { server: name, tool, args }),
    toString: () => '[MCP server ' + name + ']',
  };
  return new Proxy(target, {
    get: (t, tool) => {
      if (typeof tool !== 'string' || tool === 'then') return undefined;
      if (tool in t) return t[tool];
      return (args = {}) => t.call(tool, args);
    },
  });
}
const helpers = {
  McpError,
  mcp_servers: Object.fromEntries(names.map((n) => [n, server(n)])),
  list_servers: () => request('list_servers'),
  list_tools: (s) => request('list_tools', { server: s }),
  query_tool_docs: (s, tool = null) => request('query_tool_docs', { server: s, tool }),
  search_tool_docs: (query, limit = 5) => request('search_tool_docs', { query, limit }),
  capability_summary: () => request('capability_summary'),
  require: createRequire(cwd + '/'),
};
for (const n of names) helpers['mcp_' + n.replaceAll('-', '_')] = helpers.mcp_servers[n];
Object.assign(globalThis, helpers);
process.chdir(cwd);
process.argv = [process.argv0, mainPath];
let outcome;
try {
  const loaded = await import(pathToFileURL(mainPath).href);
  outcome = { op: 'result', value: await loaded.default };
} catch (error) {
  console.error(error);
  outcome = { op: 'result', error: String(error?.stack?.split('\n')[0] ?? error) };
  process.exitCode = 1;
}
call.ref();
call.end(json(outcome) + '\n');
`;
