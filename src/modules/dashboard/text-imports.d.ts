// Type of the dashboard's text imports (assets.ts): Bun embeds these files as strings, also in
// the compiled binary. Patterns are narrow so they never shadow a real JS module elsewhere.
declare module "./client/*" {
  const text: string;
  export default text;
}
declare module "uplot/dist/*" {
  const text: string;
  export default text;
}
