/** Emits the error catalog: a typed module the server and hooks throw from (with the hooks' context typed by its keys), and errors.json. */
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { jsValue, key } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { constObject, printTs } from "./shared/ts.js";

/** The catalog as plain data, sorted by code. */
export function catalogOf(model: Model) {
  return model.errors.map((e) => ({ code: e.code, status: e.status, key: e.key, title: e.title, message: e.message, dev: e.dev, info: e.info }));
}

/** src/generated/errors.ts and src/generated/errors.json */
export function emitErrors(model: Model): EmittedFile[] {
  const catalog = catalogOf(model);
  const contents = printTs(tsHeader("the error catalog"), [
    `import type { ActionHandler as RuntimeActionHandler, HandlerContext as RuntimeHandlerContext, ResourceHooks as RuntimeResourceHooks } from "./runtime/context.js";\nimport { ApiError } from "./runtime/errors.js";\nimport type { ErrorSpec } from "./runtime/spec.js";`,
    constObject({
      name: "errors",
      docs: "Every error this service answers with: built-in conditions and the codes of service.json.",
      open: "{",
      close: "} as const satisfies Record<string, ErrorSpec>",
      entries: catalog.map((e) => ({ doc: `${e.code} (${e.status}) ${e.title}: ${e.message}`, text: `${key(e.key)}: ${jsValue(e)}` })),
    }),
    `/** The key of a catalog entry. */\nexport type ErrorKey = keyof typeof errors;`,
    `/** Every error code this service answers with. */\nexport type ErrorCode = (typeof errors)[ErrorKey]["code"];`,
    `/**\n * An error to throw from a hook or an action handler; the server answers with its catalog entry.\n * @example throw apiError("conflict", "name")\n */\nexport function apiError(key: ErrorKey, property = "", dev?: string): ApiError {\n  return new ApiError(errors[key], property, dev === undefined ? {} : { dev });\n}`,
    `/** What a hook or action handler receives besides its data: \`ctx.error(key)\` takes a key of this catalog only. */\nexport type HandlerContext = RuntimeHandlerContext<ErrorKey>;`,
    `/** The hooks of one collection (src/hooks/<collection>.ts), with a HandlerContext of this catalog. */\nexport type ResourceHooks<Input, Instance> = RuntimeResourceHooks<Input, Instance, ErrorKey>;`,
    `/** An action's handler (src/actions/<action>.ts), with a HandlerContext of this catalog. */\nexport type ActionHandler<Params, Result> = RuntimeActionHandler<Params, Result, ErrorKey>;`,
  ]);
  return [
    { path: "src/generated/errors.ts", contents, owner: "generated" },
    { path: "src/generated/errors.json", contents: JSON.stringify(catalog, null, 2) + "\n", owner: "generated" },
  ];
}
