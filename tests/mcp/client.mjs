// client.mjs: a real MCP client (the official TypeScript SDK's Client over
// StdioClientTransport) that spawns `patrol mcp -c CFG` and runs one scenario,
// for tests/e2e/test_mcp.sh and bench/mcp_bench.sh.  A thin driver: it prints
// one JSON line per result on stdout, and the few protocol-level assertions
// (node:assert) are the `tools` and `cancel` scenarios; a failed one exits 1
// with the message on stderr.  The box-side facts are the shell test's.
//
//   node client.mjs [--patrol PATH] [-c CFG]... [--then CMD] [--after CMD]
//                   [--timeout-ms N] SCENARIO [ARGS...]
//
//   tools               initialize + tools/list: exactly the eight tools, each
//                       with an inputSchema and an outputSchema (objects),
//                       resume and stop annotated destructive; prints the list
//   call TOOL [JSON]    one tools/call (the SDK checks structuredContent against
//                       the tool's outputSchema); prints {tool, isError,
//                       structuredContent, text, progress, ms, done_at_ms (the
//                       epoch ms the result arrived)}.  --then CMD runs
//                       beside the call (sh -c) and must exit 0 (a wait's trigger)
//   cancel TOOL [JSON]  start the call, run --then CMD (exits 0 once the call is
//                       under way), abort it (the SDK sends notifications/
//                       cancelled), run --after CMD (must exit 0: the call's child
//                       is gone), then `runs`, which must answer
//   bench N TOOL [JSON] N calls in one session, each timed; prints {ms: [...]}
//
// PATROL (else `patrol` on PATH) and WK_MCP_CONFIG (colon-separated) stand in
// for --patrol and -c.  The hooks get MCP_SERVER_PID, the server's pid.  The
// server inherits this process's environment (XDG_STATE_HOME, ASAN_OPTIONS).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const TOOLS = ["runs", "status", "wait", "logs", "events", "handbook", "resume", "stop"];
const DESTRUCTIVE = ["resume", "stop"];

function usage(msg) {
	process.stderr.write(`client.mjs: ${msg}\n`);
	process.exit(64);
}

function parseArgs(argv) {
	const o = { patrol: process.env.PATROL || "patrol", configs: [], then: null, after: null,
	    timeoutMs: 120000, rest: [] };
	if (process.env.WK_MCP_CONFIG)
		o.configs = process.env.WK_MCP_CONFIG.split(":").filter(Boolean);
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i], v = () => (++i < argv.length ? argv[i] : usage(`${a} needs a value`));
		if (a === "--patrol") o.patrol = v();
		else if (a === "-c" || a === "--config") o.configs.push(v());
		else if (a === "--then") o.then = v();
		else if (a === "--after") o.after = v();
		else if (a === "--timeout-ms") o.timeoutMs = Number(v());
		else o.rest.push(a);
	}
	if (o.rest.length === 0) usage("no scenario (tools, call, cancel, bench)");
	return o;
}

// sh -c CMD with MCP_SERVER_PID; resolves to its exit code.
function hook(cmd, serverPid) {
	return new Promise((resolve) => {
		const p = spawn("sh", ["-c", cmd], { stdio: ["ignore", "inherit", "inherit"],
		    env: { ...process.env, MCP_SERVER_PID: String(serverPid) } });
		p.on("exit", (code, sig) => resolve(sig ? 128 : code));
	});
}

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const textOf = (r) => (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const args = (s) => (s === undefined ? {} : JSON.parse(s));

async function connect(o) {
	const argv = ["mcp"];
	for (const c of o.configs) argv.push("-c", c);
	const transport = new StdioClientTransport({ command: o.patrol, args: argv,
	    env: { ...process.env }, stderr: "inherit" });
	const client = new Client({ name: "watchkeeper-e2e", version: "1.0.0" });
	await client.connect(transport);
	return { client, transport };
}

// One tools/call, with a progress handler (so the request carries a progressToken).
async function call(client, o, name, a, extra = {}) {
	let progress = 0;
	const t0 = performance.now();
	const r = await client.callTool({ name, arguments: a }, undefined, {
		timeout: o.timeoutMs, resetTimeoutOnProgress: true,
		onprogress: () => { progress++; }, ...extra });
	const t1 = performance.now();
	return { tool: name, isError: r.isError === true, structuredContent: r.structuredContent ?? null,
	    text: textOf(r), progress, ms: +(t1 - t0).toFixed(3), done_at_ms: performance.timeOrigin + t1 };
}

const scenarios = {
	async tools({ client }) {
		const { tools } = await client.listTools();
		const names = tools.map((t) => t.name);
		assert.deepEqual([...names].sort(), [...TOOLS].sort(), "the tools are exactly " + TOOLS);
		for (const t of tools) {
			assert.equal(t.inputSchema?.type, "object", `${t.name}: inputSchema is an object schema`);
			assert.equal(t.outputSchema?.type, "object", `${t.name}: outputSchema is an object schema`);
			assert.ok(typeof t.description === "string" && t.description.length > 20,
			    `${t.name}: a description`);
			assert.equal(t.annotations?.destructiveHint === true, DESTRUCTIVE.includes(t.name),
			    `${t.name}: destructiveHint`);
		}
		const ver = client.getServerVersion();
		out({ check: "tools", names, server: ver?.name ?? null,
		    destructive: tools.filter((t) => t.annotations?.destructiveHint).map((t) => t.name) });
	},

	async call({ client, transport }, o, [name, json]) {
		assert.ok(name, "call: which tool");
		await client.listTools();	// the SDK then validates structuredContent
		const pending = call(client, o, name, args(json));
		const rc = o.then ? await hook(o.then, transport.pid) : 0;
		const r = await pending;
		assert.equal(rc, 0, `--then exited ${rc}`);
		out({ check: "call", ...r });
	},

	async cancel({ client, transport }, o, [name, json]) {
		assert.ok(name, "cancel: which tool");
		await client.listTools();
		const ac = new AbortController();
		const pending = call(client, o, name, args(json), { signal: ac.signal })
		    .then((r) => ({ r }), (e) => ({ e }));
		const rc = o.then ? await hook(o.then, transport.pid) : 0;
		assert.equal(rc, 0, `--then exited ${rc}`);
		ac.abort("cancelled by the e2e test");
		const { r, e } = await pending;
		assert.ok(e && r === undefined, "the cancelled call rejects (it must not have answered first)");
		const ra = o.after ? await hook(o.after, transport.pid) : 0;
		assert.equal(ra, 0, `--after exited ${ra}`);
		await client.ping();
		const next = await call(client, o, "runs", {});
		out({ check: "cancel", tool: name, error: String(e?.message ?? e), next });
	},

	async bench({ client }, o, [n, name, json]) {
		await client.listTools();
		const ms = [];
		for (let i = 0; i < Number(n); i++) {
			const r = await call(client, o, name, args(json));
			assert.equal(r.isError, false, `${name}: ${r.text}`);
			ms.push(r.ms);
		}
		out({ check: "bench", tool: name, ms });
	},
};

const o = parseArgs(process.argv.slice(2));
const [scenario, ...rest] = o.rest;
if (!scenarios[scenario]) usage(`unknown scenario '${scenario}'`);
let conn;
let rc = 0;
try {
	conn = await connect(o);
	await scenarios[scenario](conn, o, rest);
} catch (e) {
	process.stderr.write(`client.mjs: ${scenario}: ${e?.message ?? e}\n`);
	rc = 1;
} finally {
	if (conn) await conn.client.close().catch(() => {});
}
process.exit(rc);
