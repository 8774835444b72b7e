// JSON-lines logger. One object per line on stdout; tests pass a sink to capture or silence it.
export type LogLevel = "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;
export type Logger = (level: LogLevel, msg: string, fields?: LogFields) => void;

export function createLogger(sink: (line: string) => void = (l) => process.stdout.write(l + "\n")): Logger {
  return (level, msg, fields = {}) => {
    sink(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
  };
}

export const silentLogger: Logger = () => {};
