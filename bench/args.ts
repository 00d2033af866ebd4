/**
 * The command line of a bench script: `--help` prints its usage and exits 0; an option's values (repeatable
 * options give each), its last value with a fallback, and flags.
 */
export interface CommandLine {
  valuesOf(option: string): string[];
  last(option: string): string | undefined;
  has(flag: string): boolean;
}

/** Reads `argv` (default: this process's arguments); prints `usage` and exits on --help or -h. */
export function commandLine(usage: string, argv: readonly string[] = process.argv.slice(2)): CommandLine {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage);
    process.exit(0);
  }
  const valuesOf = (option: string) => argv.flatMap((a, i) => (argv[i - 1] === option ? [a] : []));
  return { valuesOf, last: (option) => valuesOf(option).at(-1), has: (flag) => argv.includes(flag) };
}
