#!/usr/bin/env bun
// The aivis command line: serve | migrate | user … | key … | backup. `--json` prints one JSON
// object on the last line so scripts can read the result.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { VERSION } from "./app";
import { applyFlags, ConfigError, loadConfig } from "./config";
import { migrate, openDatabase } from "./db";
import { AppError } from "./http/errors";
import { randomToken } from "./platform/ids";
import { startAivis } from "./server";
import { countUsers, createUser, findUserByEmail, generateApiKey, setBanned, setPassword, setPlan } from "./modules/users/service";

const USAGE = `aivis ${VERSION}: self-hosted AI visibility

Usage:
  aivis serve [--port N] [--host H] [--data-dir DIR] [--public-url URL]
  aivis migrate
  aivis user add EMAIL --plan free|startup|business|enterprise [--password P] [--join EMAIL] [--json]
  aivis user plan EMAIL PLAN [--json]
  aivis user ban EMAIL [--json]
  aivis user unban EMAIL [--json]
  aivis user password EMAIL --password P
  aivis key create EMAIL [--name N] [--json]
  aivis backup FILE

Every command reads the same environment variables as serve (AIVIS_DATA_DIR, …); see README.`;

class UsageError extends Error {}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: "boolean" },
      plan: { type: "string" },
      password: { type: "string" },
      join: { type: "string" },
      name: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      "data-dir": { type: "string" },
      "public-url": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
  });
}

function out(json: boolean | undefined, text: string, data: Record<string, unknown>) {
  if (!json) console.log(text);
  else {
    if (text) console.log(text);
    console.log(JSON.stringify(data));
  }
}

async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.version) {
    console.log(VERSION);
    return 0;
  }
  const [command, sub, ...rest] = positionals;
  if (values.help || !command || command === "help") {
    console.log(USAGE);
    return command || values.help ? 0 : 1;
  }
  const flags: Record<string, string> = {};
  for (const f of ["port", "host", "data-dir", "public-url"] as const) if (values[f] !== undefined) flags[`--${f}`] = values[f]!;
  const config = loadConfig(applyFlags(process.env, flags));

  if (command === "serve") {
    const running = await startAivis(config);
    console.log(JSON.stringify({ time: new Date().toISOString(), level: "info", msg: "aivis listening", url: running.url, dataDir: config.dataDir }));
    if (countUsers(running.ctx.db) === 0) {
      console.log(
        `No user exists yet. Create one with the CLI, then sign in at ${running.url}/app:\n  aivis user add you@example.com --plan business --password 'choose-a-password'\n  (from a source checkout: npm run aivis -- user add …)`,
      );
    }
    let signalled = false;
    const shutdown = async (signal: string) => {
      if (signalled) return;
      signalled = true;
      console.log(JSON.stringify({ time: new Date().toISOString(), level: "info", msg: "shutting down", signal }));
      await running.stop();
      process.exit(0);
    };
    process.on("SIGTERM", () => void shutdown("SIGTERM"));
    process.on("SIGINT", () => void shutdown("SIGINT"));
    return -1; // keep running
  }

  const db = openDatabase(config.dbPath);
  try {
    const result = migrate(db);
    const now = Date.now();
    if (command === "migrate") {
      out(false, result.applied.length ? `applied ${result.applied.join(", ")}` : "database is up to date", {});
      return 0;
    }
    if (command === "user") {
      const email = rest[0];
      if (!email) throw new UsageError(`aivis user ${sub ?? ""} needs an EMAIL`);
      if (sub === "add") {
        if (!values.plan && !values.join) throw new UsageError("aivis user add needs --plan");
        const generated = values.password === undefined;
        const password = values.password ?? randomToken(12);
        const { user, workspace } = await createUser(db, now, { email, plan: values.plan, password, joinEmail: values.join });
        out(
          values.json,
          `created ${user.email} (plan ${workspace.plan}, workspace ${workspace.id})` + (generated ? `\npassword (shown once): ${password}` : ""),
          { id: user.id, email: user.email, workspaceId: workspace.id, plan: workspace.plan, ...(generated ? { password } : {}) },
        );
        return 0;
      }
      if (sub === "plan") {
        const plan = rest[1];
        if (!plan) throw new UsageError("aivis user plan EMAIL PLAN");
        const ws = setPlan(db, email, plan);
        out(values.json, `${email}: workspace ${ws.id} is now on plan ${ws.plan}`, { email, workspaceId: ws.id, plan: ws.plan });
        return 0;
      }
      if (sub === "ban" || sub === "unban") {
        const user = setBanned(db, email, sub === "ban");
        out(values.json, `${user.email} ${sub === "ban" ? "banned" : "unbanned"}`, { email: user.email, banned: sub === "ban" });
        return 0;
      }
      if (sub === "password") {
        if (!values.password) throw new UsageError("aivis user password EMAIL --password P");
        await setPassword(db, email, values.password);
        out(values.json, `password of ${email} changed`, { email });
        return 0;
      }
      throw new UsageError(`unknown command: user ${sub ?? ""}`);
    }
    if (command === "key" && sub === "create") {
      const email = rest[0];
      if (!email) throw new UsageError("aivis key create EMAIL [--name N]");
      const user = findUserByEmail(db, email);
      if (!user) throw new AppError(404, "USER_NOT_FOUND", `no user with email ${email}`);
      const { secret, key } = generateApiKey(db, now, user.id, values.name ?? "cli");
      out(values.json, values.json ? "" : `${secret}\n(shown once; expires ${key.expiresAt})`, { apiKey: secret, ...key });
      return 0;
    }
    if (command === "backup") {
      const file = sub;
      if (!file) throw new UsageError("aivis backup FILE");
      const target = resolve(file);
      if (existsSync(target)) throw new UsageError(`${target} already exists; choose a new file`);
      // VACUUM INTO writes a consistent snapshot while the server keeps running (WAL readers don't block)
      db.query("VACUUM INTO ?").run(target);
      out(false, `backup written to ${target}`, {});
      return 0;
    }
    throw new UsageError(`unknown command: ${[command, sub].filter(Boolean).join(" ")}`);
  } finally {
    db.close();
  }
}

try {
  const code = await run(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} catch (err) {
  if (err instanceof ConfigError || err instanceof UsageError || err instanceof AppError) {
    console.error(`aivis: ${err.message}`);
    if (err instanceof UsageError) console.error("run `aivis help` for usage");
    process.exit(err instanceof AppError ? 3 : 2);
  }
  if (err instanceof TypeError && (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
    console.error(`aivis: ${err.message}`);
    process.exit(2);
  }
  throw err;
}
