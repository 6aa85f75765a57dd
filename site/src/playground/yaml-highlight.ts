/**
 * YAML highlighting for the editor: a small line tokenizer (keys, scalars, comments, markers) run by
 * CodeMirror's StreamLanguage. Structure comes from the toolyard loader and `yaml-context.ts`, not from a
 * grammar, so a full YAML parser for the editor would only add weight to the page.
 */
import { StreamLanguage, type StringStream } from '@codemirror/language';

interface State {
  /** Inside a flow collection: `{`/`[` nesting depth. */
  flow: number;
}

const KEY = /^(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^\s#:{}[\],'"][^:#{}[\],]*?)[ \t]*:(?=\s|$)/;
const WORD = /^[^\s#,{}[\]]+(?: +[^\s#,{}[\]:]+)*/;

function scalarToken(word: string): string {
  if (/^(true|false|yes|no|on|off)$/i.test(word)) return 'bool';
  if (/^(null|~)$/i.test(word)) return 'null';
  if (/^[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|\.inf|\.nan)$/i.test(word)) return 'number';
  return 'string';
}

export const yamlLanguage = StreamLanguage.define<State>({
  name: 'yaml',
  startState: () => ({ flow: 0 }),
  copyState: (state) => ({ flow: state.flow }),
  token(stream: StringStream, state: State): string | null {
    if (stream.sol() && state.flow === 0 && stream.match(/^(---|\.\.\.)(?=\s|$)/)) return 'meta';
    if (stream.eatSpace()) return null;
    const c = stream.peek();
    if (c === '#' && (stream.pos === 0 || /\s/.test(stream.string[stream.pos - 1] ?? ''))) {
      stream.skipToEnd();
      return 'comment';
    }
    if (c === '-' && /^-(\s|$)/.test(stream.string.slice(stream.pos))) {
      stream.next();
      return 'punctuation';
    }
    if (c === '{' || c === '[') {
      stream.next();
      state.flow++;
      return 'bracket';
    }
    if (c === '}' || c === ']') {
      stream.next();
      state.flow = Math.max(0, state.flow - 1);
      return 'bracket';
    }
    if (c === ',') {
      stream.next();
      return 'punctuation';
    }
    if (stream.match(KEY)) return 'propertyName';
    if (c === ':') {
      stream.next();
      return 'punctuation';
    }
    if (c === '&' || c === '*') {
      stream.match(/^[&*][^\s,{}[\]]+/);
      return 'labelName';
    }
    if (c === '!') {
      stream.match(/^![^\s]*/);
      return 'typeName';
    }
    if (c === '|' || c === '>') {
      stream.match(/^[|>][-+0-9]*/);
      return 'meta';
    }
    if (c === '"') {
      stream.next();
      let escaped = false;
      for (let ch = stream.next(); ch !== undefined; ch = stream.next()) {
        if (ch === '"' && !escaped) break;
        escaped = !escaped && ch === '\\';
      }
      return 'string';
    }
    if (c === "'") {
      stream.next();
      for (let ch = stream.next(); ch !== undefined; ch = stream.next()) {
        if (ch === "'") {
          if (stream.peek() === "'") stream.next();
          else break;
        }
      }
      return 'string';
    }
    const word = stream.match(WORD) as RegExpMatchArray | null;
    if (word) return scalarToken(word[0]);
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: '#' } },
});
