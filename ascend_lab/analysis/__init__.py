"""Analyses: plain functions over the model, in the style of networkx's algorithms.

``scopes`` (scope repair), ``fusion`` (which ops each fused kernel replaced),
``lifetimes`` and ``planner`` (memory reuse), ``align`` (which node of one graph is which
node of another), ``compat`` (do MindSpore, CANN and the driver belong together),
``profile_build`` / ``profile_join`` (kernel launches -> a Profile on the graph),
``numeric_compare`` (where two runs part ways) and ``actor_set`` (the runtime's sizes
against the planner's). No I/O beyond their inputs, no MindSpore, no views.
"""
