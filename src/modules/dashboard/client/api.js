// The client's only door to the server: same-origin JSON calls carrying the session cookie.
// Browsers add Origin to POST/DELETE fetches, which the server's CSRF check requires.

export class ApiError extends Error {
  constructor(status, errCode, message, body, retryAfterSeconds = null) {
    super(message);
    this.status = status;
    this.errCode = errCode;
    this.body = body;
    /** the server's retry-after on a 429, so pollers wait as long as it asks */
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Calls the JSON API; resolves with the parsed body, rejects with ApiError on any non-2xx. */
export async function api(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { accept: "application/json" } };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, "NETWORK", "The server could not be reached. Check your connection and try again.");
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const retryAfter = Number(res.headers.get("retry-after"));
    throw new ApiError(
      res.status,
      data?.errCode ?? `HTTP_${res.status}`,
      data?.message ?? `Request failed (${res.status})`,
      data,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
    );
  }
  return data;
}
