import { report } from "../../diagnostics/report.js";
import { defineRule } from "../rule.js";

/** A3: Basic authentication is only allowed over TLS, so a service offering it has an https baseUrl. */
export const a3BasicNeedsHttps = defineRule({
  codes: ["A3"],
  description: "the basic scheme needs an https baseUrl",
  check: ({ service }) => {
    const i = service.auth.schemes.indexOf("basic");
    if (i < 0 || !service.baseUrl.startsWith("http://")) return [];
    return [
      report("A3", { file: service.origin.file, pointer: `/auth/schemes/${i}` }, {
        baseUrl: service.baseUrl,
        https: service.baseUrl.replace(/^http:/, "https:"),
      }),
    ];
  },
});
