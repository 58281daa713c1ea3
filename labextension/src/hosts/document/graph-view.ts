/**
 * The viewer for a file or dump folder on the server: asks the server extension to parse
 * it (`GET ascend-lab/api/graph?path=`) and draws the payload, or says why it cannot. A
 * dump folder's passes come one at a time (`GET ascend-lab/api/graph/pass?path=&index=`).
 * A profiler folder's profile comes from `GET ascend-lab/api/profile?path=`.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';

import { API_NAMESPACE } from '../../api';
import { englishTrans, ITrans } from '../../trans';
import { renderPayload, ViewName } from '../../viewer';

type ViewerHandle = ReturnType<typeof renderPayload>;

/** The JSON answer of `ascend-lab/api/<segments>?<query>`; throws with the server's message. */
async function fetchJson(
  segments: string[],
  query: Record<string, string>,
  trans: ITrans
): Promise<unknown> {
  const settings = ServerConnection.makeSettings();
  const url =
    URLExt.join(settings.baseUrl, API_NAMESPACE, ...segments) +
    URLExt.objectToQueryString(query);
  const response = await ServerConnection.makeRequest(url, {}, settings);
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message =
      body !== null && typeof (body as { message?: unknown }).message === 'string'
        ? (body as { message: string }).message
        : trans.__('the server answered %1 %2', response.status, response.statusText);
    throw new Error(message);
  }
  return body;
}

/** The payload of `path` (relative to the server root); throws with the server's message. */
export function fetchGraph(
  path: string,
  trans: ITrans = englishTrans
): Promise<unknown> {
  return fetchJson(['graph'], { path }, trans);
}

/**
 * Pass `index` of the dump folder at `path`: its graph with the diff against the pass
 * before, parsed by the server when the pass slider reaches it.
 */
export function fetchPass(
  path: string,
  index: number,
  trans: ITrans = englishTrans
): Promise<unknown> {
  return fetchJson(['graph', 'pass'], { path, index: String(index) }, trans);
}

/** The profile payload of the profiler folder at `path` (no graph; see profile_handlers.py). */
export function fetchProfile(
  path: string,
  trans: ITrans = englishTrans
): Promise<unknown> {
  return fetchJson(['profile'], { path }, trans);
}

/** What a view shows of its path: a graph file or dump folder, or a profiler folder. */
export type FolderKind = 'graph' | 'profile';

/** The statistics of weight `name` of the .mindir at `path`, read by the server. */
export function fetchWeightStats(
  path: string,
  name: string,
  trans: ITrans = englishTrans
): Promise<unknown> {
  return fetchJson(['graph', 'weight'], { path, name }, trans);
}

export class GraphView extends Widget {
  constructor(
    path: string,
    private readonly _trans: ITrans = englishTrans,
    private readonly _kind: FolderKind = 'graph',
    /** the one view to show (a name of ../../viewer/views.ts), or `all` tabs */
    private readonly _viewName: ViewName = 'all'
  ) {
    super();
    this.addClass('jp-AscendLab-graphDocument');
    this.node.style.overflow = 'auto';
    this.node.style.height = '100%';
    this.ready = this._load(path);
  }

  /** Settles once the graph is drawn or the error is shown. */
  readonly ready: Promise<void>;

  dispose(): void {
    this._view?.dispose();
    this._view = null;
    super.dispose();
  }

  private async _load(path: string): Promise<void> {
    const status = document.createElement('p');
    status.className = 'jp-AscendLab-loading';
    status.textContent = this._trans.__('ascend-lab: reading %1 …', path);
    this.node.replaceChildren(status);
    try {
      const payload =
        this._kind === 'profile'
          ? await fetchProfile(path, this._trans)
          : await fetchGraph(path, this._trans);
      if (this.isDisposed) {
        return;
      }
      this.node.replaceChildren();
      if (this._kind === 'profile') {
        // a profiler folder has no graph: the viewer opens on its Profile tab
        this._view = renderPayload(this.node, payload, {
          trans: this._trans,
          view: this._viewName
        });
        return;
      }
      // a .mindir's weights stay on the server: their statistics are read there on request
      const onRequestWeightStats = path.toLowerCase().endsWith('.mindir')
        ? (name: string) => fetchWeightStats(path, name, this._trans)
        : undefined;
      this._view = renderPayload(this.node, payload, {
        trans: this._trans,
        view: this._viewName,
        onRequestWeightStats,
        // a dump folder's passes stay on the server until the slider reaches one
        onRequestPass: (index: number) => fetchPass(path, index, this._trans)
      });
    } catch (err) {
      if (this.isDisposed) {
        return;
      }
      const title = document.createElement('h3');
      title.textContent = this._trans.__('ascend-lab cannot show %1', path);
      const message = document.createElement('pre');
      message.className = 'jp-AscendLab-error';
      message.setAttribute('role', 'alert');
      message.textContent = err instanceof Error ? err.message : String(err);
      this.node.replaceChildren(title, message);
    }
  }

  private _view: ViewerHandle | null = null;
}
