// The one error shape: every failure leaves the server as { message, errCode } JSON (plus any
// extra fields the SPEC asks for, e.g. jobId on an unknown job).
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly errCode: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const badRequest = (errCode: string, message: string, extra?: Record<string, unknown>) =>
  new AppError(400, errCode, message, extra);
export const unauthorized = (errCode: string, message: string) => new AppError(401, errCode, message);
export const forbidden = (errCode: string, message: string) => new AppError(403, errCode, message);
export const notFound = (errCode: string, message: string, extra?: Record<string, unknown>) =>
  new AppError(404, errCode, message, extra);
export const conflict = (errCode: string, message: string, extra?: Record<string, unknown>) =>
  new AppError(409, errCode, message, extra);
export const tooMany = (errCode: string, message: string, retryAfterSeconds: number) =>
  new AppError(429, errCode, message, {}, { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) });

export function errorBody(err: AppError) {
  return { message: err.message, errCode: err.errCode, ...err.extra };
}
