// tracker.js is imported as text (`with { type: "text" }`) to be served, never executed here.
declare const source: string;
export default source;
