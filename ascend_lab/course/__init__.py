"""The course as a feature: ``ascend-lab course`` (``command``), where the notebooks are
(``files``), the nets they share (``nets``, imported by notebooks only: it imports
MindSpore) and notebook 08's ``msrun`` runner (``launch``: stops the whole job when a rank
fails). The learners' checks are :mod:`ascend_lab.exercises`.
"""
