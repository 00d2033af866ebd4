/**
 * Holds one of Node's `process.nextTick` task objects for the life of the process, so that V8 keeps the
 * shapes (hidden classes) those objects go through and builds every later one on its fast path.
 *
 * Every answer queues such tasks (a socket write's callback, the end of the request's stream), each made by
 * one object literal in Node's own code (`{ [async_id_symbol], [trigger_async_id_symbol], callback, args }`
 * in lib/internal/process/task_queues.js). V8 defines its last three properties quickly only while it has
 * seen one shape at each. The shapes after the first property are held by live task objects alone: a full
 * garbage collection while none is queued (the start of a service allocates much) frees them, the next task
 * makes new ones, and V8 marks the three definitions megamorphic for the rest of the process: each task is
 * then built through V8's runtime, on every request. Measured on the generated library service: after load,
 * `%DebugPrint(process.nextTick)` shows those definitions MEGAMORPHIC without this module and MONOMORPHIC
 * with it; paired rounds of GET of an instance, with and without `expand`, answer ~7% more requests per
 * second with it (bench/README.md). The cost: one object of four properties, held.
 *
 * It is imported before anything else the service loads (app.ts, server.ts), so the shapes are held before
 * the start's collections.
 */
import { executionAsyncResource } from "node:async_hooks";

let held: object | undefined;
process.nextTick(() => {
  // Inside a nextTick callback the current async resource is that callback's task object.
  held = executionAsyncResource();
});

/** The task object held (undefined until the first tick has run). */
export function heldTask(): object | undefined {
  return held;
}
