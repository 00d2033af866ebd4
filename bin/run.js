#!/usr/bin/env node
// Entry point of the resourcery CLI: oclif finds the commands in dist/cli/commands.
import { execute } from "@oclif/core";

await execute({ dir: import.meta.url });
