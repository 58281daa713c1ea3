/**
 * MIME renderer for `application/vnd.ascend-lab.graph+json`: a trace output renders in
 * JupyterLab with the same viewer as the widgets, even where widget state is missing.
 * Its own entry point (`jupyterlab.mimeExtension` in package.json). Labels follow
 * JupyterLab's display language (the translator the rendermime registry passes). The
 * output's metadata may ask for one view (`{"view": "memory"}`, a name of
 * ../viewer/views.ts); without it, or with a name it does not know, every tab is shown.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { englishTrans, ITrans, TRANSLATION_DOMAIN } from '../trans';
import { renderPayload, viewName, ViewName } from '../viewer';

export const GRAPH_MIME_TYPE = 'application/vnd.ascend-lab.graph+json';

type ViewerHandle = ReturnType<typeof renderPayload>;

export class GraphRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this._mimeType = options.mimeType;
    this._trans = options.translator?.load(TRANSLATION_DOMAIN) ?? englishTrans;
    this.addClass('jp-AscendLab-graph');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const payload = model.data[this._mimeType] as unknown;
    const view = viewName((model.metadata as { view?: unknown } | undefined)?.view);
    try {
      if (this._view !== null && view !== this._shown) {
        this._view.dispose();
        this._view = null;
      }
      if (this._view === null) {
        this._shown = view;
        this._view = renderPayload(this.node, payload, { trans: this._trans, view });
      } else {
        this._view.update(payload);
      }
    } catch (err) {
      this._view?.dispose();
      this._view = null;
      const message = document.createElement('pre');
      message.className = 'jp-AscendLab-error';
      message.textContent = this._trans.__(
        'ascend-lab: cannot show this graph: %1',
        err instanceof Error ? err.message : String(err)
      );
      this.node.replaceChildren(message);
    }
  }

  dispose(): void {
    this._view?.dispose();
    this._view = null;
    super.dispose();
  }

  private _mimeType: string;
  private _trans: ITrans;
  private _view: ViewerHandle | null = null;
  private _shown: ViewName = 'all';
}

export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true, // text only: the viewer never puts model strings into HTML
  mimeTypes: [GRAPH_MIME_TYPE],
  defaultRank: 50,
  createRenderer: options => new GraphRenderer(options)
};

const extension: IRenderMime.IExtension = {
  id: 'ascend-lab:graph-renderer',
  description: 'Renders ascend-lab graph payloads (ascend-lab.graph/1).',
  rendererFactory,
  rank: 50,
  dataType: 'json'
};

export default extension;
