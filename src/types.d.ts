// Text imports (SQL migrations, the tracking script, dashboard assets) embedded by Bun's bundler.
declare module "*.sql" {
  const text: string;
  export default text;
}
