/** The ascend-lab icon (a chip), drawn with the theme's icon colour. */
import { LabIcon } from '@jupyterlab/ui-components';

const NPU_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <path d="M7 5h10a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2zm1 3v8h8V8H8z"/>
    <path d="M9 1h2v3H9zM13 1h2v3h-2zM9 20h2v3H9zM13 20h2v3h-2zM1 9h3v2H1zM1 13h3v2H1zM20 9h3v2h-3zM20 13h3v2h-3z"/>
    <path d="M10 10h4v4h-4z"/>
  </g>
</svg>`;

export const npuIcon = new LabIcon({ name: 'ascend-lab:npu', svgstr: NPU_SVG });
