/**
 * `.mindir` and `.ir` files open in the ascend-lab viewer as documents (double-click, or
 * Open With → "ascend-lab graph"); a folder of IR dumps opens from the file browser's
 * context menu ("Open as ascend-lab graph"), and a profiler folder (the Ascend profiler's
 * `*_ascend_ms` / `*_ascend_pt`, or the folder holding one per rank) as its profile ("Open
 * as ascend-lab profile"). The server parses the files: the browser never downloads them
 * (the document model does not load content).
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { MainAreaWidget } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import {
  ABCWidgetFactory,
  DocumentRegistry,
  DocumentWidget,
  TextModelFactory
} from '@jupyterlab/docregistry';
import { Contents } from '@jupyterlab/services';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { npuIcon } from '../../icons';
import { ITrans, TRANSLATION_DOMAIN } from '../../trans';
import { viewName } from '../../viewer';
import { FolderKind, GraphView } from './graph-view';

export const FACTORY_NAME = 'ascend-lab graph';
export const MODEL_NAME = 'ascend-lab-no-content';
export const FILE_TYPES = ['ascend-lab-mindir', 'ascend-lab-ir'];
export const OPEN_FOLDER_COMMAND = 'ascend-lab:open-graph-folder';
export const OPEN_PROFILE_COMMAND = 'ascend-lab:open-profile-folder';

/** A model that never loads the file: JupyterLab fetches no content when this is null. */
class NoContentModelFactory extends TextModelFactory {
  get name(): string {
    return MODEL_NAME;
  }

  get fileFormat(): Contents.FileFormat {
    return null;
  }
}

class GraphWidgetFactory extends ABCWidgetFactory<
  DocumentWidget<GraphView>,
  DocumentRegistry.IModel
> {
  constructor(
    options: DocumentRegistry.IWidgetFactoryOptions<DocumentWidget<GraphView>>,
    private readonly _trans: ITrans
  ) {
    super(options);
  }

  protected createNewWidget(
    context: DocumentRegistry.IContext<DocumentRegistry.IModel>
  ): DocumentWidget<GraphView> {
    const widget = new DocumentWidget({
      context,
      content: new GraphView(context.localPath, this._trans)
    });
    widget.addClass('jp-AscendLab-graphWidget');
    return widget;
  }
}

/** The folder a file-browser context menu was opened on (the item under the pointer). */
function folderUnderMenu(app: JupyterFrontEnd): string | null {
  const item = app.contextMenuHitTest(
    node =>
      node.classList.contains('jp-DirListing-item') && node.dataset.isdir === 'true'
  );
  const name = item?.querySelector('.jp-DirListing-itemText')?.textContent?.trim();
  if (!name) {
    return null;
  }
  // the file browser's current folder, without depending on @jupyterlab/filebrowser
  const browser = Array.from(app.shell.widgets('left')).find(
    w => w.id === 'filebrowser'
  );
  const model = (browser as unknown as { model?: { path?: unknown } } | undefined)
    ?.model;
  const here =
    typeof model?.path === 'string' ? model.path.replace(/^[^/:]*:/, '') : '';
  return here ? PathExt.join(here, name) : name;
}

export const documentPlugin: JupyterFrontEndPlugin<void> = {
  id: 'ascend-lab:graph-documents',
  description:
    'Opens .mindir, .ir files, IR dump folders and profiler folders in the ascend-lab viewer.',
  autoStart: true,
  optional: [ITranslator],
  activate: (app: JupyterFrontEnd, translator: ITranslator | null) => {
    const trans = (translator ?? nullTranslator).load(TRANSLATION_DOMAIN);
    const registry = app.docRegistry;
    registry.addModelFactory(new NoContentModelFactory());
    registry.addFileType({
      name: FILE_TYPES[0],
      displayName: trans.__('MindIR model'),
      extensions: ['.mindir'],
      mimeTypes: ['application/octet-stream'],
      contentType: 'file',
      fileFormat: null,
      icon: npuIcon
    });
    registry.addFileType({
      name: FILE_TYPES[1],
      displayName: trans.__('MindSpore IR dump'),
      extensions: ['.ir'],
      mimeTypes: ['text/plain'],
      contentType: 'file',
      fileFormat: null,
      icon: npuIcon
    });
    registry.addWidgetFactory(
      new GraphWidgetFactory(
        {
          name: FACTORY_NAME,
          label: trans.__('ascend-lab graph'),
          modelName: MODEL_NAME,
          fileTypes: FILE_TYPES,
          defaultFor: FILE_TYPES,
          readOnly: true
        },
        trans
      )
    );

    // args: `path` (else the folder under the context menu), `view` (one tab; default all)
    const openFolder = (args: { path?: unknown; view?: unknown }, kind: FolderKind) => {
      const path = typeof args.path === 'string' ? args.path : folderUnderMenu(app);
      if (path === null) {
        return;
      }
      const content = new GraphView(path, trans, kind, viewName(args.view));
      const widget = new MainAreaWidget({ content });
      widget.id = `ascend-lab-${kind}-${path}`;
      widget.title.label = PathExt.basename(path) || path;
      widget.title.caption = path;
      widget.title.icon = npuIcon;
      widget.title.closable = true;
      app.shell.add(widget, 'main');
      return content.ready;
    };
    app.commands.addCommand(OPEN_FOLDER_COMMAND, {
      label: trans.__('Open as ascend-lab graph'),
      execute: args => openFolder(args, 'graph')
    });
    app.commands.addCommand(OPEN_PROFILE_COMMAND, {
      label: trans.__('Open as ascend-lab profile'),
      execute: args => openFolder(args, 'profile')
    });
    for (const [command, rank] of [
      [OPEN_FOLDER_COMMAND, 3],
      [OPEN_PROFILE_COMMAND, 4]
    ] as const) {
      app.contextMenu.addItem({
        command,
        selector: '.jp-DirListing-item[data-isdir="true"]',
        rank
      });
    }
  }
};
