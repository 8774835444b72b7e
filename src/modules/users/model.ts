// Request schemas for /v1/users.
import { t } from "elysia";

export const loginBody = t.Object({
  email: t.String({ minLength: 3, maxLength: 254 }),
  password: t.String({ minLength: 1, maxLength: 256 }),
});

export const generateKeyBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
});
