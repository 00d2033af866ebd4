/** `--allow-path DIR`, shared by check, generate and docs: where $refs may lead besides the project. */
import { Flags } from "@oclif/core";

/** A folder outside the project that $refs and `resources` entries may read; repeatable. */
export const allowPathFlag = Flags.string({
  description:
    "a folder outside DIR that $refs and resources entries may read (repeatable); by default only files inside DIR are read",
  helpValue: "DIR",
  multiple: true,
});
