/** The shape of a lint rule: a code from the table and a pure check of the model. */
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Model } from "../model/types.js";

export interface Rule {
  /** The diagnostic codes this rule reports. */
  readonly codes: readonly string[];
  /** One sentence: what the rule enforces. */
  readonly description: string;
  readonly check: (model: Model) => Diagnostic[];
}

/** Declares a rule (identity function, for type checking). */
export function defineRule(rule: Rule): Rule {
  return rule;
}
