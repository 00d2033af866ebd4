import { writeResourcery, resourcesOf, editDescription } from "/work/main/bench/synth.ts";
import path from "node:path";
const n = 500;
if (process.argv[2] === "edit") { editDescription(path.join("/tmp/p/defs/resources", resourcesOf(n)[Math.floor(n/2)]!.file), Number(process.argv[3])); }
else writeResourcery(n, "/tmp/p/defs");
