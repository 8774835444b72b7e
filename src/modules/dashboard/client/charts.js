// uPlot wrappers (uPlot itself is the embedded uPlot.iife.min.js global).
export {};
