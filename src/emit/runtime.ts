/** Copies the runtime (templates/runtime/*.ts, tested in resourcery) verbatim into src/generated/runtime/. */
import type { EmittedFile } from "./emitted-file.js";
import { tsHeader } from "./shared/header.js";
import { asset, assetNames } from "./shared/templates.js";

/** src/generated/runtime/*.ts, each with the do-not-edit header. */
export function emitRuntime(): EmittedFile[] {
  return assetNames("runtime")
    .filter((name) => name.endsWith(".ts"))
    .map((name) => ({
      path: `src/generated/runtime/${name}`,
      contents: tsHeader(`runtime helper, copied from resourcery's templates/runtime/${name}`) + asset("runtime", name),
      owner: "generated" as const,
    }));
}
