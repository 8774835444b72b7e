// Anonymous visitor ids: a keyed hash of (IP, user agent, site) under a random salt that rotates
// every UTC day. Today's and yesterday's salts live in the database (a restart keeps visits
// whole, and a visit can span midnight); older salts are deleted, so old hashes can never be
// recomputed or linked across days. The raw IP is never stored.
import type { DB } from "../../db";
import { tx } from "../../db";
import { randomToken } from "../../platform/ids";

export interface VisitorIds {
  /** under today's salt: what a new visit is recorded with */
  current: string;
  /** under yesterday's salt, to continue a visit that started before midnight */
  previous: string | null;
}

export interface VisitorHasher {
  idsFor(day: number, ip: string, userAgent: string, siteId: string): VisitorIds;
}

function keyedHash(salt: string, ip: string, userAgent: string, siteId: string): string {
  return new Bun.CryptoHasher("sha256", salt).update(`${ip}\n${userAgent}\n${siteId}`).digest("base64url").slice(0, 22);
}

export function createVisitorHasher(db: DB): VisitorHasher {
  const insert = db.query("INSERT OR IGNORE INTO traffic_salts (day, salt) VALUES ($day, $salt)");
  const select = db.query<{ day: number; salt: string }, { current: number; previous: number }>(
    "SELECT day, salt FROM traffic_salts WHERE day IN ($current, $previous)",
  );
  const prune = db.query("DELETE FROM traffic_salts WHERE day < $previous");
  let cached: { day: number; current: string; previous: string | null } | null = null;

  function saltsFor(day: number) {
    if (cached?.day === day) return cached;
    cached = tx(db, () => {
      insert.run({ day, salt: randomToken(32) });
      const rows = select.all({ current: day, previous: day - 1 });
      prune.run({ previous: day - 1 });
      return {
        day,
        current: rows.find((r) => r.day === day)!.salt,
        previous: rows.find((r) => r.day === day - 1)?.salt ?? null,
      };
    });
    return cached;
  }

  return {
    idsFor(day, ip, userAgent, siteId) {
      const salts = saltsFor(day);
      let previous: string | null | undefined;
      return {
        current: keyedHash(salts.current, ip, userAgent, siteId),
        // only read when today's hash has no live visit (a visit from before midnight): hashed on
        // first read, so the usual beacon pays for one HMAC, not two
        get previous() {
          if (previous === undefined) previous = salts.previous === null ? null : keyedHash(salts.previous, ip, userAgent, siteId);
          return previous;
        },
      };
    },
  };
}
