// The part of a POSIX shell (`sh -c`, `bash -c`) the simulated containers
// understand: words with single and double quotes and backslashes, `$VAR`
// and `${VAR}` expanded (unquoted ones split into fields), comments, and
// lists of commands joined by `;`, newlines, `&&` and `||`, and the
// redirections that only move output between the two streams or drop it
// (`>&2`, `2>&1`, `>/dev/null`). Anything more (pipes, files, subshells,
// command substitution, backgrounding, assignments) makes the script one the
// model does not know.

/** How a command is joined to the one before it. */
export type Connector = ';' | '&&' | '||';

/** Where one of a command's output streams goes. */
export type OutputTarget = 'stdout' | 'stderr' | 'null';

/** One simple command of a list: its words, after expansion, and its redirections. */
export interface ShellCommand {
  connector: Connector;
  words: string[];
  /** Where the command's standard output and error go (`>&2`, `2>/dev/null`). */
  output: { stdout: OutputTarget; stderr: OutputTarget };
}

/** Thrown for a script the model does not understand. */
export class UnsupportedScript extends Error {}

/** Splits and expands a script into its commands; throws {@link UnsupportedScript} for what it cannot. */
export function parseScript(script: string, env: ReadonlyMap<string, string>): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let connector: Connector = ';';
  let words: string[] = [];
  let output: ShellCommand['output'] = { stdout: 'stdout', stderr: 'stderr' };
  // The word being read, and whether any part of it was quoted (an empty
  // quoted word is still a word).
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (next: Connector) => {
    endWord();
    if (words.length > 0) commands.push({ connector, words, output });
    else if (next !== ';') throw new UnsupportedScript(`syntax error near ${next}`);
    words = [];
    output = { stdout: 'stdout', stderr: 'stderr' };
    connector = next;
  };
  const variable = (at: number): { value: string; end: number } => {
    if (script[at + 1] === '{') {
      const close = script.indexOf('}', at + 2);
      if (close < 0) throw new UnsupportedScript('unterminated ${');
      const name = script.slice(at + 2, close);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UnsupportedScript(`\${${name}}`);
      return { value: env.get(name) ?? '', end: close + 1 };
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(script.slice(at + 1));
    if (!m) {
      if ('(`'.includes(script[at + 1] ?? '')) throw new UnsupportedScript('command substitution');
      if ('?$!#@*0123456789-'.includes(script[at + 1] ?? ''))
        throw new UnsupportedScript('special parameter');
      return { value: '$', end: at + 1 };
    }
    return { value: env.get(m[0]) ?? '', end: at + 1 + m[0].length };
  };
  let i = 0;
  while (i < script.length) {
    const ch = script[i]!;
    if (ch === ' ' || ch === '\t') {
      endWord();
      i++;
    } else if (ch === '\n' || ch === ';') {
      if (ch === ';' && script[i + 1] === ';') throw new UnsupportedScript(';;');
      endCommand(';');
      i++;
    } else if (ch === '&' && script[i + 1] === '&') {
      endCommand('&&');
      i += 2;
    } else if (ch === '|' && script[i + 1] === '|') {
      endCommand('||');
      i += 2;
    } else if (ch === '>') {
      // `>&N`, `N>&M` or `>/dev/null`, with the fd an unquoted digit just before.
      let fd = 1;
      if (inWord && (word === '1' || word === '2') && !/\s/.test(script[i - 1] ?? ' ')) {
        fd = Number(word);
        word = '';
        inWord = false;
      }
      endWord();
      const rest = /^>[ \t]*(&[12]|\/dev\/null)(?=[\s;&|]|$)/.exec(script.slice(i));
      if (!rest) throw new UnsupportedScript('redirection to a file');
      const target = rest[1] === '&1' ? output.stdout : rest[1] === '&2' ? output.stderr : 'null';
      output = fd === 1 ? { ...output, stdout: target } : { ...output, stderr: target };
      i += rest[0].length;
    } else if ('|&<()`'.includes(ch)) {
      throw new UnsupportedScript(`unsupported shell syntax ${ch}`);
    } else if (ch === '#' && !inWord) {
      while (i < script.length && script[i] !== '\n') i++;
    } else if (ch === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) throw new UnsupportedScript('unterminated quote');
      word += script.slice(i + 1, close);
      inWord = true;
      i = close + 1;
    } else if (ch === '"') {
      inWord = true;
      i++;
      for (;;) {
        if (i >= script.length) throw new UnsupportedScript('unterminated quote');
        const c = script[i]!;
        if (c === '"') {
          i++;
          break;
        }
        if (c === '\\' && '"\\$`\n'.includes(script[i + 1] ?? '')) {
          if (script[i + 1] !== '\n') word += script[i + 1];
          i += 2;
        } else if (c === '$') {
          const v = variable(i);
          word += v.value;
          i = v.end;
        } else if (c === '`') {
          throw new UnsupportedScript('command substitution');
        } else {
          word += c;
          i++;
        }
      }
    } else if (ch === '\\') {
      if (script[i + 1] !== '\n') {
        word += script[i + 1] ?? '';
        inWord = true;
      }
      i += 2;
    } else if (ch === '$') {
      const v = variable(i);
      // An unquoted expansion splits into fields on blanks.
      const fields = v.value.split(/[ \t\n]+/);
      fields.forEach((f, n) => {
        if (n > 0) endWord();
        if (f !== '') {
          word += f;
          inWord = true;
        }
      });
      i = v.end;
    } else {
      if (ch === '=' && words.length === 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(word)) {
        throw new UnsupportedScript('assignment');
      }
      word += ch;
      inWord = true;
      i++;
    }
  }
  endCommand(';');
  return commands;
}

/**
 * Kubernetes' own expansion of `$(VAR)` in a container's command and
 * arguments with its environment (third_party/forked/golang/expansion):
 * a reference to an unknown variable stays as written, `$$` is one `$`.
 */
export function expandKubernetesReferences(text: string, env: ReadonlyMap<string, string>): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch !== '$' || i + 1 >= text.length) {
      out += ch;
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(') {
      const close = text.indexOf(')', i + 2);
      if (close < 0) {
        out += text.slice(i);
        break;
      }
      const name = text.slice(i + 2, close);
      out += env.has(name) ? env.get(name) : `$(${name})`;
      i = close;
    } else {
      out += ch;
    }
  }
  return out;
}
