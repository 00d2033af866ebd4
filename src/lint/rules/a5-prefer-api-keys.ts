import { report } from "../../diagnostics/report.js";
import { defineRule } from "../rule.js";

/** A5: API keys are preferred over user name and password, so basic alone earns a warning. */
export const a5PreferApiKeys = defineRule({
  codes: ["A5"],
  description: "warn when basic is the only authentication scheme",
  check: ({ service }) => {
    const { schemes } = service.auth;
    if (schemes.length !== 1 || schemes[0] !== "basic") return [];
    return [report("A5", { file: service.origin.file, pointer: "/auth/schemes" }, {})];
  },
});
