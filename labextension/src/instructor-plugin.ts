/**
 * Registers the instructor's class panel (./instructor) when the server's class endpoint
 * answers: only under the ascend-lab hub, only for a user with the admin scope.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { PageConfig } from '@jupyterlab/coreutils';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { npuIcon } from './icons';
import { ClassPanel, fetchClass } from './instructor';
import { TRANSLATION_DOMAIN } from './trans';

export const instructorPlugin: JupyterFrontEndPlugin<void> = {
  id: 'ascend-lab:class',
  description:
    "An instructor's panel of the class's learners under the ascend-lab hub.",
  autoStart: true,
  optional: [ITranslator],
  activate: (app: JupyterFrontEnd, translator: ITranslator | null): void => {
    const trans = (translator ?? nullTranslator).load(TRANSLATION_DOMAIN);
    // Outside JupyterHub (no hubPrefix in the page config) there is no class to ask
    // about: no request, so no 404 in the server log or the browser console on every load.
    if (!PageConfig.getOption('hubPrefix')) {
      return;
    }
    // 404 (not under the ascend-lab hub service) and 403 (a learner) end here: the panel
    // is for instructors only
    fetchClass()
      .then(first => {
        const panel = new ClassPanel({ fetch: fetchClass, trans, first });
        panel.title.icon = npuIcon;
        panel.title.caption = trans.__('Ascend class');
        app.shell.add(panel, 'right', { rank: 910 });
      })
      .catch(() => undefined);
  }
};
