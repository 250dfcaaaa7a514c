"""The staff log: the rights each staff action needs and the one audit log of staff actions.

Its own package, with its own import contract (pyproject.toml): it knows the staff's rights, the
kinds of action the parts register (``kinds``), the log's rows and the services that write them
(``log``); nothing of the ledger's services, no page and nothing of ``games``. Its refusals are its
own (``errors``), not the ledger's. Import from the modules: the models read ``kinds``, so this
package loads nothing by itself.
"""
