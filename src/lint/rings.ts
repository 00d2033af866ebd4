/** Rings in a directed graph, for the rules that refuse them (required links, schemas referring to themselves). */
import { assertInternal } from "../diagnostics/internal-error.js";

/** How a rule's graph is read: the arrows leaving a node, and the node an arrow leaves and enters. */
export interface Graph<A> {
  /** Every node, in the order findings should follow: each ring starts at its first node in this order. */
  readonly nodes: readonly string[];
  readonly arrows: (node: string) => readonly A[];
  readonly from: (arrow: A) => string;
  readonly to: (arrow: A) => string;
}

/**
 * Each arrow from a node to itself as a ring of one, then one ring per group of two or more nodes that
 * reach one another (a strongly connected component, by Tarjan's algorithm, iterative so that a long chain
 * cannot overflow the call stack): the shortest way round from the group's first node, as its arrows.
 * Arrows to nodes outside `nodes` are ignored.
 */
export function ringsOf<A>(graph: Graph<A>): A[][] {
  const { nodes, arrows, to } = graph;
  const known = new Set(nodes);
  const found: A[][] = [];
  for (const node of nodes) for (const a of arrows(node)) if (to(a) === node) found.push([a]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let next = 0;
  const components: Set<string>[] = [];
  const enter = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
  };
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: string; child: number }[] = [{ node: start, child: 0 }];
    enter(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const out = arrows(top.node);
      if (top.child < out.length) {
        const target = to(out[top.child++]!);
        if (!known.has(target)) continue;
        if (!index.has(target)) {
          enter(target);
          work.push({ node: target, child: 0 });
        } else if (onStack.has(target)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) !== index.get(top.node)) continue;
      const component = new Set<string>();
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.add(member);
      } while (member !== top.node);
      if (component.size > 1) components.push(component);
    }
  }
  const order = new Map(nodes.map((n, i) => [n, i]));
  components.sort((a, b) => order.get(firstOf(a, nodes))! - order.get(firstOf(b, nodes))!);
  for (const component of components) found.push(ringThrough(graph, component));
  return found;
}

function firstOf(members: ReadonlySet<string>, nodes: readonly string[]): string {
  return nodes.find((n) => members.has(n))!;
}

/** The shortest ring of arrows from the component's first node back to it, inside the component. */
function ringThrough<A>(graph: Graph<A>, members: ReadonlySet<string>): A[] {
  const { arrows, from, to } = graph;
  const start = firstOf(members, graph.nodes);
  const cameBy = new Map<string, A>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const a of arrows(queue[i]!)) {
      const target = to(a);
      if (!members.has(target) || target === from(a)) continue;
      if (target === start) {
        const ring = [a];
        for (let at = from(a); at !== start; at = from(cameBy.get(at)!)) ring.unshift(cameBy.get(at)!);
        return ring;
      }
      if (cameBy.has(target)) continue;
      cameBy.set(target, a);
      queue.push(target);
    }
  }
  // A strongly connected component of two or more nodes always has such a ring.
  assertInternal(false, `no ring through ${[...members].join(", ")}`);
}
