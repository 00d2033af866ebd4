/**
 * The breaking-change gate (CONTRACT §7): a generation records the wire contract of every version it
 * served (OUT/.resourcery/contract.json, a generated file); the next generation classifies what its own
 * contract changes against it, and refuses (nothing written, exit 1) when a change breaks a version's
 * clients, unless run with --allow-breaking. `resourcery diff` prints the same for two definition folders.
 */
import fs from "node:fs";
import path from "node:path";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import type { EmittedFile } from "../emit/emitted-file.js";
import type { Model } from "../model/types.js";
import { classify, type ContractChange } from "./classify.js";
import { CONTRACT_FORMAT, contractOf, type WireContract, type WireContractV1 } from "./contract.js";

/** Where a generated package keeps the contract of the versions it served. */
export const CONTRACT_FILE = ".resourcery/contract.json";

/**
 * The contract recorded in `out` (of this form, or of the first, which classify compares too); undefined when
 * there is none, or one of another form (the next generation records it anew).
 */
export function readContract(out: string): WireContract | WireContractV1 | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(path.join(out, CONTRACT_FILE), "utf8")) as WireContract | WireContractV1;
    if (!value || value.versions === null || typeof value.versions !== "object") return undefined;
    if (value.format === 1) return value;
    return value.format === CONTRACT_FORMAT && value.shared !== null && typeof value.shared === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One `breaking-change` error per breaking change, placed in the new definitions (`dir`) when the changed
 * thing is there, else where the recorded contract had it: in `oldDir` when the old definitions are at hand
 * (diff), else in the same file of `dir` at what held it (the removed property's `properties`).
 */
export function breakDiagnostics(changes: readonly ContractChange[], current: number, dir: string, oldDir?: string): Diagnostic[] {
  return changes
    .filter((c) => c.breaking)
    .map((c) => {
      const gone = c.side === "old";
      const at = gone && oldDir !== undefined ? { file: path.join(oldDir, c.origin.file), pointer: c.origin.pointer } : { file: path.join(dir, c.origin.file), pointer: gone ? parentPointer(c.origin.pointer) : c.origin.pointer };
      return report("breaking-change", { ...at, kind: "key" }, { what: c.what, clients: c.clients, version: c.version, next: current + 1, current });
    });
}

/** The pointer of what holds `pointer`'s target ("" for the root). */
function parentPointer(pointer: string): string {
  return pointer.slice(0, Math.max(0, pointer.lastIndexOf("/")));
}

/**
 * The gate of one generation: the contract file to write for `model` (definitions in `dir`), and the breaks it
 * makes against the contract recorded in `out` (none when nothing is recorded there, or with `allowBreaking`).
 */
export function gate(model: Model, dir: string, out: string, allowBreaking: boolean): { file: EmittedFile; breaks: Diagnostic[]; changes: ContractChange[] } {
  const contract = contractOf(model, dir);
  const recorded = readContract(out);
  const changes = recorded ? classify(recorded, contract) : [];
  const breaks = allowBreaking ? [] : breakDiagnostics(changes, model.service.version, dir);
  return { file: { path: CONTRACT_FILE, owner: "generated", contents: `${JSON.stringify(contract, null, 1)}\n` }, breaks, changes };
}
