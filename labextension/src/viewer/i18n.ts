/**
 * How viewer code gets its translator: `viewerTrans().__('Before fusion')`.
 *
 * Every viewer label goes through the extension's one gettext domain (`ascend_lab`, see
 * ../trans.ts), so the zh_CN catalogue (ascend_lab/locale/zh_CN/LC_MESSAGES/ascend_lab.po)
 * covers it and `scripts/extract-messages.mjs` finds it. Hosts choose the translator once
 * per page: in JupyterLab (MIME renderer, document) it is the app's ITranslator; in the
 * anywidget and the standalone HTML, which have no JupyterLab, it is built here from the
 * catalogue bundled at build time (`catalogues.generated.ts`, generated from the same
 * ascend_lab.json) for the language Python chose.
 *
 * One translator per page, not per viewer: every host on a page shares the page's language
 * (JupyterLab reloads the page when its display language changes), and views build labels
 * lazily (a tab on first click, the node panel on each selection), long after
 * renderPayload returned, so a module-level translator is what they all can reach.
 */
import { englishTrans, fill, ITrans } from '../trans';

let current: ITrans = englishTrans;

/** The translator viewer labels use: English until a host sets another. */
export function viewerTrans(): ITrans {
  return current;
}

/** Set the page's translator (null: English). Returns the previous one (for tests). */
export function setViewerTrans(trans: ITrans | null): ITrans {
  const previous = current;
  current = trans ?? englishTrans;
  return previous;
}

/** msgid -> translation, for one language (from a Jed JSON catalogue). */
export type Messages = Readonly<Record<string, string>>;

/**
 * A translator over a bundled catalogue: what JupyterLab's gettext does for singular
 * messages (translation or the msgid, then %1 placeholders). `_n` chooses by `n` in
 * English and looks up the chosen form, as a one-form (nplurals=1) language needs.
 */
export function catalogueTrans(messages: Messages): ITrans {
  const find = (msgid: string): string =>
    Object.prototype.hasOwnProperty.call(messages, msgid) && messages[msgid]
      ? messages[msgid]
      : msgid;
  return {
    __: (msgid, ...args) => fill(find(msgid), args),
    _n: (msgid, plural, n, ...args) =>
      fill(find(n === 1 ? msgid : plural), [n, ...args])
  };
}

/** `zh_CN.UTF-8`, `zh-cn`, `ZH` -> `zh-CN` / `zh` style BCP 47 tag (or '' when empty). */
export function languageTag(lang: string | null | undefined): string {
  const base = String(lang ?? '')
    .slice(0, 64)
    .split(/[.@]/)[0]
    .replace(/_/g, '-')
    .trim();
  const [language, ...rest] = base.split('-');
  if (!language) {
    return '';
  }
  return [language.toLowerCase(), ...rest.map(r => r.toUpperCase())].join('-');
}

/**
 * The translator for `lang` from `catalogues` (tag -> messages): the exact tag, else the
 * first catalogue of the same language (`zh` finds `zh-CN`), else English.
 */
export function transForLanguage(
  lang: string | null | undefined,
  catalogues: Readonly<Record<string, Messages>>
): ITrans {
  const tag = languageTag(lang);
  if (!tag) {
    return englishTrans;
  }
  if (Object.prototype.hasOwnProperty.call(catalogues, tag)) {
    return catalogueTrans(catalogues[tag]);
  }
  const language = tag.split('-')[0];
  const near = Object.keys(catalogues).find(k => k.split('-')[0] === language);
  return near ? catalogueTrans(catalogues[near]) : englishTrans;
}
