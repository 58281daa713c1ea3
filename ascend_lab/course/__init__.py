"""The course as a feature: ``ascend-lab course`` (``command``), where the notebooks are
(``files``) and the nets they share (``nets``, imported by notebooks only: it imports
MindSpore). The learners' checks are :mod:`ascend_lab.exercises`.
"""
