import './dom-shim';
import { describe, expect, it } from 'vitest';

import { courseAction } from '../launcher';
import { englishTrans } from '../trans';

describe('courseAction', () => {
  it('opens the notebook with the MindSpore kernel', () => {
    expect(
      courseAction(
        {
          path: 'notebooks/00_welcome.ipynb',
          absolute: '/home/u/notebooks/00_welcome.ipynb',
          kernel: 'mindspore',
          message: ''
        },
        englishTrans
      )
    ).toEqual({
      kind: 'open',
      path: 'notebooks/00_welcome.ipynb',
      kernel: 'mindspore',
      note: ''
    });
  });

  it('explains when the course is outside the server root', () => {
    const action = courseAction(
      {
        path: null,
        absolute: '/opt/course/00_welcome.ipynb',
        kernel: null,
        message: 'outside'
      },
      englishTrans
    );
    expect(action).toEqual({ kind: 'explain', message: 'outside' });
  });

  it('never explains with an empty message', () => {
    const action = courseAction(
      { path: null, absolute: null, kernel: null, message: '' },
      englishTrans
    );
    expect(action).toEqual({
      kind: 'explain',
      message: 'The course notebooks were not found.'
    });
  });
});
