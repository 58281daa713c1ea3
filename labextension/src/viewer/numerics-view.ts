/**
 * Colour nodes by numeric error (like ./profile-colour.ts colours by time): green where the
 * two runs agree, through yellow, to red at a relative error of 1 or more; dark red where
 * one side has NaN/Inf the other has not; grey for nodes of no compared Cell. The node
 * panel shows both sides' statistics. Every string is set as text, never as HTML.
 */

import { h } from './dom';
import { viewerTrans } from './i18n';
import { NumericsNode, NumericsSection, NumericsStats } from './numerics-types';

/** The view's words, in the page's language (zh_CN in ascend_lab.po). */
export function numericsText(): { option: string; legend: string; none: string } {
  const t = viewerTrans();
  return {
    option: t.__('colour: numeric error'),
    legend: t.__('Numeric error colours'),
    none: t.__('not compared')
  };
}

export const NO_NUMERICS_COLOUR = 'hsl(0, 0%, 60%)';
export const NONFINITE_COLOUR = 'hsl(0, 90%, 28%)';
/** relative errors at or below this are "agree" (green); 1 and above red */
const LOW = 1e-7;

/** 0 (agree) .. 1 (rel err >= 1) on a log scale. */
export function errorLevel(rel: number): number {
  if (!(rel > LOW)) {
    return 0;
  }
  return Math.min(1, Math.log10(rel / LOW) / -Math.log10(LOW));
}

export function numericsColour(e: NumericsNode | undefined): string {
  if (!e) {
    return NO_NUMERICS_COLOUR;
  }
  if (e.max_rel === null || e.nonfinite) {
    return NONFINITE_COLOUR;
  }
  const t = errorLevel(e.max_rel);
  return `hsl(${Math.round(120 - 120 * t)}, 70%, ${e.diverged ? 42 : 48}%)`;
}

/** Legend stops: [label, colour] from agreeing to diverged. */
export function numericsLegend(): Array<[string, string]> {
  return [1e-7, 1e-4, 1e-2, 1].map(
    r =>
      [`${r}`, numericsColour({ cell: '', max_rel: r, diverged: false })] as [
        string,
        string
      ]
  );
}

export function numericsLegendElement(): HTMLSpanElement {
  const el = h('span', {
    class: 'al-numerics-legend',
    'aria-label': numericsText().legend
  });
  const swatch = (colour: string): HTMLSpanElement =>
    h('span', {
      style: `display:inline-block;width:10px;height:10px;margin:0 2px 0 6px;background:${colour}`
    });
  for (const [label, colour] of numericsLegend()) {
    el.appendChild(swatch(colour));
    el.appendChild(document.createTextNode(label));
  }
  el.appendChild(swatch(NONFINITE_COLOUR));
  el.appendChild(document.createTextNode('NaN/Inf'));
  el.appendChild(swatch(NO_NUMERICS_COLOUR));
  el.appendChild(document.createTextNode(numericsText().none));
  return el;
}

function g(x: number | null | undefined): string {
  if (x === null || x === undefined) {
    return '\u2014';
  }
  return Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3)
    ? x.toExponential(2)
    : `${+x.toPrecision(3)}`;
}

export function statsText(stats: NumericsStats[] | undefined): string {
  return (stats ?? [])
    .map(s => {
      const counts = [
        s.nan ? `NaN ${s.nan}` : '',
        s.inf ? `Inf ${s.inf}` : '',
        s.fp16_overflow ? `fp16 overflow ${s.fp16_overflow}` : '',
        s.fp16_underflow ? `fp16 underflow ${s.fp16_underflow}` : ''
      ].filter(Boolean);
      return (
        `${s.dtype ?? ''} [${(s.shape ?? []).join(', ')}] min ${g(s.min)} max ${g(s.max)} ` +
        `mean ${g(s.mean)} std ${g(s.std)}` +
        (counts.length ? ` (${counts.join(', ')})` : '')
      );
    })
    .join('\n');
}

/** Node panel rows for node `id` (none when the node is of no compared Cell). */
export function describeNodeNumerics(
  section: NumericsSection,
  id: string
): Array<[string, string]> {
  const e = section.nodes[id];
  if (!e) {
    return [];
  }
  const rel = e.max_rel === null ? 'inf' : g(e.max_rel);
  const head =
    `${e.cell} (${e.op_type ?? ''}): max rel ${rel}, max abs ${g(e.max_abs)}, cos ${g(e.cosine)}` +
    (e.first ? ' \u2014 first divergence' : e.diverged ? ' \u2014 diverged' : '');
  return [
    ['numerics', head],
    [section.titles[0], statsText(e.a)],
    [section.titles[1], statsText(e.b)]
  ];
}

/** The section when it belongs to `graphKey`. */
export function numericsOn(
  section: NumericsSection | null | undefined,
  graphKey: string
): NumericsSection | null {
  return section && section.graph === graphKey ? section : null;
}
