/**
 * Table cells wrap between words, never inside one: a browser may break a line after any hyphen or slash, so
 * `reviewer-go-python-token/token` or `gateway-github` would be cut in two on a phone. Every word of a table
 * body that holds one becomes a `w` span (white-space: nowrap in fleet.css; a short name, as a page may hold
 * tens of thousands); the text, and so what the pages' search reads, is unchanged. Works on the pages' own markup, where `<` and `>` in text and attribute
 * values are always escaped (html.ts), so text is exactly what lies between `>` and `<`.
 */
const TABLE_BODY = /<tbody>[\s\S]*?<\/tbody>/g;
/** A text run and the tag just before it (`<code>` text is kept whole by the stylesheet already). */
const TEXT = /(<[^<>]*>)([^<]+)(?=<)/g;
/** A word with a hyphen or slash inside it (between two of its characters): where a browser may break it. */
const BREAKABLE_WORD = /[^\s]*[^\s-/][-/]+[^\s-/][^\s]*/g;

export function keepWordsWhole(markup: string): string {
  return markup.replace(TABLE_BODY, (body) =>
    body.replace(TEXT, (_match, tag: string, text: string) =>
      /^<code[\s>]/.test(tag)
        ? `${tag}${text}`
        : `${tag}${text.replace(BREAKABLE_WORD, (word) => `<span class=w>${word}</span>`)}`,
    ),
  );
}
