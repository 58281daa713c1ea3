/**
 * The course launcher: a Launcher card and the command "Open the Ascend course", which
 * asks the server where the course's first notebook is and opens it with the MindSpore
 * kernel (when that kernel is installed).
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { ICommandPalette } from '@jupyterlab/apputils';
import type { ILauncher } from '@jupyterlab/launcher';
import type { LabIcon } from '@jupyterlab/ui-components';

import type { ICourseInfo } from './api';
import type { ITrans } from './trans';

export const OPEN_COURSE = 'ascend-lab:open-course';

/** What the command does with the server's answer. */
export type CourseAction =
  | { kind: 'open'; path: string; kernel: string | null; note: string }
  | { kind: 'explain'; message: string };

/** Pure: decide from `GET ascend-lab/api/course` what to do. */
export function courseAction(info: ICourseInfo, trans: ITrans): CourseAction {
  if (info.path) {
    return { kind: 'open', path: info.path, kernel: info.kernel, note: info.message };
  }
  return {
    kind: 'explain',
    message: info.message || trans.__('The course notebooks were not found.')
  };
}

/** What `registerCourse` needs from JupyterLab (injected, so this module stays pure). */
export interface ICourseOptions {
  launcher: ILauncher | null;
  palette: ICommandPalette | null;
  icon: LabIcon;
  /** Ask the server where the course is. */
  fetch: () => Promise<ICourseInfo>;
  /** Show a message (a dialog; the body is put into the DOM as text). */
  notify: (title: string, body: string) => Promise<void>;
}

export function registerCourse(
  app: JupyterFrontEnd,
  trans: ITrans,
  options: ICourseOptions
): void {
  const category = trans.__('Ascend');
  const title = trans.__('Ascend course');
  app.commands.addCommand(OPEN_COURSE, {
    label: trans.__('Open the Ascend course'),
    caption: trans.__(
      'Open the first notebook of the ascend-lab course with MindSpore'
    ),
    icon: args => (args['isPalette'] ? undefined : options.icon),
    execute: async () => {
      let info: ICourseInfo;
      try {
        info = await options.fetch();
      } catch (err) {
        await options.notify(
          title,
          trans.__(
            'Could not ask the server where the course is: %1',
            err instanceof Error ? err.message : String(err)
          )
        );
        return null;
      }
      const action = courseAction(info, trans);
      if (action.kind === 'explain') {
        await options.notify(title, action.message);
        return null;
      }
      const widget = await app.commands.execute('docmanager:open', {
        path: action.path,
        factory: 'Notebook',
        ...(action.kernel ? { kernel: { name: action.kernel } } : {})
      });
      if (action.note) {
        console.info('ascend-lab:', action.note);
      }
      return widget;
    }
  });
  if (options.launcher) {
    options.launcher.add({ command: OPEN_COURSE, category, rank: 0 });
  }
  if (options.palette) {
    options.palette.addItem({
      command: OPEN_COURSE,
      category,
      args: { isPalette: true }
    });
  }
}
