import { checkProject } from "./src/pipeline.js";
import { emitDocs } from "./src/emit/docs/index.js";
import fs from "node:fs"; import path from "node:path";
const { model } = checkProject("test/fixtures/check/clean-versions");
const files = emitDocs(model!);
fs.rmSync("/tmp/h18d-docs", { recursive: true, force: true });
for (const f of files) { const p = path.join("/tmp/h18d-docs", f.path); fs.mkdirSync(path.dirname(p), { recursive: true }); fs.writeFileSync(p, f.contents); }
console.log(files.filter(f => !/^\d/.test(f.path)).map(f => f.path).join(" "));
