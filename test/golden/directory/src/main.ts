// Entry point of Directory API (your code): resourcery created this file once and never overwrites it.
// Start-up, settings and shutdown live in src/generated/server.ts; wire extra plugins here if you need them.
import { start } from "./generated/server.js";

const service = await start();
service.app.log.info(`Directory API listening on ${service.url}`);
