/** Turns (file, JSON pointer, key|value) into line:column, from the parsed tree, only when printing. */
import type { Node } from "jsonc-parser";
import { tokensOf, type Target } from "./diagnostic.js";

/** A source file as the loader kept it: its text and its parse tree (absent when it did not parse). */
export interface SourceText {
  readonly text: string;
  readonly tree: Node | undefined;
}

/** A 1-based line and column. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Line and column (both 1-based) of a character offset in `text`. */
export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** The value node a pointer names, walking as deep as the document goes; `complete` if it got there. */
export function walkPointer(root: Node, pointer: string): { node: Node; complete: boolean } {
  let node = root;
  for (const token of tokensOf(pointer)) {
    const next = childOf(node, token);
    if (!next) return { node, complete: false };
    node = next;
  }
  return { node, complete: true };
}

function childOf(node: Node, token: string): Node | undefined {
  if (node.type === "object") {
    const prop = node.children?.find((p) => p.children?.[0]?.value === token);
    return prop?.children?.[1];
  }
  if (node.type === "array" && /^\d+$/.test(token)) return node.children?.[Number(token)];
  return undefined;
}

/**
 * The position a target points at: the key of a property (kind "key") or its value. A pointer that
 * goes deeper than the document points at the key of its deepest existing ancestor.
 */
export function locate(source: SourceText | undefined, target: Target): Position {
  if (source && target.offset !== undefined) return positionAt(source.text, target.offset);
  if (!source?.tree) return { line: 1, column: 1 };
  const { node, complete } = walkPointer(source.tree, target.pointer);
  const keyNode = node.parent?.type === "property" ? node.parent.children?.[0] : undefined;
  const wantsKey = target.kind === "key" && complete;
  return positionAt(source.text, wantsKey && keyNode ? keyNode.offset : node.offset);
}
