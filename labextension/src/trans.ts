/**
 * The one translation domain of ascend-lab, and an English fallback for code (and tests)
 * that runs without JupyterLab's translator.
 */

/** The gettext domain: `<python package>/locale/<lang>/LC_MESSAGES/ascend_lab.json`. */
export const TRANSLATION_DOMAIN = 'ascend_lab';

/** The part of JupyterLab's `TranslationBundle` this extension uses. */
export interface ITrans {
  __(msgid: string, ...args: unknown[]): string;
  _n(msgid: string, msgidPlural: string, n: number, ...args: unknown[]): string;
}

export function fill(text: string, args: unknown[]): string {
  // JupyterLab's gettext interpolates %1, %2, … with the extra arguments
  return text.replace(/%(\d+)/g, (all, index: string) => {
    const i = Number(index) - 1;
    return i >= 0 && i < args.length ? String(args[i]) : all;
  });
}

/** English, no translator: what `nullTranslator.load(...)` does. */
export const englishTrans: ITrans = {
  __: (msgid, ...args) => fill(msgid, args),
  _n: (msgid, plural, n, ...args) => fill(n === 1 ? msgid : plural, [n, ...args])
};
