import { expect, test } from "bun:test";
import { startTestServer } from "../support/server";

test("stop(): in-flight requests finish, new connections are refused, the database is closed", async () => {
  const s = await startTestServer();
  let push!: (chunk: string) => void;
  let end!: () => void;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      push = (chunk) => c.enqueue(new TextEncoder().encode(chunk));
      end = () => c.close();
    },
  });
  // a request whose body is still arriving when shutdown starts
  const inflight = fetch(`${s.url}/v1/users/login`, { method: "POST", headers: { "content-type": "application/json" }, body });
  push('{"email":"nobody@example.com",');
  await Bun.sleep(150);
  const stopped = s.stop();
  await Bun.sleep(50);
  push('"password":"whatever1"}');
  end();
  const res = await inflight;
  expect(res.status).toBe(401);
  await stopped;
  await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
  expect(() => s.ctx.db.query("SELECT 1").get()).toThrow();
});
