// AI traffic page (being built).
import { fill, h, pageTitle } from "./dom.js";

export default {
  title: "AI traffic",
  async render(main) {
    fill(main, ...pageTitle("AI traffic"), h("p", {}, "Coming soon."));
  },
};
