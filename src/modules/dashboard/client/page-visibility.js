// Visibility page (being built).
import { fill, h, pageTitle } from "./dom.js";

export default {
  title: "Visibility",
  async render(main) {
    fill(main, ...pageTitle("Visibility"), h("p", {}, "Coming soon."));
  },
};
