/** What an emitter produces: a file of the generated package, and who owns it. */
export interface EmittedFile {
  /** Path relative to the package root, with forward slashes. */
  readonly path: string;
  readonly contents: string;
  /**
   * "generated": resourcery's, replaced on every generate; hand edits are detected.
   * "user": seeded once, then the user's; never overwritten.
   */
  readonly owner: "generated" | "user";
}
