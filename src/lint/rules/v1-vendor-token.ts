import { report } from "../../diagnostics/report.js";
import { VENDOR_PATTERN, vendorFix } from "../../model/media-types.js";
import { defineRule } from "../rule.js";

/** V1: the vendor token fits application/vnd.<vendor>.v<N>.<resource>+json and parses back. */
export const v1VendorToken = defineRule({
  codes: ["V1"],
  description: "the vendor token is valid in a media type",
  check: ({ service }) =>
    VENDOR_PATTERN.test(service.vendor)
      ? []
      : [report("V1", { file: service.origin.file, pointer: "/vendor" }, { vendor: service.vendor, fix: vendorFix(service.vendor) })],
});
