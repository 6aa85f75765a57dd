/**
 * Chart.yaml's `maintainers`, `home` and `sources`, from `toolyard chart` options: a maintainer is written as
 * npm writes a person, `Name <email> (url)` (email and url optional), checked as Helm's lint checks them.
 */

export interface ChartMaintainer {
  readonly name: string;
  readonly email?: string;
  readonly url?: string;
}

const PERSON = /^([^<>()]+?)\s*(?:<([^<>\s]+)>)?\s*(?:\(([^()\s]+)\))?$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** Why a text is not an http(s) URL, or undefined. */
export function urlProblem(text: string): string | undefined {
  if (!URL.canParse(text)) return `"${text}" is not a URL`;
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `"${text}" is not an http(s) URL`;
  return undefined;
}

/** `Name <email> (url)` → a maintainer, or the reason it is not one. */
export function parseMaintainer(text: string): ChartMaintainer | string {
  const match = PERSON.exec(text.trim());
  if (!match || match[1]!.trim() === '')
    return `"${text}" is not a maintainer: write "Name", "Name <email>" or "Name <email> (url)"`;
  const [, name, email, url] = match as unknown as [string, string, string | undefined, string | undefined];
  if (email !== undefined && !EMAIL.test(email)) return `"${email}" in "${text}" is not an email address`;
  if (url !== undefined) {
    const why = urlProblem(url);
    if (why) return `${why} (in "${text}")`;
  }
  return { name: name.trim(), ...(email ? { email } : {}), ...(url ? { url } : {}) };
}
