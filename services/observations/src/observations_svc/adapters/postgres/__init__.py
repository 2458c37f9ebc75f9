"""The observations service's Postgres adapters (schema ``observations``, behind row-level security
keyed on org; every statement also names the org), one module per port:

- ``observation_store.py`` ``PostgresObservationStore`` (``ObservationStore``), whose transactions are
  ``observation_transaction.py`` ``PostgresObservationTransaction`` (``ObservationTransaction``);
- ``observation_archive.py`` ``PostgresObservationArchive`` (``ObservationArchive``);
- ``engagement_store.py`` ``PostgresEngagementStore`` (``EngagementStore``);
- ``engagement_archive.py`` ``PostgresEngagementArchive`` (``EngagementArchive``).

Shared by them: ``observation_rows.py`` and ``engagement_rows.py`` (columns, rows to records, the
writes two ports make), ``rows.py`` (dataclass fields from columns) and ``params.py`` (a query's
parameters, numbered as its fragments add them).
"""
