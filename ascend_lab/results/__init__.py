"""The answers a feature hands the user, as plain objects.

A :class:`~.trace.Trace` (``ascend_lab.trace``), a :class:`~.comparison.Comparison`
(``ascend_lab.compare``), a :class:`~.numerics.NumericsResult`
(``ascend_lab.compare_numerics``) and a :class:`~.memory.PlanComparison`
(``ascend_lab.memory.compare_plans``). They sit between ``analysis`` (which builds them) and
``payload`` / ``render`` (which turn them into the viewer's document and draw them): a
result never imports either. Its ``show()``, ``to_html()`` and ``_repr_html_()`` are
one-line façades over :func:`ascend_lab.model.display.call`, whose verbs the package root
binds to ``payload.to_payload`` and ``render``'s functions, each dispatching on the
result's type (``functools.singledispatch``).
"""
