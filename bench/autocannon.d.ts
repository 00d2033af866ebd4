// autocannon ships no types; the bench reads only these fields of its result, and its "response" events.
declare module "autocannon" {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
  }
  interface Result {
    requests: { average: number; total: number };
    latency: { p99: number };
    non2xx: number;
    errors: number;
  }
  /** The running load: a promise of the result that also emits "response" per response (time in ms, not rounded). */
  interface Run extends PromiseLike<Result> {
    on(event: "response", listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): Run;
  }
  export default function autocannon(options: Options): Run;
}
