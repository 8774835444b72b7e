// Per-request facts the HTTP layer learns before Elysia sees the request (client address,
// request id), kept beside the Request object without touching its headers.
const meta = new WeakMap<Request, { ip: string; requestId: string }>();

export function setRequestMeta(request: Request, ip: string, requestId: string) {
  meta.set(request, { ip, requestId });
}

export function clientIp(request: Request): string {
  return meta.get(request)?.ip ?? "0.0.0.0";
}

export function requestId(request: Request): string {
  return meta.get(request)?.requestId ?? "-";
}
