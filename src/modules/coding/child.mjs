// The sandbox's child process: runs one candidate's program against a list of tests, in
// WebAssembly (QuickJS for JavaScript, Pyodide for Python), and reports what each test printed
// and returned. It is started by sandbox.ts with an empty environment, Node's permission model
// (read access to the runtime's package only; no writes, no child processes, no workers) and
// code generation from strings disabled, and is killed after one run. This file is plain
// JavaScript because it runs under plain `node`, without the TypeScript loader.
//
// Protocol: argv[2] is the language, argv[3] a JSON object of the runtime's entry files.
// The child loads the runtime, locks the process down, writes {"type":"ready"} on fd 3,
// reads one JSON job line on stdin, then writes one {"type":"test"} line per test on fd 3 and
// {"type":"done"} at the end. The expected results never enter this process: the parent
// compares.
import { writeSync } from 'node:fs';
import { constants as fsConstants } from 'node:fs';
import { constants as osConstants } from 'node:os';
import net from 'node:net';
import dgram from 'node:dgram';
import tls from 'node:tls';
import http from 'node:http';
import https from 'node:https';
import http2 from 'node:http2';

const language = process.argv[2];
const entries = JSON.parse(process.argv[3] ?? '{}');
const OUTPUT_LIMIT = Number(process.argv[4] ?? 65536);

const send = (message) => writeSync(3, JSON.stringify(message) + '\n');
const notAllowed = (what) =>
  function denied() {
    throw new Error(`${what} is not allowed in the sandbox`);
  };

// Pyodide's start-up asks process.binding('constants') for the file system's flags, which the
// permission model refuses; this answers that one question and nothing else.
Object.defineProperty(process, 'binding', {
  configurable: true,
  writable: true,
  value: (name) => {
    if (name === 'constants') return { fs: fsConstants, os: osConstants };
    throw new Error('process.binding is not allowed in the sandbox');
  },
});

/**
 * Closes the network before the runtime loads, so that the runtime's start-up itself shows it
 * needs none (Pyodide loads its WebAssembly, standard library and lock file from its package).
 */
const NETWORK_GLOBALS = ['require', 'fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest', 'Request', 'Response', 'Headers'];
function removeGlobals() {
  for (const name of NETWORK_GLOBALS) {
    try {
      delete globalThis[name];
    } catch {}
  }
}

function closeNetwork() {
  // Node 20's permission model does not cover the network: every socket of net, tls, http and
  // fetch is made through net.Socket's connect or a server's listen, and UDP through dgram.
  const denySocket = notAllowed('network access');
  net.Socket.prototype.connect = denySocket;
  net.Server.prototype.listen = denySocket;
  net.connect = net.createConnection = net.createServer = denySocket;
  dgram.createSocket = denySocket;
  dgram.Socket.prototype.bind = dgram.Socket.prototype.send = dgram.Socket.prototype.connect = denySocket;
  tls.connect = tls.createServer = denySocket;
  http.request = http.get = http.createServer = denySocket;
  https.request = https.get = https.createServer = denySocket;
  http2.connect = http2.createServer = http2.createSecureServer = denySocket;
  removeGlobals();
}

/** Everything else of the process that reaches the host and that the permission model leaves open. */
function lockDown() {
  const processCalls = [
    'binding',
    '_linkedBinding',
    'dlopen',
    'getBuiltinModule',
    'kill',
    '_kill',
    'chdir',
    'setuid',
    'setgid',
    'seteuid',
    'setegid',
    'setgroups',
    'initgroups',
    '_debugProcess',
    '_debugEnd',
    'send',
    'disconnect',
    'openStdin',
    'umask',
    'setSourceMapsEnabled',
    'loadEnvFile',
    'execve',
    'setUncaughtExceptionCaptureCallback',
  ];
  for (const name of processCalls) {
    try {
      Object.defineProperty(process, name, { configurable: false, writable: false, value: notAllowed(`process.${name}`) });
    } catch {}
  }
  try {
    Object.defineProperty(process, 'report', { configurable: false, value: undefined });
  } catch {}
  // Pyodide's loader puts a `require` of fs, crypto, ws and child_process on the globals.
  removeGlobals();
  for (const key of Object.keys(process.env)) delete process.env[key];
}

/** Collects a stream of output up to OUTPUT_LIMIT characters, remembering that it cut. */
class Output {
  text = '';
  truncated = false;
  add(chunk) {
    if (this.truncated) return;
    const room = OUTPUT_LIMIT - this.text.length;
    if (chunk.length > room) {
      this.text += chunk.slice(0, room);
      this.truncated = true;
    } else this.text += chunk;
  }
}

function readJob() {
  return new Promise((resolve, reject) => {
    let buffer = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end >= 0) {
        process.stdin.pause();
        resolve(JSON.parse(buffer.slice(0, end)));
      }
    });
    process.stdin.on('end', () => reject(new Error('no job')));
  });
}

function describeError(error) {
  const text = String(error?.stack ?? error?.message ?? error);
  return text.length > 4000 ? text.slice(-4000) : text;
}

async function javascriptRunner() {
  const { newQuickJSWASMModuleFromVariant } = await import(entries.quickjsCore);
  const variant = (await import(entries.quickjsVariant)).default;
  const QuickJS = await newQuickJSWASMModuleFromVariant(variant);
  return (job, test) => {
    const stdout = new Output();
    const stderr = new Output();
    const runtime = QuickJS.newRuntime();
    runtime.setMemoryLimit(job.memoryLimitMb * 1024 * 1024);
    runtime.setMaxStackSize(1024 * 1024);
    const deadline = Date.now() + job.timeLimitMs;
    let timedOut = false;
    runtime.setInterruptHandler(() => {
      if (Date.now() > deadline) timedOut = true;
      return timedOut;
    });
    const vm = runtime.newContext();
    const result = { stdout, stderr };
    try {
      const consoleObject = vm.newObject();
      const printer =
        (output) =>
        (...args) => {
          if (output.truncated) return;
          output.add(args.map((arg) => (vm.typeof(arg) === 'string' ? vm.getString(arg) : JSON.stringify(vm.dump(arg)))).join(' ') + '\n');
        };
      for (const [name, output] of [
        ['log', stdout],
        ['info', stdout],
        ['error', stderr],
        ['warn', stderr],
      ]) {
        const fn = vm.newFunction(name, printer(output));
        vm.setProp(consoleObject, name, fn);
        fn.dispose();
      }
      vm.setProp(vm.global, 'console', consoleObject);
      consoleObject.dispose();
      const input = test.stdin ?? '';
      const stdinHandle = vm.newString(input);
      vm.setProp(vm.global, '__stdin', stdinHandle);
      stdinHandle.dispose();
      const prelude = vm.evalCode(
        'globalThis.stdin = __stdin; { const lines = __stdin.split("\\n"); if (lines.at(-1) === "") lines.pop(); let next = 0;' +
          ' globalThis.readline = () => (next < lines.length ? lines[next++] : null); } delete globalThis.__stdin;',
      );
      vm.unwrapResult(prelude).dispose();
      const evaluated = vm.evalCode(job.source, 'solution.js');
      if (evaluated.error) throw vm.dump(evaluated.error);
      evaluated.value.dispose();
      const jobs = runtime.executePendingJobs();
      if (jobs.error) throw vm.dump(jobs.error);
      if (job.entry) {
        const argsHandle = vm.newString(JSON.stringify(test.args ?? []));
        vm.setProp(vm.global, '__args', argsHandle);
        argsHandle.dispose();
        const call = vm.evalCode(
          `(() => { const f = globalThis[${JSON.stringify(job.entry)}]; if (typeof f !== 'function') throw new TypeError(${JSON.stringify(`no function named ${job.entry}`)}); const r = f(...JSON.parse(globalThis.__args)); return r === undefined ? 'null' : JSON.stringify(r); })()`,
          'call.js',
        );
        if (call.error) throw vm.dump(call.error);
        result.returned = vm.getString(call.value);
        call.value.dispose();
      }
    } catch (error) {
      if (timedOut) {
        result.limit = 'time-limit';
        result.error = `stopped after ${job.timeLimitMs} ms (the time limit)`;
        return result;
      } else if (/out of memory/i.test(describeError(error?.message ?? error))) result.limit = 'memory-limit';
      result.error = typeof error === 'object' && error && 'message' in error ? `${error.name ?? 'Error'}: ${error.message}` : describeError(error);
    } finally {
      try {
        vm.dispose();
        runtime.dispose();
      } catch {}
    }
    return result;
  };
}

async function pythonRunner() {
  const { loadPyodide } = await import(entries.pyodide);
  let stdout = new Output();
  let stderr = new Output();
  let input = '';
  const decoder = new TextDecoder();
  const py = await loadPyodide({
    // `import js` sees this empty object, not the process's globals.
    jsglobals: Object.create(null),
    env: { HOME: '/home/pyodide', _: '/usr/bin/python3' },
    stdout: (line) => stdout.add(line + '\n'),
    stderr: (line) => stderr.add(line + '\n'),
  });
  py.setStdout({ write: (buffer) => (stdout.add(decoder.decode(buffer)), buffer.length) });
  py.setStderr({ write: (buffer) => (stderr.add(decoder.decode(buffer)), buffer.length) });
  py.setStdin({
    stdin: () => {
      const text = input;
      input = null;
      return text;
    },
  });
  py.runPython(`
import sys, os, json, builtins
def _blocked(*args, **kwargs):
    raise PermissionError("not allowed in the sandbox")
for _name in ("system", "popen", "fork", "execv", "execve", "spawnv", "kill", "killpg"):
    if hasattr(os, _name):
        setattr(os, _name, _blocked)
for _name in ("js", "pyodide_js"):
    sys.modules.pop(_name, None)
del _name
`);
  for (const name of ['js', 'pyodide_js']) {
    try {
      py.unregisterJsModule(name);
    } catch {}
  }
  const harness = py.runPython(`
def _sandbox_run(source, entry, args_json):
    import json, sys
    scope = {"__name__": "solution" if entry else "__main__", "__builtins__": __builtins__}
    exec(compile(source, "solution.py", "exec"), scope)
    if entry:
        if not callable(scope.get(entry)):
            raise NameError("no function named " + entry)
        return json.dumps(scope[entry](*json.loads(args_json)))
    return None
_sandbox_run
`);
  return (job, test) => {
    stdout = new Output();
    stderr = new Output();
    input = test.stdin ?? '';
    const result = { stdout, stderr };
    try {
      const returned = harness(job.source, job.entry ?? null, JSON.stringify(test.args ?? []));
      if (job.entry) result.returned = returned;
    } catch (error) {
      const text = String(error?.message ?? error);
      const lines = text.trim().split('\n');
      result.error = lines.slice(-Math.min(lines.length, 12)).join('\n');
      if (/MemoryError/.test(lines.at(-1) ?? '')) result.limit = 'memory-limit';
      if (error?.pyodide_fatal_error) result.fatal = true;
    }
    return result;
  };
}

async function main() {
  closeNetwork();
  const run = language === 'python' ? await pythonRunner() : await javascriptRunner();
  lockDown();
  send({ type: 'ready' });
  const job = await readJob();
  for (let index = 0; index < job.tests.length; index++) {
    const started = performance.now();
    const result = run(job, job.tests[index]);
    send({
      type: 'test',
      index,
      stdout: result.stdout.text,
      stderr: result.stderr.text,
      truncated: result.stdout.truncated || result.stderr.truncated,
      returned: result.returned,
      error: result.error,
      limit: result.limit,
      durationMs: Math.round(performance.now() - started),
      fatal: result.fatal === true,
    });
    if (result.fatal) process.exit(3);
  }
  send({ type: 'done' });
  process.exit(0);
}

main().catch((error) => {
  try {
    send({ type: 'failed', error: describeError(error) });
  } catch {}
  process.exit(2);
});
