/** SVG and PNG export of what a view shows, with colours resolved (no CSS variables). */
import { download } from './dom';
import { CSS, EXPORT_VARS } from './style';

/** A standalone SVG document of `svg`, cropped to `bounds` (graph coordinates). */
export function svgText(
  svg: SVGSVGElement,
  host: Element,
  bounds?: { x: number; y: number; width: number; height: number }
): string {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const computed = getComputedStyle(host);
  let css = CSS.split('\n')
    .filter(line => line.startsWith('svg.al-svg'))
    .join('\n');
  for (const v of EXPORT_VARS) {
    const value = computed.getPropertyValue(v).trim() || '#888';
    css = css.split(`var(${v})`).join(value);
  }
  css = css.replace(/var\(--[a-z-]+,\s*([^)]+)\)/g, '$1');
  const style = document.createElementNS('http://www.w3.org/2000/svg', 'style');
  style.textContent = css;
  clone.insertBefore(style, clone.firstChild);
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.removeAttribute('tabindex');
  const vp = clone.querySelector('.al-viewport');
  if (bounds && vp) {
    vp.removeAttribute('transform');
    clone.setAttribute(
      'viewBox',
      `${bounds.x - 10} ${bounds.y - 10} ${bounds.width + 20} ${bounds.height + 20}`
    );
    clone.setAttribute('width', String(Math.ceil(bounds.width + 20)));
    clone.setAttribute('height', String(Math.ceil(bounds.height + 20)));
  } else {
    clone.setAttribute('width', String(svg.clientWidth || 800));
    clone.setAttribute('height', String(svg.clientHeight || 480));
  }
  const bg = computed.getPropertyValue('--al-bg').trim() || '#ffffff';
  clone.setAttribute('style', `background:${bg}`);
  return new XMLSerializer().serializeToString(clone);
}

export function exportSvg(text: string, name: string): void {
  download(`${name}.svg`, new Blob([text], { type: 'image/svg+xml' }));
}

export function exportPng(text: string, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
    img.onload = (): void => {
      const scale = Math.min(2, 8000 / Math.max(img.width, img.height, 1));
      const canvas = document.createElement('canvas');
      canvas.width = Math.max(1, Math.round(img.width * scale));
      canvas.height = Math.max(1, Math.round(img.height * scale));
      const ctx = canvas.getContext('2d');
      if (!ctx) {
        reject(new Error('no 2D canvas'));
        return;
      }
      ctx.scale(scale, scale);
      ctx.drawImage(img, 0, 0);
      URL.revokeObjectURL(url);
      canvas.toBlob(blob => {
        if (blob) {
          download(`${name}.png`, blob);
          resolve();
        } else {
          reject(new Error('PNG encoding failed'));
        }
      }, 'image/png');
    };
    img.onerror = (): void => reject(new Error('could not draw the SVG'));
    img.src = url;
  });
}
