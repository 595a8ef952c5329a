// Command-line flags with spf13/pflag's rules, which every Kubernetes binary
// uses: `--name=value` or `--name value`, booleans as `--name`,
// `--name=true|false`, `-v=2` or `-v 2` for the one-letter flag, lists as
// comma-separated values, durations in Go's syntax; and pflag's messages for
// what is wrong (`unknown flag: --x`, `invalid argument "y" for "--x" flag:
// ...`). Written here because those rules and messages are what users of
// kube-controller-manager know, and a general parser words them otherwise.
import { parseDuration } from '@kcm-ts/apimachinery';

/**
 * The value types of {@link FlagSpec}.
 *
 * @category CLI
 */
export type FlagKind = 'bool' | 'int' | 'float' | 'duration' | 'string' | 'strings';

/**
 * One flag: its name, type, default and help.
 *
 * @category CLI
 */
export interface FlagSpec {
  /** The long name, without dashes. */
  name: string;
  /** A one-letter alias (`v`). */
  short?: string;
  /** The value type. */
  kind: FlagKind;
  /** The default, as `--help` prints it. */
  defaultText: string;
  /** The help text. */
  help: string;
  /** The placeholder of the value in `--help` (`int`, `duration`, ...). */
  valueName?: string;
}

/**
 * The parsed value of a flag, by kind; durations are milliseconds.
 *
 * @category CLI
 */
export type FlagValue = boolean | number | string | string[];

/**
 * A flag the user got wrong; the message is pflag's.
 *
 * @category CLI
 */
export class FlagError extends Error {
  /** Always `'FlagError'`. */
  override readonly name = 'FlagError';
}

function convert(spec: FlagSpec, raw: string, shown: string): FlagValue {
  const bad = (why: string) =>
    new FlagError(
      `invalid argument ${JSON.stringify(raw)} for ${JSON.stringify(shown)} flag: ${why}`,
    );
  switch (spec.kind) {
    case 'bool': {
      const v = raw.toLowerCase();
      if (['1', 't', 'true'].includes(v)) return true;
      if (['0', 'f', 'false'].includes(v)) return false;
      throw bad(`strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
    }
    case 'int':
      if (!/^[+-]?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
        throw bad(`strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
      return Number(raw);
    case 'float': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n))
        throw bad(`strconv.ParseFloat: parsing ${JSON.stringify(raw)}: invalid syntax`);
      return n;
    }
    case 'duration':
      try {
        return parseDuration(raw);
      } catch (err) {
        throw bad((err as Error).message);
      }
    case 'strings':
      return raw === '' ? [] : raw.split(',').map((s) => s.trim());
    case 'string':
      return raw;
  }
}

/**
 * What {@link parseFlags} found.
 *
 * @category CLI
 */
export interface ParsedFlags {
  /** The flags given, by long name. */
  values: Map<string, FlagValue>;
  /** The positional arguments. */
  args: string[];
}

/**
 * Parses `argv` against `specs`: returns the values of the flags given (by
 * long name) and the positional arguments. `--` ends the flags.
 *
 * @throws FlagError for an unknown flag, a missing value or a value of the wrong type
 *
 * @category CLI
 */
export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): ParsedFlags {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  const values = new Map<string, FlagValue>();
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      args.push(arg);
      continue;
    }
    const long = arg.startsWith('--');
    const body = arg.slice(long ? 2 : 1);
    const eq = body.indexOf('=');
    const name = eq === -1 ? body : body.slice(0, eq);
    const spec = long ? byName.get(name) : byShort.get(name);
    const shown = long ? `--${name}` : `-${name}`;
    if (!spec || name === '') {
      throw new FlagError(
        long
          ? `unknown flag: --${name}`
          : `unknown shorthand flag: ${JSON.stringify(name[0] ?? '')} in ${arg}`,
      );
    }
    const label = spec.short && !long ? `-${spec.short}, --${spec.name}` : `--${spec.name}`;
    let raw: string;
    if (eq !== -1) raw = body.slice(eq + 1);
    else if (spec.kind === 'bool') raw = 'true';
    else if (i + 1 < argv.length) raw = argv[++i]!;
    else throw new FlagError(`flag needs an argument: ${shown}`);
    values.set(spec.name, convert(spec, raw, label));
  }
  return { values, args };
}

/**
 * The flags' help, one block per flag, as pflag's usage prints it.
 *
 * @category CLI
 */
export function flagUsages(specs: readonly FlagSpec[]): string {
  return specs
    .map((s) => {
      const value = s.kind === 'bool' ? '' : ` ${s.valueName ?? s.kind}`;
      const head = `  ${s.short ? `-${s.short}, ` : '    '}--${s.name}${value}`;
      const def = s.defaultText === '' ? '' : ` (default ${s.defaultText})`;
      const help = `${s.help}${def}`.replace(/\n/g, '\n                ');
      return `${head}\n                ${help}`;
    })
    .join('\n');
}
