import { report } from "../../diagnostics/report.js";
import { defineRule } from "../rule.js";

/** V3: a v<N> segment in baseUrl's path agrees with the declared version. */
export const v3VersionSegment = defineRule({
  codes: ["V3"],
  description: "a v<N> segment of baseUrl agrees with version",
  check: ({ service }) =>
    service.basePath
      .split("/")
      .filter((s) => /^v\d+$/.test(s) && Number(s.slice(1)) !== service.version)
      .map((segment) => report("V3", { file: service.origin.file, pointer: "/baseUrl" }, { segment, version: service.version })),
});
