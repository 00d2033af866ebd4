import { report } from "../../diagnostics/report.js";
import { defineRule } from "../rule.js";

/**
 * auth.oauth2 configures OAuth 2.0 access tokens (an external issuer, the token endpoint), which the service
 * accepts only with "oauth2" among auth.schemes: set without it, the settings would be ignored in silence.
 */
export const oauth2Unused = defineRule({
  codes: ["oauth2-unused"],
  description: "auth.oauth2 is set only when oauth2 is one of the schemes",
  check: ({ service }) => (service.auth.oauth2 === undefined || service.auth.schemes.includes("oauth2") ? [] : [report("oauth2-unused", { file: service.origin.file, pointer: "/auth/oauth2" }, {})]),
});
