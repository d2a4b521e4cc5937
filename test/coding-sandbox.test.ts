// The coding sandbox against hostile programs, with the real runtimes (no mocks): every attack
// ends in a clear result, and the test checks from outside that the host was not reached — the
// marker files the attacks try to create do not exist, the parent's secret never appears in
// any output, a TCP server listening here receives no connection, and the parent's event loop
// keeps answering while hostile runs are queued.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, get } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CodeRunner, OUTPUT_LIMIT, runCode, sameOutput, type RunResult } from '../src/modules/coding/sandbox.js';

const SECRET = `sandbox-secret-${process.pid}-${Date.now()}`;
const PROJECT_FILE = path.resolve('package.json');
let dir: string;
let marker: string;
let tcp: Server;
let port: number;
let connections = 0;

before(async () => {
  process.env.CODING_SANDBOX_SECRET = SECRET;
  dir = mkdtempSync(path.join(tmpdir(), 'coding-sandbox-'));
  marker = path.join(dir, 'escaped');
  tcp = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  port = (tcp.address() as AddressInfo).port;
});

after(async () => {
  delete process.env.CODING_SANDBOX_SECRET;
  rmSync(dir, { recursive: true, force: true });
  await new Promise((resolve) => tcp.close(resolve));
});

function assertHostUntouched(result: RunResult) {
  const everything = JSON.stringify(result);
  assert.ok(!everything.includes(SECRET), 'the parent\u2019s environment leaked');
  assert.ok(!everything.includes('root:x:0:0'), '/etc/passwd was read');
  assert.ok(!everything.includes('"assessment-connect"'), 'the project\u2019s files were read');
  assert.equal(existsSync(marker), false, 'a file was created on the host');
  assert.equal(connections, 0, 'a connection reached the host');
}

describe('coding sandbox: what candidates\u2019 programs get right', () => {
  it('runs a JavaScript function against JSON tests and compares the results here', async () => {
    const result = await runCode({
      language: 'javascript',
      source: 'function add(a, b) { return a + b; }',
      entry: 'add',
      tests: [
        { args: [1, 2], expected: 3 },
        { args: [2, 2], expected: 5 },
      ],
      timeLimitMs: 2000,
      memoryLimitMb: 64,
    });
    assert.equal(result.status, 'ok');
    assert.deepEqual(
      result.tests.map((t) => [t.passed, t.actual]),
      [
        [true, 3],
        [false, 4],
      ],
    );
  });

  it('runs a Python script against stdin and a Python function against JSON tests', async () => {
    const script = await runCode({
      language: 'python',
      source: 'n = int(input())\nprint(n * 2)\nprint("debug", file=__import__("sys").stderr)',
      tests: [
        { stdin: '4\n', expectedStdout: '8\n' },
        { stdin: '5', expectedStdout: '11' },
      ],
      timeLimitMs: 3000,
      memoryLimitMb: 64,
    });
    assert.equal(script.status, 'ok');
    assert.deepEqual(
      script.tests.map((t) => [t.passed, t.stdout]),
      [
        [true, '8\n'],
        [false, '10\n'],
      ],
    );
    assert.equal(script.tests[0]!.stderr, 'debug\n');
    const fn = await runCode({
      language: 'python',
      source: 'def pairs(xs):\n    return {"sum": sum(xs), "sorted": sorted(xs)}',
      entry: 'pairs',
      tests: [{ args: [[3, 1, 2]], expected: { sum: 6, sorted: [1, 2, 3] } }],
      timeLimitMs: 3000,
      memoryLimitMb: 64,
    });
    assert.equal(fn.tests[0]!.passed, true);
  });

  it('compares printed output up to trailing spaces and blank lines', () => {
    assert.ok(sameOutput('1 \n2\n\n', '1\n2'));
    assert.ok(!sameOutput('1\n2', '12'));
  });
});

describe('coding sandbox: hostile JavaScript', () => {
  it('has no process, require, fetch, file system or module loader inside QuickJS', async () => {
    const attacks = [
      'console.log(process.env.CODING_SANDBOX_SECRET)',
      'console.log(require("fs").readFileSync("/etc/passwd", "utf8"))',
      'import("node:fs").then((fs) => console.log(fs))',
      'fetch("http://127.0.0.1:PORT/")',
      'console.log(globalThis.constructor.constructor("return typeof process")())',
      'console.log(typeof std, typeof os, typeof scriptArgs, Object.getOwnPropertyNames(globalThis).join())',
    ];
    const result = await runCode({
      language: 'javascript',
      source: 'eval(stdin)',
      tests: attacks.map((code) => ({ stdin: code.replace('PORT', String(port)) })),
      timeLimitMs: 2000,
      memoryLimitMb: 64,
    });
    for (const index of [0, 1, 3]) assert.equal(result.tests[index]!.status, 'error', JSON.stringify(result.tests[index]));
    assert.equal(result.tests[2]!.stdout, '');
    assert.match(result.tests[0]!.error!, /process/);
    assert.equal(result.tests[4]!.stdout, 'undefined\n');
    assert.match(result.tests[5]!.stdout, /^undefined undefined undefined /);
    assertHostUntouched(result);
  });

  it('ends an infinite loop, a memory bomb, deep recursion and a flood of output', async () => {
    const result = await runCode({
      language: 'javascript',
      source: 'eval(stdin)',
      tests: [
        { stdin: 'while (true) {}' },
        { stdin: 'function f(n) { return f(n + 1) + 1; } f(0);' },
        { stdin: 'const s = "x".repeat(1e6); for (let i = 0; i < 1000; i++) console.log(s);' },
        { stdin: 'console.log("still here")', expectedStdout: 'still here' },
      ],
      timeLimitMs: 3000,
      memoryLimitMb: 64,
    });
    assert.deepEqual(
      result.tests.map((t) => t.status),
      ['time-limit', 'error', 'ok', 'ok'],
    );
    assert.match(result.tests[1]!.error!, /stack/i);
    assert.equal(result.tests[2]!.truncated, true);
    assert.ok(result.tests[2]!.stdout.length <= OUTPUT_LIMIT);
    assert.equal(result.tests[3]!.passed, true);
    assertHostUntouched(result);
    // The memory bomb has a time limit it cannot reach first, however busy the machine.
    const bomb = await runCode({
      language: 'javascript',
      source: 'const b = []; while (true) b.push(new ArrayBuffer(16 * 1024 * 1024));',
      tests: [{}],
      timeLimitMs: 20000,
      memoryLimitMb: 64,
    });
    assert.equal(bomb.status, 'memory-limit', JSON.stringify(bomb));
  });
});

describe('coding sandbox: hostile Python', () => {
  it('cannot read the environment or the host\u2019s files, spawn processes, reach JavaScript or open sockets', async () => {
    const attacks = [
      'import os\nprint(dict(os.environ))\nprint(os.environ.get("CODING_SANDBOX_SECRET"))',
      'print(open("/etc/passwd").read())',
      `print(open(${JSON.stringify(PROJECT_FILE)}).read())`,
      `import os\nos.system("touch ${marker}")`,
      `import subprocess\nsubprocess.run(["touch", "${marker}"])`,
      'import js\nprint(js.process.env)',
      'from js import process\nprint(process.env)',
      'import pyodide_js\npyodide_js.useNodeSockFS()',
      'from pyodide.ffi import to_js\nprint(to_js({}).constructor.constructor("return process")().env)',
      'import pyodide.code\nprint(pyodide.code.run_js("process.env"))',
      `import socket\ns = socket.create_connection(("127.0.0.1", ${port}), timeout=1)\ns.send(b"x")`,
      // Below Python's own os module: the C library's system() goes to Emscripten's Node glue,
      // which the child's permission model refuses (the runtime dies; the next test gets a new one).
      `import posix\nposix.system("touch ${marker}")`,
      'print("after")',
    ];
    const result = await runCode({
      language: 'python',
      source: 'import sys\nexec(sys.stdin.read())',
      tests: attacks.map((stdin) => ({ stdin })),
      timeLimitMs: 5000,
      memoryLimitMb: 128,
    });
    const statuses = result.tests.map((t) => t.status);
    assert.equal(statuses[0], 'ok');
    assert.ok(result.tests[0]!.stdout.includes('None'));
    for (const index of [1, 2, 5, 6, 7, 9, 10]) assert.equal(statuses[index], 'error', `${attacks[index]}: ${JSON.stringify(result.tests[index])}`);
    for (const index of [3, 4, 8, 11]) assert.ok(['not-allowed', 'error'].includes(statuses[index]!), `${attacks[index]}: ${JSON.stringify(result.tests[index])}`);
    assert.equal(statuses[3], 'not-allowed');
    assert.equal(statuses[8], 'not-allowed');
    assert.equal(statuses[11], 'not-allowed');
    assert.equal(result.tests[12]!.stdout, 'after\n');
    assertHostUntouched(result);
  });

  it('ends an infinite loop, a memory bomb, deep recursion and a billion characters of output', async () => {
    const result = await runCode({
      language: 'python',
      source: 'import sys\nexec(sys.stdin.read())',
      tests: [
        { stdin: 'while True: pass' },
        { stdin: 'x = []\nwhile True: x.append(" " * 1000000 + str(len(x)))' },
        { stdin: 'import sys\nsys.setrecursionlimit(100000)\ndef f(n): return f(n + 1) + 1\nf(0)' },
        { stdin: 'import sys\nfor _ in range(1000): sys.stdout.write("x" * 1000000)' },
        { stdin: 'print("still here")', expectedStdout: 'still here' },
      ],
      timeLimitMs: 4000,
      memoryLimitMb: 64,
    });
    const statuses = result.tests.map((t) => t.status);
    assert.equal(statuses[0], 'time-limit');
    assert.equal(statuses[1], 'memory-limit');
    assert.ok(['error', 'time-limit'].includes(statuses[2]!), JSON.stringify(result.tests[2]));
    assert.ok(['ok', 'time-limit', 'memory-limit'].includes(statuses[3]!), JSON.stringify(result.tests[3]));
    assert.ok(result.tests[3]!.stdout.length <= OUTPUT_LIMIT);
    assert.equal(result.tests[4]!.passed, true);
    assertHostUntouched(result);
  });
});

describe('coding sandbox: the pool', () => {
  it('queues hostile runs beyond its size while the parent keeps answering', async () => {
    const runner = new CodeRunner(2);
    const server = createHttpServer((_request, response) => response.end('pong'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const httpPort = (server.address() as AddressInfo).port;
    const ping = () =>
      new Promise<number>((resolve, reject) => {
        const sent = performance.now();
        get({ host: '127.0.0.1', port: httpPort, path: '/' }, (response) => {
          response.resume();
          response.on('end', () => resolve(performance.now() - sent));
        }).on('error', reject);
      });
    try {
      const runs = Array.from({ length: 12 }, () => runner.run({ language: 'javascript', source: 'while (true) {}', tests: [{}], timeLimitMs: 300, memoryLimitMb: 32 }));
      assert.equal(runner.active, 2);
      assert.equal(runner.queued, 10);
      let worstPing = 0;
      let mostActive = 0;
      let pings = 0;
      let done = false;
      const all = Promise.all(runs).finally(() => (done = true));
      while (!done) {
        worstPing = Math.max(worstPing, await ping());
        mostActive = Math.max(mostActive, runner.active);
        pings++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const results = await all;
      assert.deepEqual(
        results.map((r) => r.status),
        Array(12).fill('time-limit'),
        JSON.stringify(results.map((r) => r.tests[0]!.error)),
      );
      assert.ok(pings >= 3, `${pings} pings`);
      assert.ok(worstPing < 1000, `the parent answered in ${worstPing} ms`);
      assert.ok(mostActive <= 2);
      assert.equal(runner.active, 0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('coding sandbox: fairness between candidates, and grading first', () => {
  const looping = { language: 'javascript' as const, source: 'while (true) {}', tests: [{}], timeLimitMs: 2000, memoryLimitMb: 32 };
  const quick = {
    language: 'javascript' as const,
    source: 'function f(x) { return x + 1; }',
    entry: 'f',
    tests: [{ args: [1], expected: 2 }],
    timeLimitMs: 2000,
    memoryLimitMb: 32,
  };

  it('runs one candidate’s examples one at a time, so another’s starts beside their loops, and grading goes before waiting examples', async () => {
    const runner = new CodeRunner(2, 1000, 3);
    // Candidate A asks for four runs of a program that loops; B asks for one just after.
    // (The first loops for 2 s, long enough to hold its place through what follows; the others for 0.3 s.)
    const loops = Array.from({ length: 4 }, (_, i) => runner.run(i === 0 ? looping : { ...looping, timeLimitMs: 300 }, { lane: 'examples', owner: 'attempt-a' }));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(runner.active, 1, 'A holds one place in the pool, whatever it asked for');
    assert.equal(runner.queued, 0, 'and A’s other runs wait behind A’s own, not in the pool’s line');
    const other = runner.run(quick, { lane: 'examples', owner: 'attempt-b' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(runner.active, 2, 'B’s run started at once, beside A’s loop');
    assert.equal(runner.queued, 0);
    // A fifth run of A's is refused rather than queued: three wait behind the one running.
    await assert.rejects(runner.run(looping, { lane: 'examples', owner: 'attempt-a' }), /3 runs of this candidate are waiting already/);

    // With the pool full, C's examples and a submitted attempt's grading wait; grading is taken first.
    const examples = runner.run(quick, { lane: 'examples', owner: 'attempt-c' });
    const grading = runner.run(quick);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([runner.queuedIn('examples'), runner.queuedIn('grading')], [1, 1]);
    assert.equal((await other).status, 'ok');
    // B's place went to grading (A's loop still holds the other for seconds), C's examples still wait.
    assert.deepEqual([runner.queuedIn('examples'), runner.queuedIn('grading')], [1, 0]);
    assert.equal((await grading).status, 'ok');
    assert.equal((await examples).status, 'ok');
    assert.deepEqual(
      (await Promise.all(loops)).map((r) => r.status),
      Array(4).fill('time-limit'),
    );
    assert.equal(runner.active, 0);
  });
});
